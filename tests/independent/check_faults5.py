"""Show each fault of the fifth set (indie_table/faults.py FAULTS_SET5) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults5.py [FAULT ...]

As check_faults4.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
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

from check_faults2 import NO_HIT, Check, Table, check_all, hits, payouts, scpi  # noqa: E402
from check_helpers import MINOR_SEAT1, major_hit, one_dollar, wait_power_lockout  # noqa: E402
from indie_table.faults import FAULTS_SET5  # noqa: E402


# ---------------------------------------------------------------- shoe and cards
def c_hearts(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["KH", "2C"])
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    card = t.shoe.wait(mark, lambda e: e["event"] == "card")
    got = card["card"] if card else None
    return got != "KH", f"KH dealt: card event {card}"


def c_pairs(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    mark = t.shoe.mark()
    t0 = time.monotonic()
    t.shoe.ok("test.deal", count=2, pace_us=500000)
    first = t.shoe.wait(mark, lambda e: e["event"] == "card" and e["n"] == 1, 0.75)
    took = time.monotonic() - t0
    t.shoe.wait(mark, lambda e: e["event"] == "card" and e["n"] == 2, 2.0)
    return first is None, f"card 1 of a deal paced 500 ms: {first} after {took * 1000:.0f} ms (0.75 s allowed)"


def c_misread_late(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 2", "INIT", "*OPC?")
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.fault", kind="misread")
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reading = scpi(counter, "FETC?")
    ms = float(reading or "9.91E+37") * 1000  # a counter reading, seconds as SCPI text
    return ms > 2.0, f"counter, misread first card out to lock-out: {reading} ({ms:.3f} ms; deadline 1.0 ms)"


# ---------------------------------------------------------------- wagers
def c_list_grouped(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.place(2, "player", 1000)
    listed = [(w["seat"], w["type"]) for w in t.sens.ok("wager.list")["wagers"]]
    return [s for s, _ in listed] != sorted(s for s, _ in listed), f"wager.list: {listed}"


def c_remove_r9(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    kind, ans = t.sens.req("wager.remove", seat=1, type="royal9")
    listed = [(w["seat"], w["type"]) for w in t.sens.ok("wager.list")["wagers"]]
    return kind != "rsp" or (1, "royal9") in listed, \
        f"royal9 at seat 1 removed while wagering is open: {kind} {ans}; list {listed}"


def c_link_reason(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("test.link", up=False)
    ans = t.place(1, "player", 1000)
    return ans.get("reason") != "comm-lost", f"a wager with the sensors link down in an open round: {ans}"


# ---------------------------------------------------------------- lock-out and no more bets
def c_lockout_get_open(t: Table) -> tuple[bool, str]:
    t.open()
    ans = t.ctl.ok("lockout.get")
    return ans.get("cause") is not None or bool(ans.get("locked")), f"lockout.get with wagering open: {ans}"


def c_button_locked(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("lockout.press")
    mark = t.ctl.mark()
    t.ctl.ok("lockout.press")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout", 0.3)
    return ev is not None, f"the button pressed again while locked: event {ev}"


def c_nmb_after_button(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("lockout.press")
    mark = t.ctl.mark()
    ans = t.ctl.ok("round.no_more_bets")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "no_more_bets", 0.5)
    return ev is None, f"round.no_more_bets after the button: {ans}; no_more_bets event {ev}"


# ---------------------------------------------------------------- rounds and events
def c_void_flag(t: Table) -> tuple[bool, str]:
    t.open()
    mark = t.ctl.mark()
    ans = t.ctl.ok("round.settle")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "round_end")
    return ev is None or ev.get("void") is not True, f"round.settle with no card: {ans}; round_end {ev}"


def c_round_power(t: Table) -> tuple[bool, str]:
    first = t.ctl.ok("round.open")["round"]
    t.power_cycle()
    kind, ans = t.ctl.req("round.open")
    got = ans.get("round") if kind == "rsp" else None
    return got != first + 1, f"round {first} opened, a power cycle, round.open: {kind} {ans}"


def c_refused_open(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.link", up=False)
    kind, _ = t.ctl.req("round.open")
    t.ctl.ok("test.link", up=True)
    ans = t.ctl.ok("round.open")
    return ans["round"] != 1, f"round.open with the link down: {kind}; link back, round.open {ans}"


def c_round_byte(t: Table) -> tuple[bool, str]:
    got = []
    for _ in range(256):
        got.append(t.ctl.ok("round.open")["round"])
        t.ctl.ok("round.settle")
    return got != list(range(1, 257)), f"256 voided rounds: the last numbers {got[-3:]}"


def c_seq_power(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("round.settle")
    mark = t.ctl.mark()
    t.power_cycle()
    wait_power_lockout(t, mark)
    with t.ctl.cv:
        seqs = [s for s, e in t.ctl.events if e.get("event") == "lockout" and e.get("cause") == "power"]
    return seqs != [1], f"SEQ of the power-up lockout event after three events before the power cycle: {seqs}"


# ---------------------------------------------------------------- base settlement
def c_banker_5(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 2+3 = 5 draws a 4 (9); banker 2+3 = 5 must draw on a 4: the 4C makes it 9, a tie
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(["2S", "2C", "3D", "3H", "4S", "4C"]), 1,
                                                           "player")]
    return got != [("push", 1000)], f"player 5 + 4, banker 5 draws a 4: player payout {got}"


def c_commission_up(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "banker", 1050)
    got = [p["returned"] for p in payouts(t.deal(NO_HIT), 1, "banker")]
    return got != [2048], f"winning banker 1050 at 5 % (52.5 cents, rounded down to 52): returned {got}"


def c_losing_r9(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(NO_HIT), 1, "royal9")]
    return got != [(None, 0)], f"a losing Royal 9 wager at seat 1: (category, returned) {got}"


# ---------------------------------------------------------------- Royal 9
def c_nine_first(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["2C", "9D", "3S", "QH"]), 1)]
    return got != [("royal9", 2500)], f"banker 9D QH (nine first): hits {got}"


def c_king_suit(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(5)  # seat 5's combination is KS 9H
    got = [(h["category"], h["amount"]) for h in hits(t.deal(MINOR_SEAT1), 5)]
    return got != [("suited-royal9", 5000)], f"player KS 9S, a Royal 9 wager at seat 5 (KS 9H): hits {got}"


def c_envy_seat(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    events = t.deal(["KS", "KS", "9S", "9S"])  # seat 1's KS 9S on both hands, seat 1 empty
    got = [(h["seat"], h["category"], h["amount"]) for h in events if h["event"] == "hit"]
    return got != [(2, "mega-envy", 500000)], f"mega envy won by seat 2: hit events {got}"


def c_five_unit(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.open()
    t.place(1, "player", 1000)
    assert t.place(1, "royal9", 100)["accepted"]
    t.ctl.ok("lockout.press")
    m = t.meters()
    got = (m["meters"]["mega"], m["residual"]["mega"])
    return got != (5000001, "0.25"), f"mega after one $1 wager at 1.25 % (1.25 cents): {got}"


def c_suited_tie_typo(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.open()
    t.place(1, "player", 1000)
    assert t.place(1, "royal9", 100)["accepted"]
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["QH", "JD", "9H", "9D"]), 1)]
    return got != [("suited-royal9-tie", 30000)], f"$1 table, player QH 9H, banker JD 9D: hits {got}"


def c_five_floors(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    kind, ans = t.ctl.req("config.set", meters={"major": {"initial": 9000, "reset": 9000}})
    return kind != "rsp", f"$1 table, major initial and reset $90 (the $1 floor): {kind} {ans.get('code', '')}"


# ---------------------------------------------------------------- progressive meters
def c_key_residual(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    got = t.meters()["residual"]["major"]
    return got != "0.5", f"major residual after its hit (45000 + 2.5) and the key: {got!r}"


def c_nmb_card(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("round.no_more_bets")
    t.deal(NO_HIT)
    m = t.meters()
    got = (m["meters"]["mega"], m["residual"]["mega"])
    return got != (5000006, "0.25"), f"mega after one $5 wager, no more bets and the deal: {got}"


def c_residual_swap(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    r = t.meters()["residual"]
    got = (r["major"], r["minor"])
    return got != ("0.5", "0.75"), f"residuals after one $5 wager (major +2.5, minor +1.75): {got}"


def c_diverted_zero(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45002}})
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    m = t.meters()
    got = (m["meters"]["major"], m.get("diverted", {}).get("major"))
    return got != (45002, 0), f"major (limit 45002) after +2.5: amount, diverted {got}; diverted {m.get('diverted')}"


# ---------------------------------------------------------------- payout meters, pending, reset key
def c_cumulative_hit(t: Table) -> tuple[bool, str]:
    major_hit(t)
    before = t.meters()["cumulative_paid"]
    t.ctl.ok("reset_key", meter="major")
    after = t.meters()["cumulative_paid"]
    return (before, after) != (0, 45002), f"cumulative_paid after the major hit {before}, after the key {after}"


def c_pending_reboot(t: Table) -> tuple[bool, str]:
    major_hit(t)
    mark = t.ctl.mark()
    t.ctl.ok("test.fault", kind="reboot", after_ms=0, duration_ms=200)
    wait_power_lockout(t, mark)
    pending = [(p["meter"], p["seat"], p["amount"]) for p in t.meters()["pending"]]
    return pending != [("major", 2, 45002)], f"pending after the major hit and a controller reboot: {pending}"


def c_key_order(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    t.deal(["KS", "KH", "9S", "9H"])  # seat 1's minor (player KS 9S), seat 2's major (banker KH 9H)
    kind, ans = t.ctl.req("reset_key", meter="major")
    return kind != "rsp", f"minor and major pending, the major's key first: {kind} {ans}"


def c_write_pending(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("config.set", meters={"major": {"rate": "0.6"}})
    pending = [(p["meter"], p["seat"]) for p in t.meters()["pending"]]
    kind, _ = t.ctl.req("round.open")
    return pending != [("major", 2)], f"pending after a major rate write: {pending}; round.open {kind}"


# ---------------------------------------------------------------- configuration and identity
def c_null_limit(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"mega": {"payout_limit": None}})
    return kind != "rsp", f"mega payout_limit null: {kind} {ans.get('code', '')} {ans.get('reason', '')}"


def c_shoe_identity(t: Table) -> tuple[bool, str]:
    ident = t.shoe.ok("identity")
    got = (ident.get("asset_number"), ident.get("game_type"))
    return not any(got), f"shoe identity asset_number, game_type: {got}"


# ---------------------------------------------------------------- link and timing
def c_comm_latched(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.link", up=False)
    t.ctl.ok("test.link", up=True)
    kind, ans = t.ctl.req("round.open")
    return kind != "rsp", f"sensors link down and back, round.open: {kind} {ans}"


def c_key_slow(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t0 = time.perf_counter()
    t.ctl.ok("reset_key", meter="major")
    ms = (time.perf_counter() - t0) * 1000
    return ms > 100, f"reset_key answered in {ms:.1f} ms"


CHECKS: dict[str, Check] = {
    "card-event-hearts-as-diamonds": c_hearts,
    "card-events-sent-in-pairs": c_pairs,
    "misread-first-card-locks-late": c_misread_late,
    "wager-list-grouped-by-type": c_list_grouped,
    "royal9-remove-refused-while-open": c_remove_r9,
    "link-down-refused-locked-out": c_link_reason,
    "lockout-get-open-cause-round-open": c_lockout_get_open,
    "button-event-when-locked": c_button_locked,
    "nmb-after-button-no-event": c_nmb_after_button,
    "void-round-end-without-void-flag": c_void_flag,
    "round-number-not-saved-in-open-round": c_round_power,
    "refused-open-counts-round": c_refused_open,
    "round-number-one-byte": c_round_byte,
    "event-seq-survives-power-cycle": c_seq_power,
    "banker-5-stands-on-4": c_banker_5,
    "commission-rounded-up": c_commission_up,
    "losing-royal9-category-lose": c_losing_r9,
    "nine-first-not-royal9-on-banker": c_nine_first,
    "combination-matched-on-king-suit": c_king_suit,
    "envy-hit-names-combination-seat": c_envy_seat,
    "contribution-uses-five-dollar-stake": c_five_unit,
    "one-dollar-suited-tie-typo": c_suited_tie_typo,
    "one-dollar-writes-held-to-five-floors": c_five_floors,
    "reset-key-zeroes-residual": c_key_residual,
    "card-after-nmb-contributes-again": c_nmb_card,
    "residual-major-minor-swapped": c_residual_swap,
    "diverted-listed-only-when-nonzero": c_diverted_zero,
    "cumulative-booked-at-hit": c_cumulative_hit,
    "pending-doubled-after-reboot": c_pending_reboot,
    "reset-key-only-oldest-pending": c_key_order,
    "meter-write-drops-pending": c_write_pending,
    "null-payout-limit-bad-args": c_null_limit,
    "shoe-identity-without-asset-or-game": c_shoe_identity,
    "comm-lost-latched-after-restore": c_comm_latched,
    "reset-key-answers-slowly": c_key_slow,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET5, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
