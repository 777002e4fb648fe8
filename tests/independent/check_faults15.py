"""Show each fault of the fifteenth set (indie_table/faults.py FAULTS_SET15) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults15.py [FAULT ...]

As check_faults14.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py.  For every fault the independent table is started twice on free 127.0.0.1
ports with a fresh state directory, once clean and once with `--fault NAME`, and one small scenario
speaks the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench supply and
the time-interval counter) to it.  Every scenario starts on the $5 table; two write the
denomination 100 on the way (the $5 table made a $1 table, and one makes it a $5 table again).  Two
scenarios open a second connection to a device, as a host that reconnects does.  One line per fault:
`shows` when the faulty table gives the faulty answer, `clean ok` when the clean table does not.
Exit status 0 when every fault shows and every clean run is ok.
"""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, Check, Line, Table, check_all, frame, hits, payouts, scpi  # noqa: E402
from check_helpers import (  # noqa: E402
    ENVY_SEAT1,
    answers,
    button_void,
    major_hit,
    player_round,
    raw_frame,
    reboot,
    wager_list,
    wait_power_lockout,
)
from indie_table.faults import FAULTS_SET15  # noqa: E402

# player 2C 3D (5) draws the 2H (7); banker 3S 3H (6) stands on a third card 2: player 7 against 6 (the 2S is left)
BANKER_ON_THIRD_2 = ["2C", "3S", "3D", "3H", "2H", "2S"]
KING_NINE_TWO_SUITS = ["KS", "KS", "9H", "9H"]  # seat 5's KS 9H on both hands: a tie of two naturals 9
# seat 1's KS 9S on the banker (major), seat 2's KH 9H on the player (minor): two payments in one round
MAJOR_AND_MINOR = ["KH", "KS", "9H", "9S"]
SEAT7_MINOR = ["KD", "2C", "9C", "3D"]  # player KD 9C (seat 7's combination), natural 9 against 5


def scpi_ask(port: int, lines: list[str], deadline_s: float = 0.5) -> str | None:
    """Send SCPI lines and wait up to the deadline for one answer line; None when none came."""
    end = time.monotonic() + deadline_s
    with socket.create_connection(("127.0.0.1", port), timeout=deadline_s) as sock:
        for line in lines:
            sock.sendall(line.encode() + b"\n")
        buf = b""
        while not buf.endswith(b"\n"):
            left = end - time.monotonic()
            if left <= 0:
                return None
            sock.settimeout(left)
            try:
                data = sock.recv(4096)
            except TimeoutError:
                return None
            if not data:
                return None
            buf += data
        return buf.decode().strip()


def reconnect(t: Table, name: str, role: str) -> float:
    """Close the host's line to a device and open a new one, as a host reconnecting does; seconds its hello took."""
    getattr(t, name).close()
    line = Line(t.ports[role])
    setattr(t, name, line)
    t0 = time.perf_counter()
    line.ok("hello", version=1)
    return time.perf_counter() - t0


def _major_state(t: Table, name: str) -> tuple[int, str, int]:
    m = t.meters()
    return m["meters"][name], m["residual"][name], m["diverted"][name]


# ---------------------------------------------------------------- shoe and cards
def c_error_swallow(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.fault", kind="error", code="E7", text="card jam")
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=2, pace_us=0)
    st = t.shoe.ok("shoe.status")
    cards = [e["n"] for e in t.shoe.since(mark) if e["event"] == "card"]
    return cards != [1, 2], f"a shoe error event, two cards dealt: card events n {cards}, shoe.status cards_dealt " \
        f"{st['cards_dealt']}"


