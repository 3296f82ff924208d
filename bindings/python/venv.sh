#!/usr/bin/env bash
# Create (if missing) and fill the Python virtual environment the binding's
# tests and the Python example server run in: the pinned requirements, then
# toolerr itself from ./bindings/python (a real, non-editable install, which
# proves the package builds; its build backend copies plugin/toolerr.wasm into
# it). Runnable from any directory.
#   TOOLERR_VENV  where the environment lives (default: <repo>/.venv)
#   PYTHON        the interpreter that creates it (default: python3; 3.10+)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${TOOLERR_VENV:-$root/.venv}"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
  echo "== creating $venv" >&2
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || {
  echo "venv.sh: $venv needs Python 3.10 or newer" >&2
  exit 1
}
export PIP_DISABLE_PIP_VERSION_CHECK=1
"$venv/bin/python" -m pip install --quiet -r "$here/requirements-dev.txt" >&2
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$here" >&2
