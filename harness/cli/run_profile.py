"""One profile's pytest process in ``tablecert run`` (and ``tablecert run --resume``): running it
with its progress and the operator's terminal, judging its record, and the summary table of the
profiles' verdicts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from harness import exitcodes, interrupts
from harness.cli.run_summary import colour_on, paint
from harness.errors import InputError
from harness.verdict import Verdict

#: how long an interrupted profile may take to write its record before it is stopped
INTERRUPT_GRACE_S = 60.0


@dataclass
class ProfileRun:
    """One profile's pytest process and what came of it."""

    name: str
    path: Path
    run_dir: Path
    estimate: int
    exit_code: int | None = None
    seconds: float = 0.0
    done: int = 0
    applicable_done: int = 0
    collected: int | None = None
    interrupted: bool = False
    verdict: str = Verdict.NOT_RUN
    status: int = exitcodes.RIG_ERROR
    reasons: list[str] = field(default_factory=list)
    tally: dict[str, int] = field(default_factory=dict)
    where: str = ""
    dirs: list[Path] = field(default_factory=list)
    #: the run folder's lock (harness.record.lock), handed to the pytest process
    lock: Any = None


def terminate_as_interrupt() -> Any:
    """SIGTERM or SIGHUP to ``tablecert run`` is handled like Ctrl-C (the running profile keeps its record)."""
    from harness.interrupts import stop_signals

    return stop_signals()


