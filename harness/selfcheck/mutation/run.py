"""The mutation score of the suites: every mutant emulator is certified, and must fail.

Steps (``tablecert defects --mutants``):

1. **Enumerate** the mutants of the device-side emulator code (:mod:`harness.selfcheck.mutation.scope`,
   :mod:`harness.selfcheck.mutation.operators`), ids ``module:line:col:operator``.
2. **Trace** (unless ``trace=False``): every built-in emulated profile, every choice profile
   (:data:`CHOICE_PROFILES`: the Rules Submission choices no built-in profile makes) and the bench
   twin run every suite once against the clean emulator with the line trace on
   (:mod:`harness.selfcheck.mutation.hook`).  Each run must pass
   (as the kill matrix's clean runs); it tells, per profile, which cases ran each line.  Nothing of
   it is kept between invocations.
3. **Run** each mutant: on each profile whose trace ran its line, the cases that ran it (all of the
   profile's passing cases when the line ran while the emulator started, before any request),
   stopping at the first case that does not pass (``-x``).  A mutant whose line no profile ran
   changes nothing any suite sees: NOT-COVERED, without a run.  Without the trace every passing
   case of every profile runs, in profile order.
4. **Judge**: KILLED by a FAIL (a compliance verdict, the honest kill); killed by ERROR (a rig
   verdict: the device answered nonsense or an internal error), by TIMEOUT (a case or the run
   ran past its deadline) or by CRASH (the emulator did not start); otherwise SURVIVED.  The
   runs reuse the kill matrix's runner (:func:`harness.selfcheck.killmatrix.run_subprocess`): each its own
   pytest process, its own emulator, its own record, ended with its process group at the deadline.

The score is killed / (all - equivalent), with every kind of kill counted: a compliant survivor
(the behaviour changes within what the regulation permits) counts as not killed.  It is printed
also with the compliant survivors left out like the equivalent ones, and with FAIL kills alone.
The reviewed reasons of the survivors are :mod:`harness.selfcheck.mutation.survivors`.
"""

from __future__ import annotations

import ast
import json
import random
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from harness.errors import InputError
from harness.selfcheck import killmatrix
from harness.selfcheck.mutation import batch_host, scope
from harness.selfcheck.mutation.hook import MUTANT_ENV, STARTUP, TRACE_ENV
from harness.selfcheck.mutation.operators import Point, enumerate_module
from harness.verdict import Verdict

#: the built-in emulated profiles, in the order a mutant is tried on them; the link of four tables
#: runs the table code a single table never does (a common meter's contributions, its claims)
PROFILES = ("emulated-midi-5", "emulated-midi-5-mystery", "emulated-midi-1", "emulated-ez-baccarat",
            "emulated-hit-and-run", "emulated-mini-baccarat", "emulated-link-4")
#: the choice profiles: built-in tables with the Rules Submission choices no built-in profile makes
#: (an attendant-paid mystery, meters reset at the hit, the dealer stopping, a button-only lock-out, ...);
#: traced too, and tried after the built-in profiles that run a line, so a mutant whose change shows
#: only under such a choice is run where the choice is made
CHOICE_PROFILES = ("fixtures/mutation/midi-5-mystery-choices.yaml", "fixtures/mutation/midi-5-choices.yaml",
                   "fixtures/mutation/hit-and-run-choices.yaml")
#: bench twins (no test channel: the scripted operator's hands, the remote acts a device refuses),
#: traced too; a mutant is tried on one only where no profile of :data:`PROFILES` runs its line
BENCH_TWINS = ("emulated-midi-5-mystery" + killmatrix.TWIN_SUFFIX,)
KILLS = ("KILLED", "ERROR", "TIMEOUT", "CRASH")
DEFAULT_DEADLINE_S = 240.0
CASECLOCK = ("-p", "harness.selfcheck.mutation.caseclock")
#: pytest's assertion rewriting and the hypothesis plugin cost seconds per run and decide nothing
#: here (a verdict is the harness's ComplianceFailure, not a rewritten assert)
LEAN = ("--assert=plain", "-p", "no:hypothesispytest")
#: mutants run one after another in one certification process (harness.selfcheck.mutation.batch_plugin)
BATCH_SIZE = 8
#: a mutant that survives is tried on at most this many of the profiles that run its line (None: on
#: all of them; a kill that needs one kind of table, a Hit and Run settlement, is then never missed)
MAX_PROFILES: int | None = None
GAME_OF = {"emulated-midi-5": "royal9", "emulated-midi-5-mystery": "royal9", "emulated-midi-1": "royal9",
           "emulated-ez-baccarat": "ez-baccarat", "emulated-hit-and-run": "hit-and-run",
           "emulated-mini-baccarat": "streak3", "emulated-link-4": "link"}

