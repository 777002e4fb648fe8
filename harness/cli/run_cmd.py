"""``tablecert run``: run certification suites against a profile's devices and write the record.

With no arguments it runs every suite under ``suites/`` against every built-in emulator profile
(``device_profiles/emulated-*.yaml``), starting the emulators itself as separate processes over a
pty, and writes one record per profile under ``reports/<run-id>/``.  Each profile runs in its own
pytest process (the suites are pytest items; see ``harness.plugin``), so a crash in one cannot take
another's finished results with it.

``--resume RUN`` continues an interrupted or killed run from its journal (:mod:`harness.cli.run_resume`).

One verdict everywhere: the summary prints each record's own verdict, and the exit status follows
from those verdicts (:mod:`harness.exitcodes`), never from pytest's exit code.  Ctrl-C (or SIGTERM)
lets the running profile write its record (verdict INTERRUPTED), runs no further profile and exits
130.  Options after ``--`` go to pytest unchanged.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import interrupts
from harness.cli.numbers import count
from harness.cli.run_profile import (
    INTERRUPT_GRACE_S,
    OVERALL,
    ProfileRun,
    judge,
    run_profile,
    summary,
    terminate_as_interrupt,
)
from harness.cli.run_summary import pytest_colour
from harness.errors import InputError
from harness.paths import project_root, safe_name

HELP = "run certification suites against a device profile (default: all suites, built-in emulators)"
EXAMPLE = """
tablecert run                                   # every suite, every built-in emulator profile
tablecert run suites/royal9 --profile device_profiles/emulated-midi-1.yaml
tablecert run suites/lockout/lockout.suite.yaml::no-more-bets --profile my-bench.yaml
tablecert run --profile my-bench.yaml --lab "ACME Labs" --operator jdoe --submitting-party "ACME Gaming LLC"
tablecert run --profile device_profiles/emulated-midi-5.yaml --defect lockout-late --pre-submission
tablecert run --bench-twin --profile device_profiles/emulated-midi-5.yaml   # as a lab bench would
tablecert run --bench-twin --console --profile device_profiles/emulated-midi-5.yaml   # rehearse: you answer
tablecert run --resume reports/20250101T120000Z-emulated-midi-5   # go on with an interrupted or killed run
tablecert run -n 2 -- -x --maxfail 3            # two emulator instances per profile; pytest options after --
tablecert run suites/lockout --profile device_profiles/emulated-mini-baccarat.yaml --list   # what would run, N/A why
tablecert run --rerun-failed reports/20250101T120000Z-emulated-midi-5   # only the cases that record did not pass
tablecert run --junitxml results.xml --json summary.json   # one JUnit file for every profile; the run summary
"""
#: shown after the example in ``--help`` (harness.exitcodes)
EXIT_STATUS = """
Exit status (the records' verdicts decide it, never pytest's own code):
  0    PASS: every profile's record passed (or --list / -- --collect-only selected cases)
  1    FAIL: a compliance failure, or a record that does not verify
  2    bad input: a suite, profile or command line that cannot be used; a selection of nothing
  3    a rig or device error, or an incomplete run (ERROR, TIMEOUT, cases not run)
  4    PARTIAL: every selected case passed, but the run selected only part of the applicable cases
       of the certification suites (FILE::CASE, a suite folder, -k): no certification
  130  interrupted (Ctrl-C, SIGTERM): the running profile wrote its record
