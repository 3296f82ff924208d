"""The extism engine: toolerr.wasm through Extism (PyPI ``extism``), whose
runtime compiles it with Wasmtime's Cranelift and keeps it in wasmtime's own
compilation cache (``$XDG_CACHE_HOME/wasmtime``).

Each instance is an Extism plugin, called through the module's Extism
exports. The calls' time bound is the manifest's ``timeout_ms``; the memory
cap is the module's own maximum, written into its bytes before they get
here (not the manifest's ``memory.max_pages``: Extism's limit counts its
kernel's memory too, and traps at the first growth that would cross it where
the module's maximum refuses the growth, as on every other host).

Nothing here knows the contract.
"""

from __future__ import annotations

import json
from typing import Any

import extism  # type: ignore[import-untyped]
from extism.extism import CompiledPlugin  # type: ignore[import-untyped]  # compiled once, instantiated per concurrent call

from ._engine import refuse_wasi_output
from ._errors import Broken, ToolerrError


class Runtime:
    """The extism engine of one Toolerr: the module compiled once."""

    name = "extism"
    compiler = "cranelift"

    def __init__(self, wasm: bytes, timeout_ms: int) -> None:
        refuse_wasi_output()
        manifest: dict[str, Any] = {"wasm": [{"data": wasm}]}
        if timeout_ms > 0:  # Extism reads a timeout of 0 as no time at all
            manifest["timeout_ms"] = timeout_ms
        try:
            self._compiled = CompiledPlugin(manifest, wasi=True, functions=[])
        except extism.Error as exc:
            raise ToolerrError("TRAP", f"toolerr: the module could not be compiled: {exc}") from exc

    def wait_compiled(self, timeout: float | None) -> bool:
        return True

    def new_instance(self) -> Instance:
        refuse_wasi_output()
        try:
            return Instance(self._compiled)
        except extism.Error as exc:
            raise ToolerrError("TRAP", f"toolerr: new instance: {exc}") from None

    def retired(self, instance: Any) -> bool:
        return False

    def exports(self, instance: Any, listed: Any) -> tuple[str, ...]:
        # An export describe lists but the module lacks (an inconsistent
        # build) is treated as unknown rather than trapping at call time.
        return tuple(e for e in listed if instance.plugin.function_exists(e))


class Instance:
    """One plugin instance: it runs one call at a time (the Extism runtime
    refuses re-entrant calls on one instance)."""

    def __init__(self, compiled: CompiledPlugin) -> None:
        self.plugin = extism.Plugin(compiled)

    def close(self) -> None:
        self.plugin.__del__()

    def memory_pages(self) -> int:
        """The module's linear memory, in 64 KiB pages, as the module tells
        (the Extism runtime exposes only its kernel's); more than any cap when
        the instance cannot tell, so that it is not kept."""
        try:
            out = json.loads(self.plugin.call("describe", b'{"memory":true}'))
            return int(out["memoryPages"])
        except Exception:  # noqa: BLE001 - an instance that cannot answer is not trusted
            return 1 << 16

    def call(self, export: str, body: bytes) -> bytes:
        """Run export on body: the response, or ToolerrError for the module's
        refusal (the plugin stays in service), or Broken."""
        try:
            out: bytes = self.plugin.call(export, body)
            return out
        except extism.Error as exc:
            text = str(exc)
            error = _module_error(text)
            if error is not None:
                raise error from None
            if "timeout" in text.lower():
                raise Broken(ToolerrError("TIMEOUT", f"{export}: the call ran out of time")) from None
            raise Broken(ToolerrError("TRAP", f"{export}: the module trapped: {text}")) from None


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
