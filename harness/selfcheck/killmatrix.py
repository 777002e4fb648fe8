"""The kill matrix: every emulator defect fails a suite case that cites the clause it breaks (issue 6).

A certification harness that passes a non-compliant device is worse than none.  The proof is run
here: first the clean emulators must pass every case selected for the matrix; then, for each
named defect (:data:`harness.emulators.defects.DEFECTS`), the cases citing the defect's catalogue
clauses run against emulators with that one defect switched on, and at least one of them must end
FAIL.

Only a FAIL counts.  A FAIL is a compliance failure: a measurement held against the regulation
did not hold.  An ERROR or a TIMEOUT is a problem of the rig (a device stopped answering, a wait
ran out); it proves nothing about whether the suites notice a non-compliant device, so a defect
that only ever produces ERROR or TIMEOUT is MISSED.  Those verdicts are listed next to the row
(``not counted``) so a reader sees them, with the first line of each one's message.  A defect run
that catches nothing and ended on such verdicts (or past its deadline) is made once more, alone;
the row says so and shows the first run's verdicts (on a shared, loaded machine a wait can run out
without the suites having judged anything).

Each run is a separate ``pytest suites --tc-profile P --tc-clause C... [--tc-defect NAME]``
process with its own emulator instance and record directory, started in its own session so a run
past its deadline is ended with its emulator (its process group), and read back through
:func:`harness.record.journal.load_record`.  ``jobs`` runs go at once.  Which shipped profile a
defect runs on follows from the kind of table its requirement exists on
(:attr:`harness.emulators.defects.Defect.table`, :data:`PROFILE_FOR_TABLE`).
"""

from __future__ import annotations

import functools
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness.bench.twin import bench_twin
from harness.emulators.defects import DEFECTS, Defect, check_defects
from harness.errors import InputError
from harness.games.interpretations import Interpretations
from harness.profiles import load_profile
from harness.record.journal import load_record
from harness.selfcheck.jobs import child_env, run_job
from harness.suites.load.applicability import not_applicable
from harness.suites.load.schema import expand_suites, load_suite
from harness.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]

#: the shipped profile each kind of table is proven on
PROFILE_FOR_TABLE = {
    "royal9": "emulated-midi-5",
    "mystery": "emulated-midi-5-mystery",
    "baccarat": "emulated-ez-baccarat",
    "ez-baccarat": "emulated-ez-baccarat",
    "hit-and-run": "emulated-hit-and-run",
    "shuffler": "emulated-midi-5",
    "link": "emulated-link-4",
    "streak3": "emulated-mini-baccarat",
}

#: verdicts of a case that are not a pass (a skipped case is neither a pass nor a catch)
BAD = (Verdict.FAIL, Verdict.ERROR, Verdict.TIMEOUT)
DEFAULT_DEADLINE_S = 300.0


@dataclass(frozen=True)
class Job:
    """One certification run: the profile, the clause selection and the defect (``None``: clean);
    ``bench_twin``: on the profile's bench twin (no test channel, the scripted operator)."""

    profile: str
    clauses: tuple[str, ...]
    defect: str | None = None
    #: pytest node ids to run instead of every suite (the mutation score selects cases)
    targets: tuple[str, ...] = ()
    #: more pytest arguments (``-x``, ``-p PLUGIN``)
    extra_args: tuple[str, ...] = ()
    #: environment of the run (and of the emulator it starts), on top of this one's
    env: tuple[tuple[str, str], ...] = ()
    bench_twin: bool = False

    @property
    def label(self) -> str:
        return f"{self.defect or 'clean'} on {self.profile}" + (" (bench twin)" if self.bench_twin else "")

    @property
    def table(self) -> str:
        """The profile this job runs, its bench twin named ``PROFILE+bench-twin`` (:func:`job_for`)."""
        return self.profile + (TWIN_SUFFIX if self.bench_twin else "")


#: the suffix of a profile name that means its bench twin (``emulated-midi-5+bench-twin``)
TWIN_SUFFIX = "+bench-twin"


def job_for(table: str, **fields: Any) -> Job:
    """A clean job on ``table``: a profile name, or ``PROFILE+bench-twin`` for its bench twin."""
    return Job(table.removesuffix(TWIN_SUFFIX), (), bench_twin=table.endswith(TWIN_SUFFIX), **fields)


@dataclass(frozen=True)
class CaseOutcome:
    case_id: str
    verdict: str
    clauses: tuple[str, ...]
    message: str | None = None


