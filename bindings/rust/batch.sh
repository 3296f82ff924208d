#!/usr/bin/env bash
# The Rust engine's batch command (docs/CONTRACT.md, "Batch protocol") for the conformance runner:
# `cargo run --example batch` in the pool's target folder (tests/cargo-target.sh),
# so that it reuses what bindings/rust/test.sh built instead of compiling
# wasmtime into ./target.
# Run from anywhere; stdin and stdout are the protocol's. Arguments go to the
# example (`--tiers interpreter`: the conformance engine rust-interpreter).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/tests/cargo-target.sh" # (its line on stderr: the runner shows stderr only on failure)
unset EXTISM_ENABLE_WASI_OUTPUT
exec cargo run --quiet --locked -j 2 --manifest-path "$root/bindings/rust/Cargo.toml" --example batch -- "$@"
