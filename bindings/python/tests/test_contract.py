"""contract_lock, contract_diff and the contract option of validate and
format_validation: every lockfile, diff and <contract_awareness> block is the
module's; the binding only turns the SDK's Tool types into JSON data."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import toolerr

ROOT = Path(__file__).resolve().parents[3]
LOCKFILE: dict[str, Any] = json.loads((ROOT / "examples" / "billing.lock.json").read_text(encoding="utf-8"))
SCHEMAS: dict[str, Any] = json.loads((ROOT / "examples" / "schemas.json").read_text(encoding="utf-8"))
TOOLS = [
    {"name": name, "description": SCHEMAS[name]["description"], "inputSchema": SCHEMAS[name]["inputSchema"]}
    for name in SCHEMAS
]

# The demo's contract change as the module reports it, shared with the Node and
# Rust tests: the two deltas and the block validate appends for pay_invoice.
SHARED: dict[str, Any] = json.loads((ROOT / "tests" / "contract" / "billing.json").read_text(encoding="utf-8"))
PAY_DELTA, LIST_DELTA = SHARED["deltas"]
PAY_AWARENESS: str = SHARED["payAwareness"]

PAY_GBP = f"""<validation_error action="billing.pay_invoice">
<field name="currency">Is not one of the allowed values. You sent: 'GBP'. Valid options: 'EUR', 'USD'.</field>
<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>{PAY_AWARENESS}
</validation_error>"""


def sdk_tools() -> list[types.Tool]:
    return [types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"]) for t in TOOLS]


def test_contract_lock_of_dicts_in_any_order() -> None:
    lock = toolerr.contract_lock(TOOLS)
    assert lock["lockfileVersion"] == 1
    assert lock["digest"].startswith("sha256:") and len(lock["digest"]) == 71
    assert [t["name"] for t in lock["tools"]] == sorted(SCHEMAS)
    for entry in lock["tools"]:
        assert list(entry["contract"]) == ["description", "inputSchema", "name"]
    shuffled = [{"inputSchema": t["inputSchema"], "name": t["name"], "description": t["description"]} for t in reversed(TOOLS)]
    assert toolerr.contract_lock(shuffled) == lock


def test_contract_lock_of_sdk_types_and_of_a_lockfile() -> None:
    lock = toolerr.contract_lock(TOOLS)
    assert toolerr.contract_lock(sdk_tools()) == lock
    assert toolerr.contract_lock(types.ListToolsResult(tools=sdk_tools())) == lock
    assert toolerr.contract_lock({"tools": TOOLS, "nextCursor": "n"}) == lock
    assert toolerr.contract_lock(tuple(sdk_tools())) == lock
    # The committed lockfile relocks to itself.
    assert toolerr.contract_lock(LOCKFILE) == LOCKFILE


def test_contract_diff_of_the_older_contract() -> None:
    diff = toolerr.contract_diff(LOCKFILE, TOOLS)
    assert diff == {"deltas": [PAY_DELTA, LIST_DELTA], "maxSeverity": "BREAKING", "backwardsCompatible": False}
    assert toolerr.contract_diff(LOCKFILE, types.ListToolsResult(tools=sdk_tools())) == diff
    assert toolerr.contract_diff(LOCKFILE, toolerr.contract_lock(sdk_tools())) == diff
    assert toolerr.contract_diff(sdk_tools(), TOOLS) == {"deltas": [], "maxSeverity": None, "backwardsCompatible": True}
    removed = toolerr.contract_diff(TOOLS, [t for t in TOOLS if t["name"] != "billing.void_invoice"])
    assert [(d["severity"], d["field"]) for d in removed["deltas"]] == [("BREAKING", "actions.billing.void_invoice")]


def test_bad_tool_sets_raise_invalid_request() -> None:
    with pytest.raises(toolerr.ToolerrError) as raised:
        toolerr.contract_lock([TOOLS[0], TOOLS[0]])
    assert raised.value.code == "INVALID_REQUEST" and raised.value.message.startswith("contract_lock: ")
    with pytest.raises(toolerr.ToolerrError) as raised:
        toolerr.contract_lock("nope")
    assert raised.value.code == "INVALID_REQUEST"
    tampered = copy.deepcopy(LOCKFILE)
    tampered["tools"][0]["contract"]["description"] = "changed"
    with pytest.raises(toolerr.ToolerrError) as raised:
        toolerr.contract_diff(tampered, TOOLS)
    assert raised.value.code == "INVALID_REQUEST" and raised.value.message.startswith("contract_diff: ")
    with pytest.raises(toolerr.ToolerrError) as raised:
        toolerr.contract_lock([{"name": "x", "inputSchema": {"when": object()}}])
    assert raised.value.message.startswith('contract_lock: "tools[0].inputSchema.when" cannot be sent as JSON')
    assert toolerr.contract_diff(TOOLS, TOOLS)["deltas"] == []  # still serving


def test_validate_with_contract_deltas_or_lockfile() -> None:
    deltas = toolerr.contract_diff(LOCKFILE, TOOLS)["deltas"]
    schema = SCHEMAS["billing.pay_invoice"]["inputSchema"]
    args = {"id": "inv_003", "amount": 9.99, "currency": "GBP"}
    result = toolerr.validate("billing.pay_invoice", schema, args, contract={"tool": "billing.pay_invoice", "deltas": deltas})
    assert result is not None and result.is_error
    assert [b.text for b in result.content] == [PAY_GBP]  # type: ignore[union-attr]
    by_lock = toolerr.validate(
        "billing.pay_invoice", schema, args, contract={"tool": "billing.pay_invoice", "lockfile": LOCKFILE, "tools": sdk_tools()}
    )
    assert by_lock == result
    ok = dict(args, currency="USD")
    assert toolerr.validate("billing.pay_invoice", schema, ok, contract={"tool": "billing.pay_invoice", "deltas": deltas}) is None
    unchanged = toolerr.validate(
        "billing.get_invoice", SCHEMAS["billing.get_invoice"]["inputSchema"], {"id": "x"},
        contract={"tool": "billing.get_invoice", "deltas": deltas},
    )
    assert unchanged is not None and "contract_awareness" not in unchanged.content[0].text  # type: ignore[union-attr]
    envelope = toolerr.parse(result)
    assert isinstance(envelope, toolerr.ValidationErrorEnvelope)
    assert envelope.contract == {
        "tool": "billing.pay_invoice", "action": "billing.pay_invoice", "changeCount": 1, "maxSeverity": "BREAKING",
        "changes": [{k: PAY_DELTA[k] for k in ("severity", "field", "description", "before", "after")}],
    }
    with pytest.raises(toolerr.ClientError) as raised:
        toolerr.check_result(result)
    assert raised.value.action == "billing.pay_invoice"
    assert raised.value.contract == envelope.contract


def test_format_validation_takes_the_contract_too() -> None:
    deltas = toolerr.contract_diff(LOCKFILE, TOOLS)["deltas"]
    issues = [{"type": "less_than_equal", "loc": ["limit"], "msg": "Input should be less than or equal to 100",
               "input": 500, "ctx": {"le": 100}}]
    result = toolerr.format_validation("billing.list_invoices", issues, {"limit": 500},
                                       contract={"tool": "billing.list_invoices", "deltas": deltas})
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith('<validation_error action="billing.list_invoices">\n'
                           '<field name="limit">Input should be less than or equal to 100. You sent: 500.</field>')
    assert """    <change severity="RISKY" field="actions.billing.list_invoices.input.limit.maximum">
      <description>Maximum of &quot;limit&quot; tightened from 500 to 100</description>
      <before>500</before>
      <after>100</after>
    </change>""" in text
    by_lock = toolerr.format_validation("billing.list_invoices", issues, {"limit": 500},
                                        contract={"tool": "billing.list_invoices", "lockfile": LOCKFILE, "tools": TOOLS})
    assert by_lock == result
    with pytest.raises(toolerr.ToolerrError):
        toolerr.format_validation("a", issues, contract={"tool": "a"})
