"""toolerr.heal(server) on a FastMCP 4 server (fastmcp_billing.py), driven in
process by FastMCP's own Client and over stdio as a subprocess; the
supported-version check (pyproject's ``fastmcp`` extra, other releases
refused by heal).

Expected validation texts are the binding's own ``format_validation`` on the
errors pydantic reports when it checks the same arguments against the
tool's function, as FastMCP does, so they come from the module; a few are
also written out.
"""

from __future__ import annotations

import json
import logging
import re
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import fastmcp
import pydantic
import pytest
import toolerr
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import Middleware
from mcp_types import CallToolResult

import fastmcp_billing as billing
from envelopes import DEPRECATED, FORBIDDEN, NEGATIVE_AMOUNT, failure, internal, not_found
from heal_checks import SHARED_FAILING_CALLS, check_answers, check_crash_inside_a_tool
from mcp_testing import exchange, texts, tools_call

HERE = Path(__file__).resolve().parent
SERVER = HERE / "fastmcp_billing.py"
PYPROJECT = HERE.parent / "pyproject.toml"


async def call(server: FastMCP[Any], tool: str, args: dict[str, Any]) -> CallToolResult:
    async with Client(server) as client:
        return await client.call_tool_mcp(tool, args)


def expected_validation(tool: str, fn: Callable[..., Any], args: dict[str, Any]) -> list[str]:
    """What heal must answer: the errors pydantic reports for args against
    the tool's function (FastMCP's own check), through format_validation."""
    try:
        pydantic.TypeAdapter(fn).validate_python(args)
    except pydantic.ValidationError as exc:
        return texts(toolerr.format_validation(tool, exc, args, dialect="pydantic"))
    raise AssertionError(f"{tool} accepts {args}")


# (tool, its function, arguments the function's signature rejects)
VALIDATION: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    ("billing.get_invoice", billing.get_invoice, {}),
    ("billing.get_invoice", billing.get_invoice, {"id": 5}),
    ("billing.get_invoice", billing.get_invoice, {"id": "INV-1"}),
    ("billing.get_invoice", billing.get_invoice, {"id": None}),
    ("billing.get_invoice", billing.get_invoice, {"id": "inv_001", "coupon": "SAVE10"}),
    ("billing.pay_invoice", billing.pay_invoice,
     {"payment": {"id": "inv_001", "currency": "GBP", "lines": [{"sku": "a", "amount": 1}, {"amount": -2}]}}),
    ("billing.pay_invoice", billing.pay_invoice, {"payment": {"id": "x"}, "note": 3}),
    ("billing.pay_invoice", billing.pay_invoice, {"payment": "not an object"}),
    ("billing.list_invoices", billing.list_invoices, {"limit": 0}),
    ("billing.list_invoices", billing.list_invoices, {"limit": 1.5}),
    ("audit_log", billing.audit_log, {"entry": {"invoice": "x"}}),
]


@pytest.mark.anyio
@pytest.mark.parametrize("heal_first", [False, True], ids=["heal-after", "heal-first"])
async def test_validation_errors_are_the_modules(heal_first: bool) -> None:
    cases = [(tool, args, expected_validation(tool, fn, args), True) for tool, fn, args in VALIDATION]
    async with Client(billing.build(heal_first=heal_first)) as client:
        await check_answers(client.call_tool_mcp, cases)


@pytest.mark.anyio
async def test_a_nested_models_field_is_named_by_its_path() -> None:
    server = billing.build()
    address = await call(server, "billing.ship_invoice", {"address": {"street": "Main St 1", "zip": "1234"}})
    line = await call(server, "billing.pay_invoice",
                      {"payment": {"id": "inv_001", "currency": "EUR", "lines": [{"sku": "a", "amount": -2}]}})
    assert address.is_error is True
    assert texts(address) == [
        '<validation_error action="billing.ship_invoice">\n'
        "<field name=\"address.zip\">String should match pattern '^[0-9]{5}$'. You sent: '1234'.</field>\n"
        "<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n"
        "</validation_error>"
    ]
    assert texts(line) == [NEGATIVE_AMOUNT]
    envelope = toolerr.parse(address)
    assert isinstance(envelope, toolerr.ValidationErrorEnvelope)
    assert (envelope.action, [f.name for f in envelope.fields]) == ("billing.ship_invoice", ["address.zip"])


