"""Test helpers for tests/vectors/v1: load the cases and build the request
bytes of a case.

A case's output is a JSON string whose text is the exact response the module
must give, so it is compared as it is; an error is compared by its code and
message (tests/README.md, "How a runner compares").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
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
    output: str | None = None  # the exact response text
    error: dict[str, str] | None = None  # {"code", "message"}

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
            output, error = c.get("output"), c.get("error")
            assert output is None or type(output) is str, f"{path.name}: {c['description']}: output must be a string"
            cases.append(Case(export, c["description"], c["input"], output, None if error is None else dict(error)))
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
