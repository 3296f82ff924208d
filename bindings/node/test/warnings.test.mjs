// Nothing on stderr: the default raw engine never loads node:wasi, and with
// the extism engine Node's "ExperimentalWarning: WASI is an experimental
// feature" (printed the first time a process loads node:wasi, which
// @extism/extism imports) is dropped while the binding loads it, and only
// that warning, only then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const run = (code) => spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: packageDir, encoding: 'utf8', timeout: 60000 });
const WASI = /ExperimentalWarning: WASI is an experimental feature/;

test('importing toolerr and rendering writes nothing on stderr', () => {
  const out = run(`import { required, load } from 'toolerr';
    const t = await load({ engine: 'extism' });
    console.log((await required('id')).isError, (await t.required('x')).isError);
    await t.close();`);
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stdout, 'true true\n');
  assert.equal(out.stderr, '');
});

test('every other warning still reaches stderr, during the load too', () => {
  // process.emitWarning made an accessor: the moment the binding puts its
  // filter in place, the program emits warnings through it.
  const out = run(`const original = process.emitWarning;
    let current = original;
    let during = 0;
    Object.defineProperty(process, 'emitWarning', {
      configurable: true,
      get: () => current,
      set: (value) => {
        current = value;
        if (value === original) return;
        during++;
        value.call(process, 'during the load');
        value.call(process, 'an experimental feature', 'ExperimentalWarning');
        value.call(process, new Error('WASI is an experimental feature, as an Error'));
      },
    });
    process.emitWarning('before');
    const { load } = await import('toolerr');
    await (await load({ engine: 'extism' })).required('id');
    process.emitWarning('after', 'ExperimentalWarning');
    process.emitWarning('WASI is an experimental feature and might change at any time', 'ExperimentalWarning');
    console.log(during, process.emitWarning === original);`);
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stdout, '1 true\n');
  assert.match(out.stderr, /Warning: before\n/);
  assert.match(out.stderr, /Warning: during the load\n/);
  assert.match(out.stderr, /ExperimentalWarning: an experimental feature\n/);
  assert.match(out.stderr, /Error: WASI is an experimental feature, as an Error\n/);
  assert.match(out.stderr, /ExperimentalWarning: after\n/);
  // The same text emitted by the program itself, after the binding loaded WASI, is not dropped.
  assert.equal(out.stderr.match(new RegExp(WASI, 'g'))?.length, 1);
});

test('a program that loads WASI itself still gets its warning', () => {
  const out = run(`await import('node:wasi');
    const { required } = await import('toolerr');
    await required('id');`);
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stderr, WASI);
});

test("process.emitWarning is the program's own again once the binding has loaded", () => {
  const out = run(`const original = process.emitWarning;
    const { required } = await import('toolerr');
    await required('id');
    console.log(process.emitWarning === original);`);
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stdout, 'true\n');
});

test('the raw engine does not load node:wasi', () => {
  const out = run(`import { required } from 'toolerr';
    await required('id');
    const wasi = await import('node:wasi');
    console.log(typeof wasi.WASI);`);
  assert.equal(out.status, 0, out.stderr);
  // The program's own first load of node:wasi prints Node's warning: the binding had not loaded it.
  assert.match(out.stderr, WASI);
});
