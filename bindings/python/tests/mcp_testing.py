"""What tests of Python MCP servers need, here and in examples/python/tests
(whose conftest puts this folder on sys.path): a result's texts, and a raw
JSON-RPC session with a server over stdio, for what must hold byte for
byte."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from mcp_types import TextContent

#: The MCP handshake exchange sends before its requests.
HANDSHAKE: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def texts(result: Any) -> list[str]:
    """Every content block's text; a block that is not text fails."""
    out = []
    for block in result.content:
        assert isinstance(block, TextContent), block
        out.append(block.text)
    return out


def tools_call(id_: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tools/call request."""
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def exchange(server: Path, *args: str, requests: list[dict[str, Any]], cwd: Path) -> tuple[dict[int, str], str]:
    """Start the Python server with args, send the handshake and requests
    one at a time (waiting for the answer to each that has an id), and
    return each answer's raw line by id, and everything the server wrote on
    stderr."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        proc = subprocess.Popen([sys.executable, str(server), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=errlog, text=True, encoding="utf-8", cwd=cwd)
        assert proc.stdin is not None and proc.stdout is not None
        lines: queue.Queue[str] = queue.Queue()  # "" once the server ends its output

        def read(stdout: Any) -> None:
            for line in stdout:
                lines.put(line)
            lines.put("")

        threading.Thread(target=read, args=(proc.stdout,), daemon=True).start()
        answers: dict[int, str] = {}
        try:
            for request in HANDSHAKE + requests:
                proc.stdin.write(json.dumps(request) + "\n")
                proc.stdin.flush()
                while "id" in request and request["id"] not in answers:
                    line = lines.get(timeout=60)
                    assert line, "the server ended its output before answering"
                    message = json.loads(line)
                    if "id" in message:
                        answers[message["id"]] = line
        finally:
            proc.stdin.close()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        errlog.seek(0)
        return answers, errlog.read()
