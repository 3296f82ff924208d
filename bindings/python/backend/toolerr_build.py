"""The build backend of the toolerr package: flit_core's, after it has put
the module in the package.

The package carries ``toolerr/toolerr.wasm`` and its sha256 record,
``toolerr/toolerr.wasm.sha256``, which ``toolerr._engine.packaged_wasm``
reads and ``toolerr.Toolerr`` checks. Git holds the module once, as the
repository's ``plugin/toolerr.wasm`` and ``plugin/toolerr.wasm.sha256``: a
build from the repository's ``bindings/python`` (``pip install
bindings/python``, ``python -m build``) first copies both into
``src/toolerr/``, where they are git-ignored. An sdist carries those copies,
and a wheel built from it (an sdist has PKG-INFO, the repository's tree has
not) takes them as they are. Either way a module whose sha256 is not the one
its record gives stops the build.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Optional

from flit_core import buildapi
from flit_core.buildapi import (
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

PROJECT = Path(__file__).resolve().parent.parent
PACKAGE = PROJECT / "src" / "toolerr"
PLUGIN = PROJECT.parent.parent / "plugin"
FILES = ("toolerr.wasm", "toolerr.wasm.sha256")
Settings = Optional[dict[str, Any]]


class ModuleError(Exception):
    """The module to package is missing, or its sha256 is not its record's."""


def put_module() -> None:
    """Copy plugin/'s module and record into the package (from an sdist,
    check the ones it carries)."""
    from_sdist = (PROJECT / "PKG-INFO").is_file()
    source = PACKAGE if from_sdist else PLUGIN
    try:
        wasm, record = ((source / name).read_bytes() for name in FILES)
    except OSError as exc:
        where = "this sdist" if from_sdist else "the toolerr repository's plugin/ (a source tree of the package builds inside the repository)"
        raise ModuleError(f"toolerr build: the module is not in {where}: {exc}") from exc
    digest = hashlib.sha256(wasm).hexdigest()
    recorded = record.decode("utf-8", "replace").split()[:1]
    if recorded != [digest]:
        raise ModuleError(
            f"toolerr build: {source / FILES[0]} has sha256 {digest}, but {FILES[1]} beside it records "
            f"{recorded[0] if recorded else 'nothing'}"
        )
    if from_sdist:
        return
    for name, data in zip(FILES, (wasm, record)):
        # Replaced in one step: a build running meanwhile reads the old file or the new one.
        temporary = PACKAGE / f".{name}.{os.getpid()}"
        temporary.write_bytes(data)
        os.replace(temporary, PACKAGE / name)


def build_wheel(wheel_directory: str, config_settings: Settings = None, metadata_directory: str | None = None) -> str:
    put_module()
    return buildapi.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory: str, config_settings: Settings = None, metadata_directory: str | None = None) -> str:
    put_module()
    return buildapi.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory: str, config_settings: Settings = None) -> str:
    put_module()
    return buildapi.build_sdist(sdist_directory, config_settings)
