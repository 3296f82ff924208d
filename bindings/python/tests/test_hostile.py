"""The hostile ABI requests of tests/hostile/corpus.json, sent as raw request bytes through ``call``.

Each one gets the corpus's outcome (a typed refusal, or an answer) within its bound, and the very
next valid call on the same module still answers exactly, on every way the binding runs the module
(engines.VARIANTS).
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import pytest
import toolerr
from engines import VARIANTS, open_module

CORPUS: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[3] / "tests" / "hostile" / "corpus.json").read_text(encoding="utf-8")
)


def run(spec: dict[str, Any]) -> str:
    """One {repeat, times, separator} run of a request; "{i}" is the run's index."""
    assert set(spec) <= {"repeat", "times", "separator"}, spec
    unit, times, separator = spec["repeat"], spec["times"], spec.get("separator", "")
    if "{i}" not in unit:
        return separator.join([unit] * times) if separator else unit * times
    return separator.join(unit.replace("{i}", str(i)) for i in range(times))


def build(spec: Any) -> bytes:
    """A corpus request or response as bytes: a string's text, base64, or parts."""
    if isinstance(spec, str):
        return spec.encode("utf-8")
    if "base64" in spec:
        return base64.b64decode(spec["base64"])
    out = "".join(p if isinstance(p, str) else run(p) for p in spec["parts"]).encode("utf-8")
    if "size" in spec:
        assert len(out) == spec["size"], (len(out), spec["size"])
    return out


def problem(case: dict[str, Any], out: str | None, error: BaseException | None) -> str | None:
    """How an outcome differs from the case's, or None. Every engine here is wasm, so a
    tolerated TRAP is allowed."""
    if error is not None and not isinstance(error, toolerr.ToolerrError):
        return f"untyped error {error!r}"
    if isinstance(error, toolerr.ToolerrError) and error.code in case.get("tolerate", []):
        return None
    want = case.get("error")
    if want is not None:
        if not isinstance(error, toolerr.ToolerrError):
            return f"a response ({(out or '')[:100]}), want {want['code']}"
        if error.code != want["code"]:
            return f"{error.code} {error.message[:300]}, want {want['code']}"
        if "message" in want and error.message != want["message"]:
            return f"message {error.message!r}, want {want['message']!r}"
        if "messageContains" in want and want["messageContains"] not in error.message:
            return f"message {error.message!r}, want one containing {want['messageContains']!r}"
        if "messagePrefix" in want and not error.message.startswith(want["messagePrefix"]):
            return f"message {error.message!r}, want one starting {want['messagePrefix']!r}"
        return None
    if isinstance(error, toolerr.ToolerrError):
        return f"{error.code} {error.message[:300]}, want a response"
    assert out is not None
    if not out.startswith("{"):
        return f"response is not a JSON object: {out[:100]}"
    json.loads(out)
    if "response" in case and out.encode("utf-8") != build(case["response"]):
        return f"response {out[:300]}, want {build(case['response'])[:300]!r}"
    return None


@pytest.mark.parametrize("variant", VARIANTS)
def test_hostile_requests_get_the_corpus_outcome_in_bound_and_the_module_keeps_serving(variant: str) -> None:
    # One instance: the next call runs where the hostile one did. The per-call timeout is the
    # corpus's longest bound: a loaded machine then gives a late answer, which each case's bound
    # judges, rather than a TIMEOUT.
    longest = max([CORPUS["maxSeconds"]] + [case.get("maxSeconds", 0) for case in CORPUS["cases"]])
    module = open_module(variant, max_instances=1, timeout_ms=int(longest * 1000))
    nxt = CORPUS["next"]
    next_request, want_next = build(nxt["request"]), build(nxt["response"]).decode("utf-8")
    failures: list[str] = []
    count = 0
    for case in CORPUS["cases"]:
        name = case["description"]
        request = build(case["request"])
        count += 1
        started = time.monotonic()
        out: str | None = None
        error: BaseException | None = None
        try:
            out = module.call(case["export"], request)
        except Exception as exc:  # noqa: BLE001 - checked below
            error = exc
        elapsed = time.monotonic() - started
        bound = case.get("maxSeconds", CORPUS["maxSeconds"])
        if elapsed > bound:
            failures.append(f"{name}: took {elapsed:.1f} s, over {bound}")
        found = problem(case, out, error)
        if found is not None:
            failures.append(f"{name}: {found}")
        if isinstance(error, toolerr.ToolerrError) and error.code == "TRAP":
            print(f"{name}: TRAP (tolerated)")
        assert module.call(nxt["export"], next_request) == want_next, f"after {name}"
    print(f"hostile requests sent: {count}")
    assert count == len(CORPUS["cases"])
    assert not failures, "\n".join(failures)
