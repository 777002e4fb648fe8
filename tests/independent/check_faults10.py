"""Show each fault of the tenth set (indie_table/faults.py FAULTS_SET10) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults10.py [FAULT ...]

As check_faults9.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
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

from check_faults2 import NO_HIT, Check, Msg, Table, check_all, hits, payouts  # noqa: E402
from check_helpers import (  # noqa: E402
    BANKER_ROYAL9,
    ENVY_SEAT1,
    MINOR_SEAT1,
    first_card_ms,
    major_hit,
    meter,
    one_dollar,
    r9_one_dollar,
    reboot,
    wager_list,
)
from indie_table.faults import FAULTS_SET10  # noqa: E402

MINOR1_MAJOR2 = ["KS", "KH", "9S", "9H"]  # seat 1's KS 9S on the player hand, seat 2's KH 9H on the banker's
BANKER_SUITED = ["2C", "JD", "3D", "9D"]  # banker JD 9D: a suited Royal 9, natural 9 against 5
LATE_MS = 2.5  # a lock-out later than this on the counter is the fault's (the clean table: about 0.01 ms)


def _r9_events(events: list[Msg]) -> list[tuple[str, int]]:
    return [(e["event"], e["seat"]) for e in events
            if e["event"] == "hit" or (e["event"] == "payout" and e["type"] == "royal9")]


# ---------------------------------------------------------------- shoe and cards
def c_burst(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H", "4S", "5C", "6D"])
    t.shoe.ok("test.deal", count=6, pace_us=0)
    st = t.shoe.ok("shoe.status")
    got = [e["card"] for e in t.shoe.since(0) if e["event"] == "card"]
    return len(got) != st["cards_dealt"], f"six cards dealt at once: card events {got}; shoe.status {st}"


def c_misread_n(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    t.shoe.ok("test.fault", kind="misread")
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    ev = t.shoe.wait(mark, lambda e: e["event"] == "misread")
    st = t.shoe.ok("shoe.status")
    return (ev or {}).get("n") != 2, f"one card dealt, the second misread: misread event {ev}; shoe.status {st}"


# ---------------------------------------------------------------- wagers
def c_refused_replace(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    ans = t.place(1, "royal9", 1000)
    got = wager_list(t)
    return (1, "royal9", 500) not in got, f"seat 1's $5 Royal 9 placed again at 1000 ({ans}): wager.list {got}"


def c_base_remove(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(1, "tie", 500)
    t.place(1, "royal9", 500)
    kind, ans = t.sens.req("wager.remove", seat=1, type="player")
    left = wager_list(t)
    return kind != "rsp", f"seat 1 Player, Tie and Royal 9, the Player removed: {kind} {ans}; wager.list {left}"


def c_latched(t: Table) -> tuple[bool, str]:
    t.open()
    first = t.place(1, "royal9", 500)
    t.place(1, "player", 1000)
    again = t.place(1, "royal9", 500)
    return not again["accepted"], f"a Royal 9 wager alone ({first}), a Player wager, the Royal 9 again: {again}"


# ---------------------------------------------------------------- lock-out (on the counter)
def c_late_link(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.link", up=False)
    t.ctl.ok("test.link", up=True)
    t.open()
    t.place(1, "player", 1000)
    reading, ms = first_card_ms(t)
    return ms > LATE_MS, f"the sensors link lost and back, the next round's first card: counter {reading} ({ms:.3f} ms)"


def c_tenth(t: Table) -> tuple[bool, str]:
    for _ in range(9):
        t.open()
        t.ctl.ok("round.settle")
    t.open()
    t.place(1, "player", 1000)
    reading, ms = first_card_ms(t)
    return ms > LATE_MS, f"nine voided rounds, round 10's first card: counter {reading} ({ms:.3f} ms)"


# ---------------------------------------------------------------- rounds and base settlement
def c_settle_early(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    t.shoe.ok("test.load", cards=["2S", "AH", "3C", "AD"])  # player 5 must draw a third card
    t.shoe.ok("test.deal", count=4, pace_us=0)
    kind, ans = t.ctl.req("round.settle")
    time.sleep(0.1)
    got = [(e["event"], e.get("category")) for e in t.ctl.since(mark) if e["event"] in ("payout", "round_end")]
    return kind == "rsp", f"four cards out, the player to draw: round.settle {kind} {ans}; events {got}"


def c_banker5(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 3+3 = 6 stands; banker 2+3 = 5 must draw: the 4C makes 9, the banker wins
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(["3S", "2C", "3D", "3H", "4C"]), 1, "player")]
    return got != [("lose", 0)], f"player 6 stands, banker 5: player payout {got}"


def c_tie_lost(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "tie", 500)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(NO_HIT), 1, "tie")]
    return got != [("lose", 0)], f"a Tie wager of 500, the banker wins: tie payouts {got}"


# ---------------------------------------------------------------- Royal 9
def c_envy_base(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(2, "player", 1000)
    t.r9(3)
    events = t.deal(ENVY_SEAT1)
    got = {s: [(h["category"], h["amount"]) for h in hits(events, s)] for s in (2, 3)}
    return got[2] != [], f"seat 2 a Player wager only, seat 3 a Royal 9 wager, seat 1's KS 9S on both hands: hits {got}"


def c_mega_envy(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    events = t.deal(ENVY_SEAT1)
    got = [(h["category"], h["amount"]) for h in hits(events, 1)]
    paid = [(p["category"], p["returned"]) for p in payouts(events, 1, "royal9")]
    return len(paid) != 1 or len(got) != 1, f"seat 1's KS 9S on both hands: hits {got}; Royal 9 payouts {paid}"


def c_paid_by(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(3)
    events = t.deal(MINOR_SEAT1)  # seat 1's minor, seat 3 a suited Royal 9 (KS 9S on the player hand)
    got = [(p["seat"], p["category"], p["paid_by"]) for p in events
           if p["event"] == "payout" and p["type"] == "royal9"]
    return (3, "suited-royal9", "table") not in got, f"seat 1's minor and seat 3's suited Royal 9: payouts {got}"


def c_hits_first(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    got = _r9_events(t.deal(BANKER_ROYAL9))
    want = [("hit", 1), ("payout", 1), ("hit", 2), ("payout", 2)]
    return got != want, f"Royal 9 wagers at seats 1 and 2, banker JC 9S: Royal 9 events {got}"


# ---------------------------------------------------------------- progressive meters
def c_first_seat(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    got = meter(t, "mega")
    return got != (5000006, "0.25"), f"seat 1's $5 Royal 9 wager, the button: mega {got}"


def c_carry(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    t.ctl.ok("lockout.press")
    got = (meter(t, "mega"), meter(t, "major"), meter(t, "minor"))
    want = ((5000006, "0.25"), (45002, "0.5"), (45001, "0.75"))
    return got != want, f"one $5 Royal 9 wager, the button: mega, major, minor {got}"


def c_cap_cached(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    m = t.meters()
    got = (m["meters"]["major"], m["diverted"].get("major"))
    return got[0] > 45001, f"the major's payout limit written 45001, +2.5 cents: amount, diverted {got}"


# ---------------------------------------------------------------- payout meters, pending payments, reset key
def c_pending_cat(t: Table) -> tuple[bool, str]:
    major_hit(t)
    got = [(p["meter"], p["seat"], p["category"]) for p in t.meters()["pending"]]
    return got != [("major", 2, "major")], f"seat 2's major: pending {got}"


def c_open_block(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    t.deal(MINOR1_MAJOR2)
    t.ctl.ok("reset_key", meter="major")
    pend = [(p["meter"], p["amount"]) for p in t.meters()["pending"]]
    kind, ans = t.ctl.req("round.open")
    return kind == "rsp", f"seat 1's minor and seat 2's major, the major's key (pending {pend}): " \
        f"round.open {kind} {ans}"


def c_round_end_held(t: Table) -> tuple[bool, str]:
    events = major_hit(t)
    ends = [e for e in events if e["event"] == "round_end"]
    mark = t.ctl.mark()
    t.ctl.ok("reset_key", meter="major")
    later = [e["event"] for e in t.ctl.since(mark)]
    return not ends, f"seat 2's major: round_end within 1 s of the last card {ends}; events at the key {later}"


def c_cum_save(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    t.power_cycle()
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_attendant"])
    return got != (45002, 45002), f"seat 2's major paid at the key, a power cycle: cumulative_paid, " \
        f"paid_by_attendant {got}"


def c_wrap24(t: Table) -> tuple[bool, str]:
    for _ in range(4):
        t.open()
        t.r9(1)
        t.deal(ENVY_SEAT1)
        t.ctl.ok("reset_key", meter="mega")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_table"], m["paid_by_attendant"])
    return got[2] != got[0], f"four megas paid at the key: cumulative_paid, paid_by_table, paid_by_attendant {got}"


def c_residual_saved(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    before = t.meters()["residual"]
    t.power_cycle()
    after = t.meters()["residual"]
    return after != before, f"one $5 Royal 9 wager, the button: residual {before}; after a power cycle {after}"


# ---------------------------------------------------------------- configuration
def c_config_pending(t: Table) -> tuple[bool, str]:
    major_hit(t)
    kind, ans = t.ctl.req("config.set", commission="4")
    return kind != "rsp", f"seat 2's major waiting for the key, no round open: config.set commission \"4\" " \
        f"{kind} {ans.get('reason', ans.get('commission'))}"


def c_initial_reset(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"major": {"initial": 46000}})["meters"]["major"]
    got = t.ctl.ok("config.get")["meters"]["major"]
    return got["reset"] != 45000, f"the major's initial written 46000 (meter {meter(t, 'major')[0]}): answer " \
        f"initial {ans['initial']} reset {ans['reset']}; config.get reset {got['reset']}"


def c_null_limit(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"major": {"payout_limit": None}})["meters"]["major"]
    got = t.ctl.ok("config.get")["meters"]["major"]
    return "payout_limit" not in got, f"the major's payout_limit written null: answer {ans}; config.get {got}"


# ---------------------------------------------------------------- identity, power, reboot, link, events, timing
def c_serial(t: Table) -> tuple[bool, str]:
    ident = t.ctl.ok("identity")
    return ident["serial"] != "ITW-C-0001", f"the controller's identity: serial {ident['serial']!r}, " \
        f"asset_number {ident['asset_number']!r}"


def c_power_cause(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.deal(NO_HIT)
    mark = t.ctl.mark()
    t.power_cycle()
    got = [(e["locked"], e["cause"]) for e in t.ctl.since(mark) if e["event"] == "lockout"]
    lock = t.ctl.ok("lockout.get")
    return got != [(True, "power")], f"a round settled (lock-out cause card), a power cycle: lockout events {got}; " \
        f"lockout.get {lock}"


def c_reboot_phase(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    reboot(t)
    kind, ans = t.ctl.req("round.open")
    return kind != "rsp", f"round 1 open, a controller reboot, round.open: {kind} {ans}"


def c_comm_once(t: Table) -> tuple[bool, str]:
    mark = t.ctl.mark()
    t.ctl.ok("test.link", up=False)
    t.ctl.ok("test.link", up=True)
    t.ctl.ok("test.link", up=False)
    time.sleep(0.2)
    got = [e["cause"] for e in t.ctl.since(mark) if e["event"] == "lockout"]
    t.ctl.ok("test.link", up=True)
    return got != ["comm-lost", "comm-lost"], f"the sensors link lost, back, lost again: lockout events {got}"


def c_settle_seq(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.deal(NO_HIT)
    with t.ctl.cv:
        got = [(s, p["event"]) for s, p in t.ctl.events]
    seqs = [s for s, _ in got]
    return seqs != list(range(1, len(seqs) + 1)), f"a round opened, dealt and settled: controller events {got}"


def c_open_slow(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    t0 = time.perf_counter()
    t.open()
    ms = (time.perf_counter() - t0) * 1000
    return ms > 100, f"seat 2's major paid at the key, then round.open: answered in {ms:.1f} ms"


# ---------------------------------------------------------------- the $1 table
def c_one_swapped(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.open()
    r9_one_dollar(t, 1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(BANKER_SUITED), 1)]
    return got != [("suited-royal9", 1000)], f"$1 table, banker JD 9D: hits {got}"


def c_one_late(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.open()
    r9_one_dollar(t, 1)
    reading, ms = first_card_ms(t)
    return ms > LATE_MS, f"$1 table, a $1 Royal 9 wager, the first card: counter {reading} ({ms:.3f} ms)"


def c_one_stake(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.open()
    r9_one_dollar(t, 1)
    got = [(p["category"], p["stake"], p["returned"]) for p in payouts(t.deal(NO_HIT), 1, "royal9")]
    return got != [(None, 100, 0)], f"$1 table, a losing $1 Royal 9 wager: its payout {got}"


CHECKS: dict[str, Check] = {
    "card-event-lost-in-burst": c_burst,
    "misread-n-one-behind": c_misread_n,
    "royal9-refused-replace-drops-wager": c_refused_replace,
    "base-remove-refused-beside-royal9": c_base_remove,
    "no-base-refusal-latched": c_latched,
    "lockout-late-after-link-restore": c_late_link,
    "lockout-late-every-tenth-round": c_tenth,
    "settle-taken-before-third-card": c_settle_early,
    "banker-5-stands-when-player-stood": c_banker5,
    "losing-tie-payout-skipped": c_tie_lost,
    "envy-paid-to-base-only-seats": c_envy_base,
    "mega-winner-also-paid-envy": c_mega_envy,
    "paid-by-attendant-carried-to-next-seat": c_paid_by,
    "hits-sent-before-payouts": c_hits_first,
    "first-seat-royal9-not-contributing": c_first_seat,
    "carry-passed-between-meters": c_carry,
    "cap-cached-at-power-up": c_cap_cached,
    "pending-category-wager-type": c_pending_cat,
    "open-block-cleared-by-first-key": c_open_block,
    "round-end-held-until-key": c_round_end_held,
    "cumulative-booked-after-save": c_cum_save,
    "paid-by-attendant-wraps-at-24-bits": c_wrap24,
    "residual-saved-to-one-decimal": c_residual_saved,
    "config-refused-while-payment-pending": c_config_pending,
    "initial-write-copies-to-reset": c_initial_reset,
    "null-limit-dropped-from-config": c_null_limit,
    "controller-serial-from-asset-number": c_serial,
    "power-lockout-event-old-cause": c_power_cause,
    "reboot-keeps-round-phase": c_reboot_phase,
    "comm-lost-event-once-per-power-up": c_comm_once,
    "settlement-events-own-seq": c_settle_seq,
    "round-open-slow-after-key": c_open_slow,
    "one-dollar-tie-and-suited-swapped": c_one_swapped,
    "one-dollar-lockout-late-on-fractional-contribution": c_one_late,
    "one-dollar-royal9-payout-stake-500": c_one_stake,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET10, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