@dataclass
class JobResult:
    job: Job
    cases: list[CaseOutcome] = field(default_factory=list)
    seconds: Decimal = Decimal(0)
    #: why the run itself went wrong (deadline, crash, no record), else ``None``
    error: str | None = None

    def count(self, verdict: str) -> int:
        return sum(1 for c in self.cases if c.verdict == verdict)


@dataclass
class KillRow:
    """One defect's line of the matrix."""

    defect: Defect
    profile: str
    caught_by: list[str]
    not_counted: list[tuple[str, str]]
    error: str | None
    seconds: Decimal
    #: bench twin only: why no case citing the defect's clauses can run on a bench (every one needs an
    #: act no one on a bench performs), so no bench can catch it this way
    off_bench: str | None = None
    #: the first line of each not-counted case's message (printed under a MISSED row: the rig's words)
    reasons: dict[str, str] = field(default_factory=dict)
    #: the row was run twice: the first run ended on rig verdicts only; what they were
    retried: str | None = None

    @property
    def caught(self) -> bool:
        return bool(self.caught_by)


@dataclass
class KillMatrix:
    clean: list[JobResult]
    rows: list[KillRow]
    wall_seconds: Decimal
    jobs: int

    @property
    def clean_ok(self) -> bool:
        return all(clean_problems(r) == [] for r in self.clean)

    bench_twin: bool = False

    @property
    def passed(self) -> bool:
        """Every defect caught (on bench twins: every defect a bench can catch, the others listed)."""
        return self.clean_ok and bool(self.rows) and all(r.caught or r.off_bench for r in self.rows) \
            and any(r.caught for r in self.rows)


Runner = Callable[[Job, float], JobResult]


# -- planning -----------------------------------------------------------------------------------

def profile_of(defect: Defect, tables: Mapping[str, str] | None = None) -> str:
    """The profile a defect runs on: ``tables`` (kind of table -> profile name or path, e.g. the
    variants of ``tablecert variants``) where it names the defect's kind, else the shipped one."""
    if tables and defect.table in tables:
        return tables[defect.table]
    return PROFILE_FOR_TABLE[defect.table]


def plan(names: Iterable[str] = (), tables: Mapping[str, str] | None = None,
         bench_twin: bool = False) -> tuple[list[Job], list[Job]]:
    """The clean runs (one per profile, every clause its defects break) and the defect runs."""
    chosen = list(dict.fromkeys(names))
    check_defects(chosen)
    defects = [DEFECTS[n] for n in chosen] if chosen else list(DEFECTS.values())
    per_profile: dict[str, dict[str, None]] = {}
    runs = []
    for d in defects:
        profile = profile_of(d, tables)
        per_profile.setdefault(profile, {}).update(dict.fromkeys(d.clauses))
        runs.append(Job(profile, d.clauses, d.name, bench_twin=bench_twin))
    clean = [Job(p, tuple(c), None, bench_twin=bench_twin) for p, c in per_profile.items()]
    return clean, runs


def profile_path(profile: str) -> Path:
    return Path(profile) if profile.endswith(".yaml") else ROOT / "device_profiles" / f"{profile}.yaml"


def off_bench(job: Job) -> str | None:
    """On a bench twin: why none of the cases citing the job's clauses can run (each needs an act
    no one on a bench performs: a device fault, the shuffler's read-out) or why those a bench runs
    cannot see the defect (its ``off_bench``, a named limit of bench observation), or None."""
    reasons = []
    no_twin = _no_twin(job.profile)
    if no_twin is not None:
        return no_twin
    defect = DEFECTS.get(job.defect or "")
    if defect is not None and defect.off_bench:
        return defect.off_bench
    for clauses, on_table, on_bench in _twin_cases(job.profile):
        if not set(job.clauses) & clauses or not on_table:
            continue  # not citing the clauses, or not for this table at all
        if on_bench is None or "no performer on this bench" not in on_bench:
            return None
        reasons.append(on_bench)
    return "; ".join(dict.fromkeys(reasons)) or None


@functools.cache
def _no_twin(profile: str) -> str | None:
    """Why the profile has no bench twin at all (a link of tables), or None."""
    try:
        bench_twin(load_profile(profile_path(profile)))
    except InputError as exc:
        return exc.message
    return None


@functools.cache
def _twin_cases(profile: str) -> tuple[tuple[frozenset[str], bool, str | None], ...]:
    """Every shipped case: its clauses, whether it applies to the profile's table, and why it does not
    run on the profile's bench twin (None: it runs)."""

    plain = load_profile(profile_path(profile))
    twin = bench_twin(plain)
    interp = Interpretations.from_overrides(dict(twin.interpretations))
    out = []
    for path in expand_suites([ROOT / "suites"]):
        for case in load_suite(path, profile=twin).cases:
            out.append((frozenset(case.clauses), not_applicable(plain, interp, case) is None,
                        not_applicable(twin, interp, case)))
    return tuple(out)


