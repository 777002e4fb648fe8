"""Show each fault of the ninth set (indie_table/faults.py FAULTS_SET9) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults9.py [FAULT ...]

As check_faults8.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py.  For every fault the independent table is started twice on free 127.0.0.1
ports with a fresh state directory, once clean and once with `--fault NAME`, and one small scenario
speaks the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench supply and
the time-interval counter) to it.  One line per fault: `shows` when the faulty table gives the faulty
answer, `clean ok` when the clean table does not.  Exit status 0 when every fault shows and every
clean run is ok.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, Check, Line, Table, check_all, hits, payouts, scpi  # noqa: E402
from check_helpers import (  # noqa: E402
    BANKER_ROYAL9,
    ENVY_SEAT1,
    MAJOR_SEAT2,
    button_void,
    first_card_ms,
    major_hit,
    meter,
    one_dollar,
    r9_one_dollar,
    reboot,
    wager_list,
    wait_power_lockout,
)
from indie_table.faults import FAULTS_SET9  # noqa: E402


# ---------------------------------------------------------------- shoe and cards
def c_n_each_round(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=NO_HIT + NO_HIT)
    t.open()
    t.shoe.ok("test.deal", count=4, pace_us=0)
    t.open()
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    card = t.shoe.wait(mark, lambda e: e["event"] == "card")
    n = card["n"] if card else None
    st = t.shoe.ok("shoe.status")
    return n != 5, f"the second round's first card (the shoe's fifth): card event n {n}; shoe.status {st}"


def c_seq_reload(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.shoe.ok("test.load", cards=["4H"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    t.shoe.wait(0, lambda e: e.get("card") == "4H")
    with t.shoe.cv:
        seqs = [s for s, _ in t.shoe.events]
    return seqs != [1, 2, 3], f"two cards dealt, the shoe loaded again, one card dealt: shoe event SEQs {seqs}"


def c_dealing_power(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H", "4S", "5C", "6D"])
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=6, pace_us=100000)
    t.shoe.wait(mark, lambda e: e["event"] == "card", 1.0)
    t.power_cycle()
    time.sleep(0.3)
    st = t.shoe.ok("shoe.status")
    return st["state"] != "ready", f"power cut after the first card of a paced deal of six: shoe.status {st}"


# ---------------------------------------------------------------- wagers
def c_r9_again(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    assert t.place(1, "royal9", 500)["accepted"]
    t.ctl.ok("lockout.press")
    got = meter(t, "mega")
    return got != (5000006, "0.25"), f"one $5 Royal 9 wager placed twice at the same amount, the button: mega {got}"


def c_list_settled(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.deal(NO_HIT)
    listed = wager_list(t)
    return listed != [], f"a Player wager, the round dealt and settled: wager.list {listed}"


def c_tie_adds(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "tie", 500)
    t.place(1, "tie", 1000)
    listed = wager_list(t)
    return listed != [(1, "tie", 1000)], f"a Tie wager of 500 placed again at 1000: wager.list {listed}"


def c_button_reason(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("lockout.press")
    ans = t.place(1, "player", 1000)
    return ans.get("reason") != "locked-out", f"the lock-out button in an open round, then a Player wager: {ans}"


def c_after_void(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("round.settle")
    ans = t.place(1, "player", 1000)
    return ans["accepted"], f"a voided round, then a Player wager: {ans}; wager.list {wager_list(t)}"


def c_amount_16(t: Table) -> tuple[bool, str]:
    t.open()
    ans = t.place(1, "player", 100000)
    listed = wager_list(t)
    return listed != [(1, "player", 100000)], f"a Player wager of 100000 ({ans}): wager.list {listed}"


# ---------------------------------------------------------------- lock-out
def c_late_at_cap(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    t.open()
    t.r9(1)
    t.deal(NO_HIT)  # the major reaches its cap: 45001
    t.open()
    reading, ms = first_card_ms(t)
    return ms > 2.5, f"the major at its cap ({meter(t, 'major')}), next round's first card: counter {reading} " \
        f"({ms:.3f} ms)"


def c_empty_layout(t: Table) -> tuple[bool, str]:
    t.open()
    mark = t.ctl.mark()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout", 0.5)
    lock = t.ctl.ok("lockout.get")
    return ev is None, f"round open, no wager, the first card: lockout event {ev}; lockout.get {lock}"


# ---------------------------------------------------------------- base settlement
def c_banker2(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 2+3 = 5 draws an 8 (3); banker A+A = 2 must draw: the 5H makes 7, the banker wins
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(["2S", "AH", "3C", "AD", "8S", "5H"]), 1, "player")]
    return got != [("lose", 0)], f"player 5 draws an 8, banker 2: player payout {got}"


def c_vig_first_stake(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 2000)
    t.place(1, "banker", 1000)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(NO_HIT), 1, "banker")]
    return got != [("win", 1950)], f"seat 1 Player 2000 and Banker 1000, the banker wins: banker payout {got}"


def c_vig_three_cards(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "banker", 1000)
    # player 2+3 = 5 draws a 2 (7); banker 2+2 = 4 draws on a 2: the 4C makes 8, the banker wins on three cards
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(["2S", "2H", "3C", "2D", "2C", "4C"]), 1, "banker")]
    return got != [("win", 1950)], f"a Banker wager of 1000 won by a three-card banker 8: {got}"


# ---------------------------------------------------------------- Royal 9
def c_tie_rows(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["KS", "QH", "9S", "9D"]), 1)]
    return got != [("minor", 45001)], f"seat 1's KS 9S on the player hand, QH 9D on the banker: hits {got}"


def c_envy_first(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    t.r9(3)
    events = t.deal(ENVY_SEAT1)
    got = {s: [(h["category"], h["amount"]) for h in hits(events, s)] for s in (2, 3)}
    want = {2: [("mega-envy", 500000)], 3: [("mega-envy", 500000)]}
    return got != want, f"seats 2 and 3 on seat 1's KS 9S: hits {got}"


def c_jackpot_stake(t: Table) -> tuple[bool, str]:
    got = [(p["category"], p["stake"], p["returned"]) for p in payouts(major_hit(t), 2, "royal9")]
    return got != [("major", 500, 45502)], f"seat 2's major (45002): its payout {got}"


def c_payouts_order(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    events = t.deal(NO_HIT)
    order = [e["seat"] for e in events if e["event"] == "payout" and e["type"] == "royal9"]
    return order != [1, 2], f"Royal 9 wagers at seats 1 and 2, both losing: Royal 9 payouts in seat order {order}"


# ---------------------------------------------------------------- progressive meters
def c_sub_cent(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.open()
    r9_one_dollar(t, 1)
    t.ctl.ok("lockout.press")
    got = (meter(t, "major"), meter(t, "minor"))
    return got != ((45000, "0.5"), (45000, "0.35")), f"$1 table, one $1 Royal 9 wager, the button: major, minor {got}"


def c_capacity(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": None, "display_capacity": 45001}})
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    m = t.meters()
    got = (m["meters"]["major"], m["diverted"].get("major"))
    return got[0] > 45001, f"major without a payout limit, display capacity 45001, +2.5 cents: amount, diverted {got}"


def c_void_back(t: Table) -> tuple[bool, str]:
    button_void(t)
    got = meter(t, "mega")
    return got != (5000006, "0.25"), f"a $5 Royal 9 wager, the button, the round voided: mega {got}"


def c_comm_contrib(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("test.link", up=False)
    got = meter(t, "mega")
    t.ctl.ok("test.link", up=True)
    return got != (5000006, "0.25"), f"a $5 Royal 9 wager, the sensors link lost in the open round: mega {got}"


# ---------------------------------------------------------------- payout meters, pending payments, reset key
def c_pending_stale(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    pend = [(p["meter"], p["amount"]) for p in t.meters()["pending"]]
    return pend != [], f"seat 2's major, the reset key, then meters.get: pending {pend}"


def c_reboot_paid(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    reboot(t)
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_table"], m["paid_by_attendant"])
    return got != (45002, 0, 45002), f"seat 2's major paid at the key, a controller reboot: cumulative_paid, " \
        f"paid_by_table, paid_by_attendant {got}"


def c_pending_dollar(t: Table) -> tuple[bool, str]:
    events = major_hit(t)
    won = [h["amount"] for h in hits(events, 2)]
    pend = [(p["meter"], p["amount"]) for p in t.meters()["pending"]]
    return pend != [("major", 45002)], f"seat 2's major (hit amounts {won}): pending {pend}"


# ---------------------------------------------------------------- configuration
def c_floor_equal(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"major": {"payout_limit": 500000}})
    after = t.ctl.ok("config.get")["meters"]["major"]["payout_limit"]
    return kind != "rsp", f"the major's payout limit written 500000 (every amount at or above its floor): " \
        f"{kind} {ans.get('reason', '')}; config.get payout_limit {after}"


def c_answer_whole(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", commission="4")
    whole = t.ctl.ok("config.get")
    missing = sorted(set(whole) - set(ans))
    return bool(missing), f"config.set commission \"4\": the answer lacks {missing} that config.get gives"


def c_saved_later(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 500000}})
    t.power_cycle()
    got = t.ctl.ok("config.get")["meters"]["major"]["payout_limit"]
    return got != 500000, f"the major's payout limit written 500000, a power cycle: config.get payout_limit {got}"


def c_bad_args_trace(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"major": {"payout_limit": 500000, "rate": 7}})
    got = t.ctl.ok("config.get")["meters"]["major"]
    return got["payout_limit"] != 1000000, f"meters.major payout_limit 500000 and rate 7 (not a string): {kind} " \
        f"{ans.get('code', '')}; config.get major payout_limit {got['payout_limit']}, rate {got['rate']}"


# ---------------------------------------------------------------- identity, power, link, events, timing
def c_sensors_id(t: Table) -> tuple[bool, str]:
    before = t.sens.ok("identity").get("software_id")
    t.ctl.ok("test.link", up=False)
    t.ctl.ok("test.link", up=True)
    after = t.sens.ok("identity").get("software_id")
    return not after, f"the sensors' software_id before a link loss {before!r}, after the link is back {after!r}"


def c_power_event(t: Table) -> tuple[bool, str]:
    mark = t.ctl.mark()
    scpi(t.ports["power"], "OUTP OFF", "*OPC?")
    time.sleep(0.1)
    scpi(t.ports["power"], "OUTP ON", "*OPC?")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e.get("cause") == "power", 0.6)
    t.ctl.ok("ping")
    later = wait_power_lockout(t, mark)
    return ev is None, f"a power cycle, no request for 600 ms: power lockout event {ev}; after a ping {later}"


def c_reconnect(t: Table) -> tuple[bool, str]:
    t.open()
    old = t.ctl
    t.ctl = Line(t.ports["controller"])
    old.close()
    t.ctl.ok("hello", version=1)
    time.sleep(0.3)
    got = [(e["event"], e.get("locked"), e.get("cause")) for e in t.ctl.since(0)]
    return got != [], f"round open, the host reconnects to the controller: events on the new connection {got}"


def c_void_slow(t: Table) -> tuple[bool, str]:
    best = 10.0
    for _ in range(3):
        t.open()
        t0 = time.perf_counter()
        t.ctl.ok("round.settle")
        best = min(best, time.perf_counter() - t0)
    return best * 1000 > 100, f"round.settle voiding a round, fastest of three: {best * 1000:.1f} ms"


# ---------------------------------------------------------------- the $1 table
def c_paytable_power(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.power_cycle()
    t.open()
    r9_one_dollar(t, 1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(BANKER_ROYAL9), 1)]
    return got != [("royal9", 500)], f"$1 table, a power cycle, banker JC 9S: hits {got}"


def c_reset_clamp(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.ctl.ok("config.set", meters={"major": {"reset": 9000}})
    t.open()
    r9_one_dollar(t, 2)
    t.deal(MAJOR_SEAT2)
    ans = t.ctl.ok("reset_key", meter="major")
    return ans["amount"] != 9000, f"$1 table, the major's reset amount $90, seat 2's major paid: reset_key {ans}; " \
        f"major {meter(t, 'major')}"


CHECKS: dict[str, Check] = {
    "card-n-restarts-each-round": c_n_each_round,
    "shoe-seq-restarts-on-reload": c_seq_reload,
    "shoe-dealing-after-power-cut-mid-deal": c_dealing_power,
    "royal9-placed-again-contributes-twice": c_r9_again,
    "wager-list-kept-after-settlement": c_list_settled,
    "tie-placed-again-adds": c_tie_adds,
    "button-refusal-reason-no-more-bets": c_button_reason,
    "wager-accepted-after-void": c_after_void,
    "amount-over-65535-truncated": c_amount_16,
    "lockout-late-when-meter-at-cap": c_late_at_cap,
    "card-lockout-event-skipped-with-empty-layout": c_empty_layout,
    "banker-2-stands-on-third-8": c_banker2,
    "banker-commission-on-seat-first-stake": c_vig_first_stake,
    "banker-three-card-win-no-commission": c_vig_three_cards,
    "tie-rows-checked-before-personal": c_tie_rows,
    "envy-paid-to-first-seat-only": c_envy_first,
    "jackpot-returned-without-stake": c_jackpot_stake,
    "royal9-payouts-last-seat-first": c_payouts_order,
    "one-dollar-paytable-lost-at-power-up": c_paytable_power,
    "sub-cent-contribution-skipped": c_sub_cent,
    "capacity-ignored-without-limit": c_capacity,
    "void-takes-back-contributions": c_void_back,
    "comm-lost-close-skips-contribution": c_comm_contrib,
    "pending-stale-after-key": c_pending_stale,
    "payout-meters-zeroed-by-reboot": c_reboot_paid,
    "pending-amount-truncated-to-dollar": c_pending_dollar,
    "one-dollar-reset-key-clamps-to-five-dollar-floor": c_reset_clamp,
    "floor-itself-refused": c_floor_equal,
    "config-set-answers-written-fields-only": c_answer_whole,
    "config-write-saved-at-next-round": c_saved_later,
    "meter-write-bad-args-keeps-earlier-keys": c_bad_args_trace,
    "sensors-software-id-empty-after-link-restore": c_sensors_id,
    "power-lockout-held-until-first-request": c_power_event,
    "reconnect-resends-last-event": c_reconnect,
    "void-answers-slowly": c_void_slow,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET9, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
