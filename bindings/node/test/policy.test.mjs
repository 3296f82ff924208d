// The host policy of abi/ABI.md ("Host policy"): this binding's defaults are the table's. The
// table is the one statement of the defaults every toolerr host applies (Go, Node, Python, Rust);
// each host's tests read it. Here: the values, and that load() applies them, the memory cap
// written into the module and the worker thread stopped at the deadline included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { ToolerrError, load } from '../src/index.js';
import {
  MEMORY_CHECK_BYTES,
  POLICY_CALL_TIMEOUT_MS,
  POLICY_MAX_REQUEST_BYTES,
  POLICY_MEMORY_MAX_PAGES,
  POLICY_RETIRE_MEMORY_PAGES,
} from '../src/abi.js';
import { INLINE_REQUEST_BYTES } from '../src/toolerr.js';

// policyTable returns the rows of the first table of ABI.md's "## Host policy" section, as cells.
function policyTable() {
  const text = readFileSync(new URL('../../../abi/ABI.md', import.meta.url), 'utf8');
  const at = text.indexOf('\n## Host policy\n');
  assert.notEqual(at, -1, 'ABI.md has a "## Host policy" section');
  const section = text.slice(at + '\n## Host policy\n'.length).split('\n## ')[0];
  const rows = [];
  let inTable = false;
  for (const line of section.split('\n')) {
    if (!line.startsWith('|')) {
      if (inTable) break; // the first table ends
      continue;
    }
    inTable = true;
    const cells = line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim()); // no cell holds a '|'
    assert.equal(cells.length, 4, `host policy row ${JSON.stringify(line)}`);
    if (cells[0] === 'rule' || cells[0].startsWith('---')) continue;
    rows.push(cells);
  }
  assert.ok(rows.length > 0, "ABI.md's host policy table has rows");
  return rows;
}

// policyDefaults reads the named rows: `name` to its default, a whole number.
function policyDefaults() {
  const out = {};
  for (const [rule, name, value] of policyTable()) {
    if (name === '') {
      assert.equal(value, '', `host policy row ${rule} has a default but no name`);
      continue;
    }
    const m = /^`([A-Za-z]+)`$/.exec(name);
    assert.ok(m, `host policy row ${rule}: name ${name} is not one \`identifier\``);
    assert.match(value, /^[0-9]+$/, `host policy row ${rule}: default ${value} is not a whole number`);
    out[m[1]] = Number(value);
  }
  return out;
}

// An adversarial parse of 4 MiB: some 150 MiB of the module's memory, and a few hundred ms.
const HEAVY = JSON.stringify({
  text: "<tool_error code='X'><message>m</message>" + "<detail key='v' k2='<detail key=' ".repeat(120_000),
});
const NEXT = '{"field":"id"}';

test('the defaults are the ABI table', async () => {
  const t = await load();
  try {
    const { limits } = await t.describe();
    assert.deepEqual(policyDefaults(), {
      memoryMaxPages: POLICY_MEMORY_MAX_PAGES,
      callTimeoutMs: POLICY_CALL_TIMEOUT_MS,
      maxRequestBytes: limits.maxRequestBytes, // the module's, which the binding checks requests against
      retireMemoryPages: POLICY_RETIRE_MEMORY_PAGES,
    });
    assert.equal(POLICY_MAX_REQUEST_BYTES, limits.maxRequestBytes);
    assert.equal(INLINE_REQUEST_BYTES, 16 << 10, 'the threshold ABI.md names for the worker thread');
  } finally {
    await t.close();
  }
});

