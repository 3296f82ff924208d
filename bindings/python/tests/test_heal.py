"""toolerr.heal(server) on the MCP Python SDK's own MCPServer, driven in
process by the SDK's ``Client`` (direct dispatch, and the JSON-RPC
handshake over memory streams); the supported-version check (pyproject's
``mcp`` extra, mcp 1.x refused by heal and guard, pip refusing
``toolerr[mcp]`` with ``mcp<2``).

Expected validation texts are the binding's own ``format_validation`` on the
errors pydantic reports for the same arguments against a model with the
tool's parameters, so they come from the module; a few are also written out.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import re
import textwrap
import zipfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

import pydantic
import pytest
import toolerr
from mcp import Client
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from billing_demo import ID, Line, Payment, invoice_not_found, page_size_deprecated
from envelopes import DEPRECATED, FORBIDDEN, NEGATIVE_AMOUNT, failure, internal, not_found
from heal_checks import SHARED_FAILING_CALLS, check_answers, check_crash_inside_a_tool
from mcp_testing import texts

Mode = Literal["auto", "legacy"]
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


# Models with each tool's parameters, for the errors pydantic reports.
class GetInvoiceArgs(BaseModel):
    id: ID


class PayInvoiceArgs(BaseModel):
    payment: Payment
    note: str = ""


class ListInvoicesArgs(BaseModel):
    limit: int = Field(default=10, ge=1, le=100)
    status: Literal["open", "paid"] | None = None


NOT_FOUND = not_found("inv_404")


def build(healed: bool = True) -> MCPServer[Any]:
    """A billing server written the SDK's way; healed unless told not to."""
    server: MCPServer[Any] = MCPServer("billing")

    @server.tool(name="billing.get_invoice")
    async def get_invoice(id: ID) -> str:  # noqa: A002
        if id != "inv_001":
            raise invoice_not_found(id)
        return json.dumps({"id": id, "status": "open"}, separators=(",", ":"))

    @server.tool(name="billing.pay_invoice")
    def pay_invoice(payment: Payment, note: str = "") -> str:
        return f"paid {payment.id}"

    @server.tool(name="billing.list_invoices", structured_output=False)
    def list_invoices(limit: int = Field(default=10, ge=1, le=100), status: Literal["open", "paid"] | None = None,
                      page_size: int | None = None) -> str:
        if page_size is not None:
            raise page_size_deprecated()
        return "[]"

    @server.tool(name="billing.void_invoice")
    def void_invoice(id: str) -> str:  # noqa: A002
        raise toolerr.ToolErrorException(
            "FORBIDDEN", "Voiding invoices requires the billing-admin role", severity="critical"
        )

    @server.tool(name="billing.export_invoices")
    async def export_invoices() -> str:
        raise RuntimeError("exporter backend unavailable")

    @server.tool(name="billing.lock_invoice")
    def lock_invoice(id: str) -> str:  # noqa: A002
        raise ToolError(f"Invoice {id} is locked")

    @server.tool(name="billing.hold_invoice")
    def hold_invoice() -> str:
        raise ResourceError()  # raised on purpose, without a message

    @server.tool(name="billing.parse_amount")
    def parse_amount(text: str) -> str:
        # A pydantic failure inside the tool is a crash, not an argument error.
        return str(Line.model_validate({"sku": "x", "amount": text}).amount)

    @server.tool(name="billing.sync")
    def sync() -> str:
        raise MCPError(code=-32042, message="sync needs the admin scope", data={"scope": "admin"})

    @server.tool(name="billing.explode")
    def explode() -> str:
        raise ValueError()

    return toolerr.heal(server) if healed else server


def errors_of(model: type[BaseModel], args: dict[str, Any]) -> pydantic.ValidationError:
    try:
        model.model_validate(args)
    except pydantic.ValidationError as exc:
        return exc
    raise AssertionError(f"{model.__name__} accepted {args}")


