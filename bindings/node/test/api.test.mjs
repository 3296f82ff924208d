// The idiomatic API: every result is the module's, wrapped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import * as toolerr from '../src/index.js';
import { ClientError, ToolErrorBuilder, ToolerrError, error, load, toolError, wrap } from '../src/index.js';

const text = (result) => result.content.map((c) => c.text).join('\n----\n');

// The billing demo's NOT_FOUND, as every example server answers it.
const scenario = JSON.parse(readFileSync(new URL('../../../examples/scenario.json', import.meta.url), 'utf8'));
const NOT_FOUND = scenario.sessions[0].calls.find((c) => c.name === 'get an unknown invoice is NOT_FOUND').answer.content[0];

test('toolError renders a CallToolResult', async () => {
  const result = await toolError('NOT_FOUND', {
    message: 'No invoice with that ID',
    suggestion: 'List invoices first, then retry with a real ID',
    availableActions: ['billing.list_invoices'],
    details: { requestedId: 'inv_999' },
  });
  assert.deepEqual(result, { content: [{ type: 'text', text: NOT_FOUND }], isError: true });
});

test('the builder is the same envelope, without build()', async () => {
  const b = error('NOT_FOUND', 'No invoice with that ID')
    .suggest('List invoices first, then retry with a real ID')
    .actions('billing.list_invoices')
    .details({ requestedId: 'inv_999' });
  assert.ok(b instanceof ToolErrorBuilder);
  assert.ok(b instanceof Error);
  assert.equal(b.code, 'NOT_FOUND');
  assert.equal(text(await b), NOT_FOUND);
  const handler = async () => b; // returned as is from an async handler
  assert.equal(text(await handler()), NOT_FOUND);
});

test('warning severity rides the success path; retryAfter and options undefined are absent', async () => {
  const result = await error('DEPRECATED', 'page_size is deprecated; use limit')
    .severity('warning')
    .suggest(undefined ?? 'Call billing.list_invoices with limit instead')
    .retryAfter(1.5);
  assert.equal(result.isError, false);
  assert.equal(text(result), `<tool_error code="DEPRECATED" severity="warning">
<message>page_size is deprecated; use limit</message>
<recovery>Call billing.list_invoices with limit instead</recovery>
<retry_after>1.5 seconds</retry_after>
</tool_error>`);
  const plain = await toolError('X', { message: 'm', suggestion: undefined, details: undefined });
  assert.equal(text(plain), '<tool_error code="X" severity="error">\n<message>m</message>\n</tool_error>');
});

test('details keep their order, integer-like keys included, through a Map', async () => {
  const result = await error('X', 'm').details(new Map([['b', 1], ['10', true], ['2', 'two']])).details('a', 1e21);
  assert.equal(text(result), `<tool_error code="X" severity="error">
<message>m</message>
<details>
  <detail key="b">1</detail>
  <detail key="10">true</detail>
  <detail key="2">two</detail>
  <detail key="a">1e+21</detail>
</details>
</tool_error>`);
  const envelope = await toolerr.parse(result);
  assert.deepEqual(Object.keys(envelope.details).sort(), ['10', '2', 'a', 'b']);
});

test('simpleError, required, internalError, rateLimited and serverBusy', async () => {
  assert.equal(text(await toolerr.simpleError('Oops')), '<tool_error>\n<message>Oops</message>\n</tool_error>');
  assert.equal(text(await toolerr.simpleError('Oops', 'E1')), '<tool_error code="E1">\n<message>Oops</message>\n</tool_error>');
  assert.equal(text(await toolerr.required('id')), `<tool_error code="MISSING_REQUIRED_FIELD">
<message>Required field "id" is missing.</message>
<recovery>Provide the "id" parameter and retry.</recovery>
</tool_error>`);
  const internal = text(await toolerr.internalError('boom', { tool: 't', action: 'a' }));
  assert.ok(internal.startsWith('<tool_error code="INTERNAL_ERROR" severity="error">\n<message>[t/a] boom</message>'), internal);
  assert.equal(text(await toolerr.rateLimited({ max: 3, windowSeconds: 60, retryAfter: 60, key: 'k' })), `<tool_error code="RATE_LIMITED" severity="error">
<message>Rate limit exceeded. Maximum 3 requests per 60s window.</message>
<recovery>Wait 60 seconds before retrying. Current key: "k".</recovery>
<retry_after>60 seconds</retry_after>
</tool_error>`);
  assert.ok(text(await toolerr.serverBusy({ tool: 'search', active: 4, queued: 2 })).includes(
    '<message>Tool "search" is at capacity (4 active, 2 queued). Retry after a short delay.</message>'));
});

