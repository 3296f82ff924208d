"""Test helpers: the engines a test runs the module on.

The binding has two engines, ``raw`` (the default: the module's raw path on
wasmtime-py) and ``extism``. The raw engine runs code from one of two
compilers: Winch's while a first start's Cranelift compile runs in the
background, Cranelift's after, and on every start that finds the cache. The
tests that exercise the engine run on each of:

- ``raw-winch``: the raw engine on Winch's code alone (no cache, no
  background compile);
- ``raw-cranelift``: the raw engine on Cranelift's code alone (no cache);
- ``extism``: the extism engine.

``raw`` as the user gets it (tiered, with the cache) is the process-wide
module (``toolerr.default()``), which the other tests use, and what
test_compile_cache.py checks.
"""

from __future__ import annotations

from typing import Any

import toolerr
from toolerr import _engine, _wasmtime

#: The engines of Toolerr(engine=...).
ENGINES = ("raw", "extism")

#: Every way the binding runs the module, for the tests that exercise it.
VARIANTS = ("raw-winch", "raw-cranelift", "extism")


def open_module(variant: str, **options: Any) -> toolerr.Toolerr:
    """A new Toolerr on variant (one of VARIANTS, or "raw" as users get it)."""
    if variant in ("raw", "extism"):
        return toolerr.Toolerr(engine=variant, **options)  # type: ignore[arg-type]
    compilers = variant.removeprefix("raw-")
    assert compilers in ("winch", "cranelift"), variant
    original = _engine._open_runtime

    def one_compiler(engine: str, wasm: bytes, timeout_ms: int) -> Any:
        assert engine == "raw"
        return _wasmtime.Runtime(wasm, timeout_ms, compilers)

    _engine._open_runtime = one_compiler  # type: ignore[assignment]
    try:
        module = toolerr.Toolerr(engine="raw", **options)
    finally:
        _engine._open_runtime = original  # type: ignore[assignment]
    assert module.compiler == compilers
    return module


_shared: dict[str, toolerr.Toolerr] = {}


def shared_module(variant: str) -> toolerr.Toolerr:
    """One Toolerr per variant for the whole session, with the default options."""
    if variant not in _shared:
        _shared[variant] = open_module(variant)
    return _shared[variant]