# (tool, arguments, the texts, isError)
FAILURES: list[tuple[str, dict[str, Any], list[str], bool]] = [
    ("billing.get_invoice", {"id": "inv_404"}, [not_found("inv_404")], True),
    ("billing.void_invoice", {"id": "inv_001"}, [FORBIDDEN], True),
    ("billing.list_invoices", {"page_size": 2}, [DEPRECATED], False),
    ("billing.export_invoices", {}, [internal("billing.export_invoices", "exporter backend unavailable")], True),
    ("billing.lock_invoice", {"id": "inv_001"}, [failure("billing.lock_invoice", "Invoice inv_001 is locked")], True),
    ("billing.refund_invoice", {"id": "inv_001"}, [failure("billing.refund_invoice", "Refunds are closed today")],
     True),
    ("billing.explode", {}, [internal("billing.explode", "ValueError")], True),
    ("audit_purge", {}, [internal("audit_purge", "audit store is read-only")], True),
]


@pytest.mark.anyio
@pytest.mark.parametrize("heal_first", [False, True], ids=["heal-after", "heal-first"])
async def test_failures_become_envelopes(heal_first: bool) -> None:
    async with Client(billing.build(heal_first=heal_first)) as client:
        results = await check_answers(client.call_tool_mcp, FAILURES)
        await check_crash_inside_a_tool(client.call_tool_mcp)
    assert [result.structured_content for result in results] == [None] * len(FAILURES)


@pytest.mark.anyio
async def test_errors_match_the_bindings_renderers() -> None:
    server = billing.build()
    raised = await call(server, "billing.export_invoices", {})
    locked = await call(server, "billing.lock_invoice", {"id": "inv_002"})
    assert texts(raised) == texts(toolerr.internal_error("exporter backend unavailable", tool="billing.export_invoices"))
    assert texts(locked) == texts(toolerr.tool_failure("Invoice inv_002 is locked", tool="billing.lock_invoice"))


@pytest.mark.anyio
async def test_unhealed_server_shows_what_heal_changes() -> None:
    server = billing.build(healed=False)
    invalid = await call(server, "billing.get_invoice", {"id": "INV-1"})
    found = await call(server, "billing.get_invoice", {"id": "inv_404"})
    crash = await call(server, "billing.export_invoices", {})
    assert texts(invalid)[0].startswith("1 validation error for call[get_invoice]")
    assert texts(found) == ["Error calling tool 'billing.get_invoice': NOT_FOUND: No invoice with that ID"]
    assert texts(crash) == ["Error calling tool 'billing.export_invoices': exporter backend unavailable"]


#: The tools billing.build() lists, in its order: its own, then the mounted audit server's.
TOOLS = ["billing.get_invoice", "billing.pay_invoice", "billing.ship_invoice", "billing.list_invoices",
         "billing.void_invoice", "billing.export_invoices", "billing.lock_invoice", "billing.refund_invoice",
         "billing.parse_amount", "billing.explode", "audit_log", "audit_purge"]


@pytest.mark.anyio
@pytest.mark.parametrize("heal_first", [False, True], ids=["heal-after", "heal-first"])
async def test_an_unknown_tool_is_unknown_action(heal_first: bool) -> None:
    """A call to a tool the server does not have: the module's UNKNOWN_ACTION
    naming the tool called, with the tools tools/list gives (the mounted
    server's among them, by the names the client calls them by), closest
    first."""
    async with Client(billing.build(heal_first=heal_first)) as client:
        listed = [tool.name for tool in await client.list_tools()]
        result = await client.call_tool_mcp("billing.refund_all", {})
        near = await client.call_tool_mcp("audit_purg", {})
        namespaced = await client.call_tool_mcp("audit.purge", {})
    assert listed == TOOLS
    assert (result.is_error, texts(result), result.structured_content) == (
        True, texts(toolerr.unknown_tool("billing.refund_all", listed)), None)
    assert texts(near) == [
        '<tool_error code="UNKNOWN_ACTION">\n'
        '<message>The tool "audit_purg" does not exist.</message>\n'
        "<available_actions>audit_purge, audit_log, billing.explode, billing.get_invoice, billing.pay_invoice, "
        "billing.parse_amount, billing.ship_invoice, billing.list_invoices, billing.void_invoice, "
        "billing.lock_invoice, billing.refund_invoice, billing.export_invoices</available_actions>\n"
        "<recovery>Choose a valid action from available_actions and call the tool again.</recovery>\n"
        "</tool_error>"
    ]
    assert texts(namespaced) == texts(toolerr.unknown_tool("audit.purge", listed))