def expected_validation(tool: str, model: type[BaseModel], args: dict[str, Any]) -> list[str]:
    return texts(toolerr.format_validation(tool, errors_of(model, args), args, dialect="pydantic"))


@asynccontextmanager
async def connect(server: MCPServer[Any], mode: Mode = "auto") -> AsyncIterator[Client]:
    async with Client(server, mode=mode) as client:
        yield client


# (tool, arguments, a model with the tool's parameters, whose errors are expected)
VALIDATION: list[tuple[str, dict[str, Any], type[BaseModel]]] = [
    ("billing.get_invoice", {}, GetInvoiceArgs),
    ("billing.get_invoice", {"id": 5}, GetInvoiceArgs),
    ("billing.get_invoice", {"id": "INV-1"}, GetInvoiceArgs),
    ("billing.get_invoice", {"id": None}, GetInvoiceArgs),
    ("billing.pay_invoice", {"payment": {"id": "inv_001", "currency": "GBP", "lines": [{"sku": "a", "amount": 1},
                                                                                      {"amount": -2}]}},
     PayInvoiceArgs),
    ("billing.pay_invoice", {"payment": {"id": "x"}, "note": 3}, PayInvoiceArgs),
    ("billing.pay_invoice", {"payment": "not an object"}, PayInvoiceArgs),
    ("billing.list_invoices", {"limit": 0, "status": "draft"}, ListInvoicesArgs),
    ("billing.list_invoices", {"limit": 1.5}, ListInvoicesArgs),
]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_validation_errors_are_the_modules(mode: Mode) -> None:
    cases = [(tool, args, expected_validation(tool, model, args), True) for tool, args, model in VALIDATION]
    async with connect(build(), mode) as client:
        await check_answers(client.call_tool, cases)


@pytest.mark.anyio
async def test_validation_texts_written_out() -> None:
    async with connect(build()) as client:
        pattern = await client.call_tool("billing.get_invoice", {"id": "INV-1"})
        nested = await client.call_tool(
            "billing.pay_invoice",
            {"payment": {"id": "inv_001", "currency": "EUR", "lines": [{"sku": "a", "amount": -2}]}},
        )
    assert pattern.is_error is True
    assert texts(pattern) == [
        '<validation_error action="billing.get_invoice">\n'
        "<field name=\"id\">String should match pattern '^inv_[0-9]{3}$'. You sent: 'INV-1'.</field>\n"
        "<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n"
        "</validation_error>"
    ]
    assert nested.is_error is True
    assert texts(nested) == [NEGATIVE_AMOUNT]
    envelope = toolerr.parse(nested)
    assert isinstance(envelope, toolerr.ValidationErrorEnvelope)
    assert (envelope.action, [f.name for f in envelope.fields]) == ("billing.pay_invoice", ["payment.lines.0.amount"])


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_failures_become_envelopes(mode: Mode) -> None:
    cases: list[tuple[str, dict[str, Any], list[str], bool]] = [
        ("billing.get_invoice", {"id": "inv_001"}, ['{"id":"inv_001","status":"open"}'], False),
        ("billing.get_invoice", {"id": "inv_404"}, [NOT_FOUND], True),
        ("billing.void_invoice", {"id": "inv_001"}, [FORBIDDEN], True),
        ("billing.list_invoices", {"page_size": 2}, [DEPRECATED], False),
        ("billing.list_invoices", {"limit": 2}, ["[]"], False),
        ("billing.export_invoices", {}, [internal("billing.export_invoices", "exporter backend unavailable")], True),
        ("billing.lock_invoice", {"id": "inv_001"}, [failure("billing.lock_invoice", "Invoice inv_001 is locked")],
         True),
        ("billing.hold_invoice", {}, [failure("billing.hold_invoice", "ResourceError")], True),
        ("billing.explode", {}, [internal("billing.explode", "ValueError")], True),
    ]
    async with connect(build(), mode) as client:
        await check_answers(client.call_tool, cases)
        await check_crash_inside_a_tool(client.call_tool)


