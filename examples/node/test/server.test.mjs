// Drives server.mjs, a real subprocess, with the MCP SDK's own client over
// stdio: every behaviour of the billing demo, with the exact text of each
// content block (the same bytes the Go server returns).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ClientError, load } from 'toolerr';

const serverPath = fileURLToPath(new URL('../server.mjs', import.meta.url));
const schemasPath = fileURLToPath(new URL('../../schemas.json', import.meta.url));

const validationRecovery = '<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>';
const internalRecovery = '<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>';
const notFound = (id) => `<tool_error code="NOT_FOUND" severity="error">
<message>No invoice with that ID</message>
<recovery>List invoices first, then retry with a real ID</recovery>
<available_actions>
  <action>billing.list_invoices</action>
</available_actions>
<details>
  <detail key="requestedId">${id}</detail>
</details>
</tool_error>`;
// The contract awareness blocks (examples/go/main_test.go's payAwareness and
// listAwareness): the server diffs examples/billing.lock.json against its
// tools at start-up, so validation errors of the two changed tools say what
// changed.
const payAwareness = `


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.pay_invoice" has changed since your last calibration.</system_note>
  <action>billing.pay_invoice</action>
  <change_count>1</change_count>
  <max_severity>BREAKING</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="BREAKING" field="actions.billing.pay_invoice.input.currency">
      <description>Required property &quot;currency&quot; was added to input</description>
      <after>{&quot;enum&quot;:[&quot;EUR&quot;,&quot;USD&quot;],&quot;type&quot;:&quot;string&quot;}</after>
    </change>
  </contract_changes>
</contract_awareness>`;
const listAwareness = `


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.list_invoices" has changed since your last calibration.</system_note>
  <action>billing.list_invoices</action>
  <change_count>1</change_count>
  <max_severity>RISKY</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="RISKY" field="actions.billing.list_invoices.input.limit.maximum">
      <description>Maximum of &quot;limit&quot; tightened from 500 to 100</description>
      <before>500</before>
      <after>100</after>
    </change>
  </contract_changes>
</contract_awareness>`;
const awareness = { 'billing.pay_invoice': payAwareness, 'billing.list_invoices': listAwareness };
const invalid = (action, ...fields) => `<validation_error action="${action}">
${fields.join('\n')}
${validationRecovery}${awareness[action] ?? ''}
</validation_error>`;
const exportFailure = `<tool_error code="INTERNAL_ERROR" severity="error">
<message>[billing.export_invoices] exporter backend unavailable</message>
${internalRecovery}
</tool_error>`;
const VE = { isError: true, kind: 'validation_error', code: 'VALIDATION_ERROR', severity: 'error', recovery: true };

