"""Show each fault of the fourteenth set (indie_table/faults.py FAULTS_SET14) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults14.py [FAULT ...]

As check_faults13.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py.  For every fault the independent table is started twice on free 127.0.0.1
ports with a fresh state directory, once clean and once with `--fault NAME`, and one small scenario
speaks the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench supply and
the time-interval counter) to it.  Every scenario runs on the $5 table; one writes the denomination
100 to see how the write is answered.  One line per fault: `shows` when the faulty table gives the
faulty answer, `clean ok` when the clean table does not.  Exit status 0 when every fault shows and
every clean run is ok.
"""

from __future__ import annotations

import struct
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, Check, Table, check_all, crc16, frame, hits, payouts, scpi  # noqa: E402
from check_helpers import (  # noqa: E402
    ENVY_SEAT1,
    answers,
    first_card_ms,
    major_hit,
    meter,
    player_round,
    raw_frame,
    wager_list,
)
from indie_table.faults import FAULTS_SET14  # noqa: E402

LATE_MS = 2.5  # a lock-out later than this on the counter is the fault's (the clean table: about 0.01 ms)
# player 5C 6D (1, not a natural) draws the 7C (8); banker 2H 3S (5) draws on a third card 7: the 2D (7)
FIVE_AND_SIX = ["5C", "2H", "6D", "3S", "7C", "2D"]
# player 2C 4D (6) stands; banker AH 2S (3) draws the 3H (6): a tie
BANKER_DRAWS_TO_TIE = ["2C", "AH", "4D", "2S", "3H"]
ENVY_SEAT3 = ["KD", "KD", "9D", "9D"]  # seat 3's KD 9D on both hands: a tie of two naturals 9
# seat 1's KS 9S on the banker (major), seat 2's KH 9H on the player (minor): two payments in one round
MAJOR_AND_MINOR = ["KH", "KS", "9H", "9S"]


def _rest_of_round(t: Table, count: int) -> None:
    """Deal the cards left of the loaded round at once and wait for its round_end."""
    mark = t.ctl.mark()
    t.shoe.ok("test.deal", count=count, pace_us=0)
    t.ctl.wait(mark, lambda e: e["event"] == "round_end")


