"""The idiomatic API: snake_case keywords in, MCP results and dataclasses out.

Every function builds an ABI request (camelCase fields, typed by the
TypedDicts of ``_abi.py``, generated from abi/abi.json), calls the module and
wraps its response. No rendering, escaping, parsing or number formatting
happens here: numbers go to the module as JSON numbers and it writes them.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, Protocol, TypedDict, TypeVar, Union, cast, overload

from mcp_types import CallToolResult, TextContent

from . import _abi
from ._abi import (
    MAX_DEPTH,
    CheckResultResponse,
    ContractDiffRequest,
    ContractLockRequest,
    DetailValue,
    Envelope as EnvelopeObject,
    EscapeRequest,
    EscapeResponse,
    ExportName,
    FormatValidationRequest,
    InternalErrorRequest,
    ParseRequest,
    ParseResponse,
    RateLimitedRequest,
    RequiredFieldRequest,
    ServerBusyRequest,
    Severity,
    SimpleErrorRequest,
    ToolErrorRequest,
    UnknownToolRequest,
    ValidateRequest,
    ValidateResponse,
)
from ._engine import Toolerr, _field, default
from ._errors import ToolerrError
from ._sdk import check_mcp

if TYPE_CHECKING:
    import pydantic
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11; only type checkers read it


def _module(module: Toolerr | None) -> Toolerr:
    return module if module is not None else default()


def _call(module: Toolerr | None, export: ExportName, request: Mapping[str, Any]) -> Any:
    """The module's decoded response to request, an object of abi/abi.json."""
    return _module(module).call_json(export, request)


def _result(module: Toolerr | None, export: ExportName, request: Mapping[str, Any]) -> CallToolResult:
    return to_call_tool_result(_call(module, export, request))


def to_call_tool_result(response: Mapping[str, Any]) -> CallToolResult:
    """Wrap the module's CallToolResult JSON in the ``mcp`` package's type."""
    return CallToolResult(
        content=[TextContent(type="text", text=block["text"]) for block in response["content"]],
        is_error=bool(response["isError"]),
    )


def result_text(result: CallToolResult | Mapping[str, Any]) -> str:
    """The text of the first text block of an MCP ``CallToolResult`` (one
    toolerr rendered, a tool's own, or one a client received; or its dict
    form), or ``""`` when it has none. It only reads the result."""

    def get(value: Any, key: str) -> Any:
        return value.get(key) if isinstance(value, Mapping) else getattr(value, key, None)

    content = get(result, "content")
    if not isinstance(content, (list, tuple)):
        return ""
    for block in content:
        if get(block, "type") == "text":
            text = get(block, "text")
            return text if isinstance(text, str) else ""
    return ""


# --- rendering -------------------------------------------------------------


class ToolErrorOptions(TypedDict, total=False):
    """The optional members of a tool error: the keywords :func:`tool_error`
    and :class:`ToolErrorException` take besides the code and the message."""

    suggestion: str | None
    """Rendered as ``<recovery>`` when not empty."""
    available_actions: Sequence[str] | None
    """One ``<action>`` each, in order."""
    severity: Severity | None
    """``error`` (the default), ``critical`` or ``warning`` (a success)."""
    details: Mapping[str, DetailValue] | None
    """Strings, numbers or booleans; their order is kept."""
    retry_after: float | None
    """Seconds; rendered when finite and above zero."""


def tool_error(
    code: str, message: str, *, module: Toolerr | None = None, **options: Unpack[ToolErrorOptions]
) -> CallToolResult:
    """Render a ``<tool_error>`` envelope. A warning comes back with
    ``is_error`` False: it rides the success path. Details keep their order."""
    return _result(module, "tool_error", _tool_error_request(code, message, options))


