"""Show each fault of the fourth set (indie_table/faults.py FAULTS_SET4) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults4.py [FAULT ...]

As check_faults3.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py.  For every fault the independent table is started twice on free 127.0.0.1
ports with a fresh state directory, once clean and once with `--fault NAME`, and one small scenario
speaks the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench supply and
the time-interval counter) to it.  One line per fault: `shows` when the faulty table gives the
faulty answer, `clean ok` when the clean table does not.  Exit status 0 when every fault shows and
every clean run is ok.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, Check, Msg, Table, check_all, hits, payouts, scpi  # noqa: E402
from check_helpers import MAJOR_SEAT2, MINOR_SEAT1  # noqa: E402
from indie_table.faults import FAULTS_SET4  # noqa: E402


def _contribute_and_void(t: Table) -> None:
    """One $5 Royal 9 wager at seat 1 contributes (the button closes wagering); the round is voided."""
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    t.ctl.ok("round.settle")


def _major_paid_by_key(t: Table) -> Msg:
    """Seat 2 wins the major (45000 + 2.5 cents); the attendant turns the key.  The key's answer."""
    t.open()
    t.r9(2)
    t.deal(MAJOR_SEAT2)
    return t.ctl.ok("reset_key", meter="major")


# ---------------------------------------------------------------- shoe and cards
def c_reload_appends(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    mark = t.shoe.mark()
    ans = t.shoe.ok("test.load", cards=["5S"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    card = t.shoe.wait(mark, lambda e: e["event"] == "card")
    got = card["card"] if card else None
    return got != "5S" or ans["cards_remaining"] != 1, \
        f"after loading [5S] over two cards left: cards_remaining {ans['cards_remaining']}, next card {got}"


def c_status_dealing(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H", "4S", "5C", "6D"])
    t.shoe.ok("test.deal", count=6, pace_us=60000)
    st = t.shoe.ok("shoe.status")
    end = time.monotonic() + 2.0
    while t.shoe.ok("shoe.status")["cards_remaining"] and time.monotonic() < end:
        time.sleep(0.05)
    return st["state"] != "dealing", f"shoe.status during a paced deal of six cards: {st}"


# ---------------------------------------------------------------- wagers
def c_remove_seat(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(1, "tie", 500)
    t.sens.ok("wager.remove", seat=1, type="tie")
    listed = [(w["seat"], w["type"], w["amount"]) for w in t.sens.ok("wager.list")["wagers"]]
    return listed != [(1, "player", 1000)], f"seat 1 player and tie, the tie removed: list {listed}"


def c_zero_amount(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    ans = t.place(1, "player", 0)
    listed = [(w["seat"], w["type"], w["amount"]) for w in t.sens.ok("wager.list")["wagers"]]
    faulty = ans["accepted"] or ans["reason"] != "bad-amount" or listed != [(1, "player", 1000)]
    return faulty, f"seat 1 player placed again at 0: {ans}; list {listed}"


def c_streak3(t: Table) -> tuple[bool, str]:
    t.open()
    ans = t.place(1, "streak3-player", 500)
    return ans != {"ok": True, "accepted": False, "reason": "disabled"}, f"streak3-player on Midibaccarat: {ans}"


def c_refused_r9(t: Table) -> tuple[bool, str]:
    t.open()
    refused = t.place(1, "royal9", 500)
    t.place(2, "player", 1000)
    t.ctl.ok("lockout.press")
    mega = t.meters()["meters"]["mega"]
    return mega != 5000000 or refused["accepted"], \
        f"royal9 at seat 1 without a base wager {refused}; mega after the button {mega}"


# ---------------------------------------------------------------- lock-out and no more bets
def c_nmb_round(t: Table) -> tuple[bool, str]:
    t.open()
    mark = t.ctl.mark()
    ans = t.ctl.ok("round.no_more_bets")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "no_more_bets")
    got = ev["round"] if ev else None
    return got != ans["round"], f"round.no_more_bets answered round {ans['round']}, its event says {got}"


def c_nmb_lockout_get(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("round.no_more_bets")
    lock = t.ctl.ok("lockout.get")
    late = t.place(1, "player", 1000)
    faulty = not lock["locked"] or lock["cause"] != "no-more-bets"
    return faulty, f"lockout.get after no more bets: {lock}; a wager then: {late}"


def c_lockout_many(t: Table) -> tuple[bool, str]:
    t.open()
    for seat in range(1, 8):
        t.r9(seat)  # fourteen wagers on the layout
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 2", "INIT", "*OPC?")
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reading = scpi(counter, "FETC?")
    ms = float(reading or "9.91E+37") * 1000  # a counter reading, seconds as SCPI text
    return ms > 1.0, f"counter, card out to lock-out with 14 wagers: {reading} ({ms:.3f} ms; deadline 1.0 ms)"


# ---------------------------------------------------------------- base settlement
def c_banker_6(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 3+4 = 7 stands; banker 2+4 = 6 stands: player wins on four cards (the 3H stays in the shoe)
    pay = payouts(t.deal(["3S", "2C", "4D", "4H", "3H"]), 1, "player")
    got = [(p["category"], p["returned"]) for p in pay]
    return got != [("win", 2000)], f"player 7 against banker 6: {got}"


def c_commission_write(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", commission="4")
    t.open()
    t.place(1, "banker", 1000)
    got = [p["returned"] for p in payouts(t.deal(NO_HIT), 1, "banker")]
    return got != [1960], f"commission written 4 %, winning banker 1000: returned {got}"


def c_commission_dollars(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "banker", 1050)
    got = [p["returned"] for p in payouts(t.deal(NO_HIT), 1, "banker")]
    return got != [2048], f"winning banker 1050 at 5 % (52.5 cents, rounded down to 52): returned {got}"


# ---------------------------------------------------------------- Royal 9
def c_one_dollar_tie(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    t.open()
    t.place(1, "player", 1000)
    assert t.place(1, "royal9", 100)["accepted"]
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["QH", "JD", "9H", "9C"]), 1)]
    return got != [("royal9-tie", 5000)], f"$1 table, player QH 9H, banker JD 9C: hits {got}"


def c_banker_suited(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["2C", "JD", "3D", "9D"]), 1)]
    return got != [("suited-royal9", 5000)], f"banker JD 9D: hits {got}"


def c_suited_tie_suits(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["QH", "JD", "9H", "9D"]), 1)]
    return got != [("suited-royal9-tie", 150000)], f"player QH 9H, banker JD 9D: hits {got}"


def c_suited_minor(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(MINOR_SEAT1), 1)]
    return got != [("minor", 45001)], f"player KS 9S at seat 1 (45000 + 1.75): hits {got}"


def c_r9_first(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    order = [e["type"] for e in t.deal(NO_HIT) if e["event"] == "payout"]
    return order != ["player", "royal9"], f"settlement payouts at seat 1: {order}"


# ---------------------------------------------------------------- progressive meters
def c_residual_two(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    t.ctl.ok("lockout.press")
    m = t.meters()
    got = (m["meters"]["mega"], m["residual"]["mega"])
    return got != (5000012, "0.5"), f"mega after two $5 wagers at 1.25 % (12.5 cents): {got}"


def c_diverted_up(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    m = t.meters()
    got = (m["meters"]["major"], m["diverted"]["major"], m["residual"]["major"])
    return got != (45001, 1, "0.5"), f"major (limit 45001) after +2.5: amount, diverted, residual {got}"


def c_rate_residual(t: Table) -> tuple[bool, str]:
    _contribute_and_void(t)
    before = t.meters()["residual"]["mega"]
    t.ctl.ok("config.set", meters={"mega": {"rate": "1.5"}})
    after = t.meters()["residual"]["mega"]
    return after != before or before != "0.25", f"mega residual {before!r} before a rate write, {after!r} after"


def c_initial_write(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"initial": 50000}})
    got = t.meters()["meters"]["major"]
    return got != 45000, f"major after writing its initial 50000: {got}"


def c_key_answer(t: Table) -> tuple[bool, str]:
    mark = t.ctl.mark()
    ans = _major_paid_by_key(t)
    ev = t.ctl.wait(mark, lambda e: e["event"] == "reset")
    return ans["amount"] != 45000, f"reset_key answer {ans}; reset event {ev}"


# ---------------------------------------------------------------- payout meters, pending, reset key
def c_pending_seat(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    t.deal(MAJOR_SEAT2)
    pending = [(p["meter"], p["seat"]) for p in t.meters()["pending"]]
    return pending != [("major", 2)], f"pending after seat 2's major: {pending}"


def c_key_again(t: Table) -> tuple[bool, str]:
    _major_paid_by_key(t)
    kind, ans = t.ctl.req("reset_key", meter="major")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_attendant"])
    return kind != "nak" or got != (45002, 45002), \
        f"the key again with nothing pending: {kind} {ans.get('code', '')}; cumulative, by attendant {got}"


def c_attendant_nv(t: Table) -> tuple[bool, str]:
    _major_paid_by_key(t)
    t.power_cycle()
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_attendant"])
    return got != (45002, 45002), f"after the key for 45002 and a power cycle: cumulative, by attendant {got}"


# ---------------------------------------------------------------- configuration
def c_refused_storage(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    kind, _ = t.ctl.req("config.set", commission="4")
    t.ctl.ok("round.settle")
    t.power_cycle()
    got = t.ctl.ok("config.get")["commission"]
    return kind != "nak" or got != "5", f"commission write while live: {kind}; after a power cycle commission {got!r}"


def c_denomination_floors(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    t.ctl.ok("config.set", meters={"mega": {"initial": 1000000, "reset": 1000000}})
    kind, ans = t.ctl.req("config.set", denomination=500)
    denom = t.ctl.ok("config.get")["denomination"]
    return kind != "nak", f"denomination 500 with mega initial $10,000 (the $5 floor is $50,000): {kind} " \
        f"{ans.get('code', '')}; denomination now {denom}"


# ---------------------------------------------------------------- identity
def c_controller_type(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", commission="5")
    got = t.ctl.ok("identity").get("controller_type")
    return not got, f"controller_type after a commission write: {got!r}"


# ---------------------------------------------------------------- power, reboot and link
def c_link_reboot(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.link", up=False)
    mark = t.ctl.mark()
    t.ctl.ok("test.fault", kind="reboot", after_ms=0, duration_ms=200)
    back = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e.get("cause") == "power", 2.0)
    kind, ans = t.ctl.req("round.open")
    return kind != "nak", f"sensors link down, controller rebooted ({back}): round.open {kind} {ans}"


def c_layout_power(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.power_cycle()
    listed = t.sens.ok("wager.list")["wagers"]
    return listed != [], f"wager.list after a power cycle in an open round: {listed}"


# ---------------------------------------------------------------- events
def c_minor_meter(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["meter"]) for h in hits(t.deal(MINOR_SEAT1), 1)]
    return got != [("minor", "minor")], f"hit of seat 1's minor: (category, meter) {got}"


def c_unlock_after_void(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("round.settle")
    mark = t.ctl.mark()
    t.open()
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout")
    return ev is None or ev["cause"] != "round-open", f"unlock of the round after a voided round: {ev}"


def c_seq_refusal(t: Table) -> tuple[bool, str]:
    t.open()
    kind, _ = t.ctl.req("round.open")  # the last round is not settled: REFUSED
    mark = t.ctl.mark()
    t.ctl.ok("round.settle")
    t.ctl.wait(mark, lambda e: e["event"] == "round_end")
    with t.ctl.cv:
        seqs = [s for s, _ in t.ctl.events]
    return seqs != list(range(1, len(seqs) + 1)), f"controller event SEQs around a REFUSED round.open ({kind}): {seqs}"


# ---------------------------------------------------------------- answer timing
def c_list_slow(t: Table) -> tuple[bool, str]:
    t.open()
    for seat in range(1, 5):
        t.r9(seat)  # eight wagers
    best = 10.0
    for _ in range(3):
        t0 = time.perf_counter()
        t.sens.ok("wager.list")
        best = min(best, time.perf_counter() - t0)
    return best * 1000 > 100, f"wager.list with eight wagers, fastest of three: {best * 1000:.1f} ms"


CHECKS: dict[str, Check] = {
    "reload-appends-to-shoe": c_reload_appends,
    "shoe-status-ready-while-dealing": c_status_dealing,
    "remove-takes-whole-seat": c_remove_seat,
    "zero-amount-removes-wager": c_zero_amount,
    "streak3-accepted-as-base": c_streak3,
    "refused-royal9-contributes": c_refused_r9,
    "nmb-event-previous-round": c_nmb_round,
    "lockout-get-unlocked-after-nmb": c_nmb_lockout_get,
    "lockout-slow-with-many-wagers": c_lockout_many,
    "banker-6-draws-player-stood": c_banker_6,
    "commission-write-ignored-in-settlement": c_commission_write,
    "commission-on-whole-dollars": c_commission_dollars,
    "one-dollar-tie-line-from-five-table": c_one_dollar_tie,
    "banker-suited-royal9-paid-unsuited": c_banker_suited,
    "suited-tie-requires-same-suit": c_suited_tie_suits,
    "suited-minor-paid-as-suited-royal9": c_suited_minor,
    "royal9-settled-before-base": c_r9_first,
    "residual-from-first-wager-only": c_residual_two,
    "diverted-rounds-up": c_diverted_up,
    "rate-write-drops-residual": c_rate_residual,
    "initial-write-sets-meter": c_initial_write,
    "reset-key-answers-paid-amount": c_key_answer,
    "pending-seat-is-first-seat": c_pending_seat,
    "reset-key-second-turn-books-again": c_key_again,
    "paid-by-attendant-not-saved": c_attendant_nv,
    "refused-write-reaches-storage": c_refused_storage,
    "denomination-write-skips-floors": c_denomination_floors,
    "controller-type-lost-after-config-write": c_controller_type,
    "link-loss-forgotten-at-reboot": c_link_reboot,
    "layout-survives-power-loss": c_layout_power,
    "minor-hit-meter-field-null": c_minor_meter,
    "unlock-event-cause-after-void": c_unlock_after_void,
    "event-seq-steps-on-refusal": c_seq_refusal,
    "wager-list-slow-when-full": c_list_slow,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET4, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
