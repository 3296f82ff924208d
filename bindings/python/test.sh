#!/usr/bin/env bash
# The Python tests `make test` runs: the binding (vectors, batch, API,
# threads, README) and the Python example server, in the virtual
# environment venv.sh creates and fills from pinned requirements.
# Runnable from any directory; extra arguments go to pytest.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${TOOLERR_VENV:-$root/.venv}"

# TOOLERR_PREPARED=1 (make test, after its prepare phase) skips the installs.
prepared="${TOOLERR_PREPARED:-}"
[ -n "$prepared" ] || bash "$here/venv.sh"

# examples/python/tests/test_cross_node.py drives the Node server: prepare the
# Node side too unless it is (make test prepares both beforehand).
if [ -z "$prepared" ] && { [ ! -f "$root/examples/node/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
   [ ! -f "$root/examples/node/node_modules/toolerr/package.json" ] ||
   [ ! -f "$root/bindings/node/node_modules/@extism/extism/package.json" ]; }; then
  echo "== preparing the Node server for the cross-language test" >&2
  bash "$root/examples/node/prepare.sh" >&2
fi

cd "$root"
export PYTHONDONTWRITEBYTECODE=1
status=0
# -p no:cacheprovider: no .pytest_cache written into the work tree.
"$venv/bin/python" -m pytest -p no:cacheprovider --rootdir "$root" -q \
  bindings/python/tests examples/python/tests "$@" || status=$?
case "$status" in
  0) ;;
  5) echo "test.sh: pytest collected no tests" >&2; exit 1 ;;
  *) exit "$status" ;;
esac
