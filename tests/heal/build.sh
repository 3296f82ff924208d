#!/usr/bin/env bash
# Builds what the heal bench runs (tests/heal/README.md): bin/heal-go (the
# Go server, healed or plain), bin/toolerr (for `toolerr proxy`) and
# bin/heal-rust (the rmcp server, a member of the Cargo workspace, built with
# the same command as examples/rust/build.sh so that the two share every
# compiled dependency), and bin/heal-java.jar (the Java SDK server, which
# make bench times beside the others). The Node and Python servers run on
# what `make prepare` installs (examples/node/node_modules, .venv); when
# either is missing it is installed here. Run from anywhere.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
[ -d examples/node/node_modules/@modelcontextprotocol/sdk ] || bash examples/node/prepare.sh
[ -x .venv/bin/python ] || bash bindings/python/venv.sh
mkdir -p bin
go build -o bin/heal-go ./tests/heal/servers/go
go build -o bin/toolerr ./host/cmd/toolerr
source tests/cargo-target.sh
cargo build --locked -j 2 --workspace --all-targets
cp "$CARGO_TARGET_DIR/debug/heal-rust" bin/heal-rust.tmp
mv bin/heal-rust.tmp bin/heal-rust
# The Java server, on the binding build.sh installs into ~/.m2 (as
# examples/java/build.sh does; clean for the same reason: see there).
source bindings/java/maven.sh
bash bindings/java/build.sh
mvn_run -f tests/heal/servers/java/pom.xml clean package
cp tests/heal/servers/java/target/heal-java-0.2.0.jar bin/heal-java.jar.tmp
mv bin/heal-java.jar.tmp bin/heal-java.jar