@pytest.mark.anyio
async def test_errors_match_the_bindings_renderers() -> None:
    async with connect(build()) as client:
        raised = await client.call_tool("billing.export_invoices", {})
        found = await client.call_tool("billing.get_invoice", {"id": "inv_404"})
    assert texts(raised) == texts(
        toolerr.internal_error("exporter backend unavailable", tool="billing.export_invoices")
    )
    assert texts(found) == texts(
        toolerr.tool_error(
            "NOT_FOUND",
            "No invoice with that ID",
            suggestion="List invoices first, then retry with a real ID",
            available_actions=["billing.list_invoices"],
            details={"requestedId": "inv_404"},
        )
    )


#: build()'s tools, in the order the server lists them.
TOOLS = ["billing.get_invoice", "billing.pay_invoice", "billing.list_invoices", "billing.void_invoice",
         "billing.export_invoices", "billing.lock_invoice", "billing.hold_invoice", "billing.parse_amount",
         "billing.sync", "billing.explode"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_unknown_tool_is_unknown_action(mode: Mode) -> None:
    """A call to a tool the server does not have: the module's UNKNOWN_ACTION
    naming the tool called, with the tools tools/list gives, closest first,
    as an isError result (no protocol error, no "Unknown tool: x")."""
    async with connect(build(), mode) as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("billing.refund_invoice", {"id": "inv_001"})
        typo = await client.call_tool("billing.get_invoices", {"id": "inv_001"})
    assert listed == TOOLS
    assert result.is_error is True
    assert texts(result) == texts(toolerr.unknown_tool("billing.refund_invoice", listed))
    assert texts(typo) == [
        '<tool_error code="UNKNOWN_ACTION">\n'
        '<message>The tool "billing.get_invoices" does not exist.</message>\n'
        "<available_actions>billing.get_invoice, billing.list_invoices, billing.pay_invoice, billing.void_invoice, "
        "billing.export_invoices, billing.lock_invoice, billing.hold_invoice, billing.explode, billing.sync, "
        "billing.parse_amount</available_actions>\n"
        "<recovery>Choose a valid action from available_actions and call the tool again.</recovery>\n"
        "</tool_error>"
    ]
    with pytest.raises(toolerr.ClientError) as raised:
        toolerr.check_result(typo)
    assert (raised.value.code, raised.value.available_actions[0]) == ("UNKNOWN_ACTION", "billing.get_invoice")


@pytest.mark.anyio
async def test_unknown_action_lists_the_servers_current_tools() -> None:
    """Tools added after heal are listed, a tool removed is unknown."""
    server = build()

    @server.tool(name="billing.refund_invoice")
    def refund_invoice(id: str) -> str:  # noqa: A002
        return "refunded"

    server.remove_tool("billing.sync")
    async with connect(server) as client:
        synced = await client.call_tool("billing.sync", {})
        refunded = await client.call_tool("billing.refund_invoice", {"id": "inv_001"})
    tools = [name for name in TOOLS if name != "billing.sync"] + ["billing.refund_invoice"]
    assert texts(synced) == texts(toolerr.unknown_tool("billing.sync", tools))
    assert (refunded.is_error, texts(refunded)) == (False, ["refunded"])


@pytest.mark.anyio
async def test_unknown_tool_sdk_keeps_the_sdks_answer_and_mcp_errors_stay_the_sdks() -> None:
    """heal(server, unknown_tool="sdk"): the SDK's own answer to an unknown
    tool, as an unhealed server gives it; an MCPError passes unchanged
    either way."""
    answers = []
    for server in (toolerr.heal(build(healed=False), unknown_tool="sdk"), build(healed=False)):
        async with connect(server) as client:
            unknown = await client.call_tool("billing.refund_invoice", {})
            with pytest.raises(MCPError) as raised:
                await client.call_tool("billing.sync", {})
            answers.append((unknown.is_error, texts(unknown), raised.value.code, raised.value.message,
                            raised.value.data))
    assert answers[0] == answers[1]
    assert answers[0] == (True, ["Unknown tool: billing.refund_invoice"], -32042, "sync needs the admin scope",
                          {"scope": "admin"})
    async with connect(build()) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("billing.sync", {})
    assert (raised.value.code, raised.value.message) == (-32042, "sync needs the admin scope")


@pytest.mark.anyio
async def test_the_sdks_own_tool_error_for_a_tool_it_has_stays_the_sdks() -> None:
    """A ToolError without a cause for a tool the server has (a resolver's,
    say) is not an unknown tool: the SDK answers it."""

    class Resolving(MCPServer[Any]):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            if name == "billing.get_invoice":
                raise ToolError("Resolver 'who' could not resolve: elicitation was declined")
            return await super().call_tool(name, arguments, context)

    server: MCPServer[Any] = Resolving("billing")

    @server.tool(name="billing.get_invoice")
    def get_invoice(id: str) -> str:  # noqa: A002
        return id

    toolerr.heal(server)
    async with connect(server) as client:
        resolved = await client.call_tool("billing.get_invoice", {"id": "inv_001"})
        unknown = await client.call_tool("billing.nope", {})
    assert (resolved.is_error, texts(resolved)) == (
        True, ["Resolver 'who' could not resolve: elicitation was declined"])
    assert texts(unknown) == texts(toolerr.unknown_tool("billing.nope", ["billing.get_invoice"]))


@pytest.mark.anyio
async def test_a_server_that_cannot_list_its_tools_keeps_the_sdks_answer(caplog: pytest.LogCaptureFixture) -> None:
    class Unlisted(MCPServer[Any]):
        async def list_tools(self) -> list[Any]:
            raise RuntimeError("the registry is down")

    server = toolerr.heal(Unlisted("billing"))
    with pytest.raises(ToolError, match="Unknown tool: billing.nope"):
        await server.call_tool("billing.nope", {})
    assert [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "toolerr"] == [
        (logging.WARNING, "toolerr could not list the tools for the unknown tool 'billing.nope' "
                          "(RuntimeError: the registry is down); the SDK answers it")]


@pytest.mark.anyio
async def test_healing_again_changes_the_options() -> None:
    server = build()
    toolerr.heal(server, unknown_tool="sdk")
    with pytest.raises(ToolError, match="Unknown tool: billing.nope"):
        await server.call_tool("billing.nope", {})
    toolerr.heal(server)
    assert texts(await server.call_tool("billing.nope", {})) == texts(toolerr.unknown_tool("billing.nope", TOOLS))


def test_heal_refuses_options_it_does_not_know() -> None:
    server = build(healed=False)
    with pytest.raises(ValueError, match='unknown_tool must be "envelope" or "sdk", not \'protocol\''):
        toolerr.heal(server, unknown_tool="protocol")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="log_level must be a logging level"):
        toolerr.heal(server, log_level="INFO")  # type: ignore[arg-type]
    assert not hasattr(server, "_toolerr_healed")


