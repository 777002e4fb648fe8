"""``tablecert run --resume RUN``: continue an interrupted or killed run from its journal.

A long bench run meets people: it is stopped for the night with Ctrl-C (the record says
INTERRUPTED), or the host dies.  ``--resume`` takes the run folder (``reports/<run-id>``, or just the
run id under ``--report-dir``), reads its journal and runs the same pytest command the run began
with (the suites, the profile, ``--bench-twin``, the defects, ``-k``: all as recorded) with
``--tc-resume``: the cases finished before are not run again, a case that did not finish (INTERRUPTED,
or SKIP after a device stopped answering) is, and before the first case every device's identity is
compared with the one read at the start of the run (58 Pa. Code 607a.2(b) fields).  The record then
says which cases ran in which sitting, with the start and end of each (docs/record.md, "Sittings").

Exit status: the whole run's verdict (0 PASS, 1 FAIL, 3 ERROR or INCOMPLETE, 130 interrupted again);
2 when the run cannot be continued as recorded (finished, merged, the profile or a suite changed),
or when another process writes its folder (a run or a resume holds its lock: harness.record.lock);
3 when a device is not the one the run started with, or cannot be opened (nothing is written: the run
stays resumable).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness import exitcodes
from harness.cli.run_profile import OVERALL, ProfileRun, judge, run_profile, summary, terminate_as_interrupt
from harness.errors import InputError
from harness.record.lock import RunLock

#: options of the recorded pytest command that belong to the sitting that ran it, not to the run
_DROP_WITH_VALUE = ("--tc-progress-fd", "--tc-run-id", "--tc-report-dir", "--tc-resume", "-n", "--numprocesses",
                    "--dist")
#: options ``--resume`` cannot take: they come from the journal
_FROM_JOURNAL = ("suites", "profile", "defect", "bench_twin", "keyword", "workers", "pre_submission", "lab",
                 "station", "submitting_party", "list", "rerun_failed")


def run_folder(args: argparse.Namespace, root: Path) -> Path:
    given = Path(args.resume)
    if given.is_dir():
        return given.absolute()
    under = (Path(args.report_dir) if args.report_dir else root / "reports") / args.resume
    if under.is_dir():
        return under.absolute()
    raise InputError(f"--resume {args.resume}: no such run folder (give reports/<run-id>)")


def pytest_args(command: list[str], operator: str | None) -> list[str]:
    """The recorded pytest arguments without the sitting's own (progress pipe, run id, report folder,
    xdist workers: a resumed sitting runs in one process); ``operator`` replaces the recorded one."""
    out: list[str] = []
    drop = _DROP_WITH_VALUE + (("--tc-operator",) if operator is not None else ())
    it = iter(command[1:])
    for arg in it:
        name = arg.split("=", 1)[0]
        if name in drop:
            if "=" not in arg:
                next(it, None)
            continue
        if arg.startswith("-n") and arg[2:].isdigit():
            continue
        out.append(arg)
    if operator is not None:
        out += ["--tc-operator", operator]
    return out


def resume(args: argparse.Namespace) -> int:
    from harness.suites.load.stacks import project_root

    given = [f"--{name.replace('_', '-')}" for name in _FROM_JOURNAL if getattr(args, name, None)]
    if given:
        raise InputError(f"--resume takes the suites, the profile and the options from the run's journal; "
                         f"drop {', '.join(given)}")
    from harness.cli.run_summary import check_outputs

    check_outputs(args)
    root = project_root()
    run_dir = run_folder(args, root)
    try:
        lock = RunLock.acquire(run_dir)  # one writer: a second resume (or the run itself) is refused, exit 2
    except OSError as exc:
        raise InputError(f"{run_dir}: the run folder cannot be locked for writing ({exc.strerror})") from None
    try:
        return _resume(args, root, run_dir, lock)
    finally:
        lock.release()


def _resume(args: argparse.Namespace, root: Path, run_dir: Path, lock: RunLock) -> int:
    from harness.cli.run_progress import Progress
    from harness.cli.run_summary import record_case_seconds, write_outputs
    from harness.record.digest import JOURNAL_FILE
    from harness.record.journal import load_journal
    from harness.record.resume import Resumption
    from harness.record.signing import SIGNATURE_FILE

    before = Resumption(run_dir)  # finished, merged, no journal, another run's: bad input before anything starts
    signed = (run_dir / SIGNATURE_FILE).exists()
    record = before.record
    profile = _option(record.meta.command, "--tc-profile") or record.meta.profile_name
    pr = ProfileRun(record.meta.profile_name or run_dir.name, Path(profile), run_dir, 0, lock=lock)
    cmd = [sys.executable, "-m", "pytest", *pytest_args(list(record.meta.command), args.operator),
           "--tc-resume", str(run_dir)]
    print(f"tablecert run: resuming run {record.run_id} (sitting {before.sitting}): {len(before.finished)} case(s) "
          f"finished, {len(before.rerun)} to run again", file=sys.stderr, flush=True)
    progress = Progress([pr], case_seconds=[record_case_seconds(run_dir)])  # the earlier sittings' rate
    with terminate_as_interrupt(), progress:
        progress.start(0)
        interrupted = run_profile(cmd, root, pr, progress)
        if len(load_journal(run_dir / JOURNAL_FILE).sittings) == len(record.sittings):
            pr.verdict = "NOT RESUMED"
            pr.status = exitcodes.RIG_ERROR if pr.exit_code == exitcodes.RIG_ERROR else exitcodes.BAD_INPUT
            pr.reasons.append("the run was not resumed (the message above says why); its journal is unchanged")
        else:
            judge(pr)
        progress.finish(0)
    status = summary([pr], False, interrupted)
    if signed and not (run_dir / SIGNATURE_FILE).exists():
        print(f"tablecert run: the record was signed before this sitting; its signature no longer signs it and was "
              f"moved to {run_dir}/set-aside/: the record needs signing again (tablecert sign {run_dir} --key ...)",
              file=sys.stderr)
    write_outputs(args, [pr], status, OVERALL.get(status, "ERROR or INCOMPLETE"))
    return status


def _option(command: list[str], name: str) -> str | None:
    for i, arg in enumerate(command):
        if arg == name and i + 1 < len(command):
            return command[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None
