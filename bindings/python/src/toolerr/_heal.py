"""``toolerr.heal(server)``: the error contract inside the MCP Python SDK's
own ``MCPServer``, for servers written the way the SDK teaches
(``@server.tool()`` with type hints or pydantic models, ``server.run()``),
and inside a FastMCP 4 server (``_fastmcp``, through FastMCP's middleware).

Where it hooks into ``MCPServer``: ``MCPServer.call_tool(name, arguments,
context)``, the method the SDK's ``tools/call`` handler awaits, documents
what it raises: ``ToolError`` whose ``__cause__`` is a pydantic
``ValidationError`` for arguments that fail the tool's signature,
``ToolError`` (cause: what the tool raised) for a ``ToolError`` or
``ResourceError`` raised on purpose, ``UnexpectedToolError`` (cause: the
original exception) for anything else, and ``MCPError`` unchanged. ``heal``
wraps that one method on the instance and turns those exceptions into
toolerr results, which the SDK then sends as any tool result. The SDK's
middleware and extension hooks are not used: both run around the
``tools/call`` handler, which has already turned the exception into ``Error
executing tool ...`` text by the time they see it.

No envelope is written here: validation errors go to the module's
``format_validation`` (pydantic dialect, the errors as pydantic reports
them), an SDK error raised on purpose to its ``tool_failure``, everything
else to :func:`toolerr.handle_exception`.

A call to a tool the server does not have (the SDK's ``ToolError`` without a
cause, for a name its ``list_tools()`` does not hold) gets the module's
UNKNOWN_ACTION (``unknown_tool``) with the server's tools, unless the server
was healed with ``unknown_tool="sdk"``.

Each healed failure is logged once, on the ``toolerr`` logger at the level
``heal`` was given (INFO by default), in one line; the traceback of an
unexpected exception is added only when that logger is enabled for DEBUG
(:func:`log_healed`). The model gets the exception's message in the
envelope; stderr stays quiet by default.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

from mcp_types import CallToolResult

from ._abi import ExportName
from ._api import (
    ToolErrorException,
    format_validation,
    handle_exception,
    to_call_tool_result,
    tool_failure,
)
from ._api import unknown_tool as render_unknown_tool
from ._engine import Toolerr, encode_request, load_in_background
from ._errors import ToolerrError
from ._sdk import check_fastmcp, check_mcp
from ._stdio import arguments_too_large, gated_stdio

if TYPE_CHECKING:
    import pydantic_core
    from fastmcp import FastMCP
    from mcp.server.mcpserver import MCPServer

__all__ = [
    "Healing",
    "UnknownToolAnswer",
    "heal",
    "log_healed",
    "missing",
    "one_line",
    "raised",
    "rejected",
    "reported",
    "warm_up",
]

logger = logging.getLogger("toolerr")

ServerT = TypeVar("ServerT", bound="MCPServer[Any] | FastMCP[Any]")

#: What a healed server answers a call to a tool it does not have:
#: ``"envelope"``, the module's UNKNOWN_ACTION naming the tool called and the
#: server's tools (an ``isError`` result the model reads and corrects from),
#: or ``"sdk"``, the SDK's own answer (``Unknown tool: x``), byte for byte.
UnknownToolAnswer = Literal["envelope", "sdk"]


class Healing:
    """A healed server's settings: the module that renders its envelopes
    (None: the process-wide one), what an unknown tool gets, and the level
    each healed failure is logged at."""

    def __init__(self, module: Toolerr | None, unknown_tool: UnknownToolAnswer, log_level: int) -> None:
        self.module = module
        self.unknown_tool = unknown_tool
        self.log_level = log_level

    def update(self, other: Healing) -> None:
        """Take the settings of ``other`` (heal given new options)."""
        self.module, self.unknown_tool, self.log_level = other.module, other.unknown_tool, other.log_level


def log_healed(healing: Healing, message: str, *args: object, origin: BaseException | None = None) -> None:
    """Log one healed failure: one line on the ``toolerr`` logger at
    ``healing.log_level``, with the traceback of ``origin`` only when that
    logger is enabled for DEBUG (``logging.getLogger("toolerr").setLevel(
    logging.DEBUG)`` asks for it)."""
    traceback = origin if origin is not None and logger.isEnabledFor(logging.DEBUG) else None
    logger.log(healing.log_level, message, *args, exc_info=traceback)


def one_line(exc: BaseException) -> str:
    """An exception as a log line says it: its type and message."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _is_fastmcp(server: object) -> bool:
    """Whether ``server`` is a FastMCP server (of any release), found without
    importing ``fastmcp``: its class is in the process already."""
    return any(
        kind.__module__ == "fastmcp.server.server" and kind.__name__ == "FastMCP" for kind in type(server).__mro__
    )