# -- judging ------------------------------------------------------------------------------------

def clean_problems(result: JobResult) -> list[str]:
    """Why a clean run does not pass (empty: it passed)."""
    problems = [f"{c.case_id} {c.verdict}" for c in result.cases if c.verdict in BAD]
    if result.error:
        problems.insert(0, result.error)
    if not result.error and not any(c.verdict == Verdict.PASS for c in result.cases):
        problems.append("no case passed")
    return problems


def judge(defect: Defect, result: JobResult) -> KillRow:
    """CAUGHT when some case citing one of the defect's clauses ended FAIL."""
    cited = set(defect.clauses)
    caught = [c.case_id for c in result.cases if c.verdict == Verdict.FAIL and cited & set(c.clauses)]
    other = [(c.case_id, c.verdict) for c in result.cases
             if c.verdict in BAD and c.case_id not in caught]
    reasons = {c.case_id: (c.message or "").strip().splitlines()[0][:300] for c in result.cases
               if c.verdict in BAD and c.case_id not in caught and (c.message or "").strip()}
    return KillRow(defect, result.job.profile, caught, other, result.error, result.seconds, reasons=reasons)


# -- running ------------------------------------------------------------------------------------

def pytest_command(job: Job, report_dir: Path) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", *(job.targets or ("suites",)),
           "--tc-profile", str(profile_path(job.profile)), "--tc-report-dir", str(report_dir), "-q",
           "-p", "no:cacheprovider", *job.extra_args]
    for clause in job.clauses:
        cmd += ["--tc-clause", clause]
    if job.defect:
        cmd += ["--tc-defect", job.defect]
    if job.bench_twin:
        cmd.append("--tc-bench-twin")
    return cmd


def read_cases(report_dir: Path) -> list[CaseOutcome]:
    """The cases of the one run recorded under ``report_dir``."""
    runs = sorted(p for p in report_dir.iterdir() if p.is_dir())
    if len(runs) != 1:
        raise FileNotFoundError(f"{report_dir}: expected one run directory, found {len(runs)}")
    record = load_record(runs[0])
    return [CaseOutcome(c.case_id, c.verdict, tuple(c.clauses), c.message) for c in record.cases]


def run_subprocess(job: Job, deadline_s: float) -> JobResult:
    """Run ``job`` as its own pytest process (own emulator, own record), within ``deadline_s``."""
    t0 = time.monotonic()
    result = JobResult(job)
    with tempfile.TemporaryDirectory(prefix="tablecert-matrix-") as tmp:
        report_dir = Path(tmp) / "record"
        log = Path(tmp) / "pytest.log"
        ended = run_job(pytest_command(job, report_dir), ROOT, log, child_env(dict(job.env)), deadline_s)
        if ended.past_deadline:
            result.error = f"deadline: not finished within {deadline_s:g} s (stopped)"
        try:
            result.cases = read_cases(report_dir) if report_dir.is_dir() else []
        except Exception as exc:  # an unreadable record is a broken run, reported as such
            result.error = result.error or f"no readable record: {exc}"
        if not result.cases and result.error is None:
            tail = log.read_text(errors="replace").strip().splitlines()[-3:]
            result.error = f"no case recorded (pytest exit {ended.returncode}): {' / '.join(tail)}"
    result.seconds = _seconds(time.monotonic() - t0)
    return result


def run_jobs(jobs: Sequence[Job], runner: Runner, workers: int, deadline_s: float) -> list[JobResult]:
    """Every job through ``runner``, ``workers`` at a time, in the order given."""
    if not jobs:
        return []
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="kill-matrix") as pool:
        return list(pool.map(lambda j: runner(j, deadline_s), jobs))


def defect_workers(jobs: int) -> int:
    """Defect runs at once: one more than ``jobs``.  A defect run is a whole pytest process and emulator
    for a few clause-selected cases (5.4 s on average in CI, 2 to 3 s of it CPU): at ``jobs`` runs the
    machine sat about half idle through the matrix's 69 runs.  The clean runs, whose every case must
    pass, keep ``jobs``; a defect run the rig decides (ERROR, TIMEOUT) is run again alone."""
    return jobs + 1


