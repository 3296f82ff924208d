#!/usr/bin/env bash
# Builds the Java quickstart server: the binding installed into the local Maven
# repository (~/.m2, outside the clone) when its jar is missing or older than
# its sources, then bin/quickstart-java.jar (where examples/servers.json starts
# it). Offline once Maven has resolved everything (TOOLERR_MAVEN_OFFLINE=0
# forces a resolution). Run from anywhere.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/bindings/java/maven.sh"
bash "$root/bindings/java/build.sh"
# clean: without it, a jar plugin that finds its jar up to date leaves the
# last shaded jar in place, and shading over it keeps the binding's classes
# of the last build (the first copy of a class wins).
mvn_run -f "$root/examples/java/pom.xml" clean package
mkdir -p "$root/bin"
cp "$root/examples/java/target/quickstart-java-0.2.0.jar" "$root/bin/quickstart-java.jar.tmp"
mv "$root/bin/quickstart-java.jar.tmp" "$root/bin/quickstart-java.jar"
echo "built bin/quickstart-java.jar"
