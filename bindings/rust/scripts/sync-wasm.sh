#!/usr/bin/env bash
# sync-wasm copies the committed plugin/toolerr.wasm into the crate
# (bindings/rust/wasm/toolerr.wasm) and records its digest
# (wasm/toolerr.wasm.sha256, `sha256sum` format, the one Host::new checks).
# The crate embeds this copy, so that `cargo package` and a vendored crate
# carry the module; it is never edited by hand. `make wasm` runs
#
#   bash bindings/rust/scripts/sync-wasm.sh           copy and record
#   bash bindings/rust/scripts/sync-wasm.sh --check   exit 1 if the copy is stale
#
# It refuses a source whose digest differs from plugin/toolerr.wasm.sha256.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
source="$root/plugin/toolerr.wasm"
target="$root/bindings/rust/wasm"

digest="$(sha256sum "$source" | cut -d' ' -f1)"
committed="$(cut -d' ' -f1 "$root/plugin/toolerr.wasm.sha256")"
if [ "$digest" != "$committed" ]; then
  echo "sync-wasm: $source has sha256 $digest, but plugin/toolerr.wasm.sha256 says $committed" >&2
  exit 1
fi
record="$digest  toolerr.wasm"

if [ "${1:-}" = "--check" ]; then
  if ! cmp -s "$source" "$target/toolerr.wasm" || [ "$(cat "$target/toolerr.wasm.sha256" 2>/dev/null)" != "$record" ]; then
    echo "sync-wasm: bindings/rust/wasm is stale; run bash bindings/rust/scripts/sync-wasm.sh" >&2
    exit 1
  fi
  exit 0
fi

mkdir -p "$target"
cp "$source" "$target/toolerr.wasm.tmp"
mv "$target/toolerr.wasm.tmp" "$target/toolerr.wasm"
printf '%s\n' "$record" >"$target/toolerr.wasm.sha256"
echo "sync-wasm: $target/toolerr.wasm sha256 $digest"