"""
#: ``tablecert run ... -- ARGS``: ARGS reach pytest unchanged
PASSTHROUGH = True


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("suites", nargs="*", metavar="SUITES",
                   help="suite files or directories, or FILE::CASE for one case (default: suites/)")
    p.add_argument("--profile", action="append", default=[], metavar="P",
                   help="device profile (repeatable; default: every device_profiles/emulated-*.yaml)")
    p.add_argument("--report-dir", default=None, metavar="D", help="where reports/<run-id>/ go (default: reports)")
    p.add_argument("--pre-submission", action="store_true", help="vendor mode: end with a gap report")
    p.add_argument("--submitting-party", default=None, metavar="NAME",
                   help="certificate holder or vendor who submitted the device (default: the profile's)")
    p.add_argument("--lab", default=None, metavar="NAME", help="testing laboratory (default: the profile's)")
    p.add_argument("--operator", default=None, metavar="NAME", help="who ran the test, for the record")
    p.add_argument("--station", default=None, metavar="NAME", help="test station / bench, for the record")
    p.add_argument("--defect", action="append", default=[], metavar="NAME",
                   help="start the built-in emulators with this defect (see `tablecert defects`); repeatable")
    p.add_argument("--bench-twin", action="store_true",
                   help="run each emulated profile's bench twin: no test channel; a scripted operator, relays "
                        "and the bench supply perform every act (docs/device-profiles.md, 'The bench')")
    p.add_argument("--console", action="store_true",
                   help="with --bench-twin: rehearse the bench; the bench console and this terminal show every "
                        "prompt and you answer it, while the twin's scripted hands carry out the acts")
    p.add_argument("--resume", default=None, metavar="RUN",
                   help="continue an interrupted or killed run from its journal (a run folder, or a run id under "
                        "--report-dir): the cases it finished are not run again, the devices' identity is checked "
                        "first, the record gains a sitting (docs/record.md, 'Sittings')")
    p.add_argument("-k", dest="keyword", default=None, metavar="EXPR", help="only cases matching (pytest -k)")
    p.add_argument("-n", dest="workers", type=count(1, 64), default=0, metavar="N",
                   help="split cases over N emulator instances (pytest-xdist --dist loadfile)")
    p.add_argument("--jobs", type=count(1, 64), default=1, metavar="N",
                   help="run up to N profiles at once, each in its own pytest process with its own emulators "
                        "and record (default 1; not with a person answering a bench's prompts)")
    p.add_argument("-q", "--quiet", action="store_true", help="less pytest output")
    p.add_argument("--list", action="store_true",
                   help="list the cases the run would select for each profile, with the reason of each NOT "
                        "APPLICABLE one; run nothing")
    p.add_argument("--rerun-failed", default=None, metavar="RUN",
                   help="run only the cases RUN's record did not pass (FAIL, ERROR, TIMEOUT, ...), against its "
                        "profile unless --profile is given (like pytest --lf, from a record)")
    p.add_argument("--junitxml", default=None, metavar="PATH", help="write one JUnit XML file for every profile")
    p.add_argument("--json", dest="json_path", default=None, metavar="PATH",
                   help="write the run summary (each profile's verdict, exit status, tally, records) as JSON")


def _profiles(args: argparse.Namespace, root: Path) -> list[Path]:
    if args.profile:
        paths = [Path(p).absolute() for p in args.profile]  # as the user's shell means it, not the checkout
    else:
        paths = sorted((root / "device_profiles").glob("emulated-*.yaml"))
    for p in paths:
        if p.is_dir():
            raise InputError(f"--profile {p}: a directory; give the profile file (e.g. {p}/my-bench.yaml)")
        if not p.is_file():
            raise InputError(f"--profile {p}: no such file" if not p.exists() else
                             f"--profile {p}: not a regular file")
    if not paths:
        raise InputError("no device profile given and no device_profiles/emulated-*.yaml found")
    return paths


def _suites(args: argparse.Namespace, root: Path) -> list[str]:
    """Suite paths as given (``FILE::CASE`` node ids kept whole), each checked to exist and to be
    a suite (a file ``*.suite.yaml``, or a folder holding some)."""
    given = list(args.suites) or [str(root / "suites")]
    out = []
    for s in given:
        part, sep, case = s.partition("::")
        # the pytest process runs in the checkout: a relative path means the user's working directory
        path = Path(part).absolute()
        if not path.exists():
            raise InputError(f"{path}: no such suite file or directory")
        if sep and not path.is_file():
            raise InputError(f"{s}: FILE::CASE needs a suite file before '::'")
        if path.is_dir() and not any(path.rglob(f"*{SUITE_SUFFIX}")):
            raise InputError(f"{path}: no *{SUITE_SUFFIX} file in this folder")
        if not path.is_dir() and not path.name.endswith(SUITE_SUFFIX):
            raise InputError(f"{path}: {_what_file(path)}, not a suite (SUITES are *{SUITE_SUFFIX} files or "
                             "folders of them)")
        out.append(f"{path}{sep}{case}")
    return out


SUITE_SUFFIX = ".suite.yaml"


def _what_file(path: Path) -> str:
    """What a file given as a suite is, for the message (a profile given as SUITES is common)."""
    from harness.yamlload import YMap, load_yaml

    if not path.is_file():
        return "not a regular file"
    try:
        node = load_yaml(path)
    except InputError:
        return "not a suite file"
    spec = node.get("spec") if isinstance(node, YMap) else None
    if isinstance(spec, str) and spec.startswith("tablecert/profile/"):
        return "a device profile: give it with --profile"
    if isinstance(spec, str) and spec.startswith("tablecert/stacks/"):
        return "a stacks file (fixtures/stacks/): suites name its stacks"
    if isinstance(spec, str) and spec.startswith("tablecert/suite/"):
        return f"a suite whose name does not end in {SUITE_SUFFIX} (pytest collects only those): rename it"
    return "not a suite file"


def _report_root(args: argparse.Namespace, root: Path) -> Path:
    """``--report-dir``: a folder (made if missing) under an existing folder; a file, a device
    (``/dev/null``) or a path through a file is refused before anything runs."""
    if not args.report_dir:
        return root / "reports"
    path = Path(args.report_dir).absolute()
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        what = "is a file" if probe.is_file() else "is not a folder (a device, FIFO or socket)"
        where = "" if probe == path else f" ({probe} {what})"
        raise InputError(f"--report-dir {args.report_dir}: {what if probe == path else 'is under a file'}{where}; "
                         "give a folder where reports/<run-id>/ can be written")
    if not os.access(probe, os.W_OK):
        raise InputError(f"--report-dir {args.report_dir}: {probe} is not writable")
    return path


def run(args: argparse.Namespace) -> int:
    from harness.cli.run_progress import Progress, applicable_counts
    from harness.profiles import load_profile

    _check_names(args)
    if getattr(args, "resume", None):
        from harness.cli.run_resume import resume

        return resume(args)

    from harness.cli import run_list, run_summary

    root = project_root()
    run_summary.check_outputs(args)
    if args.rerun_failed:
        if args.suites:
            raise InputError("--rerun-failed takes the cases from the record: give no SUITES with it")
        args.suites, recorded = run_summary.rerun_selection(
            run_summary.run_folder(args.rerun_failed, _report_root(args, root)), root)
        if not args.profile and recorded:
            args.profile = [recorded]
    suites = _suites(args, root)
    paths = _profiles(args, root)
    profiles = [load_profile(p) for p in paths]  # validate up front: a bad profile is one line and exit 2
    if args.defect:
        from harness.emulators.defects import check_defects

        check_defects(args.defect)
        for prof in profiles:
            if not prof.is_emulated:
                raise InputError(f"--defect: profile {prof.name} reaches real devices; defects exist only in "
                                 "the built-in emulators")
    if getattr(args, "console", False) and not getattr(args, "bench_twin", False):
        raise InputError("--console rehearses a bench twin: give --bench-twin too (a bench profile's own "
                         "bench.operator says where its prompts go)")
    if getattr(args, "bench_twin", False):
        from harness.bench.twin import bench_twin

        if not args.profile:  # every built-in profile: a link has no bench twin (docs/linked-progressives.md)
            keep = [i for i, prof in enumerate(profiles) if prof.link is None]
            paths, profiles = [paths[i] for i in keep], [profiles[i] for i in keep]
        profiles = [bench_twin(prof) for prof in profiles]  # InputError for a profile with no emulator
    if args.list:  # after the bench twin: its N/A reasons are the bench's
        return run_list.list_cases(suites, args.keyword, profiles, root)
    passthrough = list(getattr(args, "passthrough", []) or [])
    report_root = _report_root(args, root)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    estimates = applicable_counts(suites, profiles)
    run_ids = run_ids_for(stamp, [prof.name or p.stem for prof, p in zip(profiles, paths, strict=True)])
    if run_list.collect_only(passthrough):
        listed = [ProfileRun(p.stem, p, report_root / rid, n) for p, rid, n in zip(paths, run_ids, estimates,
                                                                                   strict=True)]
        return run_list.run_collect_only(
            [(pr.name, _pytest_command(args, root, suites, pr, passthrough)) for pr in listed], root)
    rates = [run_summary.previous_case_seconds(report_root, rid.removeprefix(stamp + "-"), stamp) for rid in run_ids]
    run_ids, locks = reserve_run_ids(report_root, run_ids)  # unique and locked, even started the same second
    runs = [ProfileRun(p.stem, p, report_root / rid, n, lock=lock)
            for p, rid, n, lock in zip(paths, run_ids, estimates, locks, strict=True)]
    jobs = min(getattr(args, "jobs", 1) or 1, len(runs))
    if jobs > 1:
        _check_no_person(args, profiles)
    progress = Progress(runs, case_seconds=rates)
    interrupted = False
    with terminate_as_interrupt(), progress, contextlib.ExitStack() as held:
        for lock in locks:
            held.callback(lock.release)
        if jobs > 1:
            # the longest first (its previous record's rate, else the mean rate, times its cases): the
            # last profile to start is a short one, so the two job slots end close together
            mean = sum(r for r in rates if r is not None) / max(1, sum(r is not None for r in rates)) or 1.0
            order = sorted(range(len(runs)), key=lambda i: -(rates[i] or mean) * runs[i].estimate)
            interrupted = _run_at_once(runs, order, jobs,
                                       lambda pr: _pytest_command(args, root, suites, pr, passthrough),
                                       root, report_root, progress)
        else:
            for i, pr in enumerate(runs):
                cmd = _pytest_command(args, root, suites, pr, passthrough)
                progress.start(i)
                interrupted = run_profile(cmd, root, pr, progress)
                judge(pr)
                _index(pr, report_root)
                progress.finish(i)
                if interrupted:
                    break
    status = summary(runs, args.pre_submission, interrupted)
    run_summary.write_outputs(args, runs, status, OVERALL.get(status, "ERROR or INCOMPLETE"))
    return status


def _check_no_person(args: argparse.Namespace, profiles: list[Any]) -> None:
    """--jobs N > 1: no profile may prompt a person (one terminal cannot hold two benches' prompts)."""
    for prof in profiles:
        person = prof.bench.uses_operator and (prof.bench.operator.scripted is None or getattr(args, "console", False))
        if person:
            raise InputError(f"--jobs: profile {prof.name} prompts a person at the bench; run it with --jobs 1 "
                             "(one terminal answers one bench at a time)")


def _run_at_once(runs: list[ProfileRun], order: list[int], jobs: int, command: Any, root: Path,
                 report_root: Path, progress: Any) -> bool:
    """Run the profiles ``jobs`` at a time (``--jobs``): each in its own pytest process, emulators and
    record, judged and indexed as it ends; its pytest output is printed when it ends, whole (two
    profiles' lines never interleave).  Ctrl-C or SIGTERM stops every running profile the way a run
    of one is stopped (each writes its record) and starts no other; returns True then."""
    from concurrent.futures import ThreadPoolExecutor

    stop = threading.Event()
    running: dict[int, subprocess.Popen[bytes]] = {}
    guard = threading.Lock()

    def one(i: int) -> None:
        pr = runs[i]
        if stop.is_set():
            return
        progress.start(i)
        buffered = _Buffered(progress)
        run_profile(command(pr), root, pr, buffered, started=lambda proc: running.__setitem__(i, proc))
        running.pop(i, None)
        judge(pr)
        with guard:  # one writer of the history index at a time
            _index(pr, report_root)
        buffered.flush()
        progress.finish(i)

    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="profile")
    futures = [pool.submit(one, i) for i in order]
    try:
        for f in futures:
            f.result()
    except KeyboardInterrupt:
        stop.set()
        progress.note(f"tablecert run: interrupted; {', '.join(runs[i].name for i in sorted(running))} "
                      "writing their records (Ctrl-C again to stop them)")
        for i, proc in list(running.items()):
            runs[i].interrupted = True
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
        def kill_all() -> None:
            for proc in list(running.values()):
                proc.kill()

        with interrupts.again(kill_all):
            for f in futures:
                with contextlib.suppress(Exception):
                    f.result(timeout=INTERRUPT_GRACE_S + 30)
        pool.shutdown(wait=False, cancel_futures=True)
        return True
    pool.shutdown(wait=True)
    return False


