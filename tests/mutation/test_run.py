"""The mutation run's own logic with a fake runner (no emulator), the hook, the survivors file and
the command line.  The real run against mutant emulators is test_mutation_sample.py (slow)."""

from __future__ import annotations

import importlib.util
import json
import threading
from decimal import Decimal
from pathlib import Path

import pytest

from harness.cli import main
from harness.selfcheck import killmatrix
from harness.selfcheck.killmatrix import CaseOutcome, Job, JobResult
from harness.selfcheck.mutation import hook, journal, report, scope, survivors
from harness.selfcheck.mutation import run as mrun
from harness.selfcheck.mutation.batch_plugin import BATCH_ENV
from harness.selfcheck.mutation.operators import Point


def _point(module: str, line: int, op: str = "drop-call", code: str = "x()") -> Point:
    return Point(module, line, 4, op, "f", code)


class FakeRunner:
    """Trace runs write what a traced emulator would; a mutant run fails when told to."""

    def __init__(self, kills: dict[str, str] | None = None, clean_fail: bool = False,
                 lost: tuple[str, ...] = ()) -> None:
        self.kills = kills or {}
        self.lost = lost  # a batch dies when it reaches these mutants
        self.clean_fail = clean_fail
        self.jobs: list[Job] = []
        self.lock = threading.Lock()

    def __call__(self, job: Job, deadline_s: float) -> JobResult:
        with self.lock:
            self.jobs.append(job)
        env = dict(job.env)
        if hook.TRACE_ENV in env:
            d = Path(env[hook.TRACE_ENV])
            ids = ["s.yaml::a", "s.yaml::b", "s.yaml::c"]
            (d / "cases.json").write_text(json.dumps({"ids": ids, "passed": ids[:2]}))
            lines = {"nvstore": {"10": [hook.STARTUP], "20": [1], "21": [2, 3]}}
            if job.profile == "emulated-hit-and-run":
                lines = {"nvstore": {"20": [1, 2], "21": [1]}, "settle": {"30": [2]}}
            if job.profile in mrun.CHOICE_PROFILES:  # a choice no built-in profile makes: more cases, one more line
                lines = {"nvstore": {"20": [1, 2]}, "settle": {"31": [1]}}
            if job.bench_twin:  # the physical side runs only there
                lines = {"nvstore": {"20": [1]}, "sensors": {"50": [1, 2]}}
            (d / "lines-1.json").write_text(json.dumps(lines))
            if self.clean_fail:
                (d / "cases.json").write_text(json.dumps({"ids": ids, "passed": []}))
                return JobResult(job, [CaseOutcome("a", "FAIL", ()), CaseOutcome("b", "FAIL", ())])
            return JobResult(job, [CaseOutcome("a", "PASS", ()), CaseOutcome("b", "PASS", ()),
                                   CaseOutcome("c", "TIMEOUT", ())])
        if BATCH_ENV in env:
            spec = json.loads(Path(env[BATCH_ENV]).read_text())
            with open(spec["results"], "a") as out:
                for gi, group in enumerate(spec["groups"]):
                    if group["mutant"] in self.lost:
                        return JobResult(job, [], error="deadline: not finished within 1 s (stopped)")
                    single = self(killmatrix.Job(job.profile, (), targets=tuple(group["cases"]),
                                                 env=((hook.MUTANT_ENV, group["mutant"]),)), deadline_s)
                    for c in single.cases:
                        out.write(json.dumps({"group": gi, "case": c.case_id, "verdict": c.verdict,
                                              "message": c.message}) + "\n")
                        if c.verdict != "PASS":
                            break
            return JobResult(job, [])
        mutant = env[hook.MUTANT_ENV]
        verdict = self.kills.get(f"{mutant}@{job.profile}", self.kills.get(mutant, "PASS"))
        cases = [CaseOutcome(t, "PASS", ()) for t in job.targets or ("all",)]
        if verdict == "CRASH":
            return JobResult(job, [CaseOutcome("a", "ERROR", (), "the devices could not be opened: boom")])
        if verdict != "PASS":
            cases[0] = CaseOutcome(cases[0].case_id, verdict, (), "expected 1, actual 2")
        return JobResult(job, cases)