def c_n_reconnect(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H", "5S", "6D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    reconnect(t, "shoe", "shoe")
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    card = t.shoe.wait(mark, lambda e: e["event"] == "card")
    st = t.shoe.ok("shoe.status")
    n = card["n"] if card else None
    return n != 3, f"two cards dealt, the host reconnects to the shoe, a third card: card event n {n}, shoe.status " \
        f"cards_dealt {st['cards_dealt']}"


def c_load_mid_round(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    mark = t.ctl.mark()
    t.shoe.ok("test.load", cards=["4H", "4S"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    end = t.ctl.wait(mark, lambda e: e["event"] == "round_end", 0.5)
    got = [(p["category"], p["returned"]) for p in payouts(t.ctl.since(mark), 1, "player")]
    return end is None, f"2C 3D dealt, the shoe loaded again with 4H 4S and both dealt (banker 7 against 6): " \
        f"round_end {end}, the Player wager's (category, returned) {got}"


def c_shoe_press(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    kind, ans = t.shoe.req("lockout.press")
    late = t.place(2, "player", 1000)
    return kind != "nak" or not late["accepted"], f"round open, lockout.press sent to the shoe: {kind} {ans}; a " \
        f"wager after it {late}"


def c_shoe_serial(t: Table) -> tuple[bool, str]:
    ident = t.shoe.ok("identity")
    return not isinstance(ident.get("serial"), str), f"the shoe's identity serial {ident.get('serial')!r}"


# ---------------------------------------------------------------- wagers and the layout
def c_readded_last(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(2, "player", 1000)
    t.sens.ok("wager.remove", seat=1, type="player")
    t.place(1, "player", 1500)
    listed = wager_list(t)
    return listed != [(1, "player", 1500), (2, "player", 1000)], f"Player wagers at seats 1 and 2, seat 1's " \
        f"removed and placed again at 1500: wager.list {listed}"


def c_base_again(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(1, "player", 2000)
    r9 = t.place(1, "royal9", 500)
    return not r9["accepted"], f"seat 1 a Player wager of 1000 placed again at 2000, then a $5 Royal 9 wager: {r9}; " \
        f"wager.list {wager_list(t)}"


def c_hello_reconnect(t: Table) -> tuple[bool, str]:
    best = min(reconnect(t, "sens", "sensors") for _ in range(2))
    return best * 1000 > 100, f"the host reconnects to the bet sensors: the first hello answered in " \
        f"{best * 1000:.1f} ms (fastest of two reconnections)"


# ---------------------------------------------------------------- lock-out and rounds
def c_unlock_after_void(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("round.settle")
    mark = t.ctl.mark()
    ans = t.ctl.ok("round.open")
    before = [e for e in t.ctl.since(mark) if e["event"] == "lockout"]
    later = t.ctl.wait(mark, lambda e: e["event"] == "lockout", 0.5)
    return not before, f"a voided round, round.open ({ans}): lockout events before its answer {before}; the " \
        f"unlock {later}"


def c_reboot_round(t: Table) -> tuple[bool, str]:
    for _ in range(2):
        t.open()
        t.ctl.ok("round.settle")
    reboot(t)
    ans = t.ctl.ok("round.open")
    return ans.get("round") != 3, f"rounds 1 and 2 (voided), a controller reboot, round.open: {ans}"


def c_open_after_key(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.power_cycle()
    key = t.ctl.ok("reset_key", meter="major")
    pending = t.meters()["pending"]
    kind, ans = t.ctl.req("round.open")
    return kind != "rsp", f"seat 2's major pending, a power cycle, its key ({key}; pending {pending}): round.open " \
        f"{kind} {ans}"


def c_live_after_power(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.power_cycle()
    lock = t.ctl.ok("lockout.get")
    kind, ans = t.ctl.req("config.set", commission="4")
    shown = ans.get("commission") if kind == "rsp" else ans.get("reason")
    return kind != "rsp", f"a power cycle in an open round with a wager (lockout.get after it {lock}), " \
        f"config.set commission 4: {kind} {shown}"


# ---------------------------------------------------------------- the drawing rules and settlement
def c_banker_total(t: Table) -> tuple[bool, str]:
    got = player_round(t, BANKER_ON_THIRD_2)
    return got != [("win", 2000)], f"player 2C 3D (5) draws the 2H (7), banker 3S 3H (6) stands on a third card 2: " \
        f"a Player wager of 1000: (category, returned) {got}"


def c_zero_commission(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", commission="0")
    got = player_round(t, NO_HIT, kind="banker")
    return got != [("win", 2000)], f"config.set commission 0 (answered {ans['commission']!r}), a Banker wager of " \
        f"1000 wins: (category, returned) {got}"


def c_tie_category(t: Table) -> tuple[bool, str]:
    got = player_round(t, NO_HIT, kind="tie")
    return got != [("lose", 0)], f"a Tie wager of 1000, banker 7 against 6: its payout (category, returned) {got}"


def c_envy_two_suits(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(KING_NINE_TWO_SUITS), 1)]
    return got != [("mega-envy", 500000)], f"seat 1's Royal 9 wager, seat 5's KS 9H on both hands: seat 1's hits {got}"


def c_jackpot_order(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    evs = t.deal(ENVY_SEAT1)
    order = [(e["seat"], e["category"]) for e in evs if e["event"] == "payout" and e["type"] == "royal9"]
    return [s for s, _c in order] != [1, 2], f"Royal 9 wagers at seats 1 and 2, KS 9S on both hands (seat 1 the " \
        f"mega, seat 2 mega envy): the Royal 9 payouts in order (seat, category) {order}"


def c_envy_meter(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    got = [(h["category"], h["meter"], h["amount"]) for h in hits(t.deal(ENVY_SEAT1), 2)]
    return got != [("mega-envy", None, 500000)], f"seat 2's Royal 9 wager, seat 1's KS 9S on both hands: seat 2's " \
        f"hits (category, meter, amount) {got}"


# ---------------------------------------------------------------- the meters and their caps
def c_null_capacity(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"major": {"display_capacity": None}})["meters"]["major"]
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    got = _major_state(t, "major")
    return got != (45002, "0.5", 0), f"config.set major display_capacity null ({ans}), a $5 Royal 9 wager made " \
        f"final (+2.5 cents): major (amount, residual, diverted) {got}"


def c_cap_latch(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    button_void(t)
    first = _major_state(t, "major")
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 50000}})
    button_void(t)
    got = _major_state(t, "major")
    return got[0] != 45004, f"the major's payout limit 45001, a $5 Royal 9 wager made final: major (amount, " \
        f"residual, diverted) {first}; the limit raised to 50000, another: {got}"


def c_minor_cap(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    button_void(t)
    button_void(t)
    got = _major_state(t, "minor")
    limit = t.ctl.ok("config.get")["meters"]["minor"]["payout_limit"]
    return got[0] != 45003, f"the major's payout limit 45001 (the minor's {limit}), two $5 Royal 9 wagers made " \
        f"final (+1.75 cents each to the minor): minor (amount, residual, diverted) {got}"


def c_mega_at_hit(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    evs = t.deal(ENVY_SEAT1)
    resets = [e for e in evs if e["event"] == "reset"]
    m = t.meters()
    pending = [(p["meter"], p["amount"]) for p in m["pending"]]
    return m["meters"]["mega"] != 5000006 or bool(resets), f"seat 1 wins the mega (5000006), paid by an " \
        f"attendant: mega {m['meters']['mega']}, pending {pending}, reset events in the round {resets}"


def c_pending_category(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    t.deal(MAJOR_AND_MINOR)
    got = [(p["meter"], p["seat"], p["category"]) for p in t.meters()["pending"]]
    return any(meter != category for meter, _s, category in got) or len(got) != 2, f"seat 1's major and seat 2's " \
        f"minor in one round: pending (meter, seat, category) {got}"


# ---------------------------------------------------------------- configuration, denomination, storage
def c_seats_rewrite(t: Table) -> tuple[bool, str]:
    seats = t.ctl.ok("config.get")["seats"]
    ans = t.ctl.ok("config.set", seats=seats)
    t.open()
    t.r9(7)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(SEAT7_MINOR), 7)]
    seventh = [s for s in ans["seats"] if s["seat"] == 7]
    return ans["seats"] != seats or [c for c, _a in got] != ["minor"], f"config.set seats as config.get gives them: " \
        f"answered seat 7 {seventh}; seat 7's Royal 9 wager, KD 9C on the player: its hits {got}"


def c_denom_commission(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", commission="4")
    ans = t.ctl.ok("config.set", denomination=100)
    t.open()
    t.place(1, "banker", 1000)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(NO_HIT), 1, "banker")]
    return ans["commission"] != "4", f"config.set commission 4, then denomination 100: answered commission " \
        f"{ans['commission']!r}; a Banker wager of 1000 wins: (category, returned) {got}"


def c_floors_back(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    back = t.ctl.ok("config.set", denomination=500)
    kind, ans = t.ctl.req("config.set", meters={"major": {"initial": 9000}})
    shown = ans.get("reason") if kind == "nak" else ans.get("meters", {}).get("major")
    return kind != "nak", f"the denomination written 100 and back to 500 (answered {back['denomination']}), " \
        f"config.set major initial 9000 ($90, below the $5 floor of $450): {kind} {shown}"


def c_write_protect(t: Table) -> tuple[bool, str]:
    reboot(t)
    ans = t.ctl.ok("config.set", commission="4")
    t.power_cycle()
    back = t.ctl.ok("config.get")
    return back["commission"] != "4", f"a controller reboot, config.set commission 4 (answered " \
        f"{ans['commission']!r}), a power cycle: config.get commission {back['commission']!r}"


def c_config_get_slow(t: Table) -> tuple[bool, str]:
    best = 10.0
    for rate in ("4", "5", "4"):
        t.ctl.ok("config.set", commission=rate)
        t0 = time.perf_counter()
        t.ctl.ok("config.get")
        best = min(best, time.perf_counter() - t0)
    return best * 1000 > 100, f"config.set commission, then config.get: answered in {best * 1000:.1f} ms " \
        f"(fastest of three)"


# ---------------------------------------------------------------- framing and sequence numbers (sections 2 to 4)
def c_event_seq(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.sock.sendall(raw_frame(3000, b'{"cmd":"ping"}'))
    pinged = answers(t, (3000,))
    with t.ctl.cv:
        before = t.ctl.events[-1][0] if t.ctl.events else 0
        mark = len(t.ctl.events)
    t.ctl.ok("lockout.press")
    t.ctl.wait(mark, lambda e: e["event"] == "lockout")
    with t.ctl.cv:
        after = [seq for seq, _p in t.ctl.events[mark:]]
    return after[:1] != [before + 1], f"round open (last event SEQ {before}), a ping SEQ 3000 ({pinged}), the " \
        f"lock-out button: its lockout event SEQ {after}"


def c_float(t: Table) -> tuple[bool, str]:
    t.open()
    body = b'{"cmd":"wager.place","seat":1,"type":"player","amount":1000.0}'
    t.sens.sock.sendall(raw_frame(3001, body))
    got = answers(t, (3001,), line=t.sens)
    return got.get(3001, ("none", {}))[0] != "nak", f"wager.place amount 1000.0, SEQ 3001, CRC good: {got}; " \
        f"wager.list {wager_list(t)}"


def c_non_utf8(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(raw_frame(3002, b'{"cmd":"ping","note":"\xff"}'))
    got = answers(t, (3002,))
    return got.get(3002, ("none", {}))[0] != "nak", f"a ping SEQ 3002 whose payload holds the byte FF (not UTF-8), " \
        f"CRC good: {got}"


def c_seq_65535(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(frame(65535, {"cmd": "ping"}))
    got = answers(t, (65535,))
    kind, _ans = t.ctl.req("ping")
    return 65535 not in got, f"a ping SEQ 65535: answers {got}; a ping after it: {kind}"


def c_one_byte_early(t: Table) -> tuple[bool, str]:
    raw = frame(3003, {"cmd": "ping"})
    t.ctl.sock.sendall(raw[:-1])
    time.sleep(0.05)
    t.ctl.sock.sendall(raw[-1:])
    got = answers(t, (0, 3003))
    return 3003 not in got, f"a ping SEQ 3003 whose last byte comes 50 ms after the others: answers by SEQ {got}"


# ---------------------------------------------------------------- the instruments (section 9)
def c_counter_unarmed(t: Table) -> tuple[bool, str]:
    reading = scpi_ask(t.ports["counter"], ["FETC?"])
    return reading is not None, f"the counter, nothing armed since it was switched on, FETC?: {reading!r} (within " \
        f"0.5 s)"


def c_supply_silent(t: Table) -> tuple[bool, str]:
    power = t.ports["power"]
    opc = scpi_ask(power, ["OUTP OFF", "*OPC?"])
    outp = scpi_ask(power, ["OUTP?"])
    mark = t.ctl.mark()
    scpi(power, "OUTP ON")
    back = wait_power_lockout(t, mark)
    return opc is None, f"OUTP OFF, *OPC?: {opc!r}; OUTP?: {outp!r} (within 0.5 s each); OUTP ON: the controller " \
        f"back {back is not None}"


CHECKS: dict[str, Check] = {
    "card-event-swallowed-after-shoe-error": c_error_swallow,
    "card-n-restarts-on-shoe-reconnect": c_n_reconnect,
    "shoe-load-clears-round-cards": c_load_mid_round,
    "shoe-takes-lockout-press": c_shoe_press,
    "shoe-serial-sent-as-number": c_shoe_serial,
    "wager-list-readded-wager-last": c_readded_last,
    "royal9-refused-after-base-placed-again": c_base_again,
    "sensors-hello-slow-after-reconnect": c_hello_reconnect,
    "unlock-event-after-open-answer-after-void": c_unlock_after_void,
    "reboot-round-number-from-cold-start": c_reboot_round,
    "open-blocked-after-key-following-power-cycle": c_open_after_key,
    "live-flag-kept-across-power-cut": c_live_after_power,
    "banker-draw-reads-player-total": c_banker_total,
    "zero-commission-charged-five": c_zero_commission,
    "losing-tie-category-null": c_tie_category,
    "envy-skips-two-suit-combinations": c_envy_two_suits,
    "jackpot-payouts-after-fixed-lines": c_jackpot_order,
    "envy-hit-names-mega-meter": c_envy_meter,
    "null-capacity-taken-as-full": c_null_capacity,
    "cap-latched-after-limit-raised": c_cap_latch,
    "minor-capped-at-major-limit": c_minor_cap,
    "mega-reset-at-hit": c_mega_at_hit,
    "second-pending-category-from-first": c_pending_category,
    "seats-rewrite-drops-seventh-combination": c_seats_rewrite,
    "denomination-write-reloads-commission": c_denom_commission,
    "floors-stay-one-dollar-after-write-back": c_floors_back,
    "storage-write-protected-after-reboot": c_write_protect,
    "config-get-slow-after-write": c_config_get_slow,
    "event-seq-follows-request-seq": c_event_seq,
    "integral-float-accepted": c_float,
    "non-utf8-payload-accepted": c_non_utf8,
    "request-seq-65535-unanswered": c_seq_65535,
    "frame-complete-one-byte-early": c_one_byte_early,
    "counter-fetch-unarmed-answers-timeout": c_counter_unarmed,
    "supply-silent-while-output-off": c_supply_silent,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET15, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
