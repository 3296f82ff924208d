"""Loading toolerr.wasm and calling its exports: the raw layer.

Nothing here knows the contract: requests go in as JSON text, responses come
back as the JSON text the module wrote. The idiomatic API (``_api.py``) builds
on :meth:`Toolerr.call`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import threading
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, Union

#: The Extism runtime builds an error value on every call, and with
#: RUST_BACKTRACE=1 in the environment each one captures a backtrace, which
#: made every call about twice as slow (17 µs against 40 µs for a small
#: call). RUST_LIB_BACKTRACE governs library backtraces alone, panics keep
#: RUST_BACKTRACE's; it must be set before the runtime first reads it, so
#: here, before the first call. A value the process already set is kept.
LIB_BACKTRACE_VARIABLE = "RUST_LIB_BACKTRACE"
os.environ.setdefault(LIB_BACKTRACE_VARIABLE, "0")

import extism  # noqa: E402 (after the variable above)
from extism.extism import CompiledPlugin  # noqa: E402 (compiled once, instantiated per concurrent call)

from ._errors import ToolerrError

#: The ABI major this binding speaks; a module reporting another is refused.
ABI_MAJOR = 1

#: Linear memory per instance, in 64 KiB pages: 64 MiB (the Go host defaults to 4096, 256 MiB).
DEFAULT_MEMORY_MAX_PAGES = 1024
#: Time per call, in milliseconds (as the Go host's default).
DEFAULT_TIMEOUT_MS = 10_000

#: Set, it makes the Extism runtime write plugin stdout/stderr to the
#: process's own, which in a stdio MCP server carries the protocol.
WASI_OUTPUT_VARIABLE = "EXTISM_ENABLE_WASI_OUTPUT"

Request = Union[str, bytes, bytearray, memoryview, Mapping[str, Any], Sequence[Any], int, float, bool, None]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


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
    carry raises INVALID_REQUEST naming the field.
    """
    if isinstance(request, (bytes, bytearray, memoryview)):
        return bytes(request)
    if isinstance(request, str):
        return _LONE_SURROGATE.sub("\ufffd", request).encode("utf-8")
    value = _jsonable(export, request, "")
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # A lone surrogate can only sit inside a JSON string: written as its
    # \\uXXXX escape it reaches the module as such (which decodes it to U+FFFD).
    return text.encode("utf-8", "backslashreplace")


