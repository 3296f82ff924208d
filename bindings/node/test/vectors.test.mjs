// Every conformance vector of tests/vectors/v1 through the binding's raw
// call, on each engine (raw and extism): the response text must be byte for byte the case's output (a string
// holding the exact response), and an error must carry exactly the expected
// code and message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

import { load, ToolerrError } from '../src/index.js';

const dir = new URL('../../../tests/vectors/v1/', import.meta.url);
const files = readdirSync(dir).filter((name) => name.endsWith('.json')).sort();

// request is what a case sends: a string input is the raw request text.
export function request(input) {
  return typeof input === 'string' ? input : JSON.stringify(input);
}

test('the vector files are there', () => {
  assert.ok(files.length >= 10, `only ${files.length} vector files in ${dir.pathname}`);
});

for (const engine of ['raw', 'extism']) {
  const toolerr = await load({ engine });
  test.after(() => toolerr.close());

  for (const file of files) {
    const vectors = JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
    test(`vectors ${file} (${engine})`, async (t) => {
      assert.equal(vectors.export + '.json', file);
      for (const c of vectors.cases) {
        await t.test(c.description, async () => {
          let out;
          try {
            out = await toolerr.call(vectors.export, request(c.input));
          } catch (err) {
            if (!('error' in c)) throw err;
            assert.ok(err instanceof ToolerrError, `not a ToolerrError: ${err}`);
            assert.deepEqual({ code: err.code, message: err.message }, c.error);
            return;
          }
          assert.ok(!('error' in c), `want error ${JSON.stringify(c.error)}, got ${out}`);
          assert.equal(typeof c.output, 'string', 'output is the exact response text');
          assert.equal(out, c.output);
        });
      }
    });
  }
}
