"""The stdio gate in the Python binding: ``gate(line)`` on bytes as read,
``gated_stdio()`` (the streams the SDK's ``stdio_server`` takes) in front of
a real low-level ``Server`` and a healed ``MCPServer``, and heal's answer to
arguments too large to check. Expected answers come from ``gate()`` itself
(the module's rule, which the vectors check): these tests check what the
binding does with a verdict, not the module's texts.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import anyio
import mcp_types as types
import pytest
import toolerr
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from pydantic import Field

from vectors import load_cases

INIT = b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


def call_line(id_: str, args: str, tool: str = "t") -> bytes:
    return ('{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' % (id_, tool, args)).encode()


def test_gate_reads_bytes_that_are_not_utf8() -> None:
    assert toolerr.gate(b'{"jsonrpc":"2.0","id":1,"method":"ping"}') == toolerr.GateVerdict("pass")
    meta = b'{"jsonrpc":"2.0","method":"m","params":{"s":"a\xffb"}}'
    assert toolerr.gate(meta) == toolerr.GateVerdict("rewrite", line='{"jsonrpc":"2.0","method":"m","params":{"s":"a\ufffdb"}}')
    answered = toolerr.gate(call_line("3", '{"s":"?"}').replace(b"?", b"\xc0"))
    assert answered.verdict == "answer" and answered.response is not None
    response = json.loads(answered.response)
    assert response["id"] == 3 and response["result"]["isError"] is True
    assert "the byte 0xc0" in response["result"]["content"][0]["text"]
    assert toolerr.gate(b"   ") == toolerr.GateVerdict("ignore", reason="blank")


def test_gate_sends_a_line_over_the_limit_as_its_length_and_head() -> None:
    line = call_line('"big"', '{"s":"%s"}' % ("a" * (5 << 20)))
    head = b"%d\n" % len(line) + line[: toolerr.GATE_HEAD_BYTES]
    assert toolerr.gate(line) == toolerr.GateVerdict(**json.loads(toolerr.call("gate", head)))
    response = json.loads(toolerr.gate(line).response or "")
    assert response["id"] == "big"
    assert f"a message of {len(line)} bytes" in response["result"]["content"][0]["text"]


def test_arguments_too_large_is_the_gates_answer_to_a_message_of_that_size() -> None:
    size = 4194300
    line = b'{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"billing.get_invoice","arguments":"' + b"x" * (size - 2) + b'"}}'
    assert toolerr.arguments_too_large("billing.get_invoice", size) == json.loads(toolerr.gate(line).response or "")["result"]


def test_every_line_the_gate_hands_on_is_a_message_the_sdk_reads() -> None:
    """The SDK's stdio transport turns a line its adapter refuses into an
    exception, which the session answers with nothing."""
    checked = 0
    for case in load_cases():
        if case.export != "gate" or case.output is None:
            continue
        line = case.request()
        if b"\n" in line:
            continue  # the head of a line over the limit
        verdict = toolerr.gate(line)
        if verdict.verdict not in ("pass", "rewrite"):
            continue
        text = verdict.line if verdict.verdict == "rewrite" and verdict.line is not None else line.decode("utf-8")
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)  # raises on a refusal
        checked += 1
    assert checked >= 30


class Wire:
    """A client's side of gated stdio streams: lines in through a pipe (kept
    open until the last request is answered: at its end the SDK ends the
    session, calls in flight included), lines out."""

    def __init__(self, lines: list[bytes]) -> None:
        read_fd, self._write_fd = os.pipe()
        self.stdin = os.fdopen(read_fd, "rb")
        os.write(self._write_fd, b"".join(line + b"\n" for line in lines))
        self.stdout = io.BytesIO()

    def close_when(self, last_id: bytes) -> None:
        if b'"id":%s,' % last_id in self.stdout.getvalue():
            os.close(self._write_fd)
            self._write_fd = -1

    def answers(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.getvalue().splitlines()]


def run_lowlevel(wire: Wire, last_id: bytes) -> None:
    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(params.arguments))])

    server = Server("gated", on_call_tool=call_tool)

    async def close_after_the_last_answer() -> None:
        while wire._write_fd >= 0:
            wire.close_when(last_id)
            await anyio.sleep(0.01)

    async def serve() -> None:
        async with toolerr.gated_stdio(wire.stdin, wire.stdout) as (stdin, stdout):
            async with stdio_server(stdin, stdout) as (read_stream, write_stream), anyio.create_task_group() as tg:
                tg.start_soon(close_after_the_last_answer)
                with anyio.move_on_after(60):
                    await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)


def test_gated_stdio_answers_what_pydantic_refuses_with_the_gates_answer() -> None:
    hostile = [
        call_line("10", '{"id":1e400}'),
        call_line("11", '{"id":%s%s}' % ("[" * 300, "]" * 300)),
        call_line('"s"', '{"id":"\\ud800"}'),
        call_line("12", '"inv_001"'),
        b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":13,"method":"ping","params":[1]}',
        b"not json",
    ]
    wire = Wire([INIT, INITIALIZED, *hostile, call_line("99", '{"id":"inv_001"}')])
    run_lowlevel(wire, b"99")
    answers = wire.answers()
    by_id = {json.dumps(a.get("id")): a for a in answers}
    for line in hostile[:-1]:
        verdict = toolerr.gate(line)
        assert verdict.verdict == "answer", line[:60]
        want = json.loads(verdict.response or "")
        assert by_id[json.dumps(want["id"])] == want
    assert by_id["99"]["result"]["content"][0]["text"] == '{"id": "inv_001"}'
    assert len(answers) == 1 + len(hostile) - 1 + 1  # initialize, every request, the last call


def test_heal_serves_run_behind_the_gate(tmp_path: Path) -> None:
    """server.run() of a healed MCPServer, in a child process on real pipes."""
    script = tmp_path / "server.py"
    script.write_text(
        "from typing import Annotated\n"
        "from pydantic import Field\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "import toolerr\n"
        "server = MCPServer('healed', log_level='WARNING')\n"
        "@server.tool(name='t')\n"
        "def t(id: Annotated[str, Field(pattern=r'^inv_[0-9]{3}$')]) -> str:\n"
        "    return id\n"
        "toolerr.heal(server)\n"
        "server.run()\n",
        encoding="utf-8",
    )
    hostile = [call_line("10", '{"id":1e400}'), call_line("11", '{"id":"\\udc00"}'), b'{"jsonrpc":"2.0","id":12,"method":"ping","extra":1}']
    env = {k: v for k, v in os.environ.items() if k != toolerr.WASI_OUTPUT_VARIABLE}
    child = subprocess.Popen(
        [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert child.stdin is not None and child.stdout is not None
    # stdin stays open until the last answer: at its end the SDK ends the
    # session, calls in flight included.
    child.stdin.write(b"".join(line + b"\n" for line in [INIT, INITIALIZED, *hostile, call_line("99", '{"id":"inv_001"}')]))
    child.stdin.flush()
    answers: dict[str, Any] = {}
    try:
        while "99" not in answers:
            line = child.stdout.readline()
            assert line, "the server ended its output before answering every request"
            answer = json.loads(line)
            answers[json.dumps(answer.get("id"))] = answer
    finally:
        child.stdin.close()
        child.wait(timeout=60)
    for line in hostile:
        want = json.loads(toolerr.gate(line).response or "")
        assert answers[json.dumps(want["id"])] == want
    assert answers["99"]["result"]["content"][0]["text"] == "inv_001"


async def _heal_too_large() -> dict[str, Any]:
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("healed", log_level="WARNING")

    @server.tool(name="t")
    def t(id: Annotated[str, Field(pattern=r"^inv_[0-9]{3}$")]) -> str:  # noqa: A002 - the tool's argument
        return id

    toolerr.heal(server)
    async with Client(server) as client:
        # Within the gate's limits; over the module's beside pydantic's errors.
        result = await client.call_tool("t", {"id": "c" * ((4 << 20) - 200)})
    return {"content": [c.model_dump() for c in result.content], "isError": result.is_error}


def test_heal_answers_arguments_too_large_to_render_with_the_gates_error() -> None:
    got = anyio.run(_heal_too_large)
    size = len(json.dumps({"id": "c" * ((4 << 20) - 200)}, separators=(",", ":")).encode())
    want = toolerr.arguments_too_large("t", size)
    assert got["isError"] is True
    assert got["content"][0]["text"] == want["content"][0]["text"]


@pytest.mark.parametrize("chunk", [1, 7, 65536])
def test_lines_are_read_whole_and_bounded(chunk: int) -> None:
    from toolerr._stdio import _Lines

    class Trickle(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self.data = data

        def readable(self) -> bool:
            return True

        def readinto(self, b: Any) -> int:
            n = min(chunk, len(b), len(self.data))
            b[:n], self.data = self.data[:n], self.data[n:]
            return n

    # A limit of 1000 bytes: a longer line keeps 1001 of them (the gate
    # sends at most GATE_HEAD_BYTES of a head).
    big = bytes(range(256)) * 12
    lines = _Lines(io.BufferedReader(Trickle(b"a\n\n" + big.replace(b"\n", b"-") + b"\nlast")), 1000)
    assert lines.next() == (b"a", 1)
    assert lines.next() == (b"", 0)
    assert lines.next() == (big.replace(b"\n", b"-")[:1001], len(big))
    assert lines.next() == (b"last", 4)
    assert lines.next() is None


class _Recorder(io.BytesIO):
    """A stdout that records what reached it at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[bytes] = []

    def flush(self) -> None:
        self.flushed.append(self.getvalue())


def test_gated_stdout_keeps_writes_until_a_flush_and_orders_answers_after_them() -> None:
    async def run() -> _Recorder:
        wire = _Recorder()
        async with toolerr.gated_stdio(io.BytesIO(), wire) as (_, stdout):
            await stdout.write('{"a":1}\n')
            assert wire.getvalue() == b"", "a write reaches the wire before its flush"
            await stdout.flush()
            await stdout.write('{"b":2}\n')
            await stdout.answer('{"c":3}')
            await stdout.flush()
        return wire

    wire = anyio.run(run)
    assert wire.flushed == [b'{"a":1}\n', b'{"a":1}\n{"b":2}\n{"c":3}\n', b'{"a":1}\n{"b":2}\n{"c":3}\n']
