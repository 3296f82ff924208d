"""The raw engine: toolerr.wasm on wasmtime-py, driven through its raw path
(abi/ABI.md, "Raw path"): ``toolerr_buffer`` gives the address of a buffer
inside the module, the export's name and the request are written there,
``toolerr_call`` runs the export and answers where the response lies in
linear memory. One copy each way and no Extism kernel, as in the Go host's
wazero engine and the Node, Rust and Java bindings.

The module's imports: WASI (wasmtime's own, with no arguments, no
environment, no files, output discarded and real clocks) and
``extism:host/env``, which only the module's Extism exports call, defined as
functions that trap.

Compiling. Wasmtime's optimizing compiler, Cranelift, takes most of a
second for this module on two cores; its baseline compiler, Winch, about a
tenth of that, for code that runs calls somewhat slower. A load that finds
the module in the binding's compilation cache (``$XDG_CACHE_HOME/toolerr/
wasmtime-py``, else ``~/.cache/toolerr/wasmtime-py``) deserializes
Cranelift's code and is done. One that does not compiles with Winch and
answers from it at once, while a daemon thread compiles with Cranelift and
writes the cache entry; new instances are then Cranelift's, and Winch's are
dropped as they come back to the pool. At interpreter exit the process
waits (at most ``EXIT_WAIT_SECONDS``) for a compile still running, so that
the next process finds the cache filled. The outputs are the same bytes: one
module, two compilers.

Nothing here knows the contract.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import hashlib
import json
import os
import platform
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any, TypeVar

import wasmtime
from wasmtime import _ffi as ffi

from ._abi import MAX_REQUEST_BYTES, POLICY_CALL_TIMEOUT_MS
from ._errors import Broken, ToolerrError

#: How often the epoch advances while a call runs, in milliseconds: a
#: call's time bound is kept to within one tick.
TICK_MS = 10
TICK_SECONDS = TICK_MS / 1000

#: The least bound on an instance's ``_initialize``, in ticks: the default
#: call timeout. A host with a short timeout must still be able to make an
#: instance.
INIT_TICKS = POLICY_CALL_TIMEOUT_MS // TICK_MS + 1

#: The longest the interpreter's exit waits for a first start's Cranelift
#: compile to end and fill the cache.
EXIT_WAIT_SECONDS = 30.0

#: wasmtime_strategy_t's WASMTIME_WINCH. wasmtime-py's Config.strategy
#: setter knows only "auto" and "cranelift"; the C API takes Winch.
_WINCH = 2

_WASI = "wasi_snapshot_preview1"
_EXTISM = "extism:host/env"

#: An epoch deadline no call reaches: calls without a time bound.
_NO_DEADLINE = 1 << 62

# The calls made on every request, as ctypes prototypes of their own (the
# wasmtime-py wrappers check and convert their arguments on every call,
# several times the module's own time for a small request). Pointers are
# passed as integers.
_P = ctypes.c_void_p
_memory_data = ctypes.CFUNCTYPE(_P, _P, _P)(("wasmtime_memory_data", ffi.dll))
_memory_data_size = ctypes.CFUNCTYPE(ctypes.c_size_t, _P, _P)(("wasmtime_memory_data_size", ffi.dll))
_func_call_unchecked = ctypes.CFUNCTYPE(_P, _P, _P, _P, ctypes.c_size_t, _P)(
    ("wasmtime_func_call_unchecked", ffi.dll)
)
_set_epoch_deadline = ctypes.CFUNCTYPE(None, _P, ctypes.c_uint64)(("wasmtime_context_set_epoch_deadline", ffi.dll))


@functools.lru_cache(maxsize=None)
def wasmtime_version() -> str:
    """wasmtime-py's version, from its dist-info beside the package (the
    metadata API scans every path entry: tens of milliseconds)."""
    site = Path(wasmtime.__file__).resolve().parent.parent
    found = sorted(p.name for p in site.glob("wasmtime-*.dist-info"))
    if len(found) == 1:
        return found[0][len("wasmtime-") : -len(".dist-info")]
    try:
        from importlib.metadata import version

        return version("wasmtime")
    except Exception:  # noqa: BLE001 - an unknown version only makes the cache key less reusable
        library = Path(ffi.filename)
        stat = library.stat()
        return f"unknown-{stat.st_size}-{stat.st_mtime_ns}"


def _config(compiler: str) -> wasmtime.Config:
    config = wasmtime.Config()
    config.epoch_interruption = True
    if compiler == "winch":
        ffi.wasmtime_config_strategy_set(config.ptr(), _WINCH)
    else:
        config.strategy = "cranelift"
    return config


def settings() -> str:
    """What a Cranelift build depends on besides the module's bytes, as the
    cache key has it: wasmtime-py's version, the platform and the engine's
    configuration (_config's)."""
    return (
        f"wasmtime-py {wasmtime_version()}; {sys.platform} {platform.machine()}; "
        "cranelift; epoch_interruption"
    )


_engines: dict[str, wasmtime.Engine] = {}
_engines_lock = threading.Lock()


def engine(compiler: str) -> wasmtime.Engine:
    """The process's engine for compiler ("winch" or "cranelift"), made on
    first use; every module and instance of that compiler is on it, and the
    ticker advances its epoch."""
    with _engines_lock:
        found = _engines.get(compiler)
        if found is None:
            found = _own(wasmtime.Engine(_config(compiler)))
            _engines[compiler] = found
            _ticker.watch(found)
        return found


def cache_dir() -> Path | None:
    """The binding's compilation cache folder, or None when there is no
    home to put it in."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if base and os.path.isabs(base):
        root = Path(base)
    else:
        home = os.environ.get("HOME") or os.path.expanduser("~")
        if not home or home == "~":
            return None
        root = Path(home) / ".cache"
    return root / "toolerr" / "wasmtime-py"


def cache_entry(wasm_sha256: str) -> Path | None:
    """The cache entry of a module's Cranelift build: named by the module's
    sha256 (the memory cap written into it included) and the settings'."""
    folder = cache_dir()
    if folder is None:
        return None
    key = hashlib.sha256(settings().encode("utf-8")).hexdigest()
    return folder / f"{wasm_sha256[:32]}-{key[:16]}.cwasm"


def load_entry(path: Path) -> wasmtime.Module | None:
    """The module of a cache entry, or None when it is missing, damaged or
    refused. An entry is the serialized module followed by its sha256 (64
    hex characters), checked before wasmtime reads a byte of it."""
    try:
        entry = path.read_bytes()
    except OSError:
        return None
    if len(entry) <= 64:
        return None
    code, digest = entry[:-64], entry[-64:]
    if hashlib.sha256(code).hexdigest().encode("ascii") != digest:
        return None
    try:
        # The bytes are what Module.serialize wrote for this configuration
        # (the name says so, and their digest is checked above); wasmtime
        # refuses, safely, bytes of another version or configuration.
        return _own(wasmtime.Module.deserialize(engine("cranelift"), code))
    except Exception:  # noqa: BLE001 - a refused entry is compiled anew
        return None


def store_entry(path: Path, code: bytes) -> None:
    """Write a cache entry whole or not at all: a new file renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(code)
            f.write(hashlib.sha256(code).hexdigest().encode("ascii"))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class _Code:
    """A compiled module, linked and ready to instantiate."""

    def __init__(self, compiler: str, module: wasmtime.Module) -> None:
        self.compiler = compiler
        self.engine = engine(compiler)
        for item in module.imports:
            if item.module not in (_WASI, _EXTISM):
                raise ToolerrError("TRAP", f"toolerr: the module imports {item.module}.{item.name}")
        exports = {e.name: e.type for e in module.exports}
        i32, i64 = wasmtime.ValType.i32(), wasmtime.ValType.i64()
        for name, params, results in (("toolerr_buffer", [i32], [i32]), ("toolerr_call", [i32, i32], [i64])):
            ty = exports.get(name)
            if not isinstance(ty, wasmtime.FuncType) or ty.params != params or ty.results != results:
                raise ToolerrError("TRAP", f"toolerr: the module has no {name} export of the raw path's type")
        if not isinstance(exports.get("memory"), wasmtime.MemoryType):
            raise ToolerrError("TRAP", "toolerr: the module exports no memory")
        linker = wasmtime.Linker(self.engine)
        linker.define_wasi()
        # What is left undefined is extism:host/env (checked above): the
        # Extism exports' kernel, which the raw path never calls.
        linker.define_unknown_imports_as_traps(module)
        self.pre = _own(linker.instantiate_pre(module))


def _compile(compiler: str, wasm: bytes) -> wasmtime.Module:
    return _own(wasmtime.Module(engine(compiler), wasm))


class Tiers:
    """The code new instances of one module get: Cranelift's, from the cache
    or compiled now; or Winch's while Cranelift's compiles in the
    background."""

    def __init__(self, wasm: bytes, entry: Path | None, compilers: str = "tiered") -> None:
        self._lock = threading.Lock()
        self._compiled = threading.Event()  # set when no compile is left to run
        self._entry = entry
        if compilers in ("winch", "cranelift"):  # one compiler, no cache (the tests')
            self.code = _Code(compilers, _compile(compilers, wasm))
            self._compiled.set()
            return
        module = load_entry(entry) if entry is not None else None
        if module is not None:
            self.code = _Code("cranelift", module)
            self._compiled.set()
            return
        try:
            winch: _Code | None = _Code("winch", _compile("winch", wasm))
        except ToolerrError:
            raise
        except Exception:  # noqa: BLE001 - no Winch here: Cranelift in the foreground
            winch = None
        if winch is None:
            self.code = _Code("cranelift", self._cranelift(wasm))
            self._compiled.set()
            return
        self.code = winch
        thread = threading.Thread(target=self._optimize, args=(wasm,), name="toolerr-compile", daemon=True)
        if entry is not None:
            _pending.add(thread)
        thread.start()

    def _cranelift(self, wasm: bytes) -> wasmtime.Module:
        """Cranelift's build of wasm, written to the cache (where that fails,
        the next start compiles again)."""
        module = _compile("cranelift", wasm)
        if self._entry is not None:
            try:
                store_entry(self._entry, bytes(module.serialize()))
            except Exception:  # noqa: BLE001 - any cache failure just compiles next time
                pass
        return module

    def _optimize(self, wasm: bytes) -> None:
        try:
            module = _compile("cranelift", wasm)
            code = _Code("cranelift", module)
            with self._lock:
                self.code = code
            if self._entry is not None:
                try:
                    store_entry(self._entry, bytes(module.serialize()))
                except Exception:  # noqa: BLE001 - the next start compiles again
                    pass
        except BaseException:  # noqa: BLE001 - Winch serves for the module's life
            pass
        finally:
            self._compiled.set()
            _pending.discard(threading.current_thread())

    @property
    def compiler(self) -> str:
        """What new instances run: "winch" or "cranelift"."""
        return self.code.compiler

    def _forked(self) -> None:
        """In a child process forked while the compile ran: the compile
        thread is not there, and a new one could hang (Wasmtime's compile
        workers are not there either), so Winch's code serves on."""
        self._lock = threading.Lock()
        compiled = threading.Event()
        compiled.set()
        self._compiled = compiled

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background compile to end; True when new instances
        run Cranelift's code."""
        self._compiled.wait(timeout)
        return self.code.compiler == "cranelift"


