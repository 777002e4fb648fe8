"""Show each fault of the eleventh set (indie_table/faults.py FAULTS_SET11) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults11.py [FAULT ...]

As check_faults10.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
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

from check_faults2 import NO_HIT, TIE, Check, Msg, Table, check_all, frame, hits, payouts  # noqa: E402
from check_helpers import MAJOR_SEAT2, first_card_ms, major_hit, meter, wager_list  # noqa: E402
from indie_table.faults import FAULTS_SET11  # noqa: E402

MINOR1_MAJOR2 = ["KS", "KH", "9S", "9H"]  # seat 1's KS 9S on the player hand, seat 2's KH 9H on the banker's
ENVY_REVERSED = ["KS", "9S", "9S", "KS"]  # seat 1's KS 9S on both hands: player KS 9S, banker 9S KS
ROYAL9_TIE = ["JC", "QH", "9D", "9S"]  # player JC 9D, banker QH 9S: a Royal 9 tie hand, neither suited
SEAT5_BANKER = ["2C", "KS", "3D", "9H"]  # banker KS 9H: seat 5's combination (two suits), natural 9 against 5
FACE_FIRST = ["KH", "2C", "3D", "4S"]  # a king as the round's first card
LATE_MS = 2.5  # a lock-out later than this on the counter is the fault's (the clean table: about 0.01 ms)


def _categories(events: list[Msg], seat: int) -> list[tuple[str, int]]:
    return [(h["category"], h["amount"]) for h in hits(events, seat)]


# ---------------------------------------------------------------- shoe and cards
def c_error_n(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    t.shoe.ok("test.fault", kind="error", code="E7", text="card jam")
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    ev = t.shoe.wait(mark, lambda e: e["event"] == "card")
    st = t.shoe.ok("shoe.status")
    return (ev or {}).get("n") != 2, f"one card, a shoe error event, the next card: card event {ev}; shoe.status {st}"


def c_misread_card(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    t.shoe.ok("test.fault", kind="misread")
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    got = t.shoe.since(mark)
    st = t.shoe.ok("shoe.status")
    return any(e["event"] == "card" for e in got), f"one card dealt, misread: shoe events {got}; shoe.status {st}"


def c_n_power(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H", "4S", "5C"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.power_cycle()
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    ev = t.shoe.wait(mark, lambda e: e["event"] == "card")
    st = t.shoe.ok("shoe.status")
    return (ev or {}).get("n") != 3, f"two cards dealt, a power cycle, the third card: card event {ev}; " \
        f"shoe.status {st}"


# ---------------------------------------------------------------- sensors
def c_base_after_r9(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    r9 = t.sens.req("wager.remove", seat=1, type="royal9")
    kind, ans = t.sens.req("wager.remove", seat=1, type="player")
    return kind != "rsp", f"seat 1's Royal 9 wager removed ({r9}), then its Player wager: {kind} {ans}; " \
        f"wager.list {wager_list(t)}"


def c_five_cents(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    ans = t.place(1, "royal9", 5)
    return ans["accepted"], f"a Royal 9 wager of 5 cents on the $5 table: {ans}; wager.list {wager_list(t)}"


def c_refused_listed(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    ans = t.place(1, "royal9", 1000)
    got = wager_list(t)
    return (1, "royal9", 1000) in got, f"a Royal 9 wager of 1000 on the $5 table ({ans}): wager.list {got}"


# ---------------------------------------------------------------- controller: rounds and lock-out
def c_nmb_void(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("round.no_more_bets")
    void = t.ctl.ok("round.settle")
    kind, ans = t.ctl.req("round.open")
    return kind != "rsp", f"round 1, no more bets, voided ({void}): round.open {kind} {ans}"


def c_toggle(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    t.ctl.ok("lockout.press")
    again = t.ctl.ok("lockout.press")
    late = t.place(2, "player", 1000)
    got = [(e["locked"], e["cause"]) for e in t.ctl.since(mark) if e["event"] == "lockout"]
    return late["accepted"], f"the lock-out button pressed twice ({again}): lockout events {got}; " \
        f"a wager after it {late}"


def c_link_nmb(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    t.ctl.ok("test.link", up=False)
    time.sleep(0.1)
    got = [e["event"] for e in t.ctl.since(mark)]
    t.ctl.ok("test.link", up=True)
    return "no_more_bets" in got, f"the sensors link lost in an open round: controller events {got}"


# ---------------------------------------------------------------- progressive meters and payout meters
def c_tie_base(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1, base="tie")
    t.ctl.ok("lockout.press")
    got = meter(t, "mega")
    return got != (5000006, "0.25"), f"seat 1 a Tie and a $5 Royal 9 wager, the button: mega {got}"


def c_diverted_paid(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    events = major_hit(t)
    m = t.meters()
    got = _categories(events, 2)
    return got != [("major", 45001)], f"the major's payout limit 45001 (diverted {m['diverted']['major']}), " \
        f"seat 2's major: hits {got}; pending {m['pending']}"


def c_later_meters(t: Table) -> tuple[bool, str]:
    major_hit(t)
    before = meter(t, "minor")
    mark = t.ctl.mark()
    t.ctl.ok("reset_key", meter="major")
    after = meter(t, "minor")
    resets = [(e["meter"], e["amount"]) for e in t.ctl.since(mark) if e["event"] == "reset"]
    return after != before, f"seat 2's major, the major's key: minor {before} before, {after} after; " \
        f"reset events {resets}"


def c_cum_overwrite(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    t.deal(MINOR1_MAJOR2)
    t.ctl.ok("reset_key", meter="minor")
    t.ctl.ok("reset_key", meter="major")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_table"], m["paid_by_attendant"])
    return got[0] != got[1] + got[2], f"seat 1's minor and seat 2's major paid at their keys: cumulative_paid, " \
        f"paid_by_table, paid_by_attendant {got}"


def c_reset_event(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"initial": 46000}})
    major_hit(t)
    mark = t.ctl.mark()
    ans = t.ctl.ok("reset_key", meter="major")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "reset")
    shown = meter(t, "major")[0]
    return (ev or {}).get("amount") != shown, f"the major's initial written 46000 (reset 45000), seat 2's major, " \
        f"its key: answer {ans}; reset event {ev}; meters.get major {shown}"


def c_pending_link(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("test.link", up=False)
    got = [(p["meter"], p["seat"], p["amount"]) for p in t.meters()["pending"]]
    t.ctl.ok("test.link", up=True)
    kind, ans = t.ctl.req("round.open")
    return got == [], f"seat 2's major waiting for the key, the sensors link lost: pending {got}; " \
        f"link back, round.open {kind} {ans}"


# ---------------------------------------------------------------- configuration
def c_limit_cap(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"major": {"payout_limit": 9999999}})
    return kind != "rsp", f"the major's payout_limit written 9999999, its display capacity: {kind} " \
        f"{ans.get('reason', ans.get('meters', {}).get('major'))}"


def c_revert(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"mega": {"rate": "1.5"}})
    ans = t.ctl.ok("config.set", meters={"major": {"rate": "0.6"}})["meters"]
    got = t.ctl.ok("config.get")["meters"]
    return got["mega"]["rate"] != "1.5", f"the mega's rate written 1.5, then the major's 0.6: answer rates " \
        f"{ans['mega']['rate']}, {ans['major']['rate']}; config.get {got['mega']['rate']}, {got['major']['rate']}"


def c_mystery(t: Table) -> tuple[bool, str]:
    before = "mystery" in t.ctl.ok("config.get")
    t.power_cycle()
    cfg = t.ctl.ok("config.get")
    return "mystery" not in cfg, f"config.get has mystery {before}; after a power cycle: fields {sorted(cfg)}"


def c_config_link(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.link", up=False)
    kind, ans = t.ctl.req("config.set", commission="4")
    t.ctl.ok("test.link", up=True)
    return kind != "rsp", f"the sensors link down, no round open: config.set commission \"4\" {kind} " \
        f"{ans.get('reason', ans.get('commission'))}"


# ---------------------------------------------------------------- power and reboot
def c_older(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    t.ctl.ok("round.settle")
    before = meter(t, "mega")
    t.power_cycle()
    after = meter(t, "mega")
    return after != before, f"one $5 Royal 9 wager, the button, the round voided: mega {before}; " \
        f"after a power cycle {after}"


def c_cause_null(t: Table) -> tuple[bool, str]:
    first = t.ctl.ok("lockout.get")
    t.power_cycle()
    got = t.ctl.ok("lockout.get")
    return got.get("cause") != "power", f"lockout.get at start {first}; after a power cycle {got}"


def c_round_end_no(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.deal(NO_HIT)
    t.power_cycle()
    opened = t.ctl.ok("round.open")
    t.place(1, "player", 1000)
    ends = [e["round"] for e in t.deal(NO_HIT) if e["event"] == "round_end"]
    return ends != [opened["round"]], f"round 1 settled, a power cycle, round.open {opened}: round_end rounds {ends}"


# ---------------------------------------------------------------- link (sensors link and the device line)
def c_comm_first(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.link", up=False)
    t.ctl.ok("test.link", up=True)
    t.open()
    first = t.place(1, "player", 1000)
    second = t.place(1, "player", 1000)
    return not first["accepted"], f"the sensors link lost and back, a round opened: the first wager {first}, " \
        f"the same again {second}"


def c_bad_crc(t: Table) -> tuple[bool, str]:
    t.open()
    bad = bytearray(frame(9, {"cmd": "ping"}))
    bad[-1] ^= 0xFF  # the CRC broken (section 2)
    t.ctl.sock.sendall(bytes(bad))
    time.sleep(0.1)
    t.ctl.ok("lockout.press")
    time.sleep(0.05)
    with t.ctl.cv:
        got = [(s, p["event"]) for s, p in t.ctl.events]
    seqs = [s for s, _ in got]
    return seqs != list(range(1, len(seqs) + 1)), f"round.open, a frame with a bad CRC, the lock-out button: " \
        f"controller events {got}"


# ---------------------------------------------------------------- identity
def c_manufacturer(t: Table) -> tuple[bool, str]:
    got = {role: line.ok("identity")["manufacturer"] for role, line in
           (("shoe", t.shoe), ("sensors", t.sens), ("controller", t.ctl))}
    return got["shoe"] != got["controller"], f"identity manufacturer {got}"


def c_sensors_location(t: Table) -> tuple[bool, str]:
    before = t.sens.ok("identity")["location"]
    t.power_cycle()
    after = t.sens.ok("identity")["location"]
    return after == "", f"the bet sensors' identity location {before!r}; after a power cycle {after!r}"


# ---------------------------------------------------------------- settlement arithmetic
def c_mod10(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 2+3 = 5 draws the 8 (13: 3); banker A+2 = 3 stands on a third card 8: a tie 3-3
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(["2S", "AH", "3C", "2D", "8S"]), 1, "player")]
    return got != [("push", 1000)], f"player 5 draws an 8 (3), banker 3 stands: player payout {got}"


def c_b3_9(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 2+3 = 5 draws the 9 (4); banker A+2 = 3 must draw on a third card 9: the 5H makes 8
    events = t.deal(["2S", "AH", "3C", "2D", "9S", "5H"])
    got = [(p["category"], p["returned"]) for p in payouts(events, 1, "player")]
    return got != [("lose", 0)], f"player 5 draws a 9 (4), banker 3: player payout {got}"


def c_push_r9(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    events = t.deal(TIE)
    base = [(p["category"], p["returned"]) for p in payouts(events, 1, "player")]
    got = [(p["category"], p["stake"], p["returned"]) for p in payouts(events, 1, "royal9")]
    return got != [(None, 500, 0)], f"a tie hand without a Royal 9 (player {base}): Royal 9 payouts {got}"


def c_tie_hits(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    events = t.deal(ROYAL9_TIE)
    got = _categories(events, 1)
    paid = [(p["category"], p["returned"]) for p in payouts(events, 1, "royal9")]
    return got != [("royal9-tie", 25000)], f"player JC 9D, banker QH 9S: hits {got}; Royal 9 payouts {paid}"


def c_unsuited(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(5)
    events = t.deal(SEAT5_BANKER)
    got = [h["category"] for h in hits(events, 5)]
    pend = [(p["meter"], p["seat"]) for p in t.meters()["pending"]]
    return got != ["major"], f"seat 5's KS 9H on the banker hand: hits {_categories(events, 5)}; pending {pend}"


def c_envy_order(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(3)
    got = _categories(t.deal(ENVY_REVERSED), 3)
    return got != [("mega-envy", 500000)], f"seat 1's KS 9S on both hands (banker 9S KS), seat 3: hits {got}"


# ---------------------------------------------------------------- timing
def c_face_late(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    reading, ms = first_card_ms(t, cards=FACE_FIRST)
    return ms > LATE_MS, f"the round's first card a king: counter {reading} ({ms:.3f} ms)"


def c_press_slow(t: Table) -> tuple[bool, str]:
    t.open()
    t0 = time.perf_counter()
    t.ctl.ok("lockout.press")
    first = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    t.ctl.ok("lockout.press")
    second = (time.perf_counter() - t0) * 1000
    return second > 100, f"lockout.press in an open round answered in {first:.1f} ms, pressed again {second:.1f} ms"


def c_reset_late(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    t.deal(MAJOR_SEAT2)
    mark = t.ctl.mark()
    ans = t.ctl.ok("reset_key", meter="major")
    before = [e["event"] for e in t.ctl.since(mark)]  # what had arrived when the answer came
    later = t.ctl.wait(mark, lambda e: e["event"] == "reset", 1.0)
    return "reset" not in before, f"seat 2's major, the key: events before its answer ({ans}) {before}; " \
        f"reset event {later}"


CHECKS: dict[str, Check] = {
    "card-n-counts-error-event": c_error_n,
    "misread-followed-by-card-event": c_misread_card,
    "card-n-restarts-after-power-cycle": c_n_power,
    "base-remove-refused-after-royal9-removed": c_base_after_r9,
    "royal9-amount-5-taken-as-dollars": c_five_cents,
    "refused-royal9-listed": c_refused_listed,
    "open-refused-after-nmb-void": c_nmb_void,
    "button-toggles-lockout": c_toggle,
    "link-loss-announces-no-more-bets": c_link_nmb,
    "royal9-on-tie-base-not-contributing": c_tie_base,
    "jackpot-pays-diverted-too": c_diverted_paid,
    "reset-key-resets-later-meters": c_later_meters,
    "cumulative-paid-overwritten": c_cum_overwrite,
    "reset-event-amount-from-initial": c_reset_event,
    "limit-equal-to-capacity-refused": c_limit_cap,
    "meter-write-reverts-other-meters": c_revert,
    "mystery-field-lost-at-power-up": c_mystery,
    "power-up-reads-older-record": c_older,
    "lockout-get-cause-null-after-power": c_cause_null,
    "round-end-number-read-at-power-up": c_round_end_no,
    "comm-lost-refusal-kept-after-restore": c_comm_first,
    "pending-cleared-by-link-loss": c_pending_link,
    "config-refused-while-link-down": c_config_link,
    "bad-crc-resets-event-seq": c_bad_crc,
    "shoe-manufacturer-truncated-16": c_manufacturer,
    "sensors-location-lost-at-power-up": c_sensors_location,
    "third-card-total-not-mod-10": c_mod10,
    "banker-3-stands-on-third-9": c_b3_9,
    "losing-royal9-returned-on-push": c_push_r9,
    "royal9-tie-hit-sent-per-hand": c_tie_hits,
    "unsuited-combination-paid-as-royal9": c_unsuited,
    "envy-needs-same-card-order": c_envy_order,
    "lockout-late-on-face-first-card": c_face_late,
    "lockout-press-slow-when-locked": c_press_slow,
    "reset-event-sent-after-key-answer": c_reset_late,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET11, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
