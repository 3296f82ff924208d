"""Which releases of the MCP Python SDK (the ``mcp`` distribution) and of
FastMCP (the ``fastmcp`` package) toolerr works with, read from what is
installed.

toolerr's results are the SDK 2.x types (``mcp_types.CallToolResult``).
``mcp`` 1.x (``FastMCP``) does not know them: it would serialise a returned
result as JSON text with ``isError: false``, so the model would never see an
error. :func:`check_mcp` refuses such an SDK loudly instead. FastMCP 4 (its
own package, on ``mcp`` 2.x) is healed through its middleware, and
:func:`check_fastmcp` refuses a release outside the one tested line.
"""

from __future__ import annotations

import re
from importlib import metadata

from ._errors import ToolerrError

#: The ``mcp`` releases this package supports; the same requirement as the
#: ``mcp`` extra in pyproject.toml (``pip install 'toolerr[mcp]'``).
SUPPORTED_MCP = "mcp>=2.3,<3"
_LOWEST = (2, 3)  # inclusive, and not its pre-releases
_BELOW = (3,)  # exclusive

_VERSION = re.compile(r"^\s*v?(?:\d+!)?(\d+(?:\.\d+)*)(.*)$", re.IGNORECASE)
_FINAL_SUFFIX = re.compile(r"^(?:[-_.]?post[-_.]?\d*|-\d+)?(?:\+.*)?$", re.IGNORECASE)


class MCPVersionError(ToolerrError, ImportError):
    """The installed ``mcp`` package is not one toolerr supports (or, for
    :func:`toolerr.heal`, is not installed at all).

    A :class:`ToolerrError` with code ``UNSUPPORTED_MCP`` and an
    ``ImportError`` (its ``name`` is ``"mcp"``). ``installed`` is the
    installed version (None when there is none), ``supported`` the
    requirement toolerr supports (:data:`SUPPORTED_MCP`)."""

    def __init__(self, feature: str, installed: str | None) -> None:
        if installed is None:
            message = (
                f"{feature} needs the MCP Python SDK ({SUPPORTED_MCP}), which is not installed; "
                "install it with: pip install 'toolerr[mcp]'"
            )
        else:
            message = (
                f"{feature} supports {SUPPORTED_MCP}, but the installed mcp is {installed}; "
                "install a supported one with: pip install 'toolerr[mcp]'"
            )
            if _release(installed)[0][:1] == (1,):
                message += (
                    " (mcp 1.x, FastMCP, would send toolerr's results to the model "
                    "as JSON text with isError false)"
                )
        super().__init__("UNSUPPORTED_MCP", message)
        self.name = "mcp"
        self.installed = installed
        self.supported = SUPPORTED_MCP


def installed_mcp() -> str | None:
    """The version of the installed ``mcp`` distribution, or None."""
    try:
        return metadata.version("mcp")
    except metadata.PackageNotFoundError:
        return None


def _release(version: str) -> tuple[tuple[int, ...], bool]:
    """The release numbers of a PEP 440 version and whether it is final
    (not a pre-release nor a development release); ``((), False)`` when it
    cannot be read."""
    match = _VERSION.match(version)
    if match is None:
        return (), False
    numbers = tuple(int(part) for part in match.group(1).split("."))
    return numbers, _FINAL_SUFFIX.match(match.group(2)) is not None


def _within(version: str, lowest: tuple[int, ...], below: tuple[int, ...]) -> bool:
    """Whether ``version`` is at least ``lowest`` (a final release, three
    numbers) and below ``below``. A pre-release of a supported release line
    counts, except those of the lowest supported release itself (they come
    before it)."""
    numbers, final = _release(version)
    if not numbers:
        return False
    padded = numbers + (0,) * (3 - len(numbers))
    if not lowest <= padded < below:
        return False
    return final or padded > lowest


def supports_mcp(version: str) -> bool:
    """Whether ``mcp`` at ``version`` satisfies :data:`SUPPORTED_MCP`."""
    return _within(version, _LOWEST + (0,), _BELOW)


def check_mcp(feature: str, *, required: bool) -> None:
    """Raise :class:`MCPVersionError` when the installed ``mcp`` is outside
    :data:`SUPPORTED_MCP`, or, with ``required``, when none is installed."""
    installed = installed_mcp()
    if installed is None:
        if required:
            raise MCPVersionError(feature, None)
        return
    if not supports_mcp(installed):
        raise MCPVersionError(feature, installed)


#: The FastMCP releases :func:`toolerr.heal` supports: the 4.x line from the
#: release it is tested with (pinned in requirements-dev.txt); the same
#: requirement as the ``fastmcp`` extra in pyproject.toml
#: (``pip install 'toolerr[fastmcp]'``).
SUPPORTED_FASTMCP = "fastmcp>=4.1.6,<5"
_FASTMCP_LOWEST = (4, 1, 6)  # inclusive, and not its pre-releases
_FASTMCP_BELOW = (5,)  # exclusive


class FastMCPVersionError(ToolerrError, ImportError):
    """The installed FastMCP is not one :func:`toolerr.heal` supports.

    A :class:`ToolerrError` with code ``UNSUPPORTED_FASTMCP`` and an
    ``ImportError`` (its ``name`` is ``"fastmcp"``). ``installed`` is the
    version FastMCP reports (``fastmcp.__version__``; None when it reports
    none), ``supported`` the requirement toolerr supports
    (:data:`SUPPORTED_FASTMCP`)."""

    def __init__(self, feature: str, installed: str | None) -> None:
        message = (
            f"{feature} supports {SUPPORTED_FASTMCP}, but the installed FastMCP is {installed or 'of no known version'}; "
            "install a supported one with: pip install 'toolerr[fastmcp]'"
        )
        super().__init__("UNSUPPORTED_FASTMCP", message)
        self.name = "fastmcp"
        self.installed = installed
        self.supported = SUPPORTED_FASTMCP


def supports_fastmcp(version: str) -> bool:
    """Whether FastMCP at ``version`` satisfies :data:`SUPPORTED_FASTMCP`."""
    return _within(version, _FASTMCP_LOWEST, _FASTMCP_BELOW)


def check_fastmcp(feature: str, installed: object) -> None:
    """Raise :class:`FastMCPVersionError` unless ``installed`` (what
    ``fastmcp.__version__`` holds) is a version within
    :data:`SUPPORTED_FASTMCP`."""
    if not isinstance(installed, str) or not supports_fastmcp(installed):
        raise FastMCPVersionError(feature, installed if isinstance(installed, str) else None)
