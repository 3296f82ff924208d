"""A billing server written with FastMCP 4 for the FastMCP heal tests: sync
and async tools, a tool taking a Context, nested pydantic models, a warning,
FastMCP's own ToolError, crashes, and a mounted sub-server.

Run as a script it serves over stdio (the stdio tests start it):

    python fastmcp_billing.py healed|plain [heal-first] [unknown-sdk] [info]

``healed`` calls toolerr.heal, ``plain`` does not; ``heal-first`` heals
before the tools are registered; ``unknown-sdk`` heals with
``unknown_tool="sdk"``; ``info`` keeps FastMCP's default log level (INFO)
instead of WARNING.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from pydantic import BaseModel, Field

import toolerr
from billing_demo import ID, Line, Payment, invoice_not_found, page_size_deprecated

class Address(BaseModel):
    street: str
    zip: Annotated[str, Field(pattern=r"^[0-9]{5}$")]


class Entry(BaseModel):
    invoice: ID
    note: str


def get_invoice(id: ID) -> dict[str, Any]:  # noqa: A002
    if id != "inv_001":
        raise invoice_not_found(id)
    return {"id": id, "status": "open", "amount": 120.5}


async def pay_invoice(payment: Payment, note: str = "") -> str:
    return f"paid {payment.id}"


async def ship_invoice(address: Address, ctx: Context) -> dict[str, str]:
    return {"zip": address.zip, "server": ctx.fastmcp.name}


def list_invoices(limit: Annotated[int, Field(ge=1, le=100)] = 10, page_size: int | None = None) -> str:
    if page_size is not None:
        raise page_size_deprecated()
    return "[]"


def void_invoice(id: str) -> str:  # noqa: A002
    raise toolerr.ToolErrorException("FORBIDDEN", "Voiding invoices requires the billing-admin role",
                                     severity="critical")


async def export_invoices() -> str:
    raise RuntimeError("exporter backend unavailable")


def lock_invoice(id: str) -> str:  # noqa: A002
    raise ToolError(f"Invoice {id} is locked")


def refund_invoice(id: str) -> str:  # noqa: A002
    try:
        {}[id]
    except KeyError as missing:
        raise ToolError("Refunds are closed today") from missing  # on purpose, with a cause
    return "refunded"


def parse_amount(text: str) -> str:
    # A pydantic failure inside the tool is a crash, not an argument error.
    return str(Line.model_validate({"sku": "x", "amount": text}).amount)


def explode() -> str:
    raise ValueError()


def audit_log(entry: Entry) -> str:
    return f"logged {entry.invoice}"


def audit_purge() -> str:
    raise RuntimeError("audit store is read-only")


def register(server: FastMCP[Any]) -> None:
    server.tool(get_invoice, name="billing.get_invoice")
    server.tool(pay_invoice, name="billing.pay_invoice")
    server.tool(ship_invoice, name="billing.ship_invoice")
    server.tool(list_invoices, name="billing.list_invoices", output_schema=None)  # may answer a warning
    server.tool(void_invoice, name="billing.void_invoice")
    server.tool(export_invoices, name="billing.export_invoices")
    server.tool(lock_invoice, name="billing.lock_invoice")
    server.tool(refund_invoice, name="billing.refund_invoice")
    server.tool(parse_amount, name="billing.parse_amount")
    server.tool(explode, name="billing.explode")


def audit() -> FastMCP[Any]:
    """The sub-server mounted under the namespace "audit"."""
    sub: FastMCP[Any] = FastMCP("audit")
    sub.tool(audit_log, name="log")
    sub.tool(audit_purge, name="purge")
    return sub


def build(
    healed: bool = True, *, heal_first: bool = False, mask: bool = False, unknown_sdk: bool = False
) -> FastMCP[Any]:
    """The billing server, with the audit server mounted; healed unless told
    not to, before its tools are registered with heal_first, leaving an
    unknown tool to FastMCP with unknown_sdk."""
    server: FastMCP[Any] = FastMCP("billing", mask_error_details=mask)
    unknown_tool: toolerr.UnknownToolAnswer = "sdk" if unknown_sdk else "envelope"
    if healed and heal_first:
        toolerr.heal(server, unknown_tool=unknown_tool)
    register(server)
    server.mount(audit(), namespace="audit")
    if healed and not heal_first:
        toolerr.heal(server, unknown_tool=unknown_tool)
    return server


if __name__ == "__main__":
    flags = sys.argv[1:]
    build(flags[0] == "healed", heal_first="heal-first" in flags, unknown_sdk="unknown-sdk" in flags).run(
        show_banner=False, log_level="INFO" if "info" in flags else "WARNING"
    )
