"""Show each fault of the eighth set (indie_table/faults.py FAULTS_SET8) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults8.py [FAULT ...]

As check_faults7.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
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
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, TIE, Check, Msg, Table, check_all, hits, payouts, scpi  # noqa: E402
from check_helpers import button_void, major_hit, meter, one_dollar, reboot  # noqa: E402
from indie_table.faults import FAULTS_SET8  # noqa: E402

PLAYER_NATURAL = ["9S", "2C", "TD", "3D"]  # player 9+0 = 9 (a natural) against banker 2+3 = 5: the player wins
ENVY_SEAT1 = ["KS", "KS", "9S", "9S"]  # seat 1's KS 9S on both hands: a tie of two naturals 9


def _shoe_cards(t: Table, mark: int) -> list[Msg]:
    return [e for e in t.shoe.since(mark) if e["event"] == "card"]


def _wait_cards(t: Table, mark: int, count: int, deadline_s: float = 2.0) -> list[Msg]:
    end = time.monotonic() + deadline_s
    cards = _shoe_cards(t, mark)
    while len(cards) < count and time.monotonic() < end:
        time.sleep(0.02)
        cards = _shoe_cards(t, mark)
    return cards


def _listed(t: Table) -> list[tuple[int, str, int]]:
    return [(w["seat"], w["type"], w["amount"]) for w in t.sens.ok("wager.list")["wagers"]]


def _last_seq(t: Table, pred: Callable[[Msg], bool]) -> int | None:
    with t.ctl.cv:
        seqs = [s for s, p in t.ctl.events if pred(p)]
    return seqs[-1] if seqs else None


# ---------------------------------------------------------------- shoe and cards
def c_n_byte(t: Table) -> tuple[bool, str]:
    mark = t.shoe.mark()
    t.shoe.ok("test.load", cards=(NO_HIT * 65)[:257])
    t.shoe.ok("test.deal", count=257, pace_us=0)
    cards = _wait_cards(t, mark, 257)
    got = [e["n"] for e in cards[255:257]]
    return got != [256, 257], f"257 cards dealt: the 256th and 257th card events say n {got}"


def c_counts_ahead(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H", "4S", "5C", "6D"])
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=6, pace_us=60000)
    st = t.shoe.ok("shoe.status")
    seen = len(_shoe_cards(t, mark))  # every event sent before the answer has been read before it
    _wait_cards(t, mark, 6)
    faulty = st["cards_dealt"] != seen or st["cards_remaining"] != 6 - seen
    return faulty, f"paced deal of six cards, {seen} card event(s) before the answer: shoe.status {st}"


def c_empty_reload(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.shoe.ok("test.load", cards=["4H", "4S", "5C"])
    st = t.shoe.ok("shoe.status")
    return st["state"] != "ready", f"a shoe dealt out, then loaded with three cards: shoe.status {st}"


def c_last_repeated(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=3, pace_us=5000)
    _wait_cards(t, mark, 3)
    time.sleep(0.3)
    got = [(e["card"], e["n"]) for e in _shoe_cards(t, mark)]
    return len(got) != 3, f"three cards dealt at 5 ms a card: card events {got}"


# ---------------------------------------------------------------- wagers
def c_negative(t: Table) -> tuple[bool, str]:
    t.open()
    ans = t.place(1, "player", -500)
    return ans.get("reason") != "bad-amount", f"a Player wager of -500: {ans}; wager.list {_listed(t)}"


def c_replace_removed(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.sens.ok("wager.remove", seat=1, type="player")
    ans = t.place(1, "player", 1000)
    return not ans["accepted"], f"a Player wager removed and placed again, wagering open: {ans}"


def c_list_locked(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("lockout.press")
    listed = _listed(t)
    return listed != [(1, "player", 1000)], f"a Player wager, then the lock-out button: wager.list {listed}"


def c_sixteen(t: Table) -> tuple[bool, str]:
    t.open()
    answers = []
    for seat in range(1, 8):
        answers.append(t.place(seat, "player", 1000)["accepted"])
        answers.append(t.place(seat, "tie", 500)["accepted"])
    for seat in range(1, 4):
        answers.append(t.place(seat, "banker", 1000)["accepted"])
    listed = _listed(t)
    return len(listed) != 17, f"17 wagers placed ({sum(answers)} accepted): wager.list has {len(listed)}"


def c_removed_settled(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(2, "player", 1000)
    t.sens.ok("wager.remove", seat=2, type="player")
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(PLAYER_NATURAL), 2, "player")]
    return got != [], f"seat 2's Player wager removed, the player wins: seat 2 payouts {got}"


def c_dollar_list(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.open()
    t.place(1, "player", 1000)
    assert t.place(1, "royal9", 100)["accepted"]
    listed = _listed(t)
    return listed != [(1, "player", 1000), (1, "royal9", 100)], f"$1 table, a $1 Royal 9 wager: wager.list {listed}"


def c_small_base(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.open()
    t.place(1, "player", 200)
    ans = t.place(1, "royal9", 100)
    return not ans["accepted"], f"$1 table, a $1 Royal 9 wager beside a $2 Player wager: {ans}"


def c_link_wait(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("test.link", up=False)
    best, ans = 10.0, {}
    for _ in range(3):
        t0 = time.perf_counter()
        ans = t.place(1, "player", 1000)
        best = min(best, time.perf_counter() - t0)
    t.ctl.ok("test.link", up=True)
    return best * 1000 > 100, f"wager.place with the sensors link down ({ans}), fastest of three: {best * 1000:.1f} ms"


# ---------------------------------------------------------------- lock-out
def c_masked(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 2", "INIT", "*OPC?")
    t.open()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reading = scpi(counter, "FETC?")
    ms = float(reading or "9.91E+37") * 1000  # a counter reading, seconds as SCPI text
    return ms > 2.0, f"the first card just after round.open, counter card out to lock-out: {reading} ({ms:.3f} ms)"


def c_get_settled(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.deal(NO_HIT)
    got = t.ctl.ok("lockout.get")
    late = t.place(1, "player", 1000)
    return not got["locked"], f"a round settled: lockout.get {got}; a wager then {late}"


def c_void_event(t: Table) -> tuple[bool, str]:
    t.open()
    mark = t.ctl.mark()
    t.ctl.ok("round.settle")
    t.ctl.wait(mark, lambda e: e["event"] == "round_end", 1.0)
    time.sleep(0.05)
    got = [(e["event"], e.get("cause")) for e in t.ctl.since(mark)]
    lock = t.ctl.ok("lockout.get")
    return ("lockout", "no-more-bets") not in got, f"round.settle with no card out: events {got}; lockout.get {lock}"


def c_stale_unlock(t: Table) -> tuple[bool, str]:
    t.open()
    mark = t.ctl.mark()
    t.ctl.ok("test.link", up=False)
    t.ctl.wait(mark, lambda e: e["event"] == "lockout", 1.0)
    back = t.ctl.mark()
    t.ctl.ok("test.link", up=True)
    time.sleep(0.3)
    events = [(e["event"], e.get("locked"), e.get("cause")) for e in t.ctl.since(back)]
    lock = t.ctl.ok("lockout.get")
    unlocks = [e for e in events if e[0] == "lockout" and e[1] is False]
    return bool(unlocks) and lock["locked"], f"the sensors link back mid-round: events {events}; lockout.get {lock}"


def c_void_button(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("lockout.press")
    kind, ans = t.ctl.req("round.settle")
    return kind != "rsp", f"the lock-out button, then round.settle with no card out: {kind} {ans}"


# ---------------------------------------------------------------- base settlement
def c_banker6(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 2+3 = 5 draws a 6 (1); banker 3+3 = 6 must draw on a 6: the 5D makes 1, a tie
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(["2S", "3C", "3D", "3H", "6S", "5D"]), 1, "player")]
    return got != [("push", 1000)], f"player 5 draws a 6, banker 6: player payout {got}"


def c_banker_natural(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 3+2 = 5, banker K+8 = 8, a natural: the round ends on four cards, the banker wins
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(["3S", "KC", "2D", "8H", "4C"]), 1, "player")]
    return got != [("lose", 0)], f"player 5 against a banker natural 8: player payout {got}"


def c_tie_vig(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "tie", 1000)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(TIE), 1, "tie")]
    return got != [("win", 9000)], f"a Tie wager of 1000 on a tie: {got}"


# ---------------------------------------------------------------- Royal 9
def c_mega_major(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(ENVY_SEAT1), 1)]
    return got != [("mega", 5000006)], f"seat 1's KS 9S on both hands (mega 5000000 + 6.25): hits {got}"


def c_round_up(t: Table) -> tuple[bool, str]:
    got = [h["amount"] for h in hits(major_hit(t), 2)]
    shown = meter(t, "major")
    return got != [shown[0]], f"seat 2's major: hit amounts {got}; the meter shows {shown}"


def c_dollar_envy(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.open()
    t.place(2, "player", 1000)
    assert t.place(2, "royal9", 100)["accepted"]
    got = [(h["category"], h["amount"]) for h in hits(t.deal(ENVY_SEAT1), 2)]
    return got != [("mega-envy", 100000)], f"$1 table, seat 2 on seat 1's KS 9S: hits {got}"


# ---------------------------------------------------------------- progressive meters
def c_per_base(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(1, "tie", 500)
    assert t.place(1, "royal9", 500)["accepted"]
    t.ctl.ok("lockout.press")
    got = meter(t, "mega")
    return got != (5000006, "0.25"), f"one $5 Royal 9 wager beside a Player and a Tie wager, the button: mega {got}"


def c_half_up(t: Table) -> tuple[bool, str]:
    button_void(t)
    got = meter(t, "major")
    return got != (45002, "0.5"), f"one $5 wager at 0.5 % (2.5 cents): major {got}"


def c_denom_floors(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    got = t.meters()["meters"]
    return got != {"mega": 5000000, "major": 45000, "minor": 45000}, f"denomination 100 written: meters {got}"


def c_pending_back(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.power_cycle()
    m = t.meters()
    pend = [(p["meter"], p["amount"]) for p in m["pending"]]
    return m["meters"]["major"] != 45002, f"seat 2's major pending, a power cycle: major {m['meters']['major']}, " \
        f"pending {pend}"


# ---------------------------------------------------------------- payout meters, pending payments, reset key
def c_key_power(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.power_cycle()
    t.ctl.ok("reset_key", meter="major")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_attendant"], m["pending"])
    return got != (45002, 45002, []), f"seat 2's major, a power cycle, the key: cumulative_paid, " \
        f"paid_by_attendant, pending {got}"


def c_key_reboot(t: Table) -> tuple[bool, str]:
    major_hit(t)
    reboot(t)
    pend = [(p["meter"], p["amount"]) for p in t.meters()["pending"]]
    kind, ans = t.ctl.req("reset_key", meter="major")
    return kind != "rsp", f"seat 2's major pending {pend}, a controller reboot, the key: {kind} {ans}"


# ---------------------------------------------------------------- configuration
def c_limit_equal(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"major": {"payout_limit": 45000}})
    after = t.ctl.ok("config.get")["meters"]["major"]["payout_limit"]
    return kind != "nak", f"major at 45000, its payout limit written 45000: {kind} {ans.get('code', '')}; " \
        f"config.get payout_limit {after}"


def c_initial_above(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"major": {"initial": 2000000}})
    after = t.ctl.ok("config.get")["meters"]["major"]
    return kind != "nak", f"major initial 2000000 written (payout limit 1000000): {kind} {ans.get('code', '')}; " \
        f"config.get initial {after['initial']}, payout_limit {after['payout_limit']}"


def c_live_void(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("round.settle")
    kind, ans = t.ctl.req("config.set", commission="4")
    return kind != "rsp", f"a voided round, then config.set commission \"4\": {kind} {ans.get('reason', '')}"


def c_limit_minor(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 500000}})
    got = t.ctl.ok("config.get")["meters"]["minor"]["payout_limit"]
    return got != 1000000, f"the major's payout limit written 500000: the minor's payout_limit {got}"


# ---------------------------------------------------------------- identity, power, events
def c_software_id(t: Table) -> tuple[bool, str]:
    before = t.ctl.ok("identity").get("software_id")
    reboot(t)
    after = t.ctl.ok("identity").get("software_id")
    return not after, f"the controller's software_id before a reboot {before!r}, after {after!r}"


def c_seq_zero(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    seq = _last_seq(t, lambda e: e["event"] == "lockout" and e.get("cause") == "power")
    return seq != 1, f"a power cycle: the SEQ of the power-up lockout event {seq}"


CHECKS: dict[str, Check] = {
    "card-n-one-byte": c_n_byte,
    "shoe-status-counts-ahead-in-paced-deal": c_counts_ahead,
    "empty-flag-kept-after-reload": c_empty_reload,
    "last-card-event-repeated": c_last_repeated,
    "negative-amount-accepted": c_negative,
    "replace-after-remove-refused": c_replace_removed,
    "wager-list-empty-after-lockout": c_list_locked,
    "layout-full-at-sixteen": c_sixteen,
    "removed-wager-settled": c_removed_settled,
    "one-dollar-wager-list-royal9-500": c_dollar_list,
    "one-dollar-small-base-not-counted": c_small_base,
    "comm-lost-refusal-waits-link-timeout": c_link_wait,
    "card-out-masked-after-open": c_masked,
    "lockout-get-open-after-settlement": c_get_settled,
    "void-closes-without-lockout-event": c_void_event,
    "link-restore-sends-stale-unlock": c_stale_unlock,
    "void-refused-after-button": c_void_button,
    "banker-6-stands-on-third-6": c_banker6,
    "banker-natural-checked-after-player-draw": c_banker_natural,
    "tie-win-charged-commission": c_tie_vig,
    "mega-checked-after-major": c_mega_major,
    "jackpot-rounds-residual-up": c_round_up,
    "one-dollar-mega-envy-pays-five-dollar-line": c_dollar_envy,
    "royal9-contributes-per-base-wager": c_per_base,
    "meter-rounds-half-up": c_half_up,
    "denomination-write-loads-floors": c_denom_floors,
    "pending-meter-turned-back-at-power-up": c_pending_back,
    "key-after-power-books-nothing": c_key_power,
    "reset-key-refused-after-reboot": c_key_reboot,
    "payout-limit-equal-current-accepted": c_limit_equal,
    "initial-above-limit-accepted": c_initial_above,
    "config-live-after-void": c_live_void,
    "major-limit-write-sets-minor-limit": c_limit_minor,
    "software-id-empty-after-reboot": c_software_id,
    "power-up-event-seq-from-zero": c_seq_zero,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET8, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