@pytest.mark.parametrize("batch_size", [1, 8])
def test_cases_follow_the_trace_and_startup_lines_run_every_passing_case(batch_size: int) -> None:
    points = [_point("nvstore", 10), _point("nvstore", 20), _point("nvstore", 21), _point("nvstore", 40),
              _point("settle", 30)]
    fake = FakeRunner(kills={points[1].id: "FAIL", points[2].id + "@emulated-hit-and-run": "FAIL"})
    score = mrun.run_mutants(points, jobs=2, runner=fake, batch_size=batch_size,
                             profiles=("emulated-midi-5", "emulated-midi-1", "emulated-hit-and-run"))
    got = {o.point.line: o for o in score.outcomes}
    assert got[10].verdict == "SURVIVED" and got[40].verdict == "NOT-COVERED"
    assert got[20].verdict == "KILLED" and got[20].by == "s.yaml::a"
    assert got[21].verdict == "KILLED" and got[21].profile == "emulated-hit-and-run"
    assert got[30].verdict == "SURVIVED"
    runs = {(dict(j.env)[hook.MUTANT_ENV], j.profile): j for j in fake.jobs if hook.MUTANT_ENV in dict(j.env)}
    assert runs[(points[0].id, "emulated-midi-5")].targets == ("s.yaml::a", "s.yaml::b")  # startup: every passing
    assert runs[(points[2].id, "emulated-midi-5")].targets == ("s.yaml::b",)  # c ran it but did not pass clean
    if batch_size == 1:
        assert "-x" in runs[(points[0].id, "emulated-midi-5")].extra_args
    else:
        batches = [j for j in fake.jobs if BATCH_ENV in dict(j.env)]
        assert batches and all("harness.selfcheck.mutation.batch_plugin" in j.extra_args for j in batches)
    # a survivor is tried on two profiles, the second of another kind of table; a line run only at
    # start-up, on every profile that ran it
    assert [p for (m, p) in runs if m == points[2].id] == ["emulated-midi-5", "emulated-hit-and-run"]
    assert [p for (m, p) in runs if m == points[0].id] == ["emulated-midi-5", "emulated-midi-1"]
    assert not any(m == points[3].id for (m, _) in runs)  # not covered: never run


def test_a_profile_passed_in_an_earlier_sitting_is_not_run_again(tmp_path: Path) -> None:
    # points[0]: a start-up line, planned on midi-5 then midi-1; points[1]: midi-5, hit-and-run, midi-1
    points = [_point("nvstore", 10), _point("nvstore", 21)]
    profiles = ("emulated-midi-5", "emulated-midi-1", "emulated-hit-and-run")
    path = tmp_path / "j.jsonl"
    first = FakeRunner()
    mrun.run_mutants(points, runner=first, profiles=profiles,
                     on_passed=lambda p, profile, n, s: journal.passed(path, p, profile, n, s))
    before = journal.passed_profiles(path, points)
    assert before == {points[0].id: {"emulated-midi-5": 2},
                      points[1].id: {"emulated-midi-5": 1, "emulated-hit-and-run": 1}}
    again = FakeRunner(kills={points[1].id: "FAIL"})
    score = mrun.run_mutants(points, runner=again, profiles=profiles, passed_before=before)
    got = {o.point.line: o for o in score.outcomes}
    assert got[10].verdict == "SURVIVED" and got[10].cases_run == 4 and "earlier sittings" in got[10].detail
    assert got[21].verdict == "KILLED" and got[21].profile == "emulated-midi-1"
    runs = [(dict(j.env)[hook.MUTANT_ENV], j.profile) for j in again.jobs if hook.MUTANT_ENV in dict(j.env)]
    assert sorted(runs) == [(points[0].id, "emulated-midi-1"), (points[1].id, "emulated-midi-1")]
    # every profile of its plan passed before: SURVIVED at once, nothing run
    done = {points[0].id: {"emulated-midi-5": 2, "emulated-midi-1": 2}}
    third = FakeRunner()
    score = mrun.run_mutants(points[:1], runner=third, profiles=profiles, passed_before=done)
    assert [o.verdict for o in score.outcomes] == ["SURVIVED"] and score.outcomes[0].cases_run == 4
    assert not [j for j in third.jobs if hook.MUTANT_ENV in dict(j.env)]


