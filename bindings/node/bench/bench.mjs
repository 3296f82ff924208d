// bench.mjs measures the Node binding on the requests every engine is
// measured on (tests/bench/requests.json), as a server uses it: one loaded
// plugin, calls made one after another on the event loop, each awaited.
//
//   node bindings/node/bench/bench.mjs        (from the repository root)
//
// stdout gets one JSON line per measurement and nothing else; tests/bench
// (`make bench`) reads them:
//   {"engine":"node","op":"tool_error","ns_per_call":12345.6,"calls_per_sec":81000}
//   {"engine":"node","op":"cold_start","ms":123.4}
// Progress and diagnostics go to stderr.
//
// Per op: a warm-up of about WARMUP_SECONDS, which also calibrates the call
// count; then about TOOLERR_BENCH_SECONDS (default 1.5) of calls in BATCHES
// timed batches; ns_per_call is the median batch's time per call (the
// machine is shared: a median batch is steadier than the overall mean,
// which goes to stderr too). Requests go through the raw Toolerr.call as
// one compact JSON text per op, the same text for every engine.
// Each op runs on the default raw engine ("node") and on the extism engine ("node-extism").
// tool_error_api is the idiomatic toolError(code, {...}) on the default plugin.
// cold_start is load() (read the bundled module, sha256 check, start the
// plugin, describe and ABI check) to the first tool_error result, the
// median of TOOLERR_BENCH_COLD (default 5) fresh loads in this process.
import { readFile } from 'node:fs/promises';

import { defaultToolerr, load, toolError } from '../src/index.js';

const OPS = ['tool_error', 'format_validation', 'parse', 'validate'];
const SECONDS = positive(process.env.TOOLERR_BENCH_SECONDS, 1.5);
const WARMUP_SECONDS = Math.min(0.5, SECONDS / 3);
const BATCHES = 5;
const COLD_LOADS = Math.max(1, Math.round(positive(process.env.TOOLERR_BENCH_COLD, 5)));

// stdout carries the results only: anything else that writes with
// console.log or console.info goes to stderr.
const out = (line) => process.stdout.write(JSON.stringify(line) + '\n');
console.log = console.info = console.debug = (...parts) => console.error(...parts);

function positive(text, fallback) {
  const n = Number(text);
  return text !== undefined && Number.isFinite(n) && n > 0 ? n : fallback;
}

const now = () => process.hrtime.bigint();
const nsSince = (t0) => Number(now() - t0);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// A TRAP is how the binding reports a failed plugin (it then starts a fresh
// one for the next call). @extism/extism 1.0.3 keeps every call's input and
// output blocks until the plugin is reset, and the binding never resets it,
// so a plugin traps after about 16 thousand calls. The bench counts such
// traps, reports them on stderr, and times again the chunk or batch a trap
// fell in (after one untimed call that absorbs the fresh plugin's start).
let traps = 0;
async function timed(n, once) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const start = now();
    try {
      for (let i = 0; i < n; i++) await once();
      return nsSince(start) / n;
    } catch (err) {
      if (err?.code !== 'TRAP') throw err;
      traps++;
      console.error(`bench node: the binding trapped (${err.message}); timing that batch again`);
      await once();
    }
  }
  throw new Error('bench: the binding keeps trapping');
}

// Batches stay well under the ~16k calls a plugin survives (see above).
const MAX_BATCH = 8000;

// measure times once(): a warm-up in chunks of about 50 ms until the time
// per call settles (V8 tiers the module up in the background) and at least
// WARMUP_SECONDS have passed, which also calibrates the call count; then
// BATCHES timed batches.
async function measure(name, once) {
  const t0 = now();
  let chunk = 20;
  let previous = await timed(chunk, once);
  for (;;) {
    chunk = Math.min(MAX_BATCH, Math.max(20, Math.round(50e6 / previous)));
    const current = await timed(chunk, once);
    const settled = Math.abs(current - previous) <= 0.1 * previous;
    previous = current;
    const elapsed = nsSince(t0) / 1e9;
    if ((settled && elapsed >= WARMUP_SECONDS) || elapsed >= 10 * WARMUP_SECONDS) break;
  }
  const perBatch = Math.min(MAX_BATCH, Math.max(1, Math.round((SECONDS * 1e9) / previous / BATCHES)));
  const batchNs = [];
  for (let b = 0; b < BATCHES; b++) batchNs.push(await timed(perBatch, once));
  const ns = median(batchNs);
  const mean = batchNs.reduce((a, b) => a + b, 0) / BATCHES;
  console.error(
    `bench node ${name}: warm-up ${(nsSince(t0) / 1e9 - (mean * perBatch * BATCHES) / 1e9).toFixed(2)} s, ` +
      `${BATCHES}x${perBatch} calls, median ${(ns / 1e3).toFixed(1)} µs, mean ${(mean / 1e3).toFixed(1)} µs, ` +
      `batches ${batchNs.map((x) => (x / 1e3).toFixed(1)).join(' ')} µs`,
  );
  return ns;
}

function perCall(op, ns, engine = 'node') {
  out({ engine, op, ns_per_call: Math.round(ns * 10) / 10, calls_per_sec: Math.round(1e9 / ns) });
}

const requestsPath = new URL('../../../tests/bench/requests.json', import.meta.url);
const requests = JSON.parse(await readFile(requestsPath, 'utf8'));
// One compact JSON text per op, keys in the file's order.
const texts = Object.fromEntries(OPS.map((op) => [op, JSON.stringify(requests[op])]));

// The plugin the module-level API uses (the default raw engine): raw calls and toolError share
// it. The same requests on the extism engine are the node-extism rows.
const toolerr = await defaultToolerr();
const extism = await load({ engine: 'extism' });
for (const [engine, plugin] of [['node', toolerr], ['node-extism', extism]]) {
  for (const op of OPS) {
    const text = texts[op];
    const response = JSON.parse(await plugin.call(op, text)); // a bad request throws here
    console.error(`bench ${engine} ${op}: request ${text.length} bytes, response keys ${Object.keys(response).join(',')}`);
    perCall(op, await measure(`${engine} ${op}`, () => plugin.call(op, text)), engine);
  }
}
await extism.close();

{
  const { code, ...options } = requests.tool_error;
  const result = await toolError(code, options);
  const raw = JSON.parse(await toolerr.call('tool_error', texts.tool_error));
  if (result.content[0].text !== raw.content[0].text) {
    throw new Error('bench: toolError() and the raw call render different envelopes');
  }
  perCall('tool_error_api', await measure('tool_error_api', () => toolError(code, options)));
}

{
  const ms = [];
  for (let i = 0; i < COLD_LOADS; i++) {
    const t0 = now();
    const fresh = await load();
    await fresh.call('tool_error', texts.tool_error);
    ms.push(nsSince(t0) / 1e6);
    await fresh.close();
  }
  console.error(`bench node cold_start: ${ms.map((x) => x.toFixed(1)).join(' ')} ms`);
  out({ engine: 'node', op: 'cold_start', ms: Math.round(median(ms) * 10) / 10 });
}

if (traps > 0) {
  console.error(`bench node: WARNING: the binding trapped ${traps} time(s) during the run (plugin never reset)`);
}
await toolerr.close();