@pytest.mark.anyio
async def test_unknown_action_lists_what_the_client_may_call() -> None:
    """A disabled tool is unknown and not listed; a tool added after heal is
    listed; a mounted server's added tool too."""
    server = billing.build()
    server.disable(names={"billing.explode"})
    server.tool(billing.audit_purge, name="billing.purge")
    explode = await call(server, "billing.explode", {})
    want = [name for name in TOOLS if name != "billing.explode"]
    want.insert(want.index("audit_log"), "billing.purge")
    assert texts(explode) == texts(toolerr.unknown_tool("billing.explode", want))


@pytest.mark.anyio
async def test_unknown_tool_sdk_keeps_fastmcps_answer() -> None:
    """heal(server, unknown_tool="sdk"): FastMCP's own answer, as an unhealed
    server gives it; and a healed sub-server mounted in a server that is not
    healed does not answer for the parent."""
    answers = []
    for server in (toolerr.heal(billing.build(healed=False), unknown_tool="sdk"), billing.build(healed=False)):
        result = await call(server, "billing.refund_all", {})
        answers.append((result.is_error, texts(result)))
    assert answers == [(True, ["Unknown tool: 'billing.refund_all'"])] * 2
    parent: FastMCP[Any] = FastMCP("billing")
    parent.mount(toolerr.heal(billing.audit()), namespace="audit")
    assert texts(await call(parent, "audit_nope", {})) == ["Unknown tool: 'audit_nope'"]


@pytest.mark.anyio
async def test_healing_again_changes_the_options() -> None:
    server = billing.build()
    toolerr.heal(server, unknown_tool="sdk")
    assert sum(isinstance(m, toolerr._fastmcp.HealMiddleware) for m in server.middleware) == 1
    assert texts(await call(server, "billing.nope", {})) == ["Unknown tool: 'billing.nope'"]
    toolerr.heal(server)
    assert texts(await call(server, "billing.nope", {})) == texts(toolerr.unknown_tool("billing.nope", TOOLS))


@pytest.mark.anyio
async def test_masked_error_details_stay_masked() -> None:
    """mask_error_details keeps an exception's message from the client: the
    INTERNAL_ERROR carries FastMCP's masked text; errors raised on purpose
    still pass."""
    server = billing.build(mask=True)
    crash = await call(server, "billing.export_invoices", {})
    assert texts(crash) == [internal("billing.export_invoices", "Error calling tool 'billing.export_invoices'")]
    assert texts(await call(server, "billing.get_invoice", {"id": "inv_404"})) == [not_found("inv_404")]
    assert texts(await call(server, "billing.lock_invoice", {"id": "inv_001"})) == [
        failure("billing.lock_invoice", "Invoice inv_001 is locked")]


@pytest.mark.anyio
@pytest.mark.parametrize("which", ["child", "both"])
async def test_a_mounted_server_healed_itself(which: str) -> None:
    """The sub-server healed before it is mounted (the parent too, or not)."""
    sub = toolerr.heal(billing.audit())
    parent: FastMCP[Any] = FastMCP("billing")
    parent.mount(sub, namespace="audit")
    if which == "both":
        toolerr.heal(parent)
    purge = await call(parent, "audit_purge", {})
    invalid = await call(parent, "audit_log", {"entry": {"invoice": "x"}})
    # The child heals under its own name for the tool.
    assert texts(purge) == [internal("purge", "audit store is read-only")]
    assert texts(invalid) == expected_validation("log", billing.audit_log, {"entry": {"invoice": "x"}})


