"""Holding Ctrl-C back while a finished case is written down.

Ctrl-C (and SIGTERM, which a certification run treats the same way) raises ``KeyboardInterrupt``
wherever the main thread happens to be.  Landing between two writes of a case's record (its evidence
attached, its journal line not yet written; or its journal line written, the record in memory not yet
told) it would leave a record that does not verify: evidence no case names, or a journal holding a
case ``record.json`` lacks.  :func:`deferred` holds the interrupt back for the few milliseconds such
a section takes and raises it as soon as the section is over, so the run still ends INTERRUPTED and
the record stays whole.

One owner of the run, whatever happens to it (docs/record.md, "What the host can do to a run"):

* :func:`stop_signals` makes SIGTERM and SIGHUP (a closed terminal, a dropped ssh session) raise
  ``KeyboardInterrupt`` like Ctrl-C, whether or not SIGINT is ignored (a script started without job
  control ignores SIGINT, and so does every process it starts: a forwarded SIGINT never arrives).
* :func:`die_with_parent` ends a process when the process that started it is gone: the parent-death
  signal of Linux (``prctl(PR_SET_PDEATHSIG)``) and, everywhere, a thread watching the parent's pid.
  The pytest child of ``tablecert run`` and every emulator use it, so a ``kill -9`` of the run leaves
  no process behind and the record ends INTERRUPTED, resumable.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any

#: what ends a run as an interrupt: Ctrl-C, ``kill`` / a service manager, a closed terminal
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: the signals a process gets from another process to stop (never SIGINT: it may be ignored)
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
#: environment variable naming the pid of ``tablecert run`` to the pytest process it starts
PARENT_ENV = "TABLECERT_PARENT_PID"
#: how often the watching thread looks at the parent's pid
WATCH_S = 0.5
#: prctl(2) option: the signal a process gets when its parent dies (Linux)
PR_SET_PDEATHSIG = 1


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Run the body with SIGINT and SIGTERM held back; re-raise one of them as ``KeyboardInterrupt``
    after the body (outside the main thread, where no handler can be set, the body runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        caught.append(signum)

    # a signal this process ignores (SIGINT in a script without job control) stays ignored
    previous: dict[int, Any] = {sig: signal.signal(sig, hold) for sig in SIGNALS
                                if signal.getsignal(sig) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if caught and not (_STOPPING.is_set() and set(caught) <= set(STOP_SIGNALS)):
        raise KeyboardInterrupt(f"signal {caught[0]} (held back while the case was recorded)")


def _silence_output(terminals_only: bool = False) -> None:
    """Point stdout and stderr at /dev/null: the terminal (or the parent reading the pipe) is gone,
    and a write there must not end the run before its record is written.  ``terminals_only``: only
    a stream that is a terminal (a hang-up closes the terminal, not a file the output goes to)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                if terminals_only and not os.isatty(stream.fileno()):
                    continue
                with contextlib.suppress(OSError):
                    stream.flush()
                os.dup2(devnull, stream.fileno())
        os.close(devnull)


def orphaned(parent_pid: int | None) -> bool:
    """True when the process that started this one (``parent_pid``) is no longer its parent."""
    return parent_pid is not None and os.getppid() != parent_pid


def _raise_interrupt(parent_pid: int | None) -> Any:
    def interrupt(signum: int, frame: FrameType | None) -> None:
        if orphaned(parent_pid):
            _silence_output()  # a dead parent: nobody reads the pipe it gave us
        elif signum == signal.SIGHUP:
            _silence_output(terminals_only=True)  # a closed terminal
        if _STOPPING.is_set():
            return  # already ending: a second interrupt would cut the record's finish short
        _STOPPING.set()
        raise KeyboardInterrupt(f"signal {signum}")

    return interrupt


#: set once a stop signal has been raised as ``KeyboardInterrupt``: the process is ending and writing
#: its record.  A stop signal after that is not raised again.  One often comes: a parent's death
#: sends the parent-death signal and, up to :data:`WATCH_S` later, the watching thread's; a second
#: ``KeyboardInterrupt`` landing in the record's finish left it unfinished.
_STOPPING = threading.Event()


def install_stop_signals(parent_pid: int | None = None) -> dict[int, Any]:
    """SIGTERM and SIGHUP raise ``KeyboardInterrupt`` from now on (main thread only), the first of them
    only; returns the handlers they replace.  ``parent_pid``: the process that started this one; once
    it is gone the output goes to /dev/null before the interrupt is raised."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    _STOPPING.clear()
    handler = _raise_interrupt(parent_pid)
    return {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise ``KeyboardInterrupt`` in the body (the handlers are put back after)."""
    previous = install_stop_signals()
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _STOPPING.clear()


def _set_pdeathsig(signum: int) -> bool:
    """Ask Linux to send ``signum`` to this process when its parent dies; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(parent_pid: int, signum: int = signal.SIGHUP, *, pdeathsig: bool = True) -> None:
    """Send ``signum`` to this process as soon as ``parent_pid`` is no longer its parent (it died
    and the process was handed to init or a subreaper): the parent-death signal where the system
    has one (``pdeathsig``; Linux sends it when the parent's *thread* that started this process
    ends, so only a process started from its parent's main thread asks for it), and a daemon thread
    that checks every :data:`WATCH_S` seconds (another system, or a parent gone before the signal
    was asked for)."""
    if pdeathsig:
        _set_pdeathsig(signum)

    def watch() -> None:
        while not orphaned(parent_pid):
            time.sleep(WATCH_S)
        with contextlib.suppress(OSError):
            os.kill(os.getpid(), signum)

    threading.Thread(target=watch, name="tablecert-parent-watch", daemon=True).start()


def parent_from_environment() -> int | None:
    """The pid ``tablecert run`` put in :data:`PARENT_ENV` for the process it started, or None."""
    raw = os.environ.get(PARENT_ENV, "")
    return int(raw) if raw.isdigit() else None


def reap_group(pgid: int, grace_s: float = 5.0) -> bool:
    """End every process left in the process group ``pgid`` (a run's emulators, after the run's
    process died): SIGTERM, then SIGKILL after ``grace_s``.  Returns True when some were left."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return False
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return True
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    return True


@contextlib.contextmanager
def again(action: Any) -> Iterator[None]:
    """While an interrupted run writes its record: a further Ctrl-C, SIGTERM or SIGHUP calls
    ``action`` (stop the run's process) instead of raising in the middle of the wait."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGHUP:
            _silence_output(terminals_only=True)
        with contextlib.suppress(OSError):
            action()

    previous = {sig: signal.signal(sig, stop) for sig in SIGNALS if signal.getsignal(sig) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
