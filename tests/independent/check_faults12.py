"""Show each fault of the twelfth set (indie_table/faults.py FAULTS_SET12) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults12.py [FAULT ...]

As check_faults11.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py.  For every fault the independent table is started twice on free 127.0.0.1
ports with a fresh state directory, once clean and once with `--fault NAME`, and one small scenario
speaks the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench supply and
the time-interval counter) to it.  One line per fault: `shows` when the faulty table gives the faulty
answer, `clean ok` when the clean table does not.  Exit status 0 when every fault shows and every
clean run is ok.
"""

from __future__ import annotations

import json
import struct
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, Check, Msg, Table, check_all, crc16, hits, payouts  # noqa: E402
from check_helpers import button_void, first_card_ms, major_hit, meter, reboot, wager_list  # noqa: E402
from indie_table.faults import FAULTS_SET12  # noqa: E402

UNASSIGNED_ENVY = ["KC", "KC", "9S", "9S"]  # player KC 9S, banker KC 9S: no position has KC 9S (a Royal 9 tie hand)
# player 2S 3C (5) draws the 8S (3); banker AH 3D (4) stands on a third card 8; the 8H stays in the shoe
BANKER4_ON_8 = ["2S", "AH", "3C", "3D", "8S", "8H"]
# player 2S 3C (5) draws the 4S (9); banker AH 2D (3) draws on a third card 4: the TS leaves it 3
PLAYER5_DRAWS = ["2S", "AH", "3C", "2D", "4S", "TS"]
LATE_MS = 2.5  # a lock-out later than this on the counter is the fault's (the clean table: about 0.01 ms)


def _cap_major(t: Table) -> None:
    """The major's payout limit written 45001, one $5 Royal 9 wager made final by the button (+2.5 cents)."""
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")


def _diverted(t: Table, name: str) -> tuple[int, str, int]:
    m = t.meters()
    return m["meters"][name], m["residual"][name], m["diverted"][name]


