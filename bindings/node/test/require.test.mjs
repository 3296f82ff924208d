// require('toolerr'): the package's "require" condition is src/index.js
// itself, which Node (20.19 and later, the package's engines) loads with
// require(): one module, one loaded toolerr.wasm, one set of classes for
// import and require alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import * as esm from '../src/index.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const node = (args, options = {}) => spawnSync(process.execPath, args, { cwd: packageDir, encoding: 'utf8', timeout: 60000, ...options });

// A CommonJS script, run from the package directory (where 'toolerr' is this package).
const SCRIPT = `
const toolerr = require('toolerr');
(async () => {
  const result = await toolerr.required('id');
  let refused = null;
  try { await toolerr.toolError('X', {}); } catch (err) { refused = err instanceof toolerr.ToolerrError && err.code; }
  console.log(JSON.stringify({
    names: Object.keys(toolerr).filter((k) => k !== '__esModule').sort(),
    first: toolerr.resultText(result).split('\\n')[0],
    version: (await toolerr.describe()).version,
    refused,
    healed: toolerr.heal.length,
  }));
})();
`;
const WANT = {
  names: Object.keys(esm).sort(),
  first: '<tool_error code="MISSING_REQUIRED_FIELD">',
  version: JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version,
  refused: 'INVALID_REQUEST',
  healed: 1,
};

test('require("toolerr") is the ES module itself', () => {
  assert.ok(process.features.require_module, `Node ${process.version} cannot require() an ES module (the package needs 20.19 or later)`);
  const run = node(['-e', `${SCRIPT}; import('toolerr').then((m) => { if (require('toolerr') !== m) process.exitCode = 3; });`]);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, '');
  assert.deepEqual(JSON.parse(run.stdout), WANT);
});

test('the package asks for a Node that can require() an ES module', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.engines.node, '>=20.19');
  assert.deepEqual(pkg.exports['.'].require, pkg.exports['.'].import);
});

test('the types type-check a CommonJS TypeScript module', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = node([tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
    '--skipLibCheck', 'false', fileURLToPath(new URL('./types/check.cts', import.meta.url))]);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
