"""The idiomatic API: results, the builder, raising, parsing, ClientError."""

from __future__ import annotations

import asyncio

import pytest
import toolerr
from mcp_types import CallToolResult, TextContent

from envelopes import FORBIDDEN, internal, not_found

NOT_FOUND = not_found("inv_999")

RATE_LIMITED = """<tool_error code="RATE_LIMITED" severity="error">
<message>Rate limit exceeded. Maximum 3 requests per 60s window.</message>
<recovery>Wait 60 seconds before retrying. Current key: "billing.pay_invoice".</recovery>
<retry_after>60 seconds</retry_after>
</tool_error>"""

INTERNAL = internal("billing.export_invoices", "exporter backend unavailable")


def text(result: CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_tool_error_is_an_mcp_call_tool_result() -> None:
    result = toolerr.tool_error(
        "NOT_FOUND",
        "No invoice with that ID",
        suggestion="List invoices first, then retry with a real ID",
        available_actions=["billing.list_invoices"],
        details={"requestedId": "inv_999"},
    )
    assert isinstance(result, CallToolResult)
    assert result.is_error is True
    assert text(result) == NOT_FOUND


def test_numbers_are_written_by_the_module() -> None:
    result = toolerr.tool_error("X", "m", details={"b": 30.0, "a": 1.5, "c": 75, "d": True}, retry_after=30.0)
    assert text(result) == (
        '<tool_error code="X" severity="error">\n<message>m</message>\n<details>\n'
        '  <detail key="b">30</detail>\n  <detail key="a">1.5</detail>\n'
        '  <detail key="c">75</detail>\n  <detail key="d">true</detail>\n</details>\n'
        "<retry_after>30 seconds</retry_after>\n</tool_error>"
    )


def test_warning_rides_the_success_path() -> None:
    result = toolerr.tool_error("DEPRECATED", "page_size is deprecated; use limit", severity="warning")
    assert result.is_error is False


def test_helpers() -> None:
    assert text(toolerr.rate_limited(3, 60, 60, key="billing.pay_invoice")) == RATE_LIMITED
    assert text(toolerr.internal_error("exporter backend unavailable", tool="billing.export_invoices")) == INTERNAL
    assert text(toolerr.tool_failure("Invoice inv_001 is locked", tool="billing.lock_invoice", action="lock")) == (
        '<tool_error code="TOOL_FAILURE" severity="error">\n'
        "<message>[billing.lock_invoice/lock] Invoice inv_001 is locked</message>\n"
        "<recovery>The tool reported this failure without saying why. Read its message: if it points at your "
        "arguments, fix them and call again; otherwise do not repeat the same call, and tell the user what "
        "failed.</recovery>\n</tool_error>"
    )
    assert toolerr.tool_failure("m").is_error is True
    with pytest.raises(toolerr.ToolerrError, match='tool_failure: "message" must not be empty'):
        toolerr.tool_failure("")
    assert text(toolerr.simple_error("m")) == "<tool_error>\n<message>m</message>\n</tool_error>"
    assert text(toolerr.simple_error("m", "X")) == '<tool_error code="X">\n<message>m</message>\n</tool_error>'
    required = text(toolerr.required("project_id"))
    assert required.startswith('<tool_error code="MISSING_REQUIRED_FIELD">\n<message>Required field "project_id" is missing.')
    busy = text(toolerr.server_busy("t", 4.0, 2))
    assert "(4 active, 2 queued)" in busy
    assert toolerr.escape("a<b>&", "content") == "a&lt;b>&amp;"
    assert toolerr.escape("\"'<>&", "attribute") == "&quot;&apos;&lt;&gt;&amp;"


def unknown_action(tool: str, actions: str) -> str:
    """UNKNOWN_ACTION for a call to tool, listing actions (comma-separated)."""
    return (
        '<tool_error code="UNKNOWN_ACTION">\n'
        f'<message>The tool "{tool}" does not exist.</message>\n'
        f"<available_actions>{actions}</available_actions>\n"
        "<recovery>Choose a valid action from available_actions and call the tool again.</recovery>\n"
        "</tool_error>"
    )


def test_unknown_tool() -> None:
    """The module's UNKNOWN_ACTION: the tools closest to the name called
    first, ties in the server's order, a name given twice listed once; a
    list or tuple of names, a str refused (it is not a list of tools)."""
    tools = ["billing.list_invoices", "billing.pay_invoice", "billing.get_invoice", "billing.void_invoice"]
    result = toolerr.unknown_tool("get_invoice", tools)
    assert isinstance(result, CallToolResult) and result.is_error is True
    assert text(result) == unknown_action(
        "get_invoice", "billing.get_invoice, billing.pay_invoice, billing.list_invoices, billing.void_invoice")
    assert toolerr.unknown_tool("get_invoice", tuple(tools)) == result
    assert text(toolerr.unknown_tool("x", ["a", "b", "a"])) == unknown_action("x", "a, b")
    assert text(toolerr.unknown_tool("a<b", [])) == unknown_action("a&lt;b", "")
    # What a client reads back: the code and the actions, closest first.
    envelope = toolerr.parse(result)
    assert isinstance(envelope, toolerr.ToolErrorEnvelope)
    assert (envelope.code, envelope.available_actions[:2]) == ("UNKNOWN_ACTION", ["billing.get_invoice",
                                                                                   "billing.pay_invoice"])
    with pytest.raises(toolerr.ClientError) as raised:
        toolerr.check_result(result)
    assert (raised.value.code, raised.value.message) == ("UNKNOWN_ACTION", 'The tool "get_invoice" does not exist.')
    with pytest.raises(toolerr.ToolerrError) as refused:
        toolerr.unknown_tool("x", "abc")
    assert refused.value.code == "INVALID_REQUEST"
    assert text(toolerr.unknown_tool("x", ["a"], module=toolerr.default())) == unknown_action("x", "a")
    assert {"unknown_tool", "UnknownToolAnswer"} <= set(toolerr.__all__)


def test_builder_matches_keywords() -> None:
    built = (
        toolerr.error("NOT_FOUND", "No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions("billing.list_invoices")
        .details(requestedId="inv_999")
    )
    assert text(built.render()) == NOT_FOUND
    assert built.request() == {
        "code": "NOT_FOUND",
        "message": "No invoice with that ID",
        "suggestion": "List invoices first, then retry with a real ID",
        "availableActions": ["billing.list_invoices"],
        "details": {"requestedId": "inv_999"},
    }
    full = toolerr.error("X", "m").severity("critical").details({"a": 1}, b="2").retry_after(5)
    assert text(full.render()) == (
        '<tool_error code="X" severity="critical">\n<message>m</message>\n<details>\n'
        '  <detail key="a">1</detail>\n  <detail key="b">2</detail>\n</details>\n'
        "<retry_after>5 seconds</retry_after>\n</tool_error>"
    )


def test_raised_tool_errors_pass_intact_and_others_become_internal() -> None:
    @toolerr.guard("billing.void_invoice")
    def void() -> CallToolResult:
        raise toolerr.ToolErrorException(
            "FORBIDDEN", "Voiding invoices requires the billing-admin role", severity="critical"
        )

    @toolerr.guard("billing.void_invoice")
    def void_builder() -> CallToolResult:
        raise toolerr.error("FORBIDDEN", "Voiding invoices requires the billing-admin role").severity("critical")

    @toolerr.guard("billing.export_invoices")
    async def export() -> CallToolResult:
        raise RuntimeError("exporter backend unavailable")

    assert text(void()) == FORBIDDEN
    assert text(void_builder()) == FORBIDDEN
    result = asyncio.run(export())
    assert text(result) == INTERNAL
    assert "Traceback" not in text(result)


def test_unrenderable_tool_error_becomes_internal() -> None:
    result = toolerr.handle_exception(toolerr.ToolErrorException("X", "m", severity="fatal"), "t")  # type: ignore[arg-type]
    assert '<tool_error code="INTERNAL_ERROR"' in text(result)
    assert "tool error X could not be rendered: INVALID_REQUEST: tool_error: " in text(result)


def test_empty_exception_message_uses_its_type() -> None:
    assert "<message>[t] KeyError</message>" in text(toolerr.handle_exception(KeyError(), "t"))


def test_parse_round_trips() -> None:
    envelope = toolerr.parse(NOT_FOUND)
    assert isinstance(envelope, toolerr.ToolErrorEnvelope)
    assert envelope.code == "NOT_FOUND"
    assert envelope.available_actions == ["billing.list_invoices"]
    assert envelope.details == {"requestedId": "inv_999"}
    assert envelope.retry_after is None
    assert toolerr.parse(toolerr.rate_limited(3, 60, 60)).retry_after == 60  # type: ignore[union-attr]
    assert toolerr.parse("no envelope here") is None
    as_dict = {"content": [{"type": "text", "text": FORBIDDEN}], "isError": True}
    assert toolerr.parse(as_dict).severity == "critical"  # type: ignore[union-attr]


def test_check_result_raises_client_error() -> None:
    ok = CallToolResult(content=[TextContent(type="text", text="{}")], is_error=False)
    assert toolerr.check_result(ok) is ok
    failed = toolerr.rate_limited(3, 60, 60, key="billing.pay_invoice")
    with pytest.raises(toolerr.ClientError) as raised:
        toolerr.check_result(failed)
    err = raised.value
    assert (err.kind, err.code, err.severity) == ("tool_error", "RATE_LIMITED", "error")
    assert err.retry_after == 60
    assert err.recovery == 'Wait 60 seconds before retrying. Current key: "billing.pay_invoice".'
    assert err.raw is failed
    plain = CallToolResult(content=[TextContent(type="text", text="boom")], is_error=True)
    with pytest.raises(toolerr.ClientError) as raised:
        toolerr.check_result(plain)
    assert (raised.value.code, raised.value.message, raised.value.kind) == ("UNKNOWN", "boom", None)
    two = CallToolResult(content=[TextContent(type="text", text="first"), TextContent(type="text", text="second")], is_error=True)
    with pytest.raises(toolerr.ClientError) as raised:
        toolerr.check_result(two)
    assert (raised.value.code, raised.value.message, raised.value.action) == ("UNKNOWN", "first", None)
    aware = CallToolResult(content=[TextContent(type="text", text="<validation_error action=\"pay\">\n<field name=\"currency\">Required You sent: (missing).</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n\n\n<contract_awareness>\n  <system_note>IMPORTANT: The behavioral contract for tool \"billing\" has changed since your last calibration.</system_note>\n  <action>pay</action>\n  <change_count>1</change_count>\n  <max_severity>BREAKING</max_severity>\n\n  <instructions>\n    Review the contract changes below and adjust your next invocation accordingly.\n    These changes may explain why your previous arguments were rejected.\n  </instructions>\n\n  <contract_changes>\n    <change severity=\"BREAKING\" field=\"actions.pay.currency\">\n      <description>currency is now required</description>\n      <after>required</after>\n    </change>\n  </contract_changes>\n</contract_awareness>\n</validation_error>")], is_error=True)
    with pytest.raises(toolerr.ClientError) as raised:
        toolerr.check_result(aware)
    err = raised.value
    assert (err.code, err.message, err.action) == ("VALIDATION_ERROR", "invalid arguments for pay: currency", "pay")
    assert err.contract is not None and err.contract["changes"][0]["field"] == "actions.pay.currency"


def test_format_validation_reads_a_pydantic_error() -> None:
    import pydantic

    class Invoice(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(extra="forbid")
        id: str = pydantic.Field(pattern=r"^inv_[0-9]{3}$")

    args = {"id": "INV-1"}
    with pytest.raises(pydantic.ValidationError) as raised:
        Invoice.model_validate(args)
    result = toolerr.format_validation("billing.get_invoice", raised.value, args)
    assert result.is_error is True
    assert text(result).startswith('<validation_error action="billing.get_invoice">\n<field name="id">')
    assert "You sent: 'INV-1'." in text(result)
    envelope = toolerr.parse(result)
    assert isinstance(envelope, toolerr.ValidationErrorEnvelope)
    assert [f.name for f in envelope.fields] == ["id"]
