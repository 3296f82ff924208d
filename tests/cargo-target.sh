#!/usr/bin/env bash
# tests/cargo-target.sh: the Cargo target folder of this build, taken from a
# small pool under the user's cache so that builds of different checkouts
# never wait for each other and sequential ones (CI's fresh clone after a
# session's run) reuse a warm wasmtime:
#
#   $HOME/.cache/toolerr/cargo-target/slot-0, slot-1, ... (TOOLERR_CARGO_SLOTS, default 3)
#
# A build takes the first slot whose lock file (slot-N.lock, beside the
# folder) it can flock without waiting, and holds that lock for as long as it
# uses the folder: the lock is on a file descriptor of the shell that took it,
# which every child (cargo, rustc, the tests) inherits, and it is released
# when the last of them exits. A concurrent build of another checkout takes
# the next slot instead of waiting on Cargo's "file lock on artifact
# directory"; only when every slot is taken does it wait for one.
#
# Two ways to use it:
#   source tests/cargo-target.sh      in a script that runs cargo: exports
#                                     CARGO_TARGET_DIR and holds the slot
#                                     until that script exits
#   bash tests/cargo-target.sh CMD... runs CMD holding a slot (make test runs
#                                     all its phases this way, so prepare's
#                                     build, the rust and install phases and
#                                     conformance's Rust engine use one slot)
#
# Sourced, it says on stderr (in make test, in the phase's log) which folder
# is used; run as a command it says nothing unless it has to wait. A
# CARGO_TARGET_DIR set by the user is used as it is, unlocked.
# Inside a build that already holds a slot (TOOLERR_CARGO_TARGET_HELD, set
# here, names it) nothing is taken again.
toolerr_cargo_target() {
  local pool="$HOME/.cache/toolerr/cargo-target"
  local slots="${TOOLERR_CARGO_SLOTS:-3}" say="${1:-say}" n fd waited=0
  if [ -n "${CARGO_TARGET_DIR:-}" ]; then
    if [ "${TOOLERR_CARGO_TARGET_HELD:-}" = "$CARGO_TARGET_DIR" ]; then
      [ "$say" = quiet ] || echo "cargo target: $CARGO_TARGET_DIR (the slot this build holds)" >&2
    else
      [ "$say" = quiet ] || echo "cargo target: $CARGO_TARGET_DIR (CARGO_TARGET_DIR, not locked by toolerr)" >&2
    fi
    export CARGO_TARGET_DIR
    return 0
  fi
  case "$slots" in '' | *[!0-9]* | 0) echo "cargo-target.sh: TOOLERR_CARGO_SLOTS must be a positive number, not '$slots'" >&2; return 1 ;; esac
  command -v flock >/dev/null || { echo "cargo-target.sh: needs flock (util-linux), or set CARGO_TARGET_DIR" >&2; return 1; }
  mkdir -p "$pool" || return 1
  while :; do
    for ((n = 0; n < slots; n++)); do
      exec {fd}>>"$pool/slot-$n.lock" || return 1
      if flock -n "$fd"; then
        export CARGO_TARGET_DIR="$pool/slot-$n"
        export TOOLERR_CARGO_TARGET_HELD="$CARGO_TARGET_DIR"
        [ "$say" = quiet ] || echo "cargo target: $CARGO_TARGET_DIR (slot $n of $slots, locked by this build, pid $$)" >&2
        return 0
      fi
      exec {fd}>&-
    done
    if [ "$waited" = 0 ]; then
      echo "cargo target: all $slots slots of $pool are in use by other builds; waiting for one (or set TOOLERR_CARGO_SLOTS or CARGO_TARGET_DIR)" >&2
      waited=1
    fi
    sleep "${TOOLERR_CARGO_POLL:-5}"
  done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  [ "$#" -gt 0 ] || { echo "usage: bash tests/cargo-target.sh COMMAND... (or source it)" >&2; exit 2; }
  toolerr_cargo_target quiet
  exec "$@"
else
  toolerr_cargo_target || { unset -f toolerr_cargo_target; return 1; }
  unset -f toolerr_cargo_target
fi
