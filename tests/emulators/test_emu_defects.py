"""In-process: the lock-out timing of a fast deal, and each named defect bending exactly its one step.

The suites prove each defect is caught (tests/killmatrix); these tests pin what each defect does
to the emulated device, next to what the clean device does with the same input.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from emu_helpers import MEGA_1, PLAIN_NATURAL, Bench, bench, profile

from harness.cards import parse_cards
from harness.emulators import defects
from harness.emulators.config import load_config

MYSTERY = {"configuration": 1, "distribution": "uniform", "paid_by": "table"}


def _wait_round_end(b: Bench, timeout: float = 2.0) -> None:
    b.wait_for("round_end", timeout)


def _payouts(b: Bench, kind: str | None = None) -> dict[int, dict[str, Any]]:
    return {p["seat"]: p for p in b.named("payout") if kind is None or p["type"] == kind}


# -- the lock-out runs from the round's first card ----------------------------------------------------

def test_lock_interval_runs_from_the_first_card_of_the_round() -> None:
    with bench(lockout_latency_us=5_000) as b:
        b.ok("controller", "round.open")
        b.wager(1)
        b.ok("shoe", "test.load", cards=PLAIN_NATURAL)
        b.table.counter.handle_line("CONF:TINT (@1),(@2);INP1:LEV 1.5;INP2:LEV 1.5;INIT")
        b.ok("shoe", "test.deal", pace_us=1_000)  # four cards 1 ms apart, all inside the latency
        _wait_round_end(b)
        lock = b.ok("controller", "test.state")["last_card_lock"]
        assert lock["due_ns"] - lock["card_ns"] == 5_000_000  # from the first card, not the fourth
        assert lock["lock_ns"] >= lock["due_ns"]
        assert b.table.controller.interval_ns() == lock["due_ns"] - lock["card_ns"]  # the line changes at due time
        assert b.table.counter.handle_line("FETC?") == "5.000000000E-3"  # the counter sees the line's edges


def test_a_round_dealt_within_the_latency_settles_when_its_lock_out_falls_due() -> None:
    with bench(lockout_latency_us=3_000) as b:
        b.ok("controller", "round.open")
        b.wager(1)
        with b.table.lock:  # the clock thread cannot lock out (nor settle) while this is held
            b.deal(PLAIN_NATURAL)  # the whole round at once, before the lock-out is due
            assert b.named("round_end") == [] and b.ok("controller", "test.state")["phase"] == "dealing"
            time.sleep(0.005)
        _wait_round_end(b)
        lock = b.ok("controller", "test.state")["last_card_lock"]
        assert lock["lock_ns"] >= lock["due_ns"] == lock["card_ns"] + 3_000_000
        names = [ev["event"] for _, ev in b.events if ev["event"] in ("lockout", "round_end")]
        assert names[-2:] == ["lockout", "round_end"]
        assert b.named("lockout")[-1]["cause"] == "card"
        assert _payouts(b)[1]["returned"] == 0


# -- meters and configuration -------------------------------------------------------------------------

def _play_one(b: Bench, seats: tuple[int, ...] = (1, 2, 3)) -> None:
    b.ok("controller", "round.open")
    for seat in seats:
        b.wager(seat)
    b.ok("controller", "lockout.press")
    b.ok("controller", "round.settle")  # no card dealt: the round is void, the contributions stand


def test_reset_below_floor() -> None:
    change = {"meters": {"mega": {"reset": 4_999_999}}}
    with bench() as b:
        assert "floor" in b.refused("controller", "config.set", **change).reason
    with bench(defects=["reset-below-floor"]) as b:
        assert b.ok("controller", "config.set", **change)["meters"]["mega"]["reset"] == 4_999_999
        assert "floor" in b.refused("controller", "config.set", meters={"mega": {"initial": 4_999_999}}).reason


def test_payout_limit_below_current() -> None:
    change = {"meters": {"mega": {"payout_limit": 5_000_001}}}
    with bench() as b:
        _play_one(b)
        assert "461a.12(k)(1)" in b.refused("controller", "config.set", **change).reason
    with bench(defects=["payout-limit-below-current"]) as b:
        _play_one(b)
        assert b.meters()["meters"]["mega"] == 5_000_018
        assert b.ok("controller", "config.set", **change)["meters"]["mega"]["payout_limit"] == 5_000_001
        assert "reset" in b.refused("controller", "config.set", meters={"major": {"reset": 50_000}}).reason


def test_meter_wraps_past_its_display() -> None:
    change = {"meters": {"minor": {"display_capacity": 40_000}}}
    with bench() as b:
        assert "display capacity" in b.refused("controller", "config.set", **change).reason
    with bench(defects=["meter-wraps"]) as b:
        b.ok("controller", "config.set", **change)
        assert b.meters()["meters"]["minor"] == 45_000 % 40_001
        assert b.ok("controller", "config.set", meters={"mega": {"payout_limit": 200_000_000}})


def test_meter_turned_back_by_a_configuration_write() -> None:
    for bent, want in ((False, (5_000_018, "0.75")), (True, (5_000_000, "0"))):
        with bench(defects=["meter-turned-back"] if bent else []) as b:
            _play_one(b)
            b.ok("controller", "config.set", meters={"mega": {"rate": "1.5"}})
            m = b.meters()
            assert (m["meters"]["mega"], m["residual"]["mega"]) == want
            assert m["meters"]["major"] == 45_007  # an unwritten meter is left alone


# -- the mystery progressive ----------------------------------------------------------------------------

def _mystery_bench(tmp_path: Path | None = None, *bent: str) -> Any:
    data = profile(defects=list(bent))
    data["rules"]["mystery"] = MYSTERY
    return bench(mapping=data, nv_path=None if tmp_path is None else tmp_path / "nv.json")


def test_mystery_redrawn_restarts_the_mystery_progressive(tmp_path: Path) -> None:
    with _mystery_bench(tmp_path, "mystery-redrawn") as b:
        _play_one(b, (1,))
        before = b.meters()["meters"]
        assert before["mystery"] == 25_025 or any(h["meter"] == "mystery" for h in b.named("hit"))
        b.table.set_power(False)
        b.table.set_power(True)
        after = b.meters()["meters"]
        assert after["mystery"] == 25_000 and after["mega"] == before["mega"]  # only the mystery restarts


def test_mystery_past_must_hit_by() -> None:
    for bent in (False, True):
        with _mystery_bench(None, *(["mystery-past-must-hit-by"] if bent else [])) as b:
            b.table.controller.bank["mystery"].amount = 99_990  # white box: the meter just below must-hit-by
            _play_one(b, (1,))
            awards = [h["amount"] for h in b.named("hit") if h["meter"] == "mystery"]
            if not bent:
                assert len(awards) == 1 and awards[0] <= 100_000
                continue
            assert awards == [] and b.meters()["meters"]["mystery"] == 100_015  # past must-hit-by
            b.table.controller.bank["mystery"].amount = 100_990
            _play_one(b, (1,))
            assert [h["amount"] for h in b.named("hit") if h["meter"] == "mystery"] == [100_000]
            assert b.ok("controller", "test.state")["mystery"]["trigger"] <= 100_000  # what NV stores


def test_mystery_wrong_reseed() -> None:
    with _mystery_bench(None) as b:
        assert b.meters()["meters"]["mystery"] == 25_000
    with _mystery_bench(None, "mystery-wrong-reseed") as b:
        assert b.meters()["meters"]["mystery"] == 25_000 - defects.MYSTERY_SHORT_CENTS
        b.table.controller.bank["mystery"].amount = 100_000 - 25  # the next wager reaches must-hit-by
        _play_one(b, (1,))
        assert b.named("reset")[-1] == {"event": "reset", "meter": "mystery", "amount": 20_000}


# -- Royal 9 ------------------------------------------------------------------------------------------

def _r9_round(cards: list[str], *bent: str, seats: tuple[int, ...] = (1, 2)) -> Bench:
    b = Bench(profile(defects=list(bent)))
    b.ok("controller", "round.open")
    for seat in seats:
        b.wager(seat)
    b.deal(cards)
    return b


@pytest.mark.parametrize("cards, bent, seat, clean, defective", [
    ("JH 4S 9H 3C", "r9-suited-paid-as-plain", 2, ("suited-royal9", 5_500), ("royal9", 3_000)),
    ("TS 4S 9H 3C", "r9-ten-is-face", 2, (None, 0), ("royal9", 3_000)),
    (" ".join(MEGA_1), "r9-mega-envy-unpaid", 2, ("mega-envy", 500_500), (None, 0)),
    (" ".join(MEGA_1), "r9-mega-wrong-seat", 2, ("mega-envy", 500_500), ("mega", None)),
    ("KH 2C 9S 5D", "r9-combo-ignores-suits", 1, ("royal9", 3_000), ("minor", None)),
])
def test_royal9_award_defects(cards: str, bent: str, seat: int, clean: tuple[Any, Any],
                              defective: tuple[Any, Any]) -> None:
    for name, want in (("", clean), (bent, defective)):
        b = _r9_round(cards.split(), *([name] if name else []))
        try:
            got = _payouts(b, "royal9")[seat]
            assert got["category"] == want[0], name
            if want[1] is not None:
                assert got["returned"] == want[1], name
        finally:
            b.close()


def test_mega_to_the_wrong_seat_hits_the_meter_for_that_seat() -> None:
    b = _r9_round(MEGA_1, "r9-mega-wrong-seat")
    try:
        assert [(h["seat"], h["meter"]) for h in b.named("hit") if h["meter"]] == [(2, "mega")]
        assert _payouts(b, "royal9")[1]["category"] == "mega-envy"
    finally:
        b.close()


# -- baccarat, EZ, Hit and Run, the shoe ----------------------------------------------------------------

def test_tableau_defects_bend_one_rule() -> None:
    wrong_cell = parse_cards("9H 2H AS 4H 6S 8S")  # Banker 6 v Player third card 6: draws
    assert defects.baccarat_round(wrong_cell).cards_used == 6
    bent = defects.baccarat_round(wrong_cell, {"tableau-wrong-cell"})
    assert (bent.cards_used, bent.winner, bent.player_total, bent.banker_total) == (5, "tie", 6, 6)
    natural = parse_cards("9S 2D 9C 9H 7C 5D")  # Player natural 8 v Banker 1
    assert defects.baccarat_round(natural).cards_used == 4
    bent = defects.baccarat_round(natural, {"natural-does-not-stop"})
    assert (bent.cards_used, bent.winner, bent.natural) == (5, "tie", True)
    ordinary = parse_cards("2S 4C 3H 2D 3D")
    assert defects.baccarat_round(ordinary, {"natural-does-not-stop", "tableau-wrong-cell"}) \
        == defects.baccarat_round(ordinary)


def _game_bench(name: str, *bent: str) -> Bench:
    cfg = load_config(f"device_profiles/{name}.yaml").with_changes(lockout_latency_us=0,
                                                                    defects=frozenset(bent))
    return Bench(cfg.to_mapping())


@pytest.mark.parametrize("bent, kind, cards, clean, defective", [
    ("dragon7-no-banker-push", "banker", "6C 7S 9H 6H 7D 4D", 2_000, 4_000),
    ("panda8-wrong-odds", "panda8", "5D TS 5H 4D 8D", 52_000, 50_000),
])
def test_ez_defects(bent: str, kind: str, cards: str, clean: int, defective: int) -> None:
    for names, want in (((), clean), ((bent,), defective)):
        b = _game_bench("emulated-ez-baccarat", *names)
        try:
            b.ok("controller", "round.open")
            b.wager(1, kind, 2_000)
            b.deal(cards.split())
            assert _payouts(b, kind)[1]["returned"] == want, names
        finally:
            b.close()


@pytest.mark.parametrize("bent, cards, clean, defective", [
    ("hr-pre-2012-paytable", "2S 3H 2D 4C 9S", 4_000, 3_500),
    ("hr-pre-2012-paytable", "2S 2H 2D 2C 3S 3H 6D", 100_000, 50_000),
    ("hr-for-paid-as-to", "AS KH", 2_000, 2_500),
    ("hr-for-paid-as-to", "2S 2H 3D 3C 4S 6H", 12_500, 13_000),
])
def test_hit_and_run_paytable_defects(bent: str, cards: str, clean: int, defective: int) -> None:
    for names, want in (((), clean), ((bent,), defective)):
        b = _game_bench("emulated-hit-and-run", *names)
        try:
            b.ok("controller", "round.open")
            b.wager(1, "hit-and-run", 500)
            b.deal(cards.split())
            assert _payouts(b, "hit-and-run")[1]["returned"] == want, names
        finally:
            b.close()


def test_shoe_misread_reports_and_passes_on_a_six_as_a_nine() -> None:
    for bent, want in ((False, "6D"), (True, "9D")):
        with bench(defects=["shoe-misread"] if bent else []) as b:
            b.ok("controller", "round.open")
            b.wager(1, "player", 1_000)
            b.deal(["9S", "6D", "9C", "3H"])  # Banker 6 + 3 = 9 beats a Player 8; read 9 + 3 = 2, it loses
            assert [c["card"] for c in b.named("card")][1] == want
            assert _payouts(b, "player")[1]["returned"] == (2_000 if bent else 0)
            assert b.ok("controller", "test.state")["cards"][1] == want


def test_wager_after_comm_loss_neither_refuses_nor_locks_out() -> None:
    with bench(defects=["wager-after-comm-loss"]) as b:
        b.ok("controller", "round.open")
        b.ok("controller", "test.link", up=False)
        assert b.wager(1) is None
        assert not any(ev["cause"] == "comm-lost" for ev in b.named("lockout"))
