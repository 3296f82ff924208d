// The shared Toolerr behind the module-level functions, loaded on first use.
import { load } from './toolerr.js';

let shared = null;

/** defaultToolerr returns the shared Toolerr, loading the bundled module once. */
export function defaultToolerr() {
  shared ??= load().catch((err) => {
    shared = null; // let a later call try again
    throw err;
  });
  return shared;
}
