"""The files of a run folder, read only when they are what they claim to be.

A record folder comes from someone else's disk.  Every file of it that a reader opens (``record.json``,
``journal.jsonl``, ``record.sha256``, ``record.sig``, the evidence, the views) is first checked with
``lstat``: it must be a **regular file**, not a symlink (in or out of the folder), a directory, a
FIFO, a device or a socket, and it must lie inside the folder.  Anything else is a problem with the
record, named with what the entry is, and it is never opened: a FIFO would block a reader for ever,
a symlink would let a forger point the journal at another run's, a directory in the journal's place
would let the journal check be skipped.  The file is then opened with ``O_NOFOLLOW`` and
``O_NONBLOCK`` and checked again through the descriptor (a swap between the two checks is caught
too), and read up to a size limit.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from harness.errors import InputError
from harness.yamlload import read_bounded

#: the largest file of a record folder a reader takes in whole (a long soak's journal is a few MB)
MAX_MEMBER_BYTES = 256 * 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def kind_of(mode: int) -> str:
    """What a directory entry is, in words."""
    if stat.S_ISLNK(mode):
        return "a symlink, not the file itself"
    if stat.S_ISDIR(mode):
        return "a directory, not a file"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe), not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    return "not a regular file"


def inside(run_dir: Path, rel: str) -> bool:
    """``rel`` names an entry inside ``run_dir`` (no ``..``, no symlinked folder on the way out)."""
    root = os.path.realpath(run_dir)
    parent = os.path.realpath((run_dir / rel).parent)
    return parent == root or parent.startswith(root + os.sep)


def member_problem(run_dir: Path, rel: str) -> str | None:
    """``None`` when ``run_dir/rel`` is a regular file inside the folder; ``"missing"`` when there
    is nothing there; otherwise what it is instead (a symlink, a FIFO, a directory, ...)."""
    if not inside(run_dir, rel):
        return "outside the run folder"
    try:
        st = os.lstat(run_dir / rel)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return None if stat.S_ISREG(st.st_mode) else kind_of(st.st_mode)


def present(run_dir: Path, rel: str) -> bool:
    """Something (of any kind) is at ``run_dir/rel``."""
    return os.path.lexists(run_dir / rel)


def _open(run_dir: Path, rel: str) -> int:
    problem = member_problem(run_dir, rel)
    if problem is not None:
        raise InputError(problem, path=str(run_dir / rel))
    try:
        fd = os.open(run_dir / rel, _OPEN_FLAGS)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=str(run_dir / rel)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError("not a regular file", path=str(run_dir / rel))
    return fd


def read_member(run_dir: Path, rel: str, limit: int = MAX_MEMBER_BYTES) -> bytes:
    """The bytes of the regular file ``run_dir/rel`` (at most ``limit``); ``InputError`` (naming
    the file and what it is instead) for anything else."""
    fd = _open(run_dir, rel)
    try:
        data = read_bounded(fd, limit)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=str(run_dir / rel)) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputError(f"larger than the {limit:,}-byte limit", path=str(run_dir / rel))
    return data


def sha256_member(run_dir: Path, rel: str) -> str:
    """The SHA-256 of the regular file ``run_dir/rel`` (any size, read in chunks)."""
    fd = _open(run_dir, rel)
    h = hashlib.sha256()
    try:
        while chunk := os.read(fd, 1 << 16):
            h.update(chunk)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=str(run_dir / rel)) from None
    finally:
        os.close(fd)
    return h.hexdigest()


def files_under(run_dir: Path, rel: str) -> tuple[list[str], list[str]]:
    """Every entry below the folder ``run_dir/rel``, walked without following a symlink: the
    regular files (relative to ``run_dir``, sorted) and a problem for each entry that is neither a
    regular file nor a plain directory."""
    files: list[str] = []
    problems: list[str] = []
    top = run_dir / rel
    for base, dirs, names in os.walk(top, followlinks=False):
        here = Path(base)
        for name in sorted(dirs):
            if os.path.islink(here / name):
                problems.append(f"{(here / name).relative_to(run_dir).as_posix()}: a symlink, not a folder")
        for name in sorted(names):
            rel_name = (here / name).relative_to(run_dir).as_posix()
            st = os.lstat(here / name)
            if stat.S_ISREG(st.st_mode):
                files.append(rel_name)
            else:
                problems.append(f"{rel_name}: {kind_of(st.st_mode)}")
    return sorted(files), problems
