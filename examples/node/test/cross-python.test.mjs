// A second, shorter session in another language: the Node SDK's Client
// drives the Python billing server (`.venv/bin/python
// examples/python/billing_server.py`, as examples/servers.json starts it)
// over stdio, and the Node binding's throwOnError reads every failure back
// as a ClientError.
//
// It needs the Python side prepared (`bash bindings/python/venv.sh`; `make
// test` and bindings/node/test.sh do it) and fails, naming what is missing,
// when it is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ClientError, parse, throwOnError } from 'toolerr';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const venv = process.env.TOOLERR_VENV ?? join(root, '.venv');
const python = join(venv, 'bin', 'python');
const serverPath = join(root, 'examples', 'python', 'billing_server.py');

const PAY_GBP = `<validation_error action="billing.pay_invoice">
<field name="currency">Is not one of the allowed values. You sent: 'GBP'. Valid options: 'EUR', 'USD'.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>


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
</contract_awareness>
</validation_error>`;
const INTERNAL = `<tool_error code="INTERNAL_ERROR" severity="error">
<message>[billing.export_invoices] exporter backend unavailable</message>
<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>
</tool_error>`;

// requirePython fails, saying how to prepare it, unless the venv runs the server's imports.
function requirePython() {
  const hint = 'run `bash bindings/python/venv.sh` from the repository root (`make test` does)';
  if (!existsSync(python)) assert.fail(`the Python billing server is not prepared: ${python} is missing; ${hint}`);
  const probe = spawnSync(python, ['-c', 'import toolerr, mcp; toolerr.contract_diff'], { encoding: 'utf8', timeout: 60000 });
  if (probe.status !== 0) {
    assert.fail(`the Python billing server is not prepared: ${python} cannot import toolerr (with contract_diff) and mcp; ${hint}\n${probe.stderr}`);
  }
}

// failure calls a tool and returns the ClientError throwOnError must throw.
async function failure(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  const err = await throwOnError(result).then(() => null, (e) => e);
  assert.ok(err instanceof ClientError, `${name}: throwOnError gave ${err}`);
  assert.equal(err.raw, result);
  return err;
}

test('the Node client against the Python server', async (t) => {
  requirePython();
  const transport = new StdioClientTransport({ command: python, args: [serverPath], cwd: root, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.setEncoding('utf8').on('data', (d) => (stderr += d));
  const client = new Client({ name: 'cross-python-test', version: '0.0.0' });
  await client.connect(transport).catch((err) => assert.fail(`starting ${python} ${serverPath}: ${err.message}\n${stderr}`));
  t.after(() => client.close());

  assert.equal(client.getServerVersion()?.name, 'billing-python');

  await t.test('a success passes through', async () => {
    const result = await client.callTool({ name: 'billing.get_invoice', arguments: { id: 'inv_001' } });
    assert.equal(await throwOnError(result), result);
    assert.deepEqual(result.content, [{ type: 'text', text: '{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}' }]);
    assert.equal(result.isError ?? false, false);
  });

  await t.test('NOT_FOUND, with recovery, next action and details', async () => {
    const err = await failure(client, 'billing.get_invoice', { id: 'inv_999' });
    assert.deepEqual(
      { kind: err.kind, code: err.code, severity: err.severity, message: err.message, recovery: err.recovery,
        availableActions: err.availableActions, details: err.details, retryAfter: err.retryAfter },
      { kind: 'tool_error', code: 'NOT_FOUND', severity: 'error', message: 'No invoice with that ID',
        recovery: 'List invoices first, then retry with a real ID', availableActions: ['billing.list_invoices'],
        details: { requestedId: 'inv_999' }, retryAfter: null },
    );
  });

  await t.test('the page_size warning rides the success path', async () => {
    const result = await client.callTool({ name: 'billing.list_invoices', arguments: { page_size: 2 } });
    assert.equal(await throwOnError(result), result);
    assert.equal(result.isError, false);
    assert.equal(result.content.length, 2);
    const warning = await parse(result.content[0].text);
    assert.deepEqual([warning.code, warning.severity, warning.isError, warning.recovery],
      ['DEPRECATED', 'warning', false, 'Call billing.list_invoices with limit instead']);
    assert.equal(result.content[1].text, '{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"},{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}]}');
  });

  await t.test('a validation error carries the contract awareness block', async () => {
    const err = await failure(client, 'billing.pay_invoice', { id: 'inv_003', amount: 9.99, currency: 'GBP' });
    assert.deepEqual(
      { kind: err.kind, code: err.code, severity: err.severity, recovery: err.recovery, availableActions: err.availableActions,
        details: err.details, action: err.action, fields: err.fields },
      { kind: 'validation_error', code: 'VALIDATION_ERROR', severity: 'error',
        recovery: 'Fix the fields above and call the tool again. Do not explain the error.', availableActions: [], details: {},
        action: 'billing.pay_invoice',
        fields: [{ name: 'currency', message: "Is not one of the allowed values. You sent: 'GBP'. Valid options: 'EUR', 'USD'." }] },
    );
    assert.deepEqual(err.contract, {
      tool: 'billing.pay_invoice', action: 'billing.pay_invoice', changeCount: 1, maxSeverity: 'BREAKING',
      changes: [{ severity: 'BREAKING', field: 'actions.billing.pay_invoice.input.currency',
        description: 'Required property "currency" was added to input', before: null, after: '{"enum":["EUR","USD"],"type":"string"}' }],
    });
    assert.deepEqual(err.raw.content.map((c) => c.text), [PAY_GBP]);
  });

  await t.test('FORBIDDEN, critical, delivered intact', async () => {
    const err = await failure(client, 'billing.void_invoice', { id: 'inv_001' });
    assert.deepEqual(
      [err.kind, err.code, err.severity, err.message, err.recovery, err.availableActions, err.details],
      ['tool_error', 'FORBIDDEN', 'critical', 'Voiding invoices requires the billing-admin role', null, [], {}],
    );
  });

  await t.test('INTERNAL_ERROR naming the tool, no traceback', async () => {
    const err = await failure(client, 'billing.export_invoices', {});
    assert.deepEqual(
      [err.kind, err.code, err.severity, err.message, err.availableActions, err.details],
      ['tool_error', 'INTERNAL_ERROR', 'error', '[billing.export_invoices] exporter backend unavailable', [], {}],
    );
    assert.match(err.recovery, /^This is an unexpected server-side failure/);
    assert.deepEqual(err.raw.content.map((c) => c.text), [INTERNAL]);
  });
});
