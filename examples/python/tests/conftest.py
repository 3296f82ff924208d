"""What the example servers' tests share: the anyio backend, a client
session with a Python server over stdio, and a result's text blocks."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import TextContent

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def stdio_session(server: Path) -> AsyncIterator[ClientSession]:
    """An initialized client session with the Python server at server."""
    params = StdioServerParameters(command=sys.executable, args=[str(server)], cwd=str(ROOT))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def texts(result: Any) -> list[str]:
    """Every content block's text; a block that is not text fails."""
    out = []
    for block in result.content:
        assert isinstance(block, TextContent), block
        out.append(block.text)
    return out
