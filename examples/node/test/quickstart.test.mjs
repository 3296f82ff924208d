// Drives quickstart.mjs, a real subprocess, with the MCP SDK's own Client
// over stdio: a server written the SDK's usual way plus heal(server) answers
// bad arguments with one <validation_error>, failures with <tool_error>
// envelopes and a call to a tool it does not have with UNKNOWN_ACTION, all
// rendered by toolerr.wasm; and, over raw stdio, that it writes nothing on
// stderr and changes no byte of what succeeds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { formatValidation, parse, unknownTool } from 'toolerr';
import { z } from 'zod';

const quickstartPath = fileURLToPath(new URL('../quickstart.mjs', import.meta.url));
const nodeModules = fileURLToPath(new URL('../node_modules', import.meta.url));
// The calls every language's quickstart answers alike, shared with the e2e runner.
const sharedCallsPath = fileURLToPath(new URL('../../quickstart.json', import.meta.url));

const RECOVERY = '<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>';

/** startQuickstart spawns `node quickstart.mjs` and connects the SDK's Client to it. */
async function startQuickstart(t) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [quickstartPath], stderr: 'pipe' });
  const client = new Client({ name: 'quickstart-test', version: '0.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

/** call returns what the model sees: the text blocks and isError (false when absent, as MCP reads it). */
async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.ok(result.content.every((block) => block.type === 'text'), JSON.stringify(result));
  return { texts: result.content.map((block) => block.text), isError: result.isError ?? false };
}

test('quickstart.mjs over stdio', async (t) => {
  const client = await startQuickstart(t);
  const idSchema = z.object({ id: z.string().regex(/^inv_[0-9]{3}$/) });

  await t.test('lists its two tools', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['billing.export_invoices', 'billing.get_invoice']);
  });

  for (const args of [{}, { id: 5 }, { id: 'INV-1' }]) {
    await t.test(`billing.get_invoice ${JSON.stringify(args)} is one <validation_error>`, async () => {
      const { texts, isError } = await call(client, 'billing.get_invoice', args);
      assert.equal(isError, true);
      assert.equal(texts.length, 1);
      const [text] = texts;
      const lines = text.split('\n');
      assert.equal(lines[0], '<validation_error action="billing.get_invoice">');
      assert.match(lines[1], /^<field name="id">[^\n]* You sent: [^\n]*<\/field>$/);
      assert.deepEqual(lines.slice(2), [RECOVERY, '</validation_error>']);
      assert.equal(text.match(/<validation_error /g).length, 1);
      // The very text the module renders for zod's issues on these arguments.
      const expected = await formatValidation('billing.get_invoice', idSchema.safeParse(args).error.issues, args);
      assert.equal(text, expected.content[0].text);
    });
  }

  await t.test('billing.get_invoice {"id":"INV-1"} names the pattern', async () => {
    const { texts } = await call(client, 'billing.get_invoice', { id: 'INV-1' });
    assert.equal(texts[0].split('\n')[1],
      `<field name="id">Invalid string: must match pattern /^inv_[0-9]{3}$/ You sent: 'INV-1'. Value does not match the required pattern.</field>`);
  });

  await t.test('billing.get_invoice {"id":"inv_404"} is NOT_FOUND', async () => {
    const { texts, isError } = await call(client, 'billing.get_invoice', { id: 'inv_404' });
    assert.equal(isError, true);
    assert.ok(texts[0].startsWith('<tool_error code="NOT_FOUND"'));
    // Its exact text is examples/quickstart.json's, checked with the shared calls below.
  });

  await t.test('billing.get_invoice {"id":"inv_001"} succeeds', async () => {
    assert.deepEqual(await call(client, 'billing.get_invoice', { id: 'inv_001' }), {
      texts: ['{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}'],
      isError: false,
    });
  });

  await t.test('billing.export_invoices {} is INTERNAL_ERROR naming the tool', async () => {
    const { texts, isError } = await call(client, 'billing.export_invoices', {});
    assert.equal(isError, true);
    assert.ok(texts[0].startsWith('<tool_error code="INTERNAL_ERROR"'));
    // Its exact text is examples/quickstart.json's, checked with the shared calls below.
  });

  await t.test('an unknown tool is UNKNOWN_ACTION listing the tools the server has', async () => {
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    const { texts, isError } = await call(client, 'billing.refund_invoice', { id: 'inv_001' });
    assert.equal(isError, true);
    assert.deepEqual(texts, [`<tool_error code="UNKNOWN_ACTION">
<message>The tool "billing.refund_invoice" does not exist.</message>
<available_actions>billing.get_invoice, billing.export_invoices</available_actions>
<recovery>Choose a valid action from available_actions and call the tool again.</recovery>
</tool_error>`]);
    assert.equal(texts[0], (await unknownTool('billing.refund_invoice', listed)).content[0].text);
  });
});

test('quickstart.mjs answers the shared calls of examples/quickstart.json', async (t) => {
  const { calls } = JSON.parse(readFileSync(sharedCallsPath, 'utf8'));
  assert.ok(calls.length > 0);
  const client = await startQuickstart(t);
  for (const expected of calls) {
    await t.test(`${expected.tool} ${JSON.stringify(expected.arguments)}`, async () => {
      const { texts, isError } = await call(client, expected.tool, expected.arguments);
      assert.equal(texts.length, 1);
      assert.equal(isError, expected.isError);
      if (expected.json !== undefined) assert.deepEqual(JSON.parse(texts[0]), expected.json);
      if (expected.text !== undefined) assert.equal(texts[0], expected.text);
      if (expected.startsWith !== undefined) assert.ok(texts[0].startsWith(expected.startsWith), texts[0]);
      const envelope = await parse(texts[0]);
      if (envelope?.kind === 'validation_error') assert.deepEqual(envelope.fields.map((f) => f.name), ['id']);
    });
  }
});

