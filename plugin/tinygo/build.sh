#!/usr/bin/env bash
# build.sh OUT builds plugin/wasm with the pinned TinyGo (toolchain.sh) into
# OUT and writes OUT.build, the build record: toolchain, versions, flags,
# patches. Run from anywhere; `make wasm` runs it.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$(realpath -m "${1:?usage: build.sh OUT}")"

# The flags of the shipped module (RATIONALE.md says why each):
#   -scheduler=none  no goroutines in the module; the default (asyncify)
#                    scheduler made every call about 100x slower
#   -gc=boundary     the conservative collector, run only between calls
#                    (patches/06-gc-at-boundaries.patch): no stack
#                    bookkeeping in every function that holds a pointer
#                    (RATIONALE.md, "Collecting between calls")
#   -opt=2           the measured best size/speed trade-off
#   -no-debug        no DWARF in the shipped bytes; the name section stays
#                    (TinyGo runs wasm-opt with -g), so a trap's backtrace
#                    names the Go functions, for some 4% of the bytes
#   -zstack-size     a 1 MiB wasm stack: the 64 KiB default overflowed at a
#                    nesting depth of 64, and the ABI allows 256
#   --initial-heap   a 1 MiB heap from the start: with the few KiB the linker
#                    leaves by default, a new instance's _initialize grew
#                    (under the former collector: collected) some sixty
#                    times on its way to the heap it needs; the price is at
#                    most 1 MiB more touched memory per idle instance
TINYGO_FLAGS=(-target=wasip1 -buildmode=c-shared -scheduler=none -gc=boundary -opt=2 -no-debug
	"-ldflags=-extldflags '-zstack-size=1048576 --initial-heap=1048576'")

dir="$(bash "$here/toolchain.sh")"
# shellcheck disable=SC1091
. "$dir/env"

# What tinygo.mod requires, a "module version" line each.
requires="$(awk '/^require \(/ { r = 1; next } r && /^\)/ { r = 0 } r && NF >= 2 { print $1, $2 }' "$repo/plugin/wasm/tinygo.mod")"

# tinygo.mod must keep go.mod's versions of what the module imports (all but
# x/text, which go.mod has at a version that wants Go 1.26).
while read -r mod ver; do
	[ "$mod" = golang.org/x/text ] && continue
	main="$(awk -v m="$mod" '$1 == m { print $2; exit }' "$repo/go.mod")"
	if [ -n "$main" ] && [ "$main" != "$ver" ]; then
		echo "build.sh: plugin/wasm/tinygo.mod has $mod $ver, go.mod has $main" >&2
		exit 1
	fi
done <<< "$requires"

cd "$repo"
# TinyGo reads its prebuilt libraries from $XDG_CACHE_HOME/tinygo and keeps
# the packages it compiles there too, each under a hash of its sources, the
# compiler and the flags, so a kept cache cannot change the output (a cold
# and a warm build give the same bytes) but makes a rebuild much faster. The cache lives beside the toolchain, seeded
# once from its prebuilt libraries.
cache="$dir/build-cache"
if [ ! -d "$cache" ]; then
	seed="$(mktemp -d "$dir/build-cache.XXXXXX")"
	cp -R "$dir/cache/." "$seed/"
	mv -T "$seed" "$cache" 2>/dev/null || rm -rf "$seed"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The Go modules the module links, patched (plugin/tinygo/modpatches, each
# named <module path with / as ->-<what it does>.patch): each patched copy
# lives beside the toolchain under a hash of its patch, and the build's
# modfile (tinygo.mod plus a replace for each) points at it. Only the TinyGo
# build uses them; the native Go core links the modules as they are.
cp "$repo/plugin/wasm/tinygo.mod" "$work/tinygo.mod"
cp "$repo/plugin/wasm/tinygo.sum" "$work/tinygo.sum"
modpatches=""
for p in "$here"/modpatches/*.patch; do
	name="$(basename "$p" .patch)"
	mod="" ver=""
	while read -r m v; do
		if [[ "$name" == "${m//\//-}-"* ]]; then mod="$m" ver="$v"; fi
	done <<< "$requires"
	[ -n "$mod" ] || { echo "build.sh: $name.patch names no module of plugin/wasm/tinygo.mod" >&2; exit 1; }
	src="$(cd "$repo" && GOFLAGS="-modfile=$work/tinygo.mod" go mod download -json "$mod" | awk -F'"' '$2 == "Dir" { print $4 }')"
	patched="$dir/mods/$name-$ver-$(sha256sum "$p" | cut -c1-12)"
	if [ ! -d "$patched" ]; then
		mkdir -p "$dir/mods"
		tmp="$(mktemp -d "$dir/mods/tmp.XXXXXX")"
		cp -R "$src/." "$tmp/"
		chmod -R u+w "$tmp"
		patch -s -p1 -d "$tmp" < "$p"
		mv -T "$tmp" "$patched" 2>/dev/null || rm -rf "$tmp"
	fi
	echo "replace $mod => $patched" >> "$work/tinygo.mod"
	modpatches="$modpatches $name.patch"
done

env -u GOFLAGS -u GOOS -u GOARCH \
	TINYGOROOT="$dir/root" \
	XDG_CACHE_HOME="$cache" \
	GOTOOLCHAIN="$TINYGO_GO" \
	GOFLAGS="-modfile=$work/tinygo.mod -mod=readonly -buildvcs=false" \
	PATH="/usr/lib/llvm-$LLVM_MAJOR/bin:$PATH" \
	WASMOPT="$here/wasm-opt.sh" \
	"$dir/root/build/tinygo" build "${TINYGO_FLAGS[@]}" -o "$work/out.wasm" ./plugin/wasm
mv "$work/out.wasm" "$out"

{
	echo "toolchain: tinygo $TINYGO_VERSION (github.com/tinygo-org/tinygo@v$TINYGO_VERSION from the Go module proxy, built with -tags=llvm$LLVM_MAJOR)"
	echo "go: $TINYGO_GO (the standard library TinyGo compiles)"
	echo "llvm: Debian llvm-$LLVM_MAJOR-dev $LLVM_VERSION"
	echo "compiler-rt: Debian libclang-rt-$LLVM_MAJOR-dev-wasm32 $COMPILER_RT_VERSION"
	echo "wasi-libc: Debian wasi-libc $WASI_LIBC_VERSION"
	echo "wasm-opt: Debian binaryen $BINARYEN_VERSION, through plugin/tinygo/wasm-opt.sh ($(sed -n 's|^exec /usr/bin/wasm-opt \(.*\) "\$@"$|\1|p' "$here/wasm-opt.sh"))"
	echo "patches: $PATCHES (plugin/tinygo/patches)"
	echo "module patches:${modpatches:- none} (plugin/tinygo/modpatches)"
	echo "modfile: plugin/wasm/tinygo.mod"
	echo "flags: ${TINYGO_FLAGS[*]}"
	echo "source: ./plugin/wasm"
	echo "script: plugin/tinygo/build.sh"
} > "$out.build"
