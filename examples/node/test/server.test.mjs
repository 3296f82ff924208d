// Drives server.mjs, a real subprocess, with the MCP SDK's own client over
// stdio through the billing scenario of examples/scenario.json: every call,
// with the exact text of each content block (the same bytes every server
// returns), then what the binding's throwOnError reads back from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ClientError, load } from 'toolerr';

import { callNamed, defs, lockfile, readJSON, scenario } from './scenario.mjs';

const serverPath = fileURLToPath(new URL('../server.mjs', import.meta.url));
const tools = Object.keys(defs).sort().map((name) => ({ name, ...defs[name] }));
const validationRecovery = 'Fix the fields above and call the tool again. Do not explain the error.';

// docs/CONTRACT.md's CONTENT() and ATTR(), enough for the scenario's texts.
const content = (s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll(']]>', ']]&gt;');
const attr = (s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

const toolerr = await load();
test.after(() => toolerr.close());

// The changes a <contract_awareness> of the tool names: the lockfile's
// BREAKING and RISKY deltas that concern it, in order (at most 5).
const { deltas } = await toolerr.contractDiff(lockfile, tools);
const changesOf = (tool) => deltas
  .filter((d) => (d.severity === 'BREAKING' || d.severity === 'RISKY') && (!d.field.includes('actions.') || d.field.includes(`actions.${tool}`)))
  .slice(0, 5)
  .map(({ severity, field, description, before, after }) => ({ severity, field, description, before, after }));

async function startServer(t) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.setEncoding('utf8').on('data', (d) => (stderr += d));
  const client = new Client({ name: 'billing-test', version: '0.0.0' });
  await client.connect(transport);
  t.after(async () => {
    await client.close();
    if (/Error|error:/.test(stderr.replace(/ExperimentalWarning[^\n]*\n?/g, ''))) t.diagnostic(`server stderr:\n${stderr}`);
  });
  return client;
}

async function runCall(client, call) {
  const params = { name: call.tool };
  if ('arguments' in call) params.arguments = call.arguments;
  const result = await client.callTool(params);
  const { expect, answer } = call;
  assert.deepEqual(result.content.map((c) => c.type), answer.content.map(() => 'text'));
  const texts = result.content.map((c) => c.text);
  assert.deepEqual(texts, answer.content);
  assert.equal(result.isError ?? false, answer.isError);
  const err = await toolerr.throwOnError(result).then(() => null, (e) => e);
  if (expect.kind === 'success' || expect.kind === 'warning') {
    assert.equal(err, null);
    assert.equal(texts.length, expect.kind === 'success' ? 1 : 2);
    assert.deepEqual(JSON.parse(texts.at(-1)), expect.payload);
    if (expect.kind === 'warning') {
      const warning = await toolerr.parse(texts[0]);
      assert.deepEqual([warning.kind, warning.code, warning.severity, warning.isError, warning.recovery !== null],
        ['tool_error', expect.code, expect.severity, false, expect.recovery]);
    }
    return;
  }
  assert.ok(err instanceof ClientError, `throwOnError gave ${err}`);
  assert.deepEqual(
    { kind: err.kind, code: err.code, severity: err.severity, recovery: err.recovery !== null },
    { kind: expect.kind, code: expect.code, severity: expect.severity, recovery: expect.recovery },
  );
  // What is read back is what the text says.
  if (err.recovery !== null) assert.ok(texts[0].includes(`\n<recovery>${content(err.recovery)}</recovery>\n`), err.recovery);
  if (expect.message !== undefined) assert.equal(err.message, expect.message);
  if (expect.kind === 'tool_error') assert.ok(texts[0].includes(`\n<message>${content(err.message)}</message>\n`), err.message);
  if (expect.actions !== undefined) assert.deepEqual(err.availableActions, expect.actions);
  // XML carries no types: a number detail parses back as its text.
  if (expect.details !== undefined) assert.deepEqual(err.details, expect.details);
  if (expect.retryAfter !== undefined) assert.equal(err.retryAfter, expect.retryAfter);
  if (expect.kind !== 'validation_error') return;
  assert.deepEqual(err.fields.map((f) => f.name), expect.fields);
  for (const f of err.fields) assert.ok(texts[0].includes(`\n<field name="${attr(f.name)}">${content(f.message)}</field>\n`), f.message);
  assert.equal(err.recovery, validationRecovery);
  if (expect.contract === undefined) {
    assert.equal(err.contract, null); // an unchanged tool: no contract awareness
  } else {
    const changes = changesOf(call.tool);
    assert.deepEqual(err.contract, {
      tool: call.tool, action: call.tool, changeCount: changes.length, maxSeverity: expect.contract, changes,
    });
  }
}

test('the billing scenario, one server process per session', async (t) => {
  for (const [i, session] of scenario.sessions.entries()) {
    await t.test(`session ${session.name}`, async (t) => {
      const client = await startServer(t);
      if (i === 0) {
        await t.test('initialize', () => {
          assert.deepEqual(client.getServerVersion(), { name: 'billing-node', version: '0.1.0' });
          assert.ok(client.getServerCapabilities()?.tools);
        });

        await t.test('tools/list gives the five tools of examples/schemas.json', async () => {
          const { tools: listed } = await client.listTools();
          assert.deepEqual(listed.map((tool) => tool.name), Object.keys(defs).sort());
          for (const tool of listed) {
            assert.equal(tool.description, defs[tool.name].description);
            // Same schema, same key order: the text every language advertises.
            assert.equal(JSON.stringify(tool.inputSchema), JSON.stringify(defs[tool.name].inputSchema));
          }
        });
      }

      for (const call of session.calls) {
        await t.test(call.name, () => runCall(client, call));
      }

      if (i === 0) {
        await t.test('an unknown tool is answered as the SDK does by default', async () => {
          const result = await client.callTool({ name: 'billing.refund_invoice', arguments: {} });
          assert.deepEqual(result, { content: [{ type: 'text', text: 'MCP error -32602: Tool billing.refund_invoice not found' }], isError: true });
        });
      }
    });
  }
});

test('the server writes nothing but JSON-RPC messages on stdout', async () => {
  const child = spawn(process.execPath, [serverPath], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, EXTISM_ENABLE_WASI_OUTPUT: '1' } });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  const messages = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'billing.export_invoices', arguments: {} } },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'billing.void_invoice', arguments: { id: 'inv_001' } } },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'billing.get_invoice', arguments: { id: 'x' } } },
  ];
  child.stdin.write(messages.map((m) => JSON.stringify(m) + '\n').join(''));
  const deadline = Date.now() + 20000;
  while (stdout.split('\n').filter(Boolean).length < 4 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.stdin.end();
  await new Promise((resolve) => child.on('close', resolve));
  const lines = stdout.split('\n').filter((line) => line !== '');
  // Every line is a JSON-RPC response (the SDK may answer calls out of order).
  const responses = lines.map((line) => JSON.parse(line));
  for (const response of responses) assert.equal(response.jsonrpc, '2.0');
  assert.deepEqual(responses.map((r) => r.id).sort(), [1, 2, 3, 4]);
  assert.equal(responses.find((r) => r.id === 2).result.content[0].text, callNamed('export fails with INTERNAL_ERROR naming the tool').answer.content[0]);
  assert.equal(responses.find((r) => r.id === 3).result.content[0].text.split('\n')[0],
    callNamed('void is FORBIDDEN, critical').answer.content[0].split('\n')[0]);
});

