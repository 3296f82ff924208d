#!/usr/bin/env bash
# The Java engine's batch command (docs/CONTRACT.md, "Batch protocol") for the
# conformance runner: io.github.toolerr.tools.Batch from the built jar, on the
# runtime classpath Maven wrote (target/classpath.txt). Build first:
# bash bindings/java/test.sh (make test's prepare phase does).
# Run from anywhere; stdin and stdout are the protocol's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/toolerr-$(cat "$here/../../VERSION").jar"
[ -f "$jar" ] && [ -f "$here/target/classpath.txt" ] || { echo "batch.sh: $jar is not built (bash bindings/java/build.sh)" >&2; exit 1; }
# -XX:TieredStopAtLevel=1 (HotSpot's C1 compiler only): with C2, a
# contract_diff call trapped ("unreachable") in about one run of the
# conformance vectors in five on a loaded machine (never with C1 only: 0 in
# 29 runs; never on the other six engines); see the Java README's "Known
# issues".
exec java -XX:-DontCompileHugeMethods -XX:TieredStopAtLevel=1 -cp "$jar:$(cat "$here/target/classpath.txt")" io.github.toolerr.tools.Batch