// scenario is the demo played in order on one server process: paid
// invoices and the pay_invoice counter carry from step to step.
const scenario = [
  { name: 'get existing invoice', tool: 'billing.get_invoice', args: '{"id":"inv_001"}',
    want: ['{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}'] },
  { name: 'get unknown invoice is NOT_FOUND', tool: 'billing.get_invoice', args: '{"id":"inv_999"}',
    want: [notFound('inv_999')], isError: true, kind: 'tool_error', code: 'NOT_FOUND', severity: 'error', recovery: true,
    check: (ce) => {
      assert.deepEqual(ce.availableActions, ['billing.list_invoices']);
      assert.deepEqual(ce.details, { requestedId: 'inv_999' });
    } },
  { name: 'list all invoices', tool: 'billing.list_invoices', args: '{}',
    want: ['{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"},{"id":"inv_002","status":"paid","amount":75,"currency":"USD"},{"id":"inv_003","status":"open","amount":9.99,"currency":"USD"}]}'] },
  { name: 'list with status and limit', tool: 'billing.list_invoices', args: '{"status":"open","limit":1}',
    want: ['{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}]}'] },
  { name: 'list paid invoices', tool: 'billing.list_invoices', args: '{"status":"paid"}',
    want: ['{"invoices":[{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}]}'] },
  { name: 'list with page_size warns first and succeeds', tool: 'billing.list_invoices', args: '{"page_size":2}',
    want: [`<tool_error code="DEPRECATED" severity="warning">
<message>page_size is deprecated; use limit</message>
<recovery>Call billing.list_invoices with limit instead</recovery>
</tool_error>`,
    '{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"},{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}]}'] },
  { name: 'list with limit below minimum', tool: 'billing.list_invoices', args: '{"limit":0}',
    want: [invalid('billing.list_invoices', '<field name="limit">Must be greater than or equal to 1. You sent: 0. Must be >= 1.</field>')], ...VE,
    check: (ce) => assert.deepEqual([ce.contract.maxSeverity, ce.contract.changes.map((c) => [c.field, c.before, c.after])],
      ['RISKY', [['actions.billing.list_invoices.input.limit.maximum', '500', '100']]]) },
  { name: 'list with fractional limit', tool: 'billing.list_invoices', args: '{"limit":1.5}',
    want: [invalid('billing.list_invoices', '<field name="limit">Expected integer, received number. You sent: 1.5. Expected type: integer.</field>')], ...VE },
  { name: 'list with unknown status and page_size over maximum', tool: 'billing.list_invoices', args: '{"page_size":101,"status":"draft"}',
    want: [invalid('billing.list_invoices',
      '<field name="page_size">Must be less than or equal to 100. You sent: 101. Must be &lt;= 100.</field>',
      `<field name="status">Is not one of the allowed values. You sent: 'draft'. Valid options: 'open', 'paid'.</field>`)], ...VE },
  { name: 'get with id not matching the pattern', tool: 'billing.get_invoice', args: '{"id":"INV-1"}',
    want: [invalid('billing.get_invoice', `<field name="id">Does not match the pattern ^inv_[0-9]{3}$. You sent: 'INV-1'. Value does not match the required pattern.</field>`)], ...VE,
    check: (ce) => {
      assert.deepEqual(ce.fields, [{ name: 'id', message: "Does not match the pattern ^inv_[0-9]{3}$. You sent: 'INV-1'. Value does not match the required pattern." }]);
      assert.equal(ce.contract, null); // an unchanged tool: no contract awareness
    } },
  { name: 'get with an unknown property', tool: 'billing.get_invoice', args: '{"id":"inv_001","verbose":true}',
    want: [invalid('billing.get_invoice', `<field name="(root)">Unrecognized field: 'verbose'. You sent: (missing). Remove or correct unrecognized fields: 'verbose'. Check for typos.</field>`)], ...VE },
  { name: 'get without the required id', tool: 'billing.get_invoice', args: '{}',
    want: [invalid('billing.get_invoice', '<field name="id">Required property is missing. You sent: (missing). Expected type: string.</field>')], ...VE },
  { name: 'get with a number id', tool: 'billing.get_invoice', args: '{"id":42}',
    want: [invalid('billing.get_invoice', '<field name="id">Expected string, received number. You sent: 42. Expected type: string.</field>')], ...VE },
  { name: 'pay a zero amount', tool: 'billing.pay_invoice', args: '{"id":"inv_003","amount":0,"currency":"USD"}',
    want: [invalid('billing.pay_invoice', '<field name="amount">Must be greater than 0. You sent: 0. Must be > 0.</field>')], ...VE },
  { name: 'pay in an unsupported currency', tool: 'billing.pay_invoice', args: '{"id":"inv_003","amount":9.99,"currency":"GBP"}',
    want: [invalid('billing.pay_invoice', `<field name="currency">Is not one of the allowed values. You sent: 'GBP'. Valid options: 'EUR', 'USD'.</field>`)], ...VE,
    check: (ce) => assert.deepEqual(ce.contract, {
      tool: 'billing.pay_invoice', action: 'billing.pay_invoice', changeCount: 1, maxSeverity: 'BREAKING',
      changes: [{ severity: 'BREAKING', field: 'actions.billing.pay_invoice.input.currency', description: 'Required property "currency" was added to input', before: null, after: '{"enum":["EUR","USD"],"type":"string"}' }],
    }) },
  { name: 'pay without amount and currency', tool: 'billing.pay_invoice', args: '{"id":"inv_003"}',
    want: [invalid('billing.pay_invoice',
      '<field name="amount">Required property is missing. You sent: (missing). Expected type: number.</field>',
      '<field name="currency">Required property is missing. You sent: (missing). Expected type: string.</field>')], ...VE,
    check: (ce) => assert.equal(ce.message, 'invalid arguments for billing.pay_invoice: amount, currency') },
  { name: 'pay an open invoice (validated pay call 1)', tool: 'billing.pay_invoice', args: '{"id":"inv_001","amount":120.5,"currency":"EUR"}',
    want: ['{"id":"inv_001","status":"paid","paid":120.5,"currency":"EUR"}'] },
  { name: 'the paid invoice reads back paid', tool: 'billing.get_invoice', args: '{"id":"inv_001"}',
    want: ['{"id":"inv_001","status":"paid","amount":120.5,"currency":"EUR"}'] },
  { name: 'pay a paid invoice is CONFLICT (validated pay call 2)', tool: 'billing.pay_invoice', args: '{"id":"inv_002","amount":75,"currency":"USD"}',
    want: [`<tool_error code="CONFLICT" severity="error">
<message>Invoice inv_002 is already paid</message>
<recovery>Call billing.get_invoice to check the status before paying</recovery>
<available_actions>
  <action>billing.get_invoice</action>
</available_actions>
</tool_error>`], isError: true, kind: 'tool_error', code: 'CONFLICT', severity: 'error', recovery: true },
  { name: 'pay the wrong amount is VALIDATION_ERROR (validated pay call 3)', tool: 'billing.pay_invoice', args: '{"id":"inv_003","amount":10,"currency":"USD"}',
    want: [`<tool_error code="VALIDATION_ERROR" severity="error">
<message>Amount or currency does not match invoice inv_003</message>
<details>
  <detail key="expectedAmount">9.99</detail>
  <detail key="expectedCurrency">USD</detail>
</details>
</tool_error>`], isError: true, kind: 'tool_error', code: 'VALIDATION_ERROR', severity: 'error', recovery: false,
    // XML carries no types: a number detail parses back as its text.
    check: (ce) => assert.deepEqual(ce.details, { expectedAmount: '9.99', expectedCurrency: 'USD' }) },
  { name: 'the fourth validated pay call is RATE_LIMITED', tool: 'billing.pay_invoice', args: '{"id":"inv_003","amount":9.99,"currency":"USD"}',
    want: [`<tool_error code="RATE_LIMITED" severity="error">
<message>Rate limit exceeded. Maximum 3 requests per 60s window.</message>
<recovery>Wait 60 seconds before retrying. Current key: "billing.pay_invoice".</recovery>
<retry_after>60 seconds</retry_after>
</tool_error>`], isError: true, kind: 'tool_error', code: 'RATE_LIMITED', severity: 'error', recovery: true,
    check: (ce) => assert.equal(ce.retryAfter, 60) },
  { name: 'validation still comes before the rate limit', tool: 'billing.pay_invoice', args: '{"id":"inv_003","amount":-1,"currency":"USD"}',
    want: [invalid('billing.pay_invoice', '<field name="amount">Must be greater than 0. You sent: -1. Must be > 0.</field>')], ...VE },
  { name: 'the rate-limited call paid nothing', tool: 'billing.get_invoice', args: '{"id":"inv_003"}',
    want: ['{"id":"inv_003","status":"open","amount":9.99,"currency":"USD"}'] },
  { name: 'void is FORBIDDEN, critical', tool: 'billing.void_invoice', args: '{"id":"inv_001"}',
    want: [`<tool_error code="FORBIDDEN" severity="critical">
<message>Voiding invoices requires the billing-admin role</message>
</tool_error>`], isError: true, kind: 'tool_error', code: 'FORBIDDEN', severity: 'critical', recovery: false },
  { name: 'void validates before its handler', tool: 'billing.void_invoice', args: '{"id":"nope"}',
    want: [invalid('billing.void_invoice', `<field name="id">Does not match the pattern ^inv_[0-9]{3}$. You sent: 'nope'. Value does not match the required pattern.</field>`)], ...VE },
  { name: 'export fails with INTERNAL_ERROR naming the tool', tool: 'billing.export_invoices', args: '{}',
    want: [exportFailure], isError: true, kind: 'tool_error', code: 'INTERNAL_ERROR', severity: 'error', recovery: true },
  { name: 'export takes no arguments', tool: 'billing.export_invoices', args: '{"format":"csv","since":"2026"}',
    want: [invalid('billing.export_invoices', `<field name="(root)">Unrecognized fields: 'format', 'since'. You sent: (missing). Remove or correct unrecognized fields: 'format', 'since'. Check for typos.</field>`)], ...VE },
];

