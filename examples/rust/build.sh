#!/usr/bin/env bash
# Builds the billing-rust example server and the quickstart server and copies
# them to bin/billing-rust (where examples/servers.json starts it) and
# bin/quickstart-rust. Run from anywhere.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
# The target folder: a slot of the pool under ~/.cache/toolerr, held until
# this script exits (tests/cargo-target.sh), or CARGO_TARGET_DIR if set.
source tests/cargo-target.sh
# --all-targets: the same feature set as `cargo test --workspace`, so the two
# share every compiled dependency instead of building tokio and rmcp twice.
cargo build --locked -j 2 --workspace --all-targets
mkdir -p bin
cp "$CARGO_TARGET_DIR/debug/billing-rust" bin/billing-rust.tmp
mv bin/billing-rust.tmp bin/billing-rust
cp "$CARGO_TARGET_DIR/debug/quickstart-rust" bin/quickstart-rust.tmp
mv bin/quickstart-rust.tmp bin/quickstart-rust
# Start it once with no client: it loads toolerr.wasm, which fills the toolerr crate's
# compilation cache (~/.cache/toolerr/wasmtime), so later starts skip the seconds that
# compiling the module takes; it exits at the end of its stdin.
bin/billing-rust </dev/null >/dev/null
echo "built bin/billing-rust bin/quickstart-rust"
