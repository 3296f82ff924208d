"""The billing demo's argument models, shared by the MCPServer and the
FastMCP heal tests."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

ID = Annotated[str, Field(pattern=r"^inv_[0-9]{3}$")]


class Line(BaseModel):
    sku: str
    amount: float = Field(gt=0)


class Payment(BaseModel):
    id: ID
    currency: Literal["EUR", "USD"]
    lines: list[Line]
