"""The stdio gate (abi/ABI.md, "The stdio gate"): :func:`gate` gives the
module's verdict on one line a client sent, and :func:`gated_stdio` puts it
in front of a stdio MCP server, as the streams the SDK's ``stdio_server``
takes::

    async with toolerr.gated_stdio() as (stdin, stdout):
        async with stdio_server(stdin, stdout) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, init_options)

:func:`toolerr.heal` does that for an ``MCPServer``'s ``run()``. Every line
goes to the gate before the SDK reads it: a line the gate passes or
rewrites reaches the SDK, a line it answers gets the gate's JSON-RPC
response on stdout (and never reaches the SDK), a line it ignores is noted
on the ``toolerr`` logger. So no line silences the session, and arguments
too large, too deep, out of range, not valid Unicode or not an object reach
the model as the ``<validation_error>`` every toolerr host writes.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import IO, Any, Literal

import anyio
import anyio.to_thread

from ._abi import GATE_HEAD_BYTES, GateResponse, GateVerdict as Verdict
from ._engine import Toolerr, default, encode_request

__all__ = ["GATE_HEAD_BYTES", "GateVerdict", "arguments_too_large", "gate", "gated_stdio"]

logger = logging.getLogger("toolerr")


@dataclass(frozen=True)
class GateVerdict:
    """The gate's verdict on one line: ``pass`` (hand it on), ``rewrite``
    (hand on ``line`` instead), ``answer`` (write ``response`` and a line
    feed back to the client instead) or ``ignore`` (``reason`` says why)."""

    verdict: Verdict
    line: str | None = None
    response: str | None = None
    reason: str | None = None


def _module(module: Toolerr | None) -> Toolerr:
    return module if module is not None else default()


def _gate_head(module: Toolerr, total: int, head: bytes) -> GateVerdict:
    request = head
    if total > module.max_request_bytes:
        request = b"%d\n" % total + head[:GATE_HEAD_BYTES]
    answer: GateResponse = module.call_json("gate", request)
    return GateVerdict(
        verdict=answer["verdict"],
        line=answer.get("line"),
        response=answer.get("response"),
        reason=answer.get("reason"),
    )


def gate(line: bytes | str, *, module: Toolerr | None = None) -> GateVerdict:
    """The gate's verdict on ``line``, one line a client sent without its line
    feed: its bytes as read (a str is sent as UTF-8, a lone surrogate
    becoming U+FFFD: it cannot carry what is not UTF-8). A line over the request limit is sent as its length
    and its first :data:`GATE_HEAD_BYTES` bytes, as the ABI asks."""
    raw = encode_request("gate", line) if isinstance(line, str) else bytes(line)
    return _gate_head(_module(module), len(raw), raw)


def arguments_too_large(tool: str, size: int, *, module: Toolerr | None = None) -> Any:
    """The gate's ``<validation_error>`` for a tool's arguments too large to
    check beside their schema (what :func:`toolerr.heal` answers when the
    module refuses the check with REQUEST_TOO_LARGE), as the module's
    CallToolResult JSON; ``size`` is their JSON text in bytes. The error
    measures the tools/call message that carries them."""
    import json

    head = b'{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":%s,"arguments":' % json.dumps(
        tool, ensure_ascii=False
    ).encode("utf-8", "backslashreplace")
    verdict = _module(module).call_json("gate", b"%d\n" % (len(head) + size + 2) + head)
    if verdict.get("verdict") != "answer":
        from ._errors import ToolerrError

        raise ToolerrError("INTERNAL", f"arguments too large: the gate gave {verdict!r}")
    return json.loads(verdict["response"])["result"]


class _Lines:
    """Reads lines of a binary stream with bounded memory: of a line over the
    request limit only its first :data:`GATE_HEAD_BYTES` bytes are kept, and
    its length is counted to its end."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self._stream = stream
        self._limit = limit

    def next(self) -> tuple[bytes, int] | None:
        """The next line without its line feed and its length; None at the end."""
        head = bytearray()
        total = 0
        while True:
            chunk = self._stream.readline(64 * 1024)
            if not chunk:
                return (bytes(head), total) if total else None
            ended = chunk.endswith(b"\n")
            if ended:
                chunk = chunk[:-1]
            total += len(chunk)
            if len(head) <= self._limit:
                head += chunk[: self._limit + 1 - len(head)]
            if ended:
                return (bytes(head[:GATE_HEAD_BYTES]) if total > self._limit else bytes(head)), total


