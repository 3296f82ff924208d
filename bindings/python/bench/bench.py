"""Measure the Python binding on the requests every engine is measured on
(tests/bench/requests.json), as a server uses it: the process-wide module
(one pool), calls made one after another on one thread.

    .venv/bin/python bindings/python/bench/bench.py     (from the repository root)

stdout gets one JSON line per measurement and nothing else; tests/bench
(``make bench``) reads them::

    {"engine":"python","op":"tool_error","ns_per_call":12345.6,"calls_per_sec":81000}
    {"engine":"python","op":"cold_start","ms":123.4}

Progress and diagnostics go to stderr.

Each op runs on the default raw engine ("python": the process-wide module,
once its Cranelift code serves, which a first start compiles in the
background) and on the extism engine ("python-extism", a Toolerr of its
own). Per op: a warm-up in chunks of about 50 ms until the time per call
settles and at least WARMUP_SECONDS have passed, which also calibrates the
call count; then about TOOLERR_BENCH_SECONDS (default 1.5) of calls in
BATCHES timed batches; ns_per_call is the median batch's time per call (the
machine is shared: a median batch is steadier than the overall mean, which
goes to stderr too). Requests go through the raw ``Toolerr.call`` as one
compact JSON text per op (key order kept), the same text for every engine.
tool_error_api is the idiomatic ``toolerr.tool_error(...)`` on the
process-wide module. cold_start is ``Toolerr(engine=...)`` (read the packaged
module, sha256 check, compile or take the compiled module, describe and ABI
check, export probe) to the first tool_error result, the median of
TOOLERR_BENCH_COLD (default 5) fresh loads in this process: the raw engine
takes the module the process compiled already (another process
deserializes it from the binding's cache, which "First result of a fresh
process" in BENCHMARKS.md measures), Extism compiles it again from
wasmtime's cache.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

import toolerr

OPS = ("tool_error", "format_validation", "parse", "validate")
BATCHES = 5


def _positive(name: str, fallback: float) -> float:
    try:
        value = float(os.environ[name])
    except (KeyError, ValueError):
        return fallback
    return value if value > 0 else fallback


SECONDS = _positive("TOOLERR_BENCH_SECONDS", 1.5)
WARMUP_SECONDS = min(0.5, SECONDS / 3)
COLD_LOADS = max(1, round(_positive("TOOLERR_BENCH_COLD", 5)))

# stdout carries the results only: anything else printed goes to stderr.
_stdout = sys.stdout
sys.stdout = sys.stderr


def out(line: dict) -> None:
    _stdout.write(json.dumps(line, separators=(",", ":")) + "\n")
    _stdout.flush()


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def timed(n: int, once) -> float:
    """Nanoseconds per call over n calls of once()."""
    start = time.perf_counter_ns()
    for _ in range(n):
        once()
    return (time.perf_counter_ns() - start) / n


def measure(name: str, once, engine: str = "python") -> float:
    t0 = time.perf_counter()
    previous = timed(20, once)
    while True:
        chunk = max(20, round(50e6 / previous))
        current = timed(chunk, once)
        settled = abs(current - previous) <= 0.1 * previous
        previous = current
        elapsed = time.perf_counter() - t0
        if (settled and elapsed >= WARMUP_SECONDS) or elapsed >= 10 * WARMUP_SECONDS:
            break
    warmup = time.perf_counter() - t0
    per_batch = max(1, round(SECONDS * 1e9 / previous / BATCHES))
    batches = [timed(per_batch, once) for _ in range(BATCHES)]
    ns = statistics.median(batches)
    log(
        f"bench {engine} {name}: warm-up {warmup:.2f} s, {BATCHES}x{per_batch} calls, "
        f"median {ns / 1e3:.1f} µs, mean {statistics.fmean(batches) / 1e3:.1f} µs, "
        f"batches {' '.join(f'{b / 1e3:.1f}' for b in batches)} µs"
    )
    return ns


def per_call(op: str, ns: float, engine: str = "python") -> None:
    out({"engine": engine, "op": op, "ns_per_call": round(ns, 1), "calls_per_sec": round(1e9 / ns)})


def main() -> None:
    root = Path(__file__).resolve().parents[3]
    with open(root / "tests" / "bench" / "requests.json", encoding="utf-8") as f:
        requests = json.load(f)
    # One compact JSON text per op, keys in the file's order.
    texts = {op: json.dumps(requests[op], ensure_ascii=False, separators=(",", ":")) for op in OPS}

    module = toolerr.default()  # the module the module-level API uses: the raw engine
    if not module.wait_compiled(120):
        raise SystemExit("bench: the raw engine's Cranelift compile did not end")
    extism = toolerr.Toolerr(engine="extism")
    for engine, plugin in (("python", module), ("python-extism", extism)):
        log(f"bench {engine}: engine {plugin.engine}, compiler {plugin.compiler}")
        for op in OPS:
            text = texts[op]
            response = json.loads(plugin.call(op, text))  # a bad request raises here
            log(f"bench {engine} {op}: request {len(text.encode())} bytes, response keys {','.join(response)}")
            call = plugin.call
            per_call(op, measure(op, lambda: call(op, text), engine), engine)
    extism.close()

    req = requests["tool_error"]
    kwargs = {
        "suggestion": req.get("suggestion"),
        "available_actions": req.get("availableActions"),
        "details": req.get("details"),
    }
    result = toolerr.tool_error(req["code"], req["message"], **kwargs)
    raw = json.loads(module.call("tool_error", texts["tool_error"]))
    if result.content[0].text != raw["content"][0]["text"]:
        raise SystemExit("bench: tool_error() and the raw call render different envelopes")
    tool_error = toolerr.tool_error
    per_call("tool_error_api", measure("tool_error_api", lambda: tool_error(req["code"], req["message"], **kwargs)))

    for engine, name in (("raw", "python"), ("extism", "python-extism")):
        ms = []
        for _ in range(COLD_LOADS):
            gc.collect()
            start = time.perf_counter_ns()
            fresh = toolerr.Toolerr(engine=engine)
            fresh.call("tool_error", texts["tool_error"])
            ms.append((time.perf_counter_ns() - start) / 1e6)
            fresh.close()
            del fresh
        log(f"bench {name} cold_start: {' '.join(f'{x:.1f}' for x in ms)} ms")
        out({"engine": name, "op": "cold_start", "ms": round(statistics.median(ms), 1)})


if __name__ == "__main__":
    main()
