"""The binding's one typed error."""

from __future__ import annotations

import json


class ToolerrError(Exception):
    """A toolerr call failed.

    ``code`` is the ABI error code (INVALID_REQUEST, REQUEST_TOO_LARGE,
    INTERNAL from the module; TIMEOUT or TRAP from the host) and ``message``
    names the export and the field at fault, e.g.
    ``tool_error: "message" is required``.
    """

    def __init__(self, code: str, message: str, *, raw: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self._raw = raw

    def to_json(self) -> str:
        """The error object ``{"code","message"}`` as JSON text: as the module
        wrote it when it came from the module."""
        if self._raw is not None:
            return self._raw
        return json.dumps({"code": self.code, "message": self.message}, ensure_ascii=False, separators=(",", ":"))


class Broken(Exception):
    """Internal: a call that left its instance in an undefined state (a
    trap, a timeout). The instance is dropped, and the caller gets error."""

    def __init__(self, error: ToolerrError) -> None:
        super().__init__(error.message)
        self.error = error
