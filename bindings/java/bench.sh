#!/usr/bin/env bash
# The Java binding's bench command for tests/bench (make bench): per-call
# times of io.github.toolerr.tools.Bench, twice (engine "java" with the JVM
# flag the README advises, -XX:-DontCompileHugeMethods; "java-default" with
# none), then the first result of a fresh JVM: a new `java` process that loads
# the module and renders one tool_error (Bench --first-result), timed from
# its start to its exit, the median of TOOLERR_BENCH_COLD (default 5) runs.
# stdout: JSON lines only. Build first (bash bindings/java/build.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bash "$here/build.sh" >&2
cp="$here/target/toolerr-$(cat "$root/VERSION").jar:$(cat "$here/target/classpath.txt")"
flag=-XX:-DontCompileHugeMethods
java "$flag" -cp "$cp" io.github.toolerr.tools.Bench java "$root/tests/bench/requests.json"
java -cp "$cp" io.github.toolerr.tools.Bench java-default "$root/tests/bench/requests.json"
for engine in java java-default; do
  opts=()
  [ "$engine" = java ] && opts=("$flag")
  times=()
  for _ in $(seq "${TOOLERR_BENCH_COLD:-5}"); do
    start=$(date +%s%N)
    got="$(java "${opts[@]}" -cp "$cp" io.github.toolerr.tools.Bench --first-result)"
    end=$(date +%s%N)
    [ "$got" = ok ] || { echo "bench.sh: --first-result printed $got" >&2; exit 1; }
    times+=($(( (end - start) / 1000 )))
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "bench: $engine first result of a fresh JVM, µs: ${times[*]}" >&2
  printf '{"engine":"%s","op":"cold_start","mode":"fresh JVM to first result","ms":%s}\n' "$engine" "$(awk -v us="$median" 'BEGIN {printf "%.1f", us / 1000}')"
done