def test_a_choice_profile_comes_after_the_built_in_profiles_and_serves_lines_only_it_runs() -> None:
    choice = mrun.CHOICE_PROFILES[0]
    assert killmatrix.profile_path(choice).is_file()
    points = [_point("nvstore", 20), _point("settle", 31), _point("settle", 32)]
    fake = FakeRunner(kills={points[1].id: "FAIL"})
    score = mrun.run_mutants(points, runner=fake, batch_size=1, profiles=("emulated-midi-1", choice))
    got = {o.point.line: o for o in score.outcomes}
    assert got[20].verdict == "SURVIVED" and got[32].verdict == "NOT-COVERED"
    assert got[31].verdict == "KILLED" and got[31].profile == choice
    runs = [(dict(j.env)[hook.MUTANT_ENV], j.profile) for j in fake.jobs if hook.MUTANT_ENV in dict(j.env)]
    # the choice profile ran nvstore:20 in more cases, and still comes second
    assert [p for m, p in runs if m == points[0].id] == ["emulated-midi-1", choice]
    assert got[20].detail == f"passed on emulated-midi-1, {choice}"


def test_a_survivor_goes_on_with_the_profiles_its_grown_plan_adds(tmp_path: Path) -> None:
    choice = mrun.CHOICE_PROFILES[0]
    points = [_point("nvstore", 20), _point("settle", 31), _point("nvstore", 10)]
    path = tmp_path / "j.jsonl"
    first = mrun.run_mutants(points, runner=FakeRunner(), batch_size=1, profiles=("emulated-midi-1",))
    for o in first.outcomes:
        journal.append(path, o)
    assert [o.verdict for o in first.outcomes] == ["SURVIVED", "NOT-COVERED", "SURVIVED"]
    passes = journal.survivor_passes(path, points)
    assert passes == {points[0].id: {"emulated-midi-1": 1}, points[1].id: {}, points[2].id: {"emulated-midi-1": 2}}
    grown = FakeRunner(kills={points[1].id: "FAIL"})
    score = mrun.run_mutants(points, runner=grown, batch_size=8, profiles=("emulated-midi-1", choice),
                             passed_before=passes)
    got = {o.point.line: o for o in score.outcomes}
    assert got[31].verdict == "KILLED" and got[31].profile == choice  # covered now, on the choice profile
    assert got[20].verdict == "SURVIVED" and got[20].cases_run == 3  # 1 before, 2 on the choice profile
    assert got[10].verdict == "SURVIVED" and "earlier sittings" in got[10].detail  # its plan did not grow
    runs = sorted((dict(j.env)[hook.MUTANT_ENV], j.profile) for j in grown.jobs if hook.MUTANT_ENV in dict(j.env))
    assert ("emulated-midi-1" not in {p for _, p in runs}) and {m for m, _ in runs} <= {points[0].id, points[1].id}
    for o in score.outcomes:
        journal.append(path, o)
    again = journal.survivor_passes(path, points)[points[0].id]  # the cases it ran counted once, on one profile
    assert set(again) == {"emulated-midi-1", choice} and sum(again.values()) == 3