#: Background compiles that will write a cache entry: the interpreter's
#: exit waits for them.
_pending: set[threading.Thread] = set()

#: The wasmtime-py objects of this engine (engines, modules, instances'
#: stores) alive now.
_owned: weakref.WeakSet[Any] = weakref.WeakSet()


_T = TypeVar("_T")


def _own(obj: _T) -> _T:
    _owned.add(obj)
    return obj


@atexit.register
def _at_exit() -> None:
    """Wait for the compiles that fill the cache (at most
    EXIT_WAIT_SECONDS in all), then let go of every wasmtime-py object
    without freeing it: the process is ending, and one freed later, once
    the interpreter has torn wasmtime-py's module down, would print an
    exception on stderr (a stdio MCP server's log); one a daemon thread
    still uses must not be freed under it."""
    deadline = time.monotonic() + EXIT_WAIT_SECONDS
    for thread in list(_pending):
        thread.join(max(0.0, deadline - time.monotonic()))
    for obj in list(_owned):
        try:
            obj._consume()
        except Exception:  # noqa: BLE001 - closed already
            pass


_tiers: weakref.WeakValueDictionary[tuple[str, str, str], Tiers] = weakref.WeakValueDictionary()
_tiers_lock = threading.Lock()


def _after_fork_in_child() -> None:
    """A forked child has the calling thread alone: locks another thread
    held stay held, and the ticker and compile threads are gone."""
    global _tiers_lock, _engines_lock
    _tiers_lock = threading.Lock()
    _engines_lock = threading.Lock()
    _pending.clear()
    for tiers in list(_tiers.values()):
        tiers._forked()
    _ticker._forked()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def open_tiers(wasm: bytes, compilers: str = "tiered") -> Tiers:
    """The compiled module for wasm, shared by every Toolerr of the process
    that loads the same bytes with the same cache (a second load while the
    first start's compile runs gets the same tiers)."""
    digest = hashlib.sha256(wasm).hexdigest()
    entry = cache_entry(digest) if compilers == "tiered" else None
    key = (digest, str(entry), compilers)
    with _tiers_lock:
        found = _tiers.get(key)
        if found is None:
            found = Tiers(wasm, entry, compilers)
            _tiers[key] = found
        return found


