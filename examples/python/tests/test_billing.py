"""The billing demo, played against the Python server as a real subprocess
over stdio, with the SDK's own ClientSession.

The scenario is the Go server's (examples/go/main_test.go), step for step and
in the same order: the tool envelopes and success payloads are asserted
byte for byte with the very texts the Go test asserts. A validation failure
must be exactly what toolerr's ``validate`` export answers for that tool's
shared schema and those arguments, followed, on the two tools changed since
examples/billing.lock.json, by the Go test's contract awareness block
(``payAwareness``, ``listAwareness``), with the fields named.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import toolerr
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "examples" / "python" / "billing_server.py"
SCHEMAS: dict[str, Any] = json.loads((ROOT / "examples" / "schemas.json").read_text(encoding="utf-8"))

VALIDATION_END = "\n</validation_error>"

# The contract awareness blocks of examples/go/main_test.go (payAwareness,
# listAwareness): the server diffs examples/billing.lock.json against its
# tools at start-up, so validation errors of the two changed tools say what
# changed.
PAY_AWARENESS = """


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.pay_invoice" has changed since your last calibration.</system_note>
  <action>billing.pay_invoice</action>
  <change_count>1</change_count>
  <max_severity>BREAKING</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="BREAKING" field="actions.billing.pay_invoice.input.currency">
      <description>Required property &quot;currency&quot; was added to input</description>
      <after>{&quot;enum&quot;:[&quot;EUR&quot;,&quot;USD&quot;],&quot;type&quot;:&quot;string&quot;}</after>
    </change>
  </contract_changes>
</contract_awareness>"""

LIST_AWARENESS = """


<contract_awareness>
  <system_note>IMPORTANT: The behavioral contract for tool "billing.list_invoices" has changed since your last calibration.</system_note>
  <action>billing.list_invoices</action>
  <change_count>1</change_count>
  <max_severity>RISKY</max_severity>

  <instructions>
    Review the contract changes below and adjust your next invocation accordingly.
    These changes may explain why your previous arguments were rejected.
  </instructions>

  <contract_changes>
    <change severity="RISKY" field="actions.billing.list_invoices.input.limit.maximum">
      <description>Maximum of &quot;limit&quot; tightened from 500 to 100</description>
      <before>500</before>
      <after>100</after>
    </change>
  </contract_changes>
</contract_awareness>"""

AWARENESS = {"billing.pay_invoice": PAY_AWARENESS, "billing.list_invoices": LIST_AWARENESS}

INTERNAL = """<tool_error code="INTERNAL_ERROR" severity="error">
<message>[billing.export_invoices] exporter backend unavailable</message>
<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>
</tool_error>"""


def not_found(invoice_id: str) -> str:
    return f"""<tool_error code="NOT_FOUND" severity="error">
<message>No invoice with that ID</message>
<recovery>List invoices first, then retry with a real ID</recovery>
<available_actions>
  <action>billing.list_invoices</action>
</available_actions>
<details>
  <detail key="requestedId">{invoice_id}</detail>
</details>
</tool_error>"""


@dataclass
class Step:
    name: str
    tool: str
    args: dict[str, Any] | None
    want: list[str] | None = None  # every content block; None: a validation error
    is_error: bool = False
    code: str | None = None  # what check_result reads back from an error
    invalid: list[str] = field(default_factory=list)  # fields a validation error names
    check: Any = None


SCENARIO = [
    Step("get existing invoice", "billing.get_invoice", {"id": "inv_001"},
         ['{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}']),
    Step("get unknown invoice is NOT_FOUND", "billing.get_invoice", {"id": "inv_999"},
         [not_found("inv_999")], True, "NOT_FOUND",
         check=lambda e: (e.available_actions, e.details) == (["billing.list_invoices"], {"requestedId": "inv_999"})),
    Step("list all invoices", "billing.list_invoices", {},
         ['{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"},'
          '{"id":"inv_002","status":"paid","amount":75,"currency":"USD"},'
          '{"id":"inv_003","status":"open","amount":9.99,"currency":"USD"}]}']),
    Step("list with status and limit", "billing.list_invoices", {"status": "open", "limit": 1},
         ['{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}]}']),
    Step("list paid invoices", "billing.list_invoices", {"status": "paid"},
         ['{"invoices":[{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}]}']),
    Step("list with page_size warns first and succeeds", "billing.list_invoices", {"page_size": 2},
         ["""<tool_error code="DEPRECATED" severity="warning">