def test_a_bench_twin_trace_serves_only_lines_no_other_profile_ran() -> None:
    twin = "emulated-midi-5" + killmatrix.TWIN_SUFFIX
    job = killmatrix.job_for(twin, targets=("s.yaml::a",))
    assert (job.profile, job.bench_twin, job.table) == ("emulated-midi-5", True, twin)
    assert killmatrix.job_for("emulated-midi-5").bench_twin is False
    points = [_point("nvstore", 20), _point("sensors", 50)]
    fake = FakeRunner()
    score = mrun.run_mutants(points, runner=fake, batch_size=1, profiles=("emulated-midi-1", twin))
    assert [o.verdict for o in score.outcomes] == ["SURVIVED", "SURVIVED"]
    # the two mutants' runs go to the job pool at once: the order they start in is the pool's
    runs = sorted((dict(j.env)[hook.MUTANT_ENV], j.profile, j.bench_twin) for j in fake.jobs
                  if hook.MUTANT_ENV in dict(j.env))
    assert runs == sorted([(points[0].id, "emulated-midi-1", False), (points[1].id, "emulated-midi-5", True)])


def test_a_mutant_a_dead_batch_never_reached_is_run_again_alone() -> None:
    points = [_point("nvstore", 20, "drop-call"), _point("nvstore", 20, "drop-assign"),
              _point("nvstore", 21, "drop-call")]
    fake = FakeRunner(kills={points[0].id: "FAIL", points[1].id: "TIMEOUT"}, lost=(points[1].id,))
    score = mrun.run_mutants(points, runner=fake, profiles=("emulated-midi-5",))
    assert [o.verdict for o in score.outcomes] == ["KILLED", "TIMEOUT", "SURVIVED"]
    alone = [j for j in fake.jobs if dict(j.env).get(hook.MUTANT_ENV) in (points[1].id, points[2].id)]
    assert {dict(j.env)[hook.MUTANT_ENV] for j in alone} == {points[1].id, points[2].id}


def test_a_clean_trace_that_fails_runs_no_mutant() -> None:
    fake = FakeRunner(clean_fail=True)
    score = mrun.run_mutants([_point("nvstore", 20)], runner=fake, profiles=("emulated-midi-5",))
    assert score.problems and not score.outcomes
    assert all(hook.TRACE_ENV in dict(j.env) for j in fake.jobs)
    assert "do not pass" in report.render(score)


@pytest.mark.parametrize(("cases", "error", "verdict"), [
    ([CaseOutcome("a", "PASS", ()), CaseOutcome("b", "FAIL", (), "expected x")], None, "KILLED"),
    ([CaseOutcome("a", "ERROR", (), "the devices could not be opened: exit 1")], None, "CRASH"),
    ([CaseOutcome("a", "TIMEOUT", (), "no answer")], None, "TIMEOUT"),
    ([CaseOutcome("a", "ERROR", (), "NAK BUSY internal error")], None, "ERROR"),
    ([CaseOutcome("a", "PASS", ())], "deadline: not finished within 5 s (stopped)", "TIMEOUT"),
    ([], "no case recorded (pytest exit 4)", "CRASH"),
    ([CaseOutcome("a", "PASS", ()), CaseOutcome("b", "SKIP", ())], None, "SURVIVED"),
])
def test_judging_one_run(cases: list[CaseOutcome], error: str | None, verdict: str) -> None:
    result = JobResult(Job("p", ()), cases, Decimal(1), error)
    assert mrun.judge(result)[0] == verdict


def test_the_score_leaves_equivalent_mutants_out_and_counts_compliant_ones_as_survivors() -> None:
    pts = [_point("base", n) for n in range(1, 11)]
    outcomes = [mrun.MutantOutcome(p, "KILLED") for p in pts[:8]] + [mrun.MutantOutcome(pts[8], "SURVIVED"),
                                                                    mrun.MutantOutcome(pts[9], "NOT-COVERED")]
    score = mrun.Score(outcomes, [], Decimal(3), 2, 10)
    assert score.score() == Decimal("80.0") and len(score.unexplained) == 2
    score.reasons = {pts[8].id: ("equivalent", "same program"), pts[9].id: ("compliant", "the device's choice")}
    assert score.score() == Decimal("88.9") and score.score(compliant_out=True) == Decimal("100.0")
    score.reasons = {pts[8].id: ("equivalent", "same program"), pts[9].id: ("unobservable", "internal")}
    assert score.score() == score.score(compliant_out=True) == Decimal("88.9")
    assert not score.unexplained and len(score.unobservable) == 1
    text = report.render(score)
    assert "10 mutant(s): 8 killed" in text and "88.9%" in text and "same program" in text
    data = report.to_json(score)
    assert data["counts"]["KILLED"] == 8 and data["mutants"][9]["reason"]["verdict"] == "unobservable"


