"""A second, shorter session in another language: the Python SDK's
``ClientSession`` drives the Node billing server (``node
examples/node/server.mjs``, as examples/servers.json starts it) over stdio,
and the Python binding's ``call_tool`` reads every failure back as a
``ClientError``.

It needs the Node side prepared (``bash examples/node/prepare.sh``; ``make
test`` and ``bindings/python/test.sh`` do it) and fails, naming what is
missing, when it is not.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import toolerr
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import TextContent

ROOT = Path(__file__).resolve().parents[3]
NODE_SERVER = ROOT / "examples" / "node" / "server.mjs"
# What prepare.sh installs: the SDK for the server, @extism/extism for the binding.
NODE_NEEDS = [
    ROOT / "examples" / "node" / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json",
    ROOT / "examples" / "node" / "node_modules" / "toolerr" / "package.json",
    ROOT / "bindings" / "node" / "node_modules" / "@extism" / "extism" / "package.json",
]

VALIDATION_RECOVERY = "Fix the fields above and call the tool again. Do not explain the error."
INTERNAL = """<tool_error code="INTERNAL_ERROR" severity="error">
<message>[billing.export_invoices] exporter backend unavailable</message>
<recovery>This is an unexpected server-side failure, not a problem with your arguments. Do not blindly retry the same call: tell the user what failed, or try a different approach.</recovery>
</tool_error>"""
PAY_GBP = """<validation_error action="billing.pay_invoice">
<field name="currency">Is not one of the allowed values. You sent: 'GBP'. Valid options: 'EUR', 'USD'.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>


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
</contract_awareness>
</validation_error>"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def node_command() -> str:
    """The node executable, or a failure saying how to prepare the Node side."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("the Node billing server needs `node` (20 or later) on PATH")
    missing = [str(p.relative_to(ROOT)) for p in NODE_NEEDS if not p.exists()]
    if missing:
        pytest.fail(
            "the Node billing server is not prepared (missing: "
            + ", ".join(missing)
            + "); run `bash examples/node/prepare.sh` from the repository root (`make test` does)"
        )
    return node


@asynccontextmanager
async def node_session() -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=node_command(), args=[str(NODE_SERVER)], cwd=str(ROOT))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def texts(result: object) -> list[str]:
    out = []
    for block in getattr(result, "content", []):
        assert isinstance(block, TextContent), block
        out.append(block.text)
    return out


async def failure(session: ClientSession, tool: str, arguments: dict[str, object]) -> toolerr.ClientError:
    """Call through the binding's helper, which must raise ClientError."""
    with pytest.raises(toolerr.ClientError) as raised:
        await toolerr.call_tool(session, tool, arguments)
    return raised.value


@pytest.mark.anyio
async def test_python_client_against_the_node_server() -> None:
    async with node_session() as session:
        assert session.initialize_result.server_info.name == "billing-node"  # type: ignore[union-attr]

        # 1. A success passes through as it is.
        ok = await toolerr.call_tool(session, "billing.get_invoice", {"id": "inv_001"})
        assert ok.is_error is False
        assert texts(ok) == ['{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}']

        # 2. NOT_FOUND, with its recovery, next action and details.
        err = await failure(session, "billing.get_invoice", {"id": "inv_999"})
        assert (err.kind, err.code, err.severity) == ("tool_error", "NOT_FOUND", "error")
        assert err.message == "No invoice with that ID"
        assert err.recovery == "List invoices first, then retry with a real ID"
        assert err.available_actions == ["billing.list_invoices"]
        assert err.details == {"requestedId": "inv_999"}
        assert err.retry_after is None

        # 3. The page_size warning rides the success path: no ClientError.
        warned = await toolerr.call_tool(session, "billing.list_invoices", {"page_size": 2})
        assert warned.is_error is False
        assert len(warned.content) == 2
        warning = toolerr.parse(texts(warned)[0])
        assert isinstance(warning, toolerr.ToolErrorEnvelope)
        assert (warning.code, warning.severity, warning.is_error) == ("DEPRECATED", "warning", False)
        assert warning.recovery == "Call billing.list_invoices with limit instead"
        assert texts(warned)[1] == (
            '{"invoices":[{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"},'
            '{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}]}'
        )

        # 4. A validation error on a tool changed since examples/billing.lock.json
        #    carries the contract awareness block.
        err = await failure(session, "billing.pay_invoice", {"id": "inv_003", "amount": 9.99, "currency": "GBP"})
        assert (err.kind, err.code, err.severity) == ("validation_error", "VALIDATION_ERROR", "error")
        assert err.recovery == VALIDATION_RECOVERY
        assert err.available_actions == [] and err.details == {}
        assert err.action == "billing.pay_invoice"
        assert [(f.name, f.message) for f in err.fields] == [
            ("currency", "Is not one of the allowed values. You sent: 'GBP'. Valid options: 'EUR', 'USD'.")
        ]
        assert err.contract is not None
        assert (err.contract["changeCount"], err.contract["maxSeverity"]) == (1, "BREAKING")
        assert [c["field"] for c in err.contract["changes"]] == ["actions.billing.pay_invoice.input.currency"]
        assert texts(err.raw) == [PAY_GBP]

        # 5. FORBIDDEN, critical, thrown by the handler and delivered intact.
        err = await failure(session, "billing.void_invoice", {"id": "inv_001"})
        assert (err.kind, err.code, err.severity) == ("tool_error", "FORBIDDEN", "critical")
        assert err.message == "Voiding invoices requires the billing-admin role"
        assert err.recovery is None and err.available_actions == [] and err.details == {}

        # 6. INTERNAL_ERROR naming the tool, no stack trace.
        err = await failure(session, "billing.export_invoices", {})
        assert (err.kind, err.code, err.severity) == ("tool_error", "INTERNAL_ERROR", "error")
        assert err.message == "[billing.export_invoices] exporter backend unavailable"
        assert err.recovery is not None and err.recovery.startswith("This is an unexpected server-side failure")
        assert err.available_actions == [] and err.details == {}
        assert texts(err.raw) == [INTERNAL]  # the whole envelope: no stack trace
