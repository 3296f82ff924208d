"""The stdio gate's rules, examples/gate-cases.json, through this server's gate (stdio_gate.py);
the Go, Node and Rust servers' tests run the same cases through theirs."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

EXAMPLES = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(EXAMPLES / "python"))

from stdio_gate import GatedStdin, admit, gate_marker  # noqa: E402 (after the path above)

CASES: list[dict[str, Any]] = json.loads((EXAMPLES / "gate-cases.json").read_text(encoding="utf-8"))["cases"]


def build(spec: Any) -> bytes:
    """A case's line: a string, or parts (strings, repeat runs, bytes)."""
    if isinstance(spec, str):
        return spec.encode("utf-8")
    out = b""
    for part in spec:
        if isinstance(part, str):
            out += part.encode("utf-8")
        elif "repeat" in part:
            out += (part["repeat"] * part["times"]).encode("utf-8")
        else:
            out += bytes(part["bytes"])
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_gate_case(case: dict[str, Any]) -> None:
    out, why = admit(build(case["line"]))
    if "why" in case:
        assert (out, why) == (None, case["why"])
    else:
        assert why == ""
        assert out == build(case["want"])


def test_the_gated_stream_yields_text_lines_and_notes_the_ignored_ones() -> None:
    lines = [b'{"jsonrpc":"2.0","method":"a"}\n', b"nope\n", b'{"jsonrpc":"2.0","method":"b","params":{"s":"\\ud800"}}\n', b"{}"]
    notes: list[str] = []

    async def source() -> AsyncIterator[bytes]:
        for line in lines:
            yield line

    async def collect() -> list[str]:
        return [line async for line in GatedStdin(source(), notes.append)]

    got = anyio.run(collect)
    assert got == ['{"jsonrpc":"2.0","method":"a"}\n', '{"jsonrpc":"2.0","method":"b","params":{"s":"\\ufffd"}}\n']
    assert notes == [
        "billing-python: ignored a line of 5 bytes from the client: not JSON",
        "billing-python: ignored a line of 2 bytes from the client: not a JSON-RPC 2.0 message",
    ]


def test_the_handler_reads_the_markers_and_nothing_else() -> None:
    assert gate_marker({"toolerr.gate": "too_deep"}) == ("too_deep", None)
    assert gate_marker({"toolerr.gate": "not_object", "arguments": [1]}) == ("not_object", [1])
    for args in [{"toolerr.gate": "too_deep", "x": 1}, {"toolerr.gate": "other"}, {"toolerr.gate": "not_object"}, {"id": "toolerr.gate"}, [1], None]:
        assert gate_marker(args) is None, args