@pytest.mark.anyio
async def test_unhealed_server_shows_what_heal_changes() -> None:
    async with connect(build(healed=False)) as client:
        invalid = await client.call_tool("billing.get_invoice", {"id": "INV-1"})
        crash = await client.call_tool("billing.export_invoices", {})
    assert texts(invalid)[0].startswith("Error executing tool billing.get_invoice: 1 validation error")
    assert texts(crash) == ["Error executing tool billing.export_invoices"]


@pytest.mark.anyio
async def test_direct_call_tool_is_healed_and_heal_is_idempotent() -> None:
    server = build()
    assert toolerr.heal(server) is server  # a second heal changes nothing
    result = await server.call_tool("billing.void_invoice", {"id": "inv_001"})
    assert isinstance(result, CallToolResult) and texts(result) == [FORBIDDEN]
    invalid = await server.call_tool("billing.get_invoice", {})
    assert isinstance(invalid, CallToolResult)
    assert texts(invalid) == expected_validation("billing.get_invoice", GetInvoiceArgs, {})
    unknown = await server.call_tool("billing.nope", {})
    assert isinstance(unknown, CallToolResult) and texts(unknown) == texts(toolerr.unknown_tool("billing.nope", TOOLS))


@pytest.mark.anyio
async def test_arguments_too_large_to_render_get_the_gates_error() -> None:
    """Arguments beyond the module's request limit: their validation error
    cannot be rendered beside them, so the answer is the stdio gate's
    too-large error on the arguments as a whole (never a half-made envelope,
    never the SDK's text echoing them)."""
    limit = toolerr.describe()["limits"]["maxRequestBytes"]
    args = {"id": "x" * limit}
    want = toolerr.to_call_tool_result(
        toolerr.arguments_too_large("billing.get_invoice", len(json.dumps(args, separators=(",", ":"))))
    )
    server = build()
    direct = await server.call_tool("billing.get_invoice", args)
    assert isinstance(direct, CallToolResult) and direct.is_error is True
    assert texts(direct) == texts(want)
    async with connect(server) as client:
        result = await client.call_tool("billing.get_invoice", args)
    assert result.is_error is True
    assert texts(result) == texts(want)


