"""What a run's record says when the host, not the device, ended the run.

A run's pytest process that dies before it finishes its record (``kill -9``, the out-of-memory
killer, a disk that filled, a path the file system refuses) leaves a journal holding every case
that finished, and no ``record.json``: ``verify`` refuses it as incomplete, and ``tablecert run
--resume`` continues it.  Such a run is an ERROR of the rig (exit 3), or INTERRUPTED (exit 130)
when the operator stopped it, never a FAIL of the device and never a PASS: see docs/record.md,
"What the host can do to a run".
"""

from __future__ import annotations

import signal
from pathlib import Path

from harness import exitcodes
from harness.record.document import Record
from harness.verdict import Verdict

#: the pytest process's exit status when it stopped on a host fault (harness.suites.run.session)
HOST_FAULT_STATUS = exitcodes.RIG_ERROR


def ended_how(exit_code: int | None) -> str:
    """How the run's process ended, for a reason line."""
    if exit_code is None:
        return "did not end"
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = f"signal {-exit_code}"
        why = " (what the out-of-memory killer sends)" if -exit_code == signal.SIGKILL else ""
        return f"was killed by {name}{why}"
    return f"ended with status {exit_code}"


def unfinished_verdict(record: Record, run_dir: Path, exit_code: int | None,
                       interrupted: bool) -> tuple[int, str, list[str]] | None:
    """(exit status, verdict, reasons) of a record its run did not finish, or None for a finished one."""
    if record.complete:
        return None
    kept = len(record.cases)
    reasons = [f"the run's process {ended_how(exit_code)} before it finished the record; the journal keeps "
               f"the {kept} case(s) that finished (continue: tablecert run --resume {run_dir})"]
    if interrupted:
        return exitcodes.INTERRUPTED, Verdict.INTERRUPTED, ["the run was interrupted", *reasons]
    return exitcodes.RIG_ERROR, Verdict.ERROR, reasons
