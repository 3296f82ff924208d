// The shipped .d.ts compiles and matches how the API is used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

test('src/index.d.ts type-checks a typical use', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const check = fileURLToPath(new URL('./types/check.ts', import.meta.url));
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    '--target', 'es2022', '--skipLibCheck', 'false', check], { encoding: 'utf8', cwd: fileURLToPath(new URL('..', import.meta.url)) });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
