"""Merging the records of one product from several benches."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from recordkit import identity

from harness.cli import main
from harness.errors import InputError
from harness.record import load_record, record_digest, verify
from harness.record.merge import merge_records


def test_merge_unions_cases_copies_evidence_and_verifies(make_run, tmp_path: Path) -> None:
    a = make_run(verdicts=("PASS", "FAIL"), station="bench-1")
    b = make_run(verdicts=("PASS", "PASS"), station="bench-2", start_identity=identity(serial="SN-0002"))
    out = merge_records([a, b], tmp_path / "merged")
    assert verify(out) == []
    merged = load_record(out)
    ra, rb = load_record(a), load_record(b)
    assert [(c.case_id, c.station, c.source_run) for c in merged.cases] == [
        ("case-0-pass", "bench-1", ra.run_id),
        ("case-1-fail", "bench-1", ra.run_id),
        ("case-0-pass@bench-2", "bench-2", rb.run_id),
        ("case-1-pass", "bench-2", rb.run_id),
    ]
    assert merged.verdict == "FAIL"
    assert merged.meta.station == "bench-1, bench-2"
    assert [m["digest"] for m in merged.merged_from] == [record_digest(a), record_digest(b)]
    ev = merged.cases[2].evidence[0]
    assert ev.path == f"evidence/{rb.run_id}/case-0-pass/shoe-transcript.txt"
    assert (out / ev.path).read_bytes() == (b / "evidence/case-0-pass/shoe-transcript.txt").read_bytes()
    assert record_digest(out) not in (record_digest(a), record_digest(b))
    assert "bench-2" in (out / "record.html").read_text("utf-8")


@pytest.mark.parametrize(
    ("field", "value"),
    [("software_version", "2.5.0"), ("program_hash", "00" * 32), ("manufacturer", "Other Co"), ("model", "X")],
)
def test_merge_refuses_a_different_product_naming_the_field(make_run, tmp_path: Path, field, value) -> None:
    a = make_run(verdicts=("PASS",))
    b = make_run(verdicts=("PASS",), start_identity=identity(**{field: value}))
    with pytest.raises(InputError, match=rf"controller {field} is '{value}', not .*different products"):
        merge_records([a, b], tmp_path / "merged")
    assert not (tmp_path / "merged").exists()


def test_merge_refuses_records_that_do_not_verify(make_run, tmp_path: Path) -> None:
    a = make_run(verdicts=("PASS",))
    source = make_run(verdicts=("PASS",))
    b = tmp_path / source.name  # a copy keeps the folder name: the run id
    shutil.copytree(source, b)
    (b / "evidence/case-0-pass/shoe-transcript.txt").write_bytes(b"edited")
    with pytest.raises(InputError, match=r"does not verify: evidence/case-0-pass/shoe-transcript\.txt"):
        merge_records([a, b], tmp_path / "merged")
    incomplete = make_run(verdicts=("PASS",), finish=False)
    with pytest.raises(InputError, match="incomplete"):
        merge_records([a, incomplete], tmp_path / "merged")


def test_merge_refuses_other_jurisdiction_and_nonempty_out(make_run, tmp_path: Path) -> None:
    a = make_run(verdicts=("PASS",))
    b = make_run(verdicts=("PASS",), meta={"jurisdiction": "WA"})
    with pytest.raises(InputError, match="jurisdiction 'WA'"):
        merge_records([a, b], tmp_path / "m1")
    out = tmp_path / "m2"
    out.mkdir()
    (out / "x").write_text("x")
    with pytest.raises(InputError, match="not empty"):
        merge_records([a], out)


def test_cli_merge(make_run, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = make_run(verdicts=("PASS",), station="bench-1")
    b = make_run(verdicts=("PASS",), station="bench-2")
    assert main(["merge", str(a), str(b), "--out", str(tmp_path / "m")]) == 0
    assert "2 case(s) from 2 record(s)" in capsys.readouterr().out
    assert main(["verify", str(tmp_path / "m")]) == 0
    c = make_run(verdicts=("PASS",), start_identity=identity(software_version="9"))
    assert main(["merge", str(a), str(c), "--out", str(tmp_path / "n")]) == 2
    err = capsys.readouterr().err
    assert "software_version" in err and "Traceback" not in err


def test_a_split_runs_tally_counts_each_case_once(make_run, tmp_path: Path) -> None:
    """`tablecert run -n N` leaves its workers' records beside the merged one (a split variant's folder):
    the variant matrix counts the merged record's cases, not the workers' again."""
    from harness.selfcheck.variants import read_tally

    a = make_run(verdicts=("PASS", "FAIL"), station="w0")
    b = make_run(verdicts=("PASS", "PASS"), station="w1")
    folder = tmp_path / "variant-00"
    folder.mkdir()
    for run in (a, b):
        shutil.move(str(run), folder / run.name)
    merge_records(sorted(p for p in folder.iterdir()), folder / "zz-merged")
    tally, bad = read_tally(folder)
    assert tally == "3/1/0/0"
    assert bad == ["case-1-fail FAIL"]


def test_a_worker_that_met_no_device_is_merged_and_says_nothing_of_the_product(make_run, tmp_path: Path) -> None:
    """A split run's worker whose share held only cases that do not apply never reads an identity: its
    record is merged (its cases kept), the identities are the other workers'; a record that ran a case
    without reading any identity is still refused."""
    ran = make_run(verdicts=("PASS",))
    idle = make_run(verdicts=("NOT APPLICABLE",), met_devices=False)
    out = merge_records([idle, ran], tmp_path / "merged")
    merged = load_record(out)
    assert verify(out) == [] and len(merged.cases) == 2 and merged.identities == load_record(ran).identities
    blind = make_run(verdicts=("PASS",), met_devices=False)
    with pytest.raises(InputError, match=r"holds no device identity|no device role in common"):
        merge_records([blind, ran], tmp_path / "merged-2")


def _variant_run(monkeypatch: pytest.MonkeyPatch, make_run, verdicts: tuple[str, ...], again_exit: int):
    """run_one on a variant whose run (faked: a record with ``verdicts``, exit 3) may be played again."""
    from harness.selfcheck import variants as vm
    from harness.selfcheck.jobs import Ended

    variant = vm.generate(7, 1)[0]
    commands: list[list[str]] = []

    def fake_job(cmd, cwd, log, env, deadline_s):
        commands.append(list(cmd))
        Path(log).write_text("overall: ERROR or INCOMPLETE (exit 3)\n")
        if len(commands) == 1:
            run = make_run(verdicts=verdicts)
            folder = Path(cmd[cmd.index("--report-dir") + 1])
            folder.mkdir(parents=True)
            shutil.move(str(run), folder / run.name)
            return Ended(3, False)
        return Ended(again_exit, False)

    monkeypatch.setattr(vm, "run_job", fake_job)
    return vm, variant, commands


def test_a_variant_held_back_only_by_inconclusive_cases_plays_them_again_alone(
        monkeypatch: pytest.MonkeyPatch, make_run, tmp_path: Path) -> None:
    """A run INCOMPLETE only for an INCONCLUSIVE case (one sample over a limit within the host's jitter) has
    that case played again alone, once, with --rerun-failed: the variant passes when it then PASSes, and
    the replay is listed; it stays failed when the replay does not pass."""
    for again_exit, passed in ((4, True), (3, False)):
        vm, variant, commands = _variant_run(monkeypatch, make_run, ("PASS", "INCONCLUSIVE"), again_exit)
        out = vm.run_one(variant, tmp_path / "p.yaml", tmp_path / f"records-{again_exit}", 60.0)
        assert len(commands) == 2 and "--rerun-failed" in commands[1]
        assert out.passed is passed
        assert out.played_again == [f"case-1-inconclusive INCONCLUSIVE, played again alone: "
                                    f"{'PASS' if passed else 'not PASS (exit 3)'}"]


def test_a_variant_with_a_failed_case_is_never_played_again(
        monkeypatch: pytest.MonkeyPatch, make_run, tmp_path: Path) -> None:
    """A FAIL or ERROR beside the INCONCLUSIVE case: nothing is played again, the variant fails."""
    for verdicts in (("PASS", "INCONCLUSIVE", "FAIL"), ("INCONCLUSIVE", "ERROR")):
        vm, variant, commands = _variant_run(monkeypatch, make_run, verdicts, 0)
        out = vm.run_one(variant, tmp_path / "p.yaml", tmp_path / f"records-{len(verdicts)}", 60.0)
        assert len(commands) == 1 and not out.passed and not out.played_again and out.failures