#: The attribute that marks a healed server (and keeps its settings).
_HEALED = "_toolerr_healed"


def _settings(module: Toolerr | None, unknown_tool: object, log_level: object) -> Healing:
    """heal's options, checked."""
    if unknown_tool not in get_args(UnknownToolAnswer):
        raise ValueError(f'toolerr.heal: unknown_tool must be "envelope" or "sdk", not {unknown_tool!r}')
    if isinstance(log_level, bool) or not isinstance(log_level, int):
        raise TypeError(
            f"toolerr.heal: log_level must be a logging level (an int such as logging.INFO), not {log_level!r}"
        )
    return Healing(module, unknown_tool, log_level)  # type: ignore[arg-type]  # checked above


def heal(
    server: ServerT,
    *,
    module: Toolerr | None = None,
    unknown_tool: UnknownToolAnswer = "envelope",
    log_level: int = logging.INFO,
) -> ServerT:
    """Make every tool failure of an ``mcp`` ``MCPServer`` or a FastMCP 4
    server reach the model as one of toolerr's envelopes, and return the
    server.

    - arguments the tool's signature rejects (pydantic) become a
      ``<validation_error action="TOOL">`` naming each field by its path,
      with what was sent (the module's ``format_validation``, pydantic
      dialect);
    - a raised :class:`ToolErrorException` or ``toolerr.error(...)`` builder
      is delivered intact (a warning with ``is_error`` False);
    - the SDK's own ``ToolError`` raised on purpose (FastMCP's, or
      ``MCPServer``'s ``ToolError`` and ``ResourceError``) becomes
      TOOL_FAILURE naming the tool, with its message (:func:`tool_failure`);
    - any other exception becomes INTERNAL_ERROR naming the tool, with the
      exception's message and never its traceback;
    - a call to a tool the server does not have becomes UNKNOWN_ACTION
      naming the tool called, with the server's tools as its available
      actions, closest to that name first (:func:`unknown_tool`); with
      ``unknown_tool="sdk"`` it gets the SDK's own answer instead
      (``Unknown tool: x``);
    - ``MCPError`` and everything else are answered as the SDK answers them;
    - ``run()`` over stdio (``MCPServer``'s and FastMCP's) reads the client's lines through the
      module's stdio gate (:func:`toolerr.gated_stdio`): a line the SDK would
      drop or refuse is answered or ignored, and arguments too large, too
      deep, out of range, not valid Unicode or not an object get the gate's
      ``<validation_error>``, the same bytes as every toolerr server's.

    Each healed failure is logged in one line on the ``toolerr`` logger at
    ``log_level`` (INFO by default; with the traceback when that logger is
    enabled for DEBUG). On ``MCPServer``, heal wraps the instance's
    ``call_tool``; on FastMCP, it adds a middleware (innermost of those added
    so far), and FastMCP's own log lines about a call heal answers are held
    back.

    Without ``module``, heal starts loading the process-wide module in a
    background thread (:func:`toolerr.default` waits for it), and runs each
    export a failure uses once there (:func:`warm_up`), so that the server's
    first failed call waits neither for the module to compile nor for its
    first run of that code. A module that cannot be loaded raises its
    :class:`ToolerrError` where it is first needed: from ``run()`` over
    stdio, before any line is read, and otherwise in the warning logged for
    the first failure heal cannot answer.

    Raises :class:`MCPVersionError` when the installed ``mcp`` is not one of
    :data:`SUPPORTED_MCP` (or none is installed), :class:`FastMCPVersionError`
    for a FastMCP outside :data:`SUPPORTED_FASTMCP`, ``TypeError`` when
    ``server`` is neither an ``mcp.server.mcpserver.MCPServer`` nor a
    ``fastmcp.FastMCP`` or ``log_level`` is not an int, and ``ValueError``
    for an ``unknown_tool`` that is neither ``"envelope"`` nor ``"sdk"``.
    Healing a server again changes nothing but its options: the module,
    ``unknown_tool`` and ``log_level`` given last."""
    healing = _settings(module, unknown_tool, log_level)
    if _is_fastmcp(server):
        check_fastmcp("toolerr.heal", getattr(sys.modules.get("fastmcp"), "__version__", None))
        from ._fastmcp import heal_fastmcp

        heal_fastmcp(server, healing)  # type: ignore[arg-type]  # checked: a FastMCP
        if module is None:
            load_in_background(warm_up)
        return server
    check_mcp("toolerr.heal", required=True)
    from mcp.server.mcpserver import MCPServer

    if not isinstance(server, MCPServer):
        kind = type(server)
        raise TypeError(
            "toolerr.heal takes an mcp.server.mcpserver.MCPServer (the MCP Python SDK's server) "
            f"or a fastmcp.FastMCP, not {kind.__module__}.{kind.__qualname__}"
        )
    healed = getattr(server, _HEALED, None)
    if isinstance(healed, Healing):
        healed.update(healing)
    else:
        setattr(server, "call_tool", _healed_call_tool(server, server.call_tool, healing))  # noqa: B010 - a method
        setattr(server, "run_stdio_async", _gated_run_stdio(server, healing))  # noqa: B010 - a method
        setattr(server, _HEALED, healing)
    if module is None:
        load_in_background(warm_up)
    return server