class Runtime:
    """The raw engine of one Toolerr: its tiers and its calls' time bound."""

    name = "raw"

    def __init__(self, wasm: bytes, timeout_ms: int, compilers: str = "tiered") -> None:
        try:
            self.tiers = open_tiers(wasm, compilers)
        except ToolerrError:
            raise
        except Exception as exc:  # noqa: BLE001 - one typed error for a module that does not compile
            raise ToolerrError("TRAP", f"toolerr: the module could not be compiled: {exc}") from exc
        # Epoch ticks a call may run (the epoch advances every tick while a
        # call runs, so a deadline of n ticks passes between n-1 and n ticks
        # after the call starts); None: no bound.
        self.ticks: int | None = -(-timeout_ms // TICK_MS) + 1 if timeout_ms > 0 else None

    @property
    def compiler(self) -> str:
        return self.tiers.compiler

    def wait_compiled(self, timeout: float | None) -> bool:
        return self.tiers.wait(timeout)

    def new_instance(self) -> Instance:
        try:
            return Instance(self.tiers.code, self.ticks)
        except ToolerrError:
            raise
        except Exception as exc:  # noqa: BLE001 - a trap in _initialize, a store that cannot be made
            raise ToolerrError("TRAP", f"toolerr: new instance: {_reason(exc)}") from None

    def retired(self, instance: Any) -> bool:
        """A Winch instance, once Cranelift's code can be had (the one code
        that is ever replaced)."""
        return instance.code is not self.tiers.code

    def exports(self, instance: Any, listed: Any) -> tuple[str, ...]:
        # toolerr_call dispatches by name inside the module: every export
        # describe lists is there (one it lacks is refused as unknown).
        return tuple(str(e) for e in listed)


def _reason(exc: BaseException) -> str:
    """What a trap or error says, without its wasm backtrace."""
    text = exc.message if isinstance(exc, wasmtime.Trap) else str(exc)
    _, caused, cause = text.partition("Caused by:")
    lines = [line.strip() for line in (cause if caused else text).splitlines() if line.strip()]
    return " ".join(lines) if lines else type(exc).__name__


_RAW_ERROR_FLAG = 1 << 31

#: A wasmtime_val_raw_t in 64-bit words. An i32 or i64 is its first bytes,
#: little-endian (wasmtime-py runs on x86_64 and aarch64 only).
_RAW_SLOT = ctypes.sizeof(ffi.wasmtime_val_raw_t) // 8
assert sys.byteorder == "little" and ctypes.sizeof(ffi.wasmtime_val_raw_t) % 8 == 0


class Instance:
    """One instance of the module, in a store of its own; it runs one call
    at a time."""

    __slots__ = (
        "code", "_store", "_ctx", "_buffer", "_call", "_call_at", "_memory", "_memory_at",
        "_args", "_args_at", "_trap", "_trap_at", "_base", "_buf_at", "_buf_size", "_ticks", "__weakref__",
    )

    def __init__(self, code: _Code, ticks: int | None) -> None:
        self.code = code
        self._ticks = ticks
        store = _own(wasmtime.Store(code.engine))
        store.set_wasi(wasmtime.WasiConfig())  # no args, no env, no files, output discarded
        self._store = store
        self._ctx = ctypes.cast(store._context(), ctypes.c_void_p).value
        if ticks is None:
            store.set_epoch_deadline(_NO_DEADLINE)
            instance, exports = self._start()
        else:
            store.set_epoch_deadline(max(ticks, INIT_TICKS))
            _ticker.enter()
            try:
                instance, exports = self._start()
            finally:
                _ticker.leave()
        buffer, call, memory = exports["toolerr_buffer"], exports["toolerr_call"], exports["memory"]
        if not isinstance(buffer, wasmtime.Func) or not isinstance(call, wasmtime.Func):
            raise ToolerrError("TRAP", "toolerr: new instance: the raw path's exports are not functions")
        if not isinstance(memory, wasmtime.Memory):
            raise ToolerrError("TRAP", "toolerr: new instance: the module exports no memory")
        self._buffer: wasmtime.Func = buffer
        self._call = call
        self._call_at = ctypes.addressof(call._func)
        self._memory = memory
        self._memory_at = ctypes.addressof(memory._memory)
        # toolerr_call's arguments, and then its result, in place: two
        # wasmtime_val_raw_t, written and read as their first 64 bits.
        self._args = (ctypes.c_int64 * (2 * _RAW_SLOT))()
        self._args_at = ctypes.addressof(self._args)
        self._trap = ctypes.c_void_p()
        self._trap_at = ctypes.addressof(self._trap)
        self._base = _memory_data(self._ctx, self._memory_at) or 0
        # The request buffer toolerr_buffer gave (0: none yet) and the size
        # it was asked for: it stays the buffer until a larger one is asked
        # for (abi/ABI.md, "Raw path"), so a request that fits needs no call.
        self._buf_at = 0
        self._buf_size = 0

    def _start(self) -> tuple[Any, Any]:
        instance = self.code.pre.instantiate(self._store)
        exports = instance.exports(self._store)
        init = exports.get("_initialize")  # a WASI reactor's start
        if isinstance(init, wasmtime.Func):
            init(self._store)
        return instance, exports

    def close(self) -> None:
        self._store.close()

    #: memory_pages reads the memory's size (no call), so the host checks
    #: it after every call.
    MEMORY_READ_DIRECTLY = True

    def memory_pages(self) -> int:
        """The instance's linear memory now, in 64 KiB pages, read directly."""
        return int(_memory_data_size(self._ctx, self._memory_at)) >> 16

    def call(self, export: str, body: bytes) -> bytes:
        """Run export on body: the response, or ToolerrError for the module's
        refusal (the instance stays in service), or Broken."""
        name = export.encode("utf-8")
        size = len(name) + len(body)
        ticks = self._ticks
        if ticks is not None:
            _set_epoch_deadline(self._ctx, ticks)
            _ticker.enter()
        try:
            at = self._buf_at
            if at == 0 or size > self._buf_size:
                at = self._request_buffer(export, size, len(body))
            base = self._base
            ctypes.memmove(base + at, name, len(name))
            ctypes.memmove(base + at + len(name), body, len(body))
            args = self._args
            args[0] = len(name)
            args[_RAW_SLOT] = len(body)
            error = _func_call_unchecked(self._ctx, self._call_at, self._args_at, 2, self._trap_at)
        finally:
            if ticks is not None:
                _ticker.leave()
        if error or self._trap.value:
            raise self._failure(export, error)
        packed = args[0] & 0xFFFFFFFFFFFFFFFF
        start, length = packed >> 32, packed & 0x7FFFFFFF
        # The memory may have grown, and moved, during the call.
        self._base = base = _memory_data(self._ctx, self._memory_at) or 0
        if start + length > _memory_data_size(self._ctx, self._memory_at):
            raise Broken(ToolerrError("TRAP", f"{export}: the response lies outside the module's memory"))
        out = ctypes.string_at(base + start, length)
        if packed & _RAW_ERROR_FLAG:
            raise _module_error(out)
        return out

    def _request_buffer(self, export: str, size: int, request: int) -> int:
        """Ask the module for a buffer of size bytes, for a request of
        request bytes."""
        try:
            at = int(self._buffer(self._store, size)) & 0xFFFFFFFF
        except Exception as exc:  # noqa: BLE001 - a trap or an interrupt, as in toolerr_call
            raise self._failure_of(export, exc) from None
        if at == 0:  # the host's limit is the module's: not met unless a module lies
            raise ToolerrError(
                "REQUEST_TOO_LARGE", f"{export}: request is {request} bytes, over the limit of {MAX_REQUEST_BYTES}"
            )
        self._base = _memory_data(self._ctx, self._memory_at) or 0
        if at + size > _memory_data_size(self._ctx, self._memory_at):
            raise Broken(ToolerrError("TRAP", f"{export}: the request buffer lies outside the module's memory"))
        self._buf_at, self._buf_size = at, size
        return at

    def _failure(self, export: str, error: int | None) -> Broken:
        """The Broken of a toolerr_call that returned an error or a trap."""
        if error:
            exc: BaseException = wasmtime.WasmtimeError._from_ptr(ctypes.cast(error, ctypes.POINTER(ffi.wasmtime_error_t)))
        else:
            exc = wasmtime.Trap._from_ptr(ctypes.cast(self._trap, ctypes.POINTER(ffi.wasm_trap_t)))
            self._trap.value = None
        return self._failure_of(export, exc)

    @staticmethod
    def _failure_of(export: str, exc: BaseException) -> Broken:
        if isinstance(exc, wasmtime.Trap) and exc.trap_code == wasmtime.TrapCode.INTERRUPT:
            return Broken(ToolerrError("TIMEOUT", f"{export}: the call ran out of time"))
        return Broken(ToolerrError("TRAP", f"{export}: the module trapped: {_reason(exc)}"))


def _module_error(raw: bytes) -> ToolerrError:
    """The module's error object ``{"code","message"}``."""
    text = raw.decode("utf-8", "replace")
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict) and isinstance(obj.get("code"), str) and isinstance(obj.get("message"), str):
        return ToolerrError(obj["code"], obj["message"], raw=text)
    return ToolerrError("INTERNAL", f"undecodable module error: {text}")


