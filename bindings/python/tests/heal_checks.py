"""What the heal tests of MCPServer (test_heal.py) and FastMCP
(test_heal_fastmcp.py) check alike: a table of calls against the answers
they must get, the crash inside a tool, and the failing calls with the line
heal logs for each."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcp_types import CallToolResult

from mcp_testing import texts

#: Calls a tool of the server under test with its arguments.
CallTool = Callable[[str, dict[str, Any]], Awaitable[CallToolResult]]


async def check_answers(call: CallTool, cases: list[tuple[str, dict[str, Any], list[str], bool]]
                        ) -> list[CallToolResult]:
    """Makes each case's call (tool, arguments, the texts and isError it must
    be answered with) and fails naming every case answered otherwise; returns
    the results, in order."""
    results, failures = [], []
    for tool, args, want, is_error in cases:
        result = await call(tool, args)
        results.append(result)
        if (texts(result), result.is_error) != (want, is_error):
            failures.append(f"{tool} {args}: {result.is_error} {texts(result)}\nwant {is_error} {want}")
    assert not failures, "\n\n".join(failures)
    return results


async def check_crash_inside_a_tool(call: CallTool) -> None:
    """billing.parse_amount raises pydantic's error on text that is not a
    number: a crash, INTERNAL_ERROR with its message, not an argument error."""
    crash = await call("billing.parse_amount", {"text": "twelve"})
    assert crash.is_error is True
    [text] = texts(crash)
    assert text.startswith('<tool_error code="INTERNAL_ERROR" severity="error">\n<message>[billing.parse_amount] ')
    assert "valid number" in text and "<validation_error" not in text


#: Failing calls both billing servers answer alike, each with the line heal
#: logs for it; the fourth is the crash, logged with its traceback at DEBUG.
SHARED_FAILING_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("billing.get_invoice", {"id": "INV-1"}, "Tool 'billing.get_invoice' rejected arguments: ['id']"),
    ("billing.get_invoice", {"id": "inv_404"}, "Tool 'billing.get_invoice' raised NOT_FOUND: No invoice with that ID"),
    ("billing.lock_invoice", {"id": "inv_001"}, "Tool 'billing.lock_invoice' failed: 'Invoice inv_001 is locked'"),
    ("billing.export_invoices", {},
     "Tool 'billing.export_invoices' raised an unexpected exception: RuntimeError: exporter backend unavailable"),
]
