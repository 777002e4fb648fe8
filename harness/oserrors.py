"""What the host refused, as one line: the boundary between an ``OSError`` and the user.

A path of any length or encoding, a full disk, a file too large for ``ulimit -f``, a read-only
folder: each ends a command with one message naming what was refused and where, and an exit status
(:mod:`harness.exitcodes`), never a traceback.  A path the user gave that the file system refuses
(too long, not a folder, an encoding it cannot hold) is bad input (2); a host that cannot take a
write (no room, too large, read-only, an I/O error) is a rig error (3).
"""

from __future__ import annotations

import errno

from harness import exitcodes

#: the user's path cannot be used as given
BAD_PATH = {errno.ENAMETOOLONG, errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EINVAL, errno.EILSEQ, errno.ELOOP}
#: how much of a long path a message shows (its start and its end)
SHOWN = 100


def shown_path(path: object) -> str:
    """A path for a message: as text whatever its bytes (undecodable bytes escaped), cut in the middle
    when long."""
    if isinstance(path, bytes):
        text = path.decode("utf-8", "backslashreplace")
    else:
        text = str(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if len(text) > SHOWN:
        text = f"{text[:SHOWN // 2]}...({len(text)} characters)...{text[-SHOWN // 2:]}"
    return text


def describe(exc: OSError) -> str:
    """One line for ``exc``: what the system said, and the file(s) it concerns."""
    what = exc.strerror or type(exc).__name__
    names = [shown_path(n) for n in (exc.filename, exc.filename2) if n is not None]
    return f"{what}: {' -> '.join(names)}" if names else what


def status(exc: OSError) -> int:
    """The exit status for ``exc`` (see the module docstring)."""
    return exitcodes.BAD_INPUT if exc.errno in BAD_PATH else exitcodes.RIG_ERROR
