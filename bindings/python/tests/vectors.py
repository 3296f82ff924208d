"""Test helpers for tests/vectors/v1: load the cases, build the request bytes
of a case, and write an expected output canonically.

This is test code, not binding code: the binding never formats numbers (the
module does); the tests need a canonical writer to turn the expected value of
a vector file into the bytes the module must produce, exactly as the Go
runner's vectors.Canonical does.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
VECTORS = ROOT / "tests" / "vectors" / "v1"


class RawNumber(str):
    """A JSON number kept as the text the file spells it with."""


class Pairs(list):  # type: ignore[type-arg]
    """A JSON object as its members in file order (repeated keys kept)."""


def _load(text: str) -> Any:
    return json.loads(text, object_pairs_hook=Pairs, parse_int=RawNumber, parse_float=RawNumber)


@dataclass
class Case:
    export: str
    description: str
    input: Any
    output: Any = None
    error: Any = None

    @property
    def id(self) -> str:
        return f"{self.export}: {self.description}"

    def request(self) -> bytes:
        """The bytes to send: the text of a string input, or else the input
        compacted with its number spelling and its escapes kept (a lone
        surrogate escape reaches the engine as the escape)."""
        if isinstance(self.input, str) and not isinstance(self.input, RawNumber):
            # As Go's vectors.Case.Request: a lone surrogate in the decoded
            # text is U+FFFD (none of the files has one today).
            return re.sub("[\ud800-\udfff]", "\ufffd", self.input).encode("utf-8")
        return compact_input(self.input).encode("utf-8", "backslashreplace")


def load_cases() -> list[Case]:
    files = sorted(VECTORS.glob("*.json"))
    assert files, f"no vector files in {VECTORS}"
    cases = []
    for path in files:
        doc = dict(_load(path.read_text(encoding="utf-8")))
        export = doc["export"]
        for raw_case in doc["cases"]:
            c = dict(raw_case)
            cases.append(Case(export, c["description"], c["input"], c.get("output"), c.get("error")))
    return cases


def compact_input(value: Any) -> str:
    """Compact JSON text of a loaded value, numbers spelt as in the file and
    lone surrogates left as Python surrogates (encode with
    'backslashreplace' to write them back as their escapes)."""
    if isinstance(value, RawNumber):
        return str(value)
    if isinstance(value, Pairs):
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{compact_input(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(compact_input(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def canonical(value: Any) -> str:
    """Compact JSON as JSON.stringify writes it (see tests/README.md)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, RawNumber):
        return js_number(float(value))
    if isinstance(value, Pairs):
        return "{" + ",".join(f"{js_string(k)}:{canonical(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, (int, float)):
        return js_number(float(value))
    raise TypeError(f"unexpected {type(value).__name__}")


_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def js_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            out.append("\ufffd")  # as Go's vectors.Canonical: invalid text becomes U+FFFD
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def js_number(x: float) -> str:
    """ECMAScript Number::toString(x), with JSON.stringify's null for
    non-finite values."""
    if not math.isfinite(x):
        return "null"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # repr gives the shortest digits that round-trip, as ECMAScript requires.
    _, digit_tuple, exponent = Decimal(repr(abs(x))).as_tuple()
    digits = "".join(map(str, digit_tuple))
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = exponent + k  # x = 0.digits * 10**n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        body = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + body
