"""``tablecert run``: one record per profile; with -n 2 the worker records merge into it."""

import subprocess
import sys
from pathlib import Path

import pytest

from harness import exitcodes
from harness.record import load_record, verify

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, *extra: str, more: tuple[Path, ...] = ()) -> subprocess.CompletedProcess[str]:
    suites = [ROOT / "suites" / "hit-and-run", ROOT / "suites" / "washington" / "wac-230-15-040-hit-and-run.suite.yaml",
              *more]
    cmd = [sys.executable, "-m", "harness", "run", *map(str, suites), "-q",
           "--profile", str(ROOT / "device_profiles" / "emulated-hit-and-run.yaml"),
           "--report-dir", str(tmp_path), *extra]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_split_run_merges_worker_records(tmp_path: Path) -> None:
    proc = _run(tmp_path, "-n", "2")
    assert proc.returncode == exitcodes.PARTIAL, proc.stdout + proc.stderr  # two suites of the certification
    merged = [d for d in tmp_path.iterdir() if d.name.endswith("-emulated-hit-and-run")]
    workers = sorted(d for d in tmp_path.iterdir() if "-gw" in d.name)
    assert len(merged) == 1 and len(workers) == 2
    record = load_record(merged[0])
    assert verify(merged[0]) == []
    assert len(record.cases) == sum(len(load_record(w).cases) for w in workers) > 0
    assert all(c.verdict in ("PASS", "NOT APPLICABLE") for c in record.cases)
    assert any(c.verdict == "PASS" for c in record.cases)
    assert "PARTIAL" in proc.stdout and str(merged[0] / "record.html") in proc.stdout