<message>page_size is deprecated; use limit</message>
<recovery>Call billing.list_invoices with limit instead</recovery>
</tool_error>""",
          '{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"},'
          '{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}]}']),
    Step("list with limit below minimum", "billing.list_invoices", {"limit": 0}, invalid=["limit"]),
    Step("list with fractional limit", "billing.list_invoices", {"limit": 1.5}, invalid=["limit"]),
    Step("list with unknown status and page_size over maximum", "billing.list_invoices",
         {"page_size": 101, "status": "draft"}, invalid=["page_size", "status"]),
    Step("get with id not matching the pattern", "billing.get_invoice", {"id": "INV-1"}, invalid=["id"]),
    Step("get with an unknown property", "billing.get_invoice", {"id": "inv_001", "verbose": True}, invalid=["(root)"]),
    Step("get without the required id", "billing.get_invoice", {}, invalid=["id"]),
    Step("get with a number id", "billing.get_invoice", {"id": 42}, invalid=["id"]),
    Step("pay a zero amount", "billing.pay_invoice", {"id": "inv_003", "amount": 0, "currency": "USD"}, invalid=["amount"]),
    Step("pay in an unsupported currency", "billing.pay_invoice",
         {"id": "inv_003", "amount": 9.99, "currency": "GBP"}, invalid=["currency"]),
    Step("pay without amount and currency", "billing.pay_invoice", {"id": "inv_003"}, invalid=["amount", "currency"]),
    Step("pay an open invoice (validated pay call 1)", "billing.pay_invoice",
         {"id": "inv_001", "amount": 120.5, "currency": "EUR"},
         ['{"id":"inv_001","status":"paid","paid":120.5,"currency":"EUR"}']),
    Step("the paid invoice reads back paid", "billing.get_invoice", {"id": "inv_001"},
         ['{"id":"inv_001","status":"paid","amount":120.5,"currency":"EUR"}']),
    Step("pay a paid invoice is CONFLICT (validated pay call 2)", "billing.pay_invoice",
         {"id": "inv_002", "amount": 75, "currency": "USD"},
         ["""<tool_error code="CONFLICT" severity="error">
<message>Invoice inv_002 is already paid</message>
<recovery>Call billing.get_invoice to check the status before paying</recovery>
<available_actions>
  <action>billing.get_invoice</action>
</available_actions>
</tool_error>"""], True, "CONFLICT"),
    Step("pay the wrong amount is VALIDATION_ERROR (validated pay call 3)", "billing.pay_invoice",
         {"id": "inv_003", "amount": 10, "currency": "USD"},
         ["""<tool_error code="VALIDATION_ERROR" severity="error">
<message>Amount or currency does not match invoice inv_003</message>
<details>
  <detail key="expectedAmount">9.99</detail>
  <detail key="expectedCurrency">USD</detail>
</details>
</tool_error>"""], True, "VALIDATION_ERROR",
         check=lambda e: e.details == {"expectedAmount": "9.99", "expectedCurrency": "USD"} and e.kind == "tool_error"),
    Step("the fourth validated pay call is RATE_LIMITED", "billing.pay_invoice",
         {"id": "inv_003", "amount": 9.99, "currency": "USD"},
         ["""<tool_error code="RATE_LIMITED" severity="error">
<message>Rate limit exceeded. Maximum 3 requests per 60s window.</message>
<recovery>Wait 60 seconds before retrying. Current key: "billing.pay_invoice".</recovery>
<retry_after>60 seconds</retry_after>
</tool_error>"""], True, "RATE_LIMITED", check=lambda e: e.retry_after == 60),
    Step("validation still comes before the rate limit", "billing.pay_invoice",
         {"id": "inv_003", "amount": -1, "currency": "USD"}, invalid=["amount"]),
    Step("the rate-limited call paid nothing", "billing.get_invoice", {"id": "inv_003"},
         ['{"id":"inv_003","status":"open","amount":9.99,"currency":"USD"}']),
    Step("void is FORBIDDEN, critical", "billing.void_invoice", {"id": "inv_001"},
         ["""<tool_error code="FORBIDDEN" severity="critical">
