"""In-process: each defect of the shapes a sampling suite misses (harness.emulators.defect_branches) bends its one
step, next to what the clean device does with the same input.  The suites prove each is caught
(tests/killmatrix); these tests pin what each does to the emulated device."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from emu_helpers import MEGA_1, PLAIN_NATURAL, Bench, bench, default_profile, profile

from harness.emulators import defects

MYSTERY = {"configuration": 1, "distribution": "uniform", "paid_by": "table"}
EZ: dict[str, Any] = {
    "game": "ez-baccarat",
    "rules": {"decks": 8, "commission": "0%", "seats": [{"seat": 1}, {"seat": 2}, {"seat": 3}]},
    "emulator": {"lockout_latency_us": 0, "deal_pace_us": 0, "seed": 7, "nv_fsync": False},
}


def _open_with(b: Bench, seats: tuple[int, ...] = (1,)) -> None:
    b.ok("controller", "round.open")
    for seat in seats:
        b.wager(seat)


def _mega_paid(b: Bench) -> None:
    """Seat 1's mega jackpot, left waiting for the reset key."""
    _open_with(b, (1,))
    b.deal(MEGA_1)
    b.wait_for("round_end")


def test_lockout_seat_open_leaves_the_second_seat_open() -> None:
    for bent in (False, True):
        with bench(defects=["lockout-seat-open"] if bent else []) as b:
            _open_with(b, (1, 2, 3))
            b.ok("controller", "lockout.press")
            got = {seat: b.wager(seat, "player", 1000) for seat in (1, 2, 3)}
            assert got == {1: "locked-out", 2: None if bent else "locked-out", 3: "locked-out"}


def test_side_wagers_open_after_no_more_bets() -> None:
    for bent in (False, True):
        data = copy.deepcopy(EZ)
        data["emulator"]["defects"] = ["side-wagers-open"] if bent else []
        with bench(mapping=data) as b:
            b.ok("controller", "round.open")
            b.wager(1, "player", 1000)
            b.ok("controller", "round.no_more_bets")
            assert b.wager(2, "player", 1000) == "no-more-bets"
            assert b.wager(2, "dragon7", 500) == (None if bent else "no-more-bets")
            assert b.wager(3, "panda8", 500) == (None if bent else "no-more-bets")


def test_display_limit_one_cent_over_on_the_minor_meter_only() -> None:
    minor = {"meters": {"minor": {"payout_limit": 9_999_999 + 1}}}
    mega = {"meters": {"mega": {"payout_limit": 99_999_999 + 1}}}
    with bench() as b:
        assert "display capacity" in b.refused("controller", "config.set", **minor).reason
    with bench(defects=["display-limit-one-cent-over"]) as b:
        assert b.ok("controller", "config.set", **minor)["meters"]["minor"]["payout_limit"] == 10_000_000
        assert "display capacity" in b.refused("controller", "config.set", **mega).reason
        assert b.refused("controller", "config.set", meters={"minor": {"payout_limit": 10_000_001}})


def test_floor_major_initial_unchecked() -> None:
    initial = {"meters": {"major": {"initial": 44_999}}}
    reset = {"meters": {"major": {"reset": 44_999}}}
    with bench() as b:
        assert "floor" in b.refused("controller", "config.set", **initial).reason
    with bench(defects=["floor-major-initial-unchecked"]) as b:
        assert b.ok("controller", "config.set", **initial)["meters"]["major"]["initial"] == 44_999
        assert "floor" in b.refused("controller", "config.set", **reset).reason
        assert "floor" in b.refused("controller", "config.set", meters={"minor": {"initial": 44_999}}).reason


def test_mega_hit_unmetered() -> None:
    for bent in (False, True):
        with bench(defects=["mega-hit-unmetered"] if bent else []) as b:
            _mega_paid(b)
            won = next(h["amount"] for h in b.named("hit") if h["meter"] == "mega")
            b.ok("controller", "reset_key", meter="mega")
            m = b.meters()
            assert (m["paid_by_attendant"], m["cumulative_paid"]) == ((0, 0) if bent else (won, won))


def test_refused_wager_counted_after_the_lock_out_only() -> None:
    for bent in (False, True):
        with bench(defects=["refused-wager-counted"] if bent else []) as b:
            _open_with(b, (1,))
            b.ok("controller", "lockout.press")
            assert b.wager(2) == "locked-out"
            m = b.meters()
            assert (m["meters"]["mega"], m["residual"]["mega"]) == ((5_000_012, "0.5") if bent
                                                                   else (5_000_006, "0.25"))
            assert b.ok("sensors", "wager.list")["wagers"] == [{"seat": 1, "type": "royal9", "amount": 500}]
    with bench(defects=["refused-wager-counted"]) as b:  # refused after no more bets: not counted
        _open_with(b, (1,))
        b.ok("controller", "round.no_more_bets")
        assert b.wager(2) == "no-more-bets"
        assert b.meters()["meters"]["mega"] == 5_000_006


def test_rate_write_deferred_until_the_next_power_up(tmp_path: Path) -> None:
    for bent in (False, True):
        with bench(defects=["rate-write-deferred"] if bent else [], nv_path=tmp_path / f"nv-{bent}.json") as b:
            b.ok("controller", "config.set", meters={"mega": {"rate": "1.5"}})
            assert b.ok("controller", "config.get")["meters"]["mega"]["rate"] == "1.5"
            _open_with(b, (1,))
            b.ok("controller", "lockout.press")  # the wager contributes: 7.5 c at 1.5%, 6.25 c at 1.25%
            assert b.meters()["meters"]["mega"] == (5_000_006 if bent else 5_000_007)
            b.ok("controller", "round.settle")
            b.table.set_power(False)
            b.table.set_power(True)
            before = b.meters()
            _open_with(b, (1,))
            b.ok("controller", "lockout.press")
            now = b.meters()
            grown = (now["meters"]["mega"] - before["meters"]["mega"], now["residual"]["mega"])
            assert grown == ((7, "0.75") if bent else (8, "0"))  # after the power-up the written rate is used


