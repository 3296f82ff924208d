"""``python -m toolerr.batch``: the batch protocol (docs/CONTRACT.md, "Batch protocol").

Reads JSON lines ``{"op": EXPORT, "input": ...}`` on stdin and writes, for
each non-blank line, exactly one line on stdout: the response JSON as the
module wrote it, or ``{"error":{"code":...,"message":...}}``. A string
``input`` is a raw request (its text is sent as it is); any other ``input``
is sent as the very JSON text the line holds (key order, number spelling and
escapes as written); a missing ``input`` sends ``{}``. A bad line gets an
error line and the batch goes on. Nothing else is written to stdout.
"""

from __future__ import annotations

import json
import os
import sys
from json.decoder import scanstring  # type: ignore[attr-defined]  # C-accelerated; not in typeshed
from typing import BinaryIO

from ._engine import WASI_OUTPUT_VARIABLE, Toolerr, encode_request
from ._errors import ToolerrError

_WHITESPACE = " \t\n\r"
_decoder = json.JSONDecoder()


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    return i


def read_line(line: str) -> tuple[str, str | bytes]:
    """Return a line's export and the request to send: the raw text of a
    string ``input``, or else the bytes of ``input``'s JSON text as the line
    holds it."""
    try:
        parsed = json.loads(line)
    except ValueError as exc:
        raise ToolerrError("INVALID_REQUEST", f'batch: line is not {{"op","input"}}: {exc}') from None
    if not isinstance(parsed, dict):
        raise ToolerrError("INVALID_REQUEST", 'batch: line is not {"op","input"}: not a JSON object')
    op = parsed.get("op")
    if op is None or op == "":
        raise ToolerrError("INVALID_REQUEST", 'batch: "op" is required')
    if not isinstance(op, str):
        raise ToolerrError("INVALID_REQUEST", 'batch: "op" must be a string')
    # The line is valid JSON: walk its top-level members to keep the raw
    # text of "input" (the last one wins, as json.loads decides).
    request: str | bytes = b"{}"
    i = _skip(line, 0) + 1  # past "{"
    while True:
        i = _skip(line, i)
        if line[i] == "}":
            break
        key, i = scanstring(line, i + 1)
        i = _skip(line, i) + 1  # past ":"
        start = _skip(line, i)
        value, i = _decoder.raw_decode(line, start)
        if key == "input":
            # A string is a raw request; anything else is sent as the line
            # writes it, so a \ud800 in the line reaches the module as \ud800.
            request = value if isinstance(value, str) else line[start:i].encode("utf-8")
        i = _skip(line, i)
        if line[i] == ",":
            i += 1
    return op, request


def run(module: Toolerr, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer every line of stdin on stdout, one line each, in order."""
    for data in stdin:
        line = data.decode("utf-8", "replace").strip(_WHITESPACE)
        if not line:
            continue
        try:
            op, request = read_line(line)
            if isinstance(request, str):
                request = encode_request(op, request)
            out = module.call(op, request).encode("utf-8")
        except ToolerrError as exc:
            out = b'{"error":' + exc.to_json().encode("utf-8") + b"}"
        except Exception as exc:  # noqa: BLE001 - one bad line never stops the batch
            failure = ToolerrError("INTERNAL", f"batch: {type(exc).__name__}: {exc}")
            out = b'{"error":' + failure.to_json().encode("utf-8") + b"}"
        stdout.write(out + b"\n")
        stdout.flush()


def main() -> int:
    # stdout carries only protocol lines: the module's WASI output stays discarded.
    os.environ.pop(WASI_OUTPUT_VARIABLE, None)
    try:
        module = Toolerr()
    except ToolerrError as exc:
        print(f"toolerr.batch: {exc}", file=sys.stderr)
        return 1
    run(module, sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