#: One small request of each export a healed failure (or the stdio gate) calls.
_WARM_UP: tuple[tuple[ExportName, Any], ...] = (
    ("format_validation", {"action": "t", "dialect": "pydantic", "args": {"a": 1}, "issues": [
        {"type": "string_type", "loc": ["a"], "msg": "Input should be a valid string", "input": 1}]}),
    ("tool_error", {"code": "NOT_FOUND", "message": "m", "availableActions": ["t"], "details": {"k": "v"}}),
    ("internal_error", {"message": "m", "tool": "t"}),
    ("tool_failure", {"message": "m", "tool": "t"}),
    ("unknown_tool", {"tool": "t", "tools": ["u"]}),
    ("gate", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}'),
)


def warm_up(module: Toolerr) -> None:
    """Run each export a healed failure uses once, so that the first real
    failure finds the module's code and heap as a later one does (the first
    call of an export in a process took 2 to 3 ms, later ones 0.1 ms)."""
    for export, request in _WARM_UP:
        module.call(export, request)


def _gated_run_stdio(server: MCPServer[Any], healing: Healing) -> Callable[[], Awaitable[None]]:
    """``MCPServer.run_stdio_async`` (what ``server.run()`` runs) with the
    stdio gate in front of the SDK's stdio transport."""
    from mcp.server.stdio import stdio_server

    @functools.wraps(server.run_stdio_async)
    async def run_stdio_async() -> None:
        lowlevel = server._lowlevel_server
        async with gated_stdio(module=healing.module) as (stdin, stdout):
            async with stdio_server(stdin, stdout) as (read_stream, write_stream):
                await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    return run_stdio_async


CallTool = Callable[..., Awaitable[Any]]


def _healed_call_tool(server: MCPServer[Any], call_tool: CallTool, healing: Healing) -> CallTool:
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(call_tool)
    async def healed(name: str, arguments: dict[str, Any], *rest: Any, **options: Any) -> Any:
        try:
            return await call_tool(name, arguments, *rest, **options)
        except ToolError as failure:
            try:
                result = _result(failure, name, arguments, healing)
                if result is None and failure.__cause__ is None and healing.unknown_tool == "envelope":
                    result = await _unknown(server, name, healing)
            except ToolerrError as refused:
                logger.warning("toolerr could not render the failure of tool %r (%s); the SDK answers it", name,
                               refused)
                result = None
            if result is None:
                raise
            return result

    return healed


