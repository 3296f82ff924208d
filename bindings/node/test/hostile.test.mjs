// The hostile ABI requests of tests/hostile/corpus.json, sent as raw requests through
// `call`: each one gets the corpus's outcome (a typed refusal, or an answer) within its bound,
// and the very next valid call on the same module still answers exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { ToolerrError, load } from '../src/index.js';

const corpus = JSON.parse(readFileSync(new URL('../../../tests/hostile/corpus.json', import.meta.url), 'utf8'));

// run builds one {repeat, times, separator} run of a request; "{i}" is the run's index.
function run({ repeat, times, separator = '', ...rest }) {
  assert.deepEqual(rest, {}, 'a run has repeat, times and separator only');
  if (!repeat.includes('{i}') && separator === '') return repeat.repeat(times);
  return Array.from({ length: times }, (_, i) => repeat.replaceAll('{i}', String(i))).join(separator);
}

// build turns a corpus request or response into what `call` sends: the text of a string or of
// its parts (sent as UTF-8, as every request was before the corpus), or the bytes of base64 (in
// an array of their own: `call` reads a Uint8Array from the start of its buffer).
function build(spec) {
  if (typeof spec === 'string') return spec;
  if (spec.base64 !== undefined) return new Uint8Array(Buffer.from(spec.base64, 'base64'));
  const out = spec.parts.map((p) => (typeof p === 'string' ? p : run(p))).join('');
  if (spec.size !== undefined) assert.equal(Buffer.byteLength(out, 'utf8'), spec.size, 'built size');
  return out;
}

// problem says how an outcome differs from the case's, or returns null. Every engine here is wasm,
// so a tolerated TRAP is allowed.
function problem(tc, out, err) {
  if (err !== null && !(err instanceof ToolerrError)) return `untyped error ${err}`;
  if (err !== null && (tc.tolerate ?? []).includes(err.code)) return null;
  if (tc.error) {
    if (err === null) return `a response (${out.slice(0, 100)}), want ${tc.error.code}`;
    if (err.code !== tc.error.code) return `${err.code} ${err.message.slice(0, 300)}, want ${tc.error.code}`;
    if (tc.error.message !== undefined && err.message !== tc.error.message) return `message ${JSON.stringify(err.message)}, want ${JSON.stringify(tc.error.message)}`;
    if (tc.error.messageContains !== undefined && !err.message.includes(tc.error.messageContains)) return `message ${JSON.stringify(err.message)}, want one containing ${JSON.stringify(tc.error.messageContains)}`;
    if (tc.error.messagePrefix !== undefined && !err.message.startsWith(tc.error.messagePrefix)) return `message ${JSON.stringify(err.message)}, want one starting ${JSON.stringify(tc.error.messagePrefix)}`;
    return null;
  }
  if (err !== null) return `${err.code} ${err.message.slice(0, 300)}, want a response`;
  if (!out.startsWith('{')) return `response is not a JSON object: ${out.slice(0, 100)}`;
  JSON.parse(out);
  if (tc.response !== undefined && out !== build(tc.response)) {
    return `response ${out.slice(0, 300)}, want ${build(tc.response).slice(0, 300)}`;
  }
  return null;
}

test('hostile ABI requests: the corpus outcome within its bound, and the module keeps serving', async () => {
  // The per-call timeout is the corpus's longest bound: a loaded machine then gives a late
  // answer, which each case's bound judges, rather than a TIMEOUT.
  const longest = Math.max(corpus.maxSeconds, ...corpus.cases.map((tc) => tc.maxSeconds ?? 0));
  const t = await load({ callTimeoutMs: longest * 1000 });
  const next = build(corpus.next.request);
  const wantNext = build(corpus.next.response);
  const failures = [];
  try {
    let count = 0;
    for (const tc of corpus.cases) {
      const request = build(tc.request);
      count++;
      const t0 = Date.now();
      let out = null;
      let err = null;
      try {
        out = await t.call(tc.export, request);
      } catch (e) {
        err = e;
      }
      const ms = Date.now() - t0;
      const bound = (tc.maxSeconds ?? corpus.maxSeconds) * 1000;
      if (ms > bound) failures.push(`${tc.description}: took ${ms} ms, over ${bound}`);
      const p = problem(tc, out, err);
      if (p !== null) failures.push(`${tc.description}: ${p}`);
      if (err?.code === 'TRAP') console.log(`${tc.description}: TRAP (tolerated)`);
      assert.equal(await t.call(corpus.next.export, next), wantNext, `after ${tc.description}`);
    }
    console.log(`hostile requests sent: ${count}`);
    assert.equal(count, corpus.cases.length);
    assert.deepEqual(failures, []);
  } finally {
    await t.close();
  }
});
