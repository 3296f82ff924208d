// contractLock, contractDiff and the contract option of validate and
// formatValidation: every lockfile, diff and <contract_awareness> block is
// the module's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import * as toolerr from '../src/index.js';
import { ToolerrError, load } from '../src/index.js';

const readJSON = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
// The demo's older contract and its current tools, as a server advertises them.
const lockfile = readJSON('../../../examples/billing.lock.json');
const schemas = readJSON('../../../examples/schemas.json');
const tools = Object.entries(schemas).map(([name, { description, inputSchema }]) => ({ name, description, inputSchema }));

// The demo's contract change as the module reports it, shared with the Python
// and Rust tests: the two deltas and the block validate appends for pay_invoice.
const { deltas: [PAY_DELTA, LIST_DELTA], payAwareness: PAY_AWARENESS } = readJSON('../../../tests/contract/billing.json');

const PAY_GBP = `<validation_error action="billing.pay_invoice">
<field name="currency">Is not one of the allowed values. You sent: 'GBP'. Valid options: 'EUR', 'USD'.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>${PAY_AWARENESS}
</validation_error>`;

test('contractLock locks a Tool array; key and tool order do not matter', async () => {
  const lock = await toolerr.contractLock(tools);
  assert.equal(lock.lockfileVersion, 1);
  assert.match(lock.digest, /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(lock.tools.map((t) => t.name), Object.keys(schemas).sort());
  for (const entry of lock.tools) {
    assert.match(entry.digest, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(Object.keys(entry.contract), ['description', 'inputSchema', 'name']); // sorted by the module
  }
  // Reversed tools, keys written in another order: the same lockfile.
  const shuffled = [...tools].reverse().map(({ name, description, inputSchema }) => ({ inputSchema, description, name }));
  assert.deepEqual(await toolerr.contractLock(shuffled), lock);
});

test('contractLock takes a tools/list result (other Tool fields are not contract) and a lockfile', async () => {
  const lock = await toolerr.contractLock(tools);
  const listed = { tools: tools.map((t) => ({ ...t, _meta: { 'x/y': 1 } })), nextCursor: 'next' };
  assert.deepEqual(await toolerr.contractLock(listed), lock);
  // The committed lockfile relocks to itself (as `toolerr lock` wrote it).
  assert.deepEqual(await toolerr.contractLock(lockfile), lockfile);
});

test('contractDiff of the older contract against the current tools', async () => {
  const diff = await toolerr.contractDiff(lockfile, tools);
  assert.deepEqual(diff, { deltas: [PAY_DELTA, LIST_DELTA], maxSeverity: 'BREAKING', backwardsCompatible: false });
  // Either side may be a lockfile, an array or a tools/list result.
  assert.deepEqual(await toolerr.contractDiff(lockfile, await toolerr.contractLock({ tools })), diff);
  assert.deepEqual(await toolerr.contractDiff(tools, { tools }), { deltas: [], maxSeverity: null, backwardsCompatible: true });
  const removed = await toolerr.contractDiff(tools, tools.filter((t) => t.name !== 'billing.void_invoice'));
  assert.deepEqual(removed.deltas.map((d) => [d.severity, d.field, d.category]), [['BREAKING', 'actions.billing.void_invoice', 'surface']]);
  assert.equal(removed.backwardsCompatible, false);
});

test('bad tool sets are INVALID_REQUEST naming the field; a tampered lockfile is refused', async () => {
  const t = await load();
  try {
    const dup = [tools[0], tools[0]];
    await assert.rejects(t.contractLock(dup), (err) => err instanceof ToolerrError && err.code === 'INVALID_REQUEST' && err.message.startsWith('contract_lock: '));
    await assert.rejects(t.contractLock('nope'), { code: 'INVALID_REQUEST' });
    await assert.rejects(t.contractDiff(tools), (err) => err.code === 'INVALID_REQUEST' && err.message.includes('"after"'));
    const tampered = structuredClone(lockfile);
    tampered.tools[0].contract.description = 'changed';
    await assert.rejects(t.contractDiff(tampered, tools), (err) => err.code === 'INVALID_REQUEST' && err.message.startsWith('contract_diff: '));
    await assert.rejects(t.contractLock([{ name: 'x', inputSchema: { n: 1n } }]), { code: 'INVALID_REQUEST', message: 'contract_lock: "tools[0].inputSchema.n" is a BigInt, which JSON cannot carry' });
    assert.equal((await t.contractDiff(tools, tools)).deltas.length, 0); // still serving
  } finally {
    await t.close();
  }
});

test('validate with contract {tool, deltas} appends the changes of that tool only', async () => {
  const { deltas } = await toolerr.contractDiff(lockfile, tools);
  const schema = schemas['billing.pay_invoice'].inputSchema;
  const args = { id: 'inv_003', amount: 9.99, currency: 'GBP' };
  const check = await toolerr.validate('billing.pay_invoice', schema, args, { contract: { tool: 'billing.pay_invoice', deltas } });
  assert.equal(check.valid, false);
  assert.deepEqual(check.result, { content: [{ type: 'text', text: PAY_GBP }], isError: true });
  // A lockfile and the tools instead of deltas: the module diffs them, same bytes.
  const byLock = await toolerr.validate('billing.pay_invoice', schema, args, { contract: { tool: 'billing.pay_invoice', lockfile, tools } });
  assert.deepEqual(byLock, check);
  // Valid arguments stay valid; a tool without changes gets no block.
  assert.deepEqual(await toolerr.validate('billing.pay_invoice', schema, { ...args, currency: 'USD' }, { contract: { tool: 'billing.pay_invoice', deltas } }), { valid: true });
  const get = await toolerr.validate('billing.get_invoice', schemas['billing.get_invoice'].inputSchema, { id: 'x' }, { contract: { tool: 'billing.get_invoice', deltas } });
  assert.doesNotMatch(get.result.content[0].text, /contract_awareness/);
  // The client reads the block back.
  const envelope = await toolerr.parse(check.result);
  assert.deepEqual(envelope.contract, {
    tool: 'billing.pay_invoice', action: 'billing.pay_invoice', changeCount: 1, maxSeverity: 'BREAKING',
    changes: [{ severity: 'BREAKING', field: PAY_DELTA.field, description: PAY_DELTA.description, before: null, after: PAY_DELTA.after }],
  });
  const err = await toolerr.throwOnError(check.result).then(() => null, (e) => e);
  assert.equal(err.contract.changes[0].field, PAY_DELTA.field);
});

test('formatValidation takes the same contract option', async () => {
  const { deltas } = await toolerr.contractDiff(lockfile, tools);
  const issues = [{ code: 'too_big', type: 'number', maximum: 100, inclusive: true, path: ['limit'], message: 'Number must be less than or equal to 100' }];
  const result = await toolerr.formatValidation('billing.list_invoices', issues, { limit: 500 }, { contract: { tool: 'billing.list_invoices', deltas } });
  const text = result.content[0].text;
  assert.ok(text.startsWith(`<validation_error action="billing.list_invoices">
<field name="limit">Number must be less than or equal to 100 You sent: 500. Must be &lt;= 100.</field>`), text);
  assert.ok(text.includes(`    <change severity="RISKY" field="actions.billing.list_invoices.input.limit.maximum">
      <description>Maximum of &quot;limit&quot; tightened from 500 to 100</description>
      <before>500</before>
      <after>100</after>
    </change>`), text);
  const byLock = await toolerr.formatValidation('billing.list_invoices', issues, { limit: 500 }, { contract: { tool: 'billing.list_invoices', lockfile, tools } });
  assert.deepEqual(byLock, result);
  await assert.rejects(toolerr.formatValidation('a', issues, {}, { contract: { tool: 'a' } }), { code: 'INVALID_REQUEST' });
});