def _jsonable(export: str, value: Any, path: str) -> Any:
    """Return value as plain JSON data (dict, list, str, int, float, bool,
    None), or raise INVALID_REQUEST naming the first field JSON cannot carry."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ToolerrError("INVALID_REQUEST", f"{export}: {_field(path)} must be a finite number, got {value!r}")
        return value
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ToolerrError(
                    "INVALID_REQUEST",
                    f"{export}: {_field(path)} has a key that is not a string: {key!r}",
                )
            out[key] = _jsonable(export, item, f"{path}.{key}" if path else key)
        return out
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return [_jsonable(export, item, f"{path}[{i}]") for i, item in enumerate(value)]
    raise ToolerrError(
        "INVALID_REQUEST",
        f"{export}: {_field(path)} cannot be sent as JSON: {type(value).__name__} {value!r}",
    )


def _field(path: str) -> str:
    return f'"{path}"' if path else "the request"


class _Instance:
    """One plugin instance: it runs one call at a time."""

    def __init__(self, compiled: CompiledPlugin) -> None:
        self.plugin = extism.Plugin(compiled)

    def close(self) -> None:
        self.plugin.__del__()


class Toolerr:
    """The toolerr module, loaded and checked, ready to call.

    A Toolerr is safe for concurrent use: it keeps a pool of plugin
    instances, one per concurrent call (the Extism runtime refuses re-entrant
    calls on one instance), at most ``max_instances`` alive at once; further
    calls wait. An instance that traps or times out is dropped.

    Loading refuses bytes whose sha256 differs from the recorded digest, a
    module whose ABI major is not 1, and a process where
    ``EXTISM_ENABLE_WASI_OUTPUT`` is set (the module's WASI output would then
    reach this process's stdout).
    """

    def __init__(
        self,
        wasm: bytes | None = None,
        sha256: str | None = None,
        *,
        max_instances: int | None = None,
        memory_max_pages: int = DEFAULT_MEMORY_MAX_PAGES,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
    ) -> None:
        if wasm is None:
            wasm, recorded = packaged_wasm()
            sha256 = sha256 or recorded
        elif not sha256:
            raise ValueError("toolerr: sha256 is required with wasm")
        got = hashlib.sha256(wasm).hexdigest()
        if got != str(sha256).lower():
            raise ToolerrError("TRAP", f"toolerr: module sha256 is {got}, want {sha256}")
        _refuse_wasi_output()
        self.sha256 = got
        manifest = {
            "wasm": [{"data": wasm}],
            "memory": {"max_pages": memory_max_pages},
            "timeout_ms": timeout_ms,
        }
        try:
            self._compiled = CompiledPlugin(manifest, wasi=True, functions=[])
        except extism.Error as exc:
            raise ToolerrError("TRAP", f"toolerr: the module could not be compiled: {exc}") from exc
        self._max = max_instances if max_instances and max_instances > 0 else (os.cpu_count() or 1)
        self._cond = threading.Condition()
        self._idle: list[_Instance] = []
        self._live = 0
        self._closed = False
        # Until describe has answered, only describe may be called.
        self.exports: tuple[str, ...] = ("describe",)
        self.max_request_bytes = 4 * 1024 * 1024
        self.description: dict[str, Any] = self.call_json("describe", {})
        version = str(self.description.get("abiVersion", ""))
        major = version.split(".", 1)[0]
        if not major.isdigit() or int(major) != ABI_MAJOR:
            raise ToolerrError(
                "TRAP",
                f"toolerr: module ABI {version!r} is not supported by this binding (ABI major {ABI_MAJOR})",
            )
        self.abi_version = version
        # An export describe lists but the module lacks (an inconsistent
        # build) is treated as unknown rather than trapping at call time.
        probe = self._acquire()
        try:
            listed = self.description.get("exports", ())
            self.exports = tuple(e for e in listed if probe.plugin.function_exists(e))
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
        or TRAP.
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
        try:
            out = instance.plugin.call(export, body)
        except extism.Error as exc:
            error = _module_error(str(exc))
            if error is not None:
                self._release(instance)
                raise error from None
            # A trap or a timeout: the instance's state is undefined.
            self._discard(instance)
            text = str(exc)
            code = "TIMEOUT" if "timeout" in text.lower() else "TRAP"
            raise ToolerrError(code, f"{export}: the module failed: {text}") from None
        except BaseException:
            self._discard(instance)
            raise
        self._release(instance)
        return out.decode("utf-8")

    def call_json(self, export: str, request: Request = None) -> Any:
        """Like :meth:`call`, with the response decoded (objects as dicts, in
        the module's key order)."""
        return json.loads(self.call(export, request))

    def close(self) -> None:
        """Drop the idle instances; calls still running finish first."""
        with self._cond:
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
        """How many plugin instances exist now, idle or busy."""
        with self._cond:
            return self._live

    def _acquire(self) -> _Instance:
        with self._cond:
            while True:
                if self._closed:
                    raise ToolerrError("TRAP", "toolerr: the module was closed")
                if self._idle:
                    return self._idle.pop()
                if self._live < self._max:
                    self._live += 1
                    break
                self._cond.wait()
        try:
            _refuse_wasi_output()
            return _Instance(self._compiled)
        except BaseException as exc:
            with self._cond:
                self._live -= 1
                self._cond.notify()
            if isinstance(exc, extism.Error):
                raise ToolerrError("TRAP", f"toolerr: new instance: {exc}") from None
            raise

    def _release(self, instance: _Instance) -> None:
        with self._cond:
            if not self._closed:
                self._idle.append(instance)
                self._cond.notify()
                return
        self._discard(instance)

    def _discard(self, instance: _Instance) -> None:
        instance.close()
        with self._cond:
            self._live -= 1
            self._cond.notify()


def _module_error(text: str) -> ToolerrError | None:
    """The module's error object ``{"code","message"}``, or None when the
    failure did not come from the module."""
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    if isinstance(obj, dict) and isinstance(obj.get("code"), str) and isinstance(obj.get("message"), str):
        return ToolerrError(obj["code"], obj["message"], raw=text)
    return None


def _refuse_wasi_output() -> None:
    if WASI_OUTPUT_VARIABLE in os.environ:
        raise ToolerrError(
            "TRAP",
            f"toolerr: {WASI_OUTPUT_VARIABLE} is set: the module's WASI output would reach this "
            "process's stdout, which an MCP stdio server keeps for the protocol; unset it",
        )


_default: Toolerr | None = None
_default_lock = threading.Lock()


def default() -> Toolerr:
    """The process-wide module, loaded from the package on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Toolerr()
    return _default