// freshProcess runs on a second server process: the data starts over.
const freshProcess = [
  { name: 'pay an unknown invoice is NOT_FOUND', tool: 'billing.pay_invoice', args: '{"id":"inv_404","amount":1,"currency":"EUR"}',
    want: [notFound('inv_404')], isError: true, kind: 'tool_error', code: 'NOT_FOUND', severity: 'error', recovery: true },
  { name: 'the invoices are reset at start', tool: 'billing.get_invoice', args: '{"id":"inv_001"}',
    want: ['{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}'] },
  { name: 'absent arguments are an empty object', tool: 'billing.export_invoices', args: '',
    want: [exportFailure], isError: true, kind: 'tool_error', code: 'INTERNAL_ERROR', severity: 'error', recovery: true },
];

const toolerr = await load();
test.after(() => toolerr.close());

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

async function runStep(client, step) {
  const params = { name: step.tool };
  if (step.args !== '') params.arguments = JSON.parse(step.args);
  const result = await client.callTool(params);
  assert.deepEqual(result.content.map((c) => c.type), step.want.map(() => 'text'));
  assert.deepEqual(result.content.map((c) => c.text), step.want);
  assert.equal(result.isError ?? false, step.isError ?? false);
  const err = await toolerr.throwOnError(result).then(() => null, (e) => e);
  if (!step.isError) {
    assert.equal(err, null);
    return;
  }
  assert.ok(err instanceof ClientError, `throwOnError gave ${err}`);
  assert.deepEqual(
    { kind: err.kind, code: err.code, severity: err.severity, recovery: err.recovery !== null },
    { kind: step.kind, code: step.code, severity: step.severity, recovery: step.recovery },
  );
  step.check?.(err);
}

