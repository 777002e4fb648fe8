"""Show each fault of the eighteenth set (indie_table/faults.py FAULTS_SET18) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults18.py [FAULT ...]

As check_faults17.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py (and a host reconnecting to a device, and a device's own reboot, from the
sixteenth and seventeenth scripts).  For every fault the independent table is started twice on free
127.0.0.1 ports with a fresh state directory, once clean and once with `--fault NAME`, and one small
scenario speaks the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench
supply and the time-interval counter) to it.  Every scenario starts on the $5 table; one writes the
denomination 100 on the way (the $5 table made a $1 table).  One scenario opens a second connection
to a device, as a host that reconnects does, and five write frames of their own.  One line per
fault: `shows` when the faulty table gives the faulty answer, `clean ok` when the clean table does
not.  Exit status 0 when every fault shows and every clean run is ok.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, Check, Msg, Table, check_all, frame, payouts, scpi  # noqa: E402
from check_faults16 import reconnect  # noqa: E402
from check_faults17 import device_reboot  # noqa: E402
from check_helpers import (  # noqa: E402
    answers,
    first_card_ms,
    major_hit,
    meter,
    player_round,
    raw_frame,
    wager_list,
)
from indie_table.faults import FAULTS_SET18  # noqa: E402

# player 2C 4H (6) stands, banker 3D 2S (5) draws the AH: 6 against 6, a tie after a third card
TIE_AFTER_THIRD = ["2C", "3D", "4H", "2S", "AH"]
RATES = {"mega": "1.25", "major": "0.5", "minor": "0.35"}  # the $5 table's rates of progression


def _shoe_reads(t: Table, mark: int, count: int, deadline_s: float = 1.0) -> list[tuple[str, Any, int]]:
    """Wait for `count` card or misread events on the shoe's line after `mark`; (event, card, n) each."""
    end = time.monotonic() + deadline_s
    while True:
        got = [(e["event"], e.get("card"), e["n"]) for e in t.shoe.since(mark) if e["event"] in ("card", "misread")]
        if len(got) >= count or time.monotonic() > end:
            return got
        time.sleep(0.01)


def _is_power_lockout(e: Msg) -> bool:
    return e["event"] == "lockout" and e.get("cause") == "power"


def _is_comm_lost(e: Msg) -> bool:
    return e["event"] == "lockout" and e.get("cause") == "comm-lost"


# ---------------------------------------------------------------- shoe and cards
def c_misread_twice(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.fault", kind="misread")
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(NO_HIT), 1, "player")]
    return got != [("lose", 0)], f"a Player wager, the round's first card (2C) misread, then 3D 4H 4S (banker 7 " \
        f"against 6): (category, returned) {got}"


def c_last_card(t: Table) -> tuple[bool, str]:
    mark = t.shoe.mark()
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    got = _shoe_reads(t, mark, 2)
    return [e for e, _c, _n in got] != ["card", "card"], f"a shoe of 2C 3D dealt out: its events (event, card, n) " \
        f"{got}"


def c_shoe_seq(t: Table) -> tuple[bool, str]:
    cards = [rank + suit for rank in "A23456789TJQK" for suit in "SHDC"] * 5  # 260 cards, five of each
    t.shoe.ok("test.load", cards=cards)
    t.shoe.ok("test.deal", count=len(cards), pace_us=0)
    end = time.monotonic() + 3.0
    while True:
        with t.shoe.cv:
            seqs = [seq for seq, _p in t.shoe.events]
        if len(seqs) >= len(cards) or time.monotonic() > end:
            break
        time.sleep(0.02)
    around = seqs[253:258]
    return around != [254, 255, 256, 257, 258], f"260 cards dealt at once: {len(seqs)} shoe events, the SEQs of " \
        f"the 254th to the 258th {around}"