@pytest.mark.anyio
async def test_heal_is_idempotent_and_uses_the_module_given() -> None:
    server = billing.build()
    assert toolerr.heal(server) is server
    assert sum(isinstance(m, toolerr._fastmcp.HealMiddleware) for m in server.middleware) == 1
    module = toolerr.Toolerr(max_instances=1)
    try:
        toolerr.heal(server, module=module)
        assert sum(isinstance(m, toolerr._fastmcp.HealMiddleware) for m in server.middleware) == 1
        assert texts(await call(server, "billing.void_invoice", {"id": "inv_001"})) == [FORBIDDEN]
        assert module.live_instances == 1  # the call went through this module
    finally:
        module.close()


@pytest.mark.anyio
async def test_a_failure_from_a_middleware_beneath_is_healed() -> None:
    """Middleware added after heal runs inside it: what it raises is healed too."""

    class Gate(Middleware):
        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            if context.message.name == "billing.void_invoice":
                raise RuntimeError("the gate is shut")
            if context.message.name == "billing.lock_invoice":
                raise toolerr.error("FORBIDDEN", "Voiding invoices requires the billing-admin role").severity(
                    "critical")
            return await call_next(context)

    server = billing.build()
    server.add_middleware(Gate())
    assert texts(await call(server, "billing.void_invoice", {})) == [
        internal("billing.void_invoice", "the gate is shut")]
    assert texts(await call(server, "billing.lock_invoice", {})) == [FORBIDDEN]


@pytest.mark.anyio
async def test_arguments_too_large_to_render_get_the_gates_error() -> None:
    """Arguments beyond the module's request limit: their validation error
    cannot be rendered beside them, so the answer is the stdio gate's
    too-large error on the arguments as a whole, as for MCPServer (never
    pydantic's text echoing them), and FastMCP logs nothing for it."""
    limit = toolerr.describe()["limits"]["maxRequestBytes"]
    args = {"id": "x" * limit}
    want = toolerr.to_call_tool_result(
        toolerr.arguments_too_large("billing.get_invoice", len(json.dumps(args, separators=(",", ":"))))
    )
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    keep = Keep()
    logging.getLogger("fastmcp").addHandler(keep)
    try:
        result = await call(billing.build(), "billing.get_invoice", args)
    finally:
        logging.getLogger("fastmcp").removeHandler(keep)
    assert result.is_error is True
    assert texts(result) == texts(want)
    assert lines == []


#: Failing calls, each with the line heal logs for it; the mounted server's crash is the fifth.
FAILING_CALLS = [
    *SHARED_FAILING_CALLS,
    ("audit_purge", {}, "Tool 'audit_purge' raised an unexpected exception: RuntimeError: audit store is read-only"),
    ("billing.refund_all", {}, "Tool 'billing.refund_all' does not exist"),
]
FAILURE_LINES = [line for _, _, line in FAILING_CALLS]


@pytest.mark.anyio
@pytest.mark.parametrize("level", [logging.INFO, logging.DEBUG])
async def test_each_healed_failure_is_one_info_line(caplog: pytest.LogCaptureFixture, level: int) -> None:
    """One INFO record per healed failure on the toolerr logger (the crash's
    traceback only when that logger is enabled for DEBUG), and none of
    FastMCP's own lines for those calls."""
    caplog.set_level(level, logger="toolerr")
    lines: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record)

    keep = Keep()
    logging.getLogger("fastmcp").addHandler(keep)
    try:
        async with Client(billing.build()) as client:
            for tool, args, _ in FAILING_CALLS:
                await client.call_tool_mcp(tool, args)
    finally:
        logging.getLogger("fastmcp").removeHandler(keep)
    records = [r for r in caplog.records if r.name == "toolerr"]
    assert [(r.levelno, r.getMessage()) for r in records] == [(logging.INFO, line) for line in FAILURE_LINES]
    with_traceback = [r.getMessage() for r in records if r.exc_info]
    assert with_traceback == ([] if level == logging.INFO else [FAILURE_LINES[3], FAILURE_LINES[4]])
    assert [r.getMessage() for r in lines if r.levelno >= logging.WARNING] == []


