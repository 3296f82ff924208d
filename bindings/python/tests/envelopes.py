"""The billing demo's envelopes, as the module renders them: the expected
texts the API and heal tests share."""

from __future__ import annotations


def not_found(requested_id: str) -> str:
    """NOT_FOUND for an invoice ID, with its suggestion and action."""
    return f"""<tool_error code="NOT_FOUND" severity="error">
<message>No invoice with that ID</message>
<recovery>List invoices first, then retry with a real ID</recovery>
<available_actions>
  <action>billing.list_invoices</action>
</available_actions>
<details>
  <detail key="requestedId">{requested_id}</detail>
</details>
</tool_error>"""


FORBIDDEN = """<tool_error code="FORBIDDEN" severity="critical">
<message>Voiding invoices requires the billing-admin role</message>
</tool_error>"""

DEPRECATED = """<tool_error code="DEPRECATED" severity="warning">
<message>page_size is deprecated; use limit</message>
<recovery>Call billing.list_invoices with limit instead</recovery>
</tool_error>"""

#: billing.pay_invoice's answer to a payment whose first line has the amount -2.
NEGATIVE_AMOUNT = (
    '<validation_error action="billing.pay_invoice">\n'
    '<field name="payment.lines.0.amount">Input should be greater than 0. You sent: -2.</field>\n'
    "<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n"
    "</validation_error>"
)

RECOVERY = (
    "This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the "
    "same call: tell the user what failed, or try a different approach."
)

FAILURE_RECOVERY = (
    "The tool reported this failure without saying why. Read its message: if it points at your arguments, "
    "fix them and call again; otherwise do not repeat the same call, and tell the user what failed."
)


def _tool_failed(code: str, tool: str, message: str, recovery: str) -> str:
    """A failure of tool the module reports with code: the message prefixed
    with the tool's name, and the code's recovery."""
    return f"""<tool_error code="{code}" severity="error">
<message>[{tool}] {message}</message>
<recovery>{recovery}</recovery>
</tool_error>"""


def internal(tool: str, message: str) -> str:
    """INTERNAL_ERROR for a failure of tool."""
    return _tool_failed("INTERNAL_ERROR", tool, message, RECOVERY)


def failure(tool: str, message: str) -> str:
    """TOOL_FAILURE for an SDK error tool raised on purpose."""
    return _tool_failed("TOOL_FAILURE", tool, message, FAILURE_RECOVERY)