@pytest.mark.anyio
async def test_heal_uses_the_module_given() -> None:
    module = toolerr.Toolerr(max_instances=1)
    try:
        server = toolerr.heal(build(healed=False), module=module)
        async with connect(server) as client:
            result = await client.call_tool("billing.void_invoice", {"id": "inv_001"})
        assert texts(result) == [FORBIDDEN]
        assert module.live_instances == 1  # the call went through this module
    finally:
        module.close()


#: Failing calls, each with the line heal logs for it.
FAILING_CALLS = [*SHARED_FAILING_CALLS,
                 ("billing.refund_invoice", {}, "Tool 'billing.refund_invoice' does not exist")]
FAILURE_LINES = [line for _, _, line in FAILING_CALLS]


@pytest.mark.anyio
@pytest.mark.parametrize("level", [logging.INFO, logging.DEBUG])
async def test_each_healed_failure_is_one_info_line(caplog: pytest.LogCaptureFixture, level: int) -> None:
    """One INFO record per healed failure on the toolerr logger, and nothing
    from the SDK's loggers; the crash's traceback only when the toolerr
    logger is enabled for DEBUG."""
    caplog.set_level(level, logger="toolerr")
    caplog.set_level(logging.DEBUG, logger="mcp")
    async with connect(build()) as client:
        for tool, args, _ in FAILING_CALLS:
            await client.call_tool(tool, args)
    records = [r for r in caplog.records if r.name == "toolerr"]
    assert [(r.levelno, r.getMessage()) for r in records] == [(logging.INFO, line) for line in FAILURE_LINES]
    tracebacks = [r.getMessage() for r in records if r.exc_info]
    assert tracebacks == ([] if level == logging.INFO else [FAILURE_LINES[3]])
    # The SDK logs none of the failures heal answered.
    assert [r.getMessage() for r in caplog.records if r.name.startswith("mcp") and r.getMessage().startswith("Tool ")
            ] == []


@pytest.mark.anyio
@pytest.mark.parametrize("chosen", [logging.DEBUG, logging.WARNING])
async def test_healed_failures_are_logged_at_the_level_chosen(caplog: pytest.LogCaptureFixture, chosen: int) -> None:
    """heal(server, log_level=...): each healed failure is one record at that
    level (still no traceback unless the toolerr logger is enabled for DEBUG)."""
    caplog.set_level(logging.DEBUG if chosen == logging.DEBUG else logging.INFO, logger="toolerr")
    async with connect(toolerr.heal(build(healed=False), log_level=chosen)) as client:
        for tool, args, _ in FAILING_CALLS:
            await client.call_tool(tool, args)
    records = [r for r in caplog.records if r.name == "toolerr"]
    assert [(r.levelno, r.getMessage()) for r in records] == [(chosen, line) for line in FAILURE_LINES]
    assert [r.getMessage() for r in records if r.exc_info] == ([FAILURE_LINES[3]] if chosen == logging.DEBUG else [])


