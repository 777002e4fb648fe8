"""Show each fault of the twentieth set (indie_table/faults.py FAULTS_SET20) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults20.py [FAULT ...]

As check_faults19.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py (and a host reconnecting to a device from the sixteenth script).  For every
fault the independent table is started twice on free 127.0.0.1 ports with a fresh state directory,
once clean and once with `--fault NAME`, and one small scenario speaks the reference protocol
(docs/protocol.md sections 2-8, and section 9 for the bench supply and the time-interval counter) to
it.  Every scenario starts on the $5 table.  Two scenarios close their line to the controller and open
a new one, as a host that reconnects does (one after writing part of a frame of its own, one after the
line noise of the `garbage` line fault, which this host's reader does not resynchronise from).  One
line per fault: `shows` when the faulty table gives the faulty answer, `clean ok` when the clean table
does not.  Exit status 0 when every fault shows and every clean run is ok.
"""

from __future__ import annotations

import struct
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, Check, Msg, Table, check_all, payouts, scpi  # noqa: E402
from check_faults16 import reconnect  # noqa: E402
from check_helpers import BANKER_ROYAL9, major_hit, meter, player_round, wager_list  # noqa: E402
from indie_table.faults import FAULTS_SET20  # noqa: E402

# player QS 9S, banker QS 9S: the same suited Royal 9 on both hands (two naturals 9, a tie); no seat's combination
SAME_SUITED_PAIR = ["QS", "QS", "9S", "9S"]
# player 2C 3D (5) draws the KH (0): 5; banker 2S 2H (4) stands on a third card 0 (it draws on 2 to 7): the Player
# wins 5 to 4; the 5C is one card more in the shoe (a banker drawing it would make 9)
BANKER_FOUR_ON_TEN = ["2C", "2S", "3D", "2H", "KH", "5C"]


def _shoe_event_seqs(t: Table, mark: int) -> list[tuple[int, Msg]]:
    with t.shoe.cv:
        return list(t.shoe.events[mark:])


def _ctl_event_seqs(t: Table, mark: int) -> list[tuple[int, Msg]]:
    with t.ctl.cv:
        return list(t.ctl.events[mark:])


