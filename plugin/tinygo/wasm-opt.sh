#!/usr/bin/env bash
# wasm-opt.sh is the wasm-opt TinyGo runs on the module (build.sh sets
# WASMOPT to it): Debian's binaryen, with the flags TinyGo passes (-O2 -g,
# the input and --output) and one more.
#
# --one-caller-inline-max-function-size=500: binaryen inlines a function
# that has one caller whatever its size (its default is -1, no limit),
# and LLVM has already done the same, so the module's export functions
# grew to tens of kilobytes (format_validation's took 40 KB). Chicory turns
# each wasm function into one JVM method, and HotSpot never compiles a
# method over 8,000 bytes of bytecode unless the JVM runs with
# -XX:-DontCompileHugeMethods: on a JVM without the flag those methods ran
# in its bytecode interpreter for the life of the process. Above 500
# (binaryen's measure of a function's size), a function with one caller
# stays a function of its own. The per-call times on wazero did not change
# (RATIONALE.md, "The module's functions and HotSpot").
set -euo pipefail
exec /usr/bin/wasm-opt --one-caller-inline-max-function-size=500 "$@"