def _tool_error_request(code: Any, message: Any, options: ToolErrorOptions) -> ToolErrorRequest:
    request = ToolErrorRequest(code=code, message=message)
    if (suggestion := options.get("suggestion")) is not None:
        request["suggestion"] = suggestion
    if (actions := options.get("available_actions")) is not None:
        # A str is the module's to refuse.
        request["availableActions"] = cast(Any, actions if isinstance(actions, str) else list(actions))
    if (severity := options.get("severity", "error")) is not None:
        request["severity"] = severity
    if (details := options.get("details")) is not None:
        request["details"] = cast(Any, details)  # any Mapping: the module reads it as JSON
    if (retry_after := options.get("retry_after")) is not None:
        request["retryAfter"] = retry_after
    return request


def simple_error(message: str, code: str | None = None, *, module: Toolerr | None = None) -> CallToolResult:
    """Render the reference's plain ``error()``: a message and, when given, a
    code attribute."""
    request = SimpleErrorRequest(message=message)
    if code is not None:
        request["code"] = code
    return _result(module, "simple_error", request)


def required(field: str, *, module: Toolerr | None = None) -> CallToolResult:
    """Render MISSING_REQUIRED_FIELD for ``field``."""
    return _result(module, "required_field", RequiredFieldRequest(field=field))


def internal_error(
    message: str, *, tool: str | None = None, action: str | None = None, module: Toolerr | None = None
) -> CallToolResult:
    """Render INTERNAL_ERROR for an unmarked failure; its recovery tells the
    model not to blindly retry."""
    return _result(module, "internal_error", _prefixed(message, tool, action))


def tool_failure(
    message: str, *, tool: str | None = None, action: str | None = None, module: Toolerr | None = None
) -> CallToolResult:
    """Render TOOL_FAILURE: a failure the tool reported on purpose with a
    message alone (an SDK's own ``ToolError``), whose words are kept; its
    recovery neither claims an unexpected failure nor invites a retry. The
    message must not be empty."""
    return _result(module, "tool_failure", _prefixed(message, tool, action))


def _prefixed(message: str, tool: str | None, action: str | None) -> InternalErrorRequest:
    """The request of internal_error, and of tool_failure (the same object):
    a message the module prefixes with ``[tool/action]``."""
    request = InternalErrorRequest(message=message)
    if tool is not None:
        request["tool"] = tool
    if action is not None:
        request["action"] = action
    return request


def unknown_tool(tool: str, tools: Sequence[str], *, module: Toolerr | None = None) -> CallToolResult:
    """Render UNKNOWN_ACTION for a call to ``tool``, which the server does not
    have: ``tools`` are the server's tools in its order, and the module lists
    those closest to the name called first (at most 20)."""
    listed: Any = tools if isinstance(tools, str) else list(tools)  # a str is the module's to refuse
    return _result(module, "unknown_tool", UnknownToolRequest(tool=tool, tools=listed))


def rate_limited(
    max: float,  # noqa: A002 - the ABI's name
    window_seconds: float,
    retry_after: float,
    *,
    key: str | None = None,
    module: Toolerr | None = None,
) -> CallToolResult:
    """Render RATE_LIMITED: at most ``max`` calls per ``window_seconds``."""
    request = RateLimitedRequest(max=max, windowSeconds=window_seconds, retryAfter=retry_after)
    if key is not None:
        request["key"] = key
    return _result(module, "rate_limited", request)


def server_busy(tool: str, active: float, queued: float, *, module: Toolerr | None = None) -> CallToolResult:
    """Render SERVER_BUSY for a concurrency guard that sheds load."""
    return _result(module, "server_busy", ServerBusyRequest(tool=tool, active=active, queued=queued))


def escape(text: str, context: _abi.EscapeContext = "content", *, module: Toolerr | None = None) -> str:
    """Escape text for an XML element body or a double-quoted attribute."""
    response: EscapeResponse = _call(module, "escape", EscapeRequest(text=text, context=context))
    return response["text"]


# --- contracts -----------------------------------------------------------------


