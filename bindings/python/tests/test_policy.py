"""The host policy of abi/ABI.md ("Host policy"): this binding's defaults are the table's.

The table is the one statement of the defaults every toolerr host applies (Go, Node, Python, Rust);
each host's tests read it. Here: the values, and that a Toolerr made without options applies them, on
every way the binding runs the module (engines.VARIANTS: the raw engine on Winch's code and on
Cranelift's, and the extism engine).
"""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import toolerr
from engines import VARIANTS, open_module
from toolerr import _abi, _engine

ABI_MD = Path(__file__).resolve().parents[3] / "abi" / "ABI.md"


def policy_table() -> list[list[str]]:
    """The rows of the first table of ABI.md's "## Host policy" section, as cells."""
    text = ABI_MD.read_text(encoding="utf-8")
    _, found, section = text.partition("\n## Host policy\n")
    assert found, 'ABI.md has no "## Host policy" section'
    section = section.split("\n## ", 1)[0]
    rows: list[list[str]] = []
    in_table = False
    for line in section.split("\n"):
        if not line.startswith("|"):
            if in_table:
                break  # the first table ends
            continue
        in_table = True
        cells = [c.strip() for c in line.strip().strip("|").split("|")]  # no cell holds a '|'
        assert len(cells) == 4, f"host policy row {line!r} has {len(cells)} cells, want 4"
        if cells[0] == "rule" or cells[0].startswith("---"):
            continue
        rows.append(cells)
    assert rows, "ABI.md's host policy table has no rows"
    return rows


def policy_defaults() -> dict[str, int]:
    """The named rows: `name` to its default, a whole number."""
    out: dict[str, int] = {}
    for rule, name, default, _ in policy_table():
        if not name:
            assert not default, f"host policy row {rule!r} has a default but no name"
            continue
        match = re.fullmatch(r"`([A-Za-z]+)`", name)
        assert match, f"host policy row {rule!r}: name {name!r} is not one `identifier`"
        assert default.isdigit(), f"host policy row {rule!r}: default {default!r} is not a whole number"
        out[match.group(1)] = int(default)
    return out


def test_defaults_are_the_abi_table() -> None:
    init = inspect.signature(toolerr.Toolerr.__init__).parameters
    assert init["memory_max_pages"].default == _abi.POLICY_MEMORY_MAX_PAGES
    assert init["timeout_ms"].default == _abi.POLICY_CALL_TIMEOUT_MS
    mine = {
        "memoryMaxPages": _abi.POLICY_MEMORY_MAX_PAGES,
        "callTimeoutMs": _abi.POLICY_CALL_TIMEOUT_MS,
        "maxRequestBytes": toolerr.default().max_request_bytes,  # from the module's describe
        "retireMemoryPages": _abi.POLICY_RETIRE_MEMORY_PAGES,
    }
    assert policy_defaults() == mine
    assert _abi.POLICY_MAX_REQUEST_BYTES == toolerr.default().max_request_bytes


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_request_over_the_limit_is_refused_before_the_module(variant: str) -> None:
    module = open_module(variant, max_instances=1)
    limit = module.max_request_bytes
    body = '{"text":"' + "a" * (limit - 10) + '"}'
    with pytest.raises(toolerr.ToolerrError) as raised:
        module.call("parse", body)
    assert raised.value.code == "REQUEST_TOO_LARGE"
    assert raised.value.message == f"parse: request is {len(body)} bytes, over the limit of {limit}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_instance_is_retired_by_what_its_memory_grew_to(variant: str) -> None:
    """Not by the request's size: a 4 MB parse that grows memory little keeps its instance, a
    4 MB required_field that grows it past retireMemoryPages does not."""
    assert f"is over {_abi.MEMORY_CHECK_BYTES >> 10} KiB" in dict(
        (name.strip("`"), text) for _, name, _, text in policy_table() if name
    )["retireMemoryPages"]
    module = open_module(variant, max_instances=1)
    module.call("required_field", {"field": "id"})
    assert module.live_instances == 1, "a small request leaves its instance in the pool"
    module.call("parse", {"text": "&amp;" * 800_000})
    assert module.live_instances == 1, "a large request that grew memory little leaves its instance"
    module.call("required_field", {"field": "f" * 4_000_000})
    assert module.live_instances == 0, "the instance grown past retireMemoryPages is retired"
    module.call("required_field", {"field": "id"})
    assert module.live_instances == 1


