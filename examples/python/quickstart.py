"""The quickstart: an MCP server written the way the MCP Python SDK (mcp 2.x)
teaches, plus one line of toolerr.

The SDK checks the arguments against the type hints; toolerr.heal(server)
makes every failure reach the model as an envelope rendered by toolerr.wasm:
arguments the signature rejects become a validation error naming the field,
the raised toolerr error NOT_FOUND arrives intact, the exporter's
RuntimeError becomes INTERNAL_ERROR naming the tool, and a call to a tool
the server does not have becomes UNKNOWN_ACTION listing the tools it has.

Run it from the repository root (it speaks MCP on stdin/stdout):
    .venv/bin/python examples/python/quickstart.py
"""

import json
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

import toolerr

INVOICES = {
    "inv_001": {"id": "inv_001", "status": "open", "amount": 120.5, "currency": "EUR"},
    "inv_002": {"id": "inv_002", "status": "paid", "amount": 75, "currency": "USD"},
    "inv_003": {"id": "inv_003", "status": "open", "amount": 9.99, "currency": "USD"},
}

server = MCPServer("billing", log_level="WARNING")  # the SDK logs every failed call at INFO on stderr otherwise


@server.tool(name="billing.get_invoice")
def get_invoice(id: Annotated[str, Field(pattern=r"^inv_[0-9]{3}$")]) -> str:  # noqa: A002 - the tool's argument
    """Get one invoice by its ID."""
    invoice = INVOICES.get(id)
    if invoice is None:
        raise (
            toolerr.error("NOT_FOUND", "No invoice with that ID")
            .suggest("List invoices first, then retry with a real ID")
            .actions("billing.list_invoices")
            .details(requestedId=id)
        )
    return json.dumps(invoice, separators=(",", ":"))


@server.tool(name="billing.export_invoices")
def export_invoices() -> str:
    """Export every invoice."""
    raise RuntimeError("exporter backend unavailable")  # stands for a dependency that fails


toolerr.heal(server)  # the one line

if __name__ == "__main__":
    server.run()