def c_shoe_reboot(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    device_reboot(t, t.shoe)
    ev = t.ctl.wait(mark, _is_power_lockout, 0.5)
    listed = wager_list(t)
    kind, lock = t.ctl.req("lockout.get", deadline_s=1.0)
    return ev is not None or listed != [(1, "player", 1000)], f"a round open with a Player wager, the shoe's " \
        f"reboot: controller power lockout event {ev}; wager.list {listed}; lockout.get {kind} {lock}"


# ---------------------------------------------------------------- the bet sensors
def c_link_flag(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    ans = t.place(1, "player", 1000)
    return ans.get("reason") != "locked-out", f"a power cycle, no round opened, a Player wager: {ans}"


def c_refused_remove(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(2, "player", 1000)
    t.ctl.ok("lockout.press")
    kind, ans = t.sens.req("wager.remove", seat=1, type="player")
    listed = wager_list(t)
    return listed != [(1, "player", 1000), (2, "player", 1000)], f"Player wagers at seats 1 and 2, the lock-out " \
        f"button, wager.remove seat 1: {kind} {ans.get('reason', ans)}; wager.list {listed}"


def c_remove_offline(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("test.link", up=False)
    kind, ans = t.sens.req("wager.remove", seat=1, type="player")
    return kind != "nak", f"a Player wager, the sensors link cut (wagering closed, comm-lost), wager.remove: " \
        f"{kind} {ans}; wager.list {wager_list(t)}"


def c_odd_cents(t: Table) -> tuple[bool, str]:
    t.open()
    ans = t.place(1, "player", 1050)
    return not ans["accepted"], f"a round open, a Player wager of 1050 cents: {ans}"


def c_list_reconnect(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    reconnect(t, "sens", "sensors")
    listed = wager_list(t)
    return listed != [(1, "player", 1000)], f"a Player wager at seat 1, the host reconnects to the bet sensors: " \
        f"wager.list {listed}"


# ---------------------------------------------------------------- rounds, the lock-out and settlement
def c_void_order(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    ans = t.ctl.ok("round.settle")
    t.ctl.wait(mark, lambda e: e["event"] == "round_end", 0.5)
    t.ctl.wait(mark, lambda e: e["event"] == "lockout", 0.3)
    order = [(e["event"], e.get("cause", e.get("void"))) for e in t.ctl.since(mark)]
    return [e for e, _x in order] != ["lockout", "round_end"], f"a round open with a Player wager, round.settle " \
        f"({ans}): the controller's events {order}"


def c_empty_round(t: Table) -> tuple[bool, str]:
    t.open()
    ends = [e for e in t.deal(NO_HIT) if e["event"] == "round_end"]
    kind, ans = t.ctl.req("round.open")
    return not ends, f"a round dealt with no wager on the layout: round_end events {ends}; round.open then {kind} " \
        f"{ans}"


def c_nmb_empty(t: Table) -> tuple[bool, str]:
    t.open()
    kind, ans = t.ctl.req("round.no_more_bets")
    return kind != "rsp", f"a round open with no wager yet, round.no_more_bets: {kind} {ans}"


def c_comm_late(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    cut = time.monotonic()
    t.ctl.ok("test.link", up=False)
    ev = t.ctl.wait(mark, _is_comm_lost, 0.3)
    lock = t.ctl.ok("lockout.get")
    later = t.ctl.wait(mark, _is_comm_lost, 1.5)
    late_ms = round((time.monotonic() - cut) * 1000)
    return ev is None, f"the sensors link cut in an open round: lockout event within 300 ms {ev}; lockout.get then " \
        f"{lock}; the event {later} by {late_ms} ms after the cut"


def c_comm_line(t: Table) -> tuple[bool, str]:
    t.open()
    mark_c, mark_s = t.ctl.mark(), t.sens.mark()
    t.ctl.ok("test.link", up=False)
    ev = t.ctl.wait(mark_c, _is_comm_lost, 0.3)
    on_sensors = t.sens.wait(mark_s, lambda e: e["event"] == "lockout", 0.3)
    return ev is None, f"the sensors link cut in an open round: on the controller's line {ev}; on the bet " \
        f"sensors' line {on_sensors}"


def c_tie_two(t: Table) -> tuple[bool, str]:
    got = player_round(t, TIE_AFTER_THIRD)
    return got != [("push", 1000)], f"a Player wager, player 2C 4H (6) against banker 3D 2S (5) drawing the AH " \
        f"(6, a tie): (category, returned) {got}"


def c_bcd(t: Table) -> tuple[bool, str]:
    for _ in range(9):
        t.open()
        t.ctl.ok("round.settle")
    ans = t.ctl.ok("round.open")
    return ans["round"] != 10, f"nine rounds opened and voided, round.open: {ans}"


# ---------------------------------------------------------------- the meters and the reset key
def c_second_jackpot(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    evs = major_hit(t)
    won = [(e["category"], e["amount"]) for e in evs if e["event"] == "hit"]
    pending = t.meters()["pending"]
    kind, ans = t.ctl.req("round.open")
    return not pending or kind == "rsp", f"seat 2's major paid at its reset key, then won again (hits {won}): " \
        f"pending {pending}; round.open {kind} {ans.get('reason', ans)}"


def c_void_list(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("round.settle")
    after_void = meter(t, "mega")
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    got = meter(t, "mega")
    return got != (5000012, "0.5"), f"a $5 Royal 9 wager, the round voided: mega (amount, residual) {after_void}; " \
        f"the next round's $5 Royal 9 wager made final by the button: {got}"


def c_limit_diverted(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45002}})
    t.open()
    t.r9(1)
    t.r9(2)
    t.ctl.ok("lockout.press")
    before = meter(t, "major"), t.meters()["diverted"]["major"]
    t.ctl.ok("round.settle")
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 50000}})
    after = t.meters()["diverted"]["major"]
    return after != before[1], f"the major's payout limit 45002, two $5 Royal 9 wagers made final: major " \
        f"(amount, residual), diverted {before}; the round voided, the limit written 50000: diverted {after}"


# ---------------------------------------------------------------- configuration
def c_null_limit(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"major": {"payout_limit": None}})["meters"]["major"]["payout_limit"]
    t.power_cycle()
    got = t.ctl.ok("config.get")["meters"]["major"]["payout_limit"]
    return got is not None, f"config.set major payout_limit null (answered {ans!r}), a power cycle: config.get " \
        f"major payout_limit {got!r}"


def c_rates_numbers(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    rates = {m: c["rate"] for m, c in t.ctl.ok("config.get")["meters"].items()}
    return rates != RATES, f"a power cycle, config.get rates {rates!r}"


def c_decks(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", decks=6)
    return kind == "rsp", f"a table freshly switched on (every meter at its initial amount), config.set decks 6: " \
        f"{kind} {ans.get('reason', ans.get('decks'))}"


def c_denom_rates(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", denomination=100)
    rates = {m: c["rate"] for m, c in ans["meters"].items()}
    return rates != RATES, f"config.set denomination 100 (answered {ans['denomination']}): rates {rates}"


# ---------------------------------------------------------------- the line (sections 2 to 4, 7)
def c_hello(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("hello", version=2, versions=[2])
    return kind == "rsp", f"hello offering version 2 alone: {kind} {ans}"


def c_bad_crc_events(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.fault", kind="bad-crc", count=1)
    kind, ans = t.ctl.req("round.open", deadline_s=0.5)
    return kind != "rsp", f"test.fault bad-crc count 1 on the controller, round.open (its unlock event the first " \
        f"frame after the fault): {kind} {ans}"


def c_crc_255(t: Table) -> tuple[bool, str]:
    body = {"cmd": "config.set", "meters": t.ctl.ok("config.get")["meters"]}  # every field, the values in force
    raw = frame(3401, body)
    t.ctl.sock.sendall(raw)
    got = answers(t, (3401, 0))
    return got.get(3401, ("none", {}))[0] != "rsp", f"a config.set SEQ 3401 writing every field of the three " \
        f"meters as they stand ({len(raw) - 10}-byte payload): answers {sorted((s, k) for s, (k, _p) in got.items())}"


def c_pipelined(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(frame(3402, {"cmd": "ping"}) + frame(3403, {"cmd": "identity"}))
    got = answers(t, (3402, 3403))
    return 3402 not in got, f"a ping SEQ 3402 and an identity SEQ 3403 in one write: answers by SEQ " \
        f"{ {s: sorted(p)[:3] for s, (_k, p) in got.items()} }"


def c_array(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(raw_frame(3404, b'["ping"]'))
    got = answers(t, (3404,))
    return 3404 not in got, f"a frame SEQ 3404 whose payload is the JSON array [\"ping\"]: answers {got}"


def c_nan(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(raw_frame(3405, b'{"cmd":"ping","x-probe":NaN}'))
    got = answers(t, (3405,))
    return got.get(3405, ("none", {}))[0] == "rsp", f"a ping SEQ 3405 carrying NaN: answers {got}"


def c_trailing(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(raw_frame(3406, b'{"cmd":"ping"}{"cmd":"ping"}'))
    got = answers(t, (3406,))
    return got.get(3406, ("none", {}))[0] == "rsp", f"a frame SEQ 3406 whose payload is two objects, " \
        f"{{\"cmd\":\"ping\"}} twice: answers {got}"


def c_nak_crc(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("reset_key", meter="major", deadline_s=0.5)
    ping, _ = t.ctl.req("ping", deadline_s=0.5)
    return kind != "nak", f"nothing pending, reset_key major: {kind} {ans}; a ping then: {ping}"


# ---------------------------------------------------------------- the instruments (section 9)
def c_counter_init(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 2", "INIT", "*OPC?")
    time.sleep(0.2)
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reading = scpi(counter, "FETC?")
    return 0.1 < float(reading or "9.91E+37") < 1.0, f"the counter armed, 200 ms later a round opened and its " \
        f"first card: FETC? {reading!r}"


def c_counter_last(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    t.open()
    first, _ms = first_card_ms(t)
    scpi(counter, "SYST:TIM 0.3", "INIT", "*OPC?")
    second = scpi(counter, "FETC?")
    return second != "9.91E+37", f"a round's first card measured (FETC? {first!r}), the counter armed again with a " \
        f"0.3 s timeout and nothing dealt: FETC? {second!r}"


def c_volt(t: Table) -> tuple[bool, str]:
    power = t.ports["power"]
    scpi(power, "OUTP OFF", "*OPC?")
    volt = scpi(power, "VOLT?")
    scpi(power, "OUTP ON", "*OPC?")
    return volt != "12.000", f"OUTP OFF, VOLT?: {volt!r}"


def c_on_on(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    scpi(t.ports["power"], "OUTP ON", "*OPC?")
    ev = t.ctl.wait(mark, _is_power_lockout, 0.5)
    listed = wager_list(t)
    return ev is not None or listed != [(1, "player", 1000)], f"a round open with a Player wager, OUTP ON with the " \
        f"output on: power lockout event {ev}; wager.list {listed}"


CHECKS: dict[str, Check] = {
    "misread-card-out-pulsed-twice": c_misread_twice,
    "last-card-in-shoe-misread": c_last_card,
    "shoe-event-seq-one-byte": c_shoe_seq,
    "shoe-reboot-resets-controller": c_shoe_reboot,
    "sensors-link-flag-down-until-first-open": c_link_flag,
    "refused-remove-drops-listing": c_refused_remove,
    "remove-taken-offline-while-link-down": c_remove_offline,
    "odd-cents-base-wager-refused": c_odd_cents,
    "sensors-list-cleared-by-reconnect": c_list_reconnect,
    "void-round-end-before-lockout": c_void_order,
    "empty-round-ends-without-round-end": c_empty_round,
    "nmb-refused-with-empty-layout": c_nmb_empty,
    "comm-loss-noticed-after-800-ms": c_comm_late,
    "comm-lost-event-on-sensors-line": c_comm_line,
    "round-number-kept-in-bcd": c_bcd,
    "tie-check-reads-two-card-points": c_tie_two,
    "second-jackpot-of-meter-not-pending": c_second_jackpot,
    "void-leaves-contribution-list": c_void_list,
    "limit-write-clears-diverted": c_limit_diverted,
    "null-limit-reloaded-as-zero": c_null_limit,
    "rates-reloaded-as-numbers": c_rates_numbers,
    "decks-write-taken-at-initial-amounts": c_decks,
    "denomination-write-rescales-rates": c_denom_rates,
    "hello-answers-own-version-unoffered": c_hello,
    "bad-crc-count-skips-events": c_bad_crc_events,
    "crc-check-covers-255-bytes": c_crc_255,
    "pipelined-answers-carry-last-seq": c_pipelined,
    "array-payload-unanswered": c_array,
    "nan-constant-accepted": c_nan,
    "trailing-bytes-after-object-ignored": c_trailing,
    "nak-crc-over-payload-only": c_nak_crc,
    "counter-start-at-init": c_counter_init,
    "counter-timeout-answers-last-interval": c_counter_last,
    "supply-volt-query-reads-output": c_volt,
    "supply-on-while-on-cycles-output": c_on_on,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET18, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
