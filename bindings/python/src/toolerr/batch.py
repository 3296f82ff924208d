"""``python -m toolerr.batch``: the batch protocol (docs/CONTRACT.md, "Batch protocol").

Reads JSON lines ``{"op": EXPORT, "input": ...}`` on stdin and writes, for
each, exactly one line on stdout: the response JSON as the module wrote it,
or ``{"error":{"code":...,"message":...}}``. The framing is the one every
batch command applies: a line ends at LF only; JSON whitespace (space, tab,
CR) around it is dropped and nothing else is whitespace; a line left empty
gets no answer; any other line must be one JSON object, whose last ``op``
and last ``input`` count. A string ``input`` is a raw request (its text is
sent as it is); any other ``input`` is sent as the very bytes the line
holds; a missing ``input`` sends ``{}``. Nothing else is written to stdout.

``--engine extism`` runs the calls on the extism engine instead of the
default raw one (:class:`toolerr.Toolerr`'s ``engine``).
"""

from __future__ import annotations

import os
import re
import sys
from typing import BinaryIO, Iterator

from ._engine import ENGINES, WASI_OUTPUT_VARIABLE, Toolerr
from ._errors import ToolerrError

#: The longest line read whole: a request at the module's limit written as a JSON string (each
#: byte escaped at worst doubles), plus room for the op. A longer one is answered
#: REQUEST_TOO_LARGE without being kept.
MAX_LINE = 2 * 4194304 + (1 << 20)
_NOT_OBJECT = 'is not a JSON object {"op","input"}'

_SPACE = re.compile(rb"[ \t\r\n]*")
_STRING = re.compile(rb'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_SIMPLE_ESCAPES = {ord("b"): b"\b", ord("f"): b"\f", ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t"}


class _NotObject(Exception):
    pass


class _Scanner:
    """Reads one line as a JSON object, of any depth, without reading its
    strings as text: they may hold any bytes but control characters, and any
    \\u escape."""

    def __init__(self, b: bytes) -> None:
        self.b = b
        self.pos = 0

    def space(self) -> None:
        m = _SPACE.match(self.b, self.pos)
        assert m is not None
        self.pos = m.end()

    def peek(self) -> int:
        return self.b[self.pos] if self.pos < len(self.b) else -1

    def expect(self, pattern: re.Pattern[bytes]) -> None:
        m = pattern.match(self.b, self.pos)
        if m is None:
            raise _NotObject
        self.pos = m.end()

    def key(self) -> None:
        self.space()
        self.expect(_STRING)
        self.space()
        if self.peek() != ord(":"):
            raise _NotObject
        self.pos += 1

    def value(self) -> None:
        """Read one JSON value, iteratively."""
        open_: list[int] = []
        while True:
            self.space()
            c = self.peek()
            if c in (ord("{"), ord("[")):
                self.pos += 1
                self.space()
                if self.peek() == (ord("}") if c == ord("{") else ord("]")):
                    self.pos += 1
                else:
                    open_.append(c)
                    if c == ord("{"):
                        self.key()
                    continue
            elif c == ord('"'):
                self.expect(_STRING)
            elif c in (ord("t"), ord("f"), ord("n")):
                word = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}[c]
                if not self.b.startswith(word, self.pos):
                    raise _NotObject
                self.pos += len(word)
            elif c == ord("-") or ord("0") <= c <= ord("9"):
                self.expect(_NUMBER)
            else:
                raise _NotObject
            while True:
                if not open_:
                    return
                self.space()
                top, d = open_[-1], self.peek()
                if d == ord(","):
                    self.pos += 1
                    if top == ord("{"):
                        self.key()
                    break
                if (top, d) in ((ord("{"), ord("}")), (ord("["), ord("]"))):
                    self.pos += 1
                    open_.pop()
                    continue
                raise _NotObject


