"""The test-side canonical writer agrees with JavaScript on known values."""

from __future__ import annotations

import pytest
from vectors import Pairs, RawNumber, canonical, js_number, js_string


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (30.0, "30"),
        (1.5, "1.5"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (-0.0, "0"),
        (120.5, "120.5"),
        (9.99, "9.99"),
        (123456789012345680000.0, "123456789012345680000"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (5e-324, "5e-324"),
        (-2.5e-8, "-2.5e-8"),
        (0.1 + 0.2, "0.30000000000000004"),
        (float("inf"), "null"),
    ],
)
def test_js_number(value: float, text: str) -> None:
    assert js_number(value) == text


def test_js_string_escapes_only_what_json_stringify_does() -> None:
    assert js_string('a"b\\c\n\t\x01\x7f<>&\u2028é') == '"a\\"b\\\\c\\n\\t\\u0001\x7f<>&\u2028é"'


def test_canonical_keeps_member_order_and_spelling() -> None:
    value = Pairs([("b", RawNumber("30.0")), ("a", [True, None, "x"])])
    assert canonical(value) == '{"b":30,"a":[true,null,"x"]}'