@pytest.mark.anyio
@pytest.mark.parametrize("chosen", [logging.DEBUG, logging.WARNING])
async def test_healed_failures_are_logged_at_the_level_chosen(caplog: pytest.LogCaptureFixture, chosen: int) -> None:
    caplog.set_level(logging.DEBUG if chosen == logging.DEBUG else logging.INFO, logger="toolerr")
    async with Client(toolerr.heal(billing.build(healed=False), log_level=chosen)) as client:
        for tool, args, _ in FAILING_CALLS:
            await client.call_tool_mcp(tool, args)
    records = [r for r in caplog.records if r.name == "toolerr"]
    assert [(r.levelno, r.getMessage()) for r in records] == [(chosen, line) for line in FAILURE_LINES]
    with_traceback = [r.getMessage() for r in records if r.exc_info]
    assert with_traceback == ([FAILURE_LINES[3], FAILURE_LINES[4]] if chosen == logging.DEBUG else [])


# --- over stdio: bytes and stderr ------------------------------------------------------


SUCCESSES = [
    tools_call(2, "billing.get_invoice", {"id": "inv_001"}),
    tools_call(3, "billing.pay_invoice", {"payment": {"id": "inv_001", "currency": "EUR", "lines": []}}),
    tools_call(4, "billing.ship_invoice", {"address": {"street": "Main St 1", "zip": "12345"}}),
    tools_call(5, "billing.list_invoices", {"limit": 2}),
    tools_call(6, "audit_log", {"entry": {"invoice": "inv_001", "note": "paid"}}),
]


def test_healed_and_unhealed_answer_alike_byte_for_byte() -> None:
    """tools/list, every success (structuredContent included) and the
    handshake: the same bytes with and without heal, healed before or after
    the tools are registered. An unknown tool: the UNKNOWN_ACTION result,
    or, healed with unknown_tool="sdk", FastMCP's own bytes."""
    unknown = tools_call(7, "billing.refund_all", {"id": "inv_001"})
    requests = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, *SUCCESSES, unknown]
    runs = [("plain",), ("healed",), ("healed", "heal-first"), ("healed", "unknown-sdk")]
    with ThreadPoolExecutor(len(runs)) as pool:
        (plain, _), *healed = pool.map(lambda flags: exchange(SERVER, *flags, requests=requests, cwd=HERE), runs)
    assert json.loads(plain[4])["result"]["structuredContent"] == {"zip": "12345", "server": "billing"}
    assert len(json.loads(plain[1])["result"]["tools"]) == 12
    assert json.loads(plain[7])["result"] == {"content": [{"type": "text", "text": "Unknown tool: 'billing.refund_all'"}],
                                              "isError": True}
    listed = [tool["name"] for tool in json.loads(plain[1])["result"]["tools"]]
    envelope = toolerr.unknown_tool("billing.refund_all", listed)
    for flags, (answers, _) in zip(runs[1:], healed):
        if "unknown-sdk" in flags:
            assert answers == plain, flags
            continue
        assert {i: line for i, line in answers.items() if i != 7} == {i: line for i, line in plain.items() if i != 7}
        assert json.loads(answers[7])["result"] == {"content": [{"type": "text", "text": toolerr.result_text(envelope)}],
                                                    "isError": True}, flags


def test_no_traceback_on_stderr_at_fastmcps_default_log_level() -> None:
    """At FastMCP's default level (INFO) a healed server writes only its
    start line on stderr for failing calls; the same server unhealed writes
    FastMCP's warning and a traceback for them."""
    requests = [tools_call(2, "billing.get_invoice", {"id": 5}), tools_call(3, "billing.export_invoices", {}),
                tools_call(4, "billing.lock_invoice", {"id": "inv_001"}), tools_call(5, "audit_purge", {})]
    with ThreadPoolExecutor(2) as pool:
        (answers, healed), (_, plain) = pool.map(lambda flag: exchange(SERVER, flag, "info", requests=requests, cwd=HERE),
                                                 ["healed", "plain"])
    assert json.loads(answers[3])["result"]["content"][0]["text"].startswith('<tool_error code="INTERNAL_ERROR"')
    assert "Traceback" not in healed and "Error calling tool" not in healed and "Invalid arguments" not in healed
    assert [line for line in healed.splitlines() if line.strip()][0].split("INFO", 1)[1].split()[:4] == [
        "Starting", "MCP", "server", "'billing'"]
    assert "Traceback" in plain and "Error calling tool 'billing.export_invoices'" in plain