test('unknownTool renders UNKNOWN_ACTION: the name called, the tools closest to it first', async () => {
  const tools = ['billing.list_invoices', 'billing.pay_invoice', 'billing.get_invoice', 'billing.void_invoice'];
  const result = await toolerr.unknownTool('get_invoice', tools);
  assert.deepEqual(result, { content: [{ type: 'text', text: `<tool_error code="UNKNOWN_ACTION">
<message>The tool "get_invoice" does not exist.</message>
<available_actions>billing.get_invoice, billing.pay_invoice, billing.list_invoices, billing.void_invoice</available_actions>
<recovery>Choose a valid action from available_actions and call the tool again.</recovery>
</tool_error>` }], isError: true });
  assert.deepEqual(tools, ['billing.list_invoices', 'billing.pay_invoice', 'billing.get_invoice', 'billing.void_invoice'], 'the caller\'s array is left as it was');
  // A client reads it back: the code, and the actions in the order the module put them.
  const envelope = await toolerr.parse(result);
  assert.deepEqual([envelope.code, envelope.availableActions], ['UNKNOWN_ACTION', ['billing.get_invoice', 'billing.pay_invoice', 'billing.list_invoices', 'billing.void_invoice']]);
  const thrown = await toolerr.throwOnError(result).then(() => null, (e) => e);
  assert.ok(thrown instanceof ClientError);
  assert.deepEqual([thrown.code, thrown.message], ['UNKNOWN_ACTION', 'The tool "get_invoice" does not exist.']);
  // A server without tools lists none; the Toolerr method is the same export.
  const t = await load();
  try {
    assert.equal(text(await t.unknownTool('anything', [])), `<tool_error code="UNKNOWN_ACTION">
<message>The tool "anything" does not exist.</message>
<available_actions></available_actions>
<recovery>Choose a valid action from available_actions and call the tool again.</recovery>
</tool_error>`);
    assert.deepEqual(await t.unknownTool('get_invoice', tools), result);
  } finally {
    await t.close();
  }
  // What the module refuses is a ToolerrError naming the field, as for every renderer.
  for (const [tools2, message] of [
    ['a,b', 'unknown_tool: "tools" must be an array of strings, got string'],
    [['a', 5], 'unknown_tool: "tools[1]" must be a string, got number'],
    [undefined, 'unknown_tool: "tools" is undefined, which JSON cannot carry'],
  ]) {
    // @ts-ignore: plain JavaScript can send these
    const err = await toolerr.unknownTool('x', tools2).then(() => null, (e) => e);
    assert.ok(err instanceof ToolerrError, String(err));
    assert.deepEqual([err.code, err.message], ['INVALID_REQUEST', message]);
  }
  // Thrown from a wrapped handler, the rendered result reaches the client intact.
  assert.deepEqual(await wrap('t', async () => { throw toolerr.unknownTool('x', ['a']); })(), await toolerr.unknownTool('x', ['a']));
});

test('escape, describe', async () => {
  assert.equal(await toolerr.escape('a<b & "c"'), 'a&lt;b &amp; "c"');
  assert.equal(await toolerr.escape('a<b & "c"', 'attribute'), 'a&lt;b &amp; &quot;c&quot;');
  const info = await toolerr.describe();
  assert.equal(info.abiVersion.split('.')[0], '1');
  assert.ok(info.exports.includes('tool_error'));
});

test('formatValidation renders Zod issues with what was sent', async () => {
  const result = await toolerr.formatValidation(
    'billing.get_invoice',
    [{ code: 'invalid_string', validation: 'regex', path: ['id'], message: 'Invalid' }],
    { id: 'INV-1' },
  );
  assert.equal(result.isError, true);
  assert.equal(text(result), `<validation_error action="billing.get_invoice">
<field name="id">Invalid You sent: 'INV-1'. Value does not match the required pattern.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`);
});

test('parse reads a text or a result, and null without an envelope', async () => {
  const result = await toolError('NOT_FOUND', { message: 'gone', retryAfter: 30, details: { id: 'x', n: 1.5 } });
  const fromResult = await toolerr.parse({ ...result, structuredContent: {}, content: [{ type: 'image', data: '', mimeType: 'image/png' }, ...result.content] });
  const fromText = await toolerr.parse(result.content[0].text);
  assert.deepEqual(fromResult, fromText);
  assert.deepEqual(fromText, {
    kind: 'tool_error', code: 'NOT_FOUND', severity: 'error', isError: true, message: 'gone',
    recovery: null, availableActions: [], details: { id: 'x', n: '1.5' }, retryAfter: 30,
  });
  assert.equal(await toolerr.parse('no envelope here'), null);
});

