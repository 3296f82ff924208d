"""Loading toolerr.wasm and calling its exports: the raw layer.

Nothing here knows the contract: requests go in as JSON text, responses come
back as the JSON text the module wrote. The idiomatic API (``_api.py``) builds
on :meth:`Toolerr.call`. :class:`Toolerr` checks the module, applies the host
policy and keeps the pool of instances; an engine runs them: ``_wasmtime.py``
(``raw``, the default) or ``_extism.py`` (``extism``), each imported when a
Toolerr first asks for it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any, Literal, Union

#: The Extism runtime (the extism engine's) builds an error value on every call, and with
#: RUST_BACKTRACE=1 in the environment each one captures a backtrace, which
#: made every call about twice as slow (17 µs against 40 µs for a small
#: call). RUST_LIB_BACKTRACE governs library backtraces alone, panics keep
#: RUST_BACKTRACE's; it must be set before the runtime first reads it, so
#: here, before the first call. A value the process already set is kept.
LIB_BACKTRACE_VARIABLE = "RUST_LIB_BACKTRACE"
os.environ.setdefault(LIB_BACKTRACE_VARIABLE, "0")

# The names and numbers of the ABI, the defaults of its host policy (abi/ABI.md, "Host policy")
# included, come from _abi.py, generated from abi/abi.json: every toolerr host (Go, Node, Python,
# Rust) applies the same.
from ._abi import (
    ABI_MAJOR,
    MAX_DEPTH,
    MEMORY_CHECK_BYTES,
    MEMORY_CHECK_MS,
    POLICY_CALL_TIMEOUT_MS,
    POLICY_MAX_REQUEST_BYTES,
    POLICY_MEMORY_MAX_PAGES,
    POLICY_RETIRE_MEMORY_PAGES,
)
from ._errors import Broken, ToolerrError

#: Set, it makes the Extism runtime write plugin stdout/stderr to the
#: process's own, which in a stdio MCP server carries the protocol.
WASI_OUTPUT_VARIABLE = "EXTISM_ENABLE_WASI_OUTPUT"

Request = Union[str, bytes, bytearray, memoryview, Mapping[str, Any], Sequence[Any], int, float, bool, None]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def with_memory_max(wasm: bytes, max_pages: int) -> bytes:
    """Return the module with its memory's maximum set to max_pages (or kept,
    when the module declares a lower one), as the Node binding writes it.

    Its digest is checked before; growing past the maximum then fails inside
    the module, which traps out of memory, as on every other host.
    """

    def leb(at: int) -> tuple[int, int]:
        value, shift = 0, 0
        while True:
            if at >= len(wasm):
                raise ToolerrError("TRAP", "toolerr: the module is truncated")
            byte = wasm[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value, at

    def encode(n: int) -> bytes:
        out = bytearray()
        while True:
            byte, n = n & 0x7F, n >> 7
            out.append(byte | (0x80 if n else 0))
            if not n:
                return bytes(out)

    at = 8
    while at < len(wasm):
        section = wasm[at]
        size, body = leb(at + 1)
        end = body + size
        if section == 5:
            count, flags_at = leb(body)
            flags = wasm[flags_at]
            if count != 1 or flags not in (0, 1):
                raise ToolerrError("TRAP", "toolerr: the module's memory is not one unshared 32-bit memory")
            minimum, after_min = leb(flags_at + 1)
            maximum = min(leb(after_min)[0], max_pages) if flags == 1 else max_pages
            if minimum > maximum:
                raise ToolerrError("TRAP", f"toolerr: the module starts with {minimum} pages of memory")
            content = b"\x01\x01" + encode(minimum) + encode(maximum)
            return wasm[:at] + b"\x05" + encode(len(content)) + content + wasm[end:]
        at = end
    raise ToolerrError("TRAP", "toolerr: the module defines no memory of its own")


def packaged_wasm() -> tuple[bytes, str]:
    """Return the packaged module's bytes and the digest recorded beside it."""
    package = resources.files("toolerr")
    wasm = package.joinpath("toolerr.wasm").read_bytes()
    recorded = package.joinpath("toolerr.wasm.sha256").read_text(encoding="utf-8").split()[0]
    return wasm, recorded


