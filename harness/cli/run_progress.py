"""Progress of ``tablecert run`` across profiles, with an estimate of the time left.

Each profile's pytest process reports every finished case on a pipe (``--tc-progress-fd``, see
:mod:`harness.plugin`); the estimate counts the cases that apply to each profile (those NOT
APPLICABLE take no time) and divides the time spent so far by the applicable cases finished.  On a
terminal the display is a live bar drawn by rich, with pytest's own output printed above it; off a
terminal (CI logs, a pipe) it is plain lines: one at most every :data:`PLAIN_EVERY_S` seconds
while a profile runs, and one when it ends (its verdict, the time it took and the time left).

Where the previous record of the same profile exists (``case_seconds``: its seconds per applicable
case, :func:`harness.cli.run_summary.previous_case_seconds`), the time left counts each profile's
cases at that profile's own rate; a resumed or a narrowed run is then not estimated from the rate
of a slower profile, nor from the first case's start-up alone.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.verdict import Verdict

#: seconds between plain progress lines off a terminal
PLAIN_EVERY_S = 30.0

#: pytest's lines that every profile would repeat and that say nothing the profile's own line does
#: not: the session header, the collection count, the progress dots, the closing tally (its verdict
#: and counts are in the profile's line); failures, errors and warnings are kept
_CHATTER = re.compile(
    r"^\s*$"
    r"|^=+ test session starts =+$"
    r"|^collect(ed|ing) .*\d+ items?.*$"
    r"|^created: \d+/\d+ workers?$|^\d+ workers? \[\d+ items?\]$"
    r"|^(\S+\.yaml )?[.FEsxXn]+\s*(\[\s*\d+%\])?$"
    r"|^=* ?(\d+ [a-z ]+,? ?)+ in [\d.]+s( \([\d:]+\))? ?=*$"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def is_chatter(line: str) -> bool:
    """A line of pytest's output the run's display leaves out (see :data:`_CHATTER`)."""
    return bool(_CHATTER.match(_ANSI.sub("", line)))


def tally_text(tally: dict[str, int]) -> str:
    """``4 pass, 3 n/a``: a profile's cases by verdict, NOT APPLICABLE never called skipped."""
    order = (Verdict.PASS, Verdict.FAIL, Verdict.ERROR, Verdict.TIMEOUT, Verdict.INCONCLUSIVE, Verdict.SKIP,
             Verdict.INTERRUPTED, Verdict.NOT_APPLICABLE)
    names: dict[str, str] = {Verdict.NOT_APPLICABLE: "n/a"}
    keys = [k for k in order if tally.get(k)] + sorted(k for k in tally if k not in order and tally[k])
    return ", ".join(f"{tally[k]} {names.get(k, k.lower())}" for k in keys)


def applicable_counts(suites: Sequence[str], profiles: Sequence[Any]) -> list[int]:
    """For each profile, how many of the selected cases apply to it (the estimate's unit of work).

    A suite that cannot be loaded counts as nothing here: pytest reports it properly.
    """
    from harness.errors import InputError
    from harness.games.interpretations import Interpretations
    from harness.suites.load.applicability import not_applicable
    from harness.suites.load.schema import expand_suites, load_suite

    cases = []
    for given in suites:
        path, _, only = given.partition("::")
        try:
            for file in expand_suites([Path(path)]):
                cases += [c for c in load_suite(file).cases if not only or c.name == only]
        except (InputError, OSError):
            continue
    out = []
    for profile in profiles:
        interp = Interpretations.from_overrides(dict(profile.interpretations))
        out.append(sum(1 for c in cases if not_applicable(profile, interp, c) is None))
    return out


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds + 0.5))
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m" if h else (f"{m}m{s:02d}s" if m else f"{s}s")


