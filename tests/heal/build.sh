#!/usr/bin/env bash
# Builds what the heal bench runs (tests/heal/README.md): bin/heal-go (the
# Go server, healed or plain), bin/toolerr (for `toolerr proxy`) and
# bin/heal-rust (the rmcp server, a member of the Cargo workspace, built with
# the same command as examples/rust/build.sh so that the two share every
# compiled dependency), and bin/heal-java (the Java SDK server, which
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
# The Java server is one class compiled against the Java quickstart's jar,
# which carries the binding, the Java SDK and its logger as a user's server
# has them (examples/java/build.sh builds it); it runs on the same class path.
bash examples/java/build.sh
rm -rf bin/heal-java
javac -d bin/heal-java -cp bin/quickstart-java.jar tests/heal/servers/java/Server.java
