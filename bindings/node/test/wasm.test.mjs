// The shipped module, wasm/toolerr.wasm, is the committed plugin/toolerr.wasm
// (the package's prepare script, scripts/copy-wasm.mjs, copies it; npm pack
// of a fresh tree is in package.test.mjs), and load() refuses anything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { ABI_MINOR, EXPORTS, MAX_DEPTH, MAX_REQUEST_BYTES, MAX_VALUES, MODULE_VERSION } from '../src/abi.js';
import { ABI_MAJOR, ToolerrError, load } from '../src/index.js';

const copy = readFileSync(new URL('../wasm/toolerr.wasm', import.meta.url));
const plugin = new URL('../../../plugin/', import.meta.url);
const committedRecord = readFileSync(new URL('toolerr.wasm.sha256', plugin), 'utf8');
const committedDigest = committedRecord.trim().split(/\s+/)[0];

test('the shipped wasm and its record are plugin/toolerr.wasm and plugin/toolerr.wasm.sha256', () => {
  assert.match(committedRecord, /^[0-9a-f]{64} {2}toolerr\.wasm\n$/);
  assert.ok(copy.equals(readFileSync(new URL('toolerr.wasm', plugin))), 'wasm/toolerr.wasm is not plugin/toolerr.wasm: run npm run prepare in bindings/node');
  assert.equal(readFileSync(new URL('../wasm/toolerr.wasm.sha256', import.meta.url), 'utf8'), committedRecord);
});

test('load refuses bytes whose sha256 is not the expected one, with a ToolerrError (TRAP)', async () => {
  const refused = (want) => (err) => {
    assert.ok(err instanceof ToolerrError, err);
    assert.equal(err.code, 'TRAP');
    assert.match(err.message, want);
    return true;
  };
  const tampered = Uint8Array.from(copy);
  tampered[tampered.length - 1] ^= 1;
  await assert.rejects(load({ wasm: tampered, sha256: committedDigest }), refused(/^toolerr: module sha256 is [0-9a-f]{64}, want [0-9a-f]{64}$/));
  await assert.rejects(load({ wasm: copy, sha256: '0'.repeat(64) }), refused(/^toolerr: module sha256 is [0-9a-f]{64}, want 0{64}$/));
  await assert.rejects(load({ wasm: copy }), /options\.sha256 is required/);
});

test('load accepts the module with its digest and checks the ABI major', async () => {
  const toolerr = await load({ wasm: copy, sha256: committedDigest.toUpperCase() });
  try {
    const info = await toolerr.describe();
    assert.equal(Number(info.abiVersion.split('.')[0]), ABI_MAJOR);
    assert.equal(ABI_MAJOR, 1);
  } finally {
    await toolerr.close();
  }
});

test('the module is the one abi/abi.json describes (src/abi.js is generated from it)', async () => {
  const toolerr = await load();
  try {
    const info = await toolerr.describe();
    assert.equal(info.abiVersion, `${ABI_MAJOR}.${ABI_MINOR}`);
    assert.equal(info.version, MODULE_VERSION);
    assert.deepEqual(info.exports, EXPORTS);
    assert.deepEqual(info.limits, { maxRequestBytes: MAX_REQUEST_BYTES, maxDepth: MAX_DEPTH, maxValues: MAX_VALUES });
  } finally {
    await toolerr.close();
  }
});