test('throwOnError passes successes and warnings, throws ClientError for errors', async () => {
  const ok = { content: [{ type: 'text', text: '{}' }] };
  assert.equal(await toolerr.throwOnError(ok), ok);
  const warning = await error('DEPRECATED', 'd').severity('warning');
  assert.equal(await toolerr.throwOnError(warning), warning);

  const failed = await toolError('RATE_LIMITED', { message: 'slow down', suggestion: 'wait', availableActions: ['a'], details: { k: 'v' }, retryAfter: 60, severity: 'critical' });
  const err = await toolerr.throwOnError(failed).then(() => null, (e) => e);
  assert.ok(err instanceof ClientError);
  assert.deepEqual(
    { name: err.name, kind: err.kind, code: err.code, message: err.message, severity: err.severity, recovery: err.recovery,
      availableActions: err.availableActions, details: err.details, retryAfter: err.retryAfter },
    { name: 'ClientError', kind: 'tool_error', code: 'RATE_LIMITED', message: 'slow down', severity: 'critical', recovery: 'wait',
      availableActions: ['a'], details: { k: 'v' }, retryAfter: 60 },
  );
  assert.equal(err.raw, failed);

  const invalid = await toolerr.formatValidation('t', [
    { code: 'invalid_type', expected: 'string', received: 'undefined', path: ['id'], message: 'Required' },
    { code: 'custom', path: ['x', 0], message: 'bad' },
  ], {});
  const verr = await toolerr.throwOnError(invalid).then(() => null, (e) => e);
  assert.equal(verr.code, 'VALIDATION_ERROR');
  assert.equal(verr.kind, 'validation_error');
  assert.equal(verr.message, 'invalid arguments for t: id, x.0');
  assert.deepEqual(verr.fields.map((f) => f.name), ['id', 'x.0']);

  const bare = { content: [{ type: 'text', text: 'plain failure' }], isError: true };
  const berr = await toolerr.throwOnError(bare).then(() => null, (e) => e);
  assert.deepEqual([berr.code, berr.message, berr.kind], ['UNKNOWN', 'plain failure', null]);

  const two = { content: [{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }], isError: true };
  const terr = await toolerr.throwOnError(two).then(() => null, (e) => e);
  assert.deepEqual([terr.code, terr.message, terr.action, terr.contract], ['UNKNOWN', 'first', null, null]);

  const aware = { content: [{ type: 'text', text: "<validation_error action=\"pay\">\n<field name=\"currency\">Required You sent: (missing).</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n\n\n<contract_awareness>\n  <system_note>IMPORTANT: The behavioral contract for tool \"billing\" has changed since your last calibration.</system_note>\n  <action>pay</action>\n  <change_count>1</change_count>\n  <max_severity>BREAKING</max_severity>\n\n  <instructions>\n    Review the contract changes below and adjust your next invocation accordingly.\n    These changes may explain why your previous arguments were rejected.\n  </instructions>\n\n  <contract_changes>\n    <change severity=\"BREAKING\" field=\"actions.pay.currency\">\n      <description>currency is now required</description>\n      <after>required</after>\n    </change>\n  </contract_changes>\n</contract_awareness>\n</validation_error>" }], isError: true };
  const aerr = await toolerr.throwOnError(aware).then(() => null, (e) => e);
  assert.equal(aerr.message, 'invalid arguments for pay: currency');
  assert.equal(aerr.action, 'pay');
  assert.deepEqual(aerr.contract.changes.map((c) => [c.field, c.before, c.after]), [['actions.pay.currency', null, 'required']]);
});

