"""The billing demo, played against the Python server as a real subprocess
over stdio, with the SDK's own ClientSession.

The calls are the billing scenario of examples/scenario.json, session by
session and in order: every content block is asserted byte for byte with the
scenario's answer (the texts every server returns), then what the binding's
``check_result`` reads back with the scenario's expectation. A validation
failure must also be exactly what toolerr's ``validate`` export answers for
that tool's shared schema and those arguments, given what ``contract_diff``
says changed since examples/billing.lock.json.
"""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
import toolerr
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from conftest import LOCKFILE, SCENARIO, SCHEMAS, call_named, stdio_session, texts

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "examples" / "python" / "billing_server.py"
VALIDATION_RECOVERY = "Fix the fields above and call the tool again. Do not explain the error."

TOOLS = [{"name": n, "description": SCHEMAS[n]["description"], "inputSchema": SCHEMAS[n]["inputSchema"]} for n in SCHEMAS]
DELTAS: list[dict[str, Any]] = toolerr.contract_diff(LOCKFILE, TOOLS)["deltas"]


def changes_of(tool: str) -> list[dict[str, Any]]:
    """The changes a <contract_awareness> of the tool names: the lockfile's
    BREAKING and RISKY deltas that concern it, in order (at most 5)."""
    kept = [
        d
        for d in DELTAS
        if d["severity"] in ("BREAKING", "RISKY") and ("actions." not in d["field"] or f"actions.{tool}" in d["field"])
    ]
    return [{k: d[k] for k in ("severity", "field", "description", "before", "after")} for d in kept[:5]]


def content(text: str) -> str:
    """text escaped for an element body, by the module."""
    return toolerr.escape(text, "content")


def attr(text: str) -> str:
    """text escaped for an attribute, by the module."""
    return toolerr.escape(text, "attribute")


def billing_session() -> AbstractAsyncContextManager[ClientSession]:
    return stdio_session(SERVER)


def read_back_failures(call: dict[str, Any], got: list[str], err: toolerr.ClientError) -> list[str]:
    """How what check_result read back differs from the call's expectation."""
    expect, name = call["expect"], call["name"]
    failures = []
    want = (expect["kind"], expect["code"], expect["severity"], expect["recovery"])
    if (err.kind, err.code, err.severity, err.recovery is not None) != want:
        failures.append(f"{name}: read back {err.kind} {err.code} {err.severity} recovery {err.recovery!r}, want {want}")
    # What is read back is what the text says.
    if err.recovery is not None and f"\n<recovery>{content(err.recovery)}</recovery>\n" not in got[0]:
        failures.append(f"{name}: recovery {err.recovery!r} is not the text's")
    if "message" in expect and err.message != expect["message"]:
        failures.append(f"{name}: message {err.message!r}, want {expect['message']!r}")
    if expect["kind"] == "tool_error" and f"\n<message>{content(err.message)}</message>\n" not in got[0]:
        failures.append(f"{name}: message {err.message!r} is not the text's")
    if "actions" in expect and err.available_actions != expect["actions"]:
        failures.append(f"{name}: actions {err.available_actions}")
    # XML carries no types: a number detail parses back as its text.
    if "details" in expect and list(err.details.items()) != list(expect["details"].items()):
        failures.append(f"{name}: details {err.details}")
    if "retryAfter" in expect and err.retry_after != expect["retryAfter"]:
        failures.append(f"{name}: retry_after {err.retry_after}")
    if expect["kind"] != "validation_error":
        return failures
    if [f.name for f in err.fields] != expect["fields"]:
        failures.append(f"{name}: fields {[f.name for f in err.fields]}")
    for f in err.fields:
        if f'\n<field name="{attr(f.name)}">{content(f.message)}</field>\n' not in got[0]:
            failures.append(f"{name}: field {f} is not the text's")
    if err.recovery != VALIDATION_RECOVERY or err.action != call["tool"]:
        failures.append(f"{name}: recovery {err.recovery!r}, action {err.action!r}")
    if "contract" not in expect:
        if err.contract is not None:
            failures.append(f"{name}: contract {err.contract}, want none")
    else:
        changes = changes_of(call["tool"])
        want_contract = {
            "tool": call["tool"],
            "action": call["tool"],
            "changeCount": len(changes),
            "maxSeverity": expect["contract"],
            "changes": changes,
        }
        if err.contract != want_contract:
            failures.append(f"{name}: contract {err.contract}, want {want_contract}")
    return failures


