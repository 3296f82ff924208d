// The hostile ABI requests of the security issue, sent as raw request text through `call`:
// each one is refused with the expected typed error (or answered correctly) within a bound,
// and the very next valid call on the same module still answers exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ToolerrError, load } from '../src/index.js';

const MAX_REQUEST_BYTES = 4194304;
const BOUND_MS = 10_000;
const REQUIRED_ID = `<tool_error code="MISSING_REQUIRED_FIELD">
<message>Required field "id" is missing.</message>
<recovery>Provide the "id" parameter and retry.</recovery>
</tool_error>`;

// A `parse` request whose JSON text is exactly `size` bytes (ASCII, so bytes = chars).
const parseOfSize = (size) => {
  const pre = '{"text":"';
  const post = '"}';
  return pre + 'a'.repeat(size - pre.length - post.length) + post;
};
const withDetails = (n) =>
  '{"code":"X","message":"m","details":{' + Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',') + '}}';
const rate = (max) => `{"max":${max},"windowSeconds":60,"retryAfter":60}`;

// [name, export, request text, expectation]: expectation is {code, message?} for a typed error,
// or {ok: (responseText) => void} for an answer.
const cases = [
  ['malformed JSON', 'tool_error', '{"code":', { code: 'INVALID_REQUEST', message: 'tool_error: request is not valid JSON: unexpected end of input at offset 8' }],
  ['wrong type', 'tool_error', '{"code":"X","message":42}', { code: 'INVALID_REQUEST', message: 'tool_error: "message" must be a string, got number' }],
  ['missing required field', 'tool_error', '{"code":"X"}', { code: 'INVALID_REQUEST', message: 'tool_error: "message" is required' }],
  ['just over maxRequestBytes', 'parse', parseOfSize(MAX_REQUEST_BYTES + 1), { code: 'REQUEST_TOO_LARGE' }],
  ['just under (at) maxRequestBytes', 'parse', parseOfSize(MAX_REQUEST_BYTES), { ok: (out) => assert.equal(out, '{"envelope":null}') }],
  ['nested 100,000 deep', 'tool_error', '['.repeat(100_000) + ']'.repeat(100_000), { code: 'INVALID_REQUEST', message: /nesting deeper than 256/ }],
  ['64 MiB string', 'parse', '{"text":"' + 'a'.repeat(64 * 1024 * 1024) + '"}', { code: 'REQUEST_TOO_LARGE' }],
  ['1,000,000 details', 'tool_error', withDetails(1_000_000), { code: 'REQUEST_TOO_LARGE' }],
  // Pinned: 100,000 details (about 1 MB, 200,000 values at most) are answered, in order.
  ['100,000 details', 'tool_error', withDetails(100_000), {
    ok: (out) => {
      const r = JSON.parse(out);
      assert.equal(r.isError, true);
      const lines = r.content[0].text.split('\n').filter((l) => l.startsWith('  <detail key='));
      assert.equal(lines.length, 100_000);
      assert.equal(lines[0], '  <detail key="k0">1</detail>');
      assert.equal(lines[99_999], '  <detail key="k99999">1</detail>');
    },
  }],
  ['NaN', 'rate_limited', rate('NaN'), { code: 'INVALID_REQUEST', message: /not valid JSON/ }],
  ['Infinity', 'rate_limited', rate('Infinity'), { code: 'INVALID_REQUEST', message: /not valid JSON/ }],
  ['-Infinity', 'rate_limited', rate('-Infinity'), { code: 'INVALID_REQUEST', message: /not valid JSON/ }],
  ['1e999', 'rate_limited', rate('1e999'), { code: 'INVALID_REQUEST', message: 'rate_limited: "max" must be a finite number' }],
  ['-0 renders as 0', 'rate_limited', rate('-0'), {
    ok: (out) => assert.match(JSON.parse(out).content[0].text, /^<tool_error code="RATE_LIMITED" severity="error">\n<message>Rate limit exceeded\. Maximum 0 requests per 60s window\.<\/message>/),
  }],
  ['$ref "#" schema', 'validate', '{"action":"a","schema":{"$ref":"#"},"args":{}}', { code: 'INVALID_REQUEST', message: /^validate: / }],
];

test('hostile ABI requests: typed refusal within a bound, and the module keeps serving', async () => {
  const t = await load();
  try {
    let count = 0;
    for (const [name, exp, request, want] of cases) {
      count++;
      const t0 = Date.now();
      let out = null;
      let err = null;
      try {
        out = await t.call(exp, request);
      } catch (e) {
        err = e;
      }
      const ms = Date.now() - t0;
      assert.ok(ms < BOUND_MS, `${name}: took ${ms} ms`);
      if (want.ok) {
        assert.equal(err, null, `${name}: unexpected error ${err?.code} ${err?.message}`);
        want.ok(out);
      } else {
        assert.ok(err instanceof ToolerrError, `${name}: expected ToolerrError, got ${err ?? out?.slice(0, 100)}`);
        assert.equal(err.code, want.code, `${name}: ${err.message}`);
        if (want.message instanceof RegExp) assert.match(err.message, want.message, name);
        else if (want.message) assert.equal(err.message, want.message, name);
      }
      const next = JSON.parse(await t.call('required_field', '{"field":"id"}'));
      assert.deepEqual(next, { content: [{ type: 'text', text: REQUIRED_ID }], isError: true }, `after ${name}`);
    }
    console.log(`hostile requests sent: ${count}`);
    assert.equal(count, cases.length);
  } finally {
    await t.close();
  }
});
