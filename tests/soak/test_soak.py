"""The soak (``tablecert soak``): random rounds through the emulator over a pty, every invariant
checked every round.  A clean emulator gives zero violations; an emulator with one meter defect
(residual dropped, rate off, reset to zero) is caught; a biased shoe fails the frequency tests;
what the soak keeps stays bounded however many violations it sees."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from harness.cards import Card, parse_cards, shoe_composition
from harness.cli import main
from harness.cli.soak import seats_arg
from harness.devices.link import DeviceEvent
from harness.devices.transcript import OUT
from harness.profiles import load_profile
from harness.progressive.invariants import Reading
from harness.soak.result import KEEP_MESSAGES
from harness.soak.rig import BoundedTranscript
from harness.soak.run import Soak, SoakOptions, run_soak
from harness.soak.stats import ALPHA, baccarat_law, dealer_cards_law, pooled_test

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[2]
PROFILES = ROOT / "device_profiles"
MIDI5 = PROFILES / "emulated-midi-5.yaml"


# -- end to end over a pty -----------------------------------------------------------------------

def test_short_soak_over_a_pty_has_zero_violations() -> None:
    # seed 1 deals a major hit at round 94: paid by the attendant, pending, then the reset key
    res = run_soak(load_profile(MIDI5), SoakOptions(rounds=100, seed=1, rss_every=30))
    assert res.error is None, (res.error, res.evidence)
    assert res.violations == {}, res.messages
    assert res.rounds == 100 and res.ok
    assert res.meter_hits == {"major": 1}
    # every seat's Royal 9 wager (and the base wager it rides on, if any) checked every round
    assert res.payouts_checked >= 100 * 7
    assert res.meter_readings == 1 + 100 + 1  # the start, one per round, one while the hit was pending
    names = {t.name for t in res.tests}
    assert names == {f"royal9 seat {s}" for s in range(1, 8)} | {"baccarat outcomes"}
    assert all(t.rounds == 100 for t in res.tests)
    assert res.rss.samples == 5 and res.emulator_rss.samples == 5  # rounds 1, 30, 60, 90 and the last
    assert res.peak_rss_kib > 0


@pytest.mark.parametrize("name", ["emulated-midi-5-mystery", "emulated-hit-and-run", "emulated-ez-baccarat"])
def test_other_games_soak_clean(name: str) -> None:
    res = run_soak(load_profile(PROFILES / f"{name}.yaml"), SoakOptions(rounds=40, seed=5, seats=(1, 2, 3)))
    assert res.error is None, (res.error, res.evidence)
    assert res.violations == {}, res.messages
    assert res.ok and res.payouts_checked >= 40 * 3


class FixedShoe:
    """Stands in for the soak's shoe RNG: every round deals the same cards."""

    def __init__(self, codes: str) -> None:
        self.cards = parse_cards(codes)

    def sample(self, population: object, k: int) -> list[Card]:
        return list(self.cards[:k])


def test_hit_and_run_meter_won_by_every_seat_at_once() -> None:
    # eight aces: soft 17 hit, soft 18 on the eighth card; all seven seats win the meter each round,
    # the first takes it, the others are paid what it showed, all pending until the reset key
    soak = Soak(load_profile(PROFILES / "emulated-hit-and-run.yaml"), SoakOptions(rounds=3, seed=1))
    soak.shoe_rng = FixedShoe("AS AH AD AC AS AH AD AC 2S 3S 4S 5S 6S")  # type: ignore[assignment]
    res = soak.run()
    assert res.error is None and res.violations == {}, res.messages
    assert res.meter_hits == {"hit-and-run": 21} and res.payouts_checked == 21


def test_mega_hit_paid_and_reset() -> None:
    # Player K♠ 9♠, Banker K♠ 9♠: seat 1's personal combination on both hands
    soak = Soak(load_profile(MIDI5), SoakOptions(rounds=2, seed=1))
    soak.shoe_rng = FixedShoe("KS KS 9S 9S 2C 3C")  # type: ignore[assignment]
    res = soak.run()
    assert res.error is None and res.violations == {}, res.messages
    assert res.meter_hits.get("mega") == 2


