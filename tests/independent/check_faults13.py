"""Show each fault of the thirteenth set (indie_table/faults.py FAULTS_SET13) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults13.py [FAULT ...]

As check_faults12.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py.  For every fault the independent table is started twice on free 127.0.0.1
ports with a fresh state directory, once clean and once with `--fault NAME`, and one small scenario
speaks the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench supply and
the time-interval counter) to it.  Three scenarios turn the table into the $1 table first (the
denomination written to 100).  One line per fault: `shows` when the faulty table gives the faulty
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

from check_faults2 import NO_HIT, Check, Table, check_all, hits, payouts, scpi  # noqa: E402
from check_helpers import answers, major_hit, meter, one_dollar, r9_one_dollar, raw_frame, wager_list  # noqa: E402
from indie_table.faults import FAULTS_SET13  # noqa: E402

LATE_MS = 2.5  # a lock-out later than this on the counter is the fault's (the clean table: about 0.01 ms)
# player 2S 3C (5) draws the 7H (2); banker 4H 3D (7) stands on it and wins; the 4C stays in the shoe
BANKER7_STANDS = ["2S", "4H", "3C", "3D", "7H", "4C"]
MAJOR_SEAT6 = ["2C", "KH", "3S", "9D"]  # banker KH 9D (seat 6's combination), natural 9 against 5
# seat 1's KS 9S on the banker (major), seat 2's KH 9H on the player (minor): two payments in one round
MAJOR_AND_MINOR = ["KH", "KS", "9H", "9S"]


def _residuals(t: Table) -> dict[str, str]:
    return dict(t.meters()["residual"])


# ---------------------------------------------------------------- shoe
def c_empty_remaining(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    st = t.shoe.ok("shoe.status")
    return st.get("cards_remaining") != 0, f"two cards loaded and dealt: shoe.status {st}"


def c_same_rank(t: Table) -> tuple[bool, str]:
    cards = ["8C", "8D", "TH", "TS", "2C"]
    mark = t.shoe.mark()
    t.shoe.ok("test.load", cards=cards)
    t.shoe.ok("test.deal", count=len(cards), pace_us=0)
    t.shoe.wait(mark, lambda e: e.get("n") == len(cards))
    got = [e.get("card") for e in t.shoe.since(mark) if e["event"] == "card"]
    return got != cards, f"{cards} loaded and dealt: card events {got}"


def c_seq_wrap(t: Table) -> tuple[bool, str]:
    deck = [r + s for r in "A23456789TJQK" for s in "SHDC"]
    pack = (deck * 16)[:800]  # 800 cards a load: a payload under 4096 bytes (section 2)
    left = 65536
    while left:
        n = min(800, left)
        t.shoe.ok("test.load", cards=pack[:n])
        t.shoe.ok("test.deal", count=n, pace_us=0, deadline_s=10)
        left -= n
    end = time.monotonic() + 60
    while t.shoe.mark() < 65536 and time.monotonic() < end:
        time.sleep(0.05)
    with t.shoe.cv:
        seqs = [s for s, _ in t.shoe.events]
    around = seqs[65533:65537]
    return around != [65534, 65535, 1], f"65536 cards dealt: {len(seqs)} card events, the SEQs of the last three " \
        f"{around}"


# ---------------------------------------------------------------- sensors
def c_replace_reason(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(3, "player", 1000)
    ans = t.place(3, "player", 2500)
    return "reason" not in ans or ans["reason"] is not None, f"seat 3 a Player wager of 1000, placed again at " \
        f"2500: {ans}; wager.list {wager_list(t)}"


def c_refused_replace(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(3, "player", 1000)
    t.ctl.ok("round.no_more_bets")
    ans = t.place(3, "player", 5000)
    listed = wager_list(t)
    pay = [(p["stake"], p["returned"]) for p in payouts(t.deal(NO_HIT), 3, "player")]
    return listed != [(3, "player", 1000)], f"seat 3 a Player wager of 1000, no more bets, placed again at 5000: " \
        f"{ans}; wager.list {listed}; its payout (stake, returned) {pay}"


def c_zero(t: Table) -> tuple[bool, str]:
    t.open()
    ans = t.place(4, "banker", 0)
    return ans["accepted"], f"a Banker wager of 0 at seat 4: {ans}; wager.list {wager_list(t)}"


def c_r9_again(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(6)
    ans = t.place(6, "royal9", 500)
    return not ans["accepted"], f"seat 6 a Player and a $5 Royal 9 wager, the Royal 9 wager placed again at 500: " \
        f"{ans}; wager.list {wager_list(t)}"


# ---------------------------------------------------------------- controller: rounds and lock-out
def c_press_answer(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    ans = t.ctl.ok("lockout.press")
    got = t.ctl.ok("lockout.get")
    return ans.get("locked") is not True, f"round open, lockout.press: {ans}; lockout.get {got}"


def c_refused_open(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    mark = t.ctl.mark()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=2, pace_us=0)
    kind, ans = t.ctl.req("round.open")
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.ctl.wait(mark, lambda e: e["event"] == "round_end")
    got = [(e["type"], e["stake"]) for e in t.ctl.since(mark) if e["event"] == "payout"]
    return got != [("player", 1000), ("royal9", 500)], f"seat 2 a Player and a Royal 9 wager, two cards out, " \
        f"round.open {kind} {ans.get('code', '')}; the round's payouts {got}"


def c_void_again(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("round.settle")
    mark = t.ctl.mark()
    kind, ans = t.ctl.req("round.settle")
    time.sleep(0.05)
    ends = [e for e in t.ctl.since(mark) if e["event"] == "round_end"]
    return kind != "nak", f"round 1 voided, round.settle again: {kind} {ans}; round_end events after it {ends}"


def c_void_round(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    ans = t.ctl.ok("round.settle")
    return ans.get("round") != 1, f"round 1 open, round.settle with no card out: {ans}"


def c_nmb_slow(t: Table) -> tuple[bool, str]:
    best = 10.0
    for _ in range(3):
        t.open()
        t.r9(1)
        t0 = time.perf_counter()
        t.ctl.ok("round.no_more_bets")
        best = min(best, time.perf_counter() - t0)
        t.ctl.ok("round.settle")
    return best * 1000 > 100, f"a Royal 9 wager on the layout, round.no_more_bets answered in {best * 1000:.1f} ms " \
        f"(fastest of three)"


def c_line_late(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 2", "INIT", "*OPC?")
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reading = scpi(counter, "FETC?")
    ms = float(reading or "9.91E+37") * 1000
    lock = t.ctl.ok("lockout.get")
    return ms > LATE_MS, f"counter armed, round.open, a wager, the first card: counter {reading}; lockout.get {lock}"


def c_cause_restore(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(5, "player", 1000)
    t.ctl.ok("test.link", up=False)
    down = t.ctl.ok("lockout.get")
    t.ctl.ok("test.link", up=True)
    got = t.ctl.ok("lockout.get")
    return got != {"ok": True, "locked": True, "cause": "comm-lost"}, f"round open, the sensors link lost " \
        f"(lockout.get {down}) and back: lockout.get {got}"


# ---------------------------------------------------------------- settlement
def c_vig_seats(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "banker", 1000)
    t.place(2, "banker", 1000)
    events = t.deal(NO_HIT)
    got = [(p["seat"], p["returned"]) for p in events if p["event"] == "payout"]
    return got != [(1, 1950), (2, 1950)], f"Banker wagers of 1000 at seats 1 and 2, the banker wins: (seat, " \
        f"returned) {got}"


def c_king_index(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(6)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(MAJOR_SEAT6), 6)]
    return [c for c, _ in got] != ["major"], f"seat 6 (combination KH 9D), banker KH 9D: hits {got}"


def c_paid_by(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(2, "player", 1000)
    pay = payouts(t.deal(NO_HIT), 2, "player")
    return not pay or pay[0].get("paid_by") != "table", f"a losing Player wager at seat 2: payout {pay}"


def c_b7(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(BANKER7_STANDS), 1, "player")]
    return got != [("lose", 0)], f"player 2S 3C draws the 7H (2), banker 4H 3D (7, must stand): player payout {got}"


# ---------------------------------------------------------------- meters, payout meters, pending, reset key
def c_books_every(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    t.deal(MAJOR_AND_MINOR)
    pend = {p["meter"]: p["amount"] for p in t.meters()["pending"]}
    t.ctl.ok("reset_key", meter="major")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_attendant"])
    return got != (pend.get("major"), pend.get("major")), f"seat 1's major and seat 2's minor pending {pend}, the " \
        f"major's key: cumulative_paid, paid_by_attendant {got}"


def c_any_pending(t: Table) -> tuple[bool, str]:
    major_hit(t)
    before = meter(t, "minor")
    kind, ans = t.ctl.req("reset_key", meter="minor")
    after = meter(t, "minor")
    return kind != "nak", f"seat 2's major pending, the minor at {before} (nothing pending): reset_key minor " \
        f"{kind} {ans}; the minor then {after}"


def c_key_not_saved(t: Table) -> tuple[bool, str]:
    major_hit(t)
    ans = t.ctl.ok("reset_key", meter="major")
    t.power_cycle()
    m = t.meters()
    got = (m["meters"]["major"], m["pending"])
    return got != (45000, []), f"seat 2's major, its key ({ans}), a power cycle: major, pending {got}"


def c_sub_cent(t: Table) -> tuple[bool, str]:
    one_dollar(t)
    t.open()
    r9_one_dollar(t, 3)
    t.ctl.ok("lockout.press")
    before = _residuals(t)
    t.power_cycle()
    after = _residuals(t)
    return after != before, f"$1 table, one $1 Royal 9 wager, the button: residuals {before}; after a power " \
        f"cycle {after}"


def c_misread_contrib(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(4)
    t.shoe.ok("test.fault", kind="misread")
    mark = t.ctl.mark()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    lock = t.ctl.wait(mark, lambda e: e["event"] == "lockout")
    got = meter(t, "mega")
    return got != (5000006, "0.25"), f"seat 4's $5 Royal 9 wager, the first card misread (lockout {lock}): mega {got}"


def c_pending_seat(t: Table) -> tuple[bool, str]:
    major_hit(t)
    before = [(p["meter"], p["seat"]) for p in t.meters()["pending"]]
    t.power_cycle()
    after = [(p["meter"], p["seat"]) for p in t.meters()["pending"]]
    return after != [("major", 2)], f"seat 2's major pending {before}; after a power cycle {after}"


def c_diverted(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    t.open()
    t.r9(7)
    t.ctl.ok("lockout.press")
    m = t.meters()
    got = (m["meters"]["major"], m["residual"]["major"], m["diverted"]["major"])
    return got != (45001, "0.5", 1), f"the major's payout limit 45001, seat 7's $5 Royal 9 wager (+2.5 cents): " \
        f"major, residual, diverted {got}"


# ---------------------------------------------------------------- configuration
def c_key_order(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", meters={"major": {"initial": 1500000, "payout_limit": 2000000}})
    shown = ans.get("meters", {}).get("major", ans.get("reason"))
    return kind != "rsp", f"no round open, config.set major initial 1500000 and payout_limit 2000000 (in that " \
        f"order): {kind} {shown}"


def c_game(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", game="baccarat")
    return kind == "rsp", f"config.set game \"baccarat\": {kind} {ans.get('code', ans.get('game'))}"


def c_floors_old(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", denomination=100, meters={"major": {"initial": 9000, "reset": 9000}})
    shown = ans.get("reason") if kind == "nak" else (ans.get("denomination"), ans.get("meters", {}).get("major"))
    return kind != "rsp", f"config.set denomination 100 with the major's initial and reset 9000 ($90, the $1 " \
        f"floor): {kind} {shown}"


def c_minor_typo(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.set", denomination=100)
    shown = ans.get("reason") if kind == "nak" else ans.get("denomination")
    return kind != "rsp", f"meters at $50,000 / $450 / $450, config.set denomination 100: {kind} {shown}"


# ---------------------------------------------------------------- power, framing, sequence numbers
def c_seq_restart(t: Table) -> tuple[bool, str]:
    t.open()
    with t.ctl.cv:
        mark = len(t.ctl.events)
    t.power_cycle()
    t.open()
    t.ctl.wait(mark, lambda e: e["event"] == "lockout" and not e["locked"])
    with t.ctl.cv:
        got = [(s, p["event"], p.get("cause")) for s, p in t.ctl.events[mark:]]
    return [s for s, _, _ in got] != [1, 2], f"a round opened, a power cycle, a round opened: controller events " \
        f"(SEQ, event, cause) {got}"


def c_dup(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(raw_frame(4001, b'{"cmd":"ping","cmd":"ping"}'))
    got = answers(t, (4001,))
    return got.get(4001, ("none", {}))[0] != "nak", f"a request SEQ 4001 whose payload repeats a key: {got}"


def c_ver(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(raw_frame(4002, b'{"cmd":"ping"}', ver=2))
    got = answers(t, (4002,))
    return got.get(4002, ("none", {}))[0] != "nak", f"a request SEQ 4002 with VER 2, its CRC good: {got}"


def c_pipeline(t: Table) -> tuple[bool, str]:
    missing = []
    for seq in (4011, 4021, 4031):
        t.ctl.sock.sendall(raw_frame(seq, b'{"cmd":"ping"}') + raw_frame(seq + 1, b'{"cmd":"ping"}'))
        got = answers(t, (seq, seq + 1))
        missing += [s for s in (seq, seq + 1) if s not in got]
    return bool(missing), f"three times two ping requests in one write: no answer to SEQ {missing}"


def c_stall(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(b"\xa5\x5a" + struct.pack(">BBHH", 1, 0x01, 4006, 4000))  # a header, then silence
    time.sleep(0.8)
    kind, ans = t.ctl.req("ping", deadline_s=1.0)
    return kind != "rsp", f"a frame header announcing 4000 bytes, 800 ms of silence, then ping: {kind} {ans}"


def c_seq15(t: Table) -> tuple[bool, str]:
    t.ctl.seq = 39999
    kind, ans = t.ctl.req("ping", deadline_s=0.5)
    with t.ctl.cv:
        stray = {s: a for s, a in t.ctl.answers.items() if s == 40000 & 0x7FFF}
    return kind != "rsp", f"ping SEQ 40000: {kind} {ans}; answers by other SEQs {json.dumps(stray)}"


CHECKS: dict[str, Check] = {
    "shoe-status-empty-omits-remaining": c_empty_remaining,
    "same-rank-card-reported-with-last-suit": c_same_rank,
    "event-seq-wraps-through-zero": c_seq_wrap,
    "replace-answer-without-reason": c_replace_reason,
    "refused-replace-still-written": c_refused_replace,
    "zero-amount-accepted": c_zero,
    "royal9-placed-again-refused-bad-amount": c_r9_again,
    "lockout-press-answers-before-lock": c_press_answer,
    "refused-open-clears-layout": c_refused_open,
    "settle-after-void-voids-again": c_void_again,
    "void-answer-without-round": c_void_round,
    "nmb-answer-waits-for-contribution-write": c_nmb_slow,
    "lock-line-released-late": c_line_late,
    "lockout-get-cause-cleared-by-link-restore": c_cause_restore,
    "commission-accumulated-across-seats": c_vig_seats,
    "combinations-indexed-by-king": c_king_index,
    "lose-payout-omits-paid-by": c_paid_by,
    "banker-7-draws-on-third-6-or-7": c_b7,
    "reset-key-books-every-pending": c_books_every,
    "reset-key-checks-any-pending": c_any_pending,
    "key-reset-meter-not-saved": c_key_not_saved,
    "sub-cent-growth-not-saved": c_sub_cent,
    "misread-close-skips-contribution": c_misread_contrib,
    "pending-seat-lost-at-power-up": c_pending_seat,
    "meter-keys-checked-in-request-order": c_key_order,
    "game-write-ignored": c_game,
    "meter-floors-from-old-denomination": c_floors_old,
    "one-dollar-minor-floor-typo": c_minor_typo,
    "power-lockout-sent-before-seq-restart": c_seq_restart,
    "duplicate-key-accepted": c_dup,
    "frame-version-ignored": c_ver,
    "pipelined-second-request-dropped": c_pipeline,
    "stalled-partial-frame-kept": c_stall,
    "answer-seq-15-bits": c_seq15,
    "diverted-from-growth": c_diverted,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET13, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