<message>Voiding invoices requires the billing-admin role</message>
</tool_error>"""], True, "FORBIDDEN", check=lambda e: e.severity == "critical"),
    Step("void validates before its handler", "billing.void_invoice", {"id": "nope"}, invalid=["id"]),
    Step("export fails with INTERNAL_ERROR naming the tool", "billing.export_invoices", {},
         [INTERNAL], True, "INTERNAL_ERROR"),
    Step("export takes no arguments", "billing.export_invoices", {"format": "csv", "since": "2026"}, invalid=["(root)"]),
]

FRESH_PROCESS = [
    Step("pay an unknown invoice is NOT_FOUND", "billing.pay_invoice",
         {"id": "inv_404", "amount": 1, "currency": "EUR"}, [not_found("inv_404")], True, "NOT_FOUND"),
    Step("the invoices are reset at start", "billing.get_invoice", {"id": "inv_001"},
         ['{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}']),
    Step("absent arguments are an empty object", "billing.export_invoices", None, [INTERNAL], True, "INTERNAL_ERROR"),
]


# The changes each tool's <contract_awareness> names.
CHANGED = {
    "billing.pay_invoice": ["actions.billing.pay_invoice.input.currency"],
    "billing.list_invoices": ["actions.billing.list_invoices.input.limit.maximum"],
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def billing_session() -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)], cwd=str(ROOT))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def texts(result: Any) -> list[str]:
    out = []
    for block in result.content:
        assert isinstance(block, TextContent), block
        out.append(block.text)
    return out


async def run_step(session: ClientSession, step: Step) -> list[str]:
    """Play one step; return its failures."""
    result = await session.call_tool(step.tool, step.args)
    got = texts(result)
    failures = []
    if step.want is None:  # a validation error: exactly validate's answer, and what changed
        expected = toolerr.validate(step.tool, SCHEMAS[step.tool]["inputSchema"], step.args or {})
        assert expected is not None, f"{step.name}: validate accepted {step.args}"
        [base] = texts(expected)
        assert base.endswith(VALIDATION_END)
        want = [base[: -len(VALIDATION_END)] + AWARENESS.get(step.tool, "") + VALIDATION_END]
        is_error = True
    else:
        want, is_error = step.want, step.is_error
    if got != want:
        failures.append(f"{step.name}: content\n{got}\nwant\n{want}")
    if result.is_error is not is_error:
        failures.append(f"{step.name}: isError {result.is_error}, want {is_error}")
    if not is_error:
        toolerr.check_result(result)  # warnings included: no ClientError
        return failures
    with pytest.raises(toolerr.ClientError) as raised:
        toolerr.check_result(result)
    err = raised.value
    if step.want is None:
        names = sorted(f.name for f in err.fields)
        if (err.kind, err.code, names) != ("validation_error", "VALIDATION_ERROR", sorted(step.invalid)):
            failures.append(f"{step.name}: read back {err.kind} {err.code} {names}")
        changed = [c["field"] for c in err.contract["changes"]] if err.contract else []
        if changed != CHANGED.get(step.tool, []):
            failures.append(f"{step.name}: read back contract changes {changed}")
    elif err.code != step.code or (step.check is not None and not step.check(err)):
        failures.append(f"{step.name}: read back {err!r} {vars(err)}")
    return failures


@pytest.mark.anyio
async def test_billing_scenario() -> None:
    failures: list[str] = []
    async with billing_session() as session:
        assert session.initialize_result.server_info.name == "billing-python"  # type: ignore[union-attr]
        listed = await session.list_tools()
        assert [t.name for t in listed.tools] == sorted(SCHEMAS)
        for tool in listed.tools:
            assert tool.description == SCHEMAS[tool.name]["description"]
            assert tool.input_schema == SCHEMAS[tool.name]["inputSchema"]
        for step in SCENARIO:
            failures += await run_step(session, step)
        with pytest.raises(MCPError) as raised:
            await session.call_tool("billing.refund_invoice", {})
        assert "Unknown tool: billing.refund_invoice" in str(raised.value)
    async with billing_session() as fresh:
        for step in FRESH_PROCESS:
            failures += await run_step(fresh, step)
    assert not failures, "\n\n".join(failures)


@pytest.mark.anyio
async def test_call_tool_helper_raises_client_error() -> None:
    async with billing_session() as session:
        ok = await toolerr.call_tool(session, "billing.get_invoice", {"id": "inv_002"})
        assert texts(ok) == ['{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}']
        with pytest.raises(toolerr.ClientError) as raised:
            await toolerr.call_tool(session, "billing.get_invoice", {"id": "inv_999"})
        assert raised.value.code == "NOT_FOUND"
        assert raised.value.recovery == "List invoices first, then retry with a real ID"


def test_awareness_is_contract_diff_of_the_lockfile() -> None:
    """The blocks above are what the module says of examples/billing.lock.json
    against the shared tools, and the server reads that very file."""
    lockfile = json.loads((ROOT / "examples" / "billing.lock.json").read_text(encoding="utf-8"))
    tools = [{"name": n, "description": SCHEMAS[n]["description"], "inputSchema": SCHEMAS[n]["inputSchema"]} for n in SCHEMAS]
    deltas = toolerr.contract_diff(lockfile, tools)["deltas"]
    for tool, block in AWARENESS.items():
        invalid = toolerr.validate(tool, SCHEMAS[tool]["inputSchema"], {"x": 1}, {"tool": tool, "deltas": deltas})
        assert invalid is not None and texts(invalid)[0].endswith(block + VALIDATION_END)
    source = SERVER.read_text(encoding="utf-8")
    assert 'Path(__file__).resolve().parent.parent / "billing.lock.json"' in source


@pytest.mark.anyio
async def test_pay_in_gbp_carries_the_awareness_block() -> None:
    async with billing_session() as session:
        result = await session.call_tool("billing.pay_invoice", {"id": "inv_003", "amount": 9.99, "currency": "GBP"})
    assert result.is_error is True
    assert texts(result) == [
        '<validation_error action="billing.pay_invoice">\n'
        "<field name=\"currency\">Is not one of the allowed values. You sent: 'GBP'. Valid options: 'EUR', 'USD'.</field>\n"
        "<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>"
        + PAY_AWARENESS + VALIDATION_END
    ]
