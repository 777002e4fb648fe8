"""Required and permitted configuration writes (``config_writes:``, harness.suites.steps.permitted).

A refusal of a write the profile does not declare writable is recorded and ends the case NOT
APPLICABLE; a refusal of a field declared writable between rounds stays a FAIL; a write the device
takes and applies wrongly is a FAIL whatever the declaration says."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from harness.devices.link import NakError
from harness.emulators.personas import apply_persona
from harness.profiles import load_profile
from harness.profiles.configwrites import ALL_BETWEEN_ROUNDS
from harness.record import load_record
from harness.suites.load.model import Step
from harness.suites.run.context import Measured, NotApplicableHere
from harness.suites.steps.permitted import fields_written, never_written
from harness.suites.steps.royal9 import configure_combos

ROOT = Path(__file__).resolve().parents[2]
MIDI5 = ROOT / "device_profiles" / "emulated-midi-5.yaml"
STEP = Step("configure_combos", {"order": "rotated"}, "x.suite.yaml", 1, 1, "configure_combos: rotated")


class _Ctrl:
    """A controller that refuses the combinations write, or takes it and reads back ``reads``."""

    def __init__(self, refuse: bool, reads: list[dict[str, Any]]) -> None:
        self.refuse, self.reads = refuse, reads

    def set_config(self, **changes: Any) -> None:
        if self.refuse:
            raise NakError("config.set", "REFUSED", "cannot change while the meters show amounts", 1)

    def config(self) -> Any:
        return SimpleNamespace(seats=[SimpleNamespace(seat=s["seat"], combo=s.get("combo")) for s in self.reads])


def _runner(writes: str, ctrl: _Ctrl, shown: dict[str, int] | None = None) -> Any:
    shown = {"mega": 5_000_000, "major": 45_000, "minor": 45_000} if shown is None else shown
    profile = dataclasses.replace(load_profile(MIDI5),
                                  config_writes={**ALL_BETWEEN_ROUNDS, "combinations": writes})
    measured: list[Measured] = []

    def measure(step: Step, name: str, value: Any, limit: Any, passed: bool, **kw: Any) -> None:
        measured.append(Measured(name, value, "", limit, passed, "c"))

    oracle: Any = SimpleNamespace()
    oracle.with_combos = lambda combos: oracle
    meters = SimpleNamespace(meters=dict(shown))
    return SimpleNamespace(profile=profile, controller=lambda: ctrl, measure=measure, measured=measured, oracle=oracle,
                           read_meters=lambda: meters)


def _filed() -> list[dict[str, Any]]:
    return [{"seat": s.seat, "combo": [c.code for c in s.combo] if s.combo else None}
            for s in load_profile(MIDI5).rules.seats]


def test_a_refusal_the_profile_permits_is_recorded_and_ends_the_case_not_applicable() -> None:
    runner = _runner("no-amount-shown", _Ctrl(refuse=True, reads=_filed()))
    with pytest.raises(NotApplicableHere, match=r"refuses combinations writes .*no-amount-shown"):
        configure_combos(runner, STEP, "rotated")
    (m,) = runner.measured
    assert m.passed and m.value.startswith("refused (REFUSED") and "no-amount-shown" in m.limit
    assert "mega, major, minor show amounts" in m.limit


def test_a_refusal_while_no_meter_shows_an_amount_is_not_permitted_by_no_amount_shown() -> None:
    runner = _runner("no-amount-shown", _Ctrl(refuse=True, reads=_filed()), shown={"mega": 0, "major": 0})
    configure_combos(runner, STEP, "rotated")
    assert [m.passed for m in runner.measured] == [False]


def test_a_refusal_of_a_field_declared_writable_is_still_a_fail() -> None:
    runner = _runner("between-rounds", _Ctrl(refuse=True, reads=_filed()))
    configure_combos(runner, STEP, "rotated")
    assert [m.passed for m in runner.measured] == [False]


def test_a_write_taken_and_applied_wrongly_fails_whatever_the_declaration() -> None:
    for writes in ("no-amount-shown", "between-rounds"):
        runner = _runner(writes, _Ctrl(refuse=False, reads=_filed()))  # answers OK, keeps the filed ones
        configure_combos(runner, STEP, "rotated")
        assert [m.passed for m in runner.measured] == [True, False], writes


def test_a_case_writing_a_field_declared_never_does_not_apply() -> None:
    never = dataclasses.replace(load_profile(MIDI5), config_writes={**ALL_BETWEEN_ROUNDS, "denomination": "never"})
    case = SimpleNamespace(steps=[Step("configure_denomination", {"to": "other"}, "x", 1, 1, ""),
                                  Step("configure_meter", {"meter": "mega", "expect": "refused"}, "x", 2, 1, "")])
    assert fields_written(case.steps) == ["denomination"]  # an expected refusal needs no writable field
    why = never_written(never, case)  # type: ignore[arg-type]
    assert why is not None and "refuses denomination writes" in why
    assert never_written(load_profile(MIDI5), case) is None  # type: ignore[arg-type]


def _run(tmp_path: Path, data: dict[str, Any], cases: list[str]) -> dict[str, str]:
    path = tmp_path / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    report = tmp_path / f"r-{data['name']}"
    cmd = [sys.executable, "-m", "harness", "run", *cases, "-q", "--profile", str(path), "--report-dir", str(report)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert report.is_dir(), proc.stdout[-2000:] + proc.stderr[-2000:]
    (run_dir,) = [d for d in report.iterdir() if d.is_dir()]
    return {c.case_id: c.verdict for c in load_record(run_dir).cases}


def test_a_device_that_keeps_its_combinations_passes_declared_and_fails_undeclared(tmp_path: Path) -> None:
    cases = ["suites/royal9/wagering.suite.yaml::r9-combinations-written-between-rounds",
             "suites/progressive/meters.suite.yaml::denomination-write-meets-its-floors"]
    shipped = yaml.safe_load(MIDI5.read_text())
    declared = apply_persona(shipped, "no-rewrite-while-amounts")
    declared["name"] = "declared"
    assert _run(tmp_path, declared, cases) == {"r9-combinations-written-between-rounds": "NOT APPLICABLE",
                                               "denomination-write-meets-its-floors": "NOT APPLICABLE"}
    persona = {**shipped["emulator"], "persona": "no-rewrite-while-amounts"}
    undeclared = dict(shipped, name="undeclared", emulator=persona)
    verdicts = _run(tmp_path, undeclared, cases)  # config-write: every field writable between rounds
    assert verdicts == {"r9-combinations-written-between-rounds": "FAIL",
                        "denomination-write-meets-its-floors": "FAIL"}


def test_a_royal9_refusal_may_give_either_true_cause_and_no_other() -> None:
    from harness.suites.steps.permitted import refusal_reasons

    bare = SimpleNamespace(round=SimpleNamespace(wagers={}), requires_base_wager=True)
    based = SimpleNamespace(round=SimpleNamespace(wagers={(3, "banker"): 1000}), requires_base_wager=True)
    optional = SimpleNamespace(round=SimpleNamespace(wagers={}), requires_base_wager=False)
    assert refusal_reasons(bare, 3, "royal9", "bad-seat") == ("bad-seat", "no-base-wager")  # type: ignore[arg-type]
    assert refusal_reasons(based, 3, "royal9", "locked-out") == ("locked-out",)  # type: ignore[arg-type]
    assert refusal_reasons(optional, 3, "royal9", "bad-seat") == ("bad-seat",)  # type: ignore[arg-type]
    assert refusal_reasons(bare, 3, "player", "locked-out") == ("locked-out",)  # type: ignore[arg-type]


def test_a_write_refused_as_live_between_rounds_also_cites_the_clause_that_defines_live() -> None:
    # docs/protocol.md section 6.4: live is "a round is open or dealing, or any wager is on the layout";
    # a between-rounds write refused "live" with none of these FAILs under that clause too, and only then
    from harness.suites.run.context import RoundLog
    from harness.suites.steps.permitted import REFUSED_WHILE_LIVE, refused_as_live

    case = SimpleNamespace(clauses=("contract-6-4-config-set-arguments",))
    runner: Any = SimpleNamespace(case=case, round=RoundLog())
    assert refused_as_live(runner, STEP, "REFUSED: live") == f"contract-6-4-config-set-arguments,{REFUSED_WHILE_LIVE}"
    assert refused_as_live(runner, STEP, "REFUSED: cannot change while the meters show amounts") is None
    runner.round.opened = True  # a round of the case is open: live is true, the refusal is due
    assert refused_as_live(runner, STEP, "REFUSED: live") is None
    runner.round.settled = True
    assert refused_as_live(runner, STEP, "REFUSED: live") is not None
    runner.round = RoundLog(wagers={(1, "player"): 500})  # a wager on the layout
    assert refused_as_live(runner, STEP, "REFUSED: live") is None
