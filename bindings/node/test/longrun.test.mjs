// A plugin serves far more calls than Extism's block table would hold if
// call memory were never reset (2^15 blocks, two per call).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../src/index.js';

test('one plugin answers 40,000 calls in a row', async () => {
  const toolerr = await load();
  try {
    const request = { field: 'id' };
    const first = await toolerr.call('required_field', request);
    for (let i = 1; i < 40000; i++) {
      const out = await toolerr.call('required_field', request);
      if (out !== first) assert.fail(`call ${i} answered ${out}`);
    }
    await assert.rejects(toolerr.call('tool_error', { code: '' }), { code: 'INVALID_REQUEST' });
    assert.equal(await toolerr.call('required_field', request), first);
  } finally {
    await toolerr.close();
  }
});
