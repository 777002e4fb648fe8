"""Synthetic runs for the record tests: a recorder driven the way the pytest plugin drives it."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from harness.record import Measurement, RecordedIdentity, RunMeta, RunRecorder

CONTROL_BYTES = bytes(range(0x20)) + b"\x7f"

IDENTITY = {
    "manufacturer": "Acme Gaming",
    "model": "R9-Controller",
    "serial": "SN-0001",
    "software_id": "R9C",
    "controller_type": "progressive",
    "software_name": "r9-firmware",
    "software_version": "2.4.1",
    "program_hash": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "location": "Table 12",
    "asset_number": "A-77",
    "game_type": "midibaccarat",
}


#: the profile snapshot of the synthetic runs: a $5 Royal 9 table on a bench with a counter whose
#: calibration fell due before the run, and the lab report's fields
PROFILE: dict[str, Any] = {
    "name": "emulated-midi-5", "game": "midibaccarat", "jurisdiction": "PA",
    "capabilities": ["royal9", "reset-key", "latency-counter"],
    "rules": {"denomination": 5, "decks": 8,
              "meters": {"mega": {"rate": "1.25%", "initial": "$50,000", "reset": "$50,000"}}},
    "devices": {
        "controller": {"driver": "reference-controller", "port": "/dev/serial/by-id/usb-ctrl"},
        "counter": {"driver": "scpi-counter", "resource": "TCPIP::192.0.2.10::5025::SOCKET",
                    "calibration": {"due": "2020-01-31", "certificate": "CAL-0042", "uncertainty": "± 0.02 ms"}},
        "power": {"driver": "scpi-power", "resource": "TCPIP::192.0.2.11::5025::SOCKET",
                  "calibration": {"due": "2099-12-31", "certificate": "CAL-0043"}},
    },
    "timing": {"lockout_deadline_ms": "1.0"},
    "report": {"accreditation": "ISO/IEC 17025:2017, certificate 1234.01", "reviewed_by": "R. Reviewer",
               "approved_by": "A. Approver"},
}


def identity(**changes: str) -> RecordedIdentity:
    return RecordedIdentity.from_dict({**IDENTITY, **changes})


def build_run(
    root: Path,
    *,
    verdicts: tuple[str, ...] = ("PASS", "FAIL", "ERROR"),
    station: str = "bench-1",
    start_identity: RecordedIdentity | None = None,
    end_identity: RecordedIdentity | None = None,
    finish: bool = True,
    meta: dict[str, Any] | None = None,
    met_devices: bool = True,
) -> Path:
    """A run with one case per verdict; returns the run directory.  ``met_devices`` False: no identity read
    (a split run's worker whose share held only cases that do not apply)."""
    suite = root / "suites" / "royal9" / "paytable.suite.yaml"
    suite.parent.mkdir(parents=True, exist_ok=True)
    suite.write_text("spec: tablecert/suite/1\ncases: []\n", "utf-8")
    profile = root / "emulated-midi-5.yaml"
    profile.write_text("spec: tablecert/profile/1\nname: emulated-midi-5\n", "utf-8")
    fields: dict[str, Any] = {
        "profile_name": "emulated-midi-5",
        "jurisdiction": "PA",
        "game": "midibaccarat",
        "standards": ["58 Pa. Code 633a", "58 Pa. Code 461a.12"],
        "submitting_party": "Acme Gaming LLC",
        "lab": "Example Test Lab",
        "operator": "J. Tester",
        "station": station,
    }
    run_meta = RunMeta(**{**fields, **(meta or {})})
    rec = RunRecorder.create(root / "reports", run_meta)
    rec.add_input_file(suite, "suite")
    rec.add_input_file(profile, "profile")
    rec.set_profile_snapshot(PROFILE)
    rec.set_interpretations(
        [{"id": "r9-envy-requires-wager", "value": True, "default": True, "reason": "envy is paid to wagers"}]
    )
    if met_devices:
        rec.set_identity("start", "controller", start_identity or identity())
    for n, verdict in enumerate(verdicts):
        _case(rec, n, verdict, suite)
    if met_devices:
        rec.set_identity("end", "controller", end_identity or start_identity or identity())
    if finish:
        rec.finish()
    return rec.run_dir


def _case(rec: RunRecorder, n: int, verdict: str, suite: Path) -> None:
    suite_file = "suites/royal9/paytable.suite.yaml"  # as the plugin records it: relative to the checkout
    case = rec.begin_case(
        f"case-{n}-{verdict.lower()}",
        f"Case {n} ({verdict})",
        ["pa-midi-r9-paytable-5"],
        suite_file,
        {"denomination": 5},
    )
    case.step(1, "wager seat 1 royal9 $5", 12, "PASS", {"seat": 1, "amount": 500})
    outcome = verdict if verdict != "SKIP" else "SKIP"
    case.step(2, "deal stack r9-mega", 14, outcome, {"stack": "r9-mega"})
    case.measure(Measurement("mega meter delta", 5, "cents", 5, "PASS", "pa-midi-r9-paytable-5"))
    if verdict == "FAIL":
        case.measure(Measurement("lock-out latency", Decimal("1.7"), "ms", "<= 1.0", "FAIL", "pa-midi-lockout", "late"))
    head = f"# run {rec.run_id} case {n}\n".encode()  # each run's transcripts are its own bytes
    case.attach("shoe-transcript.txt", head + b"TX a55a0101\nRX a55a0102\n" + CONTROL_BYTES, kind="transcript")
    case.meter_timeline("mega", [(0, 5_000_000), (15, 5_000_005), ("30.5", 5_000_010), (45, 5_000_000)])
    message = {"FAIL": "lock-out latency 1.7 ms > 1.0 ms", "ERROR": "DeviceTimeout: controller"}.get(verdict)
    reproduce = {"command": "tablecert run suites/royal9/paytable.suite.yaml -k case", "stack": "KS 9H 9S KH"}
    rec.end_case(case, verdict, message, reproduce if verdict == "FAIL" else None)