def decode_string(lit: bytes) -> bytes:
    """Decode a JSON string literal (quotes included) the scanner accepted:
    escapes decoded, a \\u escape of a lone surrogate as U+FFFD (as the
    module reads one), every other byte as it is."""
    body = lit[1:-1]
    out = bytearray()
    i = 0
    while True:
        j = body.find(b"\\", i)
        if j < 0:
            out += body[i:]
            return bytes(out)
        out += body[i:j]
        e = body[j + 1]
        if e == ord("u"):
            cp = int(body[j + 2 : j + 6], 16)
            i = j + 6
            if 0xD800 <= cp < 0xDC00 and body.startswith(b"\\u", i):
                low = int(body[i + 2 : i + 6], 16)
                if 0xDC00 <= low < 0xE000:
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
            out += ("\ufffd" if 0xD800 <= cp < 0xE000 else chr(cp)).encode("utf-8")
        else:
            out += _SIMPLE_ESCAPES.get(e, bytes([e]))  # " \\ /
            i = j + 2


def read_line(line: bytes, n: int) -> tuple[str, bytes]:
    """Return a trimmed, non-empty line's export and the request to send:
    the raw text of a string ``input``, or else the bytes of ``input`` as the
    line holds them."""
    s = _Scanner(line)
    op: bytes | None = None
    request = b"{}"
    try:
        if s.peek() != ord("{"):
            raise _NotObject
        s.pos += 1
        s.space()
        if s.peek() == ord("}"):
            s.pos += 1
        else:
            while True:
                s.space()
                start = s.pos
                s.expect(_STRING)
                key = decode_string(line[start : s.pos])
                s.space()
                if s.peek() != ord(":"):
                    raise _NotObject
                s.pos += 1
                s.space()
                at = s.pos
                s.value()
                if key == b"op":
                    op = line[at : s.pos]
                elif key == b"input":
                    value = line[at : s.pos]
                    request = decode_string(value) if value[:1] == b'"' else value
                s.space()
                if s.peek() == ord(","):
                    s.pos += 1
                    continue
                if s.peek() == ord("}"):
                    s.pos += 1
                    break
                raise _NotObject
        s.space()
        if s.pos != len(line):
            raise _NotObject
    except (_NotObject, IndexError):
        raise ToolerrError("INVALID_REQUEST", f"batch: line {n} {_NOT_OBJECT}") from None
    name = decode_string(op).decode("utf-8", "replace") if op is not None and op[:1] == b'"' else ""
    if not name:
        raise ToolerrError("INVALID_REQUEST", f'batch: line {n}: "op" must be a non-empty string')
    return name, request


def _lines(stdin: BinaryIO) -> Iterator[bytes | None]:
    """Each line of stdin without its LF; None for one over MAX_LINE, which
    is read to its end and dropped."""
    while True:
        data = stdin.readline(MAX_LINE + 1)
        if not data:
            return
        if data.endswith(b"\n"):
            yield data[:-1]
            continue
        if len(data) <= MAX_LINE:
            yield data  # the last line, with no LF
            continue
        while data and not data.endswith(b"\n"):
            data = stdin.readline(1 << 20)
        yield None


def run(module: Toolerr, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer every line of stdin on stdout, one line each, in order."""
    for n, data in enumerate(_lines(stdin), start=1):
        try:
            if data is None:
                raise ToolerrError("REQUEST_TOO_LARGE", f"batch: line {n} is longer than {MAX_LINE} bytes")
            line = data.strip(b" \t\r\n")
            if not line:
                continue
            op, request = read_line(line, n)
            out = module.call(op, request).encode("utf-8")
        except ToolerrError as exc:
            out = b'{"error":' + exc.to_json().encode("utf-8") + b"}"
        except Exception as exc:  # noqa: BLE001 - one bad line never stops the batch
            failure = ToolerrError("INTERNAL", f"batch: {type(exc).__name__}: {exc}")
            out = b'{"error":' + failure.to_json().encode("utf-8") + b"}"
        stdout.write(out + b"\n")
        stdout.flush()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    engine = "raw"
    if args[:1] == ["--engine"] and len(args) == 2 and args[1] in ENGINES:
        engine = args[1]
    elif args:
        print(f"usage: python -m toolerr.batch [--engine {'|'.join(ENGINES)}]", file=sys.stderr)
        return 2
    # stdout carries only protocol lines: the module's WASI output stays discarded.
    os.environ.pop(WASI_OUTPUT_VARIABLE, None)
    try:
        module = Toolerr(engine=engine)  # type: ignore[arg-type]
    except ToolerrError as exc:
        print(f"toolerr.batch: {exc}", file=sys.stderr)
        return 1
    run(module, sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
