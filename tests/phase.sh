#!/usr/bin/env bash
# phase.sh NAME COMMAND...: one phase of `make test`. COMMAND's output goes to
# bin/test-logs/NAME.log; the phase prints one line: its name, its result,
# its time and the test counts its runners reported. A failed phase prints
# the end of its log, then, last (where a reader of only the last lines
# looks), its failures: what each failed go test printed and go test's
# FAIL lines and panics, and the other runners' failure lines.
#   phase.sh --total     prints the counts of every phase since the first
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
logs="$root/bin/test-logs"
mkdir -p "$logs"
if [ "${1:-}" = "--total" ]; then
  awk '{p += $1; f += $2} END {printf "make test: %d passed, %d failed\n", p, f}' "$logs/counts"
  exit 0
fi
name="$1"
shift
log="$logs/$name.log"
[ "$name" = prepare ] && : > "$logs/counts" # the first phase starts the totals
start=$(date +%s)
"$@" > "$log" 2>&1
status=$?
took=$(( $(date +%s) - start ))
# The runners' own closing lines: node's TAP (# pass N / # fail N), pytest
# and the project's runners (N passed, N failed), cargo (test result: ok.
# N passed; N failed) and go test -v (--- PASS/--- FAIL per test and
# subtest, one ok or FAIL line per package).
counts=$(awk '
  /^# pass [0-9]+$/ { p += $3 } /^# fail [0-9]+$/ { f += $3 }
  /^test result: / { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } }
  /^(conformance|e2e|install): [0-9]+ passed, [0-9]+ failed/ { p += $2; f += $4 }
  /^[0-9]+ passed/ || /^=+ .*[0-9]+ passed/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed,?$/) p += $(i-1); if ($(i) ~ /^failed,?$/) f += $(i-1) } }
  /^ *--- PASS: / { p++ } /^ *--- FAIL: / { f++ }
  /^ok  \t/ { pk++ } /^FAIL\t/ { fk++ }
  END { printf "%d %d %d %d", p, f, pk, fk }' "$log")
read -r passed failed pkgs failpkgs <<< "$counts"
summary=""
[ "$passed" -gt 0 ] || [ "$failed" -gt 0 ] && summary="$passed passed, $failed failed"
[ "$pkgs" -gt 0 ] || [ "$failpkgs" -gt 0 ] && summary="${summary:+$summary; }go packages: $pkgs ok, $failpkgs failed"
echo "$passed $failed" >> "$logs/counts"
if [ "$status" -eq 0 ]; then
  printf '== %-12s ok     %4ds  %s\n' "$name" "$took" "$summary"
else
  printf '== %-12s FAILED %4ds  %s (log: %s)\n' "$name" "$took" "$summary" "${log#"$root"/}"
  tail -n 80 "$log"
  echo "== $name: the failures in its log"
  # go test -v: what each failed test printed (between its === RUN or
  # === CONT line and the next ===), then the FAIL lines and panics; the
  # other runners' failure lines as they stand.
  awk '
    FNR == NR { if (match($0, /^ *--- FAIL: [^ ]+/)) { n = substr($0, RSTART, RLENGTH); sub(/^ *--- FAIL: /, "", n); failed[n] = 1 } next }
    /^=== (RUN|CONT|PAUSE|NAME) / { cur = $3; next }
    /^ *--- (PASS|FAIL|SKIP): / { if ($0 ~ /--- FAIL/) print; cur = ""; next }
    cur in failed || /^FAIL\t|^panic: |^not ok |^FAILED |^test .* FAILED$|^error(\[|:)/ { print }
  ' "$log" "$log" | tail -n 20
  exit "$status"
fi