Runner = Callable[[killmatrix.Job, float], killmatrix.JobResult]


def all_points() -> list[Point]:
    """Every mutant of the scope, module by module in :data:`scope.MODULES` order."""
    points: list[Point] = []
    for module in scope.MODULES:
        source = scope.source_path(module).read_text(encoding="utf-8")
        points += enumerate_module(module, source, scope.excluded(module))
    return points


def choose(points: Sequence[Point], ids: Iterable[str] = (), sample: int | None = None,
           seed: int = 0, among: Callable[[Point], bool] | None = None) -> list[Point]:
    """The mutants named by ``ids`` (an unknown one is bad input), else a sample, else all."""
    wanted = list(dict.fromkeys(ids))
    by_id = {p.id: p for p in points}
    if wanted:
        unknown = [i for i in wanted if i not in by_id]
        if unknown:
            raise InputError(f"mutant {unknown[0]!r}: no such mutant of the current source "
                             f"(`tablecert defects --mutants --list` lists the {len(points)})")
        return [by_id[i] for i in wanted]
    pool = [p for p in points if among is None or among(p)]
    if sample is not None:
        if sample < 1:
            raise InputError(f"--sample {sample}: at least 1")
        return sorted(random.Random(seed).sample(pool, min(sample, len(pool))), key=points.index)
    return pool


# -- the trace ----------------------------------------------------------------------------------

@dataclass
class Trace:
    """One profile's clean, traced run: the cases that passed and what each case ran."""

    profile: str
    passed: list[str] = field(default_factory=list)
    #: module -> line -> case node ids that ran it (``None`` among them: while starting)
    lines: dict[str, dict[int, set[str | None]]] = field(default_factory=dict)
    result: killmatrix.JobResult | None = None
    #: how many lines ran, when the trace is read back from a result (``--collect``) without them
    lines_ran: int | None = None

    def line_count(self) -> int:
        """How many lines of the mutated modules ran in the traced run."""
        return self.lines_ran if self.lines_ran is not None else sum(len(v) for v in self.lines.values())

    def ran(self, point: Point, end_line: int) -> set[str | None]:
        """The cases that ran the point's lines (``None``: the emulator's start)."""
        hits = self.lines.get(point.module, {})
        ran: set[str | None] = set()
        for line in range(point.line, end_line + 1):
            ran |= hits.get(line, set())
        return ran

    def cases_for(self, point: Point, end_line: int) -> list[str]:
        """The passing cases to run ``point`` on, in run order ([]: this profile never ran it)."""
        ran = self.ran(point, end_line)
        if not ran:
            return []
        if None in ran:
            return list(self.passed)
        return [c for c in self.passed if c in ran]


def trace_job(profile: str, directory: Path) -> killmatrix.Job:
    return killmatrix.job_for(profile, extra_args=(*LEAN, *CASECLOCK), env=((TRACE_ENV, str(directory)),))


def read_trace(profile: str, directory: Path, result: killmatrix.JobResult) -> Trace:
    trace = Trace(profile, result=result)
    cases_file = directory / "cases.json"
    if not cases_file.is_file():
        return trace
    cases = json.loads(cases_file.read_text(encoding="utf-8"))
    ids: list[str] = cases["ids"]
    trace.passed = list(dict.fromkeys(cases["passed"]))
    for path in sorted(directory.glob("lines-*.json")):
        for module, lines in json.loads(path.read_text(encoding="utf-8")).items():
            into = trace.lines.setdefault(module, {})
            for line, epochs in lines.items():
                names = {None if e == STARTUP else ids[e - 1] if 0 < e <= len(ids) else None for e in epochs}
                into.setdefault(int(line), set()).update(names)
    return trace


