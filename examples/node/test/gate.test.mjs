// The stdio gate's rules, examples/gate-cases.json, through this server's gate (gate.mjs); the Go,
// Python and Rust servers' tests run the same cases through theirs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';

import { admit, gateMarkerOf, gatedStdin } from '../gate.mjs';

const { cases } = JSON.parse(readFileSync(new URL('../../gate-cases.json', import.meta.url), 'utf8'));

// build makes a case's line: a string, or parts (strings, repeat runs, bytes).
function build(spec) {
  if (typeof spec === 'string') return Buffer.from(spec, 'utf8');
  return Buffer.concat(spec.map((p) => {
    if (typeof p === 'string') return Buffer.from(p, 'utf8');
    if (p.repeat !== undefined) return Buffer.from(p.repeat.repeat(p.times), 'utf8');
    return Buffer.from(p.bytes);
  }));
}

test('every case of gate-cases.json', () => {
  assert.ok(cases.length > 0);
  for (const c of cases) {
    const { out, why } = admit(build(c.line));
    assert.equal(why, c.why, c.name);
    if (c.want !== undefined) assert.ok(out.equals(build(c.want)), `${c.name}: ${out.toString('utf8', 0, 200)}`);
  }
});

test('the gated stream passes lines whole, split anywhere, and notes the ignored ones', async () => {
  const input = new PassThrough();
  const notes = [];
  const gated = gatedStdin(input, (line) => notes.push(line));
  const chunks = [];
  gated.on('data', (c) => chunks.push(c));
  const lines = ['{"jsonrpc":"2.0","method":"a"}', 'nope', '{"jsonrpc":"2.0","method":"b","params":{"s":"\\ud800"}}', '{"jsonrpc":"2.0","method":"c"}'];
  const text = Buffer.from(lines.join('\n'));
  for (let i = 0; i < text.length; i += 7) input.write(text.subarray(i, i + 7)); // the last line has no newline
  input.end();
  await new Promise((resolve) => gated.on('end', resolve));
  assert.equal(Buffer.concat(chunks).toString(), '{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b","params":{"s":"\\ufffd"}}\n{"jsonrpc":"2.0","method":"c"}\n');
  assert.deepEqual(notes, ['billing-node: ignored a line of 5 bytes from the client: not JSON']);
});

test('the handler reads the markers and nothing else', () => {
  assert.deepEqual(gateMarkerOf({ 'toolerr.gate': 'too_deep' }), { kind: 'too_deep' });
  assert.deepEqual(gateMarkerOf({ 'toolerr.gate': 'not_object', arguments: [1] }), { kind: 'not_object', arguments: [1] });
  for (const args of [{ 'toolerr.gate': 'too_deep', x: 1 }, { 'toolerr.gate': 'other' }, { 'toolerr.gate': 'not_object' }, { id: 'toolerr.gate' }, [1], null]) {
    assert.equal(gateMarkerOf(args), null, JSON.stringify(args));
  }
});
