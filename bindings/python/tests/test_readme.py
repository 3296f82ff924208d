"""Every Python snippet of the README runs as written, in a fresh
interpreter, prints nothing on stderr, and type-checks as written under
``mypy --strict``; the Render and Contract snippets print what the README
shows. The README opens with the heal example, which serves over stdio as
the text under it says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
SNIPPETS = [code for lang, code in BLOCKS if lang == "python"]


def run(code: str) -> str:
    # stdin at end of file: a snippet that serves MCP over stdio stops at once.
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    return out.stdout


def mypy_strict(files: list[Path], cache: Path) -> subprocess.CompletedProcess[str]:
    """mypy --strict on files, against the installed toolerr (its py.typed
    annotations, as a user's project sees them)."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-color-output", "--cache-dir", str(cache), *map(str, files)],
        capture_output=True, text=True, timeout=300,
    )


def test_readme_has_snippets() -> None:
    assert len(SNIPPETS) >= 6


@pytest.mark.parametrize("code", SNIPPETS, ids=[f"snippet {i}" for i in range(len(SNIPPETS))])
def test_snippet_runs(code: str) -> None:
    run(code)


def test_snippets_type_check_under_mypy_strict(tmp_path: Path) -> None:
    """What a project checked with mypy --strict gets when it copies a
    snippet: no error. (Snippets that show a refused call say so with a
    `# type: ignore[code]`, which --strict reports if it is not needed.)"""
    files = []
    for i, code in enumerate(SNIPPETS):
        files.append(tmp_path / f"snippet_{i}.py")
        files[-1].write_text(code, encoding="utf-8")
    out = mypy_strict(files, tmp_path / "cache")
    assert out.returncode == 0, out.stdout + out.stderr


# The typed API the snippets rely on, beyond what they exercise: guard()
# keeps a handler's parameters and adds CallToolResult to what it returns,
# result_text is a str, and refused uses stay refused.
TYPED_API = """
from mcp_types import CallToolResult
import toolerr

@toolerr.guard("billing.get_invoice")
def get_invoice(invoice_id: str) -> dict[str, str]:
    return {"id": invoice_id}

@toolerr.guard("billing.export_invoices")
async def export_invoices(limit: int) -> list[str]:
    return []

sync_result: dict[str, str] | CallToolResult = get_invoice("inv_001")
get_invoice(1)  # type: ignore[arg-type]
get_invoice("inv_001").content  # type: ignore[union-attr]

async def client() -> None:
    async_result: list[str] | CallToolResult = await export_invoices(3)
    export_invoices("3")  # type: ignore[arg-type,unused-coroutine]

text: str = toolerr.result_text(toolerr.required("id"))
text = toolerr.result_text({"content": [{"type": "text", "text": "t"}]})
toolerr.result_text("text")  # type: ignore[arg-type]
envelope = toolerr.parse(text)
if isinstance(envelope, toolerr.ToolErrorEnvelope):
    code: str = envelope.code
"""


def test_typed_api_under_mypy_strict(tmp_path: Path) -> None:
    (tmp_path / "typed_api.py").write_text(TYPED_API, encoding="utf-8")
    out = mypy_strict([tmp_path / "typed_api.py"], tmp_path / "cache")
    assert out.returncode == 0, out.stdout + out.stderr


def test_render_snippet_prints_what_the_readme_shows() -> None:
    i = next(i for i, (lang, code) in enumerate(BLOCKS) if lang == "python" and "toolerr.tool_error(" in code)
    assert BLOCKS[i + 1][0] == "text"
    assert run(BLOCKS[i][1]) == BLOCKS[i + 1][1]


def test_gate_snippet_prints_what_the_readme_shows() -> None:
    i = next(i for i, (lang, code) in enumerate(BLOCKS) if lang == "python" and "toolerr.gate(" in code)
    assert BLOCKS[i + 1][0] == "text"
    assert run(BLOCKS[i][1]) == BLOCKS[i + 1][1]


def test_contract_snippet_prints_what_the_readme_shows() -> None:
    i = next(i for i, (lang, code) in enumerate(BLOCKS) if lang == "python" and "toolerr.contract_lock(" in code)
    assert BLOCKS[i + 1][0] == "text"
    assert run(BLOCKS[i][1]) == BLOCKS[i + 1][1]


def test_readme_opens_with_heal() -> None:
    """The first example, before Install, is the one-line integration, in at
    most 10 lines, and the supported SDK versions are stated."""
    text = README.read_text(encoding="utf-8")
    first = BLOCKS[0]
    assert first[0] == "python" and text.index(first[1]) < text.index("## Install")
    assert "toolerr.heal(server)" in first[1] and "server.run()" in first[1]
    assert len(first[1].splitlines()) <= 10
    assert "`mcp>=2.3,<3`" in text.split("## Install")[0]
    # And the FastMCP integration, the same way, before Install too.
    second = BLOCKS[1]
    assert second[0] == "python" and text.index(second[1]) < text.index("## Install")
    assert "from fastmcp import FastMCP" in second[1] and "toolerr.heal(mcp)" in second[1] and "mcp.run(" in second[1]
    assert len(second[1].splitlines()) <= 10
    assert "`fastmcp>=4.1.6,<5`" in text.split("## Install")[0]


@pytest.mark.anyio
@pytest.mark.parametrize("block", [0, 1], ids=["mcpserver", "fastmcp"])
async def test_heal_snippet_serves_envelopes(tmp_path: Path, block: int) -> None:
    import pydantic
    import toolerr
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = tmp_path / "server.py"
    server.write_text(BLOCKS[block][1], encoding="utf-8")
    params = StdioServerParameters(command=sys.executable, args=[str(server)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        invalid = await session.call_tool("billing.get_invoice", {"id": 5})
        missing = await session.call_tool("billing.get_invoice", {"id": "inv_404"})

    class Args(pydantic.BaseModel):
        id: str

    try:
        Args.model_validate({"id": 5})
        raise AssertionError("valid")
    except pydantic.ValidationError as exc:
        want = toolerr.format_validation("billing.get_invoice", exc, {"id": 5})
    assert (invalid.is_error, invalid.content) == (True, want.content)
    assert missing.is_error is True
    assert missing.content == toolerr.tool_error(
        "NOT_FOUND", "No invoice with that ID", available_actions=["billing.list_invoices"]
    ).content


def test_package_type_checks_under_mypy_strict(tmp_path: Path) -> None:
    """The package's own source is clean under mypy --strict, so the
    annotations its py.typed marker publishes are the ones it keeps."""
    files = sorted((Path(__file__).resolve().parents[1] / "src" / "toolerr").glob("*.py"))
    assert len(files) >= 5
    out = mypy_strict(files, tmp_path / "cache")
    assert out.returncode == 0, out.stdout + out.stderr
