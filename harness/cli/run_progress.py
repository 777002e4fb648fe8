"""Progress of ``tablecert run`` across profiles, with an estimate of the time left.

Each profile's pytest process reports every finished case on a pipe (``--tc-progress-fd``, see
:mod:`harness.plugin`); the estimate counts the cases that apply to each profile (those NOT
APPLICABLE take no time) and divides the time spent so far by the applicable cases finished.  On a
terminal the display is a live bar drawn by rich, with pytest's own output printed above it; off a
terminal (CI logs, a pipe) it is plain lines: one when a profile starts, one at most every
:data:`PLAIN_EVERY_S` seconds while it runs, and one when it ends.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: seconds between plain progress lines off a terminal
PLAIN_EVERY_S = 30.0


def applicable_counts(suites: Sequence[str], profiles: Sequence[Any]) -> list[int]:
    """For each profile, how many of the selected cases apply to it (the estimate's unit of work).

    A suite that cannot be loaded counts as nothing here: pytest reports it properly.
    """
    from harness.errors import InputError
    from harness.games.interpretations import Interpretations
    from harness.suites.schema import expand_suites, load_suite
    from harness.suites.session import not_applicable

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
    """Overall progress over the profile runs (``ProfileRun`` objects of :mod:`harness.cli.run_cmd`)."""

    def __init__(self, runs: Sequence[Any], *, stream: Any = None, live: bool | None = None) -> None:
        self.runs = list(runs)
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self._current = 0
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
        done, total = self.totals()
        if done == 0:
            return None
        return (time.monotonic() - self._t0) / done * (total - done)

    def describe(self) -> str:
        done, total = self.totals()
        run = self.runs[self._current]
        left = self.remaining_s()
        eta = f", about {_clock(left)} left" if left is not None else ""
        return (f"[{self._current + 1}/{len(self.runs)}] {run.name}: {done}/{total} applicable cases,"
                f" {_clock(time.monotonic() - self._t0)} elapsed{eta}")

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
        """A line of a profile's pytest output."""
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
            run = self.runs[self._current]
            self._rich.update(self._task, completed=done, total=total,
                              description=f"[{self._current + 1}/{len(self.runs)}] {run.name}",
                              eta=f"~{_clock(left)} left" if left is not None else "")
        elif time.monotonic() - self._last_plain >= PLAIN_EVERY_S:
            self._last_plain = time.monotonic()
            self._print("-- " + self.describe())

    def start(self, index: int) -> None:
        self._current = index
        run = self.runs[index]
        self._last_plain = time.monotonic()
        what = f"{run.estimate} applicable case(s)" if run.estimate else "the cases left are being counted"
        self._print(f"== [{index + 1}/{len(self.runs)}] {run.name}: {what}")
        self._refresh()

    def update(self, run: Any, event: dict[str, Any]) -> None:
        self._refresh()

    def finish(self, index: int) -> None:
        run = self.runs[index]
        left = self.remaining_s() if index + 1 < len(self.runs) else None
        eta = f"; about {_clock(left)} left for {len(self.runs) - index - 1} profile(s)" if left else ""
        self._print(f"== [{index + 1}/{len(self.runs)}] {run.name}: {run.verdict} in {_clock(run.seconds)}{eta}")
        self._refresh()