class _Buffered:
    """A profile's view of the progress display while several run at once: its pytest output is
    kept and printed whole when it ends; everything else goes to the display."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress
        self.lines: list[str] = []
        self.hold = getattr(progress, "hold", None)

    def output(self, line: str) -> None:
        self.lines.append(line)

    def flush(self) -> None:
        for line in self.lines:
            self.progress.output(line)
        self.lines.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.progress, name)


def _check_names(args: argparse.Namespace) -> None:
    """--operator, --lab, --station, --submitting-party: text a record can hold and a reader can see."""
    from harness.textcheck import option_text_problem

    for opt in ("operator", "lab", "station", "submitting_party"):
        value = getattr(args, opt, None)
        problem = option_text_problem(value) if isinstance(value, str) else None
        if problem:
            raise InputError(f"--{opt.replace('_', '-')} {problem}")


#: room left in a run id (at most 80 characters) after the time stamp, for the profile's name and
#: a worker's suffix (``-gw12``) when the cases are split over emulator instances
RUN_NAME_CHARS = 50


def run_ids_for(stamp: str, names: list[str]) -> list[str]:
    """A run id per profile: the time stamp and the profile's ``name`` made file-safe and cut to
    :data:`RUN_NAME_CHARS` (a profile file may be called anything, ``bench table (v2).yaml``);
    two profiles of one name get ``-2``, ``-3``."""
    out: list[str] = []
    for name in names:
        base = f"{stamp}-{safe_name(name, 'profile')[:RUN_NAME_CHARS].rstrip('._-') or 'profile'}"
        rid, n = base, 1
        while rid in out:
            n += 1
            rid = f"{base}-{n}"
        out.append(rid)
    return out


def reserve_run_ids(report_root: Path, run_ids: list[str]) -> tuple[list[str], list[Any]]:
    """Each run id made unique and locked (harness.record.lock): another run holding or having made
    one (started in the same second) moves ours to ``-2``, ``-3``."""
    from harness.record.lock import reserve

    try:
        report_root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--report-dir {report_root}: cannot be made ({exc.strerror})") from None
    out: list[str] = []
    locks: list[Any] = []
    try:
        for rid in run_ids:
            got, lock = reserve(report_root, rid, set(out))
            out.append(got)
            locks.append(lock)
    except OSError as exc:
        for lock in locks:
            lock.release()
        raise InputError(f"--report-dir {report_root}: a run folder cannot be reserved there ({exc.strerror})") \
            from None
    return out, locks


def _pytest_command(args: argparse.Namespace, root: Path, suites: list[str], pr: ProfileRun,
                    passthrough: list[str]) -> list[str]:
    # no Hypothesis plugin: no suite uses it, and its end-of-session summary imports Hypothesis (0.2 s)
    cmd = [sys.executable, "-m", "pytest", *suites, "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
           "--rootdir", str(root), "-c", str(root / "pyproject.toml"),
           "--tc-profile", str(pr.path), "--tc-report-dir", str(pr.run_dir.parent), "--tc-run-id", pr.run_dir.name,
           "-o", "testpaths=", "-rfE", "--no-header", *pytest_colour(sys.stdout)]
    cmd += ["-q"] if args.quiet else []
    if args.keyword:
        cmd += ["-k", args.keyword]
    if args.workers:
        cmd += ["-n", str(args.workers), "--dist", "loadfile"]
    for opt in ("lab", "operator", "station", "submitting_party"):
        if getattr(args, opt):
            cmd += [f"--tc-{opt.replace('_', '-')}", getattr(args, opt)]
    for name in args.defect:
        cmd += ["--tc-defect", name]
    if args.pre_submission:
        cmd.append("--tc-pre-submission")
    if getattr(args, "bench_twin", False):
        cmd.append("--tc-bench-twin")
    if getattr(args, "console", False):
        cmd.append("--tc-bench-rehearsal")
    return cmd + passthrough


def _index(pr: ProfileRun, report_root: Path) -> None:
    """Index the profile's finished records in the run history (``tablecert history``).  The record
    on disk is what counts: an index that cannot be written costs a line on stderr, never the run."""
    from harness.history.index import index_run, open_index, url_for

    if not pr.dirs:
        return  # nothing was recorded: nothing to index, and no index made in an empty folder
    try:
        engine = open_index(url_for(report_root))
        for d in pr.dirs:
            index_run(engine, d)
    except Exception as exc:  # the index is a convenience: the record is kept whatever it says
        print(f"tablecert run: the history index was not updated ({str(exc)[:200]}); "
              f"`tablecert history --rebuild --reports {report_root}` indexes the records again", file=sys.stderr)