def _plain(export: str, value: Any, path: str = "", depth: int = 1, on_path: set[int] | None = None) -> Any:
    """Tools as JSON data: an ``mcp`` model (a ``Tool``, a ``ListToolsResult``)
    becomes what the SDK puts on the wire (its camelCase aliases, unset
    fields left out), anywhere inside lists and mappings; a list or mapping
    holding no model is kept as it is.

    Nothing deeper than MAX_DEPTH levels is looked into (encoding the request
    then refuses it, naming the field), so no recursion goes deeper; a
    container met again inside itself, or a model pydantic cannot dump, is
    INVALID_REQUEST naming the field."""
    if _is_model(value):
        try:
            return value.model_dump(by_alias=True, exclude_none=True, mode="json")
        except (RecursionError, ValueError) as exc:  # pydantic's serialization errors are ValueErrors
            raise ToolerrError(
                "INVALID_REQUEST", f"{export}: {_field(path)} could not be written as JSON: {exc}"
            ) from None
    if depth > MAX_DEPTH or not isinstance(value, (Mapping, list, tuple)):
        return value
    on_path = set() if on_path is None else on_path
    if id(value) in on_path:
        raise ToolerrError("INVALID_REQUEST", f"{export}: {_field(path)} contains a circular reference")
    on_path.add(id(value))
    try:
        if isinstance(value, Mapping):
            entries = [
                (key, item, _plain(export, item, f"{path}.{key}" if path else str(key), depth + 1, on_path))
                for key, item in value.items()
            ]
            if all(new is old for _, old, new in entries):
                return value
            return {key: new for key, _, new in entries}
        items = [(item, _plain(export, item, f"{path}[{i}]", depth + 1, on_path)) for i, item in enumerate(value)]
        if all(new is old for old, new in items):
            return value
        return [new for _, new in items]
    finally:
        on_path.discard(id(value))


def _is_model(value: Any) -> bool:
    try:
        import pydantic
    except ImportError:  # pragma: no cover - pydantic is a dependency of mcp-types
        return False
    return isinstance(value, pydantic.BaseModel)


def contract_lock(tools: Any, *, module: Toolerr | None = None) -> dict[str, Any]:
    """The lockfile of a set of MCP tools: ``{"lockfileVersion", "digest",
    "tools": [{"name", "digest", "contract"}]}``, as the module writes it.

    ``tools`` is a list of ``mcp`` ``Tool`` objects (or their dicts), a
    ``tools/list`` result (``ListToolsResult`` or its dict) or a lockfile.
    Write it with ``json.dump(lock, f, indent=2)``."""
    return dict(_call(module, "contract_lock", ContractLockRequest(tools=_plain("contract_lock", tools, "tools"))))


def contract_diff(before: Any, after: Any, *, module: Toolerr | None = None) -> dict[str, Any]:
    """What changed from ``before`` to ``after`` (each as ``contract_lock``
    takes it): ``{"deltas", "maxSeverity", "backwardsCompatible"}``, the
    deltas most severe first. Pass ``contract={"tool": name, "deltas": deltas}``
    to :func:`validate` or :func:`format_validation`."""
    request = ContractDiffRequest(before=_plain("contract_diff", before, "before"), after=_plain("contract_diff", after, "after"))
    return dict(_call(module, "contract_diff", request))


# --- validation --------------------------------------------------------------


def _issues(issues: Any) -> Any:
    """A pydantic ValidationError becomes its ``errors()`` as JSON data (via
    its own JSON form, so inputs JSON cannot carry are already made safe)."""
    if _is_validation_error(issues):
        try:
            return json.loads(issues.json(include_url=False))
        except (RecursionError, ValueError) as exc:
            raise ToolerrError(
                "INVALID_REQUEST", f"format_validation: the ValidationError could not be read as JSON: {exc}"
            ) from None
    return issues


def _is_validation_error(value: Any) -> bool:
    try:
        import pydantic_core
    except ImportError:  # pragma: no cover - pydantic is a dependency of mcp-types
        return False
    return isinstance(value, pydantic_core.ValidationError)


