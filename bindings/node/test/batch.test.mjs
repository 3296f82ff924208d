// bin/batch.mjs speaks the batch protocol: one line out per line in,
// every vector answered as the module answers it, nothing else on stdout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const batch = fileURLToPath(new URL('../bin/batch.mjs', import.meta.url));
const dir = new URL('../../../tests/vectors/v1/', import.meta.url);

function runBatch(input, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [batch], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

test('every vector through the batch command', async () => {
  const cases = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const vectors = JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
    for (const c of vectors.cases) cases.push({ file, op: vectors.export, ...c });
  }
  const input = cases.map((c) => JSON.stringify({ op: c.op, input: c.input }) + '\n').join('');
  const { code, stdout, stderr } = await runBatch(input);
  assert.equal(code, 0, stderr);
  const lines = stdout.split('\n');
  assert.equal(lines.pop(), '', 'stdout ends with a newline');
  assert.equal(lines.length, cases.length);
  const mismatches = [];
  cases.forEach((c, i) => {
    if ('error' in c) {
      // An error line is compared by its code and message.
      let got;
      try {
        got = JSON.parse(lines[i]);
      } catch {
        got = null;
      }
      const e = got?.error;
      if (Object.keys(got ?? {}).join() !== 'error' || e?.code !== c.error.code || e?.message !== c.error.message)
        mismatches.push(`${c.file}: ${c.description}\n  got  ${lines[i]}\n  want error ${c.error.code}: ${c.error.message}`);
    } else if (lines[i] !== c.output) {
      // An output is the exact response text.
      mismatches.push(`${c.file}: ${c.description}\n  got  ${lines[i]}\n  want ${c.output}`);
    }
  });
  assert.deepEqual(mismatches, []);
});

test('bad lines get an error line and the batch goes on', async () => {
  const input = [
    'not json',
    '[1,2]',
    '{"input":{}}',
    '{"op":"no_such_export","input":{}}',
    '{"op":"tool_error","input":"{\\"code\\":"}',
    '',
    '{"op":"tool_error","input":{"code":"X"}}',
    '{"op":"simple_error","input":{"message":"still here"}}',
    '{"op":"describe"}',
  ].join('\n') + '\n';
  // Even with WASI output asked for, the module's output never reaches stdout.
  const { code, stdout } = await runBatch(input, { EXTISM_ENABLE_WASI_OUTPUT: '1' });
  assert.equal(code, 0);
  const lines = stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
  assert.equal(lines.length, 8);
  assert.deepEqual(lines.slice(0, 6).map((l) => l.error?.code), Array(6).fill('INVALID_REQUEST'));
  assert.equal(lines[0].error.message, 'batch: line 1 is not a JSON object {"op","input"}');
  assert.equal(lines[1].error.message, 'batch: line 2 is not a JSON object {"op","input"}');
  assert.equal(lines[2].error.message, 'batch: line 3: "op" must be a non-empty string');
  assert.equal(lines[3].error.message, 'unknown export "no_such_export"');
  assert.equal(lines[4].error.message, 'tool_error: request is not valid JSON: unexpected end of input at offset 8');
  assert.equal(lines[5].error.message, 'tool_error: "message" is required');
  assert.deepEqual(lines[6], { content: [{ type: 'text', text: '<tool_error>\n<message>still here</message>\n</tool_error>' }], isError: true });
  assert.equal(lines[7].abiVersion.split('.')[0], '1');
});
