"""One writer per run folder: a lock held while a run or a resume writes its record.

Two ``tablecert run --resume`` of one run at once would both append to its journal and leave a
record no one can verify; two runs started in the same second would share a run id.  So a writer
holds an exclusive ``flock`` on ``<report-dir>/.<run-id>.lock`` (beside the run folder, not in it:
the record's folder holds the record only) from before its first write until its last:

* ``tablecert run`` reserves each run id by taking its lock (an id whose lock another process
  holds, or whose folder exists, gets ``-2``, ``-3``), and hands the locked descriptor to its pytest
  process, which holds it too (a lock belongs to the open file, which both share): the folder stays
  locked while either of them lives;
* ``tablecert run --resume`` takes the lock before it reads the journal;
* a pytest process started on its own (``--tc-run-id``, ``--tc-resume``) takes the lock itself.

A second writer is refused before it writes anything: one message naming the folder and the
process holding it, exit 2.  The lock file holds that process's pid (for the message only) and is
removed when the lock is released.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from harness.errors import InputError

#: ``fd:path`` of a lock ``tablecert run`` took for the pytest process it starts
INHERITED_ENV = "TABLECERT_RUN_LOCK"


class RunLocked(InputError):
    """Another process writes this run folder."""


#: the locks this process took, by lock file (a process does not refuse itself: a recorder abandoned
#: in-process, as a kill leaves it, and the resume that follows it)
_HELD: dict[str, RunLock] = {}


def lock_path(run_dir: Path) -> Path:
    return run_dir.parent / f".{run_dir.name}.lock"


class RunLock:
    """An exclusive lock on one run folder (see the module docstring)."""

    def __init__(self, run_dir: Path, fd: int, owner: bool = True) -> None:
        self.run_dir = run_dir
        self.path = lock_path(run_dir)
        self.fd: int | None = fd
        #: False for a lock another process took and handed over: releasing it is that process's job
        self.owner = owner

    @classmethod
    def acquire(cls, run_dir: Path) -> RunLock:
        """Take the lock without waiting; :class:`RunLocked` when another process holds it, an
        ``OSError`` when the lock file cannot be made (a read-only or missing report folder)."""
        run_dir = Path(run_dir)
        path = lock_path(run_dir)
        mine = _HELD.get(str(path))
        if mine is not None and mine.fd is not None:  # this process holds it already: it is not a second writer
            return cls(run_dir, mine.fd, owner=False)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise RunLocked(f"{run_dir}: run folder is being written by another tablecert process"
                                f"{f' (pid {holder})' if holder else ''}; wait for it to end, or stop it "
                                "(it keeps every finished case), then try again") from None
            except OSError:
                os.close(fd)
                raise
            # the holder before us may have removed the file as it let go: lock the file that is there now
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        lock = cls(run_dir, fd)
        _HELD[str(path)] = lock
        return lock

    @classmethod
    def inherited(cls, run_dir: Path) -> RunLock | None:
        """The lock ``tablecert run`` took for this process on ``run_dir``, or None."""
        raw = os.environ.get(INHERITED_ENV, "")
        fd_text, _, path = raw.partition(":")
        if not fd_text.isdigit() or Path(path) != lock_path(Path(run_dir)):
            return None
        try:
            os.fstat(int(fd_text))
        except OSError:
            return None
        return cls(Path(run_dir), int(fd_text), owner=False)

    @classmethod
    def hold(cls, run_dir: Path) -> RunLock:
        """The lock on ``run_dir`` for this process: handed over by ``tablecert run``, or taken now."""
        return cls.inherited(run_dir) or cls.acquire(run_dir)

    def environment(self) -> dict[str, str]:
        """What a child process needs to know it holds this lock (with ``pass_fds=(lock.fd,)``)."""
        assert self.fd is not None
        return {INHERITED_ENV: f"{self.fd}:{self.path}"}

    def release(self) -> None:
        if self.fd is None:
            return
        if self.owner:
            _HELD.pop(str(self.path), None)
            with contextlib.suppress(OSError):
                self.path.unlink()
            with contextlib.suppress(OSError):
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            with contextlib.suppress(OSError):
                os.close(self.fd)
        self.fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _holder(fd: int) -> str:
    with contextlib.suppress(OSError, ValueError):
        text = os.pread(fd, 32, 0).decode("ascii").strip()
        return text if text.isdigit() else ""
    return ""


def reserve(report_root: Path, base: str, taken: set[str] | None = None) -> tuple[str, RunLock]:
    """A run id starting with ``base`` whose folder does not exist and whose lock this process now
    holds: ``base``, else ``base-2``, ``base-3`` ... (two runs started in the same second)."""
    n = 1
    while True:
        rid = base if n == 1 else f"{base}-{n}"
        n += 1
        if (taken and rid in taken) or (report_root / rid).exists():
            continue
        try:
            lock = RunLock.acquire(report_root / rid)
        except RunLocked:
            continue
        if (report_root / rid).exists():  # made between our look and our lock
            lock.release()
            continue
        return rid, lock
