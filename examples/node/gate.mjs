// The stdio gate: a filter on the client's lines between stdin and the MCP SDK. The four billing
// servers (Go, Node, Python, Rust) run the same gate, line for line the same rules (the Go one,
// examples/go/gate.go, says why each exists), so that arguments no SDK hands over intact reach
// every server's handler in the same form, and a line an SDK would choke on never reaches it:
//
// - a line that is not UTF-8 JSON, or not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0"
//   and a method, a result or an error, no member the gate reads given twice), is ignored, with a
//   note on stderr;
// - a lone surrogate escape (\ud800 not in a pair) anywhere in a string becomes \ufffd, as the
//   module reads it;
// - the arguments of a tools/call that no SDK reads intact are replaced by a marker,
//   {"toolerr.gate": KIND}: over 4 MiB of JSON ("too_large"), nested more than 64 levels
//   ("too_deep"), or holding a number beyond a 64-bit float such as 1e309 ("out_of_range");
//   arguments that are not an object are wrapped, {"toolerr.gate": "not_object", "arguments":
//   VALUE} (this SDK refuses them with a protocol error); null arguments become {}.
//
// Every other line passes byte for byte.
import { isUtf8 } from 'node:buffer';
import { Transform } from 'node:stream';

export const GATE_MARKER = 'toolerr.gate';
const MAX_ARGUMENT_BYTES = 4 << 20; // the module's request limit
const MAX_ARGUMENT_DEPTH = 64;

/** GATE_MESSAGES: the message of the <validation_error> that answers a marker, the same in every server. */
export const GATE_MESSAGES = {
  too_large: 'The arguments are too large: this tool reads at most 4194304 bytes of JSON and 200000 values.',
  too_deep: 'The arguments are nested too deeply: this tool reads at most 64 levels of objects and arrays.',
  out_of_range: 'A number in the arguments is beyond the range of a 64-bit float (such as 1e309): send finite numbers.',
};

/** gateMarkerOf reads the gate's marker in a call's arguments: {kind, arguments?}, or null. */
export function gateMarkerOf(args) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return null;
  const kind = args[GATE_MARKER];
  if (typeof kind !== 'string') return null;
  const keys = Object.keys(args);
  if (Object.hasOwn(GATE_MESSAGES, kind) && keys.length === 1) return { kind };
  if (kind === 'not_object' && keys.length === 2 && Object.hasOwn(args, 'arguments')) return { kind, arguments: args.arguments };
  return null;
}

/** gatedStdin returns a stream of input's lines that passed the gate, for StdioServerTransport. */
export function gatedStdin(input = process.stdin, log = (line) => process.stderr.write(`${line}\n`)) {
  let pending = [];
  let gate = null;
  const onLine = (line) => {
    const { out, why } = admit(line);
    if (why !== undefined) log(`billing-node: ignored a line of ${line.length + 1} bytes from the client: ${why}`);
    else gate.push(Buffer.concat([out, NEWLINE]));
  };
  gate = new Transform({
    transform(chunk, _encoding, done) {
      let from = 0;
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
        pending.push(chunk.subarray(from, nl));
        onLine(Buffer.concat(pending));
        pending = [];
        from = nl + 1;
      }
      if (from < chunk.length) pending.push(chunk.subarray(from));
      done();
    },
    flush(done) {
      if (pending.length > 0) onLine(Buffer.concat(pending));
      pending = [];
      done();
    },
  });
  input.pipe(gate);
  return gate;
}

const NEWLINE = Buffer.from('\n');

/** admit returns {out}, the line to hand to the SDK, or {why} it is ignored. */
export function admit(line) {
  if (line.toString('latin1').trim() === '') return { why: 'blank' };
  if (!isUtf8(line)) return { why: 'not UTF-8' };
  const s = scanLine(line);
  if (!s.ok) return { why: 'not JSON' };
  if (!s.message) return { why: 'not a JSON-RPC 2.0 message' };
  const edits = [];
  let cut = [-1, -1]; // arguments replaced whole: their own edits go
  if (s.method === 'tools/call' && s.args !== null) {
    const [start, end] = s.args;
    const kind = argumentsKind(s);
    if (kind === 'null') {
      edits.push([start, end, '{}']);
      cut = s.args;
    } else if (kind === 'not_object') {
      edits.push([start, start, `{"${GATE_MARKER}":"not_object","arguments":`], [end, end, '}']);
    } else if (kind !== '') {
      edits.push([start, end, `{"${GATE_MARKER}":"${kind}"}`]);
      cut = s.args;
    }
  }
  for (const [start, end] of s.surrogates) {
    if (start < cut[0] || start >= cut[1]) edits.push([start, end, '\\ufffd']);
  }
  if (edits.length === 0) return { out: line };
  edits.sort((a, b) => a[0] - b[0]); // never overlapping; an insertion before a replacement at one place
  const parts = [];
  let at = 0;
  for (const [start, end, text] of edits) {
    parts.push(line.subarray(at, start), Buffer.from(text));
    at = end;
  }
  parts.push(line.subarray(at));
  return { out: Buffer.concat(parts) };
}

