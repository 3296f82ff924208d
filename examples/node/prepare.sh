#!/usr/bin/env bash
# prepare.sh installs the Node billing server and the toolerr binding it
# links to, from their committed lockfiles; npm ci in bindings/node runs the
# binding's prepare script, which copies plugin/toolerr.wasm into its wasm/
# (the server's package.json allows that script where it installs the link).
# Runnable from any directory.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
npm ci --prefix "$repo/bindings/node" --no-audit --no-fund
npm ci --prefix "$repo/examples/node" --no-audit --no-fund
