// One plugin never sees overlapping calls: 1,000 concurrent calls all get
// their own answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { load } from '../src/index.js';
import { SerialQueue } from '../src/queue.js';

test('1,000 concurrent calls on one Toolerr each get their own result', async () => {
  const toolerr = await load();
  try {
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        i % 2 === 0
          ? toolerr.call('simple_error', { message: `call ${i}`, code: `C${i}` })
          : toolerr.error(`C${i}`, `call ${i}`).details({ i }),
      ),
    );
    results.forEach((result, i) => {
      const text = typeof result === 'string' ? JSON.parse(result).content[0].text : result.content[0].text;
      assert.ok(text.startsWith(`<tool_error code="C${i}"`), `call ${i} got ${text}`);
      assert.ok(text.includes(`<message>call ${i}</message>`), `call ${i} got ${text}`);
    });
  } finally {
    await toolerr.close();
  }
});

test('SerialQueue runs tasks one at a time, in order', async () => {
  // A fake plugin that, like @extism/extism 2.0.0-rc13, answers an
  // overlapping call with the latest input.
  let latest = null;
  let running = 0;
  const call = async (input) => {
    running++;
    latest = input;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
    const out = latest;
    running--;
    return { out, overlapped: running > 0 };
  };
  const queue = new SerialQueue();
  const order = [];
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => queue.run(async () => {
      order.push(i);
      return call(i);
    })),
  );
  results.forEach((r, i) => assert.deepEqual(r, { out: i, overlapped: false }));
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
});

test('SerialQueue goes on after a failed task', async () => {
  const queue = new SerialQueue();
  const failed = queue.run(async () => {
    throw new Error('no');
  });
  const next = queue.run(async () => 'yes');
  await assert.rejects(failed, /no/);
  assert.equal(await next, 'yes');
});
