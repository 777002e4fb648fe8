"""The pytest side of ``tablecert run --resume RUN`` (pytest ``--tc-resume DIR``).

The run folder's journal says what is left (:class:`harness.record.resume.Resumption`): the plugin
deselects the cases finished in earlier sittings; before the first case the session opens the
devices, reads every identity and compares it with the one read at the start of the run, and only
then appends the ``resume`` line that starts the new sitting.  A device that is not the one the run
started with, or devices that cannot be opened, end the session with exit status 3 and the journal
untouched (the run stays resumable once the right devices are on the bench).  A profile snapshot,
suite or stack file that changed since the run started is a usage error (exit 2 from ``tablecert
run``), found before any device is opened.
"""

from __future__ import annotations

import sys

import pytest

from harness.errors import DeviceError, InputError
from harness.record.lock import RunLocked
from harness.record.resume import IdentityChanged, Resumption
from harness.suites.load.inputs import resumption
from harness.suites.run.profile_rig import open_rig
from harness.suites.run.session import TcSession, command_line

#: set once the session of a resumed run began its sitting (or was refused)
_BEGUN = pytest.StashKey[bool]()
EXIT_RIG = 3


def deselect_finished(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the cases an earlier sitting finished."""
    resume = resumption(config)
    if resume is None:
        return
    done = [item for item in items if getattr(getattr(item, "tc_case", None), "name", None) in resume.finished]
    if done:
        config.hook.pytest_deselected(items=done)
        items[:] = [item for item in items if item not in done]


def begin_sitting(config: pytest.Config, session: TcSession, resume: Resumption) -> None:
    """Open the devices, compare identities, start the sitting; exit 3 (journal untouched) when refused."""
    config.stash[_BEGUN] = True
    run_id = resume.record.run_id
    try:
        session.rig = open_rig(session.profile, listen=session.listen, defects=session.defects)
        session.open_bench(session.rig, run_id)
        session.recorder = resume.begin(command_line(sys.argv), session.read_identities())
    except RunLocked as exc:
        _close(session)
        pytest.exit(f"tablecert: run {run_id} not resumed: {exc}", returncode=pytest.ExitCode.USAGE_ERROR)
    except IdentityChanged as exc:
        _close(session)
        pytest.exit(f"tablecert: run {run_id} not resumed: a device is not the one the run started with "
                    f"(58 Pa. Code 607a.2(b)): {exc}", returncode=EXIT_RIG)
    except (DeviceError, OSError, InputError) as exc:
        _close(session)
        pytest.exit(f"tablecert: run {run_id} not resumed: the devices could not be opened to check their "
                    f"identity ({type(exc).__name__}: {exc})", returncode=EXIT_RIG)
    assert session.bench is not None and session.recorder is not None
    session.recorder.set_bench(session.bench.summary())
    # the contract section goes on from the record's: findings of earlier sittings are kept
    session.contract = dict(resume.record.contract) or {"versions": {}, "findings": []}
    session.contract.setdefault("findings", [])
    sys.stderr.write(f"\ntablecert: run {run_id} resumed in sitting {resume.sitting}: identities as at the start; "
                     f"{len(resume.finished)} case(s) finished before, {len(resume.rerun)} run again\n")


def _close(session: TcSession) -> None:
    if session.bench is not None:
        session.bench.close()
        session.bench = None
    if session.rig is not None:
        session.rig.close()
        session.rig = None


def finish_if_nothing_ran(session_: pytest.Session) -> None:
    """Every case had finished before the kill: the sitting still checks identities and finishes the record."""
    config = session_.config
    resume = resumption(config)
    if resume is None or config.stash.get(_BEGUN, False):
        return
    tc = TcSession.from_config(config)
    begin_sitting(config, tc, resume)
    tc.close()