// argumentsKind classifies the arguments: '' for ones the SDKs read intact.
function argumentsKind(s) {
  if (s.args[1] - s.args[0] > MAX_ARGUMENT_BYTES) return 'too_large';
  if (s.argsDepth > MAX_ARGUMENT_DEPTH) return 'too_deep';
  if (s.argsHuge) return 'out_of_range';
  if (s.argsFirst === 0x6e) return 'null'; // n
  if (s.argsFirst !== 0x7b) return 'not_object'; // {
  return '';
}

const ST_VALUE = 0; // a value is expected
const ST_VALUE_OR_END = 1; // after '['
const ST_KEY_OR_END = 2; // after '{'
const ST_KEY = 3; // after ',' in an object
const ST_COLON = 4;
const ST_AFTER = 5; // after a value
const WORDS = { 0x74: 'true', 0x66: 'false', 0x6e: 'null' };
const TOP_TRACKED = new Set(['jsonrpc', 'method', 'params', 'id', 'result', 'error']);
const PARAMS_TRACKED = new Set(['arguments', 'name']);

// scanLine reads b as JSON without recursion (any depth), keeping what the gate needs.
export function scanLine(b) {
  const FAIL = { ok: false };
  const s = { ok: false, message: false, method: null, args: null, argsFirst: 0, argsDepth: 0, argsHuge: false, surrogates: [] };
  const stack = []; // {object, key, seen}
  let state = ST_VALUE;
  let argsStart = 0;
  let argsLevel = -1; // the stack height the arguments started at, while they are read
  let version = false;
  let hasMethod = false;
  let hasResult = false;
  let hasError = false;
  let dup = false;
  const ended = (end) => {
    if (argsLevel >= 0 && stack.length === argsLevel) {
      s.args = [argsStart, end];
      argsLevel = -1;
    }
    state = ST_AFTER;
  };
  let i = 0;
  for (;;) {
    while (i < b.length && (b[i] === 0x20 || b[i] === 0x09 || b[i] === 0x0d || b[i] === 0x0a)) i++;
    if (i === b.length) break;
    const c = b[i];
    if (state === ST_KEY_OR_END || state === ST_KEY) {
      if (c === 0x7d && state === ST_KEY_OR_END) {
        stack.pop();
        i++;
        ended(i);
        continue;
      }
      if (c !== 0x22) return FAIL;
      const end = scanString(b, i, s);
      if (end < 0) return FAIL;
      if (stack.length <= 2) {
        const top = stack[stack.length - 1];
        top.key = decodeString(b, i, end);
        const inParams = stack.length === 2 && stack[0].key === 'params';
        if (stack.length === 1 ? TOP_TRACKED.has(top.key) : inParams && PARAMS_TRACKED.has(top.key)) {
          top.seen ??= new Set();
          dup ||= top.seen.has(top.key);
          top.seen.add(top.key);
        }
      }
      i = end;
      state = ST_COLON;
      continue;
    }
    if (state === ST_COLON) {
      if (c !== 0x3a) return FAIL;
      i++;
      state = ST_VALUE;
      continue;
    }
    if (state === ST_AFTER) {
      if (stack.length === 0) return FAIL; // more after the value
      const top = stack[stack.length - 1];
      if (c === 0x2c) {
        state = top.object ? ST_KEY : ST_VALUE;
        i++;
        continue;
      }
      if ((c === 0x7d && top.object) || (c === 0x5d && !top.object)) {
        stack.pop();
        i++;
        ended(i);
        continue;
      }
      return FAIL;
    }
    // A value starts at i (or an empty array ends).
    if (c === 0x5d && state === ST_VALUE_OR_END) {
      stack.pop();
      i++;
      ended(i);
      continue;
    }
    if (stack.length === 1 && stack[0].object) {
      if (stack[0].key === 'result') hasResult = true;
      if (stack[0].key === 'error') hasError = true;
    }
    if (stack.length === 2 && stack[0].object && stack[0].key === 'params' && stack[1].object && stack[1].key === 'arguments') {
      argsStart = i;
      argsLevel = 2;
      s.argsFirst = c;
    }
    const inArgs = argsLevel >= 0;
    if (c === 0x7b || c === 0x5b) {
      stack.push({ object: c === 0x7b, key: null, seen: null });
      if (inArgs) s.argsDepth = Math.max(s.argsDepth, stack.length - argsLevel);
      i++;
      state = c === 0x7b ? ST_KEY_OR_END : ST_VALUE_OR_END;
      continue;
    }
    if (c === 0x22) {
      const end = scanString(b, i, s);
      if (end < 0) return FAIL;
      if (stack.length === 1 && stack[0].object) {
        if (stack[0].key === 'jsonrpc') version = decodeString(b, i, end) === '2.0';
        if (stack[0].key === 'method') {
          s.method = decodeString(b, i, end);
          hasMethod = true;
        }
      }
      i = end;
    } else if (WORDS[c] !== undefined) {
      const word = WORDS[c];
      if (b.toString('latin1', i, i + word.length) !== word) return FAIL;
      i += word.length;
    } else {
      const end = scanNumber(b, i);
      if (end < 0) return FAIL;
      if (inArgs && !Number.isFinite(Number(b.toString('latin1', i, end)))) s.argsHuge = true;
      i = end;
    }
    ended(i);
  }
  if (state !== ST_AFTER || stack.length !== 0) return FAIL;
  s.ok = true;
  s.message = firstByte(b) === 0x7b && version && (hasMethod || hasResult || hasError) && !dup;
  return s;
}

