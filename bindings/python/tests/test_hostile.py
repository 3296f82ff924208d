"""The hostile ABI requests of the security issue, sent as raw request text through ``call``.

Each one is refused with the expected typed error (or answered correctly) within a bound, and
the very next valid call on the same module still answers exactly.
"""

from __future__ import annotations

import json
import re
import time
from typing import Callable

import toolerr

MAX_REQUEST_BYTES = 4194304
BOUND_S = 10.0
REQUIRED_ID = (
    '<tool_error code="MISSING_REQUIRED_FIELD">\n'
    '<message>Required field "id" is missing.</message>\n'
    '<recovery>Provide the "id" parameter and retry.</recovery>\n'
    "</tool_error>"
)


def parse_of_size(size: int) -> str:
    """A ``parse`` request whose JSON text is exactly ``size`` bytes (ASCII)."""
    pre, post = '{"text":"', '"}'
    return pre + "a" * (size - len(pre) - len(post)) + post


def with_details(n: int) -> str:
    return '{"code":"X","message":"m","details":{' + ",".join(f'"k{i}":1' for i in range(n)) + "}}"


def rate(max_: str) -> str:
    return '{"max":' + max_ + ',"windowSeconds":60,"retryAfter":60}'


def answers_null_envelope(out: str) -> None:
    assert out == '{"envelope":null}'


def answers_100000_details(out: str) -> None:
    # Pinned: 100,000 details (about 1 MB, at most 200,000 values) are answered, in order.
    result = json.loads(out)
    assert result["isError"] is True
    lines = [line for line in result["content"][0]["text"].split("\n") if line.startswith("  <detail key=")]
    assert len(lines) == 100_000
    assert lines[0] == '  <detail key="k0">1</detail>'
    assert lines[-1] == '  <detail key="k99999">1</detail>'


def answers_minus_zero_as_zero(out: str) -> None:
    text = json.loads(out)["content"][0]["text"]
    assert text.startswith(
        '<tool_error code="RATE_LIMITED" severity="error">\n'
        "<message>Rate limit exceeded. Maximum 0 requests per 60s window.</message>"
    ), text


# (name, export, request text, expected): expected is (code, message or regex or None) for a
# typed error, or a callable checking the response text.
Expected = tuple[str, "str | re.Pattern[str] | None"] | Callable[[str], None]
CASES: list[tuple[str, str, str, Expected]] = [
    ("malformed JSON", "tool_error", '{"code":', ("INVALID_REQUEST", "tool_error: request is not valid JSON: unexpected end of input at offset 8")),
    ("wrong type", "tool_error", '{"code":"X","message":42}', ("INVALID_REQUEST", 'tool_error: "message" must be a string, got number')),
    ("missing required field", "tool_error", '{"code":"X"}', ("INVALID_REQUEST", 'tool_error: "message" is required')),
    ("just over maxRequestBytes", "parse", parse_of_size(MAX_REQUEST_BYTES + 1), ("REQUEST_TOO_LARGE", None)),
    ("just under (at) maxRequestBytes", "parse", parse_of_size(MAX_REQUEST_BYTES), answers_null_envelope),
    ("nested 100,000 deep", "tool_error", "[" * 100_000 + "]" * 100_000, ("INVALID_REQUEST", re.compile("nesting deeper than 256"))),
    ("64 MiB string", "parse", '{"text":"' + "a" * (64 * 1024 * 1024) + '"}', ("REQUEST_TOO_LARGE", None)),
    ("1,000,000 details", "tool_error", with_details(1_000_000), ("REQUEST_TOO_LARGE", None)),
    ("100,000 details", "tool_error", with_details(100_000), answers_100000_details),
    ("NaN", "rate_limited", rate("NaN"), ("INVALID_REQUEST", re.compile("not valid JSON"))),
    ("Infinity", "rate_limited", rate("Infinity"), ("INVALID_REQUEST", re.compile("not valid JSON"))),
    ("-Infinity", "rate_limited", rate("-Infinity"), ("INVALID_REQUEST", re.compile("not valid JSON"))),
    ("1e999", "rate_limited", rate("1e999"), ("INVALID_REQUEST", 'rate_limited: "max" must be a finite number')),
    ("-0 renders as 0", "rate_limited", rate("-0"), answers_minus_zero_as_zero),
    ("$ref '#' schema", "validate", '{"action":"a","schema":{"$ref":"#"},"args":{}}', ("INVALID_REQUEST", re.compile("^validate: "))),
]


def test_hostile_requests_are_refused_in_bound_and_the_module_keeps_serving() -> None:
    module = toolerr.Toolerr(max_instances=1)  # one instance: the next call runs where the hostile one did
    count = 0
    for name, export, request, expected in CASES:
        count += 1
        started = time.monotonic()
        out: str | None = None
        error: BaseException | None = None
        try:
            out = module.call(export, request)
        except Exception as exc:  # noqa: BLE001 - checked below
            error = exc
        elapsed = time.monotonic() - started
        assert elapsed < BOUND_S, f"{name}: took {elapsed:.1f} s"
        if callable(expected):
            assert error is None, f"{name}: unexpected error {error!r}"
            assert out is not None
            expected(out)
        else:
            code, message = expected
            assert isinstance(error, toolerr.ToolerrError), f"{name}: expected ToolerrError, got {error!r} / {(out or '')[:100]}"
            assert error.code == code, f"{name}: {error.code} {error.message}"
            if isinstance(message, re.Pattern):
                assert message.search(error.message), f"{name}: {error.message}"
            elif message is not None:
                assert error.message == message, name
        nxt = json.loads(module.call("required_field", '{"field":"id"}'))
        assert nxt == {"content": [{"type": "text", "text": REQUIRED_ID}], "isError": True}, f"after {name}"
    print(f"hostile requests sent: {count}")
    assert count == len(CASES)