def test_unknown_profile_is_one_line_and_exit_2(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "harness", "run", "--profile", str(tmp_path / "nope.yaml")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "no such file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cases_that_do_not_apply_are_recorded_not_applicable_with_their_reason(tmp_path: Path) -> None:
    proc = _run(tmp_path, more=(ROOT / "suites" / "royal9" / "paytable-1.suite.yaml",))
    assert proc.returncode == exitcodes.PARTIAL, proc.stdout + proc.stderr
    (run_dir,) = [d for d in tmp_path.iterdir() if d.is_dir()]
    record = load_record(run_dir)
    na = [c for c in record.cases if c.verdict == "NOT APPLICABLE"]
    assert na and all(c.message for c in na)
    assert all("royal9" in (c.message or "") for c in na if "paytable-1" in c.suite_file)
    assert record.derived_verdict()[0] == "PARTIAL"  # not applicable cases never make a run partial: the
    assert "overall: PARTIAL (exit 4)" in proc.stdout  # selection of three suites does
    assert record.partial() == f"PARTIAL: {record.meta.selection['selected']} of " \
        f"{record.meta.selection['applicable']} applicable cases selected"


def test_missing_port_is_error_exit_3_everywhere(tmp_path: Path) -> None:
    profile = tmp_path / "bench.yaml"
    text = (ROOT / "device_profiles" / "emulated-hit-and-run.yaml").read_text()
    profile.write_text(text.replace("port: emulator", "port: /dev/serial/by-id/no-such-shoe", 1))
    cmd = [sys.executable, "-m", "harness", "run", str(ROOT / "suites" / "hit-and-run"), "-q",
           "--profile", str(profile), "--report-dir", str(tmp_path / "reports")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    (run_dir,) = [d for d in (tmp_path / "reports").iterdir() if d.is_dir()]
    record = load_record(run_dir)
    assert record.derived_verdict()[0] == "ERROR"
    first = record.cases[0]
    assert first.verdict == "ERROR" and "no-such-shoe" in (first.message or "")
    ran = [c for c in record.cases[1:] if c.verdict != "NOT APPLICABLE"]
    assert ran and all(c.verdict == "SKIP" and "devices unavailable" in (c.message or "") for c in ran)
    summary = proc.stdout[proc.stdout.index("profile "):]
    assert " ERROR " in summary and "FAIL " not in summary and "overall: ERROR or INCOMPLETE (exit 3)" in summary


def test_identity_change_is_fail_exit_1_in_the_summary(make_identity_run) -> None:
    from harness.cli.run_profile import ProfileRun, judge, summary

    run_dir = make_identity_run()
    pr = ProfileRun("bench", Path("bench.yaml"), run_dir, 1, exit_code=0)
    judge(pr)
    assert (pr.verdict, pr.status) == ("FAIL", 1)
    assert any("identity changed" in r for r in pr.reasons)
    assert summary([pr], False, False) == 1


def test_options_after_double_dash_reach_pytest(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--", "-x", "--co")
    assert "collected" in proc.stdout or "<CaseItem" in proc.stdout or "suite.yaml::" in proc.stdout, proc.stdout
    from harness.cli import main

    assert main(["validate", str(ROOT / "suites"), "--", "-x"]) == 2


@pytest.mark.usefixtures("sigint_delivered")  # Ctrl-C must reach the run
def test_ctrl_c_is_interrupted_exit_130_never_a_device_fault(tmp_path: Path) -> None:
    import signal
    import time

    cmd = [sys.executable, "-m", "harness", "run", str(ROOT / "suites"), "-q",
           "--profile", str(ROOT / "device_profiles" / "emulated-midi-5.yaml"), "--report-dir", str(tmp_path)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until some case has finished, then press Ctrl-C
        journals = list(tmp_path.glob("*/journal.jsonl"))
        if journals and journals[0].read_text().count('"type":"case"') >= 5:
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, out + err
    (run_dir,) = [d for d in tmp_path.iterdir() if d.is_dir()]
    record = load_record(run_dir)
    assert record.complete and record.interrupted
    assert record.derived_verdict()[0] == "INTERRUPTED"
    assert not any(c.verdict in ("ERROR", "TIMEOUT", "FAIL") for c in record.cases), [
        (c.case_id, c.verdict, c.message) for c in record.cases if c.verdict != "PASS"]
    assert "INTERRUPTED" in out


def test_one_defect_pre_submission_gap_report_is_short_and_its_command_reproduces(tmp_path: Path) -> None:
    import shlex

    profile = ROOT / "device_profiles" / "emulated-midi-5.yaml"
    cmd = [sys.executable, "-m", "harness", "run", str(ROOT / "suites" / "lockout"), "-q", "--profile", str(profile),
           "--defect", "lockout-late", "--pre-submission", "--report-dir", str(tmp_path / "first")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (run_dir,) = [d for d in (tmp_path / "first").iterdir() if d.is_dir()]
    gap = (run_dir / "gap-report.md").read_text("utf-8")
    findings = gap.count("\n## ") - gap.count("\n## Not checked")
    assert findings == 1, gap
    assert len(gap.splitlines()) <= 40 * findings, gap
    assert gap in proc.stdout  # the vendor sees it at the end of the run
    command = next(line.strip() for line in gap.splitlines() if line.startswith("    tablecert run "))
    argv = shlex.split(command)
    assert "--profile" in argv and "--defect" in argv and "::" in argv[2]
    again = subprocess.run([sys.executable, "-m", "harness", *argv[1:], "-q", "--report-dir", str(tmp_path / "again")],
                           cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 1, again.stdout + again.stderr
    (rerun,) = [d for d in (tmp_path / "again").iterdir() if d.is_dir()]
    record = load_record(rerun)
    assert [c.verdict for c in record.cases] == ["FAIL"]
    assert record.cases[0].case_id == argv[2].split("::")[1]


def test_a_profile_file_of_any_name_gets_a_valid_run_id(tmp_path: Path) -> None:
    """Redteam rows 27-28: a 101-character file name, and `bench table (v2).yaml`: the run id comes
    from the profile's name, made safe and cut, so the run records as any other."""
    text = (ROOT / "device_profiles" / "emulated-hit-and-run.yaml").read_text()
    long_name = tmp_path / ("v12-" + "long-" * 19 + "profile-file-name.yaml")
    spaced = tmp_path / "v13-bench table (v2).yaml"
    long_name.write_text(text)
    spaced.write_text(text.replace("name: emulated-hit-and-run", "name: " + "a-bench-with-a-very-long-name-" * 4))
    cmd = [sys.executable, "-m", "harness", "run", str(ROOT / "suites" / "hit-and-run"), "-q",
           "--profile", str(long_name), "--profile", str(spaced), "--report-dir", str(tmp_path / "reports")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == exitcodes.PARTIAL, proc.stdout + proc.stderr  # one suite folder of the certification
    assert "Traceback" not in proc.stdout + proc.stderr
    runs = sorted(d for d in (tmp_path / "reports").iterdir() if d.is_dir())
    assert len(runs) == 2
    for run in runs:
        assert len(run.name) <= 80 and " " not in run.name and "(" not in run.name
        assert load_record(run).run_id == run.name and verify(run) == []
    assert any(run.name.endswith("-emulated-hit-and-run") for run in runs)


def test_two_suites_sharing_a_case_id_stop_the_run_before_it_starts(tmp_path: Path) -> None:
    """Redteam row 21: no traceback half-way, no case dropped, no PASS: exit 2 naming both places."""
    suite = (ROOT / "suites" / "hit-and-run" / "paytable.suite.yaml").read_text()
    for name in ("a", "b"):
        (tmp_path / f"{name}.suite.yaml").write_text(suite.replace("suite: ", f"suite: {name}-", 1))
    cmd = [sys.executable, "-m", "harness", "run", str(tmp_path / "a.suite.yaml"), str(tmp_path / "b.suite.yaml"),
           "-q", "--profile", str(ROOT / "device_profiles" / "emulated-hit-and-run.yaml"),
           "--report-dir", str(tmp_path / "reports")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{tmp_path / 'b.suite.yaml'}:" in proc.stdout and f"is also in {tmp_path / 'a.suite.yaml'}:" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr and "overall: PASS" not in proc.stdout
    assert not (tmp_path / "reports").exists() or not any((tmp_path / "reports").iterdir())