function firstByte(b) {
  for (const c of b) if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return c;
  return 0;
}

const isHex = (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

// scanString reads the string starting at b[i] === '"' and returns the index after it (-1 when it
// is not one), recording its lone surrogate escapes in s.surrogates.
function scanString(b, i, s) {
  i++;
  let pendingHigh = -1; // the start of a high surrogate escape not yet paired
  const lone = () => {
    if (pendingHigh >= 0) s.surrogates.push([pendingHigh, pendingHigh + 6]);
    pendingHigh = -1;
  };
  while (i < b.length) {
    const c = b[i];
    if (c === 0x22) {
      lone();
      return i + 1;
    }
    if (c < 0x20) return -1;
    if (c !== 0x5c) {
      lone();
      i++;
      continue;
    }
    if (i + 1 >= b.length) return -1;
    const e = b[i + 1];
    if (e === 0x75) {
      if (i + 6 > b.length) return -1;
      for (let k = i + 2; k < i + 6; k++) if (!isHex(b[k])) return -1;
      const u = parseInt(b.toString('latin1', i + 2, i + 6), 16);
      if (u >= 0xd800 && u <= 0xdbff) {
        lone();
        pendingHigh = i;
      } else if (u >= 0xdc00 && u <= 0xdfff) {
        if (pendingHigh >= 0 && pendingHigh + 6 === i) pendingHigh = -1; // a pair
        else {
          lone();
          s.surrogates.push([i, i + 6]);
        }
      } else lone();
      i += 6;
    } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
      lone();
      i += 2;
    } else return -1;
  }
  return -1;
}

// scanNumber reads a JSON number starting at b[i]; the index after it, or -1.
function scanNumber(b, i) {
  const isDigit = (c) => c >= 0x30 && c <= 0x39;
  const digits = (j) => {
    while (j < b.length && isDigit(b[j])) j++;
    return j;
  };
  if (b[i] === 0x2d) i++;
  if (b[i] === 0x30) i++;
  else if (b[i] >= 0x31 && b[i] <= 0x39) i = digits(i);
  else return -1;
  if (b[i] === 0x2e) {
    const j = digits(i + 1);
    if (j === i + 1) return -1;
    i = j;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === 0x2b || b[i] === 0x2d) i++;
    const j = digits(i);
    if (j === i) return -1;
    i = j;
  }
  return i;
}

// decodeString decodes the JSON string token b[start, end).
function decodeString(b, start, end) {
  try {
    return JSON.parse(b.toString('utf8', start, end));
  } catch {
    return null;
  }
}
