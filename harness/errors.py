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


class InputErrors(InputError):
    """Every problem found in one input, in file order: validation does not stop at the first.

    It reads as its first error (``str()``, ``path``, ``line``, ``col``), so code that handles one
    :class:`InputError` keeps working; :meth:`lines` gives all of them for a command to print.
    """

    def __init__(self, errors: list[InputError]) -> None:
        if not errors:
            raise ValueError("InputErrors needs at least one error")
        first = errors[0]
        super().__init__(first.message, path=first.path, line=first.line, col=first.col, context=first.context)
        self.errors = list(errors)


def error_lines(exc: InputError) -> list[InputError]:
    """The individual errors of ``exc`` (itself when it is a single error)."""
    return list(exc.errors) if isinstance(exc, InputErrors) else [exc]


def render(exc: InputError, indent: str = "    ") -> str:
    """Every error of ``exc`` as ``file:line:col: message``, each followed by its offending lines."""
    out = []
    for err in error_lines(exc):
        text = str(err)
        if err.context:
            text += "\n" + "\n".join(indent + line for line in err.context.splitlines())
        out.append(text)
    return "\n".join(out)


class DeviceError(TablecertError):
    """The rig failed (no answer, protocol error, device-reported error): an ERROR, not a FAIL."""


class DeviceTimeout(DeviceError):
    """A device did not answer before its deadline: a TIMEOUT verdict."""
