"""Writes that leave the previous file whole when they fail.

A view, a signature, a manifest or a ``--out`` file is written to a temporary file in the same
folder, ``fsync``'ed, then renamed over the old one (a rename within a folder is atomic): a full
disk, ``ulimit -f`` or a kill mid-write leaves the previous file as it was, and the record keeps
verifying.  The temporary file is removed when the write fails.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path

#: a temporary file's name: hidden, beside its target, never one a run folder is read for
TEMP_PREFIX = ".tc-tmp-"


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_atomic(path: Path | str, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` by a regular file holding ``data`` (a symlink there is replaced, never followed)."""
    path = Path(path)
    tmp = path.parent / f"{TEMP_PREFIX}{secrets.token_hex(4)}-{path.name[:80]}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def write_text_atomic(path: Path | str, text: str) -> None:
    write_atomic(path, text.encode("utf-8"))


def replace_folder(path: Path, fill: Callable[[Path], object]) -> None:
    """Replace the folder ``path`` by one ``fill(new_folder)`` makes: made beside it, then swapped in;
    a failure leaves the old folder as it was."""
    tmp = path.parent / f"{TEMP_PREFIX}{secrets.token_hex(4)}-{path.name[:80]}"
    old = path.parent / f"{TEMP_PREFIX}old-{secrets.token_hex(4)}-{path.name[:80]}"
    try:
        tmp.mkdir()
        fill(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    had = os.path.lexists(path)
    if had:
        os.replace(path, old)
    try:
        os.replace(tmp, path)
    except BaseException:
        if had:
            os.replace(old, path)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if had:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                old.unlink()
    _fsync_dir(path.parent)
