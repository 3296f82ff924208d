"""Every Python snippet of the README runs as written, in a fresh
interpreter, and the Render and Contract snippets print what the README
shows."""

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
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_readme_has_snippets() -> None:
    assert len(SNIPPETS) >= 6


@pytest.mark.parametrize("code", SNIPPETS, ids=[f"snippet {i}" for i in range(len(SNIPPETS))])
def test_snippet_runs(code: str) -> None:
    run(code)


def test_render_snippet_prints_what_the_readme_shows() -> None:
    i = next(i for i, (lang, code) in enumerate(BLOCKS) if lang == "python" and "toolerr.tool_error(" in code)
    assert BLOCKS[i + 1][0] == "text"
    assert run(BLOCKS[i][1]) == BLOCKS[i + 1][1]


def test_contract_snippet_prints_what_the_readme_shows() -> None:
    i = next(i for i, (lang, code) in enumerate(BLOCKS) if lang == "python" and "toolerr.contract_lock(" in code)
    assert BLOCKS[i + 1][0] == "text"
    assert run(BLOCKS[i][1]) == BLOCKS[i + 1][1]
