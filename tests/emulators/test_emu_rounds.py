"""In-process state transitions of the emulated table: wagering, lock-out, rounds, payouts."""

from __future__ import annotations

import time

import pytest
from emu_helpers import MEGA_1, PLAIN_NATURAL, SIX_CARDS, bench, default_profile


def test_idle_after_power_up_refuses_wagers_until_round_open() -> None:
    with bench() as b:
        assert b.wager(1) == "locked-out"
        assert b.ok("controller", "lockout.get") == {"locked": True, "cause": "power"}
        assert b.ok("controller", "round.open") == {"round": 1}
        assert b.named("lockout")[-1] == {"event": "lockout", "locked": False, "cause": "round-open"}
        assert b.wager(1) is None
        assert b.ok("sensors", "wager.list") == {"wagers": [{"seat": 1, "type": "royal9", "amount": 500}]}


@pytest.mark.parametrize(("seat", "kind", "amount", "reason"), [
    (9, "royal9", 500, "bad-seat"),
    (1, "royal9", 100, "bad-amount"),
    (1, "banker", 0, "bad-amount"),
    (1, "dragon7", 500, "disabled"),
    (1, "hit-and-run", 500, "disabled"),
])
def test_wager_validation(seat: int, kind: str, amount: int, reason: str) -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        assert b.wager(seat, kind, amount) == reason
        assert b.ok("sensors", "wager.list") == {"wagers": []}


def test_bad_wager_type_is_bad_args() -> None:
    with bench() as b:
        assert b.refused("sensors", "wager.place", seat=1, type="keno", amount=5).code == "BAD_ARGS"
        assert b.refused("sensors", "wager.place", seat=True, type="royal9", amount=500).code == "BAD_ARGS"


def test_lockout_button_locks_at_once() -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        assert b.ok("controller", "lockout.press") == {"locked": True}
        assert b.named("lockout")[-1]["cause"] == "button"
        assert b.wager(1) == "locked-out"


def test_no_more_bets_closes_wagering() -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        b.wager(1)
        b.ok("controller", "round.no_more_bets")
        assert b.named("no_more_bets") == [{"event": "no_more_bets", "round": 1}]
        assert b.wager(2) == "no-more-bets"
        assert b.refused("sensors", "wager.remove", seat=1, type="royal9").code == "REFUSED"


def test_wager_removed_before_close_never_contributes() -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        b.wager(1)
        assert b.ok("sensors", "wager.remove", seat=1, type="royal9") == {"removed": True}
        b.ok("controller", "lockout.press")
        assert b.meters()["meters"]["mega"] == 5_000_000


def test_first_card_locks_and_contributions_carry_residuals() -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        b.wager(1)
        b.ok("shoe", "test.load", cards=PLAIN_NATURAL)
        b.ok("shoe", "test.deal", count=1, pace_us=0)
        assert b.named("lockout")[-1] == {"event": "lockout", "locked": True, "cause": "card"}
        assert b.wager(2) == "locked-out"
        m = b.meters()
        # 1.25% of 500 = 6.25c, 0.5% = 2.5c, 0.35% = 1.75c
        assert m["meters"] == {"mega": 5_000_006, "major": 45_002, "minor": 45_001}
        assert m["residual"] == {"mega": "0.25", "major": "0.5", "minor": "0.75"}


def test_four_rounds_residuals_add_up_to_the_cent() -> None:
    with bench() as b:
        for _ in range(4):
            b.ok("controller", "round.open")
            b.wager(1)
            b.deal(PLAIN_NATURAL)
        m = b.meters()
        assert m["meters"] == {"mega": 5_000_025, "major": 45_010, "minor": 45_007}
        assert m["residual"] == {"mega": "0", "major": "0", "minor": "0"}


@pytest.mark.parametrize(("cards", "used"), [(PLAIN_NATURAL, 4), (SIX_CARDS, 6),
                                             (["2C", "6D", "3C", "TD", "2H", "9S"], 5)])