def test_two_mystery_triggers_in_one_round_each_take_the_meter() -> None:
    # the meter at $499.25 pays seat 3 at $500.00 and reseeds at $250; the new trigger, drawn just
    # above the reseed, pays seat 6 at $250.75; seat 7's 25 cents are left: $250.25.  The second hit
    # is a trigger of its own (not a co-winner of the first, who would be paid what the meter showed)
    soak = Soak(load_profile(PROFILES / "emulated-midi-5-mystery.yaml"), SoakOptions(rounds=1, seed=1))
    soak._feed(281, Reading("mystery", 49925))
    events = [DeviceEvent(name, payload, i, 0) for i, (name, payload) in enumerate([
        ("hit", {"seat": 3, "category": "mystery", "meter": "mystery", "amount": 50000}),
        ("reset", {"meter": "mystery", "amount": 25000}),
        ("payout", {"seat": 3, "type": "royal9", "category": "mystery", "returned": 50000}),
        ("hit", {"seat": 6, "category": "mystery", "meter": "mystery", "amount": 25075}),
        ("reset", {"meter": "mystery", "amount": 25000}),
        ("payout", {"seat": 6, "type": "royal9", "category": "mystery", "returned": 25075}),
    ], start=1)]
    assert soak._meter_events(281, 7 * 500, events) == {}
    soak._feed(281, Reading("mystery", 25025))
    assert soak.result.violations == {}, soak.result.messages
    assert soak.result.meter_hits == {"mystery": 2}


@pytest.mark.slow  # ~60 s on a loaded machine
def test_mystery_hits_within_must_hit_by() -> None:
    # 7 seats x 25 cents a round reach the $1,000 must-hit-by from the $250 reseed within 429 rounds
    res = run_soak(load_profile(PROFILES / "emulated-midi-5-mystery.yaml"), SoakOptions(rounds=440, seed=8))
    assert res.error is None and res.violations == {}, res.messages
    assert res.meter_hits.get("mystery", 0) >= 1


def test_soak_over_tcp() -> None:
    res = run_soak(load_profile(MIDI5), SoakOptions(rounds=15, seed=2, listen="tcp"))
    assert res.ok, (res.error, res.messages)


@pytest.mark.parametrize("defect", ["residual-dropped", "rate-off"])
def test_a_meter_defect_is_caught(defect: str) -> None:
    res = run_soak(load_profile(MIDI5), SoakOptions(rounds=20, seed=3, defect=defect))
    assert res.error is None
    assert res.total_violations > 0 and not res.ok
    assert res.violations.get("conservation", 0) > 0
    assert any("do not match the growth plus residual" in m for m in res.messages)


def test_reset_to_zero_after_a_hit_is_caught() -> None:
    # seed 1 deals a major hit at round 94: the reset key must bring the meter back to $450
    res = run_soak(load_profile(MIDI5), SoakOptions(rounds=100, seed=1, defect="reset-zero"))
    assert res.error is None
    assert res.meter_hits.get("major", 0) >= 1
    assert res.violations.get("reset-amount", 0) >= 1
    assert res.violations.get("below-reset", 0) >= 1


def test_a_biased_shoe_fails_the_frequency_tests() -> None:
    soak = Soak(load_profile(MIDI5), SoakOptions(rounds=150, seed=4))
    # no nines: no Royal 9 can ever be dealt, yet every deal is a legal 8-deck sequence
    soak.shoe_cards = [c for c, n in shoe_composition(8).items() for _ in range(n) if c.rank != 9]
    res = soak.run()
    assert res.error is None and res.violations == {}, res.messages
    assert any(t.failed for t in res.tests if t.name.startswith("royal9"))
    assert not res.ok


def test_violation_messages_stay_bounded() -> None:
    res = run_soak(load_profile(MIDI5), SoakOptions(rounds=80, seed=6, defect="rate-off"))
    assert res.violations["conservation"] == 80 * 3  # every meter, every reading after the first
    assert len(res.messages) == KEEP_MESSAGES