def encode_request(export: str, request: Request) -> bytes:
    """Turn a request into the bytes sent to the module.

    bytes are sent as they are; a str is a raw request (its text, UTF-8, a
    lone surrogate becoming U+FFFD as JSON decoders do); anything else is
    written as compact JSON with its key order kept. A value JSON cannot
    carry raises INVALID_REQUEST naming the field: a value of another type, a
    number that is not finite as the module reads numbers (a float inf or
    nan, an integer beyond the range of a 64-bit float), nesting deeper than
    MAX_DEPTH levels, a circular reference. Nothing else is raised.
    """
    if isinstance(request, (bytes, bytearray, memoryview)):
        return bytes(request)
    if isinstance(request, str):
        try:
            return request.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return _LONE_SURROGATE.sub("\ufffd", request).encode("utf-8")
    value = _jsonable(export, request)
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (RecursionError, ValueError) as exc:  # only with a recursion limit set below MAX_DEPTH
        raise ToolerrError("INVALID_REQUEST", f"{export}: the request could not be written as JSON: {exc}") from None
    # A lone surrogate can only sit inside a JSON string: written as its
    # \\uXXXX escape it reaches the module as such (which decodes it to U+FFFD).
    return text.encode("utf-8", "backslashreplace")


def _jsonable(export: str, request: Any) -> Any:
    """Return request as plain JSON data (dict, list, str, int, float, bool,
    None), or raise INVALID_REQUEST naming the first field JSON cannot carry.

    Iterative, so that no request, however deep or cyclic, reaches Python's
    recursion limit: nesting is refused past MAX_DEPTH levels, as the module
    refuses it, and a container met again inside itself is a circular
    reference."""

    def fail(path: str, what: str) -> ToolerrError:
        return ToolerrError("INVALID_REQUEST", f"{export}: {_field(path)} {what}")

    def scalar(value: Any, path: str) -> Any:
        if value is None or isinstance(value, (str, bool)):
            return value
        if isinstance(value, int):
            try:
                float(value)  # as the module reads it: a 64-bit float, correctly rounded
            except OverflowError:
                raise fail(path, "must be a finite number, got an integer beyond the range of a 64-bit float") from None
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise fail(path, f"must be a finite number, got {value!r}")
            return value
        raise fail(path, f"cannot be sent as JSON: {type(value).__name__} {_short_repr(value)}")

    def container(value: Any, path: str, depth: int) -> tuple[Any, Any] | None:
        """The empty copy of a mapping or sequence and its items, or None for a scalar."""
        if isinstance(value, Mapping):
            items: Any = iter(value.items())
            copy: Any = {}
        elif isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
            items = enumerate(value)
            copy = []
        else:
            return None
        if depth > MAX_DEPTH:
            raise fail(path, f"is nested deeper than {MAX_DEPTH} levels of arrays and objects")
        if id(value) in on_path:
            raise fail(path, "contains a circular reference")
        on_path.add(id(value))
        return copy, items

    on_path: set[int] = set()
    top = container(request, "", 1)
    if top is None:
        return scalar(request, "")
    root = top[0]
    # Each frame: the source container, its copy, its items, its path, its depth.
    stack: list[tuple[Any, Any, Any, str, int]] = [(request, root, top[1], "", 1)]
    while stack:
        source, copy, items, path, depth = stack[-1]
        entry: Any = next(items, _DONE)
        if entry is _DONE:
            on_path.discard(id(source))
            stack.pop()
            continue
        key, item = entry
        if isinstance(copy, dict):
            if not isinstance(key, str):
                raise fail(path, f"has a key that is not a string: {_short_repr(key)}")
            child_path = f"{path}.{key}" if path else key
        else:
            child_path = f"{path}[{key}]"
        nested = container(item, child_path, depth + 1)
        if nested is None:
            value = scalar(item, child_path)
        else:
            value = nested[0]
            stack.append((item, value, nested[1], child_path, depth + 1))
        if isinstance(copy, dict):
            copy[key] = value
        else:
            copy.append(value)
    return root


_DONE = object()


