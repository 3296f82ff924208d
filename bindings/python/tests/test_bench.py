"""bench/bench.py prints what tests/bench (``make bench``) reads: one JSON
line per op on stdout and nothing else. A very short run checks the format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench.py"


def test_bench_prints_one_json_line_per_op_and_only_those() -> None:
    env = {**os.environ, "TOOLERR_BENCH_SECONDS": "0.02", "TOOLERR_BENCH_COLD": "1"}
    done = subprocess.run(
        [sys.executable, str(BENCH)], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("\n")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    ops = ["tool_error", "format_validation", "parse", "validate"]
    assert [(r["engine"], r["op"]) for r in rows] == [
        *[("python", op) for op in ops],
        *[("python-extism", op) for op in ops],
        ("python", "tool_error_api"),
        ("python", "cold_start"),
        ("python-extism", "cold_start"),
    ]
    for r in rows:
        if r["op"] == "cold_start":
            assert list(r) == ["engine", "op", "ms"]
            assert r["ms"] > 0
        else:
            assert list(r) == ["engine", "op", "ns_per_call", "calls_per_sec"]
            assert r["ns_per_call"] > 0
            assert isinstance(r["calls_per_sec"], int) and r["calls_per_sec"] > 0
    # The python rows are the raw engine's Cranelift code (the process-wide module's, once its
    # background compile, if any, has ended), python-extism's the extism engine's.
    assert "bench python: engine raw, compiler cranelift" in done.stderr
    assert "bench python-extism: engine extism, compiler cranelift" in done.stderr