test('a plugin is retired by what its memory grew to, not by the size of the request', async () => {
  const row = policyTable().find(([, name]) => name === '`retireMemoryPages`');
  assert.ok(row?.[3].includes(`is over ${MEMORY_CHECK_BYTES >> 10} KiB`), row?.[3]);
  const t = await load();
  try {
    await t.call('required_field', NEXT);
    assert.equal(t._livePlugins(), 1);
    await t.call('parse', JSON.stringify({ text: '&amp;'.repeat(800_000) }));
    assert.equal(t._livePlugins(), 2, 'a 4 MB parse that grew memory little keeps its (worker) plugin');
    await t.call('required_field', JSON.stringify({ field: 'f'.repeat(4_000_000) }));
    assert.equal(t._livePlugins(), 1, 'the plugin grown past retireMemoryPages is retired');
    assert.match(await t.call('required_field', NEXT), /MISSING_REQUIRED_FIELD/);
  } finally {
    await t.close();
  }
});

// heavyDiffRequest is the contract_diff vector every host sends forty times in a row: an 18 KB
// request refused at its work budget after allocating several megabytes inside the module.
function heavyDiffRequest() {
  const file = JSON.parse(readFileSync(new URL('../../../tests/vectors/v1/contract_diff.json', import.meta.url), 'utf8'));
  const wanted = 'error a long string among the shared subschemas: refused at the budget after megabytes of work (hosts send it forty times in a row)';
  const cases = file.cases.filter((c) => c.description === wanted);
  assert.equal(cases.length, 1, wanted);
  return cases[0];
}

for (const [engine, how] of [
  ['raw', 'the raw path reads its memory after every call'],
  ['extism', 'an Extism plugin is asked after a call of MEMORY_CHECK_MS or longer'],
]) {
  test(`${how}: small requests that grow it retire the plugin`, async () => {
    // Forty in a row, each leaving megabytes of garbage (collected only between calls), once grew
    // a plugin to a 2048-page cap, where a call that needed more trapped: memory was read only
    // after a call over MEMORY_CHECK_BYTES.
    const { input, error } = heavyDiffRequest();
    assert.ok(Buffer.byteLength(input) < MEMORY_CHECK_BYTES);
    const t = await load({ engine, memoryMaxPages: 2048, callTimeoutMs: 0 });
    try {
      for (let i = 0; i < 40; i++) {
        await assert.rejects(t.call('contract_diff', input), (e) => {
          assert.ok(e instanceof ToolerrError);
          assert.deepEqual({ code: e.code, message: e.message }, error, `call ${i + 1}`);
          return true;
        });
      }
    } finally {
      await t.close();
    }
  });
}

test('a request over the limit is refused before the module', async () => {
  const t = await load();
  try {
    const limit = (await t.describe()).limits.maxRequestBytes;
    const body = `{"text":"${'a'.repeat(limit - 10)}"}`;
    await assert.rejects(t.call('parse', body), {
      name: 'ToolerrError',
      code: 'REQUEST_TOO_LARGE',
      message: `parse: request is ${body.length} bytes, over the limit of ${limit}`,
    });
    assert.match(await t.call('required_field', NEXT), /MISSING_REQUIRED_FIELD/);
  } finally {
    await t.close();
  }
});

// In a worker thread (a large request under a time bound), and on the calling thread (no bound)
// on each engine.
for (const options of [{}, { callTimeoutMs: 0 }, { callTimeoutMs: 0, engine: 'extism' }]) {
  test(`the memory cap is applied: a call that needs more traps, and the next call answers (${JSON.stringify(options)})`, async () => {
    const t = await load(options);
    // Room to start (the pages a new instance holds) and 1 MiB more: not enough for the 4 MiB
    // request, let alone its parse.
    const start = JSON.parse(await t.call('describe', '{"memory":true}')).memoryPages;
    assert.ok(Number.isInteger(start) && start > 0, `memoryPages ${start}`);
    const small = await load({ ...options, memoryMaxPages: start + 16 });
    try {
      assert.notEqual(JSON.parse(await t.call('parse', HEAVY)).envelope, null, 'the default cap answers');
      await assert.rejects(small.call('parse', HEAVY), (err) => err instanceof ToolerrError && err.code === 'TRAP');
      assert.match(await small.call('required_field', NEXT), /MISSING_REQUIRED_FIELD/);
    } finally {
      await t.close();
      await small.close();
    }
  });
}

