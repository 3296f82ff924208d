"""Requests the binding cannot encode raise ToolerrError, never a bare Python error.

Deep, cyclic or huge values in any request (validate's args, tool_error's details, the tools of
contract_lock and contract_diff, a contract) are refused as INVALID_REQUEST with a message that
starts with the export and names the field and the problem, as the module words its own refusals;
a request over the size limit is REQUEST_TOO_LARGE.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import mcp_types as types
import pytest

import toolerr
from toolerr import _abi


def nested(depth: int, leaf: Any = None) -> Any:
    """A list nested depth levels deep (depth 1: [leaf])."""
    value: Any = [] if leaf is None else [leaf]
    for _ in range(depth - 1):
        value = [value]
    return value


def cyclic() -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    value["self"] = value
    return value


def refusal(call: Callable[[], Any]) -> toolerr.ToolerrError:
    try:
        call()
    except toolerr.ToolerrError as exc:
        return exc
    except BaseException as exc:  # noqa: BLE001 - the point of the test
        pytest.fail(f"raised {type(exc).__name__}: {exc}")
    pytest.fail("no error")


SCHEMA = {"type": "object"}


@pytest.mark.parametrize(
    ("name", "call", "code", "start", "contains"),
    [
        (
            "validate args 10,000 deep",
            lambda: toolerr.validate("a", SCHEMA, {"x": nested(10_000)}),
            "INVALID_REQUEST",
            'validate: "args.x[0][0]',
            "is nested deeper than 256 levels of arrays and objects",
        ),
        (
            "validate args deeper than the recursion limit",
            lambda: toolerr.validate("a", SCHEMA, nested(sys.getrecursionlimit() * 3)),
            "INVALID_REQUEST",
            'validate: "args[0]',
            "is nested deeper than 256 levels",
        ),
        (
            "validate cyclic args",
            lambda: toolerr.validate("a", SCHEMA, cyclic()),
            "INVALID_REQUEST",
            'validate: "args.self" contains a circular reference',
            "",
        ),
        (
            "a list containing itself",
            lambda: toolerr.validate("a", SCHEMA, {"l": (lambda l: (l.append(l), l)[1])([])}),
            "INVALID_REQUEST",
            'validate: "args.l[0]" contains a circular reference',
            "",
        ),
        (
            "an integer beyond a 64-bit float",
            lambda: toolerr.tool_error("X", "m", details={"n": 10**400}),
            "INVALID_REQUEST",
            'tool_error: "details.n" must be a finite number, got an integer beyond the range of a 64-bit float',
            "",
        ),
        (
            "an integer past Python's digit limit",
            lambda: toolerr.validate("a", SCHEMA, {"n": -(10**5000)}),
            "INVALID_REQUEST",
            'validate: "args.n" must be a finite number',
            "",
        ),
        (
            "tools nested 10,000 deep",
            lambda: toolerr.contract_lock([{"name": "t", "inputSchema": {"x": nested(10_000)}}]),
            "INVALID_REQUEST",
            'contract_lock: "tools[0].inputSchema.x[0]',
            "is nested deeper than 256 levels",
        ),
        (
            "cyclic tools",
            lambda: toolerr.contract_diff([cyclic()], []),
            "INVALID_REQUEST",
            'contract_diff: "before[0].self" contains a circular reference',
            "",
        ),
        (
            "a cycle through a list that holds a Tool model",
            lambda: toolerr.contract_lock((lambda l: (l.append(l), l)[1])([types.Tool(name="t", input_schema=SCHEMA)])),
            "INVALID_REQUEST",
            'contract_lock: "tools[1]" contains a circular reference',
            "",
        ),
        (
            "a cyclic contract",
            lambda: toolerr.format_validation("a", [], contract={"tool": "t", "deltas": [cyclic()]}),
            "INVALID_REQUEST",
            'format_validation: "contract.deltas[0].self" contains a circular reference',
            "",
        ),
        (
            "args over the request limit",
            lambda: toolerr.validate("a", SCHEMA, {"s": "x" * (4 * 1024 * 1024)}),
            "REQUEST_TOO_LARGE",
            "validate: request is ",
            "over the limit of 4194304",
        ),
    ],
)
def test_unencodable_requests_raise_toolerr_errors(
    name: str, call: Callable[[], Any], code: str, start: str, contains: str
) -> None:
    raised = refusal(call)
    assert raised.code == code, (name, raised.message)
    assert raised.message.startswith(start), (name, raised.message)
    assert contains in raised.message, (name, raised.message)
    assert len(raised.message) < 400, "a deep field's path is cut in the middle"


def test_nesting_up_to_the_module_limit_is_sent() -> None:
    # The request object is level 1, so args may nest 255 levels: exactly what the module reads.
    assert toolerr.validate("a", True, nested(_abi.MAX_DEPTH - 1)) is None
    raised = refusal(lambda: toolerr.validate("a", True, nested(_abi.MAX_DEPTH)))
    assert raised.code == "INVALID_REQUEST"
    # The module refuses the same depth with the same code.
    text = "[" * _abi.MAX_DEPTH + "]" * _abi.MAX_DEPTH
    raw = refusal(lambda: toolerr.default().call("validate", '{"action":"a","schema":true,"args":' + text + "}"))
    assert raw.code == "INVALID_REQUEST"


def test_shared_values_that_are_not_cycles_are_sent() -> None:
    shared = {"k": [1, 2]}
    assert toolerr.validate("a", SCHEMA, {"a": shared, "b": shared, "c": [shared, shared]}) is None


def test_a_large_finite_integer_is_sent() -> None:
    result = toolerr.tool_error("X", "m", details={"n": 10**300})
    assert "1e+300" in result.content[0].text
