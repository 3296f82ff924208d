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

RECOVERY = (
    "This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the "
    "same call: tell the user what failed, or try a different approach."
)


def internal(tool: str, message: str) -> str:
    """INTERNAL_ERROR for a failure of tool."""
    return f"""<tool_error code="INTERNAL_ERROR" severity="error">
<message>[{tool}] {message}</message>
<recovery>{RECOVERY}</recovery>
</tool_error>"""


FAILURE_RECOVERY = (
    "The tool reported this failure without saying why. Read its message: if it points at your arguments, "
    "fix them and call again; otherwise do not repeat the same call, and tell the user what failed."
)


def failure(tool: str, message: str) -> str:
    """TOOL_FAILURE for an SDK error tool raised on purpose."""
    return f"""<tool_error code="TOOL_FAILURE" severity="error">
<message>[{tool}] {message}</message>
<recovery>{FAILURE_RECOVERY}</recovery>
</tool_error>"""
