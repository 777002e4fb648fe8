"""The observe-only soak (``tablecert soak --observe``) on a bench twin: nothing loaded, the scripted
operator deals from a shoe it shuffled, chips placed from a wager sheet, every invariant applied to
what the devices report; a meter defect and a payout defect are caught the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.bench.twin import bench_twin
from harness.cli import main
from harness.devices.link import DeviceEvent
from harness.profiles import load_profile
from harness.soak.observe import ObserveSoak, run_observe
from harness.soak.run import SoakOptions

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parents[2]
MIDI5 = ROOT / "device_profiles" / "emulated-midi-5.yaml"


def _twin(name: str = "emulated-midi-5") -> object:
    return bench_twin(load_profile(ROOT / "device_profiles" / f"{name}.yaml"))


def test_an_observed_soak_on_a_bench_twin_is_clean() -> None:
    # seed 3: the shoe the scripted operator shuffles deals a minor hit, paid by the attendant and
    # reset by the key turned at the table
    res = run_observe(_twin(), SoakOptions(rounds=30, seed=3, observe=True))  # type: ignore[arg-type]
    assert res.error is None, (res.error, res.evidence)
    assert res.violations == {}, res.messages
    assert res.ok and res.rounds == 30 and res.mode == "observe"
    assert res.shoes == 1 and res.cards_read >= 30 * 4
    assert res.payouts_checked == 30 * 7 * 2  # every seat's Royal 9 and its base wager, every round
    assert res.meter_hits == {"minor": 1}
    assert res.prompts >= 30 * 3  # open the round, the wager sheet, deal; and the shuffle, the key
    assert res.meter_readings == 1 + 30 + 1


@pytest.mark.parametrize(("defect", "kind"), [("residual-dropped", "conservation"), ("r9-ten-is-face", "payout")])
def test_an_observed_soak_catches_a_defect(defect: str, kind: str) -> None:
    res = run_observe(_twin(), SoakOptions(rounds=40, seed=3, observe=True, defect=defect))  # type: ignore[arg-type]
    assert res.error is None, (res.error, res.evidence)
    assert res.violations.get(kind, 0) > 0 and not res.ok, res.violations


@pytest.mark.parametrize("name", ["emulated-hit-and-run", "emulated-ez-baccarat", "emulated-midi-5-mystery"])
def test_other_tables_soak_clean_when_observed(name: str) -> None:
    res = run_observe(_twin(name), SoakOptions(rounds=15, seed=5, seats=(1, 2), observe=True))  # type: ignore[arg-type]
    assert res.error is None, (res.error, res.evidence)
    assert res.violations == {} and res.payouts_checked > 0, res.messages


def test_hours_end_the_soak() -> None:
    res = run_observe(_twin(), SoakOptions(rounds=0, seed=1, observe=True,  # type: ignore[arg-type]
                                           hours=__import__("decimal").Decimal("0.0005")))
    assert res.error is None and res.ok and res.rounds >= 1 and res.hours == "0.0005"


def test_observed_wagers_are_those_the_sensors_still_hold() -> None:
    def ev(name: str, **payload: object) -> DeviceEvent:
        return DeviceEvent(name, dict(payload), 0, 0)

    events = [ev("wager", seat=1, type="royal9", amount=500, accepted=True),
              ev("wager", seat=2, type="royal9", amount=100, accepted=False, reason="bad-amount"),
              ev("wager", seat=3, type="player", amount=500, accepted=True),
              ev("wager_removed", seat=3, type="player", removed=True)]
    assert ObserveSoak._observed_wagers(events) == {(1, "royal9"): 500}


def test_cli_observe_on_a_twin(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["soak", "--observe", "--bench-twin", "--profile", str(MIDI5), "--rounds", "6", "--seed", "2",
                 "--seats", "1,2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["mode"] == "observe" and out["rounds"] == 6 and out["violations"] == 0


@pytest.mark.parametrize(("argv", "words"), [
    (["--observe", "--rounds", "3"], "soak --observe loads nothing"),
    (["--rounds", "3", "--bench-twin"], "go with --observe"),
    (["--observe", "--bench-twin"], "give --rounds N, --hours H or both"),
    (["--observe", "--bench-twin", "--hours", "-1"], "must be more than 0"),
    (["--observe", "--bench-twin", "--hours", "soon"], "expected hours"),
])
def test_cli_bad_observe_input_is_one_line_and_exit_2(argv: list[str], words: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["soak", "--profile", str(MIDI5), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1, err


def test_the_test_channel_soak_points_a_bench_to_observe(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["soak", "--profile", str(ROOT / "device_profiles" / "hardware-example.yaml"), "--rounds", "3"]) == 2
    assert "tablecert soak --observe" in capsys.readouterr().err