class _GatedStdout:
    """The client's stdout, shared by the SDK and the gate: each line is
    written whole under one lock (what ``stdio_server`` needs of its stdout:
    ``write`` and ``flush``).

    ``write`` keeps the text and ``flush`` writes what was kept and flushes
    it in one trip to a worker thread, where the SDK's own stdout makes one
    trip for each (a trip costs more than the write). Nothing reaches the
    wire before a flush either way: the SDK's stdout is buffered too, and
    flushes after every message."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = anyio.Lock()
        self._kept = bytearray()

    def _send(self, data: bytes) -> None:
        self._stream.write(data)
        self._stream.flush()

    async def write(self, text: str) -> int:
        data = text.encode("utf-8")
        async with self._lock:
            self._kept += data
        return len(text)

    async def flush(self) -> None:
        async with self._lock:
            data = bytes(self._kept)
            self._kept.clear()
            await anyio.to_thread.run_sync(self._send, data)

    async def answer(self, response: str) -> None:
        async with self._lock:
            # What the SDK wrote before goes first, as it would have.
            data = bytes(self._kept) + response.encode("utf-8") + b"\n"
            self._kept.clear()
            await anyio.to_thread.run_sync(self._send, data)


class _GatedStdin:
    """The lines the gate hands on, as ``stdio_server`` reads its stdin
    (``async for line in stdin``)."""

    def __init__(self, stream: IO[bytes], stdout: _GatedStdout, module: Toolerr) -> None:
        self._stream = stream
        self._stdout = stdout
        self._module = module
        self._lines = _Lines(stream, module.max_request_bytes)

    def __aiter__(self) -> _GatedStdin:
        return self

    def _next_judged(self) -> tuple[bytes, int, GateVerdict | Exception] | None:
        """The next line and the gate's verdict on it (or why there is none),
        in one trip to a worker thread: a trip costs more than the gate."""
        read = self._lines.next()
        if read is None:
            return None
        head, total = read
        try:
            return head, total, _gate_head(self._module, total, head)
        except Exception as exc:  # the module failed: the line cannot be judged
            return head, total, exc

    async def __anext__(self) -> str:
        while True:
            judged = await anyio.to_thread.run_sync(self._next_judged, abandon_on_cancel=True)
            if judged is None:
                raise StopAsyncIteration
            head, total, verdict = judged
            if isinstance(verdict, Exception):
                logger.warning("ignored a line of %d bytes from the client: the gate failed: %s", total, verdict)
                continue
            if verdict.verdict == "pass":
                return head.decode("utf-8", "replace") + "\n"
            if verdict.verdict == "rewrite" and verdict.line is not None:
                return verdict.line + "\n"
            if verdict.verdict == "answer" and verdict.response is not None:
                await self._stdout.answer(verdict.response)
                continue
            logger.warning("ignored a line of %d bytes from the client: %s", total, verdict.reason)


def _claimed(fd: int, stream: Any, mode: Literal["rb", "wb"]) -> tuple[IO[bytes], Callable[[], None] | None]:
    """The wire of a standard stream, claimed as the SDK's own ``stdio_server``
    claims it (fd 0 then reads the null device and fd 1 writes to stderr, so
    that a handler's stray print misses the wire), or the stream's buffer
    when this SDK has no such claim."""
    try:
        from mcp.server import stdio

        diversion = stdio._open_stdin_diversion if mode == "rb" else stdio._open_stdout_diversion
        wire, release = stdio._claim_fd(fd, stream, mode, diversion)
        return wire, release
    except (ImportError, AttributeError, TypeError):
        return stream.buffer, None


@asynccontextmanager
async def gated_stdio(
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    *,
    module: Toolerr | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """The client's stdin behind the gate and the stdout the SDK and the gate
    share, as ``mcp.server.stdio.stdio_server(stdin, stdout)`` takes them.

    ``stdin`` and ``stdout`` are binary streams (by default the process's,
    claimed as the SDK claims them); ``module`` the Toolerr whose gate
    judges the lines (by default the process-wide one, loaded on entry, in a
    worker thread: a module that cannot be loaded raises its
    :class:`ToolerrError` here, before any stream is claimed)."""
    gate_module = module if module is not None else await anyio.to_thread.run_sync(default)
    releases: list[Callable[[], None]] = []
    try:
        if stdin is None:
            stdin, release = _claimed(0, sys.stdin, "rb")
            if release is not None:
                releases.append(release)
        if stdout is None:
            stdout, release = _claimed(1, sys.stdout, "wb")
            if release is not None:
                releases.append(release)
        out = _GatedStdout(stdout)
        yield _GatedStdin(stdin, out, gate_module), out
    finally:
        for release in reversed(releases):
            with suppress(Exception):
                release()