# ---------------------------------------------------------------- shoe
def c_error_empty(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    t.shoe.ok("test.fault", kind="error", code="E7", text="card jam")
    st = t.shoe.ok("shoe.status")
    return st["state"] != "ready", f"three cards loaded, one dealt, a shoe error event: shoe.status {st}"


def c_reload_left(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    t.shoe.ok("test.load", cards=["5S", "6S"])
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    ev = t.shoe.wait(mark, lambda e: e["event"] == "card")
    st = t.shoe.ok("shoe.status")
    return (ev or {}).get("n") != 1, f"three cards loaded, one dealt, two loaded, one dealt: card event {ev}; " \
        f"shoe.status {st}"


def c_remaining_byte(t: Table) -> tuple[bool, str]:
    cards = [r + s for r in "A23456789TJQK" for s in "SHDC"] * 6  # 312 cards (six decks)
    t.shoe.ok("test.load", cards=cards[:300])
    st = t.shoe.ok("shoe.status")
    return st["cards_remaining"] != 300, f"a shoe of 300 cards loaded: shoe.status {st}"


# ---------------------------------------------------------------- sensors
def c_tie_banker(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "banker", 1000)
    t.place(1, "tie", 1000)
    ans = t.sens.ok("wager.remove", seat=1, type="tie")
    got = wager_list(t)
    return got != [(1, "banker", 1000)], f"seat 1 a Banker and a Tie wager, the Tie removed ({ans}): " \
        f"wager.list {got}"


def c_base_any_seat(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    ans = t.place(2, "royal9", 500)
    return ans["accepted"], f"seat 1 a Player wager, a Royal 9 wager at seat 2 (no base wager there): {ans}; " \
        f"wager.list {wager_list(t)}"


def c_list_link(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("test.link", up=False)
    got = wager_list(t)
    t.ctl.ok("test.link", up=True)
    return got == [], f"seat 1 a Player and a Royal 9 wager, the sensors link lost: wager.list {got}; " \
        f"link back: {wager_list(t)}"


def c_gate_reboot(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    reboot(t)
    ans = t.place(2, "player", 1000)
    lock = t.ctl.ok("lockout.get")
    return ans["accepted"], f"round open, the controller rebooted (lockout.get {lock}): a wager at seat 2 {ans}"


def c_sensors_reads(t: Table) -> tuple[bool, str]:
    kind, ans = t.sens.req("meters.get")
    return kind != "nak" or ans.get("code") != "UNKNOWN_CMD", f"meters.get sent to the bet sensors: {kind} " \
        f"{ans.get('code', sorted(ans))}"


# ---------------------------------------------------------------- controller: rounds and lock-out
def c_nmb_late(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    ans = t.ctl.ok("round.no_more_bets")
    before = [e["event"] for e in t.ctl.since(mark)]  # what had arrived when the answer came
    t.ctl.wait(mark, lambda e: e["event"] == "lockout", 0.5)
    after = [e["event"] for e in t.ctl.since(mark)]
    return before != ["no_more_bets", "lockout"], f"round.no_more_bets: events before its answer ({ans}) " \
        f"{before}; later {after}"


def c_nmb_void_flag(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("round.no_more_bets")
    mark = t.ctl.mark()
    ans = t.ctl.ok("round.settle")
    end = t.ctl.wait(mark, lambda e: e["event"] == "round_end")
    return ans.get("void") is not True, f"no more bets, then round.settle with no card out: answer {ans}; " \
        f"round_end {end}"


def c_settle_lost(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.power_cycle()
    mark = t.ctl.mark()
    kind, ans = t.ctl.req("round.settle")
    time.sleep(0.05)
    got = [e for e in t.ctl.since(mark) if e["event"] == "round_end"]
    return kind != "nak", f"round 1 open, a power cycle, round.settle: {kind} {ans}; round_end events {got}"


def c_round_skip(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.deal(NO_HIT)
    t.power_cycle()
    ans = t.ctl.ok("round.open")
    return ans["round"] != 2, f"round 1 settled, a power cycle: round.open {ans}"


def c_open_link_idle(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.link", up=False)
    kind, ans = t.ctl.req("round.open")
    t.ctl.ok("test.link", up=True)
    return kind != "nak", f"no round open, the sensors link lost: round.open {kind} {ans}"


def c_settle_held(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("test.link", up=False)
    events = t.deal(NO_HIT)
    ends = [e for e in events if e["event"] == "round_end"]
    mark = t.ctl.mark()
    t.ctl.ok("test.link", up=True)
    later = [e["event"] for e in t.ctl.since(mark)]
    return not ends, f"seat 1 a Player wager, the sensors link lost, the round dealt: round_end {ends}; " \
        f"link back: events {later}"


def c_misread_cause(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.fault", kind="misread")
    mark = t.ctl.mark()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout")
    got = t.ctl.ok("lockout.get")
    return (ev or {}).get("cause") != "card", f"the round's first card misread: lockout event {ev}; " \
        f"lockout.get {got}"


def c_late_removal(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(2, "player", 1000)
    t.sens.ok("wager.remove", seat=2, type="player")
    reading, ms = first_card_ms(t)
    return ms > LATE_MS, f"seat 2's wager removed, the round's first card: counter {reading} ({ms:.3f} ms)"


def c_lockout_get_slow(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.link", up=False)
    t0 = time.perf_counter()
    ans = t.ctl.ok("lockout.get")
    ms = (time.perf_counter() - t0) * 1000
    t.ctl.ok("test.link", up=True)
    return ms > 100, f"the sensors link lost: lockout.get {ans} answered in {ms:.1f} ms"


# ---------------------------------------------------------------- progressive meters and payout meters
def c_last_r9(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    t.ctl.ok("lockout.press")
    got = meter(t, "mega")
    return got != (5000012, "0.5"), f"two $5 Royal 9 wagers (seats 1 and 2), the button: mega {got}"


def c_cross_cap(t: Table) -> tuple[bool, str]:
    _cap_major(t)
    got = _diverted(t, "major")
    return got != (45001, "0.5", 1), f"the major's payout limit 45001, one $5 Royal 9 wager (+2.5 cents): " \
        f"major, residual, diverted {got}"


def c_void_again(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    before = meter(t, "mega")
    t.ctl.ok("round.settle")
    after = meter(t, "mega")
    return after != before, f"one $5 Royal 9 wager, the button: mega {before}; the round voided: {after}"


def c_diverted_power(t: Table) -> tuple[bool, str]:
    _cap_major(t)
    t.ctl.ok("round.settle")
    before = _diverted(t, "major")
    t.power_cycle()
    after = _diverted(t, "major")
    return after != before, f"the major at its cap 45001 (major, residual, diverted {before}); " \
        f"after a power cycle {after}"


def c_pending_start(t: Table) -> tuple[bool, str]:
    events = major_hit(t)
    won = [(h["category"], h["amount"]) for h in hits(events, 2)]
    pend = [(p["meter"], p["seat"], p["amount"]) for p in t.meters()["pending"]]
    return pend != [("major", 2, 45002)], f"seat 2's major: hits {won}; pending {pend}"


def c_reset_cached(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("config.set", meters={"major": {"reset": 45001}})
    ans = t.ctl.ok("reset_key", meter="major")
    got = meter(t, "major")[0]
    return got != 45001, f"seat 2's major (45002) pending, the major's reset written 45001, its key: " \
        f"answer {ans}; meters.get major {got}"


# ---------------------------------------------------------------- settlement
def c_grouped(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(2, "banker", 1000)
    got = [(e["seat"], e["type"]) for e in t.deal(NO_HIT) if e["event"] == "payout"]
    return got != [(1, "player"), (2, "banker")], f"seat 1 a Player wager, seat 2 a Banker wager: payouts {got}"


def c_b4_8(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(BANKER4_ON_8), 1, "player")]
    return got != [("lose", 0)], f"player 5 draws an 8 (3), banker 4 (must stand): player payout {got}"


def c_p5(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(PLAYER5_DRAWS), 1, "player")]
    return got != [("win", 2000)], f"player 2S 3C (5, must draw the 4S), banker AH 2D: player payout {got}"


def c_envy_unassigned(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    events = t.deal(UNASSIGNED_ENVY)
    got = [(h["category"], h["amount"]) for h in hits(events, 1)]
    return got != [("royal9-tie", 25000)], f"player KC 9S, banker KC 9S (no position's combination), seat 1: " \
        f"hits {got}"


# ---------------------------------------------------------------- configuration
def c_commission_decimal(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", commission="4.5")
    return kind != "rsp", f"no round open, config.set commission \"4.5\": {kind} " \
        f"{ans.get('reason', ans.get('commission'))}"


def c_limit_mega(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"minor": {"payout_limit": 500000}})
    return kind != "rsp", f"the minor (45000) payout_limit written 500000: {kind} " \
        f"{ans.get('reason', ans.get('meters', {}).get('minor'))}"


def c_reset_initial(t: Table) -> tuple[bool, str]:
    button_void(t)
    shown = meter(t, "minor")
    kind, ans = t.ctl.req("config.set", meters={"minor": {"reset": 45001}})
    return kind != "rsp", f"the minor at {shown}, its reset written 45001: {kind} " \
        f"{ans.get('reason', ans.get('meters', {}).get('minor'))}"


def c_rate_decimals(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"minor": {"rate": "0.375"}})["meters"]["minor"]["rate"]
    got = t.ctl.ok("config.get")["meters"]["minor"]["rate"]
    return got != "0.375", f"the minor's rate written \"0.375\": answer {ans!r}; config.get {got!r}"


def c_denomination_power(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", denomination=100)["denomination"]
    t.power_cycle()
    got = t.ctl.ok("config.get")["denomination"]
    return got != 100, f"the denomination written 100 (answer {ans}); after a power cycle config.get {got}"


# ---------------------------------------------------------------- identity, the line, power
def c_sensors_serial(t: Table) -> tuple[bool, str]:
    before = t.sens.ok("identity")["serial"]
    t.sens.ok("test.fault", kind="reboot", after_ms=0, duration_ms=200)
    time.sleep(0.4)
    after = t.sens.ok("identity")["serial"]
    return after != before, f"the bet sensors' identity serial {before!r}; after their reboot {after!r}"


def c_bad_frame(t: Table) -> tuple[bool, str]:
    body = b'{"cmd":"ping","x":1.5}'  # a float: BAD_FRAME (section 2), the CRC good
    head = struct.pack(">BBHH", 1, 0x01, 4000, len(body))
    t.ctl.sock.sendall(b"\xa5\x5a" + head + body + struct.pack(">H", crc16(head + body)))
    time.sleep(0.2)
    with t.ctl.cv:
        got = {seq: ans for seq, ans in t.ctl.answers.items() if seq in (0, 4000)}
    return 4000 not in got, f"a request frame SEQ 4000 with a float in its payload: answers by SEQ " \
        f"{json.dumps(got)}"


def c_power_lines(t: Table) -> tuple[bool, str]:
    marks = (t.shoe.mark(), t.sens.mark())
    t.power_cycle()
    time.sleep(0.1)
    got: dict[str, list[Msg]] = {"shoe": t.shoe.since(marks[0]), "sensors": t.sens.since(marks[1])}
    return any(e["event"] == "lockout" for evs in got.values() for e in evs), \
        f"a power cycle: shoe and sensors events {got}"


CHECKS: dict[str, Check] = {
    "shoe-error-reports-empty": c_error_empty,
    "card-n-reset-only-by-empty-shoe": c_reload_left,
    "cards-remaining-one-byte": c_remaining_byte,
    "remove-tie-clears-banker": c_tie_banker,
    "royal9-base-checked-at-any-seat": c_base_any_seat,
    "wager-list-empty-while-link-down": c_list_link,
    "sensors-gate-open-after-reboot": c_gate_reboot,
    "sensors-answer-controller-reads": c_sensors_reads,
    "nmb-events-after-answer": c_nmb_late,
    "nmb-void-answer-without-void-flag": c_nmb_void_flag,
    "settle-voids-round-lost-to-power": c_settle_lost,
    "round-number-skips-after-power-cycle": c_round_skip,
    "open-taken-when-link-lost-between-rounds": c_open_link_idle,
    "settlement-held-while-link-down": c_settle_held,
    "misread-first-card-lockout-cause-misread": c_misread_cause,
    "lockout-late-after-removal": c_late_removal,
    "lockout-get-slow-while-link-down": c_lockout_get_slow,
    "contribution-counts-last-royal9-only": c_last_r9,
    "cap-crossing-contribution-diverted-whole": c_cross_cap,
    "void-after-close-contributes-again": c_void_again,
    "diverted-lost-at-power-up": c_diverted_power,
    "pending-amount-from-round-start": c_pending_start,
    "reset-amount-cached-at-power-up": c_reset_cached,
    "base-payouts-grouped-by-type": c_grouped,
    "banker-4-draws-on-third-8": c_b4_8,
    "player-stands-on-5": c_p5,
    "envy-paid-for-unassigned-combination": c_envy_unassigned,
    "commission-decimal-bad-args": c_commission_decimal,
    "limit-checked-against-mega-amount": c_limit_mega,
    "reset-checked-against-initial": c_reset_initial,
    "rate-written-to-two-decimals": c_rate_decimals,
    "denomination-write-lost-at-power-up": c_denomination_power,
    "sensors-serial-empty-after-reboot": c_sensors_serial,
    "bad-frame-nak-seq-zero": c_bad_frame,
    "power-lockout-sent-on-every-line": c_power_lines,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET12, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