def test_heal_refuses_what_is_not_an_mcpserver() -> None:
    for thing in (Server("billing"), object(), "billing"):
        with pytest.raises(TypeError, match=r"toolerr\.heal takes an mcp\.server\.mcpserver\.MCPServer"):
            toolerr.heal(thing)  # type: ignore[type-var]


# --- supported SDK versions ---------------------------------------------------------


def test_supported_mcp_is_the_extra_in_pyproject() -> None:
    extras = PYPROJECT.read_text(encoding="utf-8").split("[project.optional-dependencies]")[1]
    assert re.findall(r"^mcp = \[(.*)\]$", extras, re.M) == [json.dumps(toolerr.SUPPORTED_MCP)]
    # And what the installed package declares (venv.sh installs it from there).
    from packaging.requirements import Requirement

    declared = [Requirement(r) for r in metadata.requires("toolerr") or []]
    [extra] = [r for r in declared if r.name == "mcp"]
    assert (str(extra.specifier), str(extra.marker)) == (str(Requirement(toolerr.SUPPORTED_MCP).specifier),
                                                         'extra == "mcp"')
    assert toolerr._sdk.supports_mcp(metadata.version("mcp"))  # the venv's own, pinned in requirements-dev.txt


def test_supports_mcp_agrees_with_pep440() -> None:
    from packaging.specifiers import SpecifierSet

    spec = SpecifierSet(toolerr.SUPPORTED_MCP.removeprefix("mcp"))
    versions = ["0.9", "1.0.0", "1.26.0", "2", "2.2.9", "2.3rc1", "2.3.0.dev4", "2.3", "2.3.0", "2.3.0.post1",
                "2.3.1", "2.4.0rc2", "2.10.0", "2.99.99+local", "3", "3.0.0rc1", "3.0.0", "3.1", "10.0"]
    for version in versions:
        assert toolerr._sdk.supports_mcp(version) == spec.contains(version, prereleases=True), version
    assert not toolerr._sdk.supports_mcp("not a version")


@pytest.mark.parametrize("installed", ["1.26.0", "3.0.0", "2.2.0"])
def test_unsupported_mcp_is_refused(monkeypatch: pytest.MonkeyPatch, installed: str) -> None:
    monkeypatch.setattr(metadata, "version", lambda name: installed)
    server = build(healed=False)
    for call in (lambda: toolerr.heal(server), lambda: toolerr.guard("billing.get_invoice")):
        with pytest.raises(toolerr.MCPVersionError) as raised:
            call()
        err = raised.value
        assert isinstance(err, toolerr.ToolerrError) and isinstance(err, ImportError)
        assert (err.code, err.installed, err.supported, err.name) == ("UNSUPPORTED_MCP", installed, "mcp>=2.3,<3", "mcp")
        assert f"supports mcp>=2.3,<3, but the installed mcp is {installed}" in str(err)
    assert ("FastMCP" in str(raised.value)) == installed.startswith("1.")


