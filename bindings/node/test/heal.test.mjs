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
  ClientError, SUPPORTED_SDK, SUPPORTED_SERVER, UNKNOWN_TOOL_ANSWERS, error, formatValidation, heal, internalError, load, parse, required,
  throwOnError, toolError, unknownTool,
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

const UNKNOWN_RECOVERY = '<recovery>Choose a valid action from available_actions and call the tool again.</recovery>';

/** listed is the names the server's tools/list shows the client now, in its order. */
async function listed(client) {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

/** unknownAnswer checks that calling name is the module's UNKNOWN_ACTION for the tools the client is shown now, and returns its actions. */
async function unknownAnswer(client, name, args = {}) {
  const result = await call(client, name, args);
  const tools = await listed(client);
  assert.deepEqual(result, await unknownTool(name, tools), name);
  const envelope = await parse(result);
  assert.equal(envelope.code, 'UNKNOWN_ACTION');
  assert.deepEqual([...envelope.availableActions].sort(), [...tools].sort(), 'the actions are the tools tools/list shows');
  return envelope.availableActions;
}

test('a call to a tool the server does not have is UNKNOWN_ACTION listing its tools, closest first', async (t) => {
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  for (const name of ['billing.list_invoices', 'billing.pay_invoice', 'billing.get_invoice']) {
    server.registerTool(name, { inputSchema: { id: z4.string() } }, getInvoice);
  }
  const client = await connect(t, server);
  const result = await call(client, 'billing.get_invoices', { id: 'inv_001' });
  assert.deepEqual(result, {
    content: [{ type: 'text', text: `<tool_error code="UNKNOWN_ACTION">
<message>The tool "billing.get_invoices" does not exist.</message>
<available_actions>billing.get_invoice, billing.list_invoices, billing.pay_invoice</available_actions>
${UNKNOWN_RECOVERY}
</tool_error>` }],
    isError: true,
  });
  // What a typed client makes of it.
  const thrown = await throwOnError(result).then(() => null, (e) => e);
  assert.ok(thrown instanceof ClientError);
  assert.deepEqual([thrown.code, thrown.availableActions[0]], ['UNKNOWN_ACTION', 'billing.get_invoice']);
  // The name is escaped as the module escapes content; no arguments, or any, make no difference.
  assert.deepEqual(await unknownAnswer(client, 'x</message><tool_error code="AUTH">'), ['billing.get_invoice', 'billing.list_invoices', 'billing.pay_invoice']);
  await unknownAnswer(client, 'billing.refund_invoice', { id: 'inv_001', amount: -5 });
  // A name Object.prototype has is no tool either (the SDK itself reads it as a tool, "disabled").
  await unknownAnswer(client, 'constructor');
  await unknownAnswer(client, '__proto__');
  // The tools that exist are untouched.
  assert.deepEqual(await call(client, 'billing.get_invoice', { id: 'inv_001' }), { ...textResult(invoice), isError: false });
});

test('the tools listed are the server\'s tools now: registered after heal() or connect(), disabled, removed, renamed', async (t) => {
  const server = heal(new McpServer({ name: 'billing', version: '1.0.0' }));
  const get = server.registerTool('billing.get_invoice', { inputSchema: { id: z4.string() } }, getInvoice);
  const client = await connect(t, server);
  assert.deepEqual(await unknownAnswer(client, 'billing.list_invoices'), ['billing.get_invoice']);

  // Registered after connect(): listed, and callable.
  const list = server.registerTool('billing.list_invoices', {}, async () => textResult([invoice]));
  server.tool('billing.pay_invoice', { id: z3.string() }, async () => textResult({ paid: true }));
  assert.deepEqual(await unknownAnswer(client, 'billing.list_invoice'), ['billing.list_invoices', 'billing.get_invoice', 'billing.pay_invoice']);
  assert.deepEqual(await call(client, 'billing.list_invoices', {}), { ...textResult([invoice]), isError: false });

  // Disabled: not listed, and calling it is calling a tool the model is not shown.
  get.disable();
  assert.deepEqual(await listed(client), ['billing.list_invoices', 'billing.pay_invoice']);
  assert.deepEqual(await unknownAnswer(client, 'billing.get_invoice', { id: 'inv_001' }), ['billing.pay_invoice', 'billing.list_invoices']);
  get.enable();
  assert.deepEqual(await call(client, 'billing.get_invoice', { id: 'inv_001' }), { ...textResult(invoice), isError: false });

  // Renamed: the old name is gone, the new one answers.
  list.update({ name: 'billing.search_invoices' });
  await unknownAnswer(client, 'billing.list_invoices');
  assert.deepEqual(await call(client, 'billing.search_invoices', {}), { ...textResult([invoice]), isError: false });

  // Removed: gone from the list and from the actions.
  get.remove();
  server._registeredTools['billing.pay_invoice'].remove();
  assert.deepEqual(await listed(client), ['billing.search_invoices']);
  assert.deepEqual(await call(client, 'billing.get_invoice', { id: 'inv_001' }), {
    content: [{ type: 'text', text: `<tool_error code="UNKNOWN_ACTION">
<message>The tool "billing.get_invoice" does not exist.</message>
<available_actions>billing.search_invoices</available_actions>
${UNKNOWN_RECOVERY}
</tool_error>` }],
    isError: true,
  });
});

test('tools registered before heal(), or a tools capability declared up front, get UNKNOWN_ACTION too', async (t) => {
  const before = new McpServer({ name: 'billing', version: '1.0.0' });
  before.registerTool('billing.get_invoice', { inputSchema: { id: z4.string() } }, getInvoice);
  heal(before); // the SDK's tools/call handler exists already
  const client = await connect(t, before);
  assert.deepEqual(await unknownAnswer(client, 'billing.void_invoice'), ['billing.get_invoice']);
  assert.deepEqual(await call(client, 'billing.get_invoice', { id: 'inv_001' }), { ...textResult(invoice), isError: false });

  // SDK 1.32 installs the handlers in the constructor when the tools capability is declared.
  const declared = heal(new McpServer({ name: 'billing', version: '1.0.0' }, { capabilities: { tools: {} } }));
  const declaredClient = await connect(t, declared);
  assert.deepEqual(await unknownAnswer(declaredClient, 'billing.get_invoice'), []);
  declared.registerTool('billing.get_invoice', { inputSchema: { id: z4.string() } }, getInvoice);
  assert.deepEqual(await call(declaredClient, 'billing.get_invoice', { id: 'inv_001' }), { ...textResult(invoice), isError: false });
});

test("heal(server, { unknownTool: 'sdk' }) keeps the SDK's answer to an unknown or disabled tool, as without heal()", async (t) => {
  const answers = [];
  for (const healIt of [(s) => heal(s, { unknownTool: 'sdk' }), (s) => s]) {
    const server = healIt(new McpServer({ name: 'billing', version: '1.0.0' }));
    server.registerTool('billing.disabled', {}, async () => textResult({})).disable();
    const client = await connect(t, server);
    assert.deepEqual(await call(client, 'billing.refund_invoice', {}), {
      content: [{ type: 'text', text: 'MCP error -32602: Tool billing.refund_invoice not found' }], isError: true,
    });
    assert.deepEqual(await call(client, 'billing.disabled', {}), {
      content: [{ type: 'text', text: 'MCP error -32602: Tool billing.disabled disabled' }], isError: true,
    });
    answers.push(await call(client, 'constructor', {}));
  }
  assert.deepEqual(answers[0], answers[1]);
});

test('the unknownTool option: its values, a wrong one refused changing nothing, the last heal() deciding', async (t) => {
  assert.deepEqual(UNKNOWN_TOOL_ANSWERS, ['envelope', 'sdk']);
  const server = new McpServer({ name: 'billing', version: '1.0.0' });
  for (const [options, message] of [
    [{ unknownTool: 'protocol-error' }, /^toolerr: heal\(\) option unknownTool must be 'envelope' or 'sdk', got "protocol-error"$/],
    [{ unknownTool: true }, /^toolerr: heal\(\) option unknownTool must be 'envelope' or 'sdk', got boolean$/],
    [{ unknownTools: 'sdk' }, /^toolerr: heal\(\) has no option "unknownTools" \(it has unknownTool\)$/],
    ['sdk', /^toolerr: heal\(\) options must be an object, got string$/],
  ]) {
    assert.throws(() => heal(server, options), (err) => err instanceof TypeError && message.test(err.message), JSON.stringify(options));
  }
  assert.deepEqual(Object.getOwnPropertyNames(server).filter((name) => ['validateToolInput', 'executeToolHandler', 'setToolRequestHandlers'].includes(name)), []);
  assert.equal(Object.getOwnPropertySymbols(server).length, 0);

  heal(server, { unknownTool: 'sdk' });
  server.registerTool('billing.get_invoice', { inputSchema: { id: z4.string() } }, getInvoice);
  const client = await connect(t, server);
  const sdkAnswer = { content: [{ type: 'text', text: 'MCP error -32602: Tool billing.void_invoice not found' }], isError: true };
  assert.deepEqual(await call(client, 'billing.void_invoice', {}), sdkAnswer);
  heal(server); // the default again
  assert.deepEqual(await unknownAnswer(client, 'billing.void_invoice'), ['billing.get_invoice']);
  heal(server, { unknownTool: 'sdk' });
  assert.deepEqual(await call(client, 'billing.void_invoice', {}), sdkAnswer);
  heal(server, { unknownTool: 'envelope' });
  assert.deepEqual(await unknownAnswer(client, 'billing.void_invoice'), ['billing.get_invoice']);
});

test('what the server sends for successes and tools/list is byte for byte what it sends without heal()', async (t) => {
  const build = (server) => {
    server.registerTool('billing.get_invoice', { description: 'One invoice', inputSchema: { id: z4.string().regex(INVOICE_ID) } }, getInvoice);
    server.registerTool('billing.summary', {
      inputSchema: { id: z3.string() }, outputSchema: { total: z3.number(), currency: z3.string() }, annotations: { readOnlyHint: true },
    }, async ({ id }) => ({ content: [{ type: 'text', text: id }], structuredContent: { total: 120.5, currency: 'EUR' }, _meta: { source: 'ledger' } }));
    server.registerTool('billing.own_error', {}, async () => ({ content: [{ type: 'text', text: 'handled here' }], isError: true }));
    server.registerTool('billing.later', {}, async () => textResult({})).disable();
    return server;
  };
  const sessions = [];
  for (const healed of [true, false]) {
    const server = build(new McpServer({ name: 'billing', version: '1.0.0' }));
    if (healed) heal(server);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sent = [];
    await server.connect(serverSide);
    const send = serverSide.send.bind(serverSide);
    serverSide.send = (message, options) => {
      sent.push(JSON.stringify(message));
      return send(message, options);
    };
    const client = new Client({ name: 'heal-test', version: '0.0.0' });
    await client.connect(clientSide);
    t.after(() => client.close());
    await client.listTools();
    await client.callTool({ name: 'billing.get_invoice', arguments: { id: 'inv_001' } });
    await client.callTool({ name: 'billing.summary', arguments: { id: 'inv_001' } });
    await client.callTool({ name: 'billing.own_error', arguments: {} });
    server._registeredTools['billing.later'].enable(); // a list_changed notification, then the list again
    await client.listTools();
    await client.callTool({ name: 'billing.later', arguments: {} });
    const successes = sent.length;
    await client.callTool({ name: 'billing.get_invoice', arguments: { id: 'INV-1' } }); // a failure: heal's to change
    await client.callTool({ name: 'billing.void_invoice', arguments: {} });
    sessions.push({ sent, successes });
  }
  const [healed, plain] = sessions;
  assert.equal(healed.successes, plain.successes);
  assert.ok(healed.successes >= 7, `${healed.successes} messages`);
  assert.deepEqual(healed.sent.slice(0, healed.successes), plain.sent.slice(0, plain.successes));
  // The two failures are what heal changes: the recording sees them.
  assert.equal(healed.sent.length, healed.successes + 2);
  for (let i = healed.successes; i < healed.sent.length; i++) assert.notEqual(healed.sent[i], plain.sent[i]);
  assert.match(healed.sent.at(-1), /UNKNOWN_ACTION/);
  assert.match(plain.sent.at(-1), /MCP error -32602: Tool billing\.void_invoice not found/);
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

test('heal() twice hooks nothing more, and Toolerr#heal renders through that module, warmed once', async (t) => {
  const toolerr = await load();
  t.after(() => toolerr.close());
  // Every export the server's module is asked for, with the action or tool it names.
  const calls = [];
  const call0 = toolerr.call.bind(toolerr);
  toolerr.call = (exportName, request) => {
    calls.push(`${exportName} ${request?.action ?? request?.tool ?? ''}`);
    return call0(exportName, request);
  };
  const server = new McpServer({ name: 'billing', version: '1.0.0' });
  assert.equal(heal(server), server);
  const validate = server.validateToolInput;
  assert.equal(toolerr.heal(server), server); // the last heal's module renders
  assert.equal(server.validateToolInput, validate);
  server.registerTool('billing.get_invoice', { inputSchema: { id: z4.string().regex(INVOICE_ID) } }, getInvoice);
  server.registerTool('billing.export_invoices', {}, async () => {
    throw new Error('exporter backend unavailable');
  });
  const client = await connect(t, server);
  // heal() warms the module in the background: one call of each kind a failure makes.
  const warmUp = ['format_validation toolerr.warm_up', 'internal_error toolerr.warm_up', 'unknown_tool toolerr.warm_up'];
  for (const started = Date.now(); calls.length < warmUp.length && Date.now() - started < 10000;) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.deepEqual(calls, warmUp);
  assert.deepEqual(await call(client, 'billing.get_invoice', { id: 'INV-1' }), await expectedValidation('billing.get_invoice', z4.object({ id: z4.string().regex(INVOICE_ID) }), { id: 'INV-1' }));
  assert.deepEqual(await call(client, 'billing.export_invoices', {}), await internalError('exporter backend unavailable', { tool: 'billing.export_invoices' }));
  await unknownAnswer(client, 'billing.void_invoice');
  toolerr.heal(new McpServer({ name: 'other', version: '1.0.0' })); // the same module is not warmed twice
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(calls, [...warmUp, 'format_validation billing.get_invoice', 'internal_error billing.export_invoices', 'unknown_tool billing.void_invoice']);
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
  const supported = /an McpServer of @modelcontextprotocol\/sdk >=1\.24\.0 <2 .* or of @modelcontextprotocol\/server >=2\.0\.0 <3/;
  assert.equal(SUPPORTED_SDK, '>=1.24.0 <2');
  assert.equal(SUPPORTED_SERVER, '>=2.0.0 <3');
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
    && err.message.endsWith('got an instance of McpServer without validateToolInput(3 arguments), executeToolHandler(3 arguments), '
      + 'setToolRequestHandlers(0 arguments), server._requestHandlers'));
  assert.deepEqual(Object.getOwnPropertyNames(older), ['_registeredTools']);
  assert.equal(Object.getOwnPropertySymbols(older).length, 0);
});
