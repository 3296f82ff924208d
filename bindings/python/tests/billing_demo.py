"""What the billing servers of the MCPServer and the FastMCP heal tests
share: the argument models, and the errors their tools raise on purpose
(envelopes.py holds the texts those render to)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

import toolerr

ID = Annotated[str, Field(pattern=r"^inv_[0-9]{3}$")]


class Line(BaseModel):
    sku: str
    amount: float = Field(gt=0)


class Payment(BaseModel):
    id: ID
    currency: Literal["EUR", "USD"]
    lines: list[Line]


def invoice_not_found(requested_id: str) -> toolerr.ToolErrorException:
    """NOT_FOUND for an invoice ID, with a suggestion and an action (envelopes.not_found):
    the keyword form of a tool error, where the example servers chain a builder."""
    return toolerr.ToolErrorException(
        "NOT_FOUND",
        "No invoice with that ID",
        suggestion="List invoices first, then retry with a real ID",
        available_actions=["billing.list_invoices"],
        details={"requestedId": requested_id},
    )


def page_size_deprecated() -> toolerr.ErrorBuilder:
    """The warning for the page_size argument (envelopes.DEPRECATED)."""
    return (
        toolerr.error("DEPRECATED", "page_size is deprecated; use limit")
        .suggest("Call billing.list_invoices with limit instead")
        .severity("warning")
    )
