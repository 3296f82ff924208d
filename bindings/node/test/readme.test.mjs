// Every ```js snippet of README.md runs as written, writes nothing on
// stderr (no warning either: Node's WASI notice is the binding's to drop),
// prints exactly the ```text block that follows it (when there is one), and
// type-checks as written with `tsc --strict`, as a TypeScript project that
// copies it would compile it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(([, lang, body]) => ({ lang, body }));
const snippets = [];
blocks.forEach((block, i) => {
  if (block.lang !== 'js') return;
  const next = blocks[i + 1];
  snippets.push({ code: block.body, output: next?.lang === 'text' ? next.body : null });
});

test('the README has its snippets', () => {
  assert.ok(snippets.length >= 6, `${snippets.length} snippets`);
});

for (const [i, snippet] of snippets.entries()) {
  const title = snippet.code.split('\n').find((line) => line.startsWith('import')) ?? `snippet ${i}`;
  test(`README snippet ${i + 1}: ${title}`, () => {
    // Run from the package directory, where `import ... from 'toolerr'` resolves to this package.
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', snippet.code], {
      cwd: packageDir, encoding: 'utf8', timeout: 60000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '');
    if (snippet.output !== null) assert.equal(run.stdout, snippet.output);
  });
}

test('every README snippet type-checks as written under tsc --strict', () => {
  // A project outside the package: toolerr, the MCP SDK, zod and @types/node
  // in its node_modules (links to this package and its dev dependencies), and
  // each snippet a TypeScript module of its own.
  const project = mkdtempSync(join(tmpdir(), 'toolerr-readme-tsc-'));
  try {
    writeFileSync(join(project, 'package.json'), '{"type": "module"}\n');
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(packageDir, join(project, 'node_modules', 'toolerr'), 'dir');
    for (const name of ['@modelcontextprotocol', '@types', 'zod']) {
      symlinkSync(join(packageDir, 'node_modules', name), join(project, 'node_modules', name), 'dir');
    }
    const files = snippets.map((snippet, i) => {
      const file = join(project, `snippet-${i + 1}.ts`);
      writeFileSync(file, snippet.code);
      return file;
    });
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const run = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext',
      '--target', 'es2022', '--skipLibCheck', ...files], { cwd: project, encoding: 'utf8', timeout: 120000 });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
