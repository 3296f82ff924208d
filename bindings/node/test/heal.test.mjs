// heal(server) on a real McpServer of @modelcontextprotocol/sdk, driven
// in-process by the SDK's own Client over an InMemoryTransport: what the
// model receives for every kind of failure, with zod v3 and v4 schemas.
// Expected envelopes come from the binding's own renderers called with the
// same issues, plus a few literal texts, so a wrong hook fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { z as z3 } from 'zod/v3';
import { z as z4 } from 'zod/v4';
import * as z4mini from 'zod/v4-mini';

import {
  SUPPORTED_SDK, error, formatValidation, heal, internalError, load, required, toolError,
} from '../src/index.js';

const INVOICE_ID = /^inv_[0-9]{3}$/;
const invoice = { id: 'inv_001', status: 'open', amount: 120.5, currency: 'EUR' };

/** connect links a Client to server in-process; both are closed after the test. */
async function connect(t, server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'heal-test', version: '0.0.0' });
  await client.connect(clientSide);
  t.after(() => client.close());
  return client;
}

/** call calls a tool and keeps what the model sees: content and isError (false when absent, as MCP reads it). */
async function call(client, name, args) {
  const { content, isError } = await client.callTool({ name, arguments: args });
  return { content, isError: isError ?? false };
}

/** jsonOf is issues as JSON carries them (a BigInt bound as its digits, as the ABI reads it). */
const jsonOf = (issues) => JSON.parse(JSON.stringify(issues, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));

/** expectedValidation renders, through the binding, the issues schema reports for args. */
async function expectedValidation(action, schema, args) {
  const parsed = schema.safeParse(args);
  assert.equal(parsed.success, false, 'the arguments must fail the schema');
  return formatValidation(action, jsonOf(parsed.error.issues), args);
}

const textResult = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

// getInvoice stands for a real handler: NOT_FOUND unless the id is inv_001.
async function getInvoice({ id }) {
  if (id !== invoice.id) {
    throw toolError('NOT_FOUND', {
      message: 'No invoice with that ID',
      suggestion: 'List invoices first, then retry with a real ID',
      availableActions: ['billing.list_invoices'],
      details: { requestedId: id },
    });
  }
  return textResult(invoice);
}

const schemaKinds = [
  { name: 'zod v4 raw shape', inputSchema: { id: z4.string().regex(INVOICE_ID) }, parse: z4.object({ id: z4.string().regex(INVOICE_ID) }) },
  { name: 'zod v4 z.object', inputSchema: z4.object({ id: z4.string().regex(INVOICE_ID) }) },
  { name: 'zod v4 mini z.object', inputSchema: z4mini.object({ id: z4mini.string().check(z4mini.regex(INVOICE_ID)) }) },
  { name: 'zod v3 raw shape', inputSchema: { id: z3.string().regex(INVOICE_ID) }, parse: z3.object({ id: z3.string().regex(INVOICE_ID) }) },
  { name: 'zod v3 z.object', inputSchema: z3.object({ id: z3.string().regex(INVOICE_ID) }) },
];

for (const kind of schemaKinds) {
  test(`invalid arguments become a <validation_error> (${kind.name})`, async (t) => {
    const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
    server.registerTool('billing.get_invoice', { description: 'One invoice', inputSchema: kind.inputSchema }, getInvoice);
    const client = await connect(t, server);
    const parse = kind.parse ?? kind.inputSchema;
    for (const args of [{}, { id: 5 }, { id: 'INV-1' }]) {
      const result = await call(client, 'billing.get_invoice', args);
      assert.deepEqual(result, await expectedValidation('billing.get_invoice', parse, args), JSON.stringify(args));
      const lines = result.content[0].text.split('\n');
      assert.equal(result.content.length, 1);
      assert.equal(lines[0], '<validation_error action="billing.get_invoice">');
      assert.match(lines[1], /^<field name="id">.* You sent: /);
    }
    // Valid arguments reach the handler, and its answers are unchanged.
    assert.deepEqual(await call(client, 'billing.get_invoice', { id: 'inv_001' }), { ...textResult(invoice), isError: false });
    const notFound = await call(client, 'billing.get_invoice', { id: 'inv_404' });
    assert.equal(notFound.content[0].text.split('\n')[0], '<tool_error code="NOT_FOUND" severity="error">');
  });
}

