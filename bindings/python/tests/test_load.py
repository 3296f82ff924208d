"""Loading the module for a healed server: heal starts the process-wide load
in a background thread (so that a server's first failed call does not wait
for the module to compile), and a load that fails says nothing until a call
needs the module, which raises it as a ToolerrError (TRAP): no thread
exception on stderr, no crash.

Each case runs in a fresh interpreter, whose process-wide module is not
loaded yet.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import toolerr

ROOT = Path(__file__).resolve().parents[3]
QUICKSTARTS = [ROOT / "examples" / "python" / "quickstart.py", ROOT / "examples" / "python" / "quickstart_fastmcp.py"]
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})


def run(code: str, env: dict[str, str] | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != toolerr.WASI_OUTPUT_VARIABLE}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=300, env=environment, input=stdin, cwd=ROOT)


SERVERS = """
    import asyncio, json, logging, sys
    import toolerr
    from toolerr import _engine
    from mcp.server.mcpserver import MCPServer
    from fastmcp import FastMCP

    server = MCPServer("billing", log_level="WARNING")
    mcp = FastMCP("billing")

    @server.tool(name="billing.lock_invoice")
    @mcp.tool(name="billing.lock_invoice")
    def lock_invoice(id: str) -> str:
        from mcp.server.mcpserver.exceptions import ToolError
        raise ToolError(f"Invoice {id} is locked")
"""


def test_heal_starts_loading_the_module_in_the_background() -> None:
    """heal returns at once; a daemon thread loads the module, then runs each
    export a healed failure uses once (each warm-up request is answered)."""
    out = run(SERVERS + """
    import threading
    calls = []
    call = _engine.Toolerr.call

    def recorded(self, export, request=None):
        answer = call(self, export, request)  # raises if the module refuses it
        calls.append((threading.current_thread().name, export))
        return answer

    _engine.Toolerr.call = recorded
    assert _engine._default is None and _engine._loader is None
    toolerr.heal(server)
    loader = _engine._loader
    assert loader is not None and loader.daemon and loader.name == "toolerr-load"
    toolerr.heal(mcp)
    assert _engine._loader is loader  # one load per process
    loader.join(120)
    assert _engine._default is not None  # loaded without a call
    assert toolerr.default() is _engine._default
    print(json.dumps(calls))
    """)
    assert (out.returncode, out.stderr) == (0, "")
    assert json.loads(out.stdout) == [["toolerr-load", export] for export in (
        "describe", "format_validation", "tool_error", "internal_error", "tool_failure", "unknown_tool", "gate")]


def test_heal_with_a_module_of_its_own_loads_nothing_more() -> None:
    out = run(SERVERS + """
    module = toolerr.Toolerr(max_instances=1)
    toolerr.heal(server, module=module)
    toolerr.heal(mcp, module=module)
    assert _engine._loader is None and _engine._default is None
    print("ok")
    """)
    assert (out.returncode, out.stdout, out.stderr) == (0, "ok\n", "")


#: A package whose module is not the one its digest records: every load fails (TRAP).
BROKEN_PACKAGE = """
    from toolerr import _engine
    _engine.packaged_wasm = lambda: (b"not the module", "0" * 64)
"""
BROKEN = ("toolerr: module sha256 is faed3790eab0d46f87992bbe83009e846a83998a9e238b73158f8ead54e08032, want "
          + "0" * 64)


def test_a_load_that_fails_is_a_typed_error_where_the_module_is_needed() -> None:
    """A package whose module does not match its digest: the background load fails silently; a
    render raises TRAP saying why (every time); a failure heal cannot render gets the SDK's own
    answer, and one warning on the toolerr logger says why (here printed on stdout)."""
    out = run(SERVERS + BROKEN_PACKAGE + """
    from mcp import Client

    class Print(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            print(record.levelname, record.getMessage(), flush=True)

    logging.getLogger("toolerr").addHandler(Print())
    logging.getLogger("toolerr").propagate = False
    toolerr.heal(server)
    _engine._loader.join(120)
    assert _engine._default is None
    print("loaded: none", flush=True)
    for _ in range(2):
        try:
            toolerr.tool_error("X", "m")
            raise AssertionError("rendered")
        except toolerr.ToolerrError as err:
            print(err.code, err.message, flush=True)

    async def call() -> None:
        async with Client(server) as client:
            result = await client.call_tool("billing.lock_invoice", {"id": "inv_001"})
            print(result.is_error, result.content[0].text, flush=True)

    asyncio.run(call())
    """)
    assert (out.returncode, out.stderr) == (0, "")  # no thread exception, no traceback
    lines = out.stdout.splitlines()
    assert lines[:3] == ["loaded: none", *[f"TRAP {BROKEN}"] * 2]
    assert len(lines) == 5, lines
    assert lines[3] == ("WARNING toolerr could not render the failure of tool 'billing.lock_invoice' "
                        f"(TRAP: {BROKEN}); the SDK answers it")
    assert lines[4] == "True Error executing tool billing.lock_invoice: Invoice inv_001 is locked"


def test_extism_output_switch_does_not_stop_the_default_module() -> None:
    """EXTISM_ENABLE_WASI_OUTPUT concerns the extism engine alone: with it set, heal's background
    load of the process-wide module (the raw engine) succeeds, and renders."""
    out = run(SERVERS + """
    toolerr.heal(server)
    _engine._loader.join(120)
    assert _engine._default is not None and _engine._default.engine == "raw"
    print(toolerr.result_text(toolerr.tool_error("X", "m")).splitlines()[0])
    """, env={toolerr.WASI_OUTPUT_VARIABLE: "1"})
    assert (out.returncode, out.stdout, out.stderr) == (0, '<tool_error code="X" severity="error">\n', "")


def test_a_load_that_fails_otherwise_is_a_trap_too() -> None:
    """A package whose module cannot be read: TRAP, saying what failed, with
    the original exception as its cause."""
    out = run("""
    import toolerr
    from toolerr import _engine

    def unreadable() -> tuple[bytes, str]:
        raise FileNotFoundError(2, "No such file or directory", "toolerr.wasm")

    _engine.packaged_wasm = unreadable
    try:
        toolerr.default()
    except toolerr.ToolerrError as err:
        print(err.code, err.message, type(err.__cause__).__name__)
    """)
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout == ("TRAP toolerr: the module could not be loaded: FileNotFoundError: [Errno 2] No such file or "
                          "directory: 'toolerr.wasm' FileNotFoundError\n")


def test_a_stdio_server_that_cannot_load_the_module_stops_with_the_typed_error() -> None:
    """Over stdio the gate needs the module before the first line: run()
    raises the ToolerrError itself (not wrapped in a task group's exception
    group), before any line is read, and writes nothing on stdout."""
    for quickstart in QUICKSTARTS:
        code = textwrap.dedent(BROKEN_PACKAGE) + f"import runpy\nrunpy.run_path({str(quickstart)!r}, run_name='__main__')\n"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                             input=INITIALIZE + "\n", cwd=ROOT)
        assert out.returncode == 1 and out.stdout == "", quickstart
        assert out.stderr.splitlines()[-1] == f"toolerr._errors.ToolerrError: TRAP: {BROKEN}", quickstart
        assert "ExceptionGroup" not in out.stderr and "Exception in thread" not in out.stderr, quickstart