def format_validation(
    action: str,
    issues: pydantic.ValidationError | Sequence[Mapping[str, Any]],
    args: Any = None,
    dialect: str | None = "pydantic",
    contract: Mapping[str, Any] | None = None,
    *,
    module: Toolerr | None = None,
) -> CallToolResult:
    """Render a ``<validation_error>`` from validator issues.

    ``issues`` is a pydantic ``ValidationError`` or a list of issue objects
    of ``dialect`` (``pydantic``, ``zod`` or ``jsonschema``); ``args`` is what
    the model sent, echoed as ``You sent: ...``; ``contract`` is the ABI's
    contract object (camelCase: ``tool, action, deltas, maxDeltas,
    includeAllSeverities``; or ``lockfile`` and ``tools`` instead of
    ``deltas``, which the module diffs), whose changes to ``tool`` are
    appended as a ``<contract_awareness>`` block."""
    request = FormatValidationRequest(action=action, issues=_issues(issues))
    if args is not None:
        request["args"] = args
    if dialect is not None:
        request["dialect"] = dialect
    if contract is not None:
        request["contract"] = _plain("format_validation", contract, "contract")
    return _result(module, "format_validation", request)


def validate(
    action: str,
    schema: Mapping[str, Any],
    args: Any,
    contract: Mapping[str, Any] | None = None,
    *,
    module: Toolerr | None = None,
) -> CallToolResult | None:
    """Check ``args`` against a JSON Schema in the module. Returns None when
    they are valid, else the ``<validation_error>`` result to send back;
    ``contract`` (``{"tool", "deltas"}`` or ``{"tool", "lockfile", "tools"}``,
    as for :func:`format_validation`) adds what changed to the tool."""
    request = ValidateRequest(action=action, schema=schema, args=args)
    if contract is not None:
        request["contract"] = _plain("validate", contract, "contract")
    response: ValidateResponse = _call(module, "validate", request)
    if response["valid"]:
        return None
    return to_call_tool_result(response["result"])


# --- parsing ------------------------------------------------------------------


@dataclass(frozen=True)
class ToolErrorEnvelope:
    """A parsed ``<tool_error>``. Details come back as the text the envelope
    shows, in order; ``retry_after`` in seconds."""

    code: str
    severity: str
    is_error: bool
    message: str
    recovery: str | None
    available_actions: list[str]
    details: dict[str, str]
    retry_after: float | None
    raw: dict[str, Any] = field(repr=False, compare=False)
    kind: Literal["tool_error"] = "tool_error"


@dataclass(frozen=True)
class ValidationField:
    """One ``<field>`` of a validation error."""

    name: str
    message: str


@dataclass(frozen=True)
class ValidationErrorEnvelope:
    """A parsed ``<validation_error>``; ``contract`` is the parsed
    ``<contract_awareness>`` block (ABI field names) or None."""

    action: str
    fields: list[ValidationField]
    recovery: str | None
    contract: dict[str, Any] | None
    raw: dict[str, Any] = field(repr=False, compare=False)
    kind: Literal["validation_error"] = "validation_error"


Envelope = Union[ToolErrorEnvelope, ValidationErrorEnvelope]


def _result_request(result: Any) -> _abi.CallToolResult:
    """The ABI CallToolResult of an ``mcp`` result (or of its dict form):
    its text blocks and isError."""
    if isinstance(result, Mapping):
        content = result.get("content") or []
        is_error = result.get("isError", result.get("is_error", False))
        blocks = [b for b in content if isinstance(b, Mapping) and b.get("type") == "text"]
        texts: list[Any] = [b.get("text") for b in blocks]  # not a str: the module's to refuse
    else:
        content = getattr(result, "content", None) or []
        is_error = getattr(result, "is_error", False)
        texts = [getattr(b, "text", None) for b in content if getattr(b, "type", None) == "text"]
    return {"content": [{"type": "text", "text": t} for t in texts], "isError": bool(is_error)}


def parse(text_or_result: Any, *, module: Toolerr | None = None) -> Envelope | None:
    """Read the first envelope in a text or in a CallToolResult's text
    blocks; None when there is none."""
    if isinstance(text_or_result, str):
        request = ParseRequest(text=text_or_result)
    else:
        request = ParseRequest(result=_result_request(text_or_result))
    response: ParseResponse = _call(module, "parse", request)
    envelope = response["envelope"]
    if envelope is None:
        return None
    if envelope["kind"] == "tool_error":
        return ToolErrorEnvelope(is_error=envelope["isError"], raw=dict(envelope), **_tool_error_members(envelope))
    return ValidationErrorEnvelope(raw=dict(envelope), **_validation_members(envelope))


