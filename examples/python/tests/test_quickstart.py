"""The quickstart servers as real subprocesses over stdio, driven by the
SDK's own ClientSession: examples/python/quickstart.py (the SDK's MCPServer,
type hints, and toolerr.heal) and examples/python/quickstart_fastmcp.py
(the same server written with FastMCP, and the same line).

A validation error must be exactly what the binding's ``format_validation``
renders for the errors pydantic reports on the same arguments against the
tool's parameter (for FastMCP, against a function with the tool's
signature, which is what FastMCP checks), with those arguments; the other
answers are written out.
"""

from __future__ import annotations

import json
import sys
import tempfile
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Annotated, Any, TextIO

import pydantic
import pytest
import toolerr
from mcp import Client, ClientSession, StdioServerParameters
from pydantic import BaseModel, Field

from conftest import exchange, stdio_session, texts, tools_call

ROOT = Path(__file__).resolve().parents[3]
SERVERS = {
    "mcpserver": ROOT / "examples" / "python" / "quickstart.py",
    "fastmcp": ROOT / "examples" / "python" / "quickstart_fastmcp.py",
}
SERVER = SERVERS["mcpserver"]
#: The calls every language's quickstart answers alike.
SHARED = ROOT / "examples" / "quickstart.json"


class GetInvoiceArgs(BaseModel):
    """billing.get_invoice's parameter, as the quickstart declares it."""

    id: Annotated[str, Field(pattern=r"^inv_[0-9]{3}$")]


def get_invoice(id: Annotated[str, Field(pattern=r"^inv_[0-9]{3}$")]) -> None:  # noqa: A002
    """billing.get_invoice's signature, which FastMCP checks the arguments against."""


@pytest.fixture(params=sorted(SERVERS))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def quickstart(kind: str, errlog: TextIO = sys.stderr) -> AbstractAsyncContextManager[ClientSession]:
    return stdio_session(SERVERS[kind], errlog)


def expected_validation(kind: str, args: dict[str, Any]) -> list[str]:
    try:
        if kind == "fastmcp":
            pydantic.TypeAdapter(get_invoice).validate_python(args)
        else:
            GetInvoiceArgs.model_validate(args)
    except pydantic.ValidationError as exc:
        return texts(toolerr.format_validation("billing.get_invoice", exc, args, dialect="pydantic"))
    raise AssertionError(f"valid: {args}")


@pytest.mark.anyio
async def test_quickstart_over_stdio(kind: str) -> None:
    failures: list[str] = []
    async with quickstart(kind) as session:
        listed = await session.list_tools()
        assert sorted(t.name for t in listed.tools) == ["billing.export_invoices", "billing.get_invoice"]

        for args in ({}, {"id": 5}, {"id": "INV-1"}):
            result = await session.call_tool("billing.get_invoice", args)
            got = texts(result)
            want = expected_validation(kind, args)
            if (got, result.is_error) != (want, True):
                failures.append(f"{args}: {result.is_error} {got}\nwant {want}")
            if len(got) != 1 or not got[0].startswith('<validation_error action="billing.get_invoice">\n<field name="id">'):
                failures.append(f"{args}: not one validation error on id: {got}")

        missing = await session.call_tool("billing.get_invoice", {"id": "inv_404"})
        # The exact texts of this call and export_invoices' are examples/quickstart.json's,
        # checked by test_quickstart_answers_the_shared_calls.
        assert missing.is_error and texts(missing)[0].startswith('<tool_error code="NOT_FOUND"')

        found = await session.call_tool("billing.get_invoice", {"id": "inv_001"})
        assert (found.is_error, texts(found)) == (
            False, ['{"id":"inv_001","status":"open","amount":120.5,"currency":"EUR"}'])
        paid = await session.call_tool("billing.get_invoice", {"id": "inv_002"})
        assert texts(paid) == ['{"id":"inv_002","status":"paid","amount":75,"currency":"USD"}']

        crashed = await session.call_tool("billing.export_invoices", {})
        assert crashed.is_error and texts(crashed)[0].startswith('<tool_error code="INTERNAL_ERROR"')

        # A tool the server does not have: UNKNOWN_ACTION with the tools it lists.
        unknown = await session.call_tool("billing.refund_invoice", {"id": "inv_001"})
        assert (unknown.is_error, texts(unknown)) == (
            True, texts(toolerr.unknown_tool("billing.refund_invoice", [t.name for t in listed.tools])))
        assert texts(unknown)[0].startswith(
            '<tool_error code="UNKNOWN_ACTION">\n<message>The tool "billing.refund_invoice" does not exist.</message>\n'
            "<available_actions>billing.get_invoice, billing.export_invoices</available_actions>")
    assert not failures, "\n\n".join(failures)


