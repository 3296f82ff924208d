"""toolerr: MCP Fusion's error contract from one WebAssembly module.

Every envelope is rendered, and every envelope parsed, by ``toolerr.wasm``,
the same bytes the Go, Node and Rust hosts load; this package builds
requests, calls the module (on wasmtime-py through its raw path, or through
Extism with ``Toolerr(engine="extism")``), and wraps the responses as the
``mcp`` package's ``CallToolResult``.

``heal(server)`` makes an ``mcp`` ``MCPServer`` or a FastMCP 4 server answer
every tool failure, and a call to a tool it does not have, with an envelope
(supported releases:
:data:`SUPPORTED_MCP`, :data:`SUPPORTED_FASTMCP`), and serves an
``MCPServer``'s ``run()`` behind the stdio gate; :func:`gated_stdio` is that
gate as the streams the SDK's ``stdio_server`` takes.

The module-level functions use one process-wide module, loaded (sha256 and
ABI major checked) on first use; :class:`Toolerr` loads another, and every
function takes ``module=`` to use it.
"""

from ._api import (
    ClientError,
    Envelope,
    ErrorBuilder,
    Guard,
    ToolErrorEnvelope,
    ToolErrorException,
    ToolErrorOptions,
    ValidationErrorEnvelope,
    ValidationField,
    call_tool,
    check_result,
    contract_diff,
    contract_lock,
    error,
    escape,
    format_validation,
    guard,
    handle_exception,
    internal_error,
    parse,
    rate_limited,
    required,
    result_text,
    server_busy,
    simple_error,
    to_call_tool_result,
    tool_error,
    tool_failure,
    unknown_tool,
    validate,
)
from ._abi import ABI_MAJOR
from ._engine import WASI_OUTPUT_VARIABLE, Request, Toolerr, default
from ._errors import ToolerrError
from ._heal import UnknownToolAnswer, heal
from ._sdk import SUPPORTED_FASTMCP, SUPPORTED_MCP, FastMCPVersionError, MCPVersionError
from ._stdio import GATE_HEAD_BYTES, GateVerdict, arguments_too_large, gate, gated_stdio

__version__ = "0.2.0"


def call(export: str, request: Request = None) -> str:
    """Run an export of the process-wide module; see :meth:`Toolerr.call`."""
    return default().call(export, request)


def describe() -> dict:  # type: ignore[type-arg]
    """What the module says of itself: abiVersion, version, exports, codes,
    severities, limits."""
    return dict(default().description)


__all__ = [
    "ABI_MAJOR",
    "ClientError",
    "Envelope",
    "ErrorBuilder",
    "FastMCPVersionError",
    "GATE_HEAD_BYTES",
    "GateVerdict",
    "Guard",
    "MCPVersionError",
    "Request",
    "SUPPORTED_FASTMCP",
    "SUPPORTED_MCP",
    "ToolErrorEnvelope",
    "ToolErrorException",
    "ToolErrorOptions",
    "Toolerr",
    "ToolerrError",
    "UnknownToolAnswer",
    "ValidationErrorEnvelope",
    "ValidationField",
    "WASI_OUTPUT_VARIABLE",
    "__version__",
    "arguments_too_large",
    "call",
    "call_tool",
    "check_result",
    "contract_diff",
    "contract_lock",
    "default",
    "describe",
    "error",
    "escape",
    "format_validation",
    "gate",
    "gated_stdio",
    "guard",
    "handle_exception",
    "heal",
    "internal_error",
    "parse",
    "rate_limited",
    "required",
    "result_text",
    "server_busy",
    "simple_error",
    "to_call_tool_result",
    "tool_error",
    "tool_failure",
    "unknown_tool",
    "validate",
]
