// The shipped module is the committed plugin/toolerr.wasm, and load()
// refuses anything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { ABI_MINOR, EXPORTS, MAX_DEPTH, MAX_REQUEST_BYTES, MAX_VALUES, MODULE_VERSION } from '../src/abi.js';
import { ABI_MAJOR, load } from '../src/index.js';

const copy = readFileSync(new URL('../wasm/toolerr.wasm', import.meta.url));
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const firstToken = (text) => text.trim().split(/\s+/)[0];
const committedDigest = firstToken(readFileSync(new URL('../../../plugin/toolerr.wasm.sha256', import.meta.url), 'utf8'));

test('the copied wasm has the sha256 committed in plugin/toolerr.wasm.sha256', () => {
  assert.match(committedDigest, /^[0-9a-f]{64}$/);
  assert.equal(sha256(copy), committedDigest);
});

test('the recorded digest is the copy\'s', () => {
  const recorded = readFileSync(new URL('../wasm/toolerr.wasm.sha256', import.meta.url), 'utf8');
  assert.equal(recorded, `${committedDigest}  toolerr.wasm\n`);
});

test('load refuses bytes whose sha256 is not the expected one', async () => {
  const tampered = Uint8Array.from(copy);
  tampered[tampered.length - 1] ^= 1;
  await assert.rejects(load({ wasm: tampered, sha256: committedDigest }), /module sha256 is [0-9a-f]{64}, want/);
  await assert.rejects(load({ wasm: copy, sha256: '0'.repeat(64) }), /module sha256 is [0-9a-f]{64}, want 0{64}/);
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