# ---------------------------------------------------------------- shoe and the drawing rules
def c_status_stale(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.shoe.ok("test.load", cards=["4H", "5S", "6D"])
    st = t.shoe.ok("shoe.status")
    return st["cards_dealt"] != 0, f"two cards dealt, the shoe loaded again with three: shoe.status {st}"


def c_natural_raw(t: Table) -> tuple[bool, str]:
    got = player_round(t, FIVE_AND_SIX)
    return got != [("win", 2000)], f"player 5C 6D (1) draws the 7C, banker 2H 3S (5) draws the 2D: player 8 " \
        f"against 7; a Player wager of 1000: (category, returned) {got}"


def c_fifth_card(t: Table) -> tuple[bool, str]:
    got = player_round(t, BANKER_DRAWS_TO_TIE)
    return got != [("push", 1000)], f"player 2C 4D (6) stands, banker AH 2S (3) draws the 3H (6): a tie; a Player " \
        f"wager of 1000: (category, returned) {got}"


# ---------------------------------------------------------------- wagers and the layout
def c_each_placement(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(3, "player", 1000)
    t.place(3, "player", 2500)
    listed = wager_list(t)
    return listed != [(3, "player", 2500)], f"seat 3 a Player wager of 1000, placed again at 2500: wager.list {listed}"


def c_cap_ten(t: Table) -> tuple[bool, str]:
    t.open()
    for seat in range(1, 8):
        t.place(seat, "player", 1000)
    for seat in range(1, 5):
        t.place(seat, "banker", 1000)
    listed = wager_list(t)
    return len(listed) != 11, f"eleven wagers placed (a Player wager at seats 1-7, a Banker wager at seats 1-4): " \
        f"wager.list has {len(listed)}, the last {listed[-1:]}"


def c_closed_remove(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(2, "player", 1000)
    t.ctl.ok("round.no_more_bets")
    kind, ans = t.sens.req("wager.remove", seat=2, type="player")
    return kind != "nak", f"seat 2 a Player wager, no more bets, wager.remove: {kind} {ans}; wager.list {wager_list(t)}"


def c_restore_doubles(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(2, "player", 1000)
    t.ctl.ok("test.link", up=False)
    t.ctl.ok("test.link", up=True)
    listed = wager_list(t)
    got = [(p["stake"], p["returned"]) for p in payouts(t.deal(NO_HIT), 2, "player")]
    return got != [(1000, 0)], f"seat 2 a Player wager of 1000, the sensors link lost and back: wager.list " \
        f"{listed}; its payout (stake, returned) {got}"


# ---------------------------------------------------------------- lock-out and rounds
def c_button_latch(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.deal(NO_HIT)
    press = t.ctl.ok("lockout.press")
    t.open()
    lock = t.ctl.ok("lockout.get")
    ans = t.place(1, "player", 1000)
    return lock.get("locked") is not False or not ans["accepted"], f"a round settled, lockout.press between " \
        f"rounds ({press}), round.open: lockout.get {lock}; a wager {ans}"


def c_nmb_after_button(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("lockout.press")
    kind, ans = t.ctl.req("round.no_more_bets")
    return kind != "rsp", f"round open, the lock-out button, round.no_more_bets: {kind} {ans}"


def c_late_refused(t: Table) -> tuple[bool, str]:
    best, refused = 1e9, {}
    for _ in range(3):
        t.open()
        t.place(1, "player", 1000)
        refused = t.place(8, "player", 1000)
        _reading, ms = first_card_ms(t)
        best = min(best, ms)
        _rest_of_round(t, 3)
    return best > LATE_MS, f"round open, a wager, a wager at seat 8 ({refused}), the first card: lock-out " \
        f"{best:.3f} ms on the counter (fastest of three rounds)"


def c_refused_settle(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=2, pace_us=0)
    kind, ans = t.ctl.req("round.settle")
    mark = t.ctl.mark()
    t.shoe.ok("test.deal", count=2, pace_us=0)
    end = t.ctl.wait(mark, lambda e: e["event"] == "round_end")
    return bool(end and end.get("void")), f"two cards out, round.settle {kind} {ans.get('code', '')}, the last " \
        f"two cards: round_end {end}"


def c_void_cause(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    ans = t.ctl.ok("round.settle")
    lock = t.ctl.ok("lockout.get")
    return lock != {"ok": True, "locked": True, "cause": "no-more-bets"}, f"round open, a wager, round.settle " \
        f"({ans}): lockout.get {lock}"


def c_cards_kept(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.power_cycle()
    got = player_round(t, NO_HIT)
    return got != [("lose", 0)], f"two cards out, a power cycle, a new round dealt 2C 3D 4H 4S (banker 7 against 6): " \
        f"the Player wager's (category, returned) {got}"


# ---------------------------------------------------------------- Royal 9 and the meters
def c_envy_lower(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(ENVY_SEAT3), 1)]
    return got != [("mega-envy", 500000)], f"seat 1's Royal 9 wager, seat 3's KD 9D on both hands: seat 1's hits {got}"


def c_first_round_cold(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    got = meter(t, "mega")
    return got != (5000006, "0.25"), f"a power cycle, a $5 Royal 9 wager made final by the button: mega {got}"


def c_first_meter_only(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"major": {"rate": "0.6"}, "minor": {"rate": "0.4"}})
    got = (ans["meters"]["major"]["rate"], ans["meters"]["minor"]["rate"])
    return got != ("0.6", "0.4"), f"config.set major rate 0.6 and minor rate 0.4: the answer's rates {got}"


def c_limit_round_start(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    t.ctl.ok("round.settle")
    now = meter(t, "major")
    kind, ans = t.ctl.req("config.set", meters={"major": {"payout_limit": 45001}})
    shown = ans.get("reason") if kind == "nak" else ans.get("meters", {}).get("major", {}).get("payout_limit")
    return kind == "rsp", f"the major at {now} after a round (45000 at its round.open), config.set major " \
        f"payout_limit 45001: {kind} {shown}"


def c_limit_24(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"mega": {"payout_limit": 20000000}})
    got = ans["meters"]["mega"]["payout_limit"]
    back = t.ctl.ok("config.get")["meters"]["mega"]["payout_limit"]
    return got != 20000000, f"config.set mega payout_limit 20000000: answered {got}, config.get {back}"


def c_initial_power(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"major": {"initial": 46000}})["meters"]["major"]
    t.power_cycle()
    after = t.ctl.ok("config.get")["meters"]["major"]
    return after["initial"] != 46000, f"config.set major initial 46000 ({ans}); after a power cycle config.get " \
        f"major {after}"


def c_residual_2dp(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"rate": "0.375"}})
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    got = meter(t, "major")
    return got != (45001, "0.875"), f"the major's rate 0.375, a $5 Royal 9 wager made final (+1.875 cents): " \
        f"major {got}"


# ---------------------------------------------------------------- pending payments, reset key, payout meters
def c_pop_first(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    t.deal(MAJOR_AND_MINOR)
    before = [(p["meter"], p["seat"]) for p in t.meters()["pending"]]
    ans = t.ctl.ok("reset_key", meter="minor")
    m = t.meters()
    after = [(p["meter"], p["seat"]) for p in m["pending"]]
    return after != [("major", 1)], f"pending {before}, reset_key minor ({ans}): pending {after}, major " \
        f"{m['meters']['major']}, minor {m['meters']['minor']}"


def c_cum_mega(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.deal(ENVY_SEAT1)
    pend = [(p["meter"], p["amount"]) for p in t.meters()["pending"]]
    t.ctl.ok("reset_key", meter="mega")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_attendant"])
    return got[0] != got[1] or not pend or got[0] != pend[0][1], f"seat 1's mega pending {pend}, its key: " \
        f"cumulative_paid, paid_by_attendant {got}"


def c_refused_key_event(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    t.ctl.ok("round.settle")
    mark = t.ctl.mark()
    kind, ans = t.ctl.req("reset_key", meter="major")
    time.sleep(0.1)
    resets = [e for e in t.ctl.since(mark) if e["event"] == "reset"]
    return bool(resets), f"the major at {meter(t, 'major')} with nothing pending, reset_key major: {kind} " \
        f"{ans.get('code', '')}; reset events {resets}"


def c_key_hit(t: Table) -> tuple[bool, str]:
    major_hit(t)
    mark = t.ctl.mark()
    t.ctl.ok("reset_key", meter="major")
    t.ctl.wait(mark, lambda e: e["event"] == "reset")
    got = [(e["event"], e.get("seat")) for e in t.ctl.since(mark)]
    return got != [("reset", None)], f"seat 2's major pending, its key: controller events (event, seat) {got}"


# ---------------------------------------------------------------- configuration, denomination, identity, link
def c_denom_dollars(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", denomination=100)
    back = t.ctl.ok("config.get")
    t.open()
    t.place(1, "player", 1000)
    r9 = t.place(1, "royal9", 100)
    return ans["denomination"] != 100, f"config.set denomination 100: answered {ans['denomination']}, config.get " \
        f"{back['denomination']}; a Royal 9 wager of 100 {r9}"


def c_location(t: Table) -> tuple[bool, str]:
    ident = t.ctl.ok("identity")
    return ident.get("location") != "bench 1", f"the controller's identity location {ident.get('location')!r}"


def c_comm_cause(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.deal(NO_HIT)
    mark = t.ctl.mark()
    t.ctl.ok("test.link", up=False)
    event = t.ctl.wait(mark, lambda e: e["event"] == "lockout")
    lock = t.ctl.ok("lockout.get")
    return lock.get("cause") != "comm-lost", f"a round settled, the sensors link lost (event {event}): lockout.get " \
        f"{lock}"


# ---------------------------------------------------------------- framing (sections 2 and 3)
def c_crc_seq(t: Table) -> tuple[bool, str]:
    good = frame(4003, {"cmd": "ping"})
    bad = good[:-2] + bytes([good[-2] ^ 0x5A, good[-1]])
    t.ctl.sock.sendall(bad)
    got = answers(t, (0, 4003))
    return 4003 in got, f"a ping SEQ 4003 whose CRC is broken: answers by SEQ {got}"


def c_oversized(t: Table) -> tuple[bool, str]:
    body = b'{"cmd":"ping"' + b" " * 4090 + b"}"  # 4104 bytes: more than a frame may carry
    raw = raw_frame(4004, body)
    while b"\xa5\x5a" in raw[2:]:  # no false start of frame inside (a CRC of A5 5A)
        body = body[:-1] + b" }"
        raw = raw_frame(4004, body)
    t.ctl.sock.sendall(raw)
    got = answers(t, (4004,))
    kind, _ans = t.ctl.req("ping")
    return 4004 in got, f"a ping SEQ 4004 whose header announces {len(body)} bytes: answers {got}; a ping after " \
        f"it: {kind}"


def c_crc_whole(t: Table) -> tuple[bool, str]:
    inner = frame(4005, {"cmd": "ping"})
    false_head = b"\xa5\x5a" + struct.pack(">BBHH", 1, 0x01, 4098, len(inner))
    junk = b"\x00\x00"
    if crc16(false_head[2:] + inner) == 0:
        junk = b"\x00\x01"
    t.ctl.sock.sendall(false_head + inner + junk)
    got = answers(t, (0, 4005))
    return 4005 not in got, f"a false header whose frame fails its CRC, a ping SEQ 4005 inside it: answers by " \
        f"SEQ {got}"


def c_type_nibble(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(raw_frame(4007, b'{"cmd":"ping"}', ftype=0x11))
    got = answers(t, (4007,))
    return got.get(4007, ("none", {}))[0] != "nak", f"a ping frame of TYPE 0x11, SEQ 4007, CRC good: {got}"


# ---------------------------------------------------------------- timing and the instruments (section 9)
def c_list_slow(t: Table) -> tuple[bool, str]:
    best = 10.0
    for _ in range(3):
        t.open()
        t.place(1, "player", 1000)
        t.deal(NO_HIT)
        t0 = time.perf_counter()
        t.sens.ok("wager.list")
        best = min(best, time.perf_counter() - t0)
    return best * 1000 > 100, f"the first wager.list after a settlement answered in {best * 1000:.1f} ms (fastest " \
        f"of three rounds)"


def c_counter_ms(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    t.open()
    t.place(1, "player", 1000)
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 2", "INIT", "*OPC?")
    t.shoe.ok("test.load", cards=NO_HIT)

    def first_card() -> None:
        time.sleep(0.3)
        t.shoe.ok("test.deal", count=1, pace_us=0)

    dealer = threading.Thread(target=first_card)
    dealer.start()
    reading = scpi(counter, "FETC?")
    dealer.join(timeout=5)
    return reading is None or float(reading) > 1.0, f"SYST:TIM 2, INIT, FETC? asked, the first card 300 ms later: " \
        f"FETC? {reading}"


def c_counter_init(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    first, _ms1 = first_card_ms(t)
    _rest_of_round(t, 3)
    time.sleep(0.2)
    t.open()
    t.place(1, "player", 1000)
    second, ms2 = first_card_ms(t)
    return ms2 > 50, f"two rounds, the counter armed (INIT) before each first card: FETC? {first}, then {second}"


def c_opc(t: Table) -> tuple[bool, str]:
    power = t.ports["power"]
    scpi(power, "OUTP OFF", "*OPC?")
    kind, _ans = t.ctl.req("ping", deadline_s=0.1)
    outp = scpi(power, "OUTP?")
    time.sleep(0.2)
    return kind == "rsp", f"OUTP OFF, *OPC? answered: a ping at once {kind}, OUTP? {outp}"


CHECKS: dict[str, Check] = {
    "shoe-status-count-refreshed-by-card": c_status_stale,
    "natural-tested-before-mod-10": c_natural_raw,
    "banker-third-card-added-to-player": c_fifth_card,
    "wager-list-lists-each-placement": c_each_placement,
    "wager-list-capped-at-ten": c_cap_ten,
    "closed-remove-answered-removed-false": c_closed_remove,
    "link-restore-resend-adds-stakes": c_restore_doubles,
    "button-press-latched-into-next-round": c_button_latch,
    "nmb-refused-after-button": c_nmb_after_button,
    "lockout-late-after-refused-wager": c_late_refused,
    "refused-settle-leaves-void-flag": c_refused_settle,
    "void-lock-cause-not-stored": c_void_cause,
    "round-cards-kept-across-power-cut": c_cards_kept,
    "envy-checks-lower-seats-only": c_envy_lower,
    "first-round-after-power-contributes-nothing": c_first_round_cold,
    "meter-write-applies-first-meter-only": c_first_meter_only,
    "limit-held-to-round-start-amount": c_limit_round_start,
    "payout-limit-stored-in-24-bits": c_limit_24,
    "meter-initial-restored-from-reset": c_initial_power,
    "reset-key-pops-first-pending": c_pop_first,
    "cumulative-paid-omits-mega": c_cum_mega,
    "refused-key-sends-reset-event": c_refused_key_event,
    "reset-key-resends-hit": c_key_hit,
    "residual-shown-to-two-decimals": c_residual_2dp,
    "denomination-write-kept-in-dollars": c_denom_dollars,
    "controller-location-nul-padded": c_location,
    "comm-lost-cause-not-stored-when-locked": c_comm_cause,
    "bad-crc-nak-carries-header-seq": c_crc_seq,
    "oversized-frame-accepted": c_oversized,
    "bad-crc-drops-whole-frame": c_crc_whole,
    "frame-type-high-bits-ignored": c_type_nibble,
    "wager-list-slow-after-settlement": c_list_slow,
    "counter-timeout-read-as-ms": c_counter_ms,
    "counter-init-keeps-start-edge": c_counter_init,
    "supply-opc-before-output-off": c_opc,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET14, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