test('the <validation_error> text, as the module writes it for zod v4 and v3', async (t) => {
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  server.registerTool('v4', { inputSchema: { id: z4.string().regex(INVOICE_ID) } }, getInvoice);
  server.registerTool('v3', { inputSchema: { id: z3.string().regex(INVOICE_ID) } }, getInvoice);
  const client = await connect(t, server);
  const recovery = '<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>';
  assert.deepEqual(await call(client, 'v4', { id: 'INV-1' }), {
    content: [{ type: 'text', text: `<validation_error action="v4">
<field name="id">Invalid string: must match pattern /^inv_[0-9]{3}$/ You sent: 'INV-1'. Value does not match the required pattern.</field>
${recovery}
</validation_error>` }],
    isError: true,
  });
  assert.equal((await call(client, 'v3', { id: 5 })).content[0].text, `<validation_error action="v3">
<field name="id">Expected string, received number You sent: 5. Expected type: string.</field>
${recovery}
</validation_error>`);
});

test('nested paths, unions and BigInt bounds (zod v3 and v4)', async (t) => {
  const lines = (z) => z.object({
    invoice: z.object({ lines: z.array(z.object({ qty: z.number().int().min(1) })) }),
    ref: z.union([z.string(), z.number()]),
    cents: z.coerce.bigint().min(5n).optional(), // JSON has no BigInt: coerced from a string
  });
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  server.registerTool('v3.lines', { inputSchema: lines(z3) }, async () => textResult({}));
  server.registerTool('v4.lines', { inputSchema: lines(z4) }, async () => textResult({}));
  const client = await connect(t, server);
  const args = { invoice: { lines: [{ qty: 2 }, { qty: 0 }, { qty: 1.5 }] }, ref: true };

  const v3 = await call(client, 'v3.lines', args);
  assert.deepEqual(v3, await expectedValidation('v3.lines', lines(z3), args));
  assert.equal(v3.content[0].text, `<validation_error action="v3.lines">
<field name="invoice.lines.1.qty">Number must be greater than or equal to 1 You sent: 0. Must be >= 1.</field>
<field name="invoice.lines.2.qty">Expected integer, received float You sent: 1.5. Expected type: integer.</field>
<field name="ref">Invalid input You sent: true. Value didn't match any of the expected formats.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`);

  const v4 = await call(client, 'v4.lines', args);
  assert.deepEqual(v4, await expectedValidation('v4.lines', lines(z4), args));
  assert.deepEqual(v4.content[0].text.split('\n').slice(1, 4).map((line) => line.split('">')[0]),
    ['<field name="invoice.lines.1.qty', '<field name="invoice.lines.2.qty', '<field name="ref']);

  // A BigInt bound reaches the module as its digits (JSON has no BigInt).
  for (const tool of ['v3.lines', 'v4.lines']) {
    const bigint = await call(client, tool, { invoice: { lines: [] }, ref: 'r', cents: '1' });
    assert.match(bigint.content[0].text, /\n<field name="cents">[^\n]* You sent: '1'\. Must be >= 5\.<\/field>\n/, tool);
  }
});

test('the parsed arguments, defaults included, still reach the handler', async (t) => {
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  server.registerTool('list', { inputSchema: { limit: z4.number().int().max(100).default(10) } }, async (args) => textResult(args));
  const client = await connect(t, server);
  assert.deepEqual(await call(client, 'list', {}), { ...textResult({ limit: 10 }), isError: false });
  assert.deepEqual(await call(client, 'list', { limit: 500 }), await expectedValidation('list', z4.object({ limit: z4.number().int().max(100).default(10) }), { limit: 500 }));
});