def test_a_healed_server_serves_stdio_behind_the_gate() -> None:
    """Over stdio a healed FastMCP server reads every line through the
    module's stdio gate: arguments nested deeper than the module reads get
    the gate's answer, byte for byte, with the request's id, and the session
    goes on."""
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    requests = [tools_call(2, "billing.get_invoice", {"id": deep}), tools_call(3, "billing.get_invoice", {"id": "inv_404"})]
    answers, stderr = exchange(SERVER, "healed", requests=requests, cwd=HERE)
    gate = toolerr.gate(json.dumps(requests[0]))
    assert gate.verdict == "answer" and gate.response is not None
    assert answers[2] == gate.response + "\n"
    assert "nested too deeply" in json.loads(answers[2])["result"]["content"][0]["text"]
    assert json.loads(answers[3])["result"]["content"][0]["text"].startswith('<tool_error code="NOT_FOUND"')
    assert "Traceback" not in stderr


# --- supported FastMCP versions ---------------------------------------------------------


def test_supported_fastmcp_is_the_extra_in_pyproject() -> None:
    extras = PYPROJECT.read_text(encoding="utf-8").split("[project.optional-dependencies]")[1]
    assert re.findall(r"^fastmcp = \[(.*)\]$", extras, re.M) == [json.dumps(toolerr.SUPPORTED_FASTMCP)]
    from packaging.requirements import Requirement

    declared = [Requirement(r) for r in metadata.requires("toolerr") or []]
    [extra] = [r for r in declared if r.name == "fastmcp"]
    assert (str(extra.specifier), str(extra.marker)) == (
        str(Requirement(toolerr.SUPPORTED_FASTMCP).specifier), 'extra == "fastmcp"')
    assert toolerr._sdk.supports_fastmcp(fastmcp.__version__)  # the venv's own, pinned in requirements-dev.txt


def test_supports_fastmcp_agrees_with_pep440() -> None:
    from packaging.specifiers import SpecifierSet

    spec = SpecifierSet(toolerr.SUPPORTED_FASTMCP.removeprefix("fastmcp"))
    versions = ["2.14.0", "3.0.0", "4", "4.0.0", "4.1", "4.1.5", "4.1.6rc1", "4.1.6.dev1", "4.1.6", "4.1.6.post1",
                "4.1.7", "4.2.0rc1", "4.2.0", "4.10.3+local", "5", "5.0.0rc1", "5.0.0", "10.0"]
    for version in versions:
        assert toolerr._sdk.supports_fastmcp(version) == spec.contains(version, prereleases=True), version
    assert not toolerr._sdk.supports_fastmcp("not a version")


@pytest.mark.parametrize("installed", ["3.2.4", "5.0.0", "4.1.5", None])
def test_unsupported_fastmcp_is_refused(monkeypatch: pytest.MonkeyPatch, installed: str | None) -> None:
    server = billing.build(healed=False)
    monkeypatch.setattr(fastmcp, "__version__", installed)
    with pytest.raises(toolerr.FastMCPVersionError) as raised:
        toolerr.heal(server)
    err = raised.value
    assert isinstance(err, toolerr.ToolerrError) and isinstance(err, ImportError)
    assert (err.code, err.installed, err.supported, err.name) == (
        "UNSUPPORTED_FASTMCP", installed, "fastmcp>=4.1.6,<5", "fastmcp")
    assert str(err) == (
        f"UNSUPPORTED_FASTMCP: toolerr.heal supports fastmcp>=4.1.6,<5, but the installed FastMCP is "
        f"{installed or 'of no known version'}; install a supported one with: pip install 'toolerr[fastmcp]'"
    )
    assert not any(isinstance(m, toolerr._fastmcp.HealMiddleware) for m in server.middleware)


def test_heal_refuses_what_is_neither() -> None:
    from mcp.server.lowlevel import Server

    for thing in (Server("billing"), object()):
        with pytest.raises(TypeError, match=r"an mcp\.server\.mcpserver\.MCPServer .* or a fastmcp\.FastMCP, not "):
            toolerr.heal(thing)  # type: ignore[type-var]