test("quickstart.mjs is the SDK's usual server plus heal and the gated stdin", () => {
  const source = readFileSync(quickstartPath, 'utf8');
  assert.match(source, /^heal\(server\);/m);
  assert.match(source, /new McpServer\(/);
  assert.match(source, /new StdioServerTransport\(gatedStdin\(\)\)/);
  for (const handWritten of ['<validation_error', '<tool_error', 'setRequestHandler', 'safeParse', 'formatValidation', 'validate(']) {
    assert.ok(!source.includes(handWritten), `quickstart.mjs must not contain ${handWritten}`);
  }
});

/**
 * exchange starts a server over stdio, sends the MCP handshake and then
 * lines, one at a time (a line with an id waits for its answer), and
 * returns each answer's raw line by id and everything the server wrote on
 * stderr (waiting up to stderrMs for it after the last answer).
 */
async function exchange(server, lines, { stderrMs = 0 } = {}) {
  const child = spawn(process.execPath, [server], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const answers = new Map();
  const waiting = new Map();
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    pending += chunk;
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const { id } = JSON.parse(line);
      answers.set(id, line);
      waiting.get(id)?.();
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const handshake = [
    { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  ];
  try {
    for (const message of [...handshake, ...lines]) {
      const answered = typeof message === 'object' && 'id' in message ? new Promise((resolve) => waiting.set(message.id, resolve)) : null;
      child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
      if (answered) await Promise.race([answered, exited.then(() => assert.fail(`the server exited before answering ${message.id}: ${stderr}`))]);
    }
    if (stderrMs > 0) {
      for (const started = Date.now(); stderr === '' && Date.now() - started < stderrMs;) await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    child.stdin.end();
    await exited;
  }
  return { answers, stderr };
}

const toolCall = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

test('200 failing calls to quickstart.mjs write nothing on stderr', async () => {
  const failing = [
    ['billing.get_invoice', { id: 5 }, '<validation_error action="billing.get_invoice">'],
    ['billing.get_invoice', {}, '<validation_error action="billing.get_invoice">'],
    ['billing.get_invoice', { id: 'inv_404' }, '<tool_error code="NOT_FOUND" severity="error">'],
    ['billing.export_invoices', {}, '<tool_error code="INTERNAL_ERROR" severity="error">'],
    ['billing.refund_invoice', { id: 'inv_001' }, '<tool_error code="UNKNOWN_ACTION">'],
  ];
  const calls = Array.from({ length: 200 }, (_, i) => toolCall(i, ...failing[i % failing.length].slice(0, 2)));
  // After them, a line that is not JSON-RPC, which the gate notes on stderr: the check that stderr is read.
  const { answers, stderr } = await exchange(quickstartPath, [...calls, 'not JSON-RPC', { jsonrpc: '2.0', id: 'ping', method: 'ping' }], { stderrMs: 5000 });
  for (const [i, { params }] of calls.entries()) {
    const { result } = JSON.parse(answers.get(i));
    const want = failing[i % failing.length][2];
    assert.ok(result.isError === true && result.content[0].text.startsWith(`${want}\n`), `call ${i} ${params.name}: ${answers.get(i)}`);
  }
  assert.equal(stderr, 'toolerr: ignored a line of 12 bytes from the client: not JSON\n');
});

test("heal changes no byte of the handshake, tools/list or a success, only the failures", async (t) => {
  // The quickstart without its heal line, beside node_modules so that its imports resolve.
  const source = readFileSync(quickstartPath, 'utf8');
  const line = 'heal(server); // toolerr answers validation errors and failures\n';
  assert.equal(source.split(line).length, 2, 'the heal line is there once');
  const dir = mkdtempSync(join(tmpdir(), 'toolerr-quickstart-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(nodeModules, join(dir, 'node_modules'), 'dir');
  const plainPath = join(dir, 'quickstart-plain.mjs');
  writeFileSync(plainPath, source.replace(line, ''));

  const successes = [
    { jsonrpc: '2.0', id: 'list', method: 'tools/list' },
    ...['inv_001', 'inv_002', 'inv_003'].map((id) => toolCall(id, 'billing.get_invoice', { id })),
  ];
  const failures = [toolCall('invalid', 'billing.get_invoice', { id: 5 }), toolCall('unknown', 'billing.refund_invoice', {})];
  const healed = await exchange(quickstartPath, [...successes, ...failures]);
  const plain = await exchange(plainPath, [...successes, ...failures]);
  assert.equal(healed.stderr, '');
  for (const id of ['init', ...successes.map((m) => m.id)]) assert.equal(healed.answers.get(id), plain.answers.get(id), id);
  assert.equal(JSON.parse(healed.answers.get('inv_001')).result.isError, undefined);
  // What heal changes.
  for (const id of ['invalid', 'unknown']) assert.notEqual(healed.answers.get(id), plain.answers.get(id), id);
  assert.match(plain.answers.get('unknown'), /MCP error -32602: Tool billing\.refund_invoice not found/);
  assert.match(healed.answers.get('unknown'), /UNKNOWN_ACTION/);
});
