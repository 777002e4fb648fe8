"""The recorder API and the journal: every finished case survives a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest
from recordkit import identity

from harness.errors import InputError
from harness.record import Measurement, RunMeta, RunRecorder, load_record, verify

ROOT = Path(__file__).resolve().parents[2]


def test_finished_run_round_trips(make_run) -> None:
    run_dir = make_run()
    record = load_record(run_dir)
    assert record.complete
    assert record.schema == "tablecert/record/2"
    assert [c.verdict for c in record.cases] == ["PASS", "FAIL", "ERROR"]
    assert record.verdict == "FAIL"
    fail = record.case("case-1-fail")
    latency = fail.measurements[1]
    assert (latency.value, latency.unit, latency.limit, latency.outcome) == ("1.7", "ms", "<= 1.0", "FAIL")
    assert fail.reproduce == {
        "command": "tablecert run suites/royal9/paytable.suite.yaml -k case",
        "stack": "KS 9H 9S KH",
    }
    assert fail.timelines["mega"][2] == ["30.5", 5_000_010]
    assert [i.kind for i in record.inputs] == ["suite", "profile"]
    assert all(len(i.sha256) == 64 for i in record.inputs)
    assert record.interpretations[0]["id"] == "r9-envy-requires-wager"
    assert record.identities["controller"]["start"].program_hash.startswith("9f86")
    assert record.git_revision == "unknown" or len(record.git_revision) == 40
    # record.json and the journal say the same thing
    journal = load_record(run_dir / "journal.jsonl")
    assert [c.to_dict() for c in journal.cases] == [c.to_dict() for c in record.cases]


def test_run_id_is_utc_time_and_random_suffix(make_run) -> None:
    run_dir = make_run()
    stamp, suffix = run_dir.name.split("-")
    assert len(stamp) == 16 and stamp.endswith("Z") and stamp[8] == "T"
    assert len(suffix) == 6 and int(suffix, 16) >= 0


def test_overall_verdict_rules(make_run) -> None:
    assert load_record(make_run(verdicts=("PASS", "PASS"))).verdict == "PASS"
    assert load_record(make_run(verdicts=("PASS", "TIMEOUT"))).verdict == "ERROR"
    assert load_record(make_run(verdicts=("PASS", "SKIP"))).verdict == "INCOMPLETE"
    assert load_record(make_run(verdicts=())).verdict == "ERROR"  # an empty run certifies nothing
    assert load_record(make_run(verdicts=("PASS",), finish=False)).verdict == "INCOMPLETE"


def test_identity_change_is_flagged_and_fails_the_run(make_run) -> None:
    run_dir = make_run(verdicts=("PASS",), end_identity=identity(software_version="2.4.2", serial="SN-9"))
    data = json.loads((run_dir / "record.json").read_bytes())
    assert data["identity_changed"] == {"controller": ["serial", "software_version"]}
    assert data["verdict"] == "FAIL"
    assert any("software_version" in r for r in data["verdict_reasons"])


def test_floats_are_refused_money_stays_exact(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="float"):
        Measurement("meter", 12.5, "cents")
    rec = RunRecorder.create(tmp_path, RunMeta())
    case = rec.begin_case("c", "t", [], "s.yaml", {})
    with pytest.raises(TypeError, match="integer cents"):
        case.meter_timeline("mega", [(0, 1.5)])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="float"):
        case.step(1, "x", 1, "PASS", {"rate": 0.5})
    assert Measurement("rate", Decimal("0.5"), "%").value == "0.5"


def test_bad_calls_are_refused(tmp_path: Path) -> None:
    rec = RunRecorder.create(tmp_path, RunMeta(run_id="fixed-id"))
    assert rec.run_dir == tmp_path / "fixed-id"
    rec.begin_case("dup", "t", [], "s.yaml", {})
    with pytest.raises(ValueError, match="already recorded"):
        rec.begin_case("dup", "t", [], "s.yaml", {})
    case = rec.begin_case("other", "t", [], "s.yaml", {})
    with pytest.raises(ValueError, match="outcome"):
        rec.end_case(case, "OK")
    with pytest.raises(ValueError, match="input kind"):
        rec.add_input_file(tmp_path / "x", "data")
    with pytest.raises(InputError, match="cannot read"):
        rec.add_input_file(tmp_path / "missing.yaml", "suite")
    with pytest.raises(ValueError, match="start"):
        rec.set_identity("middle", "shoe", __import__("harness.record").record.RecordedIdentity())


def test_evidence_names_are_safe_and_unique(tmp_path: Path) -> None:
    rec = RunRecorder.create(tmp_path, RunMeta())
    case = rec.begin_case("a/b", "t", [], "s.yaml", {})
    e1 = case.attach("../../etc/passwd", b"x")
    e2 = case.attach("../../etc/passwd", b"y")
    source = tmp_path / "screen.png"
    source.write_bytes(b"\x89PNG")
    e3 = case.attach("screen.png", source, kind="screenshot")
    assert e1.path == "evidence/a_b/etc_passwd"
    assert e2.path == "evidence/a_b/etc_passwd-2"
    assert e3.path == "evidence/a_b/screen.png" and e3.kind == "screenshot" and e3.size == 4
    other = rec.begin_case("a_b", "t", [], "s.yaml", {})
    assert other.attach("x.txt", b"z").path == "evidence/a_b-2/x.txt"
    for ev in (e1, e2, e3):
        assert (rec.run_dir / ev.path).is_file()
        assert rec.run_dir in (rec.run_dir / ev.path).resolve().parents


KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from harness.record import Measurement, RunMeta, RunRecorder

    root, finished = Path(sys.argv[1]), int(sys.argv[2])
    rec = RunRecorder.create(root, RunMeta(profile_name="kill-test", run_id="killed-run"))
    rec.set_identity("start", "shoe", __import__("harness.record").record.RecordedIdentity(model="S"))
    for n in range(finished + 5):
        case = rec.begin_case(f"case-{n}", f"case {n}", ["clause-a"], "suites/k.suite.yaml", {"n": n})
        case.step(1, "deal", 3, "PASS", {})
        case.measure(Measurement("delta", n, "cents", n, "PASS", "clause-a"))
        case.attach("transcript.txt", b"bytes %d" % n)
        if n == finished:
            os.kill(os.getpid(), signal.SIGKILL)  # mid-case, after its evidence was written
        rec.end_case(case, "PASS")
    rec.finish()
    """
)


