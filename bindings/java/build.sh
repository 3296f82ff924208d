#!/usr/bin/env bash
# Builds the Java binding and installs it into the local Maven repository
# (~/.m2): target/toolerr-VERSION.jar (the module compiled to JVM classes, its
# init image, the module's bytes and digest) and target/classpath.txt (what
# batch.sh and the bench run on). Skips the build when the installed jar is
# newer than every source (the pom, src/, plugin/toolerr.wasm); tests are
# test.sh's. Run from anywhere.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/maven.sh"
version="$(cat "$root/VERSION")"
jar="$here/target/toolerr-$version.jar"
installed="$HOME/.m2/repository/io/github/toolerr/toolerr/$version/toolerr-$version.jar"
# A module newer than the classes made from it: start over (pom.xml's "module"
# profile compiles it only when its output is missing).
if [ -f "$here/target/classes/io/github/toolerr/internal/toolerr.init" ] &&
  [ -n "$(find "$root/plugin/toolerr.wasm" "$here/pom.xml" -newer "$here/target/classes/io/github/toolerr/internal/toolerr.init" -print -quit)" ]; then
  rm -rf "$here/target"
fi
if [ -f "$jar" ] && [ -f "$installed" ] && cmp -s "$jar" "$installed" && [ -f "$here/target/classpath.txt" ] &&
  [ -z "$(find "$here/pom.xml" "$here/src/main" "$root/plugin/toolerr.wasm" "$root/plugin/toolerr.wasm.sha256" -newer "$jar" -print -quit)" ]; then
  exit 0
fi
mvn_run -f "$here/pom.xml" install -DskipTests
