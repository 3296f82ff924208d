"""The quickstart with FastMCP: an MCP server written the way FastMCP's docs
teach (``FastMCP``, ``@mcp.tool``, type hints, ``mcp.run()``), plus one line
of toolerr.

FastMCP checks the arguments against the type hints; toolerr.heal(mcp) makes
every failure reach the model as an envelope rendered by toolerr.wasm:
arguments the signature rejects become a validation error naming the field,
the raised toolerr error NOT_FOUND arrives intact, the exporter's
RuntimeError becomes INTERNAL_ERROR naming the tool, and a call to a tool
the server does not have becomes UNKNOWN_ACTION listing the tools it has.
heal also keeps FastMCP's own log lines about those failures (a traceback
for the crash) off stderr; FastMCP's start-up banner and its INFO line
"Starting MCP server" are FastMCP's settings: show_banner=False and
log_level="WARNING" leave stderr empty.

Run it from the repository root (it speaks MCP on stdin/stdout):
    .venv/bin/python examples/python/quickstart_fastmcp.py
"""

from typing import Annotated, Any

from fastmcp import FastMCP
from pydantic import Field

import toolerr

INVOICES = {
    "inv_001": {"id": "inv_001", "status": "open", "amount": 120.5, "currency": "EUR"},
    "inv_002": {"id": "inv_002", "status": "paid", "amount": 75, "currency": "USD"},
    "inv_003": {"id": "inv_003", "status": "open", "amount": 9.99, "currency": "USD"},
}

mcp = FastMCP("billing")


@mcp.tool(name="billing.get_invoice")
def get_invoice(id: Annotated[str, Field(pattern=r"^inv_[0-9]{3}$")]) -> dict[str, Any]:  # noqa: A002 - the tool's argument
    """Get one invoice by its ID."""
    invoice = INVOICES.get(id)
    if invoice is None:
        raise (
            toolerr.error("NOT_FOUND", "No invoice with that ID")
            .suggest("List invoices first, then retry with a real ID")
            .actions("billing.list_invoices")
            .details(requestedId=id)
        )
    return invoice


@mcp.tool(name="billing.export_invoices")
def export_invoices() -> str:
    """Export every invoice."""
    raise RuntimeError("exporter backend unavailable")  # stands for a dependency that fails


toolerr.heal(mcp)  # the one line

if __name__ == "__main__":
    mcp.run(show_banner=False, log_level="WARNING")  # FastMCP prints a banner and logs its start on stderr otherwise
