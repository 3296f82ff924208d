#!/usr/bin/env bash
# toolchain.sh installs, or finds in its cache, the TinyGo that builds
# plugin/toolerr.wasm, and prints the directory of that toolchain.
#
# Everything comes from the registries: TinyGo's source from the Go module
# proxy, LLVM 19, compiler-rt and wasi-libc from Debian's packages, and the Go
# that TinyGo compiles against (TinyGo 0.39 takes Go 1.19 to 1.25) from the Go
# module proxy through GOTOOLCHAIN. The project's patches (patches/) are
# applied to TinyGo's source before it is built.
#
# The result lives outside the clone, under
#   ${TOOLERR_TINYGO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolerr}/tinygo-<version>-<hash>
# where <hash> covers this script and the patches, so a change to either
# builds a new toolchain and an unchanged one is reused as it is.
#
# The printed directory holds:
#   root/           TINYGOROOT (the patched source, with build/tinygo)
#   cache/tinygo/   TinyGo's library cache (XDG_CACHE_HOME=<dir>/cache),
#                   holding Debian's compiler-rt and wasi-libc
#   env             the variables build.sh sets for a build
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"

TINYGO_VERSION=0.39.0
LLVM_MAJOR=19
# The Go whose standard library TinyGo compiles (the newest 1.25 release).
TINYGO_GO=go1.25.14
DEBIAN_PACKAGES="llvm-${LLVM_MAJOR}-dev libclang-${LLVM_MAJOR}-dev liblld-${LLVM_MAJOR}-dev clang-${LLVM_MAJOR} lld-${LLVM_MAJOR} libclang-rt-${LLVM_MAJOR}-dev-wasm32 wasi-libc binaryen"

hash="$( (cat "$0"; cat "$here"/patches/*.patch) | sha256sum | cut -c1-12)"
base="${TOOLERR_TINYGO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolerr}"
dir="$base/tinygo-$TINYGO_VERSION-$hash"

log() { echo "toolchain.sh: $*" >&2; }

if [ -x "$dir/root/build/tinygo" ] && [ -f "$dir/env" ]; then
	echo "$dir"
	exit 0
fi

# Debian's packages: installed when missing (CI runs as root; a developer
# without root is told what to install).
missing=""
for p in $DEBIAN_PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		log "installing$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >&2
		# shellcheck disable=SC2086
		apt-get install -y -qq $missing >&2
	else
		log "missing Debian packages:$missing (apt-get install them as root)"
		exit 1
	fi
fi

mkdir -p "$base"
tmp="$(mktemp -d "$base/.tinygo-build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# TinyGo's source, from the Go module proxy (the module zip has no git
# submodules: the libraries come from Debian below).
log "fetching github.com/tinygo-org/tinygo@v$TINYGO_VERSION"
src="$(cd "$tmp" && GOFLAGS=-mod=mod GO111MODULE=on go mod download -json "github.com/tinygo-org/tinygo@v$TINYGO_VERSION" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
test -d "$src" || { log "go mod download gave no directory"; exit 1; }
cp -R "$src" "$tmp/root"
chmod -R u+w "$tmp/root"
# src/net is a submodule (TinyGo's own net package) that the zip lacks; an
# empty directory lets TinyGo merge Go's net/... packages in (the module
# uses net/url and net/netip, never net itself).
mkdir -p "$tmp/root/src/net"
for p in "$here"/patches/*.patch; do
	log "applying $(basename "$p")"
	patch -s -p1 -d "$tmp/root" < "$p"
done

log "building TinyGo against LLVM $LLVM_MAJOR"
(cd "$tmp/root" && CGO_ENABLED=1 GOFLAGS=-mod=mod go build -trimpath -tags="llvm$LLVM_MAJOR" -o build/tinygo .) >&2

# TinyGo's library cache: a library whose lib.a exists is not rebuilt, so
# Debian's prebuilt compiler-rt and wasi-libc stand in for the submodules the
# module zip lacks. The names are those of the wasip1 target with the default
# (precise) garbage collector.
lib="$tmp/cache/tinygo"
mkdir -p "$lib/compiler-rt-wasm32-unknown-wasi-generic" "$lib/wasi-libc-wasm32-unknown-wasi-generic"
cp "/usr/lib/llvm-$LLVM_MAJOR/lib/clang/$LLVM_MAJOR/lib/wasi/libclang_rt.builtins-wasm32.a" \
	"$lib/compiler-rt-wasm32-unknown-wasi-generic/lib.a"
cp /usr/lib/wasm32-wasi/libc.a "$lib/wasi-libc-wasm32-unknown-wasi-generic/lib.a"
cp -R /usr/include/wasm32-wasi "$lib/wasi-libc-wasm32-unknown-wasi-generic/include"

# The Go that TinyGo reads its standard library from.
log "fetching $TINYGO_GO"
GOTOOLCHAIN="$TINYGO_GO" go version >&2

cat > "$tmp/env" <<EOF
TINYGO_VERSION=$TINYGO_VERSION
TINYGO_GO=$TINYGO_GO
LLVM_MAJOR=$LLVM_MAJOR
LLVM_VERSION=$(dpkg-query -W -f='${Version}' "llvm-$LLVM_MAJOR-dev")
COMPILER_RT_VERSION=$(dpkg-query -W -f='${Version}' "libclang-rt-$LLVM_MAJOR-dev-wasm32")
WASI_LIBC_VERSION=$(dpkg-query -W -f='${Version}' wasi-libc)
BINARYEN_VERSION=$(dpkg-query -W -f='${Version}' binaryen)
PATCHES="$(cd "$here/patches" && ls ./*.patch | sed 's|^\./||' | tr '\n' ' ' | sed 's/ $//')"
EOF

rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
log "ready: $dir"
echo "$dir"