async def run_call(session: ClientSession, call: dict[str, Any]) -> list[str]:
    """Make one call of the scenario; return its failures."""
    name, expect, answer = call["name"], call["expect"], call["answer"]
    result = await session.call_tool(call["tool"], call.get("arguments"))
    got = texts(result)
    failures = []
    if got != answer["content"]:
        failures.append(f"{name}: content\n{got}\nwant\n{answer['content']}")
    if result.is_error is not answer["isError"]:
        failures.append(f"{name}: isError {result.is_error}, want {answer['isError']}")
    if not got:
        return failures + [f"{name}: no content"]
    if expect["kind"] in ("success", "warning"):
        toolerr.check_result(result)  # warnings included: no ClientError
        if len(got) != (1 if expect["kind"] == "success" else 2) or json.loads(got[-1]) != expect["payload"]:
            failures.append(f"{name}: want the payload {expect['payload']}")
        if expect["kind"] == "warning":
            warning = toolerr.parse(got[0])
            if not isinstance(warning, toolerr.ToolErrorEnvelope) or (
                warning.code,
                warning.severity,
                warning.is_error,
                warning.recovery is not None,
            ) != (expect["code"], expect["severity"], False, expect["recovery"]):
                failures.append(f"{name}: warning read back as {warning}")
        return failures
    with pytest.raises(toolerr.ClientError) as raised:
        toolerr.check_result(result)
    return failures + read_back_failures(call, got, raised.value)


@pytest.mark.anyio
async def test_billing_scenario() -> None:
    failures: list[str] = []
    for i, scenario_session in enumerate(SCENARIO["sessions"]):
        async with billing_session() as session:
            if i == 0:
                assert session.initialize_result.server_info.name == "billing-python"  # type: ignore[union-attr]
                listed = await session.list_tools()
                assert [t.name for t in listed.tools] == sorted(SCHEMAS)
                for tool in listed.tools:
                    assert tool.description == SCHEMAS[tool.name]["description"]
                    assert tool.input_schema == SCHEMAS[tool.name]["inputSchema"]
            for call in scenario_session["calls"]:
                failures += await run_call(session, call)
            if i == 0:
                with pytest.raises(MCPError) as raised:
                    await session.call_tool("billing.refund_invoice", {})
                assert "Unknown tool: billing.refund_invoice" in str(raised.value)
    assert not failures, "\n\n".join(failures)


@pytest.mark.anyio
async def test_call_tool_helper_raises_client_error() -> None:
    paid, unknown = call_named("get a paid invoice"), call_named("get an unknown invoice is NOT_FOUND")
    async with billing_session() as session:
        ok = await toolerr.call_tool(session, paid["tool"], paid["arguments"])
        assert texts(ok) == paid["answer"]["content"]
        with pytest.raises(toolerr.ClientError) as raised:
            await toolerr.call_tool(session, unknown["tool"], unknown["arguments"])
        assert raised.value.code == unknown["expect"]["code"]
        assert raised.value.recovery is not None
        assert f"\n<recovery>{content(raised.value.recovery)}</recovery>\n" in unknown["answer"]["content"][0]


def test_validation_errors_are_validate_with_the_lockfile_diff() -> None:
    """Every validation error of the scenario is what the module's validate
    answers for the tool's shared schema, given what contract_diff says of
    examples/billing.lock.json against the shared tools; and the server reads
    that very file."""
    count = 0
    for session in SCENARIO["sessions"]:
        for call in session["calls"]:
            if call["expect"]["kind"] != "validation_error":
                continue
            tool = call["tool"]
            invalid = toolerr.validate(tool, SCHEMAS[tool]["inputSchema"], call.get("arguments", {}), {"tool": tool, "deltas": DELTAS})
            assert invalid is not None, f"{call['name']}: validate accepted {call.get('arguments')}"
            assert texts(invalid) == call["answer"]["content"], call["name"]
            assert ("<contract_awareness>" in texts(invalid)[0]) == ("contract" in call["expect"]), call["name"]
            count += 1
    assert count > 0
    source = SERVER.read_text(encoding="utf-8")
    assert 'Path(__file__).resolve().parent.parent / "billing.lock.json"' in source


@pytest.mark.anyio
async def test_pay_in_gbp_carries_the_awareness_block() -> None:
    call = call_named("pay in an unsupported currency")
    async with billing_session() as session:
        result = await session.call_tool(call["tool"], call["arguments"])
    assert result.is_error is True
    assert texts(result) == call["answer"]["content"]
    assert "\n\n\n<contract_awareness>\n" in texts(result)[0]
