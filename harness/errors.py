"""Error types shared by every layer.

``InputError`` is what bad input raises: a suite, a profile, a card sequence or a command-line
value that cannot be used.  The command line prints ``str(error)`` as one line and exits 2, never a
traceback.  When the error comes from a file, ``path``, ``line`` and ``col`` (1-based) make the
message read ``file:line:col: message`` so an editor can jump to it.
"""

from __future__ import annotations


class TablecertError(Exception):
    """Base of every error tablecert raises on purpose."""


class InputError(TablecertError):
    """Input that cannot be used: reported as one line, exit status 2."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        col: int | None = None,
        context: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.col = col
        self.context = context

    def located(self, path: str | None = None, line: int | None = None, col: int | None = None) -> InputError:
        """Return a copy that carries a file position (keeps any position already set)."""
        return InputError(
            self.message,
            path=self.path or path,
            line=self.line or line,
            col=self.col or col,
            context=self.context,
        )

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        return f"{where}: {self.message}"


class DeviceError(TablecertError):
    """The rig failed (no answer, protocol error, device-reported error): an ERROR, not a FAIL."""


class DeviceTimeout(DeviceError):
    """A device did not answer before its deadline: a TIMEOUT verdict."""
