// require('toolerr'): the package's "require" condition. On a Node that can
// require() an ES module it is src/index.js itself; on an older one (played
// here with --no-experimental-require-module) it is cjs/, the CommonJS build
// of src/ that scripts/build-cjs.mjs writes, which must be up to date.
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

test('cjs/ is what scripts/build-cjs.mjs makes of src/', () => {
  const run = node(['scripts/build-cjs.mjs', '--check']);
  assert.equal(run.status, 0, run.stderr);
});

test('require("toolerr") is the ES module itself where Node can require() one', { skip: !process.features.require_module && 'this Node cannot require() an ES module' }, () => {
  const run = node(['-e', `${SCRIPT}; import('toolerr').then((m) => { if (require('toolerr') !== m) process.exitCode = 3; });`]);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, '');
  assert.deepEqual(JSON.parse(run.stdout), WANT);
});

const canRefuseRequireEsm = process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module');

test('require("toolerr") on a Node that cannot require() an ES module loads cjs/', { skip: !canRefuseRequireEsm && 'this Node has no --no-experimental-require-module' }, () => {
  const check = `${SCRIPT}; if (!require.cache[require.resolve('${packageDir}cjs/index.js')]) process.exitCode = 3;`;
  const run = node(['--no-experimental-require-module', '-e', check]);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, '');
  assert.deepEqual(JSON.parse(run.stdout), WANT);
});

test('the CommonJS types (cjs/index.d.ts) type-check a CommonJS TypeScript module', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = node([tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
    '--skipLibCheck', 'false', fileURLToPath(new URL('./types/check.cts', import.meta.url))]);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