def run_matrix(names: Iterable[str] = (), *, jobs: int = 2, runner: Runner = run_subprocess,
               deadline_s: float = DEFAULT_DEADLINE_S,
               progress: Callable[[str], None] | None = None, tables: Mapping[str, str] | None = None,
               bench_twin: bool = False) -> KillMatrix:
    """The clean runs first; the defect runs only when every clean run passed.  ``tables`` runs the
    defects of each kind of table on that profile instead of the shipped one (the variants);
    ``bench_twin`` runs everything on the profiles' bench twins (a defect no case a bench can run
    cites is listed with the reason instead of being run)."""
    t0 = time.monotonic()
    clean_jobs, defect_jobs = plan(names, tables, bench_twin)
    unrunnable = {j.defect: why for j in defect_jobs if bench_twin and (why := off_bench(j))}
    clean_jobs = [j for j in clean_jobs if not bench_twin or off_bench(j) is None]
    if progress:
        progress(f"clean runs: {len(clean_jobs)} profile(s)" + (" (bench twins)" if bench_twin else ""))
    clean = run_jobs(clean_jobs, runner, jobs, deadline_s)
    rows: list[KillRow] = []
    if all(clean_problems(r) == [] for r in clean):
        runnable = [j for j in defect_jobs if j.defect not in unrunnable]
        workers = defect_workers(jobs)
        if progress:
            progress(f"defect runs: {len(runnable)}, {workers} at once" + (f" ({len(unrunnable)} no bench can catch)"
                                                                            if unrunnable else ""))
        results = {r.job.defect: r for r in run_jobs(runnable, runner, workers, deadline_s)}
        for j in defect_jobs:
            defect = DEFECTS[j.defect or ""]
            if j.defect in unrunnable:
                rows.append(KillRow(defect, j.profile, [], [], None, Decimal(0), unrunnable[j.defect]))
                continue
            row = judge(defect, results[j.defect])
            if not row.caught and (row.not_counted or row.error):
                # the rig, not the suites, decided the run (ERROR, TIMEOUT, a deadline): it proves
                # nothing either way, so the run is made once more, alone, and both are shown
                first = row
                row = judge(defect, runner(j, deadline_s))
                row.retried = (", ".join(f"{c} {v}" for c, v in first.not_counted)
                               or first.error or "") + "".join(f"; {c}: {w}" for c, w in first.reasons.items())
            rows.append(row)
    return KillMatrix(clean, rows, _seconds(time.monotonic() - t0), jobs, bench_twin)


def _seconds(value: float) -> Decimal:
    return Decimal(str(round(value, 1)))


# -- output -------------------------------------------------------------------------------------

def render(matrix: KillMatrix) -> str:
    """The matrix as text: the clean runs, one row per defect, the totals and the wall time."""
    lines = ["Clean emulators (the selected cases must all pass):"]
    for run in matrix.clean:
        problems = clean_problems(run)
        state = Verdict.PASS if not problems else Verdict.FAIL
        why = f": {'; '.join(problems)}" if problems else ""
        lines.append(f"  {_name(run.job.profile):<26} {state}  {run.count(Verdict.PASS)} passed, "
                     f"{run.count(Verdict.SKIP)} skipped, {len(run.job.clauses)} clause(s), {run.seconds} s{why}")
    if not matrix.clean_ok:
        lines.append("The clean emulators do not pass: the defect runs were not started.")
    if matrix.rows:
        lines.append("")
        lines.append("A defect is CAUGHT only by a FAIL of a case citing a clause it breaks; "
                     "ERROR and TIMEOUT are rig verdicts and do not count.")
        w_name = max(len(r.defect.name) for r in matrix.rows)
        w_prof = max(len(_name(r.profile)) for r in matrix.rows)
        lines.append(f"{'DEFECT':<{w_name}}  {'PROFILE':<{w_prof}}  VERDICT    CLAUSE(S) -> CAUGHT BY")
        for r in matrix.rows:
            verdict = "CAUGHT" if r.caught else "OFF-BENCH" if r.off_bench else "MISSED"
            by = ", ".join(r.caught_by) if r.caught_by else (
                f"no case a bench can run: {r.off_bench}" if r.off_bench else "no FAIL citing the clause")
            extra = ""
            if r.not_counted:
                extra += "; not counted: " + ", ".join(f"{c} {v}" for c, v in r.not_counted)
            if r.error:
                extra += f"; run: {r.error}"
            if r.retried is not None:
                extra += f"; run again alone after rig verdicts ({r.retried[:400]})"
            lines.append(f"{r.defect.name:<{w_name}}  {_name(r.profile):<{w_prof}}  {verdict:<9}  "
                         f"{' '.join(r.defect.clauses)} -> {by}{extra} ({r.seconds} s)")
            if not r.caught:
                lines += [f"    {case}: {why}" for case, why in r.reasons.items()]
        caught = sum(r.caught for r in matrix.rows)
        away = sum(1 for r in matrix.rows if r.off_bench and not r.caught)
        lines.append(f"\n{caught}/{len(matrix.rows) - away} defect(s) caught"
                     + (f"; {away} no bench can catch (every case citing their clauses needs an act no one on "
                        "a bench performs, or observes what a bench cannot: each row says why)" if away else ""))
    mode = " on bench twins" if matrix.bench_twin else ""
    lines.append(f"kill matrix{mode} {'PASSED' if matrix.passed else 'FAILED'}; wall time {matrix.wall_seconds} s "
                 f"({matrix.jobs} job(s) at once)")
    return "\n".join(lines)


