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
from engines import ENGINES
from toolerr import _abi
from toolerr._engine import packaged_wasm


def test_packaged_wasm_is_the_committed_artifact(root: Path) -> None:
    wasm, recorded = packaged_wasm()
    committed = (root / "plugin" / "toolerr.wasm.sha256").read_text().split()[0]
    assert hashlib.sha256(wasm).hexdigest() == committed
    assert recorded == committed
    assert wasm == (root / "plugin" / "toolerr.wasm").read_bytes()


@pytest.mark.parametrize("engine", ENGINES)
def test_loaded_module_digest_and_abi(engine: str) -> None:
    module = toolerr.default() if engine == "raw" else toolerr.Toolerr(engine="extism")
    assert module.engine == engine
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


@pytest.mark.parametrize("engine", ENGINES)
def test_wrong_digest_is_refused(engine: str) -> None:
    wasm, _ = packaged_wasm()
    with pytest.raises(toolerr.ToolerrError) as raised:
        toolerr.Toolerr(wasm, "0" * 64, engine=engine)  # type: ignore[arg-type]
    assert raised.value.code == "TRAP"
    assert "sha256" in raised.value.message


@pytest.mark.parametrize("engine", ENGINES)
def test_other_abi_major_is_refused(engine: str) -> None:
    class FutureModule(toolerr.Toolerr):
        def call_json(self, export: str, request: Any = None) -> Any:
            return {"abiVersion": "2.0", "exports": ["describe"], "limits": {}}

    with pytest.raises(toolerr.ToolerrError) as raised:
        FutureModule(engine=engine)  # type: ignore[arg-type]
    assert raised.value.code == "TRAP"
    assert "ABI '2.0'" in raised.value.message


def test_the_default_engine_is_raw_and_an_unknown_one_is_refused() -> None:
    assert toolerr.Toolerr().engine == "raw"
    with pytest.raises(ValueError, match="engine must be one of 'raw', 'extism', got 'wasm'"):
        toolerr.Toolerr(engine="wasm")  # type: ignore[arg-type]


WASI_OUTPUT = """
import toolerr
try:
    module = toolerr.Toolerr(engine=ENGINE)
    print("answered", module.call_json("escape", {"text": "<", "context": "content"})["text"])
except toolerr.ToolerrError as e:
    print(e.code, e.message)
"""


def test_wasi_output_variable_is_refused_by_the_extism_engine() -> None:
    """Set, EXTISM_ENABLE_WASI_OUTPUT would make the Extism runtime write the module's output on
    the process's stdout: the extism engine refuses to load."""
    env = dict(os.environ, EXTISM_ENABLE_WASI_OUTPUT="1")
    code = WASI_OUTPUT.replace("ENGINE", "'extism'")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("TRAP toolerr: EXTISM_ENABLE_WASI_OUTPUT is set")


def test_the_raw_engine_discards_the_modules_output_whatever_the_variable_says() -> None:
    """The raw engine's WASI output is always discarded: with EXTISM_ENABLE_WASI_OUTPUT set, it
    loads and answers, and the panic message the module's runtime writes when it runs out of memory
    (on the process's stdout if it were given one) reaches neither stdout nor stderr."""
    env = dict(os.environ, EXTISM_ENABLE_WASI_OUTPUT="1")
    code = WASI_OUTPUT.replace("ENGINE", "'raw'") + """
start = module.call_json("describe", {"memory": True})["memoryPages"]
small = toolerr.Toolerr(memory_max_pages=start + 16)
try:
    small.call("parse", {"text": "<tool_error code='X'><message>m</message>" + "<detail key='v' k2='<detail key=' " * 120_000})
except toolerr.ToolerrError as e:
    print(e.code, e.message.split(":")[1].strip())
"""
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout, out.stderr) == (0, "answered &lt;\nTRAP the module trapped\n", "")


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
