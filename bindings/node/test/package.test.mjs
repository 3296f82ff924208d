// The package as npm sees it: its version is the repository's VERSION and
// the module's own (describe), it is Apache-2.0 like the repository, and
// `npm pack` ships what `import` and `require` load, with the module its
// prepare script copies from plugin/, and nothing of the tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/**
 * freshTree is DIR/bindings/node, this package without node_modules and wasm/ (as a clone has it),
 * beside DIR/plugin with the module and the given sha256 record; it returns DIR.
 */
function freshTree(t, record) {
  const dir = mkdtempSync(join(tmpdir(), 'toolerr-pack-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const skipped = ['node_modules', 'wasm'].map((name) => join(packageDir, name));
  cpSync(packageDir, join(dir, 'bindings', 'node'), { recursive: true, filter: (source) => !skipped.includes(source) });
  mkdirSync(join(dir, 'plugin'));
  cpSync(new URL('plugin/toolerr.wasm', root), join(dir, 'plugin', 'toolerr.wasm'));
  writeFileSync(join(dir, 'plugin', 'toolerr.wasm.sha256'), record);
  return dir;
}

const pack = (dir) => spawnSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: join(dir, 'bindings', 'node'), encoding: 'utf8', timeout: 60000 });

test('npm pack of a fresh tree copies plugin/toolerr.wasm in and ships the code, types, wasm, README and LICENSE, and no tests', (t) => {
  const record = readFileSync(new URL('plugin/toolerr.wasm.sha256', root), 'utf8');
  const dir = freshTree(t, record);
  const run = pack(dir);
  assert.equal(run.status, 0, run.stderr);
  const [packed] = JSON.parse(run.stdout);
  assert.equal(packed.version, pkg.version);
  const files = packed.files.map((f) => f.path).sort();
  for (const file of ['LICENSE', 'README.md', 'package.json', 'src/index.js', 'src/index.d.ts', 'src/abi.js', 'src/abi.d.ts',
    'wasm/toolerr.wasm', 'wasm/toolerr.wasm.sha256', 'bin/batch.mjs']) {
    assert.ok(files.includes(file), `${file} is not packed: ${files.join(' ')}`);
  }
  assert.deepEqual(files.filter((f) => /^(test|scripts|bench|node_modules)\//.test(f)), []);
  // The tarball holds the module's bytes and record.
  const tarball = join(dir, packed.filename);
  const member = (name) => spawnSync('tar', ['-xzOf', tarball, `package/${name}`], { maxBuffer: 1 << 24 });
  assert.ok(member('wasm/toolerr.wasm').stdout.equals(readFileSync(new URL('plugin/toolerr.wasm', root))));
  assert.equal(member('wasm/toolerr.wasm.sha256').stdout.toString('utf8'), record);
});

test('npm pack refuses a plugin/toolerr.wasm whose sha256 is not its record\'s', (t) => {
  const dir = freshTree(t, `${'0'.repeat(64)}  toolerr.wasm\n`);
  const run = pack(dir);
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /copy-wasm: \S+\/plugin\/toolerr\.wasm has sha256 [0-9a-f]{64}, but toolerr\.wasm\.sha256 beside it records 0{64}\n/);
  assert.deepEqual(readdirSync(dir).sort(), ['bindings', 'plugin']);
  assert.ok(!existsSync(join(dir, 'bindings', 'node', 'wasm')));
});