def _name(profile: str) -> str:
    """A profile as the matrix shows it: its file's stem when it is a path."""
    return Path(profile).stem if profile.endswith(".yaml") else profile


def to_json(matrix: KillMatrix) -> dict[str, Any]:
    return {
        "passed": matrix.passed,
        "wall_seconds": str(matrix.wall_seconds),
        "jobs": matrix.jobs,
        "clean": [{"profile": j.job.profile, "clauses": list(j.job.clauses), "passed": not clean_problems(j),
                   "problems": clean_problems(j), "seconds": str(j.seconds), "error": j.error,
                   "cases": [{"case": c.case_id, "verdict": c.verdict} for c in j.cases]} for j in matrix.clean],
        "bench_twin": matrix.bench_twin,
        "defects": [{"name": r.defect.name, "profile": r.profile, "clauses": list(r.defect.clauses),
                     "verdict": "CAUGHT" if r.caught else "OFF-BENCH" if r.off_bench else "MISSED",
                     "off_bench": r.off_bench, "caught_by": r.caught_by,
                     "not_counted": [{"case": c, "verdict": v} for c, v in r.not_counted],
                     "retried_after": r.retried, "reasons": r.reasons,
                     "error": r.error, "seconds": str(r.seconds)} for r in matrix.rows],
    }


def merge_json(docs: Sequence[Mapping[str, Any]], order: Sequence[str]) -> KillMatrix:
    """One matrix from the ``to_json`` results of shards that split the defects ``order`` (the
    whole run's selection, in its order): the rows of every shard, in that order; per profile one
    clean run holding every shard's cases of it (each shard's clean run cites its own defects'
    clauses; together they are the whole run's).  When a clean run does not pass the whole run
    starts no defect run, so then no row is kept either; the wall time is the longest shard's."""
    position = {name: i for i, name in enumerate(order)}
    rows: list[KillRow] = []
    for doc in docs:
        for r in doc["defects"]:
            rows.append(KillRow(DEFECTS[r["name"]], r["profile"], list(r["caught_by"]),
                                [(c["case"], c["verdict"]) for c in r["not_counted"]], r["error"],
                                Decimal(r["seconds"]), r["off_bench"], dict(r.get("reasons") or {}),
                                r["retried_after"]))
    rows.sort(key=lambda row: position.get(row.defect.name, len(position)))
    bench_twin = any(bool(doc.get("bench_twin")) for doc in docs)
    first_row: dict[str, int] = {}
    for i, row in enumerate(rows):
        first_row.setdefault(_name(row.profile), i)
    clean: dict[str, JobResult] = {}
    for doc in docs:
        for c in doc["clean"]:
            key = _name(c["profile"])
            have = clean.get(key)
            if have is None:
                have = clean[key] = JobResult(Job(c["profile"], (), None, bench_twin=bench_twin))
            clauses = dict.fromkeys([*have.job.clauses, *c["clauses"]])
            have.job = Job(have.job.profile, tuple(clauses), None, bench_twin=bench_twin)
            known = {case.case_id for case in have.cases}
            have.cases += [CaseOutcome(case["case"], case["verdict"], ()) for case in c["cases"]
                           if case["case"] not in known]
            have.seconds += Decimal(c["seconds"])
            have.error = have.error or c.get("error")
    runs = sorted(clean.values(), key=lambda j: first_row.get(_name(j.job.profile), len(rows)))
    wall = max((Decimal(doc["wall_seconds"]) for doc in docs), default=Decimal(0))
    jobs = max((int(doc["jobs"]) for doc in docs), default=1)
    if not all(clean_problems(r) == [] for r in runs):
        rows = []
    return KillMatrix(runs, rows, wall, jobs, bench_twin)