def test_round_ends_when_the_tableau_is_complete(cards: list[str], used: int) -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        b.wager(1, "player", 1000)
        b.ok("shoe", "test.load", cards=[*cards[:used], "AS", "AH"])
        for n in range(used):
            assert not b.named("round_end"), f"round ended after {n} cards"
            b.ok("shoe", "test.deal", count=1, pace_us=0)
        assert b.named("round_end") == [{"event": "round_end", "round": 1}]
        assert len(b.named("payout")) == 1
        assert b.ok("controller", "test.state")["phase"] == "settled"


def test_round_open_refused_while_a_round_is_dealing() -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        b.ok("shoe", "test.load", cards=PLAIN_NATURAL)
        b.ok("shoe", "test.deal", count=2, pace_us=0)
        assert b.refused("controller", "round.open").reason == "round 1 is not settled"
        assert b.refused("controller", "round.settle").code == "REFUSED"


def test_round_settle_with_no_card_voids_the_round() -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        b.wager(1)
        assert b.ok("controller", "round.settle") == {"round": 1, "void": True}
        assert b.ok("sensors", "wager.list") == {"wagers": []}
        assert b.ok("controller", "round.open") == {"round": 2}


def test_mega_hit_is_attendant_paid_and_needs_the_reset_key() -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        b.wager(1)
        b.wager(2)
        b.deal(MEGA_1)
        mega = 5_000_000 + 12  # two wagers: 12.5c, 12 on the meter
        assert {"event": "hit", "seat": 1, "category": "mega", "meter": "mega", "amount": mega} in b.named("hit")
        payouts = {(p["seat"], p["category"]): p for p in b.named("payout")}
        assert payouts[(1, "mega")]["paid_by"] == "attendant"
        assert payouts[(1, "mega")]["returned"] == mega + 500
        assert payouts[(2, "mega-envy")] == {"event": "payout", "seat": 2, "type": "royal9",
                                             "category": "mega-envy", "stake": 500, "returned": 500_500,
                                             "paid_by": "table"}
        m = b.meters()
        assert m["pending"] == [{"meter": "mega", "seat": 1, "amount": mega, "category": "mega"}]
        # the fixed mega envy line is no progressive payout (461a.1): the payout meters do not count it
        assert (m["cumulative_paid"], m["paid_by_table"], m["paid_by_attendant"]) == (0, 0, 0)
        assert "awaiting the reset key" in b.refused("controller", "round.open").reason
        assert b.refused("controller", "reset_key", meter="major").code == "REFUSED"
        assert b.ok("controller", "reset_key", meter="mega") == {"meter": "mega", "amount": 5_000_000}
        assert b.named("reset") == [{"event": "reset", "meter": "mega", "amount": 5_000_000}]
        m = b.meters()
        assert m["meters"]["mega"] == 5_000_000 and m["residual"]["mega"] == "0.5"
        assert (m["cumulative_paid"], m["paid_by_attendant"], m["pending"]) == (mega, mega, [])
        b.ok("controller", "round.open")


def test_fixed_royal9_line_paid_by_table_not_a_progressive_payout() -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        b.wager(3)
        b.deal(["QH", "2C", "9H", "3C"])  # suited Royal 9 on Player: $50
        assert b.named("payout") == [{"event": "payout", "seat": 3, "type": "royal9", "category": "suited-royal9",
                                      "stake": 500, "returned": 5_500, "paid_by": "table"}]
        assert b.meters()["paid_by_table"] == 0  # a fixed line is no progressive payout (461a.12(b)(2))


