"""``toolerr.heal(server)`` for a FastMCP 4 server (the ``fastmcp`` package),
through FastMCP's own extension point: a middleware whose ``on_call_tool``
turns a failed call into one of toolerr's results.

What reaches ``on_call_tool`` when a call fails (FastMCP's ``call_tool``
raises it, beneath the middleware chain, for the server's own tools and a
mounted server's alike):

- ``fastmcp.exceptions.ValidationError`` for arguments the tool's signature
  rejects, with pydantic's ``ValidationError`` as its ``__cause__``;
- a ``ToolError`` the tool raised on purpose, as it was raised;
- for any other exception the tool raised, a ``ToolError`` FastMCP made of it
  (``Error calling tool 'x': ...``, or only ``Error calling tool 'x'`` when
  the server masks error details) in its ``call_tool``, with that exception
  as ``__cause__``;
- ``NotFoundError`` (or ``DisabledError``) for a tool the server does not
  have, which gets the module's UNKNOWN_ACTION with the tools the server
  lists (``FastMCP.list_tools()``, through the server of the middleware
  context: the tools of mounted servers and other providers included, under
  the names the client sees), unless the server was healed with
  ``unknown_tool="sdk"``;
- ``MCPError`` and FastMCP's other errors (authorization, ...), which are
  left to FastMCP.

FastMCP logs each failure itself before the middleware sees it (a warning
for bad arguments, an error with the traceback for a crash), on its
``fastmcp.server.server`` logger. While a healed call runs, a filter on that
logger holds those lines back: a failure heal answers is logged once, by
toolerr (``_heal.log_healed``); a failure left to FastMCP gets FastMCP's
lines after all.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

import mcp_types
import pydantic_core
from fastmcp import FastMCP
from fastmcp.exceptions import DisabledError, FastMCPError, NotFoundError, ToolError, ValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from mcp import MCPError

from ._api import ToolErrorException, internal_error
from ._engine import Toolerr
from ._errors import ToolerrError
from ._heal import Healing, log_healed, logger, missing, one_line, raised, rejected, reported
from ._stdio import gated_stdio

__all__ = ["heal_fastmcp"]

#: The module whose ``call_tool`` raises FastMCP's failures, and its logger.
_SERVER_MODULE = "fastmcp.server.server"
#: How FastMCP's own lines about a failed call begin.
_FAILURE_LINES = ("Error calling tool ", "Invalid arguments for tool ")
#: What FastMCP's ToolError made of another exception begins with.
_WRAPPED = "Error calling tool "

#: The log records FastMCP wrote about the healed call in flight (None outside one).
_held: ContextVar[list[logging.LogRecord] | None] = ContextVar("toolerr_fastmcp_held", default=None)


class _HoldFailureLines(logging.Filter):
    """Holds back FastMCP's lines about a failed call while a healed call
    runs (see the module's docstring); lets everything else through."""

    def filter(self, record: logging.LogRecord) -> bool:
        held = _held.get()
        if held is None:
            return True
        try:
            line = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot be formatted is not one of FastMCP's lines
            return True
        if not line.startswith(_FAILURE_LINES):
            return True
        held.append(record)
        return False


_HOLD = _HoldFailureLines()


class HealMiddleware(Middleware):
    """The middleware :func:`toolerr.heal` adds to a FastMCP server, with the
    settings heal was given (``healing``: the module that renders its
    envelopes, what an unknown tool gets, the level failures are logged at)."""

    def __init__(self, healing: Healing) -> None:
        self.healing = healing

    @property
    def module(self) -> Toolerr | None:
        """The module that renders the envelopes (None: the process-wide one)."""
        return self.healing.module

    async def on_call_tool(
        self,
        context: MiddlewareContext[mcp_types.CallToolRequestParams],
        call_next: CallNext[mcp_types.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        name = context.message.name
        arguments = context.message.arguments or {}
        held: list[logging.LogRecord] = []
        try:
            token = _held.set(held)
            try:
                return await call_next(context)
            finally:
                _held.reset(token)
        except Exception as failure:  # noqa: BLE001 - each one is answered or re-raised
            result = self._result(failure, name, arguments)
            if result is None and isinstance(failure, (NotFoundError, DisabledError)):
                result = await self._unknown(context, name)
            if result is None:
                for record in held:  # FastMCP answers it: its own lines after all
                    logging.getLogger(record.name).handle(record)
                raise
            return ToolResult(content=list(result.content), is_error=bool(result.is_error))

    def _result(self, failure: Exception, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult | None:
        try:
            return _result(failure, tool, arguments, self.healing)
        except ToolerrError as refused:
            logger.warning("toolerr could not render the failure of tool %r (%s); FastMCP answers it", tool, refused)
            return None

    async def _unknown(
        self, context: MiddlewareContext[mcp_types.CallToolRequestParams], tool: str
    ) -> mcp_types.CallToolResult | None:
        """UNKNOWN_ACTION for a call to a tool the server does not list; None
        leaves FastMCP's answer (``unknown_tool="sdk"``, a tool it lists, or
        no server to ask)."""
        if self.healing.unknown_tool != "envelope" or context.fastmcp_context is None:
            return None
        try:
            # What tools/list gives this client: enabled, authorized, after
            # transforms and middleware, mounted servers' tools by the names
            # the client calls them by.
            listed = await context.fastmcp_context.fastmcp.list_tools()
        except Exception as refused:  # noqa: BLE001 - FastMCP's own answer then
            logger.warning("toolerr could not list the tools for the unknown tool %r (%s); FastMCP answers it", tool,
                           one_line(refused))
            return None
        try:
            return missing(tool, list(dict.fromkeys(t.name for t in listed)), self.healing)
        except ToolerrError as refused:
            logger.warning("toolerr could not render the unknown tool %r (%s); FastMCP answers it", tool, refused)
            return None


def heal_fastmcp(server: FastMCP[Any], healing: Healing) -> None:
    """Add toolerr's middleware to ``server`` (once; healing again changes its
    settings only), and serve its stdio transport behind the stdio gate. The
    version has been checked by the caller."""
    logging.getLogger(_SERVER_MODULE).addFilter(_HOLD)  # a set: added once per process
    for middleware in server.middleware:
        if isinstance(middleware, HealMiddleware):
            middleware.healing.update(healing)
            return
    middleware = HealMiddleware(healing)
    server.add_middleware(middleware)
    setattr(server, "run_stdio_async", _gated_run_stdio(server.run_stdio_async, healing))  # noqa: B010 - a method


#: The gated streams of the stdio run in progress (None outside one), which
#: FastMCP's stdio transport takes instead of the process's own.
_gated: ContextVar[tuple[Any, Any] | None] = ContextVar("toolerr_fastmcp_gated", default=None)


def _gated_run_stdio(
    run_stdio_async: Callable[..., Awaitable[None]], healing: Healing
) -> Callable[..., Awaitable[None]]:
    """FastMCP's ``run_stdio_async`` (what ``server.run()`` runs for stdio)
    with the stdio gate in front of its transport: everything else (banner,
    log level, lifespan) is FastMCP's own.

    FastMCP has no extension point for its stdio streams: it opens them with
    ``mcp.server.stdio.stdio_server()``, a name of its transport module that
    ``_gated_stdio_server`` stands in for; the stand-in gives the gated
    streams inside a healed server's stdio run, and the SDK's own anywhere
    else."""
    from fastmcp.server.mixins import transport

    global _sdk_stdio_server
    # The name is the transport module's import of the SDK's function, which
    # it does not re-export: read and set as an attribute of the module.
    if getattr(transport, "stdio_server") is not _gated_stdio_server:  # noqa: B009
        _sdk_stdio_server = getattr(transport, "stdio_server")  # noqa: B009
        setattr(transport, "stdio_server", _gated_stdio_server)  # noqa: B010

    @functools.wraps(run_stdio_async)
    async def run(*args: Any, **kwargs: Any) -> None:
        async with gated_stdio(module=healing.module) as streams:
            token = _gated.set(streams)
            try:
                await run_stdio_async(*args, **kwargs)
            finally:
                _gated.reset(token)

    return run


#: The SDK's ``stdio_server``, as FastMCP's transport module named it.
_sdk_stdio_server: Callable[..., Any] | None = None


def _gated_stdio_server(stdin: Any = None, stdout: Any = None) -> Any:
    """``mcp.server.stdio.stdio_server`` on the gated streams of the healed
    run in progress, when FastMCP asks for the process's own."""
    gated = _gated.get()
    if gated is not None and stdin is None and stdout is None:
        stdin, stdout = gated
    assert _sdk_stdio_server is not None  # set before this stands in for it
    return _sdk_stdio_server(stdin, stdout)


def _result(
    failure: Exception, tool: str, arguments: dict[str, Any], healing: Healing
) -> mcp_types.CallToolResult | None:
    """The result for what a call raised through the middleware chain; None
    leaves it to FastMCP."""
    if isinstance(failure, ValidationError):
        cause = failure.__cause__
        if isinstance(cause, pydantic_core.ValidationError):
            return rejected(tool, cause, arguments, healing)
        return reported(tool, failure, healing)  # raised on purpose, without pydantic's errors
    if isinstance(failure, ToolError):
        origin = _wrapped(failure)
        if origin is None:
            # Raised on purpose (by the tool, or by FastMCP in words of its own,
            # such as an upstream's rate limit): the author chose the words.
            return reported(tool, failure, healing)
        if not isinstance(origin, ToolErrorException) and not str(failure).endswith(f": {origin}"):
            # The server masks error details: the exception's message stays inside.
            log_healed(healing, "Tool %r raised an unexpected exception: %s", tool, one_line(origin), origin=origin)
            return internal_error(str(failure), tool=tool, module=healing.module)
        return raised(tool, origin, healing)
    if isinstance(failure, (FastMCPError, NotFoundError, DisabledError, MCPError)):
        # FastMCP's own answers: authorization, a protocol error; an unknown
        # tool (NotFoundError, DisabledError) is HealMiddleware._unknown's.
        return None
    return raised(tool, failure, healing)  # from a middleware beneath this one, or a tools/call interceptor


def _wrapped(failure: ToolError) -> BaseException | None:
    """The exception FastMCP's ``call_tool`` made ``failure`` of (its cause),
    or None when ``failure`` was raised as it is. FastMCP's is raised in its
    server module with a cause, in words that begin ``Error calling tool``;
    a tool's own ``raise ToolError(...) from err`` is raised elsewhere."""
    cause = failure.__cause__
    if cause is None or not str(failure).startswith(_WRAPPED):
        return None
    frame = failure.__traceback__
    if frame is None:
        return None
    while frame.tb_next is not None:
        frame = frame.tb_next
    if frame.tb_frame.f_globals.get("__name__") != _SERVER_MODULE:
        return None
    return cause