def _tool_error_members(answer: EnvelopeObject) -> dict[str, Any]:
    """The tool error members of a parse or check_result answer, as keywords."""
    return {
        "code": answer["code"],
        "severity": answer["severity"],
        "message": answer["message"],
        "recovery": answer["recovery"],
        "available_actions": list(answer["availableActions"]),
        "details": dict(answer["details"]),
        "retry_after": answer["retryAfter"],
    }


def _validation_members(answer: EnvelopeObject) -> dict[str, Any]:
    """The validation error members of a parse or check_result answer, as keywords."""
    return {
        "action": answer["action"],
        "fields": [ValidationField(name=f["name"], message=f["message"]) for f in answer["fields"]],
        "recovery": answer["recovery"],
        "contract": answer["contract"],
    }


# --- raising: the handler's side ------------------------------------------------


class ToolErrorException(Exception):
    """A tool error a handler raises on purpose. :func:`guard` and
    :func:`handle_exception` render it intact (unlike any other exception,
    which becomes INTERNAL_ERROR)."""

    def __init__(self, code: str, message: str, **options: Unpack[ToolErrorOptions]) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self._request: ToolErrorRequest = _tool_error_request(code, message, options)

    def request(self) -> dict[str, Any]:
        """The ``tool_error`` request built so far (ABI field names)."""
        return dict(self._request)

    def render(self, *, module: Toolerr | None = None) -> CallToolResult:
        """Render the envelope."""
        return _result(module, "tool_error", self._request)


class ErrorBuilder(ToolErrorException):
    """A tool error under construction, and an exception in its own right::

        raise toolerr.error("NOT_FOUND", "No invoice with that ID") \\
            .suggest("List invoices first, then retry with a real ID") \\
            .actions("billing.list_invoices") \\
            .details(requestedId=invoice_id)
    """

    def suggest(self, suggestion: str) -> ErrorBuilder:
        """Set the recovery the model should follow."""
        self._request["suggestion"] = suggestion
        return self

    def actions(self, *actions: str) -> ErrorBuilder:
        """Append tools the model may call next."""
        self._request.setdefault("availableActions", []).extend(actions)
        return self

    def severity(self, severity: Severity) -> ErrorBuilder:
        """Set ``error``, ``critical`` or ``warning``."""
        self._request["severity"] = severity
        return self

    def details(self, entries: Mapping[str, DetailValue] | None = None, /, **more: DetailValue) -> ErrorBuilder:
        """Append details, in order: a mapping first, then keywords."""
        target = self._request.setdefault("details", {})
        for key, value in [*(entries or {}).items(), *more.items()]:
            target.pop(key, None)  # a repeated key moves to the end, like the last write
            target[key] = value
        return self

    def retry_after(self, seconds: float) -> ErrorBuilder:
        """Set the seconds to wait before retrying."""
        self._request["retryAfter"] = seconds
        return self


def error(code: str, message: str) -> ErrorBuilder:
    """Start a tool error with its code and message (see :class:`ErrorBuilder`)."""
    return ErrorBuilder(code, message, severity=None)


def handle_exception(
    exc: BaseException, tool: str, *, action: str | None = None, module: Toolerr | None = None
) -> CallToolResult:
    """The result for an exception a handler raised: a
    :class:`ToolErrorException` (or a raised builder) rendered intact; any
    other exception becomes INTERNAL_ERROR naming the tool, with the
    exception's message and never its traceback."""
    if isinstance(exc, ToolErrorException):
        try:
            return exc.render(module=module)
        except ToolerrError as render_error:
            message = f"tool error {exc.code} could not be rendered: {render_error}"
            return internal_error(message, tool=tool, action=action, module=module)
    message = str(exc) or type(exc).__name__
    return internal_error(message, tool=tool, action=action, module=module)


