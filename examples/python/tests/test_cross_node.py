"""A second, shorter session in another language: the Python SDK's
``ClientSession`` drives the Node billing server (``node
examples/node/server.mjs``, as examples/servers.json starts it) over stdio,
and the Python binding's ``call_tool`` reads every failure back as a
``ClientError``.

It needs the Node side prepared (``bash examples/node/prepare.sh``; ``make
test`` and ``bindings/python/test.sh`` do it) and fails, naming what is
missing, when it is not.
"""

from __future__ import annotations

import json
import shutil
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
import toolerr
from mcp import ClientSession, StdioServerParameters

from conftest import LOCKFILE, SCENARIO, SCHEMAS, call_named, session_with, texts

ROOT = Path(__file__).resolve().parents[3]
NODE_SERVER = ROOT / "examples" / "node" / "server.mjs"
# What prepare.sh installs: the SDK for the server, @extism/extism for the binding.
NODE_NEEDS = [
    ROOT / "examples" / "node" / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json",
    ROOT / "examples" / "node" / "node_modules" / "toolerr" / "package.json",
    ROOT / "bindings" / "node" / "node_modules" / "@extism" / "extism" / "package.json",
]

def content(text: str) -> str:
    """docs/CONTRACT.md's CONTENT(), enough for the scenario's texts."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("]]>", "]]&gt;")


def node_command() -> str:
    """The node executable, or a failure saying how to prepare the Node side."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("the Node billing server needs `node` (20 or later) on PATH")
    missing = [str(p.relative_to(ROOT)) for p in NODE_NEEDS if not p.exists()]
    if missing:
        pytest.fail(
            "the Node billing server is not prepared (missing: "
            + ", ".join(missing)
            + "); run `bash examples/node/prepare.sh` from the repository root (`make test` does)"
        )
    return node


def node_session() -> AbstractAsyncContextManager[ClientSession]:
    return session_with(StdioServerParameters(command=node_command(), args=[str(NODE_SERVER)], cwd=str(ROOT)))


async def failure(session: ClientSession, call: dict[str, Any]) -> toolerr.ClientError:
    """Make the scenario's call through the binding's helper, which must raise
    ClientError, with the scenario's exact texts, and a recovery and a message
    that are the text's."""
    with pytest.raises(toolerr.ClientError) as raised:
        await toolerr.call_tool(session, call["tool"], call["arguments"])
    err = raised.value
    text = call["answer"]["content"][0]
    assert texts(err.raw) == call["answer"]["content"]
    assert (err.recovery is not None) == call["expect"]["recovery"]
    if err.recovery is not None:
        assert f"\n<recovery>{content(err.recovery)}</recovery>\n" in text
    if call["expect"]["kind"] == "tool_error":
        assert f"\n<message>{content(err.message)}</message>\n" in text
    return err


def expected(call: dict[str, Any]) -> tuple[str, str, str]:
    return (call["expect"]["kind"], call["expect"]["code"], call["expect"]["severity"])


@pytest.mark.anyio
async def test_python_client_against_the_node_server() -> None:
    async with node_session() as session:
        assert session.initialize_result.server_info.name == "billing-node"  # type: ignore[union-attr]

        # 1. A success passes through as it is.
        call = call_named("get an open invoice")
        ok = await toolerr.call_tool(session, call["tool"], call["arguments"])
        assert ok.is_error is False
        assert texts(ok) == call["answer"]["content"]

        # 2. NOT_FOUND, with its recovery, next action and details.
        call = call_named("get an unknown invoice is NOT_FOUND")
        err = await failure(session, call)
        assert (err.kind, err.code, err.severity) == expected(call)
        assert err.message == call["expect"]["message"]
        assert err.available_actions == call["expect"]["actions"]
        assert err.details == call["expect"]["details"]
        assert err.retry_after is None

        # 3. The page_size warning rides the success path: no ClientError.
        call = call_named("page_size warns first and succeeds")
        warned = await toolerr.call_tool(session, call["tool"], call["arguments"])
        assert warned.is_error is False
        assert texts(warned) == call["answer"]["content"]
        warning = toolerr.parse(texts(warned)[0])
        assert isinstance(warning, toolerr.ToolErrorEnvelope)
        assert (warning.code, warning.severity, warning.is_error) == (call["expect"]["code"], call["expect"]["severity"], False)
        assert warning.recovery is not None
        assert f"\n<recovery>{content(warning.recovery)}</recovery>\n" in texts(warned)[0]
        assert json.loads(texts(warned)[1]) == call["expect"]["payload"]

        # 4. A validation error on a tool changed since examples/billing.lock.json
        #    carries the contract awareness block.
        call = call_named("pay in an unsupported currency")
        err = await failure(session, call)
        assert (err.kind, err.code, err.severity) == expected(call)
        assert err.available_actions == [] and err.details == {}
        assert err.action == call["tool"]
        assert [f.name for f in err.fields] == call["expect"]["fields"]
        for f in err.fields:
            assert f">{content(f.message)}</field>\n" in call["answer"]["content"][0]
        assert err.contract is not None
        assert (err.contract["changeCount"], err.contract["maxSeverity"]) == (1, call["expect"]["contract"])
        tools = [{"name": n, **SCHEMAS[n]} for n in SCHEMAS]
        changed = [d["field"] for d in toolerr.contract_diff(LOCKFILE, tools)["deltas"] if f"actions.{call['tool']}." in d["field"]]
        assert [c["field"] for c in err.contract["changes"]] == changed

        # 5. FORBIDDEN, critical, thrown by the handler and delivered intact.
        call = call_named("void is FORBIDDEN, critical")
        err = await failure(session, call)
        assert (err.kind, err.code, err.severity) == expected(call)
        assert err.message == call["expect"]["message"]
        assert err.recovery is None and err.available_actions == [] and err.details == {}

        # 6. INTERNAL_ERROR naming the tool, no stack trace.
        call = call_named("export fails with INTERNAL_ERROR naming the tool")
        err = await failure(session, call)  # the whole envelope: no stack trace
        assert (err.kind, err.code, err.severity) == expected(call)
        assert err.message == call["expect"]["message"]
        assert err.recovery is not None and err.recovery.startswith("This is an unexpected server-side failure")
        assert err.available_actions == [] and err.details == {}
