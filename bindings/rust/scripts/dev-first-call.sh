#!/usr/bin/env bash
# dev-first-call.sh measures the first call of a crate that depends on this
# binding and builds with Cargo's default dev profile (no
# [profile.dev.package."*"] lines, so wasmtime, Cranelift and wasmi
# unoptimised): it makes the crate in a temporary folder with its own target
# folder (a long build: about 12 minutes on 2 cores), then runs it twice with
# one empty XDG_CACHE_HOME, so the first run answers from the interpreter
# while the module compiles in the background (it prints when the compile
# ended) and the second finds the crate's compilation cache
# ($XDG_CACHE_HOME/toolerr/wasmtime) warm. Not part of make test; the README
# points here for its figures.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work/src"
cat >"$work/Cargo.toml" <<TOML
[package]
name = "devdep"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
toolerr = { path = "$root/bindings/rust" }
TOML
cat >"$work/src/main.rs" <<'RS'
use std::time::Instant;
fn main() {
    let t = Instant::now();
    let host = toolerr::Host::new().expect("host");
    let out = host.call_raw("required_field", br#"{"field":"id"}"#).expect("call");
    println!("first call {:?} on {:?}: {}", t.elapsed(), host.tier(), &out[..40.min(out.len())]);
    if host.interpreted_instances() > 0 && host.wait_compiled(None) {
        println!("  compiled in the background after {:?}", t.elapsed());
    }
}
RS
cp "$root/Cargo.lock" "$work/Cargo.lock"
(cd "$work" && CARGO_TARGET_DIR="$work/target" cargo build --offline -j 2)
mkdir -p "$work/xdg"
for run in empty warm; do
	printf '%s cache: ' "$run"
	XDG_CACHE_HOME="$work/xdg" env -u EXTISM_ENABLE_WASI_OUTPUT -u EXTISM_CACHE_CONFIG "$work/target/debug/devdep"
done
