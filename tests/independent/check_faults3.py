"""Show each fault of the third set (indie_table/faults.py FAULTS_SET3) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults3.py [FAULT ...]

As check_faults2.py, whose host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) this script imports: for every fault the independent table
is started twice on free 127.0.0.1 ports with a fresh state directory, once clean and once with
`--fault NAME`, and one small scenario speaks the reference protocol (docs/protocol.md sections
2-8, and section 9 for the bench supply) to it.  One line per fault: `shows` when the faulty table
gives the faulty answer, `clean ok` when the clean table does not.  Exit status 0 when every fault
shows and every clean run is ok.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import MAJOR_SEAT1, NO_HIT, TIE, Check, Msg, Table, check_all, hits, payouts  # noqa: E402
from indie_table.faults import FAULTS_SET3  # noqa: E402


def _meter_hit_waiting(t: Table) -> list[Msg]:
    """Seat 1's $5 Royal 9 wins the major (KS 9S on the banker); the payment waits for the key."""
    t.open()
    t.r9(1)
    return t.deal(MAJOR_SEAT1)


def _one_contribution(t: Table) -> Msg:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    return t.meters()


# ---------------------------------------------------------------- shoe and cards
def c_empty_shoe(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    st = t.shoe.ok("shoe.status")
    return st["state"] != "empty", f"shoe.status after the last card: {st}"


def c_misread_counted(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.fault", kind="misread")
    mark = t.shoe.mark()
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.shoe.wait(mark, lambda e: e["event"] == "card")
    seen = [(e["event"], e["n"]) for e in t.shoe.since(mark)]
    st = t.shoe.ok("shoe.status")
    return seen != [("misread", 1), ("card", 2)] or st["cards_dealt"] != 2, \
        f"shoe events {seen}, cards_dealt {st['cards_dealt']}"


def c_natural_8(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 3+5 = 8 (a natural), banker 2+2 = 4: the round ends at four cards, the player wins
    pay = payouts(t.deal(["3S", "2C", "5D", "2D", "5H"]), 1, "player")
    got = [(p["category"], p["returned"]) for p in pay]
    return got != [("win", 2000)], f"player wager on a player natural 8 against 4: {got}"


# ---------------------------------------------------------------- wagers
def c_r9_multiple(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    ans = t.place(1, "royal9", 1000)
    return ans["accepted"], f"royal9 of 1000 on the $5 table: {ans}"


def c_one_base(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(1, "tie", 500)
    listed = [(w["seat"], w["type"]) for w in t.sens.ok("wager.list")["wagers"]]
    return sorted(listed) != [(1, "player"), (1, "tie")], f"player then tie at seat 1: list {listed}"


def c_removed_r9(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.sens.ok("wager.remove", seat=1, type="royal9")
    t.ctl.ok("lockout.press")
    m = t.meters()
    return m["meters"]["mega"] != 5000000, f"mega after a removed royal9 and the button: {m['meters']['mega']}"


# ---------------------------------------------------------------- lock-out and no more bets
def c_card_disarmed(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("lockout.press")
    t.ctl.ok("round.settle")  # round 1 voided after the button
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    lock = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e["locked"], 0.3)
    late = t.place(2, "player", 1000)
    return lock is None or late["accepted"], f"round 2, first card: lockout {lock}; wager after it {late}"


def c_nmb_settled(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.deal(NO_HIT)
    kind, ans = t.ctl.req("round.no_more_bets")
    return kind == "rsp", f"round.no_more_bets after the round settled: {kind} {ans}"


def c_lockout_late(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    t.shoe.ok("test.load", cards=NO_HIT)
    t0 = time.perf_counter()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    lock = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e["locked"], 1.0)
    ms = (time.perf_counter() - t0) * 1000
    return lock is None or ms > 40, f"lockout event {ms:.1f} ms after the deal was asked for: {lock}"


# ---------------------------------------------------------------- base settlement
def c_commission_whole(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "banker", 1000)
    pay = payouts(t.deal(NO_HIT), 1, "banker")
    got = [p["returned"] for p in pay]
    return got != [1950], f"winning banker 1000 at 5 %: returned {got}"


def c_tie_beside(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(1, "tie", 500)
    pay = payouts(t.deal(TIE), 1, "player")
    got = [(p["category"], p["returned"]) for p in pay]
    return got != [("push", 1000)], f"player 1000 beside a tie wager, on a tie: {got}"


def c_placement_order(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(3, "player", 1000)
    t.place(1, "player", 1000)
    order = [e["seat"] for e in t.deal(NO_HIT) if e["event"] == "payout"]
    return order != [1, 3], f"payout seats, wagers placed at seat 3 then seat 1: {order}"


# ---------------------------------------------------------------- Royal 9
def c_one_dollar_suited(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    t.open()
    t.place(1, "player", 1000)
    assert t.place(1, "royal9", 100)["accepted"]
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["QH", "2C", "9H", "3D"]), 1)]
    return got != [("suited-royal9", 1000)], f"$1 table, player QH 9H: hits {got}"


def c_one_suited_tie(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["QH", "JD", "9H", "9C"]), 1)]
    return got != [("royal9-tie", 25000)], f"player QH 9H (suited), banker JD 9C: hits {got}"


def c_third_card(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    # player QC 5D draws 9C; banker 2C 4D (6) stands on a third card 9
    events = t.deal(["QC", "2C", "5D", "4D", "9C"])
    got = [h["category"] for h in hits(events, 1)]
    pay = [p["category"] for p in payouts(events, 1, "royal9")]
    return got != [] or pay != [None], f"player QC 5D + 9C: hits {got}, royal9 payout {pay}"


def c_envy_occupied(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["KS", "KS", "9S", "9S"]), 2)]
    return got != [("mega-envy", 500000)], f"seat 2 on seat 1's KS 9S, seat 1 empty: {got}"


def c_fixed_hit_amount(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["2C", "JC", "3D", "9S"]), 1)]
    return got != [("royal9", 2500)], f"banker JC 9S: hits {got}"


# ---------------------------------------------------------------- progressive meters
def c_round_start(t: Table) -> tuple[bool, str]:
    got = [(h["category"], h["amount"]) for h in hits(_meter_hit_waiting(t), 1)]
    return got != [("major", 45002)], f"major hit after a $5 wager at 0.5 % (45000 + 2.5): {got}"


def c_cap_short(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45002}})
    m = _one_contribution(t)
    got = (m["meters"]["major"], m["diverted"]["major"])
    return got != (45002, 0), f"major (payout limit 45002) after +2.5: amount, diverted {got}"


