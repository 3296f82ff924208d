#!/usr/bin/env bash
# test.sh installs the Node binding and the Node billing server from their
# committed lockfiles and runs every Node test. Runnable from any directory;
# `make test` calls it.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CI="${CI:-true}"

# TOOLERR_PREPARED=1 (make test, after its prepare phase) skips the installs.
prepared="${TOOLERR_PREPARED:-}"
[ -n "$prepared" ] || bash "$repo/examples/node/prepare.sh"

# examples/node/test/cross-python.test.mjs drives the Python server: prepare
# the Python side too unless it is (make test prepares both beforehand).
venv="${TOOLERR_VENV:-$repo/.venv}"
if [ -z "$prepared" ] && ! "$venv/bin/python" -c 'import mcp, toolerr; toolerr.contract_diff' >/dev/null 2>&1; then
  echo "== preparing the Python server for the cross-language test"
  bash "$repo/bindings/python/venv.sh"
fi

# The package's module, wasm/ (git-ignored), is copied from plugin/ by its
# prepare script, which npm ci runs; it runs again here, for a
# plugin/toolerr.wasm rebuilt since (TOOLERR_PREPARED=1 skips npm ci).
echo "== bindings/node: wasm/ from plugin/toolerr.wasm (npm run prepare)"
node "$repo/bindings/node/scripts/copy-wasm.mjs"

# Both suites run even when the first fails; the script fails if either did.
status=0
echo "== bindings/node tests"
(cd "$repo/bindings/node" && node --test test/) || status=1

echo "== examples/node tests"
(cd "$repo/examples/node" && node --test test/) || status=1

exit "$status"