def test_the_cap_is_the_modules_own_memory_maximum() -> None:
    wasm, _ = _engine.packaged_wasm()
    capped = _engine.with_memory_max(wasm, 300)
    assert len(capped) != len(wasm) or capped != wasm
    assert _engine.with_memory_max(capped, 9000) == capped, "a lower maximum the module declares is kept"


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_memory_cap_applies(variant: str) -> None:
    """An adversarial parse of 4 MiB answers under the default cap, and traps (the instance
    replaced, the next call answered) under a cap that leaves a new instance 1 MiB (16 pages)
    more than it starts with: not enough for the request, let alone its parse."""
    text = "<tool_error code='X'><message>m</message>" + "<detail key='v' k2='<detail key=' " * 120_000
    fresh = open_module(variant, max_instances=1)
    start = fresh.call_json("describe", {"memory": True})["memoryPages"]
    assert isinstance(start, int) and start > 0
    assert fresh.call_json("parse", {"text": text})["envelope"] is not None
    small = open_module(variant, max_instances=1, memory_max_pages=start + 16)
    with pytest.raises(toolerr.ToolerrError) as raised:
        small.call("parse", {"text": text})
    assert raised.value.code == "TRAP"
    assert raised.value.message.startswith("parse: the module trapped: ")
    assert small.live_instances == 0, "the instance that trapped is retired"
    assert small.call_json("required_field", {"field": "id"})["isError"] is True


#: A request some tens of times longer than TIMEOUT_MS on every engine (about a second on
#: Cranelift's code on a two-core machine): a tool_error of 199,990 numeric details, as
#: request text (encoding a dict that large takes a good part of a second itself).
SLOW = json.dumps({"code": "X", "message": "m", "details": {f"k{i}": i for i in range(199_990)}})
TIMEOUT_MS = 50


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_call_past_its_time_bound_is_a_timeout_and_its_instance_is_retired(variant: str) -> None:
    module = open_module(variant, max_instances=1, timeout_ms=TIMEOUT_MS)
    assert module.call_json("required_field", {"field": "id"})["isError"] is True
    assert module.live_instances == 1
    started = time.monotonic()
    with pytest.raises(toolerr.ToolerrError) as raised:
        module.call("tool_error", SLOW)
    elapsed = time.monotonic() - started
    assert (raised.value.code, raised.value.message) == ("TIMEOUT", "tool_error: the call ran out of time")
    # Interrupted, not left to run: the whole call takes about a second.
    assert elapsed < 0.5, f"TIMEOUT after {elapsed:.2f} s"
    assert module.live_instances == 0, "the instance that timed out is retired"
    assert module.call_json("required_field", {"field": "id"})["isError"] is True
    unbounded = open_module(variant, max_instances=1, timeout_ms=0)
    assert unbounded.call_json("tool_error", SLOW)["isError"] is True  # timeout_ms=0: no bound


def test_a_forked_child_keeps_the_time_bound() -> None:
    """A process forked after calls ran (a pre-forking server) has no ticker thread of its own at
    first: its first bounded call starts one, so its calls are still interrupted at their deadline."""
    code = textwrap.dedent(f"""
    import json, os, warnings
    import toolerr
    warnings.simplefilter("ignore")  # Python 3.12's warning on forking a process with threads
    module = toolerr.Toolerr(max_instances=1, timeout_ms={TIMEOUT_MS})
    module.call("required_field", {{"field": "id"}})  # the parent's ticker runs
    slow = json.dumps({{"code": "X", "message": "m", "details": {{f"k{{i}}": i for i in range(199_990)}}}})
    pid = os.fork()
    if pid == 0:
        try:
            module.call("tool_error", slow)
            os._exit(2)
        except toolerr.ToolerrError as e:
            os._exit(0 if e.code == "TIMEOUT" else 3)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert (out.returncode, out.stdout, out.stderr) == (0, "0\n", "")


def heavy_diff_request() -> dict:
    """The contract_diff vector every host sends forty times in a row: an 18 KB request refused at
    its work budget after allocating several megabytes inside the module."""
    vectors = json.loads((ABI_MD.parents[1] / "tests" / "vectors" / "v1" / "contract_diff.json").read_text("utf-8"))
    wanted = "error a long string among the shared subschemas: refused at the budget after megabytes of work (hosts send it forty times in a row)"
    (case,) = [c for c in vectors["cases"] if c["description"] == wanted]
    return case


@pytest.mark.parametrize("variant", VARIANTS)
def test_small_requests_that_grow_memory_retire_the_instance(variant: str) -> None:
    """Not only a call over 64 KiB is followed by a look at the memory: the raw engine reads it
    after every call, the Extism engine asks after a call of MEMORY_CHECK_MS or longer. Forty
    small requests in a row that each leave megabytes of garbage (collected only between calls)
    once grew an instance to a 2048-page cap, where a call that needed more trapped."""
    case = heavy_diff_request()
    request = json.loads(case["input"])
    assert len(case["input"]) < _abi.MEMORY_CHECK_BYTES
    module = open_module(variant, max_instances=1, memory_max_pages=2048)
    for _ in range(40):
        with pytest.raises(toolerr.ToolerrError) as raised:
            module.call("contract_diff", request)
        assert (raised.value.code, raised.value.message) == (case["error"]["code"], case["error"]["message"])
