"""The run history: finished records indexed (SQLite by default, PostgreSQL by URL through the same
code), listed by device and firmware, rebuilt from the records, and two runs compared case by case."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from recordkit import build_run, identity

from harness.cli import main
from harness.history.diff import diff_records
from harness.history.index import index_run, open_index, query, rebuild, url_for
from harness.record.journal import load_record


def _two_firmwares(root: Path) -> tuple[Path, Path]:
    """Firmware 2.4.0 passing, then 2.4.1 failing the lock-out (and one more case)."""
    old = build_run(root / "a", verdicts=("PASS", "PASS"), start_identity=identity(software_version="2.4.0"))
    new = build_run(root / "b", verdicts=("PASS", "FAIL", "PASS"), start_identity=identity(software_version="2.4.1"))
    reports = root / "reports"
    reports.mkdir()
    for run in (old, new):
        shutil.move(str(run), reports / run.name)
    return reports / old.name, reports / new.name


def test_diff_names_the_cases_whose_verdict_or_outcome_changed(tmp_path: Path) -> None:
    a, b = _two_firmwares(tmp_path)
    d = diff_records(load_record(a), load_record(b))
    assert [(c.case_id, c.before, c.after) for c in d.changes] == [
        ("case-1-fail", "-", "FAIL"), ("case-2-pass", "-", "PASS"), ("case-1-pass", "PASS", "-")]
    assert d.notes == ["controller: software_version 2.4.0 -> 2.4.1"]
    same = diff_records(load_record(a), load_record(a))
    assert same.changes == [] and same.notes == []


def test_diff_lists_a_measurement_whose_outcome_changed(tmp_path: Path) -> None:
    a = load_record(build_run(tmp_path / "a", verdicts=("PASS",)))
    b = load_record(build_run(tmp_path / "b", verdicts=("PASS",)))
    b.cases[0].measurements[0].outcome = "FAIL"
    b.cases[0].measurements[0].value = 6
    (change,) = diff_records(a, b).changes
    assert change.before == change.after == "PASS"
    assert change.measurements == ("mega meter delta: 5 cents (PASS) -> 6 cents (FAIL)",)
    b.cases[0].measurements[0].outcome = "PASS"  # a value that moved with the same outcome: only with values
    assert diff_records(a, b).changes == []
    assert len(diff_records(a, b, values=True).changes) == 1


def _index_and_query(url: str, reports: Path) -> None:
    engine = open_index(url)
    count, problems = rebuild(engine, reports)
    assert (count, problems) == (2, [])
    assert [r.verdict for r in query(engine)] == ["FAIL", "PASS"]  # newest first
    (r,) = query(engine, firmware="2.4.1")
    assert r.verdict == "FAIL" and r.failed == 1 and "controller 2.4.1" in r.firmware
    assert [x.run_id for x in query(engine, device="SN-0001")] == [x.run_id for x in query(engine)]
    assert query(engine, device="SN-9999") == []
    assert index_run(engine, reports / r.run_id)  # indexing again replaces the rows
    assert len(query(engine)) == 2


def test_sqlite_index_by_default_beside_the_reports(tmp_path: Path) -> None:
    _, new = _two_firmwares(tmp_path)
    url = url_for(new.parent)
    assert url == f"sqlite:///{new.parent.absolute().as_posix()}/history.sqlite"
    _index_and_query(url, new.parent)


def test_the_same_code_on_a_real_postgresql_server(tmp_path: Path, postgres_url: str) -> None:
    _, new = _two_firmwares(tmp_path)
    _index_and_query(postgres_url, new.parent)


def test_history_and_diff_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _two_firmwares(tmp_path)
    reports = str(a.parent)
    assert main(["history", "--reports", reports, "--rebuild"]) == 0
    out = capsys.readouterr().out
    assert "indexed 2 finished record(s)" in out and "2 run(s)" in out
    assert main(["history", "--reports", reports, "--firmware", "2.4.0"]) == 0
    out = capsys.readouterr().out
    assert a.name in out and b.name not in out
    assert main(["diff", a.name, b.name, "--reports", reports]) == 1  # run ids, found through the index
    out = capsys.readouterr().out
    assert "case-1-fail: - -> FAIL" in out and "3 case(s) changed" in out
    assert main(["diff", str(a), str(a)]) == 0
    assert main(["diff", "no-such-run", str(a), "--reports", reports]) == 2
    assert "no run of that id in the history index" in capsys.readouterr().err


def test_a_bad_index_url_is_one_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--db", "nosuchdriver://x/y"]) == 2
    err = capsys.readouterr().err
    assert "history index" in err and "Traceback" not in err


def test_clean_keeps_the_newest_and_every_signed_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.record.sign import sign_record
    from harness.record.signing import generate_key

    reports = tmp_path / "reports"
    reports.mkdir()
    made = []
    for n in range(4):
        run = build_run(tmp_path / f"w{n}", verdicts=("PASS",))
        made.append(Path(shutil.move(str(run), reports / run.name)))
    key = tmp_path / "lab.key"
    generate_key(key)
    sign_record(made[0], key, "Example Test Lab")  # the oldest, signed
    assert main(["history", "--reports", str(reports), "--rebuild"]) == 0
    assert main(["clean", "--reports", str(reports), "--keep", "1", "--dry-run"]) == 0
    assert "would delete" in capsys.readouterr().out and all(p.exists() for p in made)
    assert main(["clean", "--reports", str(reports), "--keep", "1"]) == 0
    out = capsys.readouterr().out
    assert [p.exists() for p in made] == [True, False, False, True]
    assert f"kept {made[0]}: a signed record" in out and "4 run(s): 2 deleted, 2 kept" in out
    engine = open_index(url_for(reports))
    assert sorted(r.run_id for r in query(engine)) == sorted([made[0].name, made[3].name])
    assert main(["clean", "--reports", str(reports), "--keep", "0", "--force"]) == 0
    assert not any(p.exists() for p in made) and query(engine) == []