test('a thrown tool error is delivered intact; any other throw is INTERNAL_ERROR naming the tool', async (t) => {
  const forbidden = () => error('FORBIDDEN', 'Voiding invoices requires the billing-admin role').severity('critical');
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  server.registerTool('billing.void_invoice', { inputSchema: { id: z4.string() } }, async () => {
    throw forbidden();
  });
  server.registerTool('billing.export_invoices', { description: 'Export' }, async () => {
    throw new Error('exporter backend unavailable');
  });
  server.registerTool('throws.string', {}, () => {
    throw 'not an Error';
  });
  server.registerTool('throws.rendered', {}, async () => {
    throw required('id');
  });
  server.registerTool('returns.builder', {}, async () => error('CONFLICT', 'Invoice inv_002 is already paid').retryAfter(30));
  const client = await connect(t, server);

  assert.deepEqual(await call(client, 'billing.void_invoice', { id: 'inv_001' }), await forbidden());
  const internal = await call(client, 'billing.export_invoices', {});
  assert.deepEqual(internal, await internalError('exporter backend unavailable', { tool: 'billing.export_invoices' }));
  assert.equal(internal.content[0].text.split('\n').slice(0, 2).join('\n'), `<tool_error code="INTERNAL_ERROR" severity="error">
<message>[billing.export_invoices] exporter backend unavailable</message>`);
  assert.deepEqual(await call(client, 'throws.string', {}), await internalError('not an Error', { tool: 'throws.string' }));
  assert.deepEqual(await call(client, 'throws.rendered', {}), await required('id'));
  assert.deepEqual(await call(client, 'returns.builder', {}), await error('CONFLICT', 'Invoice inv_002 is already paid').retryAfter(30));
});

test('a warning rides isError: false, returned or thrown', async (t) => {
  const deprecated = () => error('DEPRECATED', 'page_size is deprecated; use limit').severity('warning');
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  server.registerTool('returns.warning', {}, async () => {
    const warning = await deprecated();
    return { content: [...warning.content, ...textResult({ invoices: [] }).content], isError: warning.isError };
  });
  server.registerTool('throws.warning', {}, async () => {
    throw deprecated();
  });
  const client = await connect(t, server);
  const warning = await deprecated();
  assert.equal(warning.isError, false);
  assert.deepEqual(await call(client, 'returns.warning', {}), {
    content: [...warning.content, ...textResult({ invoices: [] }).content], isError: false,
  });
  assert.deepEqual(await call(client, 'throws.warning', {}), warning);
});

test('an unknown or disabled tool is answered by the SDK as without heal()', async (t) => {
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  server.registerTool('billing.disabled', {}, async () => textResult({})).disable();
  const client = await connect(t, server);
  assert.deepEqual(await call(client, 'billing.refund_invoice', {}), {
    content: [{ type: 'text', text: 'MCP error -32602: Tool billing.refund_invoice not found' }], isError: true,
  });
  assert.deepEqual(await call(client, 'billing.disabled', {}), {
    content: [{ type: 'text', text: 'MCP error -32602: Tool billing.disabled disabled' }], isError: true,
  });
});

test('tools registered before heal(), with tool(), renamed or given a new callback are covered', async (t) => {
  const server = new McpServer({ name: 'billing', version: '1.0.0' });
  server.registerTool('before', { inputSchema: { id: z4.string().regex(INVOICE_ID) } }, async () => {
    throw new Error('before heal');
  });
  const renamed = server.registerTool('old.name', {}, async () => {
    throw new Error('renamed');
  });
  assert.equal(heal(server), server);
  server.tool('legacy', { id: z3.string() }, async () => {
    throw new Error('legacy');
  });
  const updated = server.registerTool('updated', {}, async () => textResult({}));
  updated.update({
    callback: async () => {
      throw new Error('new callback');
    },
  });
  renamed.update({ name: 'new.name' });
  const client = await connect(t, server);

  assert.deepEqual(await call(client, 'before', { id: 'x' }), await expectedValidation('before', z4.object({ id: z4.string().regex(INVOICE_ID) }), { id: 'x' }));
  assert.deepEqual(await call(client, 'before', { id: 'inv_001' }), await internalError('before heal', { tool: 'before' }));
  assert.deepEqual(await call(client, 'legacy', { id: 1 }), await expectedValidation('legacy', z3.object({ id: z3.string() }), { id: 1 }));
  assert.deepEqual(await call(client, 'legacy', { id: 'a' }), await internalError('legacy', { tool: 'legacy' }));
  assert.deepEqual(await call(client, 'updated', {}), await internalError('new callback', { tool: 'updated' }));
  assert.deepEqual(await call(client, 'new.name', {}), await internalError('renamed', { tool: 'new.name' }));
});

