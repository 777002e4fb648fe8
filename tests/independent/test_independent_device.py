"""The independent table (tests/independent/indie_table), started as a process of its own, certified
through the CLI as a user would: a suite passes on it clean and fails on it with a fault."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import probe
import pytest
from indie_table import wire
from run_independent import HERE, PROFILE, ROOT, Device

TABLECERT = ROOT / ".venv" / "bin" / "tablecert"
IDENTITY = "suites/identity/identity.suite.yaml"
CONTRACT = "suites/contract/contract.suite.yaml"


def _run(tmp_path: Path, faults: list[str], suite: str, profile_path: Path = PROFILE,
         timeout_s: float = 240, *extra: str) -> tuple[int, dict[str, object]]:
    dev = Device(tmp_path, faults, profile_path)
    try:
        dev.wait_ready(deadline_s=20)
        profile = dev.profile()
        reports = tmp_path / "reports"
        proc = subprocess.run([str(TABLECERT), "run", "--profile", str(profile), "--report-dir", str(reports), "-q",
                               *extra, *([suite] if suite else [])], cwd=ROOT, timeout=timeout_s, check=False,
                              capture_output=True, text=True)
    finally:
        dev.stop()
    records = sorted(reports.glob("*/record.json"))
    assert records, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.returncode, json.loads(records[-1].read_text())


def test_golden_frames_of_the_protocol_document() -> None:
    assert wire.crc16(b"123456789") == 0x29B1
    hello = wire.encode(wire.REQ, 1, {"cmd": "hello", "version": 1})
    assert hello.hex() == ("a55a01010001001b7b22636d64223a2268656c6c6f222c2276657273696f6e223a317d7a5a")
    nak = wire.encode(wire.NAK, 3, {"code": "REFUSED", "reason": "live"})
    assert nak[-2:] == b"\x15\x5a"
    assert wire.Decoder().feed(b"\x00\x01" + hello) == [(wire.REQ, 1, {"cmd": "hello", "version": 1})]


def test_clean_table_passes_the_identity_suite(tmp_path: Path) -> None:
    rc, record = _run(tmp_path, [], IDENTITY)
    assert rc == 4  # one suite of the certification: PARTIAL, every selected case passed
    assert record["verdict"] == "PARTIAL"
    cases = record["cases"]
    assert isinstance(cases, list) and cases
    assert all(c["verdict"] in ("PASS", "NOT APPLICABLE") for c in cases)
    assert any(c["verdict"] == "PASS" for c in cases)


@pytest.mark.slow
@pytest.mark.timeout(1500)
@pytest.mark.parametrize("profile", ["independent-midi-5.yaml", "independent-midi-1.yaml"])
def test_clean_table_passes_every_suite(tmp_path: Path, profile: str) -> None:
    """The whole certification (every suite) on a device tablecert did not build: every case PASS or
    NOT APPLICABLE with its reason, so the run is a PASS, not a selection (issue 27)."""
    rc, record = _run(tmp_path, [], "", HERE / profile, timeout_s=1400)
    cases = record["cases"]
    assert isinstance(cases, list)
    bad = [(c["case_id"], c["verdict"], (c.get("message") or "")[:200]) for c in cases
           if c["verdict"] not in ("PASS", "NOT APPLICABLE")]
    # The independent table's lock-out line and counter are emulated by a Python process on this host: a
    # round locked out late while the host is loaded (CI runs three workers on two cores) is the host's, not
    # the device's.  A case that FAILed on lock-out latency alone is played again alone, once, and must PASS
    # then; a table that is really late FAILs twice.
    late = [case for case, verdict, _m in bad if verdict == "FAIL" and _latency_only(cases, case)]
    for case in late:
        again_rc, again = _run(tmp_path / f"again-{case}", [], "", HERE / profile, 300, "-k", case)
        verdicts = {c["case_id"]: c["verdict"] for c in again["cases"]}  # type: ignore[union-attr]
        assert verdicts.get(case) == "PASS", (case, verdicts.get(case), again_rc)
    bad = [b for b in bad if b[0] not in late]
    assert not bad and (rc == 0 or late) and record["verdict"] in ("PASS", "FAIL" if late else "PASS"), bad
    assert sum(c["verdict"] == "PASS" for c in cases) > 60


def _latency_only(cases: list[dict[str, object]], case_id: str) -> bool:
    """Whether every failing measurement of the case is a lock-out latency (629a Royal 9 (a)(2))."""
    case = next(c for c in cases if c["case_id"] == case_id)
    failing = [m for m in case.get("measurements") or [] if isinstance(m, dict) and m.get("outcome") == "FAIL"]
    return bool(failing) and all("pa-midi-r9-a2-lockout" in str(m.get("clause")) and
                                 ("later than" in str(m.get("name")) or "latency" in str(m.get("name")))
                                 for m in failing)


@pytest.mark.slow
def test_void_keeps_layout_fault_fails_the_contract_suite(tmp_path: Path) -> None:
    rc, record = _run(tmp_path, ["void-keeps-layout"], CONTRACT)
    assert rc == 1
    assert record["verdict"] == "FAIL"
    failed = {c["case_id"]: c for c in record["cases"] if c["verdict"] == "FAIL"}
    # the void round's own case, and the voids after wagering closed, after every way a round ends, with the
    # lines opened again, after a link cut, after a void and after a dropped line (played by the explorer's model:
    # the layout the void left)
    assert set(failed) == {"contract-void-round", "contract-void-after-wagering-closed-settles-the-round",
                           "contract-round-open-taken-after-every-end", "contract-wagering-on-a-line-opened-again",
                           "contract-void-books-no-contribution", "contract-removal-refused-while-the-link-is-down",
                           "contract-line-drop-is-the-devices-own"}
    assert "contract-8-void-round" in failed["contract-void-round"]["clauses"]


def test_device_refuses_an_unknown_fault_name(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "indie_table", "--state-dir", str(tmp_path), "--fault", "nope"],
                          cwd=Path(__file__).parent, capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(probe.SCENARIOS))
def test_fault_shows_on_the_wire(fault: str) -> None:
    scenario = probe.SCENARIOS[fault]
    assert probe.observe(None, scenario) != probe.observe(fault, scenario)
