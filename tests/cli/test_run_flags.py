"""``tablecert run``'s pytest habits: --list, --rerun-failed, --json, --junitxml, -- --collect-only,
one line per profile, NOT APPLICABLE never "skipped", colour and NO_COLOR, the time estimate from
the previous record, the exit statuses in --help."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest
from recordkit import build_run

from harness.cli import main
from harness.cli import run_summary as rs
from harness.cli.run_progress import Progress, is_chatter, tally_text
from harness.errors import InputError
from harness.record import load_record

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "device_profiles" / "emulated-mini-baccarat.yaml"
CONTRACT = ROOT / "suites" / "contract"


def test_list_names_each_case_and_why_it_does_not_apply(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(CONTRACT), "--profile", str(PROFILE), "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    cases = [line for line in out if "::" in line]
    applies = [line for line in cases if line.endswith("  applies")]
    na = [line for line in cases if "  N/A: " in line]
    assert len(applies) + len(na) == len(cases) > 0 and applies and na
    assert all(line.split("N/A: ", 1)[1].strip() for line in na)  # every N/A says why
    assert f"{len(applies)} of {len(cases)} selected case(s) apply to emulated-mini-baccarat" in out[-1]


def test_list_follows_k_and_case_selection(capsys: pytest.CaptureFixture[str]) -> None:
    main(["run", str(CONTRACT), "--profile", str(PROFILE), "--list"])
    every = [line.split("::")[1].split()[0] for line in capsys.readouterr().out.splitlines() if "::" in line]
    one = every[0]
    assert main(["run", f"{CONTRACT / 'contract.suite.yaml'}::{one}", "--profile", str(PROFILE), "--list"]) in (0, 2)
    first = next(ln for ln in capsys.readouterr().out.splitlines() if "::" in ln)
    assert first.split("::")[1].split()[0] == one
    main(["run", str(CONTRACT), "--profile", str(PROFILE), "--list", "-k", f"not {one}"])
    listed = [line.split("::")[1].split()[0] for line in capsys.readouterr().out.splitlines() if "::" in line]
    assert one not in listed and len(listed) == len([c for c in every if one not in c])


def test_list_of_nothing_that_applies_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(ROOT / "suites" / "identity"), "--profile", str(PROFILE), "--list"]) == 2
    assert "0 of " in capsys.readouterr().out


def test_help_lists_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "Exit status" in out
    for code in ("0 ", "1 ", "2 ", "3 ", "130 "):
        assert f"\n  {code}" in out


def test_rerun_failed_selects_what_did_not_pass(tmp_path: Path) -> None:
    run = build_run(tmp_path, verdicts=("PASS", "FAIL", "NOT APPLICABLE", "ERROR"),
                    meta={"command": ["pytest", "--tc-profile", "/x/bench.yaml"]})
    record = load_record(run)
    picked, profile = rs.rerun_selection(run, ROOT)
    want = [c.case_id for c in record.cases if c.verdict in ("FAIL", "ERROR")]
    assert [p.split("::")[1] for p in picked] == want and len(want) == 2
    assert all(Path(p.split("::")[0]).is_absolute() for p in picked)
    assert profile == "/x/bench.yaml"


def test_rerun_failed_of_a_passed_record_is_bad_input(tmp_path: Path) -> None:
    run = build_run(tmp_path, verdicts=("PASS", "NOT APPLICABLE"))
    with pytest.raises(InputError, match="nothing to run again"):
        rs.rerun_selection(run, ROOT)
    assert main(["run", "--rerun-failed", str(run)]) == 2
    assert main(["run", "--rerun-failed", str(tmp_path / "nope")]) == 2
    assert main(["run", str(CONTRACT), "--rerun-failed", str(run)]) == 2


def test_output_paths_are_checked_before_anything_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(CONTRACT), "--profile", str(PROFILE), "--json", str(tmp_path)]) == 2
    assert main(["run", str(CONTRACT), "--profile", str(PROFILE), "--junitxml", str(tmp_path / "no" / "x.xml")]) == 2
    assert "a folder" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.timeout(600)  # one certification run of the contract suite
def test_a_run_writes_its_summary_and_one_junit_file(tmp_path: Path) -> None:
    js, xml = tmp_path / "summary.json", tmp_path / "all.xml"
    cmd = [sys.executable, "-m", "harness", "run", str(CONTRACT), "--profile", str(PROFILE), "--report-dir",
           str(tmp_path / "reports"), "--json", str(js), "--junitxml", str(xml), "--", "-v"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 4, proc.stdout + proc.stderr  # one suite of the certification: PARTIAL
    summary = json.loads(js.read_text())
    assert summary["verdict"] == "PARTIAL" and summary["exit"] == 4
    (prof,) = summary["profiles"]
    record = load_record(Path(prof["records"][0]))
    tally: dict[str, int] = {}
    for c in record.cases:
        tally[c.verdict] = tally.get(c.verdict, 0) + 1
    assert prof["tally"] == tally and tally.get("NOT APPLICABLE")
    root = ET.parse(xml).getroot()
    assert root.tag == "testsuites" and int(root.get("tests", "0")) == len(record.cases)
    assert len(root.findall("testsuite")) == 1
    # pytest's lines: no session header, and a case that does not apply is never "skipped"
    assert "test session starts" not in proc.stdout
    assert "NOT APPLICABLE" in proc.stdout and "SKIPPED" not in proc.stdout and "skipped" not in proc.stdout
    assert "emulated-mini-baccarat: PARTIAL in" in proc.stdout and "n/a" in proc.stdout

    # the previous record of the same profile gives the estimate's rate
    stamp = "99991231T235959Z"
    rate = rs.previous_case_seconds(tmp_path / "reports", "emulated-mini-baccarat", stamp)
    ran = [c for c in record.cases if c.verdict != "NOT APPLICABLE"]
    assert rate == pytest.approx(sum(c.duration_ms for c in ran) / 1000 / len(ran))
    assert rs.previous_case_seconds(tmp_path / "reports", "emulated-mini-baccarat", "19700101T000000Z") is None
    assert rs.previous_case_seconds(tmp_path / "reports", "emulated-midi-5", stamp) is None
    assert rs.previous_case_seconds(tmp_path / "reports", "mini-baccarat", stamp) is None  # another profile's tail


@pytest.mark.timeout(600)
def test_collect_only_ends_cleanly_and_writes_no_record(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "harness", "run", str(CONTRACT), "--profile", str(PROFILE), "--report-dir",
           str(tmp_path), "--", "--collect-only", "-q"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "contract.suite.yaml::" in proc.stdout and "ERROR" not in proc.stdout
    assert not any(tmp_path.iterdir())


def test_chatter_is_left_out_and_failures_kept() -> None:
    for line in ("=" * 29 + " test session starts " + "=" * 30, "collected 7 items",
                 "suites/contract/contract.suite.yaml ...nn.n    [100%]", "=== 4 passed, 3 not applicable in 1.2s ===",
                 "\x1b[32m.\x1b[0mn [ 50%]"):
        assert is_chatter(line), line
    for line in ("FAILED suites/x.suite.yaml::a - boom", "ERROR: none of the 7 selected case(s) applies"):
        assert not is_chatter(line), line
    assert tally_text({"PASS": 4, "NOT APPLICABLE": 3, "FAIL": 0}) == "4 pass, 3 n/a"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_on_a_terminal_and_off_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert rs.colour_on(_Tty()) and not rs.colour_on(io.StringIO())
    assert rs.paint("PASS ", "PASS", True) == "\x1b[32mPASS \x1b[0m"
    assert rs.pytest_colour(_Tty()) == ["--color=yes"]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not rs.colour_on(_Tty()) and rs.pytest_colour(_Tty()) == ["--color=no"]
    assert rs.paint("PASS ", "PASS", False) == "PASS "


def test_the_estimate_uses_each_profile_s_previous_rate() -> None:
    runs = [SimpleNamespace(name="a", estimate=10, collected=None, applicable_done=4),
            SimpleNamespace(name="b", estimate=20, collected=None, applicable_done=0)]
    progress = Progress(runs, stream=io.StringIO(), live=False, case_seconds=[2.0, 0.5])
    assert progress.remaining_s() == pytest.approx(6 * 2.0 + 20 * 0.5)
    unknown = Progress(runs, stream=io.StringIO(), live=False, case_seconds=[None, None])
    assert unknown.remaining_s() is not None  # the rate measured so far (4 cases done)
    fresh = [SimpleNamespace(name="a", estimate=10, collected=None, applicable_done=0)]
    assert Progress(fresh, stream=io.StringIO(), live=False).remaining_s() is None


def test_a_coloured_pytest_line_reaches_a_live_display_as_text() -> None:
    stream = io.StringIO()
    runs = [SimpleNamespace(name="a", estimate=1, collected=None, applicable_done=0)]
    with Progress(runs, stream=stream, live=True) as progress:
        progress.output("\x1b[31mFAILED suites/x.suite.yaml::a - expected 1\x1b[0m")
        progress.output("\x1b[32m.\x1b[0mn [100%]")  # chatter: left out
    out = stream.getvalue()
    assert "FAILED suites/x.suite.yaml::a - expected 1" in out and "[100%]" not in out


def test_resume_refuses_list_and_rerun_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = build_run(tmp_path, verdicts=("PASS",))
    assert main(["run", "--resume", str(run), "--list"]) == 2
    assert "drop --list" in capsys.readouterr().err
    assert main(["run", "--resume", str(run), "--rerun-failed", str(run)]) == 2
    assert "drop --rerun-failed" in capsys.readouterr().err
    assert main(["run", "--resume", str(run), "--json", str(tmp_path)]) == 2  # a folder: refused before anything


def test_jobs_runs_profiles_at_once_each_with_its_own_record_and_whole_output(tmp_path: Path) -> None:
    """--jobs 2: two profiles' pytest processes at once; each writes its record, the summary lists
    both in the order given, and each profile's pytest output comes out whole (its -v lines
    together, never interleaved with the other's)."""
    other = ROOT / "device_profiles" / "emulated-ez-baccarat.yaml"
    case = f"{ROOT / 'suites' / 'contract' / 'contract.suite.yaml'}::contract-unknown-command"
    js = tmp_path / "summary.json"
    cmd = [sys.executable, "-m", "harness", "run", case, "--profile", str(PROFILE), "--profile", str(other),
           "--jobs", "2", "--report-dir", str(tmp_path / "reports"), "--json", str(js), "--", "-v"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    summary = json.loads(js.read_text())
    assert [p["name"] for p in summary["profiles"]] == ["emulated-mini-baccarat", "emulated-ez-baccarat"], \
        proc.stdout + proc.stderr
    for prof in summary["profiles"]:
        (record,) = [load_record(Path(r)) for r in prof["records"]]
        assert [(c.case_id, c.verdict) for c in record.cases] == [("contract-unknown-command", "PASS")]
    assert summary["exit"] == 4  # one case of the certification: PARTIAL
    lines = proc.stdout.splitlines()
    ends = [i for i, line in enumerate(lines) if line.startswith("== [")]
    assert len(ends) == 2
    # each profile's verbose line is printed just before its own end line, not among the other's
    for i in ends:
        name = lines[i].split("] ", 1)[1].split(":", 1)[0]
        assert "PASS" in lines[i - 1] and "contract-unknown-command" in lines[i - 1], (name, lines[i - 1])


def test_jobs_is_refused_where_a_person_answers_the_bench(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    data = yaml.safe_load((ROOT / "device_profiles" / "emulated-midi-5.yaml").read_text())
    data["emulator"] = {**data["emulator"], "test_channel": False}
    data["bench"] = {"performers": {"wager": "operator"}, "operator": {"console": False, "terminal": True}}
    person = tmp_path / "person.yaml"
    person.write_text(yaml.safe_dump(data, sort_keys=False))
    assert main(["run", "--profile", str(person), "--profile", str(PROFILE), "--jobs", "2",
                 "--report-dir", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "--jobs: profile" in err and "prompts a person" in err
