"""The package's version is the repository's VERSION, which is also the
version the module's describe reports; and it is licensed as the
repository is (Apache-2.0, its LICENSE shipped in the package)."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import toolerr

BINDING = Path(__file__).resolve().parents[1]
ROOT = BINDING.parents[1]


def test_version_is_the_repository_version_and_the_modules() -> None:
    version = (ROOT / "VERSION").read_text(encoding="utf-8").strip()
    assert toolerr.__version__ == version
    assert importlib.metadata.version("toolerr") == version  # the installed package's metadata
    assert toolerr.describe()["version"] == version
    # The README's install lines name the wheel python -m build writes.
    assert f"dist/toolerr-{version}-py3-none-any.whl[mcp]" in (BINDING / "README.md").read_text(encoding="utf-8")


def test_license_is_apache_2() -> None:
    pyproject = (BINDING / "pyproject.toml").read_text(encoding="utf-8")  # no tomllib before 3.11
    assert re.search(r'^license = "Apache-2.0"$', pyproject, re.M)
    assert (BINDING / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").lstrip().startswith("Apache License\n")
    metadata = importlib.metadata.metadata("toolerr")
    assert metadata["License-Expression"] == "Apache-2.0"
    files = importlib.metadata.files("toolerr") or []
    shipped = [f for f in files if f.name == "LICENSE"]
    assert shipped and Path(str(shipped[0].locate())).read_bytes() == (ROOT / "LICENSE").read_bytes()
