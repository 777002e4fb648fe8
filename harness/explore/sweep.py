"""The explorer against the emulator's named defects: each one's time to a finding and shrunk length,
and the short self-check CI runs (``tablecert explore --selfcheck``).

Each defect is explored on the shipped profile of its kind of table (the kill matrix's,
:data:`harness.selfcheck.killmatrix.PROFILE_FOR_TABLE`), from a fresh emulator per sequence, until the first
difference from the model or the budget.  A defect the explorer cannot reach is listed with the
reason (:func:`out_of_reach`), never run as a miss: its table is one the model does not play, or its
effect shows only in statistics of many shuffles.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from harness.emulators.defects import DEFECTS
from harness.explore.explorer import Session, explore
from harness.explore.model import unsupported
from harness.profiles import load_profile
from harness.selfcheck.killmatrix import PROFILE_FOR_TABLE, profile_path

#: kinds of table whose defects the explorer's operations cannot show, and why
NOT_PLAYED = {
    "shuffler": "its effect is a property of many shuffles (tablecert randomness); the explorer loads its own cards",
    "streak3": "the three-games wager is not modelled (the explorer never places it)",
}


@dataclass
class Row:
    profile: str
    defect: str | None
    #: "found", "missed", "clean" (no finding, as wanted), "FALSE FINDING", "error", "out of reach"
    result: str
    found_after_s: float | None = None
    shrunk_ops: int | None = None
    rule: str | None = None
    operations: int = 0
    wall_s: float = 0.0
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.result in ("found", "clean", "out of reach")


def out_of_reach(defect: str) -> str | None:
    """Why the explorer cannot show ``defect``, or None."""
    d = DEFECTS[defect]
    if d.table in NOT_PLAYED:
        return NOT_PLAYED[d.table]
    profile = load_profile(profile_path(PROFILE_FOR_TABLE[d.table]))
    why = unsupported(profile)
    return None if why is None else f"the model cannot play {why}"


def run_one(profile: str, defect: str | None, *, budget_s: float, seed: int, shrink_s: float,
            steps: int = 120) -> Row:
    """One exploration; a clean one must find nothing, a defect's must find it."""
    t0 = time.perf_counter()
    session = Session(load_profile(profile_path(profile)), defect=defect, steps=steps, shrink_s=shrink_s)
    try:
        result = explore(session, seed=seed, budget_s=budget_s)
    finally:
        session.close()
    wall = time.perf_counter() - t0
    row = Row(profile, defect, "", operations=result.stats.ops, wall_s=wall)
    if result.error is not None:
        row.result, row.note = "error", result.error
        return row
    f = result.finding
    if f is None:
        row.result = "clean" if defect is None else "missed"
        return row
    row.result = "found" if defect is not None else "FALSE FINDING"
    row.found_after_s, row.shrunk_ops = result.to_find_s, len(f.ops)
    row.rule = f.differences[0].rule
    row.note = f.differences[0].text()[:200]
    return row


def sweep(names: Iterable[str], *, budget_s: float, seed: int, shrink_s: float,
          out: Callable[[Row], None] | None = None) -> list[Row]:
    rows = []
    for name in names:
        why = out_of_reach(name)
        profile = PROFILE_FOR_TABLE[DEFECTS[name].table]
        row = Row(profile, name, "out of reach", note=why) if why else run_one(
            profile, name, budget_s=budget_s, seed=seed, shrink_s=shrink_s)
        rows.append(row)
        if out is not None:
            out(row)
    return rows


HEADER = f"{'profile':<23} {'defect':<32} {'result':<13} {'found after':>11} {'shrunk':>6} {'ops':>6} " \
         f"{'wall':>6}  rule / note"


def line(row: Row) -> str:
    after = f"{row.found_after_s:.1f} s" if row.found_after_s is not None else "-"
    shrunk = str(row.shrunk_ops) if row.shrunk_ops is not None else "-"
    tail = row.rule or ""
    if row.note and row.result != "found":
        tail = f"{tail} {row.note}".strip()
    return (f"{row.profile:<23} {row.defect or '(clean)':<32} {row.result:<13} {after:>11} {shrunk:>6} "
            f"{row.operations:>6} {row.wall_s:>5.0f}s  {tail}")


#: the self-check: two shipped profiles clean, and a sample of defects the explorer must find (the
#: lock-out's timing, a lock-out that never comes, the reset key, wagering refused too early), each found
#: within seconds by the sweep (benchmarks/explore_defects.py) so that a short budget is not a lottery
SELFCHECK_PROFILES = ("emulated-midi-5", "emulated-midi-1")
SELFCHECK_DEFECTS = (("emulated-midi-5", "lockout-late"), ("emulated-midi-5", "lockout-missing"),
                     ("emulated-midi-1", "reset-key-idle-resets"), ("emulated-midi-1", "lockout-early"))
SELFCHECK_CLEAN_S = 15.0
SELFCHECK_DEFECT_S = 30.0
SELFCHECK_SHRINK_S = 2.0


def _selfcheck_row(profile: str, defect: str | None, seed: int) -> Row:
    budget = SELFCHECK_CLEAN_S if defect is None else SELFCHECK_DEFECT_S
    return run_one(profile, defect, budget_s=budget, seed=seed, shrink_s=SELFCHECK_SHRINK_S)


def selfcheck(seed: int, out: Callable[[str], None] = print, jobs: int = 2) -> int:
    """Clean runs must find nothing, the sample's defects must each be found: 0, else 1.  The runs go
    ``jobs`` at a time, each in a process of its own (an exploration is one busy Python thread: two in
    one process would share one core); the rows are printed in the self-check's order."""
    out(f"tablecert explore --selfcheck (seed {seed}): clean {SELFCHECK_CLEAN_S:.0f} s per profile, "
        f"each defect within {SELFCHECK_DEFECT_S:.0f} s, {jobs} at once")
    out(HEADER)
    t0 = time.perf_counter()
    plan = [(profile, None) for profile in SELFCHECK_PROFILES] + list(SELFCHECK_DEFECTS)
    deadline_s = SELFCHECK_DEFECT_S + SELFCHECK_SHRINK_S + 300  # a run's budget, its shrink, start and stop
    with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_selfcheck_row, profile, defect, seed) for profile, defect in plan]
        rows: list[Row] = []
        for (profile, defect), future in zip(plan, futures, strict=True):
            try:
                rows.append(future.result(timeout=deadline_s))
            except Exception as exc:  # a run that broke or overran is an error row, never a pass
                rows.append(Row(profile, defect, "error", note=f"{type(exc).__name__}: {exc}"))
            out(line(rows[-1]))
    bad = [r for r in rows if not r.ok]
    out(f"{len(rows) - len(bad)}/{len(rows)} as expected in {time.perf_counter() - t0:.0f} s"
        + (f"; NOT: {', '.join((r.defect or 'clean ' + r.profile) + ' ' + r.result for r in bad)}" if bad else ""))
    return 1 if bad else 0


def write_table(rows: list[Row], path: Path) -> None:
    path.write_text("\n".join([HEADER, *(line(r) for r in rows)]) + "\n", encoding="utf-8")