class _Ticker:
    """Advances the epoch of the raw engine's engines every TICK_SECONDS
    while a call runs, and sleeps when none has run for a second: an idle
    server has no thread waking for it.

    A call's enter and leave take no lock. ``_running`` changes by
    operations the interpreter does at once (a list's append and pop);
    ``_started`` may lose one of two increments made at the same time, but
    still changes. A call that starts after the ticker chose to sleep wakes
    it, under the lock; one that started before, the ticker sees when it
    checks again under the lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._engines: list[wasmtime.Engine] = []
        self._running: list[None] = []  # one item per call running now
        self._started = 0  # calls started so far, give or take
        self._asleep = True  # no thread yet
        self._thread: threading.Thread | None = None

    def watch(self, engine: wasmtime.Engine) -> None:
        with self._lock:
            self._engines.append(engine)

    def _forked(self) -> None:
        """In a forked child: no thread, no call running."""
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._running = []
        self._asleep = True
        self._thread = None

    def enter(self) -> None:
        self._started += 1
        self._running.append(None)
        if self._asleep:
            self._wake_up()

    def leave(self) -> None:
        self._running.pop()

    def _wake_up(self) -> None:
        with self._lock:
            if not self._asleep:
                return
            self._asleep = False
            if self._thread is None:
                # Without the thread no deadline passes: calls are then unbounded.
                self._thread = threading.Thread(target=self._run, name="toolerr-epoch", daemon=True)
                self._thread.start()
            else:
                self._wake.notify()

    def _run(self) -> None:
        idle_ticks = round(1 / TICK_SECONDS)
        idle, seen = 0, self._started
        while True:
            time.sleep(TICK_SECONDS)
            for engine in self._engines:
                engine.increment_epoch()
            if self._running or self._started != seen:
                idle, seen = 0, self._started
                continue
            idle += 1
            if idle < idle_ticks:
                continue
            with self._lock:
                self._asleep = True
                if self._running or self._started != seen:
                    self._asleep = False
                while self._asleep:
                    self._wake.wait()
            idle, seen = 0, self._started


_ticker = _Ticker()