async def _unknown(server: MCPServer[Any], tool: str, healing: Healing) -> CallToolResult | None:
    """After the SDK's own ToolError (no cause): UNKNOWN_ACTION when the
    server has no tool of that name (its ``list_tools()`` says so, not the
    words ``Unknown tool:``); None leaves the SDK's answer."""
    try:
        tools = [listed.name for listed in await server.list_tools()]
    except Exception as refused:  # noqa: BLE001 - the SDK's own answer then
        logger.warning("toolerr could not list the tools for the unknown tool %r (%s); the SDK answers it", tool,
                       one_line(refused))
        return None
    return missing(tool, tools, healing)


def _result(failure: Exception, tool: str, arguments: Any, healing: Healing) -> CallToolResult | None:
    """The result for what ``MCPServer.call_tool`` raised; None leaves it to
    the SDK."""
    import pydantic_core
    from mcp.server.mcpserver.exceptions import UnexpectedResourceError, UnexpectedToolError

    cause = failure.__cause__
    if isinstance(failure, UnexpectedToolError):
        # A crash: the cause is the original exception, or, for a nested tool
        # call or resource read that crashed, its wrapper; unwrap those.
        origin: BaseException = failure
        seen: set[int] = set()
        while (
            isinstance(origin, (UnexpectedToolError, UnexpectedResourceError))
            and origin.__cause__ is not None
            and id(origin) not in seen
        ):
            seen.add(id(origin))
            origin = origin.__cause__
        return raised(tool, origin, healing)
    if cause is None:
        return None  # the SDK's own ToolError: "Unknown tool: ...", or a resolver's
    if isinstance(cause, pydantic_core.ValidationError):
        return rejected(tool, cause, arguments, healing)
    # A ToolError or ResourceError raised on purpose: the author's words.
    return reported(tool, cause, healing)


def missing(tool: str, tools: list[str], healing: Healing) -> CallToolResult | None:
    """A call to ``tool``, which is not among the server's ``tools`` (in its
    order): UNKNOWN_ACTION with those tools; None when it is among them
    after all (the SDK's answer was about something else)."""
    if tool in tools:
        return None
    log_healed(healing, "Tool %r does not exist", tool)
    return render_unknown_tool(tool, tools, module=healing.module)


def rejected(tool: str, errors: pydantic_core.ValidationError, arguments: Any, healing: Healing) -> CallToolResult:
    """Arguments the tool's signature rejected: pydantic's errors as they
    are, and what was sent. Logged by field name only, as the SDK does: the
    values are the caller's data."""
    module = healing.module
    fields = sorted({".".join(str(part) for part in error["loc"]) for error in errors.errors()})
    log_healed(healing, "Tool %r rejected arguments: %r", tool, fields)
    try:
        return format_validation(tool, errors, arguments, dialect="pydantic", module=module)
    except ToolerrError as refusal:
        if refusal.code != "REQUEST_TOO_LARGE":
            raise
        # Arguments that fit a message but not the module's check beside
        # pydantic's errors: too large, not a failure of the server.
        size = len(encode_request("format_validation", arguments))
        return to_call_tool_result(arguments_too_large(tool, size, module=module))


def reported(tool: str, failure: BaseException, healing: Healing) -> CallToolResult:
    """An SDK's own error raised on purpose with a message alone: TOOL_FAILURE
    in the author's words."""
    log_healed(healing, "Tool %r failed: %r", tool, str(failure))
    return tool_failure(str(failure) or type(failure).__name__, tool=tool, module=healing.module)


def raised(tool: str, origin: BaseException, healing: Healing) -> CallToolResult:
    """What a tool raised: a toolerr error intact, anything else
    INTERNAL_ERROR (its traceback logged only at DEBUG)."""
    if isinstance(origin, ToolErrorException):
        log_healed(healing, "Tool %r raised %s", tool, origin)
    else:
        log_healed(healing, "Tool %r raised an unexpected exception: %s", tool, one_line(origin), origin=origin)
    return handle_exception(origin, tool, module=healing.module)
