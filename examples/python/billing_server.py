"""billing-python: the billing demo (examples/README.md) as an MCP server over
stdio, built with the official ``mcp`` package (2.x), every error rendered by
toolerr.wasm through the ``toolerr`` binding.

Given the same calls it answers with the same content text and isError as
the Go server (examples/go), because no XML is written here: validation is
toolerr's ``validate`` export, envelopes are toolerr's renderers.

Notes:
- It uses the SDK's low-level ``Server``: ``tools/list`` advertises the
  shared examples/schemas.json exactly as written, and the SDK runs no
  pydantic validation of its own on the arguments.
- Only the MCP transport writes to stdout; logs, if any, go to stderr.
- The invoices live in memory and are reset when the process starts.
- At start-up the server diffs the older contract in examples/billing.lock.json
  against its own tools (``contract_diff``); validation errors on a changed
  tool carry what changed.
- Every line from the client passes the module's stdio gate
  (``toolerr.gated_stdio``) before the SDK reads it, as in every billing
  server: a message pydantic's parser refuses (a lone surrogate, deep
  nesting) would get no answer at all; the gate answers malformed requests
  with their JSON-RPC error, and arguments no SDK reads intact (too large,
  too deep, a number beyond a 64-bit float, not valid Unicode, not an
  object) with its <validation_error>, the same bytes in every language.

Run it from the repository root: ``.venv/bin/python examples/python/billing_server.py``.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import toolerr
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas.json"
#: The lockfile of an older billing contract.
LOCKFILE = Path(__file__).resolve().parent.parent / "billing.lock.json"

#: How many pay_invoice calls with valid arguments one process accepts.
MAX_PAY_CALLS = 3

Arguments = dict[str, Any]
Handler = Callable[[Arguments], types.CallToolResult]


@dataclass
class Invoice:
    id: str
    status: str
    amount: float  # 75 stays an int, so the JSON says 75 as JavaScript would
    currency: str

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "amount": self.amount, "currency": self.currency}


def text_result(value: Any) -> types.CallToolResult:
    """One text block of compact JSON, keys in insertion order."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=compact(value))], is_error=False)


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def not_found(invoice_id: str) -> toolerr.ErrorBuilder:
    return (
        toolerr.error("NOT_FOUND", "No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions("billing.list_invoices")
        .details(requestedId=invoice_id)
    )


class Billing:
    """The server's state: the invoices and the pay_invoice counter."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.invoices = [
            Invoice("inv_001", "open", 120.5, "EUR"),
            Invoice("inv_002", "paid", 75, "USD"),
            Invoice("inv_003", "open", 9.99, "USD"),
        ]
        self.pay_calls = 0

    def find(self, invoice_id: str) -> Invoice | None:
        return next((inv for inv in self.invoices if inv.id == invoice_id), None)

    def get_invoice(self, args: Arguments) -> types.CallToolResult:
        with self._lock:
            invoice = self.find(args["id"])
            if invoice is None:
                raise not_found(args["id"])
            return text_result(invoice.as_json())

    def list_invoices(self, args: Arguments) -> types.CallToolResult:
        deprecated = "page_size" in args  # warned about even when limit is sent too
        limit = int(args["limit"] if "limit" in args else args.get("page_size", 10))
        status = args.get("status")
        with self._lock:
            listed = [inv.as_json() for inv in self.invoices if status is None or inv.status == status][:limit]
        result = text_result({"invoices": listed})
        if not deprecated:
            return result
        warning = toolerr.tool_error(
            "DEPRECATED",
            "page_size is deprecated; use limit",
            suggestion="Call billing.list_invoices with limit instead",
            severity="warning",
        )
        # isError false: a warning rides the success path, first of two blocks.
        return types.CallToolResult(content=[*warning.content, *result.content], is_error=warning.is_error)

    def pay_invoice(self, args: Arguments) -> types.CallToolResult:
        with self._lock:
            self.pay_calls += 1
            if self.pay_calls > MAX_PAY_CALLS:
                return toolerr.rate_limited(MAX_PAY_CALLS, 60, 60, key="billing.pay_invoice")
            invoice_id, amount, currency = args["id"], args["amount"], args["currency"]
            invoice = self.find(invoice_id)
            if invoice is None:
                raise not_found(invoice_id)
            if invoice.status == "paid":
                raise (
                    toolerr.error("CONFLICT", f"Invoice {invoice_id} is already paid")
                    .suggest("Call billing.get_invoice to check the status before paying")
                    .actions("billing.get_invoice")
                )
            if amount != invoice.amount or currency != invoice.currency:
                raise toolerr.error(
                    "VALIDATION_ERROR", f"Amount or currency does not match invoice {invoice_id}"
                ).details(expectedAmount=invoice.amount, expectedCurrency=invoice.currency)
            invoice.status = "paid"
            # The invoice's own amount (equal to the one sent) keeps 75 as 75.
            return text_result({"id": invoice_id, "status": "paid", "paid": invoice.amount, "currency": currency})

    def void_invoice(self, args: Arguments) -> types.CallToolResult:
        # Always refused: the tool error reaches the client intact.
        raise toolerr.ToolErrorException(
            "FORBIDDEN", "Voiding invoices requires the billing-admin role", severity="critical"
        )

    def export_invoices(self, args: Arguments) -> types.CallToolResult:
        # Stands for a bug in a dependency: becomes INTERNAL_ERROR naming the tool.
        raise RuntimeError("exporter backend unavailable")


def build_server() -> Server:
    schemas: dict[str, Any] = json.loads(SCHEMAS.read_text(encoding="utf-8"))
    billing = Billing()
    handlers: dict[str, Handler] = {
        "billing.get_invoice": billing.get_invoice,
        "billing.list_invoices": billing.list_invoices,
        "billing.pay_invoice": billing.pay_invoice,
        "billing.void_invoice": billing.void_invoice,
        "billing.export_invoices": billing.export_invoices,
    }
    if set(handlers) != set(schemas):
        raise SystemExit(f"billing-python: schemas.json tools {sorted(schemas)} != handlers {sorted(handlers)}")
    tools = [
        types.Tool(name=name, description=schemas[name]["description"], input_schema=schemas[name]["inputSchema"])
        for name in sorted(schemas)
    ]
    # What changed since the locked contract, computed once against exactly
    # what tools/list advertises.
    try:
        deltas = toolerr.contract_diff(json.loads(LOCKFILE.read_text(encoding="utf-8")), tools)["deltas"]
    except (OSError, ValueError, toolerr.ToolerrError) as exc:
        raise SystemExit(f"billing-python: {LOCKFILE.name}: {exc}") from exc

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    def call(name: str, arguments: Any) -> types.CallToolResult:
        args = arguments if arguments is not None else {}
        try:
            contract = {"tool": name, "deltas": deltas} if deltas else None
            try:
                invalid = toolerr.validate(name, schemas[name]["inputSchema"], args, contract)
            except toolerr.ToolerrError as exc:
                if exc.code != "REQUEST_TOO_LARGE":
                    raise
                # Arguments that fit a message but not a check beside the schema (bytes or
                # values): too large, not a failure of the server.
                size = len(compact(args).encode("utf-8"))
                return toolerr.to_call_tool_result(toolerr.arguments_too_large(name, size))
            if invalid is not None:
                return invalid
            return handlers[name](args)
        except Exception as exc:  # noqa: BLE001 - every failure reaches the model as an envelope
            return toolerr.handle_exception(exc, name)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in handlers:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        return call(params.name, params.arguments)

    return Server("billing-python", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve() -> None:
    server = build_server()
    # The SDK's stdio transport, reading the client's lines through the module's gate.
    async with toolerr.gated_stdio() as (stdin, stdout), stdio_server(stdin, stdout) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> None:
    # stdout carries the MCP protocol: the module's WASI output stays discarded.
    os.environ.pop(toolerr.WASI_OUTPUT_VARIABLE, None)
    toolerr.default()  # load (sha256 and ABI checked) before serving
    anyio.run(serve)


if __name__ == "__main__":
    main()
