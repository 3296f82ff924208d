// Drives quickstart.mjs, a real subprocess, with the MCP SDK's own Client
// over stdio: a server written the SDK's usual way plus heal(server) answers
// bad arguments with one <validation_error> and failures with <tool_error>
// envelopes, all rendered by toolerr.wasm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { formatValidation, parse } from 'toolerr';
import { z } from 'zod';

const quickstartPath = fileURLToPath(new URL('../quickstart.mjs', import.meta.url));
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

  await t.test('an unknown tool is answered as the SDK does by default', async () => {
    assert.deepEqual(await call(client, 'billing.refund_invoice', {}), {
      texts: ['MCP error -32602: Tool billing.refund_invoice not found'],
      isError: true,
    });
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
