"""The stdio gate: a filter on the client's lines between stdin and the MCP SDK.

The four billing servers (Go, Node, Python, Rust) run the same gate, line for line the same rules
(the Go one, examples/go/gate.go, says why each exists), so that arguments no SDK hands over intact
reach every server's handler in the same form, and a line an SDK would choke on never reaches it:

- a line that is not UTF-8 JSON, or not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0"
  and a method, a result or an error, no member the gate reads given twice), is ignored, with a
  note on stderr (pydantic's parser would take ``NaN`` or ``Infinity``, which are not JSON);
- a lone surrogate escape (``\\ud800`` not in a pair) anywhere in a string becomes ``\\ufffd``, as
  the module reads it (pydantic's parser refuses the whole message, which then gets no answer);
- the arguments of a tools/call that no SDK reads intact are replaced by a marker,
  ``{"toolerr.gate": KIND}``: over 4 MiB of JSON ("too_large"), nested more than 64 levels
  ("too_deep": pydantic's parser stops near 200 levels, and the message then gets no answer), or
  holding a number beyond a 64-bit float such as 1e309 ("out_of_range"); arguments that are not
  an object are wrapped, ``{"toolerr.gate": "not_object", "arguments": VALUE}`` (this SDK refuses
  them with a protocol error); null arguments become ``{}``.

Every other line passes byte for byte.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import AsyncIterable, AsyncIterator, Callable
from typing import Any

GATE_MARKER = "toolerr.gate"
MAX_ARGUMENT_BYTES = 4 << 20  # the module's request limit
MAX_ARGUMENT_DEPTH = 64

#: The message of the <validation_error> that answers a marker, the same in every server.
GATE_MESSAGES = {
    "too_large": "The arguments are too large: this tool reads at most 4194304 bytes of JSON and 200000 values.",
    "too_deep": "The arguments are nested too deeply: this tool reads at most 64 levels of objects and arrays.",
    "out_of_range": "A number in the arguments is beyond the range of a 64-bit float (such as 1e309): send finite numbers.",
}


def gate_marker(args: Any) -> tuple[str, Any] | None:
    """The gate's marker in a call's arguments: (kind, the arguments for "not_object"), or None."""
    if not isinstance(args, dict) or not isinstance(args.get(GATE_MARKER), str):
        return None
    kind = args[GATE_MARKER]
    if kind in GATE_MESSAGES and len(args) == 1:
        return kind, None
    if kind == "not_object" and len(args) == 2 and "arguments" in args:
        return kind, args["arguments"]
    return None


class GatedStdin:
    """The client's lines that passed the gate, as text lines: what ``stdio_server(stdin=...)``
    iterates over."""

    def __init__(self, source: AsyncIterable[bytes], log: Callable[[str], None] | None = None) -> None:
        self._source = source
        self._log = log or (lambda line: print(line, file=sys.stderr, flush=True))

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for raw in self._source:
            line = raw[:-1] if raw.endswith(b"\n") else raw
            out, why = admit(line)
            if out is None:
                self._log(f"billing-python: ignored a line of {len(raw)} bytes from the client: {why}")
                continue
            yield out.decode("utf-8") + "\n"


def admit(line: bytes) -> tuple[bytes | None, str]:
    """The line to hand to the SDK, or None and why it is ignored."""
    if not line.strip(b" \t\r\n"):
        return None, "blank"
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8"
    s = scan_line(line)
    if s is None:
        return None, "not JSON"
    if not s.message:
        return None, "not a JSON-RPC 2.0 message"
    edits: list[tuple[int, int, bytes]] = []
    cut = (-1, -1)  # arguments replaced whole: their own edits go
    if s.method == "tools/call" and s.args is not None:
        start, end = s.args
        kind = s.arguments_kind()
        if kind == "null":
            edits.append((start, end, b"{}"))
            cut = s.args
        elif kind == "not_object":
            edits += [(start, start, b'{"' + GATE_MARKER.encode() + b'":"not_object","arguments":'), (end, end, b"}")]
        elif kind:
            edits.append((start, end, b'{"' + GATE_MARKER.encode() + b'":"' + kind.encode() + b'"}'))
            cut = s.args
    for start, end in s.surrogates:
        if start < cut[0] or start >= cut[1]:
            edits.append((start, end, b"\\ufffd"))
    if not edits:
        return line, ""
    edits.sort(key=lambda e: e[0])  # never overlapping; an insertion before a replacement at one place
    parts: list[bytes] = []
    at = 0
    for start, end, text in edits:
        parts += [line[at:start], text]
        at = end
    parts.append(line[at:])
    return b"".join(parts), ""


class LineScan:
    """What the gate reads of one line."""

    def __init__(self) -> None:
        self.message = False  # a JSON-RPC 2.0 message
        self.method: str | None = None
        self.args: tuple[int, int] | None = None  # params.arguments
        self.args_first = 0  # the first byte of the arguments
        self.args_depth = 0  # their nesting: {} is 1, a scalar 0
        self.args_huge = False  # a number in them is beyond a 64-bit float
        self.surrogates: list[tuple[int, int]] = []  # lone surrogate escapes

    def arguments_kind(self) -> str:
        """Classify the arguments: "" for ones the SDKs read intact."""
        assert self.args is not None
        if self.args[1] - self.args[0] > MAX_ARGUMENT_BYTES:
            return "too_large"
        if self.args_depth > MAX_ARGUMENT_DEPTH:
            return "too_deep"
        if self.args_huge:
            return "out_of_range"
        if self.args_first == ord("n"):
            return "null"
        if self.args_first != ord("{"):
            return "not_object"
        return ""


_SPACE = re.compile(rb"[ \t\r\n]*")
_STRING = re.compile(rb'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"')
_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)")
_NUMBER = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WORDS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}
_TOP_TRACKED = {"jsonrpc", "method", "params", "id", "result", "error"}
_PARAMS_TRACKED = {"arguments", "name"}

_VALUE, _VALUE_OR_END, _KEY_OR_END, _KEY, _COLON, _AFTER = range(6)


class _Frame:
    __slots__ = ("object", "key", "seen")

    def __init__(self, obj: bool) -> None:
        self.object = obj
        self.key: str | None = None
        self.seen: set[str] | None = None


def _decode(token: bytes) -> str | None:
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _lone_surrogates(token: bytes, offset: int, out: list[tuple[int, int]]) -> None:
    """Record the lone surrogate escapes of a string token that starts at offset."""
    pending = -1  # the start of a high surrogate escape not yet paired
    for m in _ESCAPE.finditer(token):
        unit = int(m.group(1), 16) if m.group(1) is not None else -1
        if 0xD800 <= unit <= 0xDBFF:
            if pending >= 0:
                out.append((offset + pending, offset + pending + 6))
            pending = m.start()
        elif 0xDC00 <= unit <= 0xDFFF:
            if pending >= 0 and pending + 6 == m.start():
                pending = -1  # a pair
            else:
                if pending >= 0:
                    out.append((offset + pending, offset + pending + 6))
                    pending = -1
                out.append((offset + m.start(), offset + m.end()))
        elif pending >= 0:
            out.append((offset + pending, offset + pending + 6))
            pending = -1
    if pending >= 0:
        out.append((offset + pending, offset + pending + 6))


def _string_at(b: bytes, i: int, surrogates: list[tuple[int, int]]) -> re.Match[bytes] | None:
    """The string token that starts at i (None if none does), its lone
    surrogate escapes recorded in surrogates."""
    m = _STRING.match(b, i)
    if m is not None and b"\\u" in m.group():
        _lone_surrogates(m.group(), i, surrogates)
    return m


def scan_line(b: bytes) -> LineScan | None:  # noqa: C901, PLR0912, PLR0915 - one state machine
    """Read b as JSON without recursion (any depth), keeping what the gate needs; None when b is
    not one JSON value."""
    s = LineScan()
    stack: list[_Frame] = []
    state = _VALUE
    args_start, args_level = 0, -1  # while the arguments are read: where, and at what height
    version = has_method = has_result = has_error = dup = False
    i, n = 0, len(b)

    def ended(end: int) -> None:
        nonlocal args_level, state
        if args_level >= 0 and len(stack) == args_level:
            s.args = (args_start, end)
            args_level = -1
        state = _AFTER

    while True:
        i = _SPACE.match(b, i).end()  # type: ignore[union-attr]
        if i == n:
            break
        c = b[i]
        if state in (_KEY_OR_END, _KEY):
            if c == 0x7D and state == _KEY_OR_END:
                stack.pop()
                i += 1
                ended(i)
                continue
            m = _string_at(b, i, s.surrogates)
            if m is None:
                return None
            token = m.group()
            if len(stack) <= 2:
                top = stack[-1]
                top.key = _decode(token)
                in_params = len(stack) == 2 and stack[0].key == "params"
                if top.key in (_TOP_TRACKED if len(stack) == 1 else _PARAMS_TRACKED if in_params else ()):
                    top.seen = top.seen or set()
                    dup = dup or top.key in top.seen
                    top.seen.add(top.key)  # type: ignore[arg-type]
            i = m.end()
            state = _COLON
            continue
        if state == _COLON:
            if c != 0x3A:
                return None
            i += 1
            state = _VALUE
            continue
        if state == _AFTER:
            if not stack:
                return None  # more after the value
            top = stack[-1]
            if c == 0x2C:
                state = _KEY if top.object else _VALUE
                i += 1
                continue
            if (c == 0x7D and top.object) or (c == 0x5D and not top.object):
                stack.pop()
                i += 1
                ended(i)
                continue
            return None
        # A value starts at i (or an empty array ends).
        if c == 0x5D and state == _VALUE_OR_END:
            stack.pop()
            i += 1
            ended(i)
            continue
        if len(stack) == 1 and stack[0].object:
            has_result = has_result or stack[0].key == "result"
            has_error = has_error or stack[0].key == "error"
        if (
            len(stack) == 2
            and stack[0].object
            and stack[0].key == "params"
            and stack[1].object
            and stack[1].key == "arguments"
        ):
            args_start, args_level, s.args_first = i, 2, c
        in_args = args_level >= 0
        if c in (0x7B, 0x5B):
            stack.append(_Frame(c == 0x7B))
            if in_args:
                s.args_depth = max(s.args_depth, len(stack) - args_level)
            i += 1
            state = _KEY_OR_END if c == 0x7B else _VALUE_OR_END
            continue
        if c == 0x22:
            m = _string_at(b, i, s.surrogates)
            if m is None:
                return None
            token = m.group()
            if len(stack) == 1 and stack[0].object:
                if stack[0].key == "jsonrpc":
                    version = _decode(token) == "2.0"
                elif stack[0].key == "method":
                    s.method, has_method = _decode(token), True
            i = m.end()
        elif c in _WORDS:
            word = _WORDS[c]
            if not b.startswith(word, i):
                return None
            i += len(word)
        else:
            m = _NUMBER.match(b, i)
            if m is None:
                return None
            if in_args and not math.isfinite(float(m.group())):
                s.args_huge = True
            i = m.end()
        ended(i)
    if state != _AFTER or stack:
        return None
    first = _SPACE.match(b).end()  # type: ignore[union-attr]
    s.message = b[first] == 0x7B and version and (has_method or has_result or has_error) and not dup
    return s