def run_profile(cmd: list[str], root: Path, pr: ProfileRun, progress: Any,
                 started: Any = None) -> bool:
    """Run one profile's pytest; returns True when the operator interrupted it.  ``started`` is
    called with the process once it runs (``--jobs``: the main thread stops it on Ctrl-C, and no
    profile reads the terminal: none prompts a person)."""
    from harness.bench.relay import TerminalRelay

    # the operator's terminal is ours
    relay = TerminalRelay(progress.note, hold=getattr(progress, "hold", None),
                          terminal=False if started is not None else None)
    read_fd, write_fd = os.pipe()
    cmd = [*cmd, "--tc-progress-fd", str(write_fd)]
    env = {**os.environ, interrupts.PARENT_ENV: str(os.getpid()), **(pr.lock.environment() if pr.lock else {})}
    t0 = time.monotonic()
    # its own session: the terminal's Ctrl-C reaches only us, and we pass exactly one interrupt on
    # (a second keypress reaching pytest while it writes the record would cut the record short)
    # and it dies with us (harness.interrupts.die_with_parent): it watches the pid given here
    proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL,
                            pass_fds=(write_fd, relay.child_fd(), *([pr.lock.fd] if pr.lock else [])),
                            start_new_session=True,
                            env={**env, **({} if _split_over_workers(cmd) else relay.env())})
    os.close(write_fd)
    if started is not None:
        started(proc)
    relay.start()
    assert proc.stdout is not None
    readers = [threading.Thread(target=_pump_output, args=(proc.stdout, progress), daemon=True),
               threading.Thread(target=_pump_progress, args=(read_fd, pr, progress), daemon=True)]
    for t in readers:
        t.start()
    interrupted = False
    try:
        pr.exit_code = proc.wait()
    except KeyboardInterrupt:
        interrupted = pr.interrupted = True
        progress.note(f"tablecert run: interrupted; {pr.name} is writing its record (Ctrl-C again to stop it)")
        # SIGTERM, never SIGINT: a script without job control ignores SIGINT, and so would pytest
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        with interrupts.again(proc.kill):  # a second Ctrl-C stops it: its journal keeps the finished cases
            try:
                pr.exit_code = proc.wait(timeout=INTERRUPT_GRACE_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                pr.exit_code = proc.wait(timeout=10)
    interrupts.reap_group(proc.pid)  # its emulators, when it was killed before it could stop them
    for t in readers:
        t.join(timeout=10)
    relay.close()
    pr.seconds = time.monotonic() - t0
    return interrupted


def _split_over_workers(cmd: list[str]) -> bool:
    """The cases are split over xdist workers (``-n``): no bench prompt is relayed to them."""
    return "-n" in cmd


def _pump_output(stream: IO[bytes], progress: Any) -> None:
    for raw in iter(stream.readline, b""):
        progress.output(raw.decode("utf-8", "replace").rstrip("\n"))
    stream.close()


def _pump_progress(fd: int, pr: ProfileRun, progress: Any) -> None:
    import json

    with os.fdopen(fd, "rb") as stream:
        for raw in stream:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if "collected" in event:
                pr.collected = int(event.get("applicable", event["collected"]))
            elif "done" in event:
                pr.done += 1
                if event.get("outcome") != Verdict.NOT_APPLICABLE:
                    pr.applicable_done += 1
            progress.update(pr, event)


def judge(pr: ProfileRun) -> None:
    """The profile's verdict and exit status, from its record (merging worker records first)."""
    from harness.record import load_record, verify
    from harness.record.hostfault import unfinished_verdict
    from harness.record.merge import merge_records

    rdir = pr.run_dir
    parts = sorted(rdir.parent.glob(rdir.name + "-gw*"))
    if not rdir.is_dir() and parts:
        try:
            merge_records(parts, rdir)
        except (InputError, OSError) as exc:
            pr.reasons.append(f"the worker records could not be merged: {exc}")
    pr.dirs = [rdir] if rdir.is_dir() else parts
    if not pr.dirs:
        # no record: pytest refused the input (usage error, nothing selected) or could not start
        if pr.interrupted or pr.exit_code == 2:
            pr.verdict, pr.status = Verdict.INTERRUPTED, exitcodes.INTERRUPTED
        elif pr.exit_code in (4, 5):
            pr.verdict, pr.status = Verdict.NOT_RUN, exitcodes.BAD_INPUT
            pr.reasons.append("nothing was run: see pytest's message above")
        else:
            pr.verdict, pr.status = Verdict.ERROR, exitcodes.RIG_ERROR
            pr.reasons.append(f"pytest ended with status {pr.exit_code} and wrote no record")
        return
    statuses = []
    for d in pr.dirs:
        record = load_record(d)
        for c in record.cases:
            pr.tally[c.verdict] = pr.tally.get(c.verdict, 0) + 1
        unfinished = unfinished_verdict(record, d, pr.exit_code, pr.interrupted)
        if unfinished is not None:  # killed, disk full: an ERROR (exit 3) or INTERRUPTED, resumable
            statuses.append(unfinished)
            continue
        problems = verify(d)
        if problems:
            verdict, reasons = "INVALID", [f"the record does not verify: {problems[0]}"]
        else:
            verdict, reasons = record.derived_verdict()
        whole = not parts and not record.merged_from and \
            sum(c.verdict != Verdict.NOT_APPLICABLE for c in record.cases) >= (pr.collected or 0)
        if pr.interrupted and verdict != Verdict.INTERRUPTED and whole:
            # the stop came after every selected case had its verdict (harness.suites.run.session): the record decides
            reasons = [*reasons, "stopped after every selected case had finished: the record is whole"]
        elif pr.interrupted and verdict != Verdict.INTERRUPTED:
            verdict, reasons = Verdict.INTERRUPTED, ["the run was interrupted", *reasons]
        statuses.append((exitcodes.for_verdict(verdict), verdict, reasons))
    worst = exitcodes.worst(*(s[0] for s in statuses))
    status, verdict, reasons = next(s for s in statuses if s[0] == worst)
    pr.status, pr.verdict = status, verdict
    if verdict != Verdict.PASS:
        pr.reasons.extend(reasons)
    html = pr.dirs[0] / "record.html"
    pr.where = str(html if len(pr.dirs) == 1 and html.exists() else
                   (f"{rdir}-gw* ({len(pr.dirs)} records)" if len(pr.dirs) > 1 else rdir))


OVERALL = {exitcodes.PASS: Verdict.PASS, exitcodes.PARTIAL: Verdict.PARTIAL, exitcodes.FAIL: Verdict.FAIL,
           exitcodes.BAD_INPUT: "BAD INPUT",
           exitcodes.RIG_ERROR: "ERROR or INCOMPLETE", exitcodes.INTERRUPTED: Verdict.INTERRUPTED}


def summary(runs: list[ProfileRun], pre_submission: bool, interrupted: bool) -> int:
    colour = colour_on(sys.stdout)
    print("\nprofile                      verdict      pass fail error skip  n/a    time  record")
    for pr in runs:
        t = pr.tally
        cells = [t.get(Verdict.PASS, 0), t.get(Verdict.FAIL, 0), t.get(Verdict.ERROR, 0) + t.get(Verdict.TIMEOUT, 0),
                 t.get(Verdict.SKIP, 0) + t.get(Verdict.INTERRUPTED, 0) + t.get(Verdict.INCONCLUSIVE, 0),
                 t.get(Verdict.NOT_APPLICABLE, 0)]
        counts = " ".join(f"{n:>4}" for n in cells) if pr.dirs else f"{'-':>4} " * 4 + f"{'-':>4}"
        secs = f"{pr.seconds:6.1f}s" if pr.exit_code is not None else "      -"
        print(f"{pr.name:<28} {paint(f'{pr.verdict:<11}', pr.verdict, colour)} {counts} {secs}  {pr.where or '-'}")
        for reason in pr.reasons:
            print(f"{'':<28}   {reason}")
        for d in pr.dirs:
            gap = d / "gap-report.md"
            if pre_submission and gap.exists() and pr.verdict != Verdict.PASS:
                print(f"\n{gap}:\n")
                print(gap.read_text("utf-8"))
    ran = [pr for pr in runs if pr.exit_code is not None]
    status = exitcodes.worst(*(pr.status for pr in ran)) if ran else exitcodes.RIG_ERROR
    skipped = [pr.name for pr in runs if pr.exit_code is None]
    if interrupted and (skipped or any(pr.status == exitcodes.INTERRUPTED for pr in ran)):
        print("\ntablecert run: INTERRUPTED" + (f"; not run: {', '.join(skipped)}" if skipped else ""),
              file=sys.stderr)
        return exitcodes.INTERRUPTED
    overall = OVERALL[status]
    print(f"\noverall: {paint(overall, overall, colour)} (exit {status})")
    return status
