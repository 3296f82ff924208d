#!/usr/bin/env bash
# prepare.sh installs the Node billing server and the toolerr binding it
# links to, from their committed lockfiles; npm ci in bindings/node runs the
# binding's prepare script, which copies plugin/toolerr.wasm into its wasm/.
# npm ci in examples/node runs it again for the link: the server's
# package.json allows that (allowScripts), which npm 11 matches only when it
# runs in the server's folder, not with --prefix. Runnable from any directory.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
npm ci --prefix "$repo/bindings/node" --no-audit --no-fund
(cd "$repo/examples/node" && npm ci --no-audit --no-fund)