@pytest.mark.anyio
async def test_quickstart_errors_read_back(kind: str) -> None:
    """A client reads the envelopes back: toolerr.call_tool raises ClientError."""
    async with quickstart(kind) as session:
        with pytest.raises(toolerr.ClientError) as invalid:
            await toolerr.call_tool(session, "billing.get_invoice", {"id": "INV-1"})
        assert (invalid.value.code, [f.name for f in invalid.value.fields]) == ("VALIDATION_ERROR", ["id"])
        with pytest.raises(toolerr.ClientError) as missing:
            await toolerr.call_tool(session, "billing.get_invoice", {"id": "inv_999"})
        assert (missing.value.code, missing.value.details) == ("NOT_FOUND", {"requestedId": "inv_999"})
        assert missing.value.available_actions == ["billing.list_invoices"]


@pytest.mark.anyio
async def test_quickstart_answers_the_shared_calls(kind: str) -> None:
    """examples/quickstart.json: one text block that is text, or starts with
    startsWith, or whose JSON equals json; isError as given."""
    if not SHARED.exists():
        pytest.skip("examples/quickstart.json is absent")
    calls = json.loads(SHARED.read_text(encoding="utf-8"))["calls"]
    assert calls
    failures = []
    async with quickstart(kind) as session:
        for call in calls:
            result = await session.call_tool(call["tool"], call["arguments"])
            got = texts(result)
            ok = len(got) == 1 and result.is_error is call["isError"]
            if ok and "text" in call:
                ok = got[0] == call["text"]
            if ok and "startsWith" in call:
                ok = got[0].startswith(call["startsWith"])
            if ok and "json" in call:
                ok = json.loads(got[0]) == call["json"]
            if not ok:
                failures.append(f"{call}: {result.is_error} {got}")
    assert not failures, "\n\n".join(failures)


@pytest.mark.anyio
async def test_quickstart_writes_nothing_on_stderr_for_200_failing_calls(kind: str) -> None:
    """Bad arguments, a raised toolerr error, a plain exception and an
    unknown tool, 200 calls in all: each answered with its envelope, and
    stderr stays empty."""
    failing = [("billing.get_invoice", {"id": 5}, "<validation_error"),
               ("billing.get_invoice", {"id": "inv_404"}, '<tool_error code="NOT_FOUND"'),
               ("billing.export_invoices", {}, '<tool_error code="INTERNAL_ERROR"'),
               ("billing.refund_invoice", {"id": "inv_001"}, '<tool_error code="UNKNOWN_ACTION"'),
               ("billing.get_invoice", {}, "<validation_error")]
    wrong = []
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        async with quickstart(kind, errlog) as session:
            for i in range(200):
                tool, args, prefix = failing[i % len(failing)]
                result = await session.call_tool(tool, args)
                if not (result.is_error and texts(result)[0].startswith(prefix)):
                    wrong.append(f"{tool} {args}: {texts(result)}")
        errlog.seek(0)
        stderr = errlog.read()
    assert not wrong, wrong[:3]
    assert stderr == ""


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_quickstart_answers_the_sdks_client_in_either_protocol(kind: str, mode: str) -> None:
    """The SDK's own high-level Client, which by default speaks the stateless
    protocol (2026-07-28) to a server that has it, and the handshake
    protocol: every failure, the gate's answers included, reaches it as a
    result with its envelope. A stateless client refuses a result without
    resultType, so the gate must write it for those calls."""
    deep: Any = 1
    for _ in range(80):
        deep = [deep]
    calls = [("billing.get_invoice", {"id": deep}, '<validation_error action="billing.get_invoice">\n<field name="(root)">'
              "The arguments are nested too deeply"),
             ("billing.get_invoice", {"id": 5}, '<validation_error action="billing.get_invoice">\n<field name="id">'),
             ("billing.get_invoice", {"id": "inv_404"}, '<tool_error code="NOT_FOUND"'),
             ("billing.refund_invoice", {}, '<tool_error code="UNKNOWN_ACTION"')]
    server = StdioServerParameters(command=sys.executable, args=[str(SERVERS[kind])], cwd=str(ROOT))
    async with Client(server, mode=mode) as client:  # type: ignore[arg-type]
        assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
        for tool, args, prefix in calls:
            result = await client.call_tool(tool, args)
            assert result.is_error and texts(result)[0].startswith(prefix), (tool, args, texts(result))