# -- the command line ----------------------------------------------------------------------------

def test_cli_json_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "soak.json"
    code = main(["soak", "--profile", str(MIDI5), "--rounds", "12", "--seed", "9", "--seats", "1,2",
                 "--json", "--report", str(report)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["rounds"] == 12 and out["violations"] == 0 and out["seats"] == [1, 2] and out["ok"]
    assert json.loads(report.read_text(encoding="utf-8"))["seed"] == 9


def test_cli_exit_1_on_a_defect(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["soak", "--profile", str(MIDI5), "--rounds", "5", "--seed", "1", "--defect", "residual-dropped"])
    captured = capsys.readouterr()
    assert code == 1
    assert "conservation:" in captured.out and "result: FAIL" in captured.out
    assert "\rsoak [" in captured.err  # the progress bar


def test_sigterm_ends_a_background_soak_with_its_summary() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "harness", "soak", "--profile", str(MIDI5), "--rounds", "1000000",
                             "--seed", "1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        seen = b""
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stderr, selectors.EVENT_READ)
            while b"rounds/s" not in seen and time.monotonic() < deadline:
                if sel.select(1.0):
                    chunk = os.read(proc.stderr.fileno(), 4096)
                    if not chunk:
                        break
                    seen += chunk
        assert b"rounds/s" in seen, seen  # the progress bar: at least one round played
        proc.send_signal(signal.SIGTERM)
        out, _err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 130
    text = out.decode()
    assert "interrupted" in text and "result: FAIL" in text and "violations: 0" in text


@pytest.mark.parametrize("argv, words", [
    (["--seats", "8"], "seat(s) 8 not in the profile"),
    (["--seats", "one"], "expected 'all' or seat numbers"),
    (["--defect", "no-such-defect"], "unknown"),
    (["--rounds", "0"], "argument --rounds: 0: out of range (1..100,000,000)"),
    (["--seats", "\u0661"], "--seats '\u0661': expected 'all' or seat numbers such as 1,2,3 (seat '\u0661'"),
])
def test_cli_bad_input_is_one_line_and_exit_2(argv: list[str], words: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    base = {"--rounds": "3"}
    args = ["soak", "--profile", str(MIDI5)]
    merged = dict(base, **dict(zip(argv[::2], argv[1::2], strict=True)))
    for key, value in merged.items():
        args += [key, value]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1


# -- pure parts ----------------------------------------------------------------------------------

def test_pooled_chi_square() -> None:
    law = {"a": Fraction(1, 2), "b": Fraction(1, 4), "c": Fraction(1, 4) - Fraction(1, 10**6),
           "rare": Fraction(1, 10**6)}
    fair = pooled_test("fair", {"a": 500, "b": 250, "c": 250}, law)
    assert fair.chi is not None and fair.chi.p_value > 0.99
    assert "c+1 rarer" in fair.bins  # the rare bin (expected 0.001) merged into the next smallest
    skewed = pooled_test("skewed", {"a": 400, "b": 350, "c": 250}, law)
    assert skewed.failed and skewed.chi is not None and skewed.chi.p_value < ALPHA
    impossible = pooled_test("impossible", {"a": 10, "z": 1}, law)
    assert impossible.failed and impossible.chi is not None and impossible.chi.p_value == 0.0
    few = pooled_test("few", {"a": 3}, law)
    assert few.chi is None and "too few" in few.note


def test_laws_sum_to_one() -> None:
    assert sum(baccarat_law(8).values()) == 1
    assert sum(dealer_cards_law(6, True).values()) == 1


def test_bounded_transcript_keeps_the_latest() -> None:
    t = BoundedTranscript("shoe", 3)
    for i in range(10):
        t.add(OUT, "note", t_ns=i, text=str(i))
    assert len(t) == 3 and [e.text for e in t.entries] == ["7", "8", "9"]
    assert t.tail(2) and t.raw(OUT) == b""


def test_seats_arg() -> None:
    assert seats_arg("all") is None
    assert seats_arg("1,3") == (1, 3)
