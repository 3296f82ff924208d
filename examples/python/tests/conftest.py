"""What the example servers' tests share: the anyio backend, a client
session with a server over stdio, the billing demo's shared files (the
scenario, the schemas, the lockfile), and the binding's test helpers for
MCP servers (bindings/python/tests/mcp_testing.py: a result's text blocks,
a raw JSON-RPC session)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[3]
sys.path.append(str(ROOT / "bindings" / "python" / "tests"))
from mcp_testing import exchange, texts, tools_call  # noqa: E402  (re-exported to the tests)

SCHEMAS: dict[str, Any] = json.loads((ROOT / "examples" / "schemas.json").read_text(encoding="utf-8"))
LOCKFILE: Any = json.loads((ROOT / "examples" / "billing.lock.json").read_text(encoding="utf-8"))
# Sessions of calls, each with its arguments, its expectation (written by
# hand) and its exact answer (rewritten from the Go server by
# `go test ./examples/go -run TestBilling_Scenario -update`): every server
# must answer them alike.
SCENARIO: dict[str, Any] = json.loads((ROOT / "examples" / "scenario.json").read_text(encoding="utf-8"))


def call_named(name: str) -> dict[str, Any]:
    """A call of the scenario, by its name."""
    for session in SCENARIO["sessions"]:
        for call in session["calls"]:
            if call["name"] == name:
                return call
    raise LookupError(f"examples/scenario.json has no call named {name!r}")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def session_with(params: StdioServerParameters, errlog: TextIO = sys.stderr) -> AsyncIterator[ClientSession]:
    """An initialized client session with the server params start, whose
    stderr goes to errlog."""
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def stdio_session(server: Path, errlog: TextIO = sys.stderr) -> AbstractAsyncContextManager[ClientSession]:
    """An initialized client session with the Python server at server, whose
    stderr goes to errlog."""
    return session_with(StdioServerParameters(command=sys.executable, args=[str(server)], cwd=str(ROOT)), errlog)
