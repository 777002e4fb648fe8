"""Show each fault of the sixth set (indie_table/faults.py FAULTS_SET6) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults6.py [FAULT ...]

As check_faults5.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
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

from check_faults2 import NO_HIT, TIE, Check, Table, check_all, hits, payouts  # noqa: E402
from check_helpers import button_void, first_card_ms, major_hit, reboot  # noqa: E402
from indie_table.faults import FAULTS_SET6  # noqa: E402


# ---------------------------------------------------------------- shoe and cards
def c_dealt_misread(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    t.shoe.ok("test.fault", kind="misread")
    t.shoe.ok("test.deal", count=2, pace_us=0)
    st = t.shoe.ok("shoe.status")
    return st["cards_dealt"] != 2, f"two cards out, the first misread: shoe.status {st}"


def c_empty_one(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    st = t.shoe.ok("shoe.status")
    return st["state"] != "ready", f"one card left in the shoe: shoe.status {st}"


# ---------------------------------------------------------------- wagers
def c_decrease(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 2000)
    ans = t.place(1, "player", 1000)
    listed = [(w["seat"], w["type"], w["amount"]) for w in t.sens.ok("wager.list")["wagers"]]
    return not ans["accepted"] or listed != [(1, "player", 1000)], \
        f"player 2000 placed again at 1000: {ans}; list {listed}"


def c_bad_seat_closed(t: Table) -> tuple[bool, str]:
    kind, ans = t.sens.req("wager.place", seat=8, type="player", amount=1000)  # no round open
    return kind == "rsp" and ans.get("reason") != "bad-seat", f"seat 8 (the table has 1..7), no round: {kind} {ans}"


def c_list_stale(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(2, "player", 1000)
    t.sens.ok("wager.remove", seat=2, type="player")
    listed = [(w["seat"], w["type"]) for w in t.sens.ok("wager.list")["wagers"]]
    return listed != [(1, "player")], f"seat 2 player removed: wager.list {listed}"


def c_unoffered(t: Table) -> tuple[bool, str]:
    t.open()
    ans = t.place(1, "dragon7", 1000)
    return ans.get("reason") != "disabled", f"a dragon7 wager on the Midibaccarat table: {ans}"


def c_tie_base(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "tie", 1000)
    ans = t.place(1, "royal9", 500)
    return not ans["accepted"], f"royal9 at seat 1 beside a Tie wager: {ans}"


def c_refused_event(t: Table) -> tuple[bool, str]:
    mark = t.sens.mark()
    ans = t.place(1, "player", 1000)  # no round open: refused locked-out
    ev = t.sens.wait(mark, lambda e: e["event"] == "wager", 0.4)
    return ev is not None, f"wager.place refused ({ans}): sensors event {ev}"


# ---------------------------------------------------------------- lock-out and no more bets
def c_nmb_cause(t: Table) -> tuple[bool, str]:
    t.open()
    mark = t.ctl.mark()
    t.ctl.ok("round.no_more_bets")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout")
    got = t.ctl.ok("lockout.get")
    return ev is None or ev.get("cause") != "no-more-bets", f"round.no_more_bets: lockout event {ev}; lockout.get {got}"


def c_lock_line_reboot(t: Table) -> tuple[bool, str]:
    reboot(t)
    t.open()
    t.place(1, "player", 1000)
    reading, ms = first_card_ms(t, 1)
    return ms > 100, f"first round after a reboot, counter card out to lock-out: {reading} ({ms:.3f} ms)"


def c_late_after_key(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    t.open()
    t.place(1, "player", 1000)
    reading, ms = first_card_ms(t)
    return ms > 2.0, f"round after the reset key, counter card out to lock-out: {reading} ({ms:.3f} ms; deadline 1.0)"


def c_first_unlock(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    mark = t.ctl.mark()
    ans = t.ctl.ok("round.open")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e["locked"] is False, 0.5)
    return ev is None, f"round.open after a power cycle: {ans}; unlock event {ev}"


# ---------------------------------------------------------------- rounds
def c_void_carried(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("round.settle")  # voided
    t.open()
    t.place(1, "player", 1000)
    ends = [e for e in t.deal(NO_HIT) if e["event"] == "round_end"]
    return not ends or ends[0].get("void") is True, f"the round dealt after a voided round: round_end {ends}"


def c_open_mid_deal(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=2, pace_us=0)
    kind, ans = t.ctl.req("round.open")
    return kind != "nak", f"round.open with two of the round's four cards out: {kind} {ans}"


def c_second_open(t: Table) -> tuple[bool, str]:
    major_hit(t)
    first = t.ctl.req("round.open")[0]
    second, ans = t.ctl.req("round.open")
    return second != "nak", f"the major pending, round.open twice: {first}, then {second} {ans}"


# ---------------------------------------------------------------- base settlement
def c_banker4(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 2+3 = 5 draws an ace (6); banker 2+2 = 4 must stand on an ace: player wins
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(["2S", "2C", "3D", "2H", "AS", "5C"]), 1,
                                                           "player")]
    return got != [("win", 2000)], f"player 5 + A, banker 4 against an ace: player payout {got}"


def c_commission_trunc(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", commission="4.5")
    t.open()
    t.place(1, "banker", 1000)
    got = [p["returned"] for p in payouts(t.deal(NO_HIT), 1, "banker")]
    return got != [1955], f"winning banker 1000 at 4.5 % (45 cents): returned {got}"


def c_push_cat(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(TIE), 1, "player")]
    return got != [("push", 1000)], f"a Player wager on a tie: {got}"


# ---------------------------------------------------------------- Royal 9
def c_ten_nine(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    events = t.deal(["TS", "2C", "9H", "3D"])  # player TS 9H: a natural 9, no face card
    got = [(h["category"], h["amount"]) for h in hits(events, 1)]
    pay = [(p["category"], p["returned"]) for p in payouts(events, 1, "royal9")]
    return got != [] or pay != [(None, 0)], f"player TS 9H: hits {got}, royal9 payout {pay}"


def c_last_seat(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(7)  # seat 7's combination is KD 9C
    got = [h["category"] for h in hits(t.deal(["KD", "2C", "9C", "3D"]), 7)]
    return got != ["minor"], f"player KD 9C, a Royal 9 wager at seat 7 (KD 9C): hits {got}"


def c_envy_stake(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    got = [(p["category"], p["stake"], p["returned"]) for p in payouts(t.deal(["KS", "KS", "9S", "9S"]), 2, "royal9")]
    return got != [("mega-envy", 500, 500500)], f"mega envy won by seat 2's $5 wager: payout {got}"


def c_payout_before_hit(t: Table) -> tuple[bool, str]:
    events = major_hit(t)
    order = [e["event"] for e in events if e["event"] in ("hit", "payout") and e.get("seat") == 2
             and (e["event"] == "hit" or e.get("type") == "royal9")]
    return order != ["hit", "payout"], f"seat 2's major: events in order {order}"


def c_dollar_hit(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    t.open()
    t.place(1, "player", 1000)
    assert t.place(1, "royal9", 100)["accepted"]
    got = [(h["category"], h["amount"]) for h in hits(t.deal(["QH", "2C", "9D", "3D"]), 1)]
    return got != [("royal9", 500)], f"$1 table, player QH 9D: hits {got}"


# ---------------------------------------------------------------- progressive meters
def c_residual_carry(t: Table) -> tuple[bool, str]:
    button_void(t)
    button_void(t)
    m = t.meters()
    got = (m["meters"]["minor"], m["residual"]["minor"])
    return got != (45003, "0.5"), f"minor after two $5 wagers at 0.35 % (1.75 cents each): {got}"


def c_contrib_close(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    m = t.meters()
    got = (m["meters"]["mega"], m["residual"]["mega"])
    return got != (5000006, "0.25"), f"mega after one $5 wager and the lock-out button: {got}"


def c_diverted_key(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    major_hit(t)  # 45000 + 2.5 against the limit 45001: 1 cent diverted
    before = t.meters()["diverted"]["major"]
    t.ctl.ok("reset_key", meter="major")
    after = t.meters()["diverted"].get("major")
    return (before, after) != (1, 1), f"major diverted after its capped hit {before}, after the key {after}"


def c_contrib_saved(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    t.power_cycle()
    m = t.meters()
    got = (m["meters"]["mega"], m["residual"]["mega"])
    return got != (5000006, "0.25"), f"mega after one $5 wager, the button and a power cycle: {got}"


# ---------------------------------------------------------------- payout meters, pending, reset key
def c_booked_table(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    m = t.meters()
    got = (m["paid_by_table"], m["paid_by_attendant"], m["cumulative_paid"])
    return got != (0, 45002, 45002), f"after the major's key: paid_by_table, paid_by_attendant, cumulative {got}"


def c_key_nothing(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("reset_key", meter="mega")
    return ans.get("code") != "REFUSED", f"reset_key mega with nothing pending: {kind} {ans}"


def c_reset_event_reboot(t: Table) -> tuple[bool, str]:
    major_hit(t)
    reboot(t)
    mark = t.ctl.mark()
    ans = t.ctl.ok("reset_key", meter="major")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "reset", 0.5)
    return ev is None, f"the major pending, a reboot, reset_key: {ans}; reset event {ev}"


# ---------------------------------------------------------------- configuration
def c_config_stale(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", commission="4")
    got = t.ctl.ok("config.get")
    return got.get("commission") != "4", \
        f"config.set commission 4 answered {ans.get('commission')!r}; config.get {got.get('commission')!r}"


def c_reset_equal(t: Table) -> tuple[bool, str]:
    button_void(t)  # the major now shows 45002 (+2.5)
    kind, ans = t.ctl.req("config.set", meters={"major": {"reset": 45002}})
    seen = f"{kind} {ans.get('code', '')} {ans.get('reason', '')}"
    return kind != "rsp", f"major at 45002, its reset written 45002: {seen}"


def c_limit_capacity(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"mega": {"payout_limit": 30000000}})
    mega = t.ctl.ok("config.get")["meters"]["mega"]
    return mega.get("display_capacity") != 99999999, f"mega payout_limit written alone: config.get mega {mega}"


# ---------------------------------------------------------------- answer timing
def c_identity_slow(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    t0 = time.perf_counter()
    t.ctl.ok("identity")
    ms = (time.perf_counter() - t0) * 1000
    return ms > 100, f"the controller's first identity after a power cycle answered in {ms:.1f} ms"


def c_r9_remove_slow(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t0 = time.perf_counter()
    t.sens.ok("wager.remove", seat=1, type="royal9")
    ms = (time.perf_counter() - t0) * 1000
    return ms > 100, f"wager.remove of seat 1's Royal 9 wager answered in {ms:.1f} ms"


CHECKS: dict[str, Check] = {
    "shoe-status-dealt-excludes-misread": c_dealt_misread,
    "shoe-empty-with-one-card-left": c_empty_one,
    "wager-decrease-refused-bad-amount": c_decrease,
    "bad-seat-checked-after-lockout": c_bad_seat_closed,
    "wager-list-stale-after-remove": c_list_stale,
    "unoffered-type-refused-bad-amount": c_unoffered,
    "tie-not-a-base-wager-for-royal9": c_tie_base,
    "refused-place-sends-wager-event": c_refused_event,
    "nmb-lockout-cause-button": c_nmb_cause,
    "lock-line-stuck-after-reboot": c_lock_line_reboot,
    "lockout-late-after-reset-key": c_late_after_key,
    "first-unlock-after-power-not-sent": c_first_unlock,
    "void-flag-carried-to-next-round": c_void_carried,
    "round-open-accepted-mid-deal": c_open_mid_deal,
    "second-round-open-taken-with-pending": c_second_open,
    "banker-4-draws-on-ace": c_banker4,
    "commission-decimal-truncated": c_commission_trunc,
    "push-category-win": c_push_cat,
    "ten-nine-counted-royal9": c_ten_nine,
    "last-seat-combination-off-by-one": c_last_seat,
    "envy-payout-stake-zero": c_envy_stake,
    "meter-payout-before-hit": c_payout_before_hit,
    "one-dollar-hit-amount-in-dollars": c_dollar_hit,
    "residual-never-carried-into-meter": c_residual_carry,
    "contribution-booked-at-settlement": c_contrib_close,
    "diverted-cleared-by-reset-key": c_diverted_key,
    "contribution-not-saved-until-settlement": c_contrib_saved,
    "attendant-payment-booked-as-table": c_booked_table,
    "reset-key-nothing-pending-bad-args": c_key_nothing,
    "reset-event-missing-after-reboot": c_reset_event_reboot,
    "config-get-stale-after-write": c_config_stale,
    "reset-equal-current-refused": c_reset_equal,
    "limit-write-clears-capacity": c_limit_capacity,
    "identity-slow-after-power-up": c_identity_slow,
    "royal9-remove-answers-slowly": c_r9_remove_slow,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET6, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
