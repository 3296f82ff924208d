// Every ```js snippet of README.md runs as written and prints exactly the
// ```text block that follows it (when there is one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
    const run = spawnSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', snippet.code], {
      cwd: packageDir, encoding: 'utf8', timeout: 60000,
    });
    assert.equal(run.status, 0, run.stderr);
    if (snippet.output !== null) assert.equal(run.stdout, snippet.output);
  });
}