test('heal() twice changes nothing more, and Toolerr#heal renders through that module', async (t) => {
  const toolerr = await load();
  t.after(() => toolerr.close());
  const server = new McpServer({ name: 'billing', version: '1.0.0' });
  assert.equal(toolerr.heal(server), server);
  const validate = server.validateToolInput;
  assert.equal(heal(server), server);
  assert.equal(server.validateToolInput, validate);
  server.registerTool('billing.get_invoice', { inputSchema: { id: z4.string().regex(INVOICE_ID) } }, getInvoice);
  server.registerTool('billing.export_invoices', {}, async () => {
    throw new Error('exporter backend unavailable');
  });
  const client = await connect(t, server);
  assert.deepEqual(await call(client, 'billing.get_invoice', { id: 'INV-1' }), await expectedValidation('billing.get_invoice', z4.object({ id: z4.string().regex(INVOICE_ID) }), { id: 'INV-1' }));
  assert.deepEqual(await call(client, 'billing.export_invoices', {}), await internalError('exporter backend unavailable', { tool: 'billing.export_invoices' }));
});

test('what the SDK refuses for another reason keeps the SDK answer (maxToolInputElements, SDK 1.32)', async (t) => {
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }, { maxToolInputElements: 3 }));
  server.registerTool('billing.get_invoices', { inputSchema: { ids: z4.array(z4.string()) } }, async () => textResult({}));
  const client = await connect(t, server);
  assert.deepEqual(await call(client, 'billing.get_invoices', { ids: ['a', 'b', 'c', 'd'] }), {
    content: [{ type: 'text', text: 'MCP error -32602: Invalid arguments for tool billing.get_invoices: arguments contain more than the maximum of 3 elements' }],
    isError: true,
  });
});

test('a URL elicitation request stays a JSON-RPC error', async (t) => {
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  server.registerTool('billing.connect_bank', {}, async () => {
    throw new UrlElicitationRequiredError([{ mode: 'url', message: 'Sign in to your bank', url: 'https://bank.example/auth', elicitationId: 'e1' }]);
  });
  const client = await connect(t, server);
  await assert.rejects(client.callTool({ name: 'billing.connect_bank', arguments: {} }), (err) => err.code === ErrorCode.UrlElicitationRequired);
});

test('heal() refuses, clearly and changing nothing, what is not a supported McpServer', () => {
  const supported = /an McpServer of @modelcontextprotocol\/sdk >=1\.24\.0 <2/;
  assert.equal(SUPPORTED_SDK, '>=1.24.0 <2');
  for (const value of [null, undefined, 'server', {}]) {
    assert.throws(() => heal(value), (err) => err instanceof TypeError && supported.test(err.message), String(value));
  }
  const lowLevel = new Server({ name: 'billing', version: '1.0.0' }, { capabilities: { tools: {} } });
  assert.throws(() => heal(lowLevel), /got a low-level Server: heal the McpServer/);

  // An McpServer of an SDK before 1.24.0 validated inline, with no method to hook.
  class McpServer {
    constructor() {
      this._registeredTools = {};
    }
    registerTool(name, config, cb) {
      this._registeredTools[name] = { config, cb };
    }
  }
  const older = new McpServer();
  assert.throws(() => heal(older), (err) => supported.test(err.message)
    && err.message.endsWith('got an instance of McpServer without validateToolInput(3 arguments), executeToolHandler(3 arguments)'));
  assert.deepEqual(Object.getOwnPropertyNames(older), ['_registeredTools']);
  assert.equal(Object.getOwnPropertySymbols(older).length, 0);
});