test('the billing scenario on one server process', async (t) => {
  const client = await startServer(t);

  await t.test('initialize', () => {
    assert.deepEqual(client.getServerVersion(), { name: 'billing-node', version: '0.1.0' });
    assert.ok(client.getServerCapabilities()?.tools);
  });

  await t.test('tools/list gives the five tools of examples/schemas.json', async () => {
    const defs = JSON.parse(readFileSync(schemasPath, 'utf8'));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), Object.keys(defs).sort());
    for (const tool of tools) {
      assert.equal(tool.description, defs[tool.name].description);
      // Same schema, same key order: the text every language advertises.
      assert.equal(JSON.stringify(tool.inputSchema), JSON.stringify(defs[tool.name].inputSchema));
    }
  });

  for (const step of scenario) {
    await t.test(step.name, () => runStep(client, step));
  }

  await t.test('an unknown tool is answered as the SDK does by default', async () => {
    const result = await client.callTool({ name: 'billing.refund_invoice', arguments: {} });
    assert.deepEqual(result, { content: [{ type: 'text', text: 'MCP error -32602: Tool billing.refund_invoice not found' }], isError: true });
  });
});

test('a fresh server process starts over', async (t) => {
  const client = await startServer(t);
  for (const step of freshProcess) {
    await t.test(step.name, () => runStep(client, step));
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
  assert.equal(responses.find((r) => r.id === 2).result.content[0].text, exportFailure);
  assert.equal(responses.find((r) => r.id === 3).result.content[0].text.split('\n')[0], '<tool_error code="FORBIDDEN" severity="critical">');
});

test('the server reads the canonical examples/schemas.json and examples/billing.lock.json', () => {
  const source = readFileSync(serverPath, 'utf8');
  assert.match(source, /new URL\('\.\.\/schemas\.json', import\.meta\.url\)/);
  assert.match(source, /new URL\('\.\.\/billing\.lock\.json', import\.meta\.url\)/);
});

test('the awareness blocks are what contract_diff of the lockfile gives', async () => {
  const defs = JSON.parse(readFileSync(schemasPath, 'utf8'));
  const lockfile = JSON.parse(readFileSync(new URL('../../billing.lock.json', import.meta.url), 'utf8'));
  const tools = Object.keys(defs).sort().map((name) => ({ name, ...defs[name] }));
  const { deltas } = await toolerr.contractDiff(lockfile, tools);
  const check = await toolerr.validate('billing.pay_invoice', defs['billing.pay_invoice'].inputSchema, {}, { contract: { tool: 'billing.pay_invoice', deltas } });
  assert.ok(check.result.content[0].text.endsWith(`${payAwareness}\n</validation_error>`));
});

test('examples/servers.json lists the Node server', () => {
  const { servers } = JSON.parse(readFileSync(new URL('../../servers.json', import.meta.url), 'utf8'));
  const node = servers.find((s) => s.name === 'node');
  assert.deepEqual(node, { name: 'node', prepare: 'bash examples/node/prepare.sh', start: 'node examples/node/server.mjs' });
});
