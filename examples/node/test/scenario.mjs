// What the billing tests share (not a test itself): the demo's files under
// examples/ and the scenario's calls by name.
import { readFileSync } from 'node:fs';

/** readJSON reads examples/<name>. */
export const readJSON = (name) => JSON.parse(readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8'));

// The scenario: sessions of calls, each with its arguments, its expectation
// (written by hand) and its exact answer (rewritten from the Go server by
// `go test ./examples/go -run TestBilling_Scenario -update`), which every
// server must answer alike.
export const scenario = readJSON('scenario.json');
export const defs = readJSON('schemas.json');
export const lockfile = readJSON('billing.lock.json');

/** callNamed finds a call of the scenario by its name. */
export function callNamed(name) {
  for (const session of scenario.sessions) {
    const found = session.calls.find((c) => c.name === name);
    if (found) return found;
  }
  throw new Error(`examples/scenario.json has no call named ${JSON.stringify(name)}`);
}