def test_sigkill_mid_run_keeps_every_finished_case(tmp_path: Path) -> None:
    finished = 7
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, str(tmp_path), str(finished)],
        env=env,
        timeout=60,
        capture_output=True,
        check=False,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    run_dir = tmp_path / "killed-run"
    assert not (run_dir / "record.json").exists()
    record = load_record(run_dir)
    assert record.complete is False
    assert [c.case_id for c in record.cases] == [f"case-{n}" for n in range(finished)]
    assert record.cases[3].measurements[0].value == 3
    assert record.verdict == "INCOMPLETE"
    problems = verify(run_dir)
    assert any("incomplete" in p for p in problems)
    assert not any("SHA-256" in p or "missing" in p for p in problems)  # finished evidence is intact


def test_journal_cut_mid_line_loads_the_complete_lines(make_run) -> None:
    run_dir = make_run(verdicts=("PASS", "FAIL"), finish=False)
    journal = run_dir / "journal.jsonl"
    journal.write_bytes(journal.read_bytes() + b'{"type":"case","case":{"case_id":"half')
    record = load_record(run_dir)
    assert [c.verdict for c in record.cases] == ["PASS", "FAIL"]
    assert record.notes and "cut short" in record.notes[0]


def test_unreadable_input_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such record"):
        load_record(tmp_path / "nope")
    with pytest.raises(InputError, match=r"no record\.json or journal\.jsonl"):
        load_record(tmp_path)
    bad = tmp_path / "journal.jsonl"
    bad.write_text('{"type":"case"}\n', "utf-8")
    with pytest.raises(InputError, match="journal"):
        load_record(tmp_path)