def test_missing_mcp(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    with pytest.raises(toolerr.MCPVersionError) as raised:
        toolerr.heal(object())  # type: ignore[type-var]
    assert raised.value.installed is None
    assert "toolerr.heal needs the MCP Python SDK (mcp>=2.3,<3), which is not installed" in str(raised.value)
    # guard works without the SDK: it only returns results.
    @toolerr.guard("billing.export_invoices")
    def export() -> CallToolResult:
        raise RuntimeError("exporter backend unavailable")

    assert texts(export()) == [internal("billing.export_invoices", "exporter backend unavailable")]


FAKE_MCP_1 = textwrap.dedent(
    """
    import json, sys
    import importlib.metadata
    import mcp
    assert mcp.__file__.startswith(sys.argv[1]), mcp.__file__
    assert importlib.metadata.version("mcp") == "1.26.0"
    from mcp.server.fastmcp import FastMCP
    import toolerr

    out = {}
    server = FastMCP("billing")
    for name, call in [("heal", lambda: toolerr.heal(server)), ("guard", lambda: toolerr.guard("billing.get_invoice"))]:
        try:
            call()
            out[name] = None
        except toolerr.ToolerrError as err:
            out[name] = [type(err).__name__, err.code, err.installed, err.supported,
                         isinstance(err, ImportError), str(err)]
    # Rendering itself does not depend on the SDK.
    out["render"] = toolerr.tool_error("NOT_FOUND", "gone").is_error
    print(json.dumps(out))
    """
)


def test_mcp_1_is_refused_loudly(tmp_path: Path) -> None:
    """A fake mcp 1.26.0 ahead of the real one on sys.path: importlib.metadata
    reports 1.26.0, and heal() and guard() refuse it, naming both versions."""
    info = tmp_path / "mcp-1.26.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcp\nVersion: 1.26.0\n", encoding="utf-8")
    package = tmp_path / "mcp" / "server" / "fastmcp"
    package.mkdir(parents=True)
    (tmp_path / "mcp" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "mcp" / "server" / "__init__.py").write_text("", encoding="utf-8")
    (package / "__init__.py").write_text(
        "class FastMCP:\n    def __init__(self, name):\n        self.name = name\n", encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-c", FAKE_MCP_1, str(tmp_path)], capture_output=True, text=True,
                         timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["render"] is True
    for name in ("heal", "guard"):
        kind, code, installed, supported, is_import_error, text = out[name]
        assert (kind, code, installed, supported, is_import_error) == (
            "MCPVersionError", "UNSUPPORTED_MCP", "1.26.0", "mcp>=2.3,<3", True)
        assert text == (
            f"UNSUPPORTED_MCP: toolerr.{name} supports mcp>=2.3,<3, but the installed mcp is 1.26.0; "
            "install a supported one with: pip install 'toolerr[mcp]' (mcp 1.x, FastMCP, would send "
            "toolerr's results to the model as JSON text with isError false)"
        )


def fake_wheel(directory: Path, name: str, version: str) -> None:
    with zipfile.ZipFile(directory / f"{name}-{version}-py3-none-any.whl", "w") as wheel:
        info = f"{name}-{version}.dist-info"
        wheel.writestr(f"{name}/__init__.py", "")
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")


def pip_dry_run(links: Path, *requirements: str) -> subprocess.CompletedProcess[str]:
    """pip's resolver alone, offline: the installed distributions (toolerr's
    metadata among them) and the wheels in ``links``; nothing is installed."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    return subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--find-links", str(links),
         *requirements],
        capture_output=True, text=True, timeout=300, env=env,
    )


def test_pip_refuses_toolerr_mcp_with_mcp_1(tmp_path: Path) -> None:
    fake_wheel(tmp_path, "mcp", "1.26.0")
    alone = pip_dry_run(tmp_path, "mcp<2")  # the fake 1.x is there to be had
    assert alone.returncode == 0 and "Would install mcp-1.26.0" in alone.stdout, alone.stdout + alone.stderr
    refused = pip_dry_run(tmp_path, "toolerr[mcp]", "mcp<2")
    assert refused.returncode != 0, refused.stdout
    assert "ResolutionImpossible" in refused.stderr
    assert f"toolerr[mcp] {toolerr.__version__} depends on mcp<3 and >=2.3" in refused.stdout + refused.stderr
    accepted = pip_dry_run(tmp_path, "toolerr[mcp]", "mcp>=2")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