def run_traces(profiles: Sequence[str], runner: Runner, jobs: int, deadline_s: float) -> list[Trace]:
    with tempfile.TemporaryDirectory(prefix="tablecert-mutants-trace-") as tmp:
        dirs = {p: Path(tmp) / p.replace("/", "_") for p in profiles}
        for d in dirs.values():
            d.mkdir()
        results = killmatrix.run_jobs([trace_job(p, dirs[p]) for p in profiles], runner, jobs, deadline_s)
        return [read_trace(r.job.table, dirs[r.job.table], r) for r in results]


def trace_problems(trace: Trace) -> list[str]:
    """Why a profile's trace cannot select cases (empty: it can).  A clean case that did not pass
    is no such reason: it cannot kill a mutant, so it is left out of every selection (and listed
    by :func:`trace_left_out`)."""
    assert trace.result is not None
    problems = [trace.result.error] if trace.result.error else []
    if not trace.passed:
        problems.append("no case passed on the clean emulator")
    elif not trace.lines:
        problems.append("the trace recorded no line (was the emulator started?)")
    return problems


def trace_left_out(trace: Trace) -> list[str]:
    """The clean cases that did not pass in the traced run (never selected)."""
    assert trace.result is not None
    return [f"{c.case_id} {c.verdict}" for c in trace.result.cases if c.verdict in killmatrix.BAD]


# -- running the mutants ------------------------------------------------------------------------

@dataclass
class MutantOutcome:
    point: Point
    verdict: str  # KILLED, ERROR, TIMEOUT, CRASH, SURVIVED, NOT-COVERED
    profile: str | None = None
    by: str | None = None
    cases_run: int = 0
    seconds: Decimal = Decimal(0)
    detail: str = ""

    @property
    def killed(self) -> bool:
        return self.verdict in KILLS


def judge(result: killmatrix.JobResult) -> tuple[str, str | None, str]:
    """One run of a mutant: its verdict, the case that decided it, and why."""
    for c in result.cases:
        if c.verdict == Verdict.FAIL:
            return "KILLED", c.case_id, (c.message or "")[:300]
    for c in result.cases:
        if c.verdict == Verdict.ERROR and c.message and "could not be opened" in c.message:
            return "CRASH", c.case_id, c.message[:300]
    for c in result.cases:
        if c.verdict in (Verdict.TIMEOUT, Verdict.ERROR):
            return c.verdict, c.case_id, (c.message or "")[:300]
    if result.error:
        return ("TIMEOUT" if result.error.startswith("deadline") else "CRASH"), None, result.error[:300]
    return "SURVIVED", None, ""


def mutant_job(point: Point, profile: str, cases: Sequence[str]) -> killmatrix.Job:
    return killmatrix.job_for(profile, targets=tuple(cases), extra_args=(*LEAN, "-x"),
                              env=((MUTANT_ENV, point.id),))


def plan_point(point: Point, end_line: int, traces: Sequence[Trace] | None,
               profiles: Sequence[str], max_profiles: int | None = MAX_PROFILES) -> list[tuple[str, list[str]]]:
    """(profile, cases) to try, in order; [] when no trace ran the mutant's line.

    The profile whose trace ran the line in the most cases first; then, up to ``max_profiles``
    (``None``: all), the others, a profile of another kind of table before one of the same kind.
    A line run only while the emulator started is tried on every profile that ran it.  A bench
    twin's trace (:data:`BENCH_TWINS`) serves only a line no other trace ran."""
    if traces is None:
        chosen: list[tuple[str, list[str]]] = [(p, []) for p in profiles]
        return chosen if max_profiles is None else chosen[:max_profiles]
    plain = [t for t in traces if not t.profile.endswith(killmatrix.TWIN_SUFFIX)]
    if any(t.ran(point, end_line) for t in plain):
        traces = plain
    plan = sorted(((t.profile, c) for t in traces if (c := t.cases_for(point, end_line))),
                  key=lambda pc: -len(pc[1]))
    if all(t.ran(point, end_line) <= {None} for t in traces):
        # run only while the emulator started: which profile's cases see what it set is unknown,
        # so every profile that ran it is tried
        max_profiles = None
    # a choice profile after the built-in ones: its choices are what it adds
    later = [pc for pc in plan if pc[0] in CHOICE_PROFILES]
    plan = [pc for pc in plan if pc[0] not in CHOICE_PROFILES]
    ordered: list[tuple[str, list[str]]] = []
    while plan:
        kinds = {GAME_OF.get(p, p) for p, _ in ordered}
        pick = next((pc for pc in plan if GAME_OF.get(pc[0], pc[0]) not in kinds), plan[0])
        plan.remove(pick)
        ordered.append(pick)
    ordered += later
    return ordered if max_profiles is None else ordered[:max_profiles]