# ---------------------------------------------------------------- shoe and cards
def c_refused_load(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    kind, ans = t.shoe.req("test.load", cards=["AS"] * 9, check_decks=True)
    st = t.shoe.ok("shoe.status")
    got = (st["state"], st["cards_dealt"], st["cards_remaining"])
    return got != ("ready", 1, 3), f"four cards loaded, one dealt, nine AS loaded with check_decks: {kind} " \
        f"{ans.get('code')}; shoe.status (state, cards_dealt, cards_remaining) {got}"


def c_busy_queued(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H", "4S", "5C"])
    t.shoe.ok("test.deal", count=2, pace_us=100000)
    kind, ans = t.shoe.req("test.deal", count=1, pace_us=0)
    time.sleep(0.6)
    st = t.shoe.ok("shoe.status")
    return st["cards_dealt"] != 2, f"a paced deal of two cards, a deal of one meanwhile: {kind} {ans.get('code')}; " \
        f"0.6 s later shoe.status cards_dealt {st['cards_dealt']}"


def c_paced_event(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=20000)
    end = time.monotonic() + 1.0
    dealt = 0
    while time.monotonic() < end:
        dealt = t.shoe.ok("shoe.status")["cards_dealt"]
        if dealt:
            break
        time.sleep(0.005)
    cards = [e["card"] for e in t.shoe.since(mark) if e["event"] == "card"]
    return not cards, f"a paced deal of one card: shoe.status cards_dealt {dealt}, card events received before that " \
        f"answer {cards}"


def c_count_zero(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=NO_HIT)
    mark = t.shoe.mark()
    ans = t.shoe.ok("test.deal", count=0, pace_us=0)
    time.sleep(0.2)
    cards = [e["card"] for e in t.shoe.since(mark) if e["event"] == "card"]
    st = t.shoe.ok("shoe.status")
    return bool(cards), f"four cards loaded, test.deal count 0: {ans}; card events {cards}, cards_remaining " \
        f"{st['cards_remaining']}"


def c_shoe_reboot_seq(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.shoe.ok("test.fault", kind="reboot", after_ms=0, duration_ms=200)
    time.sleep(0.45)
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    t.shoe.wait(mark, lambda e: e["event"] == "card", 1.0)
    seqs = [seq for seq, e in _shoe_event_seqs(t, mark) if e["event"] == "card"]
    return seqs != [1], f"two cards dealt (SEQ 1, 2), the shoe's reboot, one card dealt: its event SEQ {seqs}"


# ---------------------------------------------------------------- the bet sensors
def c_three_areas(t: Table) -> tuple[bool, str]:
    t.open()
    for wtype in ("player", "banker", "tie"):
        t.place(1, wtype, 1000)
    ans = t.place(1, "royal9", 500)
    listed = wager_list(t)
    want = [(1, "player", 1000), (1, "banker", 1000), (1, "tie", 1000), (1, "royal9", 500)]
    return sorted(listed) != sorted(want), f"seat 1: Player, Banker, Tie $10, Royal 9 $5 {ans}: wager.list {listed}"


def c_seat8(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", commission="4")
    t.open()
    ans = t.place(8, "player", 1000)
    return bool(ans["accepted"]), f"config.set commission 4, a round open, a Player wager at seat 8 (the table has " \
        f"seats 1 to 7): {ans}"


def c_final_void(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("round.settle")
    t.open()
    t.place(1, "player", 1000)
    kind, ans = t.sens.req("wager.remove", seat=1, type="player")
    return kind != "rsp", f"a round voided with a wager on the layout, the next opened, a Player wager placed and " \
        f"removed: {kind} {ans}"


def c_r9_base_flag(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    first = t.place(1, "royal9", 1000)
    second = t.place(1, "royal9", 500)
    return not second["accepted"], f"a Player wager at seat 1, a $10 Royal 9 wager {first}, then a $5 one: {second}"


def c_replayed(t: Table) -> tuple[bool, str]:
    refused = t.place(2, "player", 1000)
    t.open()
    listed = wager_list(t)
    return bool(listed), f"no round open, a Player wager at seat 2 {refused}; round.open: wager.list {listed}"


# ---------------------------------------------------------------- lock-out and rounds
def c_key_lock(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    lock = t.ctl.ok("lockout.get")
    got = (lock["locked"], lock["cause"])
    return got != (True, "card"), f"the major won, the reset key: lockout.get (locked, cause) {got}"


def c_unlock_power(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    mark = t.ctl.mark()
    t.open()
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e["locked"] is False, 1.0)
    cause = ev.get("cause") if ev else None
    return cause != "round-open", f"a power cycle, round.open: the unlock event {ev}"


def c_misread_tableau(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.fault", kind="misread")
    events = t.deal(NO_HIT)
    ends = [e for e in events if e["event"] == "round_end"]
    return not ends, f"a Player wager, the first card misread, four cards dealt: round_end {ends}"


# ---------------------------------------------------------------- settlement
def c_same_pair(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(SAME_SUITED_PAIR), 1, "royal9")]
    return got != [("suited-royal9-tie", 150500)], f"a $5 Royal 9 wager, player QS 9S and banker QS 9S: Royal 9 " \
        f"(category, returned) {got}"


def c_lose_stake(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    got = [(p["category"], p["stake"], p["returned"]) for p in payouts(t.deal(NO_HIT), 1, "player")]
    return got != [("lose", 1000, 0)], f"a $10 Player wager loses: (category, stake, returned) {got}"


def c_ten_stood(t: Table) -> tuple[bool, str]:
    got = player_round(t, BANKER_FOUR_ON_TEN)
    return got != [("win", 2000)], f"a $10 Player wager; player 5 after a third card KH, banker 4 must stand: " \
        f"(category, returned) {got}"


def c_attendant_mode(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    t.open()
    t.r9(1)
    got = [(p["category"], p["paid_by"]) for p in payouts(t.deal(BANKER_ROYAL9), 1, "royal9")]
    return got != [("royal9", "table")], f"the major won and keyed, the next round a Royal 9 (JC 9S) at seat 1: " \
        f"(category, paid_by) {got}"


# ---------------------------------------------------------------- progressive meters
def c_list_rebuilt(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.deal(NO_HIT)
    before = meter(t, "mega")
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("round.no_more_bets")
    after = meter(t, "mega")
    return after != before, f"a round with a $5 Royal 9 wager: mega {before}; the next round with a Player wager " \
        f"alone, no more bets: mega {after}"


def c_pour_back(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    t.open()
    t.r9(1)
    t.deal(NO_HIT)
    m = t.meters()
    before = (m["meters"]["major"], m["diverted"]["major"])
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 50000}})
    m = t.meters()
    after = (m["meters"]["major"], m["diverted"]["major"])
    return after != before, f"the major's limit 45001, a $5 Royal 9 wager: major (amount, diverted) {before}; " \
        f"the limit written 50000: {after}"


def c_key_residual(t: Table) -> tuple[bool, str]:
    major_hit(t)
    won = meter(t, "major")
    ans = t.ctl.ok("reset_key", meter="major")
    got = meter(t, "major")
    return got != (45000, "0.5"), f"the major won at {won}, the reset key {ans}: major (amount, residual) {got}"


# ---------------------------------------------------------------- payout meters and pending payments
def c_pending_once(t: Table) -> tuple[bool, str]:
    major_hit(t)
    first = t.meters()["pending"]
    second = t.meters()["pending"]
    return second != first, f"the major won: meters.get pending {first}; meters.get again: pending {second}"


def c_growth(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_attendant"])
    return got != (45002, 45002), f"the major won (45002), the reset key: (cumulative_paid, paid_by_attendant) {got}"


# ---------------------------------------------------------------- configuration
def c_ring(t: Table) -> tuple[bool, str]:
    for tenth in range(1, 10):
        t.ctl.ok("config.set", commission=f"4.{tenth}")
    before = t.ctl.ok("config.get")["commission"]
    t.power_cycle()
    after = t.ctl.ok("config.get")["commission"]
    return after != before, f"nine commission writes (4.1 to 4.9): config.get {before!r}; a power cycle: {after!r}"


def c_floor(t: Table) -> tuple[bool, str]:
    denom = t.ctl.req("config.set", denomination=200)
    kind, ans = t.ctl.req("config.set", meters={"major": {"initial": 40000}})
    return kind == "rsp", f"config.set denomination 200: {denom[0]} {denom[1].get('reason')}; then the major's " \
        f"initial $400 (the $5 floor is $450): {kind} {ans.get('reason', ans.get('meters', {}).get('major'))}"


# ---------------------------------------------------------------- identity and hello
def c_game_type(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    game_type = t.ctl.ok("identity")["game_type"]
    return game_type != "midibaccarat", f"config.set denomination 100, the controller's identity: game_type " \
        f"{game_type!r}"


def c_version_reason(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("hello", version=2, versions=[2])
    reason = ans.get("reason", "")
    return kind != "nak" or "1" not in reason, f"hello offering version 2 alone: {kind} {ans}"


# ---------------------------------------------------------------- framing, SEQ and the line faults
def c_nested_float(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"major": {"payout_limit": 50000.0}})
    shown = ans.get("code") or ans.get("meters", {}).get("major", {}).get("payout_limit")
    return kind == "rsp", f"config.set with the major's payout_limit written 50000.0: {kind} {shown}"


def c_len_chars(t: Table) -> tuple[bool, str]:
    kind, ans = t.sens.req("wager.place", deadline_s=0.5, seat=1, type="royal9\u00e9", amount=500)
    return kind == "timeout", f"wager.place of wager type \"royal9\\u00e9\" (echoed in the refusal): {kind} {ans}"


def c_garbage_seq(t: Table) -> tuple[bool, str]:
    t.open()
    seqs = [seq for seq, e in _ctl_event_seqs(t, 0) if e["event"] == "lockout"]
    t.ctl.ok("test.fault", kind="garbage", count=1)
    lost = t.ctl.req("ping", deadline_s=0.3)[0]
    reconnect(t, "ctl", "controller")  # the line's noise ends in a false start of frame: the host opens it again
    t.ctl.ok("lockout.press")
    t.ctl.wait(0, lambda e: e["event"] == "lockout" and e["locked"] is True, 1.0)
    seqs += [seq for seq, e in _ctl_event_seqs(t, 0) if e["event"] == "lockout"]
    return seqs != [1, 2], f"round.open, the garbage line fault, a ping ({lost}), the line opened again, the " \
        f"lock-out button: lockout event SEQs {seqs}"


def c_power_duration(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.fault", kind="power-loss", after_ms=0, duration_ms=200)
    time.sleep(0.6)
    kind, _ans = t.ctl.req("ping", deadline_s=0.5)
    return kind != "rsp", f"the power-loss line fault with duration_ms 200, 600 ms later a ping: {kind}"


def c_rx_kept(t: Table) -> tuple[bool, str]:
    # a frame's SOF, its header announcing 20 payload bytes, and three of them: then the line is closed
    t.ctl.sock.sendall(b"\xa5\x5a" + struct.pack(">BBHH", 1, 0x01, 4000, 20) + b'{"c')
    time.sleep(0.1)
    hello = reconnect(t, "ctl", "controller")
    time.sleep(0.1)
    with t.ctl.cv:
        stray = t.ctl.answers.get(0)
    return stray is not None, f"part of a frame sent, the line closed, a new line opened: hello {hello}; an answer " \
        f"with SEQ 0 on the new line {stray}"


# ---------------------------------------------------------------- the instruments (section 9)
def c_fetch_ms(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 2", "INIT", "*OPC?")
    t.shoe.ok("test.load", cards=["AC", *NO_HIT])
    t.shoe.ok("test.deal", count=1, pace_us=0)  # a card out with no round open: the start edge
    time.sleep(0.2)
    t.open()  # the lock-out line falls
    t.shoe.ok("test.deal", count=1, pace_us=0)  # the round's first card: the line rises, the stop edge
    reading = scpi(counter, "FETC?")
    seconds = float(reading or "9.91E+37")
    return not 0.1 <= seconds <= 1.0, f"INIT, a card out between rounds, 200 ms later round.open and its first " \
        f"card: FETC? {reading!r}"


def c_fetch_early(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 2", "INIT", "*OPC?")
    t.open()
    t.shoe.ok("test.load", cards=NO_HIT)
    got: list[str | None] = []
    asker = threading.Thread(target=lambda: got.append(scpi(counter, "FETC?")), daemon=True)
    asker.start()
    time.sleep(0.2)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    asker.join(5)
    reading = got[0] if got else None
    return reading == "9.91E+37", f"INIT, FETC? sent, 200 ms later the round's first card: FETC? {reading!r}"


def c_timeout_conf(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 1", "*OPC?")
    time.sleep(1.2)
    scpi(counter, "INIT", "*OPC?")
    t.open()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reading = scpi(counter, "FETC?")
    return reading == "9.91E+37", f"CONF:TINT, SYST:TIM 1, 1.2 s later INIT and a round's first card: FETC? " \
        f"{reading!r}"


def c_restart_delay(t: Table) -> tuple[bool, str]:
    power = t.ports["power"]
    off = scpi(power, "OUTP OFF", "*OPC?")
    on = scpi(power, "OUTP ON", "*OPC?")
    state = scpi(power, "OUTP?")
    kind, _ans = t.ctl.req("ping", deadline_s=0.5)
    return state != "1" or kind != "rsp", f"OUTP OFF, *OPC? {off!r}, at once OUTP ON, *OPC? {on!r}: OUTP? " \
        f"{state!r}, a ping to the controller {kind}"


CHECKS: dict[str, Check] = {
    "refused-load-empties-shoe": c_refused_load,
    "busy-deal-still-queued": c_busy_queued,
    "paced-card-event-queued-behind-count": c_paced_event,
    "deal-count-zero-deals-whole-shoe": c_count_zero,
    "shoe-reboot-keeps-event-seq": c_shoe_reboot_seq,
    "seat-holds-three-areas": c_three_areas,
    "seat-8-accepted-after-config-write": c_seat8,
    "final-flag-kept-after-void": c_final_void,
    "refused-royal9-clears-base-flag": c_r9_base_flag,
    "refused-wager-replayed-at-round-open": c_replayed,
    "key-clears-lock-flag": c_key_lock,
    "first-unlock-after-power-cause-power": c_unlock_power,
    "misread-card-left-out-of-tableau": c_misread_tableau,
    "identical-royal9-pair-tie-unpaid": c_same_pair,
    "losing-base-payout-stake-zero": c_lose_stake,
    "third-card-ten-read-as-player-stood": c_ten_stood,
    "attendant-mode-left-on-after-key": c_attendant_mode,
    "contribution-list-rebuilt-on-first-royal9": c_list_rebuilt,
    "limit-raise-pours-diverted-back": c_pour_back,
    "key-rounds-residual-into-meter": c_key_residual,
    "pending-read-as-new-slips-only": c_pending_once,
    "key-books-growth-over-reset": c_growth,
    "settings-ring-wrap-loads-older-write": c_ring,
    "refused-denomination-clears-floor-check": c_floor,
    "game-type-from-paytable-after-denomination-write": c_game_type,
    "version-refusal-reason-names-offer": c_version_reason,
    "nested-float-accepted": c_nested_float,
    "len-counts-characters-not-bytes": c_len_chars,
    "garbage-steps-event-seq": c_garbage_seq,
    "power-loss-duration-ignored": c_power_duration,
    "receive-buffer-kept-across-reconnect": c_rx_kept,
    "counter-fetch-in-milliseconds": c_fetch_ms,
    "counter-fetch-waits-only-after-start": c_fetch_early,
    "counter-timeout-timer-started-by-conf": c_timeout_conf,
    "supply-on-ignored-within-restart-delay": c_restart_delay,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET20, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