def test_a_sample_is_deterministic_and_ids_are_checked() -> None:
    points = mrun.all_points()
    a = mrun.choose(points, sample=5, seed=3)
    assert [p.id for p in a] == [p.id for p in mrun.choose(points, sample=5, seed=3)]
    assert [p.id for p in a] != [p.id for p in mrun.choose(points, sample=5, seed=4)]
    assert mrun.choose(points, [points[7].id]) == [points[7]]
    with pytest.raises(Exception, match="no such mutant"):
        mrun.choose(points, ["controller:1:0:nothing"])


def test_the_hook_acts_only_in_the_emulator_process() -> None:
    assert hook.in_emulator_process(["python", "-m", "harness.emulators", "--profile", "p"])
    assert not hook.in_emulator_process(["python", "-m", "pytest", "suites"])
    assert not hook.in_emulator_process(["python", "-c", "import harness.emulators"])


def test_the_finder_loads_the_mutated_module_without_touching_the_file() -> None:
    source = scope.source_path("nvstore").read_text(encoding="utf-8")
    target = next(p for p in mrun.all_points() if p.module == "nvstore" and p.code == "self.writes += 1"
                  and p.operator == "aug-Add>Sub")
    import harness.emulators

    spec = hook._MutantFinder(target.id).find_spec("harness.emulators.nvstore", harness.emulators.__path__)
    assert hook._MutantFinder(target.id).find_spec("harness.emulators.shoe", harness.emulators.__path__) is None
    assert spec is not None and isinstance(spec.loader, hook._MutantLoader)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    store = module.NVStore(None)
    store.save({"a": 1})
    assert store.writes == -1  # the mutant: writes -= 1
    assert scope.source_path("nvstore").read_text(encoding="utf-8") == source
    with pytest.raises(ValueError, match="not mutated"):
        hook._MutantFinder("server:1:0:drop-call")


def test_the_line_trace_stamps_lines_with_the_running_case(tmp_path: Path) -> None:
    from harness.emulators.nvstore import NVStore

    (tmp_path / hook.EPOCH_FILE).write_bytes((7).to_bytes(8, "little"))
    trace = hook.LineTrace(tmp_path)
    trace.serving = True
    import sys

    old = sys.gettrace()
    sys.settrace(trace._global)
    try:
        NVStore(None).save({"a": 1})
    finally:
        sys.settrace(old)
    trace.write()
    data = json.loads(next(tmp_path.glob("lines-*.json")).read_text())
    assert data["nvstore"] and all(epochs == [7] for epochs in data["nvstore"].values())


def test_the_shipped_survivors_file_loads_and_matches_the_source() -> None:
    reasons = survivors.load()
    assert survivors.stale(reasons, mrun.all_points()) == []
    assert all(r.verdict in survivors.VERDICTS and len(r.why) > 15 for r in reasons)
    assert {r["id"] for r in survivors.unobservable()} == {r.id for r in reasons if r.verdict == "unobservable"}


def test_a_bad_or_stale_survivors_entry_is_reported(tmp_path: Path) -> None:
    bad = tmp_path / "s.yaml"
    bad.write_text("- id: base:1:0:drop-call\n  verdict: maybe\n  code: x\n  why: because\n")
    with pytest.raises(Exception, match="verdict 'maybe'"):
        survivors.load(bad)
    bad.write_text("- id: base:1:0:drop-call\n  verdict: equivalent\n  code: x()\n  why: the same program\n")
    (reason,) = survivors.load(bad)
    assert "no such mutant" in survivors.stale([reason], mrun.all_points())[0]
    point = mrun.all_points()[0]
    moved = survivors.Reason(point.id, "equivalent", "something else", "why", 1)
    assert "now reads" in survivors.stale([moved], [point])[0]


