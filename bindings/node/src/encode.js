// encodeRequest writes a request value as the JSON text the module reads.
// It is JSON.stringify with two differences that keep a request from
// changing silently on its way in: a value JSON cannot carry (undefined, a
// function, a symbol, a BigInt, NaN, ±Infinity, a cycle) is an
// INVALID_REQUEST naming the field, where JSON.stringify would drop it,
// write null or throw a TypeError; and a Map is written as an object in its
// insertion order, so details keep their order even with integer-like keys.
import { ToolerrError } from './errors.js';

export function encodeRequest(exportName, value) {
  const onPath = new Set();
  const fail = (path, what) => {
    const where = path === '' ? 'the request' : `"${path}"`;
    throw new ToolerrError('INVALID_REQUEST', `${exportName}: ${where} is ${what}, which JSON cannot carry`);
  };
  const encode = (v, path, key) => {
    if (v !== null && typeof v === 'object' && typeof v.toJSON === 'function') v = v.toJSON(key);
    if (v instanceof String || v instanceof Number || v instanceof Boolean) v = v.valueOf();
    switch (typeof v) {
      case 'string':
        return JSON.stringify(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'number':
        if (!Number.isFinite(v)) fail(path, String(v));
        return JSON.stringify(v);
      case 'bigint':
        return fail(path, 'a BigInt');
      case 'undefined':
        return fail(path, 'undefined');
      case 'function':
        return fail(path, 'a function');
      case 'symbol':
        return fail(path, 'a symbol');
    }
    if (v === null) return 'null';
    if (onPath.has(v)) fail(path, 'a circular reference');
    onPath.add(v);
    let text;
    if (Array.isArray(v)) {
      text = '[' + v.map((item, i) => encode(item, `${path}[${i}]`, String(i))).join(',') + ']';
    } else {
      const entries = v instanceof Map ? [...v] : Object.entries(v);
      text = '{' + entries.map(([k, item]) => {
        if (typeof k !== 'string') fail(path, `a Map with a ${typeof k} key`);
        return JSON.stringify(k) + ':' + encode(item, path === '' ? k : `${path}.${k}`, k);
      }).join(',') + '}';
    }
    onPath.delete(v);
    return text;
  };
  try {
    return encode(value, '', '');
  } catch (err) {
    if (err instanceof RangeError) fail('', 'nested too deeply');
    throw err;
  }
}
