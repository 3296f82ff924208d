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
import { ClientError, contractDiff, parse, throwOnError } from 'toolerr';

import { callNamed, defs, lockfile } from './scenario.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const venv = process.env.TOOLERR_VENV ?? join(root, '.venv');
const python = join(venv, 'bin', 'python');
const serverPath = join(root, 'examples', 'python', 'billing_server.py');

// docs/CONTRACT.md's CONTENT(), enough for the scenario's texts.
const content = (s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll(']]>', ']]&gt;');

// requirePython fails, saying how to prepare it, unless the venv runs the server's imports.
function requirePython() {
  const hint = 'run `bash bindings/python/venv.sh` from the repository root (`make test` does)';
  if (!existsSync(python)) assert.fail(`the Python billing server is not prepared: ${python} is missing; ${hint}`);
  const probe = spawnSync(python, ['-c', 'import toolerr, mcp; toolerr.contract_diff'], { encoding: 'utf8', timeout: 60000 });
  if (probe.status !== 0) {
    assert.fail(`the Python billing server is not prepared: ${python} cannot import toolerr (with contract_diff) and mcp; ${hint}\n${probe.stderr}`);
  }
}

// failure makes the scenario's call and returns the ClientError throwOnError
// must throw, once the texts are the scenario's answer and the recovery and
// message read back are the text's.
async function failure(client, call) {
  const result = await client.callTool({ name: call.tool, arguments: call.arguments });
  const err = await throwOnError(result).then(() => null, (e) => e);
  assert.ok(err instanceof ClientError, `${call.tool}: throwOnError gave ${err}`);
  assert.equal(err.raw, result);
  assert.deepEqual(err.raw.content.map((c) => c.text), call.answer.content);
  assert.equal(err.recovery !== null, call.expect.recovery);
  if (err.recovery !== null) assert.ok(call.answer.content[0].includes(`\n<recovery>${content(err.recovery)}</recovery>\n`), err.recovery);
  if (call.expect.kind === 'tool_error') assert.ok(call.answer.content[0].includes(`\n<message>${content(err.message)}</message>\n`), err.message);
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
    const call = callNamed('get an open invoice');
    const result = await client.callTool({ name: call.tool, arguments: call.arguments });
    assert.equal(await throwOnError(result), result);
    assert.deepEqual(result.content, call.answer.content.map((text) => ({ type: 'text', text })));
    assert.equal(result.isError ?? false, false);
  });

  await t.test('NOT_FOUND, with recovery, next action and details', async () => {
    const call = callNamed('get an unknown invoice is NOT_FOUND');
    const { expect } = call;
    const err = await failure(client, call);
    assert.deepEqual(
      { kind: err.kind, code: err.code, severity: err.severity, message: err.message,
        availableActions: err.availableActions, details: err.details, retryAfter: err.retryAfter },
      { kind: expect.kind, code: expect.code, severity: expect.severity, message: expect.message,
        availableActions: expect.actions, details: expect.details, retryAfter: null },
    );
  });

  await t.test('the page_size warning rides the success path', async () => {
    const call = callNamed('page_size warns first and succeeds');
    const result = await client.callTool({ name: call.tool, arguments: call.arguments });
    assert.equal(await throwOnError(result), result);
    assert.equal(result.isError, false);
    assert.deepEqual(result.content.map((c) => c.text), call.answer.content);
    const warning = await parse(result.content[0].text);
    assert.deepEqual([warning.code, warning.severity, warning.isError], [call.expect.code, call.expect.severity, false]);
    assert.ok(result.content[0].text.includes(`\n<recovery>${content(warning.recovery)}</recovery>\n`), warning.recovery);
    assert.deepEqual(JSON.parse(result.content[1].text), call.expect.payload);
  });

  await t.test('a validation error carries the contract awareness block', async () => {
    const call = callNamed('pay in an unsupported currency');
    const err = await failure(client, call);
    assert.deepEqual(
      { kind: err.kind, code: err.code, severity: err.severity, availableActions: err.availableActions,
        details: err.details, action: err.action, fields: err.fields.map((f) => f.name) },
      { kind: call.expect.kind, code: call.expect.code, severity: call.expect.severity, availableActions: [],
        details: {}, action: call.tool, fields: call.expect.fields },
    );
    for (const f of err.fields) assert.ok(call.answer.content[0].includes(`">${content(f.message)}</field>\n`), f.message);
    // The change the awareness block names is what contract_diff of the lockfile says.
    const tools = Object.keys(defs).sort().map((name) => ({ name, ...defs[name] }));
    const { deltas } = await contractDiff(lockfile, tools);
    const changes = deltas.filter((d) => d.field.includes(`actions.${call.tool}.`))
      .map(({ severity, field, description, before, after }) => ({ severity, field, description, before, after }));
    assert.deepEqual(err.contract, {
      tool: call.tool, action: call.tool, changeCount: 1, maxSeverity: call.expect.contract, changes,
    });
  });

  await t.test('FORBIDDEN, critical, delivered intact', async () => {
    const call = callNamed('void is FORBIDDEN, critical');
    const err = await failure(client, call);
    assert.deepEqual(
      [err.kind, err.code, err.severity, err.message, err.recovery, err.availableActions, err.details],
      [call.expect.kind, call.expect.code, call.expect.severity, call.expect.message, null, [], {}],
    );
  });

  await t.test('INTERNAL_ERROR naming the tool, no traceback', async () => {
    const call = callNamed('export fails with INTERNAL_ERROR naming the tool');
    const err = await failure(client, call);
    assert.deepEqual(
      [err.kind, err.code, err.severity, err.message, err.availableActions, err.details],
      [call.expect.kind, call.expect.code, call.expect.severity, call.expect.message, [], {}],
    );
    assert.match(err.recovery, /^This is an unexpected server-side failure/);
  });
});