test('the server reads the canonical examples/schemas.json and examples/billing.lock.json', () => {
  const source = readFileSync(serverPath, 'utf8');
  assert.match(source, /new URL\('\.\.\/schemas\.json', import\.meta\.url\)/);
  assert.match(source, /new URL\('\.\.\/billing\.lock\.json', import\.meta\.url\)/);
});

test("every validation error of the scenario is validate's, with what contract_diff of the lockfile says", async () => {
  let count = 0;
  for (const session of scenario.sessions) {
    for (const call of session.calls.filter((c) => c.expect.kind === 'validation_error')) {
      const changed = deltas.length > 0 ? { tool: call.tool, deltas } : undefined;
      const check = await toolerr.validate(call.tool, defs[call.tool].inputSchema, call.arguments ?? {}, { contract: changed });
      assert.equal(check.valid, false, call.name);
      assert.deepEqual(check.result.content.map((c) => c.text), call.answer.content, call.name);
      assert.equal(check.result.content[0].text.includes('<contract_awareness>'), call.expect.contract !== undefined, call.name);
      count++;
    }
  }
  assert.ok(count > 0);
});

test('examples/servers.json lists the Node server', () => {
  const { servers } = readJSON('servers.json');
  const node = servers.find((s) => s.name === 'node');
  assert.deepEqual(node, { name: 'node', prepare: 'bash examples/node/prepare.sh', start: 'node examples/node/server.mjs' });
});
