#!/usr/bin/env bash
# tests/install/run.sh: the bindings as a user gets them, outside the
# repository. In fresh temporary directories it installs each binding the way
# its README says, imports it, runs the README's first example (the one-line
# heal of an MCP server, driven over stdio by drive.py) and checks that
# nothing is written on stderr.
#
#   bash tests/install/run.sh [node] [python] [rust] [go] [java]     (default: every part)
#
# One line per check ("install: node pack server ok"), then
# "install: N passed, M failed"; the exit status is 1 when a check failed.
# A failed check prints the end of its log. TOOLERR_INSTALL_KEEP=1 keeps the
# temporary directory. Runnable from any directory.
#
# Node: `npm pack` then `npm install` of the tarball, and `npm install` of
# the folder with install-links (both literally as the README's Install
# section says); then `import`, `require` (and, where this Node can be told
# to refuse require() of ES modules, the CommonJS build an older Node
# loads), and the server, then the README's server on the SDK's v2 packages
# (@modelcontextprotocol/server). The MCP SDK and zod come at the versions
# the binding's tests pin.
#
# Python: `pip install` of the folder (the README's lines), of the wheel and
# of the sdist `python -m build` makes (build and flit_core pinned in
# bindings/python/requirements-dev.txt, run from the repository's virtual
# environment), each into a fresh virtual environment, offline: pip gets
# every dependency from a wheelhouse the repository environment's pip
# downloads once, pinned by the same requirements file, and keeps under
# ${TOOLERR_VENV:-.venv}/install-wheelhouse. The folder's environment also
# serves the MCPServer quickstart (examples/python/quickstart.py), and one
# more gets toolerr[fastmcp] as the README's FastMCP lines say and serves the
# README's FastMCP example and the FastMCP quickstart; each quickstart is
# driven with its crashing tool too (drive.py --quickstart), stderr empty.
#
# Rust: a new crate with the README's [dependencies] and dev profile and its
# first example (a whole server) as src/main.rs, taking toolerr by path from
# the checkout, then from the crate `cargo package` makes (the README's
# lines), unpacked; each built offline with the repository's Cargo.lock in
# the repository's target folder (tests/cargo-target.sh: a locked slot of the
# pool under $HOME/.cache/toolerr/cargo-target, in make test the one its
# prepare phase built in, or CARGO_TARGET_DIR), so only what differs is compiled, and
# its server driven like the others.
#
# Go: a new module (go mod init, a replace of github.com/toolerr/toolerr by
# the checkout, go get .../host) offline, from the module cache and the
# repository's go.sum; README.md's first Go example made a command
# (declarations before it, server.Run after), vetted, built and driven.
#
# Java: the README's Install line (mvn install of bindings/java into ~/.m2,
# offline: the java phase resolved everything), then a new Maven project
# outside the checkout with the README's dependencies and its first example
# (the one-call heal) made a class (imports, mapper and schema before it),
# compiled against the installed artifact and driven.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$repo/tests/install"
venv="${TOOLERR_VENV:-$repo/.venv}"
python="${PYTHON:-python3}"

