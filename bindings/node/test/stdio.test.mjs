// The stdio gate in the Node binding: gate(line) on bytes as read, and
// gatedStdin(), the stream the SDK's StdioServerTransport reads, in front
// of a real healed McpServer. Expected answers come from gate() itself (the
// module's rule, checked by the vectors), so these tests check what the
// binding does with a verdict, not the module's texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod/v4';

import { GATE_HEAD_BYTES, argumentsTooLarge, call, gate, gatedStdin, heal } from '../src/index.js';

const callLine = (id, args) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"t","arguments":${args}}}`;

test('gate() reads a line as bytes, those that are not UTF-8 included', async () => {
  assert.deepEqual(await gate(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}')), { verdict: 'pass' });
  const meta = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"m","params":{"s":"a'), Buffer.from([0xff]), Buffer.from('"}}')]);
  assert.deepEqual(await gate(meta), { verdict: 'rewrite', line: '{"jsonrpc":"2.0","method":"m","params":{"s":"a\uFFFD"}}' });
  const [before, after] = callLine(3, '{"s":"?"}').split('?');
  const args = Buffer.concat([Buffer.from(before), Buffer.from([0xc0]), Buffer.from(after)]);
  const answered = await gate(args);
  assert.equal(answered.verdict, 'answer');
  const response = JSON.parse(answered.response);
  assert.equal(response.id, 3);
  assert.equal(response.result.isError, true);
  assert.match(response.result.content[0].text, /the byte 0xc0/);
  assert.deepEqual(await gate(''), { verdict: 'ignore', reason: 'blank' });
});

test('a Buffer that views part of a larger buffer is sent as the bytes it shows', async () => {
  // Buffer.from(string) takes a slice of Node's shared pool: the raw call
  // must not hand the module the whole pool.
  const pooled = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  assert.notEqual(pooled.byteLength, pooled.buffer.byteLength);
  assert.equal(await call('gate', pooled), '{"verdict":"pass"}');
  const view = Buffer.from('xx{"text":"a","context":"content"}yy').subarray(2, -2);
  assert.equal(await call('escape', view), '{"text":"a"}');
});

test('gate() sends a line over the limit as its length and head', async () => {
  const line = callLine('"big"', `{"s":"${'a'.repeat(5 << 20)}"}`);
  const head = `${Buffer.byteLength(line)}\n${line.slice(0, GATE_HEAD_BYTES)}`;
  assert.deepEqual(await gate(line), JSON.parse(await call('gate', head)));
  const response = JSON.parse((await gate(line)).response);
  assert.equal(response.id, 'big');
  assert.match(response.result.content[0].text, new RegExp(`a message of ${Buffer.byteLength(line)} bytes`));
});

test('argumentsTooLarge() is the gate\'s answer to a message of that size', async () => {
  const head = '{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"billing.get_invoice","arguments":';
  const size = 4194300;
  const viaGate = JSON.parse((await gate(`${head}"${'x'.repeat(size - 2)}"}}`)).response).result;
  assert.deepEqual(await argumentsTooLarge('billing.get_invoice', size), viaGate);
  assert.equal(viaGate.isError, true);
});

test('every line the gate hands on is a message the SDK reads', async () => {
  // The SDK's transport drops a line its JSONRPCMessageSchema refuses.
  const { cases } = JSON.parse(readFileSync(new URL('../../../tests/vectors/v1/gate.json', import.meta.url), 'utf8'));
  let checked = 0;
  for (const c of cases) {
    if (c.output === undefined || c.input.includes('\n')) continue; // an error, or the head of a long line
    const verdict = await gate(c.input);
    if (verdict.verdict !== 'pass' && verdict.verdict !== 'rewrite') continue;
    const line = verdict.verdict === 'pass' ? c.input : verdict.line;
    const parsed = JSONRPCMessageSchema.safeParse(JSON.parse(line));
    assert.ok(parsed.success, `${c.description}: the SDK refuses ${line.slice(0, 200)}: ${parsed.error?.message}`);
    checked++;
  }
  assert.ok(checked >= 30, `only ${checked} lines handed on`);
});

/** collect reads a stream to its end. */
async function collect(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString();
}

test('gatedStdin hands on what the gate passes, answers on output, notes what it ignores', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const notes = [];
  const gated = gatedStdin({ input, output, log: (note) => notes.push(note) });
  const lines = [
    '{"jsonrpc":"2.0","method":"a"}',
    'nope',
    '{"jsonrpc":"2.0","method":"b","params":{"s":"\\ud800"}}',
    callLine(7, '[1]'),
    '{"jsonrpc":"2.0","method":"c"}',
  ];
  const text = Buffer.from(lines.join('\n'));
  for (let i = 0; i < text.length; i += 7) input.write(text.subarray(i, i + 7)); // the last line has no line feed
  input.end();
  const handed = await collect(gated);
  assert.equal(handed, '{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b","params":{"s":"\\ufffd"}}\n{"jsonrpc":"2.0","method":"c"}\n');
  output.end();
  assert.equal(await collect(output), `${(await gate(lines[3])).response}\n`);
  assert.deepEqual(notes, ['toolerr: ignored a line of 4 bytes from the client: not JSON']);
});

test('gatedStdin stops reading while what waits for the SDK holds more than the limit, and loses nothing', async () => {
  const input = new PassThrough();
  const gated = gatedStdin({ input, output: new PassThrough(), log: () => {} });
  // Nobody reads gated yet: the lines the gate passes wait for the SDK.
  const line = (n) => `{"jsonrpc":"2.0","method":"m${n}","params":{"s":"${'x'.repeat(1 << 20)}"}}`;
  const sent = [];
  for (let n = 0; n < 8; n++) {
    sent.push(line(n));
    input.write(`${line(n)}\n`);
  }
  input.end();
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(input.isPaused(), true, 'reading goes on while 8 MiB wait');
  const handed = (await collect(gated)).split('\n');
  assert.equal(handed.pop(), '');
  assert.deepEqual(handed, sent);
});

test('gatedStdin keeps only the head of a line over the limit', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const gated = gatedStdin({ input, output, log: () => {} });
  const big = callLine(9, `{"s":"${'b'.repeat(6 << 20)}"}`);
  for (let i = 0; i < big.length; i += 1 << 20) input.write(big.slice(i, i + (1 << 20)));
  input.end('\n');
  assert.equal(await collect(gated), '');
  output.end();
  assert.equal(await collect(output), `${(await gate(big)).response}\n`);
});

test('a healed McpServer on gatedStdin answers every hostile request with its id', async (t) => {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  server.registerTool('t', { inputSchema: { id: z.string().regex(/^inv_[0-9]{3}$/) } }, async ({ id }) => ({ content: [{ type: 'text', text: id }] }));
  await server.connect(new StdioServerTransport(gatedStdin({ input, output, log: () => {} }), output));
  t.after(() => server.close());
  const answers = [];
  let buffered = '';
  output.on('data', (chunk) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      answers.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
    }
  });
  const next = async (count) => {
    while (answers.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
    return answers[count - 1];
  };
  input.write('{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n');
  assert.equal((await next(1)).id, 'init');
  input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const hostile = [
    [10, callLine(10, '{"id":1e400}')],
    [11, callLine(11, `{"id":${'['.repeat(300)}${']'.repeat(300)}}`)],
    [12, callLine(12, '{"id":"\\ud800"}')],
    [13, callLine(13, '"inv_001"')],
    [14, '{"jsonrpc":"2.0","id":14,"method":"ping","params":null}'],
    [15, '{"jsonrpc":"2.0","id":15,"method":"ping","extra":1}'],
    [1.5, '{"jsonrpc":"2.0","id":1.5,"method":"ping"}'],
  ];
  let count = 1;
  for (const [id, line] of hostile) {
    input.write(`${line}\n`);
    const answer = await next(++count);
    assert.equal(answer.id, id, line.slice(0, 80));
    const verdict = await gate(line);
    if (verdict.verdict === 'answer') assert.deepEqual(answer, JSON.parse(verdict.response));
  }
  input.write(`${callLine(99, '{"id":"inv_001"}')}\n`);
  assert.deepEqual((await next(++count)).result.content, [{ type: 'text', text: 'inv_001' }]);
});

test('heal answers arguments too large to render beside their issues with the gate\'s error', async (t) => {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  server.registerTool('t', { inputSchema: { id: z.string().regex(/^inv_[0-9]{3}$/) } }, async () => ({ content: [] }));
  await server.connect(new StdioServerTransport(gatedStdin({ input, output, log: () => {} }), output));
  t.after(() => server.close());
  let text = '';
  output.on('data', (chunk) => { text += chunk; });
  input.write('{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n');
  input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  // Within the gate's limits, over the module's once zod's issue and the
  // arguments are both in the request.
  const args = `{"id":"${'c'.repeat((4 << 20) - 200)}"}`;
  input.write(`${callLine(5, args)}\n`);
  while (!text.includes('"id":5')) await new Promise((resolve) => setTimeout(resolve, 10));
  const answer = JSON.parse(text.split('\n').find((line) => line.includes('"id":5')));
  assert.deepEqual(answer.result, await argumentsTooLarge('t', Buffer.byteLength(args)));
});
