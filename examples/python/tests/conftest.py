"""What the example servers' tests share: the anyio backend, a client
session with a Python server over stdio, a result's text blocks, and the
billing demo's shared files (the scenario, the schemas, the lockfile)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import TextContent

ROOT = Path(__file__).resolve().parents[3]
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
async def stdio_session(server: Path, errlog: TextIO = sys.stderr) -> AsyncIterator[ClientSession]:
    """An initialized client session with the Python server at server, whose
    stderr goes to errlog."""
    params = StdioServerParameters(command=sys.executable, args=[str(server)], cwd=str(ROOT))
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def texts(result: Any) -> list[str]:
    """Every content block's text; a block that is not text fails."""
    out = []
    for block in result.content:
        assert isinstance(block, TextContent), block
        out.append(block.text)
    return out
