// bench/bench.mjs prints what tests/bench (`make bench`) reads: one JSON line
// per op on stdout and nothing else. A very short run checks the format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const bench = fileURLToPath(new URL('../bench/bench.mjs', import.meta.url));

test('bench.mjs prints one JSON line per op, and only those', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [bench], {
    env: { ...process.env, TOOLERR_BENCH_SECONDS: '0.02', TOOLERR_BENCH_COLD: '1' },
    maxBuffer: 1 << 20,
  });
  const lines = stdout.split('\n');
  assert.equal(lines.pop(), '', 'stdout ends with a newline');
  const rows = lines.map((line) => JSON.parse(line));
  const ops = ['tool_error', 'format_validation', 'parse', 'validate'];
  assert.deepEqual(
    rows.map((r) => `${r.engine} ${r.op}`),
    [...ops.map((op) => `node ${op}`), ...ops.map((op) => `node-extism ${op}`), 'node tool_error_api', 'node cold_start'],
  );
  for (const r of rows) {
    if (r.op === 'cold_start') {
      assert.deepEqual(Object.keys(r), ['engine', 'op', 'ms']);
      assert.ok(r.ms > 0);
    } else {
      assert.deepEqual(Object.keys(r), ['engine', 'op', 'ns_per_call', 'calls_per_sec']);
      assert.ok(r.ns_per_call > 0 && Number.isInteger(r.calls_per_sec) && r.calls_per_sec > 0);
    }
  }
});