test('wrap: thrown builders and rendered results pass intact, anything else is INTERNAL_ERROR', async () => {
  const forbidden = `<tool_error code="FORBIDDEN" severity="critical">
<message>Voiding invoices requires the billing-admin role</message>
</tool_error>`;
  const throwsBuilder = wrap('t', () => {
    throw error('FORBIDDEN', 'Voiding invoices requires the billing-admin role').severity('critical');
  });
  assert.equal(text(await throwsBuilder()), forbidden);
  const throwsToolError = wrap('t', async () => {
    throw toolError('FORBIDDEN', { message: 'Voiding invoices requires the billing-admin role', severity: 'critical' });
  });
  assert.equal(text(await throwsToolError()), forbidden);
  const throwsRequired = wrap('t', async () => {
    throw toolerr.required('id');
  });
  assert.ok(text(await throwsRequired()).startsWith('<tool_error code="MISSING_REQUIRED_FIELD">'));

  const internal = (message) => `<tool_error code="INTERNAL_ERROR" severity="error">
<message>${message}</message>
<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>
</tool_error>`;
  const throwsError = wrap('billing.export_invoices', async () => {
    throw new Error('exporter backend unavailable');
  });
  const result = await throwsError();
  assert.equal(text(result), internal('[billing.export_invoices] exporter backend unavailable'));
  assert.equal(result.isError, true);
  assert.doesNotMatch(text(result), /\bat .*:\d+:\d+|Error:/, 'no stack trace');
  assert.equal(text(await wrap('t', () => { throw 'a string'; })()), internal('[t] a string'));
  assert.equal(text(await wrap('t', () => { throw error('X', 42); })()),
    internal('[t] tool error X could not be rendered: tool_error: &quot;message&quot; must be a string, got number'.replaceAll('&quot;', '"')));
  const passes = { content: [{ type: 'text', text: 'fine' }] };
  assert.equal(await wrap('t', (x) => ({ ...passes, x }))(1).then((r) => r.x), 1);
});

test('bad input throws a ToolerrError naming the field, and the plugin keeps serving', async () => {
  const t = await load();
  try {
    const cases = [
      [() => t.toolError('X', { message: 5 }), 'tool_error: "message" must be a string, got number'],
      [() => t.toolError('X', {}), 'tool_error: "message" is required'],
      [() => t.toolError('X', { message: 'm', availableActions: 'a' }), null],
      [() => t.toolError('X', { message: 'm', details: { k: {} } }), 'tool_error: "details.k" must be a string, number or boolean, got object'],
      [() => t.toolError('X', { message: 'm', details: { k: 10n } }), 'tool_error: "details.k" is a BigInt, which JSON cannot carry'],
      [() => t.toolError('X', { message: 'm', details: { k: () => 1 } }), 'tool_error: "details.k" is a function, which JSON cannot carry'],
      [() => t.toolError('X', { message: 'm', details: { k: undefined } }), 'tool_error: "details.k" is undefined, which JSON cannot carry'],
      [() => t.toolError('X', { message: 'm', retryAfter: NaN }), 'tool_error: "retryAfter" is NaN, which JSON cannot carry'],
      [() => t.toolError('X', { message: 'm', suggestions: 's' }), /^tool_error: unknown field "suggestions"/],
      [() => t.error('X', 'm').severity('fatal'), 'tool_error: "severity" must be one of "error", "critical", "warning", got "fatal"'],
      [() => t.rateLimited({ max: '3', windowSeconds: 60, retryAfter: 60 }), null],
      [() => t.formatValidation('a', [{ code: 'custom', path: [Symbol('p')], message: 'm' }]), 'format_validation: "issues[0].path[0]" is a symbol, which JSON cannot carry'],
      [() => t.call('tool_error', '{"code":'), 'tool_error: request is not valid JSON: unexpected end of input at offset 8'],
      [() => t.call('nope', {}), 'unknown export "nope"'],
    ];
    for (const [call, message] of cases) {
      const err = await Promise.resolve().then(call).then(() => null, (e) => e);
      assert.ok(err instanceof ToolerrError, `${call}: got ${err}`);
      assert.equal(err.name, 'ToolerrError');
      assert.equal(err.code, 'INVALID_REQUEST');
      if (message instanceof RegExp) assert.match(err.message, message);
      else if (message !== null) assert.equal(err.message, message);
      else assert.match(err.message, /^[a-z_]+: "[A-Za-z]+" /);
      assert.equal(text(await t.simpleError('still here')), '<tool_error>\n<message>still here</message>\n</tool_error>');
    }
    const cyclic = { message: 'm' };
    cyclic.details = { self: cyclic };
    await assert.rejects(t.call('tool_error', cyclic), { code: 'INVALID_REQUEST', message: 'tool_error: "details.self" is a circular reference, which JSON cannot carry' });
    const big = 'x'.repeat(4 * 1024 * 1024);
    await assert.rejects(t.simpleError(big), { code: 'REQUEST_TOO_LARGE' });
    assert.equal(text(await t.simpleError('still here')), '<tool_error>\n<message>still here</message>\n</tool_error>');
  } finally {
    await t.close();
  }
});
