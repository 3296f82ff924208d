#!/usr/bin/env bash
# cold-build.sh measures a new user's first build: the server of the crate
# README's "Heal an rmcp server" section, with the dependencies its "Install"
# section lists, built by `cargo build` in a new folder with an empty target
# folder (crates come from Cargo's local registry cache, as on a machine that
# has fetched them once; nothing is compiled beforehand).
#
#   bindings/rust/scripts/cold-build.sh [REV]
#
# Without REV it builds against the working tree's crate; with a git revision
# it builds against the crate as it was at that revision (its README, its
# Cargo.lock), so the same script gives a before and an after. It prints the
# wall time, the number of crates compiled, the peak RSS of the build (the
# largest rustc) and the target folder's size. Not part of make test: it takes
# minutes. It prints what it measured; the crate's README points here.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
rev="${1:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The crate's source: the working tree, or the revision's files.
if [ -n "$rev" ]; then
	mkdir -p "$work/src-tree"
	git -C "$root" archive "$rev" bindings/rust plugin/toolerr.wasm plugin/toolerr.wasm.sha256 Cargo.lock | tar -x -C "$work/src-tree"
	tree="$work/src-tree"
else
	tree="$root"
fi
crate="$tree/bindings/rust"

# The README's first rust block is the server; the toml block of "## Install"
# gives the dependencies and profile lines.
mkdir -p "$work/app/src"
awk '/^```rust/ && !done {on=1; next} on && /^```/ {on=0; done=1} on' "$crate/README.md" >"$work/app/src/main.rs"
{
	printf '[package]\nname = "cold"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n'
	awk '/^## Install/ {sec=1} sec && /^```toml/ && !done {on=1; next} on && /^```/ {on=0; done=1} on' "$crate/README.md" |
		sed "s|/path/to/toolerr/bindings/rust|$crate|"
} >"$work/app/Cargo.toml"
[ -s "$work/app/src/main.rs" ] || { echo "cold-build: no rust block in $crate/README.md" >&2; exit 1; }
grep -q '^toolerr' "$work/app/Cargo.toml" || { echo "cold-build: no Install toml block in $crate/README.md" >&2; exit 1; }
cp "$tree/Cargo.lock" "$work/app/Cargo.lock"

cd "$work/app"
start=$(date +%s.%N)
/usr/bin/time -f '%M' -o "$work/rss" cargo build --offline -j 2 --target-dir "$work/target" 2>"$work/log" ||
	{ tail -40 "$work/log" >&2; exit 1; }
end=$(date +%s.%N)
crates=$(grep -c '^ *Compiling ' "$work/log")
size=$(du -sm "$work/target" | cut -f1)
awk -v s="$start" -v e="$end" -v n="$crates" -v r="$(cat "$work/rss")" -v z="$size" -v rev="${rev:-working tree}" \
	'BEGIN { t = e - s; printf "cold build (%s): %dm %02ds, %d crates compiled, peak RSS %.0f MB, target folder %d MB\n", rev, int(t / 60), t % 60, n, r / 1024, z }'