P = ParamSpec("P")
R = TypeVar("R")


class Guard(Protocol):
    """What :func:`guard` returns: a decorator that keeps the handler's
    parameters and adds ``CallToolResult`` (the envelope of what it raised) to
    what it returns, awaited for an async handler."""

    @overload
    def __call__(
        self, handler: Callable[P, Coroutine[Any, Any, R]], /
    ) -> Callable[P, Coroutine[Any, Any, R | CallToolResult]]: ...
    @overload
    def __call__(self, handler: Callable[P, R], /) -> Callable[P, R | CallToolResult]: ...


def guard(tool: str, *, action: str | None = None, module: Toolerr | None = None) -> Guard:
    """Decorate a tool handler (sync or async) so that whatever it raises
    reaches the model as an envelope (see :func:`handle_exception`): the
    decorated handler returns what the handler returns, or that
    ``CallToolResult``.

    Raises :class:`MCPVersionError` when an ``mcp`` package outside
    ``SUPPORTED_MCP`` is installed (mcp 1.x would send the returned result
    as JSON text with ``isError`` false); without ``mcp`` it works as is."""
    check_mcp("toolerr.guard", required=False)

    def decorate(handler: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await handler(*args, **kwargs)
                except Exception as exc:  # noqa: BLE001 - every failure becomes an envelope
                    return handle_exception(exc, tool, action=action, module=module)

            return run_async

        @functools.wraps(handler)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return handler(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - every failure becomes an envelope
                return handle_exception(exc, tool, action=action, module=module)

        return run

    return decorate


# --- the client's side ------------------------------------------------------------


class ClientError(Exception):
    """A tool's failure as a client sees it: the parsed envelope of an
    isError result. A validation error has code VALIDATION_ERROR, its
    ``action``, its ``fields`` and its ``contract`` (the parsed
    ``<contract_awareness>`` block, or None); a result without an envelope has code UNKNOWN and the
    text of its first text block as message. ``raw`` is the result itself."""

    def __init__(
        self,
        *,
        kind: str | None,
        code: str,
        message: str,
        severity: str = "error",
        recovery: str | None = None,
        available_actions: list[str] | None = None,
        details: dict[str, str] | None = None,
        retry_after: float | None = None,
        fields: list[ValidationField] | None = None,
        action: str | None = None,
        contract: dict[str, Any] | None = None,
        raw: Any = None,
    ) -> None:
        text = f"{code}: {message}"
        if recovery is not None:
            text += f" (recovery: {recovery})"
        super().__init__(text)
        self.kind = kind
        self.code = code
        self.message = message
        self.severity = severity
        self.recovery = recovery
        self.available_actions = available_actions or []
        self.details = details or {}
        self.retry_after = retry_after
        self.fields = fields or []
        self.action = action
        self.contract = contract
        self.raw = raw


@overload
def check_result(result: CallToolResult, *, module: Toolerr | None = None) -> CallToolResult: ...
@overload
def check_result(result: Any, *, module: Toolerr | None = None) -> Any: ...
def check_result(result: Any, *, module: Toolerr | None = None) -> Any:
    """Return a successful result (warnings included) as it is; raise
    :class:`ClientError` for an isError result, as the module's
    ``check_result`` projects it (a tool error's own code and message;
    VALIDATION_ERROR for a validation error; UNKNOWN and the first text
    block when there is no envelope)."""
    response: CheckResultResponse = _call(module, "check_result", {"result": _result_request(result)})
    projected = response["clientError"]
    if projected is None:
        return result
    members = _tool_error_members(projected) | _validation_members(projected)
    raise ClientError(kind=projected["kind"], raw=result, **members)


async def call_tool(
    session: Any, name: str, arguments: Mapping[str, Any] | None = None, *, module: Toolerr | None = None
) -> CallToolResult:
    """``await session.call_tool(name, arguments)``, then :func:`check_result`."""
    result: CallToolResult = await session.call_tool(name, dict(arguments) if arguments is not None else None)
    return check_result(result, module=module)
