"""One certification run in its own process, for the self-checks (the kill matrix, the variants).

The run is started in its own session, so a run past its deadline is ended together with the
emulators it started (its process group), and its output goes to a log file the caller reads.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment without pytest's own variables (a self-check started from inside a test run,
    CI or xdist, must not hand its options or worker identity to the runs it starts), plus ``extra``."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}, **(extra or {})}


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End the run and its emulator: both are in the process group :func:`run_job` started."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


class Ended(NamedTuple):
    """How a run of :func:`run_job` ended."""

    #: the process's exit status (negative for a signal; None if it could not be reaped after stop)
    returncode: int | None
    #: it was still running at its deadline and was stopped
    past_deadline: bool


def run_job(cmd: Sequence[str], cwd: Path, log: Path, env: Mapping[str, str], deadline_s: float) -> Ended:
    """Run ``cmd`` in its own session within ``deadline_s``, its output (stdout and stderr) written
    to ``log``.  Past the deadline the run is stopped with its process group; any other exception
    while waiting stops it too and is raised again."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=dict(env), start_new_session=True)
        try:
            return Ended(proc.wait(deadline_s), False)
        except subprocess.TimeoutExpired:
            stop(proc)
            return Ended(proc.returncode, True)
        except BaseException:
            stop(proc)
            raise
