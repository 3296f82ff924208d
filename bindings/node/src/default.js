// The shared Toolerr behind the module-level functions, loaded on first use
// (heal() asks for it as soon as it is installed, in the background).
import { ToolerrError } from './errors.js';
import { load } from './toolerr.js';

let shared = null;

/**
 * defaultToolerr returns the shared Toolerr, loading the bundled module once.
 * A load that fails rejects with a ToolerrError (code TRAP, `cause` what
 * failed) and is not kept: the next call loads again.
 */
export function defaultToolerr() {
  shared ??= load().catch((err) => {
    shared = null; // let a later call try again
    throw loadFailure(err);
  });
  return shared;
}

// loadFailure is the one typed error of a shared load that failed, whatever failed.
function loadFailure(err) {
  if (err instanceof ToolerrError) return err;
  const why = String(err?.message ?? err).replace(/^toolerr: /, '');
  return new ToolerrError('TRAP', `toolerr: the module could not be loaded: ${why}`, { cause: err });
}
