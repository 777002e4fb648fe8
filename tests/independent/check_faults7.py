"""Show each fault of the seventh set (indie_table/faults.py FAULTS_SET7) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults7.py [FAULT ...]

As check_faults6.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py.  For every fault the independent table is started twice on free 127.0.0.1
ports with a fresh state directory, once clean and once with `--fault NAME`, and one small scenario
speaks the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench supply and
the time-interval counter) to it.  One line per fault: `shows` when the faulty table gives the
faulty answer, `clean ok` when the clean table does not.  Exit status 0 when every fault shows and
every clean run is ok.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, TIE, Check, Table, check_all, hits, payouts  # noqa: E402
from check_helpers import button_void, first_card_ms, major_hit, meter, reboot  # noqa: E402
from indie_table.faults import FAULTS_SET7  # noqa: E402

CARD = re.compile(r"^[A2-9TJQK][SHDC]$")  # section 6.2: rank A 2-9 T J Q K, suit S H D C


def _shoe_seqs(t: Table) -> list[tuple[int, str]]:
    with t.shoe.cv:
        return [(seq, p["event"]) for seq, p in t.shoe.events]


# ---------------------------------------------------------------- shoe and cards
def c_ten(t: Table) -> tuple[bool, str]:
    mark = t.shoe.mark()
    t.shoe.ok("test.load", cards=["TS", "2C"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.shoe.wait(mark, lambda e: e.get("n") == 2, 1.0)
    cards = [e["card"] for e in t.shoe.since(mark) if e["event"] == "card"]
    return cards != ["TS", "2C"] or not all(CARD.match(c) for c in cards), f"TS and 2C dealt: card events {cards}"


def c_remaining_misread(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    t.shoe.ok("test.fault", kind="misread")
    t.shoe.ok("test.deal", count=2, pace_us=0)
    st = t.shoe.ok("shoe.status")
    return st["cards_remaining"] != 1, f"three cards loaded, two out (the first misread): shoe.status {st}"


def c_dealing_stuck(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=2, pace_us=2000)
    end = time.monotonic() + 1.0
    st = t.shoe.ok("shoe.status")
    while st["state"] == "dealing" and time.monotonic() < end:
        time.sleep(0.05)
        st = t.shoe.ok("shoe.status")
    return st["state"] != "empty", f"two cards dealt out at 2 ms a card, a second later: shoe.status {st}"


# ---------------------------------------------------------------- wagers
def c_list_first(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(1, "player", 2500)
    listed = [(w["seat"], w["type"], w["amount"]) for w in t.sens.ok("wager.list")["wagers"]]
    return listed != [(1, "player", 2500)], f"player 1000 placed again at 2500: wager.list {listed}"


def c_remove_missing(t: Table) -> tuple[bool, str]:
    t.open()
    kind, ans = t.sens.req("wager.remove", seat=1, type="player")
    return not (kind == "nak" and ans.get("code") == "REFUSED"), f"wager.remove of a wager not placed: {kind} {ans}"


def c_remove_closed(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("lockout.press")
    kind, ans = t.sens.req("wager.remove", seat=1, type="player")
    return not (kind == "nak" and ans.get("code") == "REFUSED"), f"wager.remove after the button: {kind} {ans}"


def c_list_last_seat(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(6, "player", 1000)
    t.place(7, "banker", 1000)
    listed = [(w["seat"], w["type"]) for w in t.sens.ok("wager.list")["wagers"]]
    return listed != [(6, "player"), (7, "banker")], f"wagers at seats 6 and 7: wager.list {listed}"


def c_dollar_five(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    t.open()
    t.place(1, "player", 1000)
    ans = t.place(1, "royal9", 500)
    return ans.get("reason") != "bad-amount", f"$1 table, a $5 Royal 9 wager: {ans}"


# ---------------------------------------------------------------- lock-out
def c_button_cause(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("lockout.press")
    got = t.ctl.ok("lockout.get")
    return got.get("cause") != "button", f"the lock-out button in an open round: lockout.get {got}"


def c_late_after_write(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", commission="4")
    t.open()
    t.place(1, "player", 1000)
    reading, ms = first_card_ms(t)
    return ms > 2.0, f"round after a commission write, counter card out to lock-out: {reading} ({ms:.3f} ms)"


# ---------------------------------------------------------------- rounds
def c_open_number(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("round.open")
    mark = t.ctl.mark()
    t.ctl.ok("round.no_more_bets")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "no_more_bets")
    return ev is None or ans["round"] != ev["round"], f"round.open answered {ans}; no_more_bets event {ev}"


def c_void_misread(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.fault", kind="misread")
    t.shoe.ok("test.deal", count=1, pace_us=0)
    kind, ans = t.ctl.req("round.settle")
    return kind != "nak", f"round.settle with the first card out misread: {kind} {ans}"


def c_end_twice(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    t.deal(TIE)
    time.sleep(0.2)
    ends = [e for e in t.ctl.since(mark) if e["event"] == "round_end"]
    return len(ends) != 1, f"a round of two naturals: round_end events {ends}"


def c_void_late(t: Table) -> tuple[bool, str]:
    t.open()
    mark = t.ctl.mark()
    t.ctl.ok("round.settle")
    t0 = time.perf_counter()
    ev = t.ctl.wait(mark, lambda e: e["event"] == "round_end", 1.0)
    ms = (time.perf_counter() - t0) * 1000
    return ev is None or ms > 100, f"round.settle (void) answered; round_end {ev} {ms:.1f} ms after the answer"


# ---------------------------------------------------------------- base settlement
def c_player6(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 3+3 = 6 stands, banker 2+5 = 7 stands: banker wins on four cards
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(["3S", "2C", "3D", "5H", "3H"]), 1, "player")]
    return got != [("lose", 0)], f"player 6 against banker 7: player payout {got}"


def c_tie_category(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "tie", 1000)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(TIE), 1, "tie")]
    return got != [("win", 9000)], f"a Tie wager of 1000 on a tie: {got}"


# ---------------------------------------------------------------- Royal 9
def c_r9_tie(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    events = t.deal(["QH", "JC", "9D", "9S"])  # player QH 9D, banker JC 9S: two Royal 9, not suited
    got = [(h["category"], h["amount"]) for h in hits(events, 1)]
    return got != [("royal9-tie", 25000)], f"player QH 9D, banker JC 9S: hits {got}"


def c_hands_swapped(t: Table) -> tuple[bool, str]:
    got = [(h["category"], h["meter"]) for h in hits(major_hit(t), 2)]
    return got != [("major", "major")], f"banker KH 9H (seat 2's combination): hits {got}"


def c_first_two(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    events = t.deal(["QS", "9D", "8C", "9C"])  # player QS 8C, banker 9D 9C: no Royal 9
    got = [(h["category"], h["amount"]) for h in hits(events, 1)]
    pay = [(p["category"], p["returned"]) for p in payouts(events, 1, "royal9")]
    return got != [] or pay != [(None, 0)], f"player QS 8C, banker 9D 9C: hits {got}, royal9 payout {pay}"


def c_losing_stake(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(p["stake"], p["returned"]) for p in payouts(t.deal(NO_HIT), 1, "royal9")]
    return got != [(500, 0)], f"a losing $5 Royal 9 wager beside a $10 Player wager: royal9 payout {got}"


# ---------------------------------------------------------------- progressive meters
def c_cap_stops(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    button_void(t)
    got = meter(t, "minor")
    return got != (45001, "0.75"), f"major capped at 45001, one $5 wager: minor {got}"


def c_whole_cent(t: Table) -> tuple[bool, str]:
    button_void(t)
    button_void(t)
    got = meter(t, "major")
    return got != (45005, "0"), f"major after two $5 wagers at 0.5 % (2.5 cents each): {got}"


def c_diverted_mega(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    button_void(t)
    d = t.meters()["diverted"]
    got = (d.get("mega"), d.get("major"))
    return got != (0, 1), f"major capped at 45001, 2.5 cents added: diverted mega, major {got}"


def c_tie_contributes(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "tie", 1000)
    t.ctl.ok("lockout.press")
    t.ctl.ok("round.settle")
    got = meter(t, "mega")
    return got != (5000000, "0"), f"a Tie wager alone, the button, void: mega {got}"


def c_comm_again(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    t.ctl.ok("test.link", up=False)
    got = meter(t, "mega")
    t.ctl.ok("test.link", up=True)
    return got != (5000006, "0.25"), f"one $5 wager, the button, then the sensors link lost: mega {got}"


# ---------------------------------------------------------------- pending payments, reset key, payout meters
def c_pending_stake(t: Table) -> tuple[bool, str]:
    hit = [h["amount"] for h in hits(major_hit(t), 2)]
    pend = [(p["meter"], p["amount"]) for p in t.meters()["pending"]]
    return pend != [("major", 45002)] or hit != [45002], f"seat 2's major: hit amount {hit}, pending {pend}"


def c_books_reset(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_attendant"])
    return got != (45002, 45002), f"the major's 45002 paid at the key: cumulative_paid, paid_by_attendant {got}"


def c_key_saved(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    t.power_cycle()
    pend = t.meters()["pending"]
    kind, _ans = t.ctl.req("round.open")
    return pend != [] or kind != "rsp", f"the major paid at the key, a power cycle: pending {pend}; round.open {kind}"


# ---------------------------------------------------------------- configuration
def c_commission_number(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", commission="4")
    got = ans.get("commission")
    return not isinstance(got, str), f"config.set commission \"4\" answered commission {got!r}"


def c_decks(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", decks=6)
    return ans.get("code") != "REFUSED", f"config.set decks 6 (the shoe holds 8): {kind} {ans}"


def c_minor_reset(t: Table) -> tuple[bool, str]:
    kind, _ans = t.ctl.req("config.set", meters={"minor": {"reset": 50000}})
    after = t.ctl.ok("config.get")["meters"]["minor"]["reset"]
    return kind != "nak" or after != 45000, f"minor at 45000, its reset written 50000: {kind}; config.get reset {after}"


# ---------------------------------------------------------------- identity, power, events, timing
def c_serial(t: Table) -> tuple[bool, str]:
    before = t.ctl.ok("identity")["serial"]
    t.power_cycle()
    after = t.ctl.ok("identity")["serial"]
    return before != after, f"the controller's serial before and after a power cycle: {before} {after}"


def c_reboot_shoe_seq(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reboot(t)
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    t.shoe.wait(mark, lambda e: e["event"] == "card", 1.0)
    seqs = _shoe_seqs(t)
    return [s for s, _ in seqs] != [1, 2], f"a card, a controller reboot, a card: shoe events {seqs}"


def c_misread_seq(t: Table) -> tuple[bool, str]:
    mark = t.shoe.mark()
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.fault", kind="misread")
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.shoe.wait(mark, lambda e: e["event"] == "card", 1.0)
    seqs = _shoe_seqs(t)
    return [s for s, _ in seqs] != [1, 2], f"a misread card then a card: shoe events {seqs}"


def c_status_slow(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=NO_HIT * 5)
    t.shoe.ok("test.deal", count=20, pace_us=20000)
    time.sleep(0.05)
    t0 = time.perf_counter()
    st = t.shoe.ok("shoe.status")
    ms = (time.perf_counter() - t0) * 1000
    return ms > 100, f"shoe.status during a deal ({st['state']}) answered in {ms:.1f} ms"


CHECKS: dict[str, Check] = {
    "card-event-ten-as-10": c_ten,
    "cards-remaining-keeps-misread": c_remaining_misread,
    "shoe-dealing-after-shoe-dealt-out": c_dealing_stuck,
    "wager-list-first-amount": c_list_first,
    "remove-missing-wager-answered-removed": c_remove_missing,
    "remove-after-close-bad-args": c_remove_closed,
    "wager-list-omits-last-seat": c_list_last_seat,
    "one-dollar-five-dollar-royal9-accepted": c_dollar_five,
    "lockout-get-button-cause-card": c_button_cause,
    "lockout-late-after-config-write": c_late_after_write,
    "round-open-answers-previous-number": c_open_number,
    "void-taken-after-misread-card": c_void_misread,
    "round-end-twice-on-natural": c_end_twice,
    "void-round-end-late": c_void_late,
    "player-draws-on-6": c_player6,
    "tie-win-category-push": c_tie_category,
    "royal9-tie-paid-as-royal9": c_r9_tie,
    "personal-hands-swapped": c_hands_swapped,
    "royal9-read-from-first-two-cards": c_first_two,
    "losing-royal9-stake-from-base": c_losing_stake,
    "cap-stops-later-meters": c_cap_stops,
    "residual-whole-cent-kept": c_whole_cent,
    "diverted-booked-to-mega": c_diverted_mega,
    "tie-wager-contributes": c_tie_contributes,
    "comm-lost-after-close-contributes-again": c_comm_again,
    "pending-amount-includes-stake": c_pending_stake,
    "reset-key-books-after-reset": c_books_reset,
    "key-clear-not-saved": c_key_saved,
    "commission-answered-as-number": c_commission_number,
    "decks-write-bad-args": c_decks,
    "minor-reset-above-current-accepted": c_minor_reset,
    "serial-counts-power-ups": c_serial,
    "controller-reboot-restarts-shoe-seq": c_reboot_shoe_seq,
    "misread-steps-seq-twice": c_misread_seq,
    "shoe-status-slow-while-dealing": c_status_slow,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET7, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
