// resultText: the first text block of any CallToolResult, or ''.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { required, resultText } from '../src/index.js';

test('resultText reads a rendered result', async () => {
  const result = await required('id');
  assert.equal(resultText(result), result.content[0].text);
});

test('resultText skips blocks that are not text', () => {
  const result = { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }, { type: 'text', text: 'first' }, { type: 'text', text: '2' }] };
  assert.equal(resultText(result), 'first');
});

test('resultText of anything without a text block is empty', () => {
  for (const value of [null, undefined, {}, { content: [] }, { content: 'text' }, { content: [{ type: 'text', text: 5 }] }, { content: [null] }, { toolResult: 'x' }]) {
    assert.equal(resultText(value), '', JSON.stringify(value));
  }
});
