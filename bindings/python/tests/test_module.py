"""Loading: the packaged bytes, their digest, the ABI major, WASI output."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import toolerr
from toolerr import _abi
from toolerr._engine import packaged_wasm


def test_packaged_wasm_is_the_committed_artifact(root: Path) -> None:
    wasm, recorded = packaged_wasm()
    committed = (root / "plugin" / "toolerr.wasm.sha256").read_text().split()[0]
    assert hashlib.sha256(wasm).hexdigest() == committed
    assert recorded == committed
    assert wasm == (root / "plugin" / "toolerr.wasm").read_bytes()


def test_loaded_module_digest_and_abi() -> None:
    module = toolerr.default()
    assert module.sha256 == packaged_wasm()[1]
    assert module.abi_version.split(".")[0] == "1"
    assert "tool_error" in module.exports


def test_module_is_the_one_abi_json_describes() -> None:
    """_abi.py is generated from abi/abi.json: the packaged module reports its version, exports and
    limits."""
    description = toolerr.describe()
    assert description["abiVersion"] == f"{_abi.ABI_MAJOR}.{_abi.ABI_MINOR}"
    assert description["version"] == _abi.MODULE_VERSION
    assert tuple(description["exports"]) == _abi.EXPORTS
    assert description["limits"] == {
        "maxRequestBytes": _abi.MAX_REQUEST_BYTES,
        "maxDepth": _abi.MAX_DEPTH,
        "maxValues": _abi.MAX_VALUES,
    }


def test_package_is_installed_with_its_data() -> None:
    package = Path(toolerr.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "toolerr.wasm").is_file()
    assert (package / "_abi.py").is_file()


def test_wrong_digest_is_refused() -> None:
    wasm, _ = packaged_wasm()
    with pytest.raises(toolerr.ToolerrError) as raised:
        toolerr.Toolerr(wasm, "0" * 64)
    assert raised.value.code == "TRAP"
    assert "sha256" in raised.value.message


def test_other_abi_major_is_refused() -> None:
    class FutureModule(toolerr.Toolerr):
        def call_json(self, export: str, request: Any = None) -> Any:
            return {"abiVersion": "2.0", "exports": ["describe"], "limits": {}}

    with pytest.raises(toolerr.ToolerrError) as raised:
        FutureModule()
    assert raised.value.code == "TRAP"
    assert "ABI '2.0'" in raised.value.message


def test_wasi_output_variable_is_refused() -> None:
    env = dict(os.environ, EXTISM_ENABLE_WASI_OUTPUT="1")
    code = "import toolerr\ntry:\n    toolerr.describe()\nexcept toolerr.ToolerrError as e:\n    print(e.code, e.message)\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("TRAP toolerr: EXTISM_ENABLE_WASI_OUTPUT is set")


@pytest.mark.parametrize(
    ("preset", "want"),
    [(None, "0"), ("1", "1"), ("full", "full")],
)
def test_library_backtraces_are_off_unless_the_process_set_them(preset: str | None, want: str) -> None:
    # With RUST_BACKTRACE=1 (as on many CI machines) the Extism runtime
    # would capture a backtrace on every call; importing toolerr turns
    # library backtraces off, and keeps a value the process chose.
    env = dict(os.environ, RUST_BACKTRACE="1")
    env.pop("RUST_LIB_BACKTRACE", None)
    if preset is not None:
        env["RUST_LIB_BACKTRACE"] = preset
    code = "import os, toolerr\ntoolerr.describe()\nprint(os.environ['RUST_LIB_BACKTRACE'], os.environ['RUST_BACKTRACE'])\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [want, "1"]