def test_reset_key_idle_resets_the_meter() -> None:
    for bent in (False, True):
        with bench(defects=["reset-key-idle-resets"] if bent else []) as b:
            _open_with(b, (1,))
            b.ok("controller", "lockout.press")
            b.ok("controller", "round.settle")
            if bent:
                assert b.ok("controller", "reset_key", meter="mega")["amount"] == 5_000_000
                assert b.named("reset")[-1]["meter"] == "mega"
            else:
                assert "no hit is waiting" in b.refused("controller", "reset_key", meter="mega").reason
            assert b.meters()["meters"]["mega"] == (5_000_000 if bent else 5_000_006)


def test_residual_dropped_at_reset() -> None:
    for bent in (False, True):
        with bench(defects=["residual-dropped-at-reset"] if bent else []) as b:
            _mega_paid(b)
            assert b.meters()["residual"]["mega"] == "0.25"
            b.ok("controller", "reset_key", meter="mega")
            m = b.meters()
            assert (m["meters"]["mega"], m["residual"]["mega"]) == (5_000_000, "0" if bent else "0.25")


def _mystery_bench(*bent: str) -> Any:
    data = profile(defects=list(bent))
    data["rules"]["mystery"] = MYSTERY
    return bench(mapping=data)


def _mystery_round(b: Bench, amount: int) -> list[int]:
    """One Royal 9 wager with the mystery meter set just below ``amount`` (white box); the awards."""
    b.table.controller.bank["mystery"].amount = amount - 10
    seen = len(b.named("hit"))
    _open_with(b, (1,))
    b.ok("controller", "lockout.press")
    b.ok("controller", "round.settle")
    return [h["amount"] for h in b.named("hit")[seen:] if h["meter"] == "mystery"]


def test_mystery_second_award_late() -> None:
    for bent in (False, True):
        with _mystery_bench(*(["mystery-second-award-late"] if bent else [])) as b:
            assert _mystery_round(b, 100_000) == [100_000]  # the first award: by must-hit-by either way
            second = _mystery_round(b, 100_000)
            assert second == ([] if bent else [100_000])
            if bent:
                assert b.meters()["meters"]["mystery"] == 100_015  # past must-hit-by
                assert b.ok("controller", "test.state")["mystery"]["trigger"] <= 100_000  # what NV stores


def test_mystery_rewrite_disarms_until_the_next_award() -> None:
    for bent in (False, True):
        with _mystery_bench(*(["mystery-rewrite-disarms"] if bent else [])) as b:
            _open_with(b, (1,))
            b.ok("controller", "lockout.press")
            b.ok("controller", "round.settle")
            b.ok("controller", "config.set", mystery=MYSTERY)  # the configuration in force, again
            assert _mystery_round(b, 100_000) == ([] if bent else [100_000])
            if bent:
                assert _mystery_round(b, 101_000) == [100_000]  # awarded late, then armed again
                assert _mystery_round(b, 100_000) == [100_000]


def test_base_withdrawn_under_royal9() -> None:
    for bent in (False, True):
        with bench(mapping=default_profile(defects=["base-withdrawn-under-royal9"] if bent else [])) as b:
            b.ok("controller", "round.open")
            b.wager(1, "player", 1000)
            b.wager(1, "tie", 500)
            b.wager(1)
            b.ok("sensors", "wager.remove", seat=1, type="tie")  # another base wager stays under it
            if bent:
                b.ok("sensors", "wager.remove", seat=1, type="player")
            else:
                assert "Royal 9" in b.refused("sensors", "wager.remove", seat=1, type="player").reason
            listed = {(w["seat"], w["type"]) for w in b.ok("sensors", "wager.list")["wagers"]}
            assert listed == ({(1, "royal9")} if bent else {(1, "royal9"), (1, "player")})
            b.ok("sensors", "wager.remove", seat=1, type="royal9")  # the Royal 9 wager itself may go


def test_lockout_late_intermittent_on_every_twentieth_round() -> None:
    with bench(defects=["lockout-late-intermittent"], lockout_latency_us=300) as b:
        late = []
        for _ in range(defects.INTERMITTENT_EVERY + 1):
            _open_with(b, (1,))
            b.deal(PLAIN_NATURAL)
            b.wait_for("round_end")
            b.events.clear()
            lock = b.ok("controller", "test.state")["last_card_lock"]
            late.append(lock["due_ns"] - lock["card_ns"])
        assert late[defects.INTERMITTENT_EVERY - 1] == 5_300_000  # round 20
        assert set(late[:defects.INTERMITTENT_EVERY - 1] + late[defects.INTERMITTENT_EVERY:]) == {300_000}


def test_royal9_open_after_the_lock_out() -> None:
    for bent in (False, True):
        with bench(defects=["royal9-open-after-lockout"] if bent else []) as b:
            _open_with(b, (1,))
            b.ok("controller", "lockout.press")
            assert b.wager(2, "player", 1000) == "locked-out"
            assert b.wager(2) == (None if bent else "locked-out")
    with bench(defects=["royal9-open-after-lockout"]) as b:  # "no more bets" still closes it
        _open_with(b, (1,))
        b.ok("controller", "round.no_more_bets")
        assert b.wager(2) == "no-more-bets"