def run_point(point: Point, plan: Sequence[tuple[str, list[str]]], runner: Runner,
              deadline_s: float) -> MutantOutcome:
    if not plan:
        return MutantOutcome(point, "NOT-COVERED", detail="no suite on any profile of the run runs this line")
    t0 = time.monotonic()
    total = 0
    for profile, cases in plan:
        result = runner(mutant_job(point, profile, cases), deadline_s)
        total += len(result.cases)
        verdict, by, detail = judge(result)
        if verdict != "SURVIVED":
            return MutantOutcome(point, verdict, profile, by, total, _seconds(time.monotonic() - t0), detail)
    return MutantOutcome(point, "SURVIVED", None, None, total, _seconds(time.monotonic() - t0),
                         "passed on " + ", ".join(p for p, _ in plan))


@dataclass
class Score:
    outcomes: list[MutantOutcome]
    traces: list[Trace]
    wall_seconds: Decimal
    jobs: int
    total_points: int
    reasons: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # id -> (verdict, why)
    problems: list[str] = field(default_factory=list)
    #: the traced clean runs' share of the wall time (one certification of every profile)
    trace_seconds: Decimal = Decimal(0)

    def count(self, verdict: str) -> int:
        return sum(1 for o in self.outcomes if o.verdict == verdict)

    def reviewed(self, verdict: str) -> list[MutantOutcome]:
        """Survivors whose reviewed reason (survivors.yaml) is ``verdict``."""
        return [o for o in self.outcomes if not o.killed and self.reasons.get(o.point.id, ("",))[0] == verdict]

    @property
    def equivalent(self) -> list[MutantOutcome]:
        return self.reviewed("equivalent")

    @property
    def compliant(self) -> list[MutantOutcome]:
        return self.reviewed("compliant")

    @property
    def unobservable(self) -> list[MutantOutcome]:
        return self.reviewed("unobservable")

    @property
    def unexplained(self) -> list[MutantOutcome]:
        """Survivors with no reviewed reason: each needs a sharper case or an argument."""
        return [o for o in self.outcomes if not o.killed and o.point.id not in self.reasons]

    @property
    def killed(self) -> int:
        return sum(1 for o in self.outcomes if o.killed)

    def score(self, fail_only: bool = False, *, compliant_out: bool = False) -> Decimal:
        """killed / (all - equivalent), in percent: a compliant survivor counts as not killed.  With
        ``compliant_out`` the compliant survivors leave the denominator too (a device built that way
        would rightly pass); with ``fail_only`` only FAIL kills count."""
        denominator = len(self.outcomes) - len(self.equivalent) - (len(self.compliant) if compliant_out else 0)
        kills = self.count("KILLED") if fail_only else self.killed
        return Decimal(0) if denominator <= 0 else (Decimal(100) * kills / denominator).quantize(Decimal("0.1"))