@pytest.mark.parametrize(("argv", "message"), [
    (["defects", "--mutants", "--mutant", "controller:1:0:nope"], "no such mutant"),
    (["defects", "--mutants", "--jobs", "0"], "--jobs"),
    (["defects", "--mutants", "--sample", "0"], "--sample"),
    (["defects", "--mutants", "--matrix"], "on its own"),
    (["defects", "--sample", "3"], "go with --mutants"),
])
def test_bad_mutant_arguments_exit_2_with_one_line(argv: list[str], message: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.strip().count("\n") == 0 and "Traceback" not in err


def test_the_listing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["defects", "--mutants", "--list", "--sample", "4", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "4 mutant(s)" in out and len(out.strip().splitlines()) == 6
    assert main(["defects", "--mutants", "--list", "--json", "--sample", "2"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_cli_exits_by_the_score(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = mrun.run_mutants
    points = mrun.all_points()

    def fake(chosen: list[Point], **kw: object) -> mrun.Score:
        kills = {p.id: "FAIL" for p in chosen[:-1]}
        return real(chosen, jobs=2, runner=FakeRunner(kills), trace=False, profiles=("emulated-midi-5",),
                    reasons=kw.get("reasons"))  # type: ignore[arg-type]

    monkeypatch.setattr(mrun, "run_mutants", fake)
    reviewed = survivors.as_mapping(survivors.load())  # read once: it is a YAML file of some 500 entries
    ids = [p.id for p in points if p.id not in reviewed][:3]
    assert main(["defects", "--mutants", "--mutant", *ids]) == 1  # one survivor with no reason
    out = capsys.readouterr().out
    assert "NO REASON" in out and "3 mutant(s): 2 killed" in out
    assert main(["defects", "--mutants", "--json", "--mutant", *ids[:1], ids[0]]) == 1


def test_each_choice_profile_loads_and_makes_choices_no_built_in_profile_makes() -> None:
    from harness.profiles import load_profile

    built_in = [load_profile(killmatrix.profile_path(p)) for p in mrun.PROFILES if not p.endswith("link-4")]
    made = {(k, str(v)) for p in built_in for k, v in (p.raw.get("interpretations") or {}).items()}
    made |= {("mystery-paid-by", str(p.raw["rules"]["mystery"]["paid_by"])) for p in built_in
             if "mystery" in p.raw["rules"]}
    for path in mrun.CHOICE_PROFILES:
        profile = load_profile(killmatrix.profile_path(path))
        assert profile.is_emulated and profile.raw["emulator"].get("defect") is None
        chosen = {(k, str(v)) for k, v in profile.raw["interpretations"].items()}
        if "mystery" in profile.raw["rules"]:
            chosen.add(("mystery-paid-by", str(profile.raw["rules"]["mystery"]["paid_by"])))
        assert chosen and not chosen & made, path  # each choice is one no built-in profile makes


def test_rewrite_follows_moved_lines_whether_the_id_is_quoted_or_not(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    now = [Point("settle", 233, 82, "const-0>1", "f", "won = a - 0"), Point("settle", 248, 20, "drop-call", "f", "x()")]
    monkeypatch.setattr(mrun, "all_points", lambda: now)
    path = tmp_path / "survivors.yaml"
    path.write_text('- id: settle:242:82:const-0>1\n  function: f\n  verdict: equivalent\n  code: won = a - 0\n'
                    '  why: a reason long enough to count\n'
                    '- id: "settle:259:20:drop-call"\n  function: f\n  verdict: equivalent\n  code: x()\n'
                    '  why: a reason long enough to count\n', encoding="utf-8")
    assert survivors.rewrite(path) == 2
    assert [r.id for r in survivors.load(path)] == ["settle:233:82:const-0>1", "settle:248:20:drop-call"]
    assert survivors.stale(survivors.load(path), now) == []
