// The package as npm sees it: its version is the repository's VERSION and
// the module's own (describe), it is Apache-2.0 like the repository, and
// `npm pack` ships what `import` and `require` load and nothing of the tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe } from '../src/index.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const root = new URL('../../../', import.meta.url);

test('the version is VERSION and what the module describes', async () => {
  const version = readFileSync(new URL('VERSION', root), 'utf8').trim();
  assert.equal(pkg.version, version);
  assert.equal((await describe()).version, version);
  const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
  assert.equal(lock.version, version);
  assert.equal(lock.packages[''].version, version);
  // The README's install lines name the tarball npm pack writes.
  assert.match(readFileSync(new URL('../README.md', import.meta.url), 'utf8'), new RegExp(`npm install \\./toolerr-${version.replaceAll('.', '\\.')}\\.tgz\n`));
});

test('the license is Apache-2.0, its text the repository LICENSE', () => {
  assert.equal(pkg.license, 'Apache-2.0');
  const license = readFileSync(new URL('LICENSE', root), 'utf8');
  assert.match(license, /^\s*Apache License\n\s*Version 2\.0, January 2004\n/);
  assert.equal(readFileSync(new URL('../LICENSE', import.meta.url), 'utf8'), license);
});

test('every file the exports name exists, for import and for require', () => {
  const targets = [];
  const walk = (value) => (typeof value === 'string' ? targets.push(value) : Object.values(value).forEach(walk));
  walk(pkg.exports);
  assert.deepEqual(Object.keys(pkg.exports['.']), ['import', 'require']);
  for (const condition of ['import', 'require']) assert.deepEqual(Object.keys(pkg.exports['.'][condition]), ['types', 'default']);
  for (const target of [...targets, pkg.types]) assert.ok(existsSync(new URL(target, new URL('..', import.meta.url))), target);
});

test('npm pack ships the code, types, wasm, README and LICENSE, and no tests', () => {
  const run = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageDir, encoding: 'utf8', timeout: 60000 });
  assert.equal(run.status, 0, run.stderr);
  const [packed] = JSON.parse(run.stdout);
  assert.equal(packed.version, pkg.version);
  const files = packed.files.map((f) => f.path).sort();
  for (const file of ['LICENSE', 'README.md', 'package.json', 'src/index.js', 'src/index.d.ts', 'src/abi.js', 'src/abi.d.ts',
    'wasm/toolerr.wasm', 'wasm/toolerr.wasm.sha256', 'bin/batch.mjs']) {
    assert.ok(files.includes(file), `${file} is not packed: ${files.join(' ')}`);
  }
  assert.deepEqual(files.filter((f) => /^(test|scripts|bench|node_modules)\//.test(f)), []);
});