test('a large call is stopped at its deadline, in its worker thread', async () => {
  const t = await load({ callTimeoutMs: 50 });
  try {
    assert.ok(Buffer.byteLength(HEAVY) > INLINE_REQUEST_BYTES);
    const started = performance.now();
    await assert.rejects(t.call('parse', HEAVY), {
      name: 'ToolerrError',
      code: 'TIMEOUT',
      message: 'parse: the call ran out of time',
    });
    // The deadline runs from the call, after the worker started (about 0.3 s).
    assert.ok(performance.now() - started < 5000, 'TIMEOUT within seconds');
    assert.match(await t.call('required_field', NEXT), /MISSING_REQUIRED_FIELD/);
  } finally {
    await t.close();
  }
});

test('a small call that overruns its deadline is reported when it returns', async () => {
  // Under the inline limit: it runs on this thread, which nothing can interrupt.
  // A schema of 300 properties, new each round so that it is compiled each
  // time: milliseconds of work in wasm, however fast the machine.
  const schemaOf = (salt) => ({
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}_${salt}`, { type: 'string', minLength: 1 }])),
  });
  const requestOf = (salt) => JSON.stringify({ action: 'a', schema: schemaOf(salt), args: {} });
  assert.ok(Buffer.byteLength(requestOf(4)) <= INLINE_REQUEST_BYTES);
  const t = await load({ callTimeoutMs: 1 });
  try {
    let timeouts = 0;
    for (let round = 0; round < 5 && timeouts === 0; round++) {
      try {
        await t.call('validate', requestOf(round));
      } catch (err) {
        assert.equal(err.code, 'TIMEOUT', err.message);
        timeouts++;
      }
    }
    assert.equal(timeouts, 1, 'no compile of a 300-property schema overran 1 ms');
    // The next small call gets the same 1 ms: on a loaded machine it may run
    // out of time too, which is TIMEOUT again and never anything else.
    let next;
    for (let tries = 0; tries < 20 && next === undefined; tries++) {
      next = await t.call('required_field', NEXT).catch((err) => {
        assert.equal(err.code, 'TIMEOUT', err.message);
        return undefined;
      });
    }
    assert.match(next ?? '', /MISSING_REQUIRED_FIELD/, 'the binding stopped serving');
  } finally {
    await t.close();
  }
});

test('the worker thread prints nothing, keeps no process alive, and leaves the environment as it was', () => {
  // A large call starts the worker; its own load of node:wasi would print Node's WASI warning.
  const code = `import { load } from 'toolerr';
    const t = await load();
    const text = "<tool_error code='X'><message>m</message>" + "<detail key='v' k2='<detail key=' ".repeat(120000);
    const out = JSON.parse(await t.call('parse', { text }));
    console.log(out.envelope !== null, process.env.NODE_NO_WARNINGS === undefined);`;
  const env = { ...process.env };
  delete env.NODE_NO_WARNINGS;
  const packageDir = fileURLToPath(new URL('..', import.meta.url));
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: packageDir, env, encoding: 'utf8', timeout: 60000 });
  assert.equal(run.status, 0, run.stderr); // it exits without close(): the idle worker is unreferenced
  assert.equal(run.stdout, 'true true\n');
  assert.equal(run.stderr, '');
});

test('load refuses limits that are not limits', async () => {
  await assert.rejects(load({ memoryMaxPages: 0 }), /memoryMaxPages/);
  await assert.rejects(load({ memoryMaxPages: 1.5 }), /memoryMaxPages/);
  await assert.rejects(load({ callTimeoutMs: -1 }), /callTimeoutMs/);
  await assert.rejects(load({ callTimeoutMs: Number.NaN }), /callTimeoutMs/);
  await assert.rejects(load({ engine: 'wasmtime' }), /options.engine must be one of raw, extism, got "wasmtime"/);
  // Below the module's initial memory (63 pages) it cannot even start.
  await assert.rejects(load({ memoryMaxPages: 10 }), /memory cap of 10 pages/);
});
