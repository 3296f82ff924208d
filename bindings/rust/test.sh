#!/usr/bin/env bash
# The Rust part of `make test`: the toolerr crate and the billing-rust example
# server (the Cargo workspace at the repository root), then the server binary
# where examples/servers.json starts it (bin/billing-rust).
#
# Cargo's target folder lives outside the clone so that repeated runs, and CI
# runs from fresh clones on the same machine, reuse the compiled wasmtime: a
# slot of a small pool under $HOME/.cache/toolerr/cargo-target, locked for as
# long as this script runs so that a concurrent build of another checkout
# takes another slot instead of waiting (tests/cargo-target.sh), or
# CARGO_TARGET_DIR if set.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
source tests/cargo-target.sh

echo "== cargo fmt --check (rustfmt's layout, as for gofmt on the Go side)"
cargo fmt --all --check

echo "== cargo test (Rust binding and example server)"
cargo test --locked -j 2 --workspace

# TOOLERR_PREPARED=1 (make test, whose prepare phase built it) skips the
# server's build.
[ -n "${TOOLERR_PREPARED:-}" ] || bash examples/rust/build.sh
