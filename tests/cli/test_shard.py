"""``--shard K/N`` and ``--collect``: a matrix spread over separate processes merges into the table
and verdict of one run (tablecert variants, the smallest real matrix: two variants, one short suite)."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.cli.shard import Shard, load_shards, shard_spec
from harness.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = [sys.executable, "-m", "harness", "variants", "--count", "2", "--seed", "7", "--jobs", "1",
            "--deadline", "400", str(ROOT / "suites" / "identity")]


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_the_shards_split_a_list_into_disjoint_parts_that_cover_it(n: int) -> None:
    items = list(range(17))
    parts = [Shard(k, n).pick(items) for k in range(1, n + 1)]
    assert sorted(x for p in parts for x in p) == items
    assert max(map(len, parts)) - min(map(len, parts)) <= 1


@pytest.mark.parametrize("bad", ["0/2", "3/2", "2", "a/b", "1/0", "-1/2", "1/2/3"])
def test_a_bad_shard_is_refused(bad: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        shard_spec(bad)


def test_the_command_line_refuses_a_bad_shard_or_a_shard_without_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variants", "--shard", "3/2", "--seed", "1"]) == 2
    assert main(["variants", "--shard", "1/2", "--count", "2"]) == 2
    assert "--shard needs --seed" in capsys.readouterr().err


def _doc(path: Path, shard: str, **fields: object) -> str:
    path.write_text(json.dumps({"kind": "variants", "shard": shard, "seed": 7, "count": 2, **fields}))
    return str(path)


def test_collect_refuses_what_is_not_the_whole_run(tmp_path: Path) -> None:
    one, two = _doc(tmp_path / "1.json", "1/2"), _doc(tmp_path / "2.json", "2/2")
    assert [d["shard"] for d in load_shards([two, one], "variants", ("seed",))] == ["1/2", "2/2"]
    with pytest.raises(InputError, match=r"shard\(s\) 2 of 2 missing"):
        load_shards([one], "variants", ("seed",))
    with pytest.raises(InputError, match="given twice"):
        load_shards([one, one, two], "variants", ("seed",))
    other = _doc(tmp_path / "3.json", "2/2", seed=8)
    with pytest.raises(InputError, match="seed 8 differs"):
        load_shards([one, other], "variants", ("seed",))
    with pytest.raises(InputError, match="run in 3"):
        load_shards([one, _doc(tmp_path / "4.json", "2/3")], "variants", ("seed",))
    with pytest.raises(InputError, match="not the --json result"):
        load_shards([_doc(tmp_path / "5.json", "1/1", kind="mutants")], "variants", ("seed",))
    (tmp_path / "6.json").write_text("{")
    with pytest.raises(InputError, match="not JSON"):
        load_shards([str(tmp_path / "6.json")], "variants", ())


def _same(doc: dict[str, object]) -> dict[str, object]:
    """A result without what differs between two runs of one set: times and work folders."""
    out = {k: v for k, v in doc.items() if k not in ("wall_seconds", "shard")}
    out["variants"] = [{k: v for k, v in row.items() if k not in ("seconds", "profile")}
                       for row in doc["variants"]]  # type: ignore[attr-defined]
    return out


def _table(text: str) -> str:
    """The table with every wall time as T, and the padding around it (a time of 9.8 s and one of 10.2 s
    pad their column differently) as one space."""
    return re.sub(r" *\d+\.\d+ ?s *", " T ", text)


@pytest.mark.slow
@pytest.mark.timeout(900)  # four certification runs of one suite, two at a time (about a minute unloaded)
def test_two_shards_in_separate_processes_merge_into_the_single_run(tmp_path: Path) -> None:
    def start(*extra: str, out: Path) -> subprocess.Popen[bytes]:
        return subprocess.Popen([*VARIANTS, *extra, "--json"], cwd=ROOT, stdout=out.open("wb"),
                                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)

    single, shards = tmp_path / "single.json", [tmp_path / f"shard-{k}.json" for k in (1, 2)]
    procs = [start(out=single), *(start("--shard", f"{k}/2", out=p) for k, p in zip((1, 2), shards, strict=True))]
    try:
        codes = [p.wait(timeout=600) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
    one = json.loads(single.read_text())
    parts = [json.loads(p.read_text()) for p in shards]
    assert [len(p["variants"]) for p in parts] == [1, 1] and codes[1:] == [codes[0]] * 2

    def collect(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "harness", "variants", "--collect", *map(str, shards), *extra],
                              cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)

    merged_json, merged_text = collect("--json"), collect()
    assert merged_json.returncode == merged_text.returncode == codes[0]
    assert _same(json.loads(merged_json.stdout)) == _same(one)
    # the table of the single run, printed from its own result, equals the merged table
    again = subprocess.run([sys.executable, "-m", "harness", "variants", "--collect", str(single)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120, check=False)
    assert _table(merged_text.stdout) == _table(again.stdout) and "2/2 variant(s)" in again.stdout


# -- the kill matrix: shards of the defects, each with the clean runs its defects need -------------

def _fake_runner(missed: tuple[str, ...] = (), clean_fail: str | None = None) -> Any:
    """Each run answered from its job: a clean run passes one case per clause (the case of the clause
    ``clean_fail`` FAILs: only the shard of a defect breaking it sees that); a defect run FAILs a case
    citing its first clause unless ``missed``."""
    from harness.selfcheck.killmatrix import CaseOutcome, JobResult

    def run(job: Any, deadline_s: float) -> Any:
        if job.defect is None:
            return JobResult(job, [CaseOutcome(f"clean-{c}", "FAIL" if c == clean_fail else "PASS", (c,))
                                   for c in job.clauses], Decimal("1.5"))
        verdict = "PASS" if job.defect in missed else "FAIL"
        return JobResult(job, [CaseOutcome(f"case-{job.defect}", verdict, job.clauses[:1]),
                               CaseOutcome("other", "TIMEOUT", job.clauses[:1], "no answer")], Decimal("2.5"))

    return run


@pytest.mark.parametrize("fake", [{}, {"missed": ("rate-off",)}, {"clean_fail": "pa-midi-r9-f2-rate-5"}])
def test_kill_matrix_shards_merge_into_the_single_run(fake: dict[str, Any], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from harness.selfcheck import killmatrix

    real = killmatrix.run_matrix
    monkeypatch.setattr(killmatrix, "run_matrix",
                        lambda names, **kw: real(names, jobs=kw["jobs"], runner=_fake_runner(**fake)))
    single = main(["defects", "--matrix"])
    whole = capsys.readouterr().out
    files = []
    for k in (1, 2, 3):
        code = main(["defects", "--matrix", "--shard", f"{k}/3", "--json"])
        files.append(tmp_path / f"{k}.json")
        files[-1].write_text(capsys.readouterr().out)
        assert code in (0, 1)
    assert main(["defects", "--matrix", "--collect", *map(str, files)]) == single
    merged = capsys.readouterr().out
    assert _table(merged) == _table(whole)
    assert ("kill matrix PASSED" in whole) == (single == 0)
    shards = [json.loads(f.read_text()) for f in files]
    ran = sorted(r["name"] for s in shards for r in s["defects"])
    if not fake.get("clean_fail"):  # each defect ran in exactly one shard
        assert ran == sorted(shards[0]["selection"]) and len(ran) > 3
    else:  # the shard whose clean run failed ran no defect; the others did, but the whole run would not
        assert ran and "defect runs were not started" in merged


# -- the mutation run: shards of the mutants, each with its own traced clean runs -------------------

def test_mutant_shards_merge_into_the_single_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from harness.selfcheck.killmatrix import CaseOutcome, JobResult
    from harness.selfcheck.mutation import hook
    from harness.selfcheck.mutation import run as mrun
    from harness.selfcheck.mutation.operators import Point

    points = [Point("nvstore", line, 4, "drop-call", "f", "x()") for line in (10, 20, 21, 40, 50)]
    killed = {points[1].id, points[3].id}

    def runner(job: Any, deadline_s: float) -> Any:  # a mutant run: every suite, FAIL where told
        mutant = dict(job.env)[hook.MUTANT_ENV]
        return JobResult(job, [CaseOutcome("s.yaml::a", "FAIL" if mutant in killed else "PASS", (), "expected 1")],
                         Decimal("3.0"))

    real = mrun.run_mutants
    monkeypatch.setattr(mrun, "all_points", lambda: points)
    monkeypatch.setattr(mrun, "run_mutants", lambda chosen, **kw: real(
        chosen, jobs=1, runner=runner, trace=False, profiles=("emulated-midi-5",), reasons=kw.get("reasons")))
    single = main(["defects", "--mutants", "--no-trace"])
    whole = capsys.readouterr().out
    files = []
    for k in (1, 2):
        main(["defects", "--mutants", "--no-trace", "--shard", f"{k}/2", "--json"])
        files.append(tmp_path / f"{k}.json")
        files[-1].write_text(capsys.readouterr().out)
    parts = [json.loads(f.read_text()) for f in files]
    assert [[m["id"] for m in p["mutants"]] for p in parts] == [[p.id for p in points[0::2]],
                                                                [p.id for p in points[1::2]]]
    assert main(["defects", "--mutants", "--collect", *map(str, files)]) == single == 1  # survivors, no reason
    assert _table(capsys.readouterr().out) == _table(whole)
    assert "5 mutant(s): 2 killed" in whole
    main(["defects", "--mutants", "--collect", *map(str, files), "--json"])
    merged = json.loads(capsys.readouterr().out)
    assert [m["outcome"] for m in merged["mutants"]] == ["SURVIVED", "KILLED", "SURVIVED", "KILLED", "SURVIVED"]
    assert merged["score_percent"] == "40.0"
    with pytest.raises(InputError, match="not in this source"):
        monkeypatch.setattr(mrun, "all_points", lambda: points[:4])
        from harness.cli.mutants import _collect

        _collect(argparse.Namespace(collect=[str(f) for f in files], json=False))
