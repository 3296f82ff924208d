"""Bad input raises a typed error naming the field; the module keeps serving."""

from __future__ import annotations

import datetime

import pytest
import toolerr

GOOD = '<tool_error code="X" severity="error">\n<message>m</message>\n</tool_error>'


def still_serves() -> None:
    assert toolerr.tool_error("X", "m").content[0].text == GOOD


@pytest.mark.parametrize(
    ("call", "code", "message"),
    [
        (lambda: toolerr.tool_error("X", None), "INVALID_REQUEST", 'tool_error: "message" must be a string, got null'),
        (lambda: toolerr.tool_error("", "m"), "INVALID_REQUEST", None),
        (lambda: toolerr.tool_error(3, "m"), "INVALID_REQUEST", None),
        (lambda: toolerr.tool_error("X", "m", severity="fatal"), "INVALID_REQUEST", None),
        (lambda: toolerr.tool_error("X", "m", details={"k": [1]}), "INVALID_REQUEST", None),
        (lambda: toolerr.tool_error("X", "m", retry_after="soon"), "INVALID_REQUEST", None),
        (lambda: toolerr.call("tool_error", "{"), "INVALID_REQUEST", None),
        (lambda: toolerr.call("tool_error", '{"code":"X"}'), "INVALID_REQUEST", 'tool_error: "message" is required'),
        (lambda: toolerr.call("no_such_export", {}), "INVALID_REQUEST", 'unknown export "no_such_export"'),
        (lambda: toolerr.rate_limited(3, 60, None), "INVALID_REQUEST", None),
        (lambda: toolerr.server_busy("t", "1", 0), "INVALID_REQUEST", None),
        (lambda: toolerr.escape("x", "body"), "INVALID_REQUEST", None),
    ],
)
def test_module_errors_are_typed(call, code: str, message: str | None) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(toolerr.ToolerrError) as raised:
        call()
    assert raised.value.code == code
    if message is not None:
        assert raised.value.message == message
    still_serves()


def test_module_error_names_the_field() -> None:
    with pytest.raises(toolerr.ToolerrError) as raised:
        toolerr.tool_error("X", "m", details={"k": {"nested": 1}})
    assert raised.value.message.startswith('tool_error: "details.k"')
    still_serves()


@pytest.mark.parametrize(
    ("details", "message"),
    [
        ({"when": datetime.date(2026, 1, 2)}, 'tool_error: "details.when" cannot be sent as JSON: date datetime.date(2026, 1, 2)'),
        ({"ratio": float("nan")}, 'tool_error: "details.ratio" must be a finite number, got nan'),
        ({1: "x"}, 'tool_error: "details" has a key that is not a string: 1'),
    ],
)
def test_values_json_cannot_carry_name_the_field(details: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(toolerr.ToolerrError) as raised:
        toolerr.tool_error("X", "m", details=details)
    assert (raised.value.code, raised.value.message) == ("INVALID_REQUEST", message)
    still_serves()


def test_infinite_retry_after_names_the_field() -> None:
    with pytest.raises(toolerr.ToolerrError) as raised:
        toolerr.tool_error("X", "m", retry_after=float("inf"))
    assert raised.value.message == 'tool_error: "retryAfter" must be a finite number, got inf'
    still_serves()


def test_request_too_large_is_refused_before_the_module() -> None:
    limit = toolerr.describe()["limits"]["maxRequestBytes"]
    with pytest.raises(toolerr.ToolerrError) as raised:
        toolerr.escape("a" * limit)
    assert raised.value.code == "REQUEST_TOO_LARGE"
    assert raised.value.message.startswith("escape: request is ")
    still_serves()


def test_error_str_carries_code_and_message() -> None:
    err = toolerr.ToolerrError("INVALID_REQUEST", "x")
    assert str(err) == "INVALID_REQUEST: x"
    assert err.to_json() == '{"code":"INVALID_REQUEST","message":"x"}'