class Progress:
    """Overall progress over the profile runs (``ProfileRun`` objects of :mod:`harness.cli.run_profile`)."""

    def __init__(self, runs: Sequence[Any], *, stream: Any = None, live: bool | None = None,
                 case_seconds: Sequence[float | None] | None = None) -> None:
        self.runs = list(runs)
        self.case_seconds = list(case_seconds) if case_seconds is not None else [None] * len(self.runs)
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self._current = 0
        #: the profiles running now (``--jobs``: several) and those ended
        self._running: set[int] = set()
        self._ended: set[int] = set()
        self._last_plain = 0.0
        self._rich: Any = None
        self._task: Any = None

    # -- the estimate ---------------------------------------------------------------------------
    def totals(self) -> tuple[int, int]:
        """(applicable cases finished, applicable cases in all profiles)."""
        done = sum(r.applicable_done for r in self.runs)
        total = sum(max(r.collected if r.collected is not None else r.estimate, r.applicable_done)
                    for r in self.runs)
        return done, max(total, done)

    def remaining_s(self) -> float | None:
        done = self.totals()[0]
        measured = (time.monotonic() - self._t0) / done if done else None
        left = 0.0
        for run, previous in zip(self.runs, self.case_seconds, strict=True):
            cases = run.collected if run.collected is not None else run.estimate
            todo = max(cases - run.applicable_done, 0)
            if not todo:
                continue
            rate = previous if previous is not None else measured
            if rate is None:
                return None
            left += todo * rate
        return left

    def describe(self) -> str:
        done, total = self.totals()
        left = self.remaining_s()
        eta = f", about {_clock(left)} left" if left is not None else ""
        return (f"{self._which()}: {done}/{total} applicable cases,"
                f" {_clock(time.monotonic() - self._t0)} elapsed{eta}")

    def _which(self) -> str:
        """``[3/7] emulated-midi-5``; with several profiles running at once ``[3,4/7] a, b``."""
        now = sorted(self._running) or [self._current]
        return (f"[{','.join(str(i + 1) for i in now)}/{len(self.runs)}] "
                + ", ".join(self.runs[i].name for i in now))

    # -- display --------------------------------------------------------------------------------
    def __enter__(self) -> Progress:
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._rich = RichProgress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("cases"),
                TimeElapsedColumn(), TextColumn("{task.fields[eta]}"),
                console=Console(file=self.stream), transient=True,
            )
            self._rich.__enter__()
            self._task = self._rich.add_task("tablecert run", total=self.totals()[1], eta="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._rich is not None:
            self._rich.__exit__(None, None, None)
            self._rich = None

    def _print(self, line: str) -> None:
        with self._lock:
            if self._rich is not None:
                self._rich.console.print(line, markup=False, highlight=False, soft_wrap=True)
            else:
                self.stream.write(line + "\n")
                self.stream.flush()

    def output(self, line: str) -> None:
        """A line of a profile's pytest output (its repeated chatter left out: :func:`is_chatter`)."""
        if is_chatter(line):
            return
        if self._rich is not None and "\x1b[" in line:
            from rich.text import Text

            with self._lock:
                self._rich.console.print(Text.from_ansi(line), soft_wrap=True)
            return
        self._print(line)

    def note(self, line: str) -> None:
        self._print(line)

    def hold(self, on: bool) -> None:
        """Stop the live bar while a person answers a prompt on the terminal (``on``), start it again after."""
        with self._lock:
            if self._rich is None:
                return
            if on:
                self._rich.stop()
            else:
                self._rich.start()

    def _refresh(self) -> None:
        if self._rich is not None:
            done, total = self.totals()
            left = self.remaining_s()
            self._rich.update(self._task, completed=done, total=total, description=self._which(),
                              eta=f"~{_clock(left)} left" if left is not None else "")
        elif time.monotonic() - self._last_plain >= PLAIN_EVERY_S:
            self._last_plain = time.monotonic()
            self._print("-- " + self.describe())

    def start(self, index: int) -> None:
        with self._lock:
            self._current = index
            self._running.add(index)
        self._last_plain = time.monotonic()
        self._refresh()  # one line per profile: its end (off a terminal; on one, the bar names it)

    def update(self, run: Any, event: dict[str, Any]) -> None:
        self._refresh()

    def finish(self, index: int) -> None:
        run = self.runs[index]
        with self._lock:
            self._running.discard(index)
            self._ended.add(index)
        todo = len(self.runs) - len(self._ended)
        left = self.remaining_s() if todo else None
        eta = f"; about {_clock(left)} left for {todo} profile(s)" if left else ""
        tally = tally_text(getattr(run, "tally", {}) or {})
        self._print(f"== [{index + 1}/{len(self.runs)}] {run.name}: {run.verdict} in {_clock(run.seconds)}"
                    + (f" ({tally})" if tally else "") + eta)
        self._refresh()