def run_mutants(points: Sequence[Point], *, jobs: int = 2, runner: Runner = killmatrix.run_subprocess,
                deadline_s: float = DEFAULT_DEADLINE_S, trace: bool = True,
                profiles: Sequence[str] = PROFILES + CHOICE_PROFILES + BENCH_TWINS,
                reasons: Mapping[str, tuple[str, str]] | None = None,
                progress: Callable[[str], None] | None = None, max_profiles: int | None = MAX_PROFILES,
                on_outcome: Callable[[MutantOutcome], None] | None = None, batch_size: int = BATCH_SIZE,
                traces: list[Trace] | None = None,
                passed_before: Mapping[str, Mapping[str, int]] | None = None,
                on_passed: Callable[[Point, str, int, Decimal], None] | None = None) -> Score:
    """Trace (unless ``traces`` of this same run are given), then run every mutant of ``points``;
    see the module docstring.  ``passed_before`` (mutant id: {profile: cases run}) are profiles an
    earlier sitting certified the mutant on without a finding: they are left out of its plan (a
    mutant that passed its whole plan is SURVIVED at once); ``on_passed`` hears each such pass of
    this run."""
    t0 = time.monotonic()
    say = progress or (lambda text: None)
    problems: list[str] = []
    if trace and traces is None:
        say(f"trace: the clean emulators on {len(profiles)} profile(s)")
        traces = run_traces(profiles, runner, jobs, deadline_s * 2)
        for t in traces:
            problems += [f"{t.profile}: {p}" for p in trace_problems(t)]
        if problems:
            return Score([], traces, _seconds(time.monotonic() - t0), jobs, len(points), reasons or {}, problems,
                         _seconds(time.monotonic() - t0))
    trace_seconds = _seconds(time.monotonic() - t0)
    ends = _end_lines(points)
    say(f"mutants: {len(points)}")
    plans = {p.id: plan_point(p, ends[p.id], traces, profiles, max_profiles) for p in points}
    earlier = {p.id: dict((passed_before or {}).get(p.id, {})) for p in points}
    whole = {pid: [profile for profile, _ in plan] for pid, plan in plans.items()}
    plans = {pid: [(profile, cases) for profile, cases in plan if profile not in earlier[pid]]
             for pid, plan in plans.items()}
    outcomes: dict[str, MutantOutcome] = {}
    lock = threading.Lock()

    def finish(outcome: MutantOutcome) -> None:
        with lock:
            outcomes[outcome.point.id] = outcome
            n = len(outcomes)
        if on_outcome is not None:
            on_outcome(outcome)
        say(f"[{n}/{len(points)}] {outcome.point.id} {outcome.verdict}"
            f"{' by ' + outcome.by if outcome.by else ''} ({outcome.seconds} s)")

    for p in points:
        if whole[p.id] and not plans[p.id]:  # every profile of its plan passed in earlier sittings
            finish(MutantOutcome(p, "SURVIVED", None, None, sum(earlier[p.id].values()), Decimal(0),
                                 "passed on " + ", ".join(whole[p.id]) + " (earlier sittings)"))
        elif not plans[p.id]:
            finish(run_point(p, [], runner, deadline_s))
    if batch_size <= 1 or traces is None:  # without a trace each run is every suite: one mutant a run
        with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="mutants") as pool:
            list(pool.map(lambda p: finish(run_point(p, plans[p.id], runner, deadline_s)),
                          [p for p in points if plans[p.id]]))
    else:
        def single(point: Point, rest: list[tuple[str, list[str]]]) -> tuple[str, str | None, str, str | None]:
            o = run_point(point, rest, runner, deadline_s)
            return o.verdict, o.by, o.detail, o.profile

        def done(point: Point, verdict: str, profile: str | None, by: str | None, cases_run: int,
                 seconds: Decimal, detail: str) -> None:
            before = earlier[point.id]
            if verdict == "SURVIVED" and before:
                detail += " (and " + ", ".join(before) + " in earlier sittings)"
            finish(MutantOutcome(point, verdict, profile, by, cases_run + sum(before.values()), seconds, detail))

        batch_host.run_stages(points, plans, runner=runner, jobs=jobs, deadline_s=deadline_s, size=batch_size,
                              lean=LEAN, judge=judge, single=single, done=done, passed=on_passed)
    return Score([outcomes[p.id] for p in points], traces or [], _seconds(time.monotonic() - t0), jobs,
                 len(points), reasons or {}, problems, trace_seconds)


def _end_lines(points: Sequence[Point]) -> dict[str, int]:
    """Each point's last source line (a condition or call over several lines)."""
    ends: dict[str, int] = {}
    for module in {p.module for p in points}:
        tree = ast.parse(scope.source_path(module).read_text(encoding="utf-8"))
        spans: dict[tuple[int, int], int] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.expr | ast.stmt) and not isinstance(
                    node, ast.FunctionDef | ast.ClassDef | ast.If | ast.For | ast.While | ast.With | ast.Try):
                key = (node.lineno, node.col_offset)
                spans[key] = max(spans.get(key, node.lineno), node.end_lineno or node.lineno)
        for p in points:
            if p.module == module:
                ends[p.id] = spans.get((p.line, p.col), p.line)
    return ends


def _seconds(value: float) -> Decimal:
    return Decimal(str(round(value, 1)))