def test_dragon7_round() -> None:
    mapping = {"game": "ez-baccarat", "rules": {"decks": 8, "seats": [{"seat": 1}]},
               "emulator": {"lockout_latency_us": 0}}
    with bench(mapping=mapping) as b:
        b.ok("controller", "round.open")
        b.wager(1, "dragon7", 500)
        b.wager(1, "banker", 1000)
        # P 2+3=5 draws a ten (0) -> 5; B 3+K=3 draws on p3 0, a 4 -> three-card 7 v 5: Dragon 7
        b.deal(["2C", "3D", "3C", "KD", "TC", "4H"])
        pays = {p["type"]: p for p in b.named("payout")}
        assert pays["dragon7"]["category"] == "win" and pays["dragon7"]["returned"] == 500 * 41
        assert pays["banker"]["category"] == "push" and pays["banker"]["returned"] == 1000


def test_comm_loss_locks_and_refuses_wagers() -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        b.wager(1)
        assert b.ok("controller", "test.link", up=False) == {"up": False}
        assert b.named("lockout")[-1] == {"event": "lockout", "locked": True, "cause": "comm-lost"}
        assert b.wager(2) == "comm-lost"
        b.ok("controller", "round.settle")
        assert b.refused("controller", "round.open").reason.startswith("comm-lost")
        b.ok("controller", "test.link", up=True)
        b.ok("controller", "round.open")
        assert b.wager(2) is None


def test_comm_loss_while_idle_still_reports_the_lockout() -> None:
    with bench() as b:
        b.ok("controller", "test.link", up=False)
        assert b.named("lockout") == [{"event": "lockout", "locked": True, "cause": "comm-lost"}]


def test_lockout_latency_is_honoured() -> None:
    with bench(lockout_latency_us=20_000) as b:
        b.ok("controller", "round.open")
        b.ok("shoe", "test.load", cards=PLAIN_NATURAL)
        t0 = time.perf_counter_ns()
        b.ok("shoe", "test.deal", count=1, pace_us=0)
        late = b.wager(1)
        if time.perf_counter_ns() - t0 < 15_000_000:  # still inside the latency window
            assert late is None
        deadline = time.monotonic() + 2
        while not any(e["cause"] == "card" for e in b.named("lockout")) and time.monotonic() < deadline:
            time.sleep(0.001)
        state = b.ok("controller", "test.state")
        lock = state["last_card_lock"]
        assert lock["due_ns"] - lock["card_ns"] == 20_000_000
        assert 0 <= lock["lock_ns"] - lock["due_ns"] < 5_000_000
        assert b.wager(2) == "locked-out"


def test_scheduled_lock_applies_even_before_its_timer_runs() -> None:
    with bench(lockout_latency_us=1_000) as b:
        b.ok("controller", "round.open")
        with b.table.lock:  # the clock thread cannot run the timer while the lock is held
            b.ok("shoe", "test.load", cards=PLAIN_NATURAL)
            b.ok("shoe", "test.deal", count=1, pace_us=0)
            time.sleep(0.003)
            assert b.wager(1) == "locked-out"
            lock = b.ok("controller", "test.state")["last_card_lock"]
            assert lock["lock_ns"] == lock["due_ns"]


@pytest.mark.parametrize("base", ["player", "banker", "tie"])
def test_royal9_needs_a_base_wager_at_the_seat(base: str) -> None:
    """629a Royal 9 (b): the option is offered to a player who placed a Midibaccarat wager."""
    with bench(mapping=default_profile()) as b:
        b.ok("controller", "round.open")
        assert b.wager(1) == "no-base-wager"
        assert b.wager(2, base, 1000) is None
        assert b.wager(1) == "no-base-wager"  # another seat's base wager does not count
        assert b.wager(2) is None
        listed = sorted(b.ok("sensors", "wager.list")["wagers"], key=lambda w: w["amount"])
        assert listed == [{"seat": 2, "type": "royal9", "amount": 500}, {"seat": 2, "type": base, "amount": 1000}]


def test_base_wager_rule_answers_after_the_controller() -> None:
    with bench(mapping=default_profile()) as b:
        assert b.wager(1) == "locked-out"
        b.ok("controller", "round.open")
        assert b.wager(1, "royal9", 100) == "bad-amount"
        assert b.wager(1, "player", 500) is None
        assert b.wager(1, "royal9", 1000) == "bad-amount"