def c_rate_cached(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"minor": {"rate": "1"}})
    m = _one_contribution(t)
    got = (m["meters"]["minor"], m["residual"]["minor"])
    return got != (45005, "0"), f"minor after writing rate 1 and one $5 wager: {got} (45000 + 5)"


def c_residual_dollars(t: Table) -> tuple[bool, str]:
    m = _one_contribution(t)
    got = m["residual"]["mega"]
    return got != "0.25", f"mega residual after one $5 wager at 1.25 % (6.25 cents): {got!r}"


# ---------------------------------------------------------------- configuration
def c_capacity_limit(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"major": {"display_capacity": 500000}})
    return kind == "rsp", f"major display capacity 500000 under its payout limit 1000000: {kind} {ans.get('code', '')}"


def c_reset_floor(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"major": {"reset": 40000}})
    return kind == "rsp", f"major reset 40000 (floor 45000): {kind} {ans.get('code', '')}"


def c_old_meters(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"major": {"rate": "0.6"}})
    got = ans["meters"]["major"]["rate"]
    read = t.ctl.ok("config.get")["meters"]["major"]["rate"]
    return got != "0.6", f"major rate written 0.6: the answer says {got!r}, config.get {read!r}"


def c_slow_write(t: Table) -> tuple[bool, str]:
    t0 = time.perf_counter()
    t.ctl.ok("config.set", meters={"major": {"rate": "0.5"}})
    ms = (time.perf_counter() - t0) * 1000
    return ms > 100, f"config.set of a meter answered in {ms:.1f} ms"


# ---------------------------------------------------------------- payout meters, pending, reset key
def c_paid_stake(t: Table) -> tuple[bool, str]:
    _meter_hit_waiting(t)
    t.ctl.ok("reset_key", meter="major")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_attendant"])
    return got != (45002, 45002), f"cumulative, by attendant after the key for a 45002 major: {got}"