def _short_repr(value: Any) -> str:
    """repr(value), cut to 80 characters; a repr that fails is named by type."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not escape as itself
        return f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def _field(path: str) -> str:
    if not path:
        return "the request"
    # A deep path is cut in the middle: its start and its end name the field.
    return f'"{path}"' if len(path) <= 120 else f'"{path[:60]}...{path[-57:]}"'



#: The engines a Toolerr runs the module on: ``raw`` (the default), the
#: module's raw path on wasmtime-py; ``extism``, its Extism exports through
#: the Extism runtime.
Engine = Literal["raw", "extism"]
ENGINES: tuple[Engine, ...] = ("raw", "extism")


class Toolerr:
    """The toolerr module, loaded and checked, ready to call.

    ``engine`` is what runs it: ``"raw"`` (the default), the module's raw
    path on wasmtime-py, compiled once per machine into the binding's cache
    (``$XDG_CACHE_HOME/toolerr``; a first start answers from Wasmtime's
    baseline compiler, Winch, while the optimizing one, Cranelift, fills the
    cache in a background thread); or ``"extism"``, the module's Extism
    exports through the Extism runtime. Both give the same bytes.

    A Toolerr is safe for concurrent use: it keeps a pool of instances, one
    per concurrent call, at most ``max_instances`` alive at once; further
    calls wait. Each instance's memory is capped at ``memory_max_pages`` (the
    module's own memory maximum) and each call at ``timeout_ms`` (0: no
    bound), the host policy of abi/ABI.md. An instance that traps or times
    out is dropped, and so is one whose memory grew past
    ``POLICY_RETIRE_MEMORY_PAGES`` (read after every call on wasmtime;
    asked, with one more call, after a call whose request or response is
    over ``MEMORY_CHECK_BYTES`` or that ran ``MEMORY_CHECK_MS`` or longer on
    Extism).

    Loading refuses bytes whose sha256 differs from the recorded digest and
    a module whose ABI major is not 1; the extism engine also refuses a
    process where ``EXTISM_ENABLE_WASI_OUTPUT`` is set (the module's WASI
    output would then reach this process's stdout; the raw engine always
    discards it).
    """

    def __init__(
        self,
        wasm: bytes | None = None,
        sha256: str | None = None,
        *,
        engine: Engine = "raw",
        max_instances: int | None = None,
        memory_max_pages: int = POLICY_MEMORY_MAX_PAGES,
        timeout_ms: int = POLICY_CALL_TIMEOUT_MS,
    ) -> None:
        if engine not in ENGINES:
            raise ValueError(f"toolerr: engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")
        if wasm is None:
            wasm, recorded = packaged_wasm()
            sha256 = sha256 or recorded
        elif not sha256:
            raise ValueError("toolerr: sha256 is required with wasm")
        got = hashlib.sha256(wasm).hexdigest()
        if got != str(sha256).lower():
            raise ToolerrError("TRAP", f"toolerr: module sha256 is {got}, want {sha256}")
        self.sha256 = got
        self.engine: Engine = engine
        # The cap is the module's own memory maximum on both engines: a growth
        # past it is refused, and the module then traps out of memory.
        capped = with_memory_max(wasm, memory_max_pages)
        self._runtime: Any = _open_runtime(engine, capped, timeout_ms)
        self._max = max_instances if max_instances and max_instances > 0 else (os.cpu_count() or 1)
        # The pool's lock, taken as itself (a Condition's with-statement is
        # Python code: ten times the cost, on every call).
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._idle: list[Any] = []
        self._live = 0
        self._waiting = 0  # calls waiting for an instance
        self._closed = False
        # Until describe has answered, only describe may be called.
        self.exports: tuple[str, ...] = ("describe",)
        self.max_request_bytes: int = POLICY_MAX_REQUEST_BYTES
        self.description: dict[str, Any] = self.call_json("describe", {})
        version = str(self.description.get("abiVersion", ""))
        major = version.split(".", 1)[0]
        if not major.isdigit() or int(major) != ABI_MAJOR:
            raise ToolerrError(
                "TRAP",
                f"toolerr: module ABI {version!r} is not supported by this binding (ABI major {ABI_MAJOR})",
            )
        self.abi_version = version
        probe = self._acquire()
        try:
            self.exports = self._runtime.exports(probe, self.description.get("exports", ()))
        finally:
            self._release(probe)
        limits = self.description.get("limits") or {}
        self.max_request_bytes = int(limits.get("maxRequestBytes", self.max_request_bytes))

    def call(self, export: str, request: Request = None) -> str:
        """Run export on a request and return the response JSON text exactly
        as the module wrote it.

        A str request is raw request text (sent as it is); bytes are sent as
        they are; anything else is sent as compact JSON (None sends ``{}``).
        Failures raise :class:`ToolerrError` with the ABI code: the module's
        INVALID_REQUEST, REQUEST_TOO_LARGE or INTERNAL, or the host's TIMEOUT
        or TRAP; a request this binding cannot encode is INVALID_REQUEST too.
        """
        if export not in self.exports:
            raise ToolerrError("INVALID_REQUEST", f"unknown export {json.dumps(export, ensure_ascii=False)}")
        body = encode_request(export, {} if request is None else request)
        if len(body) > self.max_request_bytes:
            raise ToolerrError(
                "REQUEST_TOO_LARGE",
                f"{export}: request is {len(body)} bytes, over the limit of {self.max_request_bytes}",
            )
        instance = self._acquire()
        started = time.perf_counter()
        try:
            out: bytes = instance.call(export, body)
        except ToolerrError as error:
            # The module refused the request: the instance stays in service.
            self._settle(instance, len(body), time.perf_counter() - started)
            raise error from None
        except Broken as broken:
            # A trap or a timeout: the instance's state is undefined.
            self._discard(instance)
            raise broken.error from None
        except BaseException:
            self._discard(instance)
            raise
        self._settle(instance, max(len(body), len(out)), time.perf_counter() - started)
        return out.decode("utf-8")

    def call_json(self, export: str, request: Request = None) -> Any:
        """Like :meth:`call`, with the response decoded (objects as dicts, in
        the module's key order)."""
        return json.loads(self.call(export, request))

    @property
    def compiler(self) -> str:
        """Whose machine code new instances run: ``"cranelift"`` (Wasmtime's
        optimizing compiler; the extism engine's too), or ``"winch"``
        (Wasmtime's baseline compiler) while a first start's Cranelift
        compile runs in the background."""
        return str(self._runtime.compiler)

    def wait_compiled(self, timeout: float | None = None) -> bool:
        """Wait, at most timeout seconds (None: as long as it takes), until
        no background compile is left to run; return whether new instances
        run Cranelift's code (False when the wait timed out, or when
        Cranelift failed and Winch serves on)."""
        return bool(self._runtime.wait_compiled(timeout))

    def close(self) -> None:
        """Drop the idle instances; calls still running finish first."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._live -= len(idle)
            self._cond.notify_all()
        for instance in idle:
            instance.close()

    def __enter__(self) -> Toolerr:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def live_instances(self) -> int:
        """How many instances exist now, idle or busy."""
        with self._lock:
            return self._live

    def _acquire(self) -> Any:
        stale: list[Any] = []
        with self._lock:
            while True:
                if self._closed:
                    raise ToolerrError("TRAP", "toolerr: the module was closed")
                if self._idle:
                    instance = self._idle.pop()
                    retired = self._runtime.retired
                    if not retired(instance):
                        return instance
                    # New code serves (a first start's Cranelift build): every idle instance
                    # of the old is dropped, and a new one takes this one's slot.
                    stale = [instance] + [i for i in self._idle if retired(i)]
                    self._idle = [i for i in self._idle if not retired(i)]
                    self._live -= len(stale) - 1
                    break
                if self._live < self._max:
                    self._live += 1
                    break
                self._waiting += 1
                try:
                    self._cond.wait()
                finally:
                    self._waiting -= 1
        for instance in stale:
            instance.close()
        try:
            return self._runtime.new_instance()
        except BaseException:
            with self._lock:
                self._live -= 1
                if self._waiting:
                    self._cond.notify()
            raise

    def _settle(self, instance: Any, size: int, seconds: float) -> None:
        """Return a healthy instance to the pool, or retire it when the call
        (whose larger of request and response is size bytes, and which took
        seconds) grew its memory past POLICY_RETIRE_MEMORY_PAGES: read after
        every call where the instance reads it directly (a small request can
        grow it too), asked (one more call) otherwise after a call over
        MEMORY_CHECK_BYTES or of MEMORY_CHECK_MS or longer (growing the
        memory takes allocating, and allocating megabytes takes
        milliseconds)."""
        asked = (
            getattr(instance, "MEMORY_READ_DIRECTLY", False)
            or size > MEMORY_CHECK_BYTES
            or seconds * 1000 >= MEMORY_CHECK_MS
        )
        if asked and instance.memory_pages() > POLICY_RETIRE_MEMORY_PAGES:
            self._discard(instance)
        else:
            self._release(instance)

    def _release(self, instance: Any) -> None:
        if not self._runtime.retired(instance):
            with self._lock:
                if not self._closed:
                    self._idle.append(instance)
                    if self._waiting:
                        self._cond.notify()
                    return
        self._discard(instance)

    def _discard(self, instance: Any) -> None:
        instance.close()
        with self._lock:
            self._live -= 1
            if self._waiting:
                self._cond.notify()


def _open_runtime(engine: Engine, wasm: bytes, timeout_ms: int) -> Any:
    """The engine's runtime for wasm (its packages imported on first use)."""
    if engine == "extism":
        from . import _extism

        return _extism.Runtime(wasm, timeout_ms)
    from . import _wasmtime

    return _wasmtime.Runtime(wasm, timeout_ms)


def refuse_wasi_output() -> None:
    """The extism engine's check: EXTISM_ENABLE_WASI_OUTPUT must be unset."""
    if WASI_OUTPUT_VARIABLE in os.environ:
        raise ToolerrError(
            "TRAP",
            f"toolerr: {WASI_OUTPUT_VARIABLE} is set: the module's WASI output would reach this "
            "process's stdout, which an MCP stdio server keeps for the protocol; unset it",
        )


_default: Toolerr | None = None
_default_lock = threading.Lock()
#: The thread load_in_background started (None before it is asked for).
_loader: threading.Thread | None = None
_loader_lock = threading.Lock()


def default() -> Toolerr:
    """The process-wide module, loaded from the package on first use (a call
    made while :func:`load_in_background` is loading it waits for that load).

    It runs on the default engine, ``raw``. A module that cannot be loaded
    raises :class:`ToolerrError` (``TRAP``, saying why: a digest that does
    not match, a module that does not compile, a package file missing),
    every time it is asked for: nothing is kept of a failed load."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                try:
                    _default = Toolerr()
                except ToolerrError:
                    raise
                except Exception as exc:  # noqa: BLE001 - one typed error for every way a load fails
                    raise ToolerrError(
                        "TRAP", f"toolerr: the module could not be loaded: {type(exc).__name__}: {exc}"
                    ) from exc
    return _default


def load_in_background(then: Callable[[Toolerr], object] | None = None) -> None:
    """Start loading the process-wide module (:func:`default`) in a daemon
    thread, unless it is loaded or loading already, and return at once;
    ``then`` runs on the module once it is loaded, in that thread.

    Loading compiles the module with Winch when the binding's compilation
    cache does not hold it yet (Cranelift's build then fills the cache in
    the background), and deserializes Cranelift's build when it does;
    started when a server is set up, the load runs while the server starts
    instead of during its first failed call. A load that fails says nothing
    here (nor does ``then``): the first call that needs the module loads it
    again, and raises the failure as :class:`ToolerrError`."""
    global _loader
    if _default is not None:
        return
    with _loader_lock:
        if _loader is not None or _default is not None:
            return
        _loader = threading.Thread(target=_load_quietly, args=(then,), name="toolerr-load", daemon=True)
        _loader.start()


def _load_quietly(then: Callable[[Toolerr], object] | None) -> None:
    try:
        module = default()
        if then is not None:
            then(module)
    except BaseException:  # noqa: BLE001 - raised again, typed, by the first call that needs the module
        pass