work="$(mktemp -d "${TMPDIR:-/tmp}/toolerr-install.XXXXXX")"
case "$work/" in "$repo"/*) echo "install: the temporary directory $work is inside the repository" >&2; exit 1 ;; esac
if [ "${TOOLERR_INSTALL_KEEP:-0}" = 1 ]; then
  echo "install: keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi
mkdir "$work/logs"

passed=0
failed=0
# check NAME COMMAND...: runs COMMAND (output to a log) and reports it.
check() {
  local name="$1" log
  shift
  log="$work/logs/${name// /-}.log"
  if "$@" >"$log" 2>&1; then
    echo "install: $name ok"
    passed=$((passed + 1))
  else
    echo "install: $name FAILED"
    tail -n 40 "$log" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
}

# readme_install README N: the Nth ```sh block of README's "## Install"
# section, with /path/to/toolerr made this checkout.
readme_install() {
  awk -v want="$2" '
    /^## / { inside = ($0 == "## Install") }
    inside && /^```sh$/ { if (++n == want) { grab = 1; next } }
    grab && /^```$/ { exit }
    grab { print }' "$1" | sed "s#/path/to/toolerr#$repo#g"
}

# readme_js FILE TEXT: the first ```js block of FILE that holds TEXT.
readme_js() {
  awk -v want="$2" '
    /^```js$/ { grab = 1; block = ""; next }
    grab && /^```$/ { if (index(block, want)) { printf "%s", block; exit } grab = 0; next }
    grab { block = block $0 "\n" }' "$1"
}

# in_dir DIR SCRIPT: runs SCRIPT with bash -euo pipefail in DIR, echoed.
in_dir() {
  printf '%s\n' "$2" | sed 's/^/+ /'
  (cd "$1" && bash -euo pipefail -c "$2")
}

# quiet COMMAND...: runs COMMAND, passes its stdout on, and fails if it
# wrote anything on stderr.
quiet() {
  local err status
  err="$(mktemp "$work/stderr.XXXXXX")"
  "$@" 2>"$err"
  status=$?
  if [ -s "$err" ]; then
    echo "stderr was not empty:"
    cat "$err"
    return 1
  fi
  return "$status"
}

# expect WANT COMMAND...: quiet COMMAND, whose stdout must be WANT.
expect() {
  local want="$1" got
  shift
  got="$(quiet "$@")" || { printf '%s\n' "$got"; return 1; }
  [ "$got" = "$want" ] || { printf 'stdout:\n%s\nwant:\n%s\n' "$got" "$want"; return 1; }
  echo "$got"
}

version="$(cat "$repo/VERSION")"
want_text='<tool_error code="MISSING_REQUIRED_FIELD">'

# --- Node ------------------------------------------------------------------

node_dep() { # the version of a dev dependency the binding's tests pin
  node -p "require('$repo/bindings/node/package.json').devDependencies['$1']"
}

# The package must resolve inside the project (a copy), never into the checkout.
NODE_ESM='
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, required, resultText } from "toolerr";
const where = realpathSync(fileURLToPath(import.meta.resolve("toolerr")));
if (!where.startsWith(realpathSync(process.cwd()) + "/node_modules/toolerr/")) throw new Error(`toolerr is ${where}`);
console.log(resultText(await required("id")).split("\n")[0], (await describe()).version);
'
NODE_CJS='
const { realpathSync } = require("node:fs");
const toolerr = require("toolerr");
const where = realpathSync(require.resolve("toolerr"));
if (!where.startsWith(realpathSync(process.cwd()) + "/node_modules/toolerr/")) throw new Error(`toolerr is ${where}`);
(async () => console.log(toolerr.resultText(await toolerr.required("id")).split("\n")[0], (await toolerr.describe()).version))();
'

node_project() { # node_project DIR: an empty package, as a server's would be
  mkdir -p "$1" && printf '{\n  "name": "server",\n  "version": "1.0.0",\n  "private": true\n}\n' >"$1/package.json"
}

check_node_way() { # check_node_way NAME README_BLOCK
  local name="$1" dir="$work/node-$1"
  node_project "$dir"
  check "node $name install" in_dir "$dir" "$(readme_install "$repo/bindings/node/README.md" "$2")"
  check "node $name import" expect "$want_text $version" bash -c 'cd "$1" && node --input-type=module -e "$2"' _ "$dir" "$NODE_ESM"
  # require() gives the ES module itself (the package needs a Node that can require() one).
  check "node $name require" expect "$want_text $version" bash -c 'cd "$1" && node -e "$2"' _ "$dir" "$NODE_CJS"
  check "node $name server" bash -c '
    cd "$1" &&
    npm install "@modelcontextprotocol/sdk@$2" "zod@$3" &&
    awk "/^\`\`\`js\$/ { f = 1; next } /^\`\`\`\$/ { if (f) exit } f" "$4/bindings/node/README.md" >server.mjs &&
    cat server.mjs &&
    python3 "$5/drive.py" node server.mjs' _ "$dir" "$(node_dep @modelcontextprotocol/sdk)" "$(node_dep zod)" "$repo" "$here"
  # The README's server on the SDK's v2 packages, beside the 1.x one.
  readme_js "$repo/bindings/node/README.md" "from '@modelcontextprotocol/server';" >"$dir/server-v2.mjs"
  check "node $name server-v2" bash -c '
    cd "$1" &&
    npm install "@modelcontextprotocol/server@$2" &&
    cat server-v2.mjs &&
    python3 "$3/drive.py" node server-v2.mjs' _ "$dir" "$(node_dep @modelcontextprotocol/server)" "$here"
}

check_node() {
  # npm: quiet, and from its cache when it has the package.
  export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false npm_config_prefer_offline=true
  check_node_way pack 1
  check_node_way path 2
}

# --- Python ----------------------------------------------------------------

PY_IMPORT='
import importlib.metadata, sys
from pathlib import Path
import toolerr
where = Path(toolerr.__file__).resolve()
assert where.is_relative_to(Path(sys.prefix).resolve()), f"toolerr is {where}"
assert importlib.metadata.metadata("toolerr")["License-Expression"] == "Apache-2.0"
print(toolerr.result_text(toolerr.required("id")).splitlines()[0], toolerr.__version__, toolerr.describe()["version"])
'
# The README's first example sets MCPServer's log level to WARNING, so the
# INFO line the SDK and heal() log for each failed call stays off stderr:
# its stderr must be empty, as every other language's.

wheelhouse() { # fills $wheels with every dependency of toolerr[mcp,fastmcp], pinned, and flit_core
  local key
  key="$(cat "$repo/bindings/python/requirements-dev.txt" "$repo/bindings/python/pyproject.toml" | sha256sum | cut -c1-16)"
  wheels="$venv/install-wheelhouse/$key"
  [ -f "$wheels/.complete" ] && return 0
  rm -rf "$venv/install-wheelhouse" && mkdir -p "$wheels" &&
    "$venv/bin/python" -m pip download --quiet --disable-pip-version-check -d "$wheels" \
      -c "$repo/bindings/python/requirements-dev.txt" "$repo/bindings/python[mcp,fastmcp]" "flit_core==4.2.0" &&
    touch "$wheels/.complete"
}

check_python_way() { # check_python_way NAME INSTALL_SCRIPT
  local name="$1" dir="$work/python-$1"
  mkdir -p "$dir"
  check "python $name install" in_dir "$dir" "$2"
  check "python $name import" expect "$want_text $version $version" \
    bash -c 'cd "$1" && .venv/bin/python -c "$2"' _ "$dir" "$PY_IMPORT"
  check "python $name server" bash -c '
    cd "$1" &&
    awk "/^\`\`\`python\$/ { f = 1; next } /^\`\`\`\$/ { if (f) exit } f" "$2/bindings/python/README.md" >server.py &&
    cat server.py &&
    python3 "$3/drive.py" .venv/bin/python server.py' _ "$dir" "$repo" "$here"
}

# python_block N: the README's Nth ```python block.
python_block() {
  awk -v want="$1" '/^```python$/ { if (++n == want) { f = 1; next } } /^```$/ { if (f) exit } f' \
    "$repo/bindings/python/README.md"
}

check_python_quickstart() { # check_python_quickstart NAME DIR FILE: examples/python/FILE served from DIR's .venv
  check "python $1 quickstart" bash -c '
    cd "$1" && cp "$2/examples/python/$3" "$3" &&
    python3 "$4/drive.py" --quickstart .venv/bin/python "$3"' _ "$2" "$repo" "$3" "$here"
}

check_python_fastmcp() { # the README's FastMCP install, its FastMCP example and the FastMCP quickstart
  local dir="$work/python-fastmcp"
  mkdir -p "$dir"
  check "python fastmcp install" in_dir "$dir" "$(readme_install "$repo/bindings/python/README.md" 2)"
  check "python fastmcp import" expect "$want_text $version $version" \
    bash -c 'cd "$1" && .venv/bin/python -c "$2"' _ "$dir" "$PY_IMPORT"
  check "python fastmcp server" bash -c '
    cd "$1" && printf "%s\n" "$2" >server.py && cat server.py &&
    python3 "$3/drive.py" .venv/bin/python server.py' _ "$dir" "$(python_block 2)" "$here"
  check_python_quickstart fastmcp "$dir" quickstart_fastmcp.py
}

check_python() {
  local wheels="" dist="$work/python-dist"
  # The repository environment, with build and flit_core (make test's prepare phase made it).
  if ! "$venv/bin/python" -c 'import build, flit_core' >/dev/null 2>&1; then
    check "python venv" bash "$repo/bindings/python/venv.sh"
  fi
  check "python wheelhouse" wheelhouse
  # Offline: every install below takes its dependencies (and flit_core, to
  # build the folder and the sdist) from the wheelhouse.
  export PIP_NO_INDEX=1 PIP_FIND_LINKS="$wheels" PIP_DISABLE_PIP_VERSION_CHECK=1
  check_python_way path "$(readme_install "$repo/bindings/python/README.md" 1)"
  check_python_quickstart path "$work/python-path" quickstart.py
  check_python_fastmcp
  # The README's second block, with the repository environment's build (pinned) and its flit_core.
  check "python build" "$venv/bin/python" -m build --no-isolation --outdir "$dist" "$repo/bindings/python"
  check_python_way wheel "$python -m venv .venv && .venv/bin/pip install '$dist/toolerr-$version-py3-none-any.whl[mcp]'"
  check_python_way sdist "$python -m venv .venv && .venv/bin/pip install '$dist/toolerr-$version.tar.gz[mcp]'"
}

# --- Rust ------------------------------------------------------------------

# The README's [dependencies] and dev profile (its one ```toml block), and its
# first ```rust block, a whole server on stdio.
rust_readme_toml() {
  awk '/^## / { inside = ($0 == "## Install") }
    inside && /^```toml$/ { grab = 1; next }
    grab && /^```$/ { exit }
    grab { print }' "$repo/bindings/rust/README.md"
}
rust_readme_main() {
  awk '/^```rust/ { grab = 1; next } grab && /^```$/ { exit } grab { print }' "$repo/bindings/rust/README.md"
}

rust_crate() { # rust_crate DIR NAME TOOLERR_PATH: a new binary crate, as a server's would be
  mkdir -p "$1/src" &&
    { printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n' "$2"
      rust_readme_toml | sed "s#/path/to/toolerr/bindings/rust#$3#"; } >"$1/Cargo.toml" &&
    rust_readme_main >"$1/src/main.rs" &&
    # The versions the repository builds and tests (its Cargo.lock; cargo drops
    # what this crate does not use), so that the shared target folder's
    # wasmtime is reused and nothing is fetched.
    cp "$repo/Cargo.lock" "$1/Cargo.lock" &&
    cat "$1/Cargo.toml"
}

check_rust_way() { # check_rust_way NAME DIR TOOLERR_DIR: builds DIR's crate (its toolerr from TOOLERR_DIR) and drives its server
  local name="$1" dir="$2" bin
  bin="$CARGO_TARGET_DIR/debug/toolerr-install-$name"
  check "rust $name build" bash -c 'cd "$1" && cargo build --offline -j 2 &&
    used="$(cargo tree --offline -i toolerr --depth 0 --prefix none)" && echo "$used" && [[ "$used" == *"($2)"* ]]' _ "$dir" "$3"
  # (Host::new refuses to start while EXTISM_ENABLE_WASI_OUTPUT is set.)
  check "rust $name server" env -u EXTISM_ENABLE_WASI_OUTPUT python3 "$here/drive.py" "$bin"
}

check_rust() {
  # The repository's target folder (make test's prepare phase filled it):
  # the README's dev profile is the repository's, so wasmtime is not compiled
  # again; only the crates whose features differ are. The slot stays locked
  # until this script exits.
  local CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-}"
  source "$repo/tests/cargo-target.sh" || { failed=$((failed + 1)); echo "install: rust FAILED (no cargo target folder)"; return; }
  local dir="$work/rust-path" pkg="$work/rust-package"
  # By path, as the README's [dependencies] say.
  check "rust path crate" rust_crate "$dir" toolerr-install-path "$repo/bindings/rust"
  check_rust_way path "$dir" "$repo/bindings/rust"
  # From the packaged crate: the README's ```sh block (with --allow-dirty, as
  # the checkout may have changes, and --offline), unpacked beside the crate.
  mkdir -p "$pkg"
  check "rust package" in_dir "$pkg" "$(readme_install "$repo/bindings/rust/README.md" 1 |
    sed 's/cargo package --no-verify/cargo package --no-verify --allow-dirty --offline/')"
  # A .crate stores one fixed old mtime for every file, which tar restores:
  # cargo would then take the last run's build of this path for a fresh one.
  [ ! -d "$pkg/toolerr-$version" ] || find "$pkg/toolerr-$version" -type f -exec touch {} +
  check "rust package crate" rust_crate "$pkg" toolerr-install-package "toolerr-$version"
  check_rust_way package "$pkg" "$pkg/toolerr-$version"
}

# --- Go --------------------------------------------------------------------

# README.md's first ```go block (the one-line heal), made a command: what it
# leaves to the reader (ctx, schema, the two types) before it, serving on
# stdio after it.
check_go() {
  local dir="$work/go"
  mkdir -p "$dir"
  # A new module that takes toolerr from this checkout. Offline, like the
  # Python part: every dependency comes from the module cache (make test's
  # prepare phase filled it), checked against the repository's go.sum; and
  # a module proxy that answers 403 for the unpublished
  # github.com/toolerr/toolerr/host cannot fail go get.
  local GOPROXY=off
  export GOPROXY
  # The README's line for a checkout, with this one's path; go.sum from the
  # repository first, so that nothing asks the checksum database.
  local line
  line="$(grep -m1 '^go mod edit -replace github.com/toolerr/toolerr=' "$repo/README.md" | sed "s|=\.\./toolerr|=$repo|")"
  check "go module" in_dir "$dir" "go mod init example.com/x
cp '$repo/go.sum' go.sum
$line"
  # The README's first go block is a whole program, built as written, and
  # started as on a new machine: an empty user cache, so its first answers
  # come from wazero's interpreter while the compiler fills the cache.
  check "go server" bash -c '
    cd "$1" &&
    awk "/^\`\`\`go\$/ { f = 1; next } /^\`\`\`\$/ { if (f) exit } f" "$2/README.md" >main.go &&
    cat main.go &&
    go vet . && go build -o server . &&
    XDG_CACHE_HOME="$1/user-cache" python3 "$3/drive.py" ./server &&
    ls "$1"/user-cache/toolerr/wazero/toolerr-compiled-*' _ "$dir" "$repo" "$here"
}

# --- Java ------------------------------------------------------------------

JAVA_HEAD='package install;

import io.github.toolerr.Toolerr;
import io.github.toolerr.mcp.Heal;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.Tool;

public final class Server {
  public static void main(String[] args) {
    var mapper = McpJsonDefaults.getMapper();
    String schema = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\",\"pattern\":\"^inv_[0-9]{3}$\"}},\"required\":[\"id\"]}";
'
JAVA_TAIL='  }
}'

# java_pom DIR: a new project whose dependencies are the README's ```xml
# block (and slf4j-nop, so that SLF4J prints no warning on stderr), with the
# plugins the binding's build pinned, so that nothing is fetched.
java_pom() {
  { cat <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>install</groupId><artifactId>server</artifactId><version>1</version>
  <properties><maven.compiler.release>17</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
POM
    awk '/^## / { inside = ($0 == "## Install") }
      inside && /^```xml$/ { grab = 1; next }
      grab && /^```$/ { exit }
      grab { print "    " $0 }' "$repo/bindings/java/README.md"
    cat <<POM
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-nop</artifactId><version>2.0.17</version></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin>
  </plugins></build>
</project>
POM
  } >"$1/pom.xml" && cat "$1/pom.xml"
}

check_java() {
  local dir="$work/java"
  mkdir -p "$dir/src/main/java/install"
  check "java install" in_dir "$work" "$(readme_install "$repo/bindings/java/README.md" 1 | sed 's/mvn -B -q /mvn -B -q -o /')"
  check "java project" java_pom "$dir"
  check "java server" bash -c '
    cd "$1" &&
    { printf "%s" "$2"; awk "/^\`\`\`java\$/ { f = 1; next } /^\`\`\`\$/ { if (f) exit } f" "$3/bindings/java/README.md" | sed "s/^/    /"; printf "%s\n" "$4"; } >src/main/java/install/Server.java &&
    cat src/main/java/install/Server.java &&
    mvn -B -q -o compile dependency:build-classpath -Dmdep.outputFile=cp.txt &&
    grep -q "/.m2/repository/io/github/toolerr/toolerr/$6/toolerr-$6.jar" cp.txt &&
    python3 "$5/drive.py" java -XX:-DontCompileHugeMethods -cp "target/classes:$(cat cp.txt)" install.Server' _ "$dir" "$JAVA_HEAD" "$repo" "$JAVA_TAIL" "$here" "$version"
}

parts=("$@")
[ "${#parts[@]}" -gt 0 ] || parts=(node python rust go java)
for part in "${parts[@]}"; do
  if ! declare -F "check_$part" >/dev/null; then
    echo "install: no checks for $part (parts: node, python, rust, go, java)" >&2
    exit 64
  fi
  "check_$part"
done
echo "install: took ${SECONDS}s"
echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