def c_clears_pending(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    t.deal(["KH", "KS", "9H", "9S"])  # seat 1: major (KS 9S on the banker); seat 2: minor (KH 9H on the player)
    t.ctl.ok("reset_key", meter="major")
    pending = [p["meter"] for p in t.meters()["pending"]]
    return pending != ["minor"], f"pending after the major's key: {pending}"


def c_pending_power(t: Table) -> tuple[bool, str]:
    _meter_hit_waiting(t)
    t.power_cycle()
    kind, ans = t.ctl.req("round.open")
    pending = [p["meter"] for p in t.meters()["pending"]]
    return kind == "rsp", f"round.open after a power cycle with {pending} pending: {kind} {ans}"


# ---------------------------------------------------------------- identity
def c_sensors_serial(t: Table) -> tuple[bool, str]:
    serials = {name: getattr(t, name).ok("identity")["serial"] for name in ("shoe", "sens", "ctl")}
    return len(set(serials.values())) != 3, f"serials {serials}"


# ---------------------------------------------------------------- power and link
def c_link_layout(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("test.link", up=False)
    listed = [(w["seat"], w["type"]) for w in t.sens.ok("wager.list")["wagers"]]
    return len(listed) != 2, f"wagers after the sensors link went down: {listed}"


def c_lock_restored(t: Table) -> tuple[bool, str]:
    t.open()
    t.power_cycle()
    lock = t.ctl.ok("lockout.get")
    return not lock["locked"] or lock["cause"] != "power", f"lockout.get after power lost in an open round: {lock}"


def c_void_number(t: Table) -> tuple[bool, str]:
    first = t.ctl.ok("round.open")["round"]
    t.ctl.ok("round.settle")
    second = t.ctl.ok("round.open")["round"]
    return second != first + 1, f"round {first} voided, the next round.open answers {second}"


# ---------------------------------------------------------------- events
def c_payout_after_end(t: Table) -> tuple[bool, str]:
    mark = t.ctl.mark()
    _meter_hit_waiting(t)
    t.ctl.wait(mark, lambda e: e["event"] == "payout" and e["type"] == "royal9", 0.5)
    order = [e["event"] if e["event"] != "payout" else f"payout:{e['type']}" for e in t.ctl.since(mark)
             if e["event"] in ("payout", "round_end")]
    return order[-1:] != ["round_end"], f"settlement events {order}"


def c_reset_seq(t: Table) -> tuple[bool, str]:
    _meter_hit_waiting(t)
    mark = t.ctl.mark()
    t.ctl.ok("reset_key", meter="major")
    t.ctl.wait(mark, lambda e: e["event"] == "reset", 0.5)
    with t.ctl.cv:
        seqs = [s for s, _ in t.ctl.events]
    return seqs != list(range(1, len(seqs) + 1)), f"controller event SEQs {seqs}"


CHECKS: dict[str, Check] = {
    "empty-shoe-reports-ready": c_empty_shoe,
    "misread-not-counted": c_misread_counted,
    "player-natural-8-not-natural": c_natural_8,
    "royal9-multiple-accepted": c_r9_multiple,
    "one-base-wager-per-seat": c_one_base,
    "removed-royal9-still-contributes": c_removed_r9,
    "card-lock-disarmed-after-button": c_card_disarmed,
    "no-more-bets-after-settle-accepted": c_nmb_settled,
    "lockout-event-sent-late": c_lockout_late,
    "banker-commission-on-whole-return": c_commission_whole,
    "player-loses-beside-winning-tie": c_tie_beside,
    "payouts-in-placement-order": c_placement_order,
    "one-dollar-suited-royal9-pays-5": c_one_dollar_suited,
    "tie-with-one-suited-paid-suited-tie": c_one_suited_tie,
    "royal9-counts-third-card": c_third_card,
    "mega-envy-needs-occupied-position": c_envy_occupied,
    "fixed-line-hit-amount-includes-stake": c_fixed_hit_amount,
    "jackpot-pays-round-start-amount": c_round_start,
    "cap-one-cent-short": c_cap_short,
    "rate-cached-at-power-up": c_rate_cached,
    "residual-reported-in-dollars": c_residual_dollars,
    "capacity-under-limit-accepted": c_capacity_limit,
    "reset-below-floor-accepted": c_reset_floor,
    "config-set-answers-old-meters": c_old_meters,
    "paid-meters-include-stake": c_paid_stake,
    "reset-key-clears-every-pending": c_clears_pending,
    "pending-does-not-block-after-power-up": c_pending_power,
    "sensors-report-shoe-serial": c_sensors_serial,
    "link-loss-clears-layout": c_link_layout,
    "lock-state-restored-at-power-up": c_lock_restored,
    "void-round-number-reused": c_void_number,
    "attendant-payout-after-round-end": c_payout_after_end,
    "reset-event-reuses-seq": c_reset_seq,
    "meter-write-answers-slowly": c_slow_write,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET3, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