def test_heal_changes_no_byte_of_tools_list_or_a_success(kind: str, tmp_path: Path) -> None:
    """The quickstart and the same server without its heal line, over stdio:
    the handshake, tools/list and every success are the same bytes; the
    failures are what heal changes (an unknown tool among them)."""
    source = SERVERS[kind].read_text(encoding="utf-8")
    line = "toolerr.heal(mcp)  # the one line\n" if kind == "fastmcp" else "toolerr.heal(server)  # the one line\n"
    assert source.count(line) == 1
    plain = tmp_path / SERVERS[kind].name
    plain.write_text(source.replace(line, ""), encoding="utf-8")

    successes = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                 *(tools_call(i, "billing.get_invoice", {"id": f"inv_00{i - 1}"}) for i in (2, 3, 4))]
    failures = [tools_call(5, "billing.get_invoice", {"id": 5}),
                tools_call(6, "billing.refund_invoice", {"id": "inv_001"})]
    healed, stderr = exchange(SERVERS[kind], requests=successes + failures, cwd=ROOT)
    unhealed, _ = exchange(plain, requests=successes + failures, cwd=ROOT)
    assert stderr == ""
    assert {i: healed[i] for i in range(5)} == {i: unhealed[i] for i in range(5)}
    assert json.loads(healed[3])["result"]["isError"] is False
    for i in (5, 6):
        assert healed[i] != unhealed[i]
        assert json.loads(healed[i])["result"]["isError"] is json.loads(unhealed[i])["result"]["isError"] is True
    listed = [tool["name"] for tool in json.loads(healed[1])["result"]["tools"]]
    assert json.loads(healed[6])["result"]["content"] == [
        {"type": "text", "text": toolerr.result_text(toolerr.unknown_tool("billing.refund_invoice", listed))}]
    assert json.loads(unhealed[6])["result"]["content"][0]["text"].startswith("Unknown tool: ")


def test_quickstart_fastmcp_is_written_fastmcps_way() -> None:
    """No XML, no hand-written validation, no low-level handler: FastMCP's
    server with type hints, and the same one line."""
    source = SERVERS["fastmcp"].read_text(encoding="utf-8").split('"""', 2)[2]
    assert 'mcp = FastMCP("billing")' in source
    assert '@mcp.tool(name="billing.get_invoice")' in source
    assert 'id: Annotated[str, Field(pattern=r"^inv_[0-9]{3}$")]' in source
    assert source.count("toolerr.heal(mcp)") == 1
    assert 'mcp.run(show_banner=False, log_level="WARNING")' in source  # as the binding's README
    for absent in ("<tool_error", "<validation_error", "lowlevel", "validate(", "format_validation", "re.match",
                   "Middleware", "mcp.server.mcpserver"):
        assert absent not in source, absent


def test_quickstart_is_written_the_sdks_way() -> None:
    """No XML, no hand-written validation, no low-level handler: the SDK's
    MCPServer with type hints, and the one line."""
    source = SERVER.read_text(encoding="utf-8").split('"""', 2)[2]  # the code, after the docstring
    assert 'server = MCPServer("billing", log_level="WARNING")' in source  # as the binding's README
    assert '@server.tool(name="billing.get_invoice")' in source
    assert 'id: Annotated[str, Field(pattern=r"^inv_[0-9]{3}$")]' in source
    assert source.count("toolerr.heal(server)") == 1
    assert "server.run()" in source
    for absent in ("<tool_error", "<validation_error", "lowlevel", "validate(", "format_validation", "re.match"):
        assert absent not in source, absent
