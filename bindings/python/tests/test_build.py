"""The package's build (backend/toolerr_build.py, around flit_core): git
holds the module once, as plugin/toolerr.wasm, and the sdist and the wheels
carry it, copied from there and checked against plugin/toolerr.wasm.sha256;
a wheel built from the sdist takes the sdist's copy. Built with the
environment's pinned build and flit_core, in a fresh tree laid out as the
repository's (the installs themselves: tests/install/run.sh)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

BINDING = Path(__file__).resolve().parents[1]


def fresh_tree(tmp: Path, root: Path, record: bytes) -> Path:
    """tmp/bindings/python as a clone has it (no copies of the module),
    beside tmp/plugin with the module and the given record."""
    project = tmp / "bindings" / "python"
    shutil.copytree(BINDING, project, ignore=shutil.ignore_patterns(
        "__pycache__", "toolerr.wasm", "toolerr.wasm.sha256", "build", "dist", "*.egg-info"))
    (tmp / "plugin").mkdir()
    shutil.copyfile(root / "plugin" / "toolerr.wasm", tmp / "plugin" / "toolerr.wasm")
    (tmp / "plugin" / "toolerr.wasm.sha256").write_bytes(record)
    return project


def build(project: Path, outdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "build", "--no-isolation", *args, "--outdir", str(outdir), str(project)],
                          capture_output=True, text=True, timeout=300)


def test_the_sdist_and_the_wheels_carry_the_committed_module(tmp_path: Path, root: Path) -> None:
    version = (root / "VERSION").read_text(encoding="utf-8").strip()
    wasm = (root / "plugin" / "toolerr.wasm").read_bytes()
    record = (root / "plugin" / "toolerr.wasm.sha256").read_bytes()
    project = fresh_tree(tmp_path, root, record)

    # python -m build: the sdist, then a wheel built from the unpacked sdist.
    out = build(project, tmp_path / "dist")
    assert out.returncode == 0, out.stdout + out.stderr
    with tarfile.open(tmp_path / "dist" / f"toolerr-{version}.tar.gz") as sdist:
        def member(name: str) -> bytes:
            extracted = sdist.extractfile(f"toolerr-{version}/{name}")
            assert extracted is not None, name
            return extracted.read()

        assert member("src/toolerr/toolerr.wasm") == wasm
        assert member("src/toolerr/toolerr.wasm.sha256") == record
        assert member("backend/toolerr_build.py") == (BINDING / "backend" / "toolerr_build.py").read_bytes()
    # A wheel straight from the tree, as pip install bindings/python builds it.
    out = build(project, tmp_path / "tree", "--wheel")
    assert out.returncode == 0, out.stdout + out.stderr
    for wheel in (tmp_path / "dist", tmp_path / "tree"):
        with zipfile.ZipFile(wheel / f"toolerr-{version}-py3-none-any.whl") as zipped:
            assert zipped.read("toolerr/toolerr.wasm") == wasm, wheel
            assert zipped.read("toolerr/toolerr.wasm.sha256") == record, wheel


def test_a_module_whose_sha256_is_not_its_records_stops_the_build(tmp_path: Path, root: Path) -> None:
    project = fresh_tree(tmp_path, root, b"0" * 64 + b"  toolerr.wasm\n")
    for kind in ("--sdist", "--wheel"):
        out = build(project, tmp_path / "dist", kind)
        assert out.returncode != 0, kind
        assert (f"ModuleError: toolerr build: {tmp_path.resolve()}/plugin/toolerr.wasm has sha256 "
                f"{(root / 'plugin' / 'toolerr.wasm.sha256').read_text().split()[0]}, but toolerr.wasm.sha256 "
                f"beside it records {'0' * 64}") in out.stdout + out.stderr, kind
        assert not (tmp_path / "dist").exists() or not any((tmp_path / "dist").iterdir()), kind
    assert not (project / "src" / "toolerr" / "toolerr.wasm").exists()
