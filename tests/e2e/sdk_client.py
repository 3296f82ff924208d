"""The MCP Python SDK's own high-level Client, as an application uses it,
run by tests/e2e against a server command (`toolerr proxy -- ...`):

    .venv/bin/python tests/e2e/sdk_client.py MODE COMMAND [ARG...]
    .venv/bin/python tests/e2e/sdk_client.py MODE URL

MODE is the Client's: "auto" (the default, which speaks the stateless
protocol, 2026-07-28, to a server that has it), "legacy" (the handshake) or
a protocol version to speak without asking (2026-07-28). A URL is a
Streamable HTTP server's.
It reads the calls to make from stdin, one JSON array of [tool, arguments]
pairs, and writes one JSON line for the protocol it speaks, then one for
each call: what the Client returned, or the exception it raised.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from mcp import Client, StdioServerParameters


async def main(mode: str, command: list[str], calls: list[tuple[str, dict[str, Any]]]) -> None:
    server: StdioServerParameters | str = command[0]
    if not command[0].startswith(("http://", "https://")):
        server = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(server, mode=mode) as client:
        print(json.dumps({"protocolVersion": client.protocol_version}), flush=True)
        for tool, args in calls:
            try:
                result = await client.call_tool(tool, args)
            except Exception as exc:  # what the test reports: the Client refused the answer
                print(json.dumps({"tool": tool, "raised": f"{type(exc).__name__}: {exc}"}), flush=True)
                continue
            texts = [block.text for block in result.content if block.type == "text"]
            print(json.dumps({"tool": tool, "isError": result.is_error, "texts": texts}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:], json.load(sys.stdin)))
