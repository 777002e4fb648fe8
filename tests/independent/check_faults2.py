"""Show each fault of the second set (indie_table/faults.py FAULTS_SET2) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults2.py [FAULT ...]

For every fault the independent table is started twice on free 127.0.0.1 ports with a fresh state
directory, once clean and once with `--fault NAME`, and one small scenario speaks the reference
protocol (docs/protocol.md sections 2-8: frames, requests, events; section 9: SCPI power and counter)
to it.  One line per fault: `shows` when the faulty table gives the faulty answer, `clean ok` when
the clean table does not.  Nothing from the harness is used; every wait has a deadline and each
table is stopped by its own pid.  Exit status 0 when every fault shows and every clean run is ok.
"""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from indie_table.faults import FAULTS_SET2  # noqa: E402

Msg = dict[str, Any]


# ---------------------------------------------------------------- the wire (docs/protocol.md section 2)
def crc16(data: bytes) -> int:
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


assert crc16(b"123456789") == 0x29B1


def frame(seq: int, payload: Msg) -> bytes:
    body = json.dumps(payload, separators=(",", ":")).encode()
    head = struct.pack(">BBHH", 1, 0x01, seq, len(body))
    return b"\xa5\x5a" + head + body + struct.pack(">H", crc16(head + body))


def take_frames(buf: bytes) -> tuple[list[tuple[int, int, int, Msg]], bytes]:
    """The whole frames with a good CRC at the front of ``buf`` (VER, TYPE, SEQ, payload), and the bytes left."""
    out: list[tuple[int, int, int, Msg]] = []
    while True:
        start = buf.find(b"\xa5\x5a")
        if start < 0 or len(buf) < start + 8:
            return out, buf
        buf = buf[start:]
        ver, ftype, seq, length = struct.unpack(">BBHH", buf[2:8])
        if len(buf) < 10 + length:
            return out, buf
        raw, buf = buf[: 10 + length], buf[10 + length:]
        if crc16(raw[2:-2]) == struct.unpack(">H", raw[-2:])[0]:
            out.append((ver, ftype, seq, json.loads(raw[8:-2])))


class Line:
    """A host's end of one device line: requests with deadlines, events kept with their SEQ."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=2)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.seq = 0
        self.cv = threading.Condition()
        self.answers: dict[int, tuple[str, Msg]] = {}
        self.events: list[tuple[int, Msg]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buf = b""
        self.sock.settimeout(None)
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            frames, buf = take_frames(buf + data)
            for _ver, ftype, seq, payload in frames:
                with self.cv:
                    if ftype == 0x04:
                        self.events.append((seq, payload))
                    else:
                        self.answers[seq] = ("rsp" if ftype == 0x02 else "nak", payload)
                    self.cv.notify_all()

    def req(self, cmd: str, deadline_s: float = 2.0, **args: Any) -> tuple[str, Msg]:
        self.seq = self.seq % 65535 + 1
        seq = self.seq
        self.sock.sendall(frame(seq, {"cmd": cmd, **args}))
        with self.cv:
            if not self.cv.wait_for(lambda: seq in self.answers, timeout=deadline_s):
                return ("timeout", {})
            return self.answers.pop(seq)

    def ok(self, cmd: str, **args: Any) -> Msg:
        kind, payload = self.req(cmd, **args)
        if kind != "rsp":
            raise RuntimeError(f"{cmd} {args}: {kind} {payload}")
        return payload

    def mark(self) -> int:
        with self.cv:
            return len(self.events)

    def since(self, mark: int) -> list[Msg]:
        with self.cv:
            return [p for _, p in self.events[mark:]]

    def wait(self, mark: int, pred: Callable[[Msg], bool], deadline_s: float = 1.0) -> Msg | None:
        end = time.monotonic() + deadline_s
        with self.cv:
            while True:
                for _, p in self.events[mark:]:
                    if pred(p):
                        return p
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)

    def close(self) -> None:
        self.sock.close()


def scpi(port: int, *lines: str) -> str | None:
    """Send SCPI lines; the answer to the last one when it is a query."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        for line in lines:
            sock.sendall(line.encode() + b"\n")
        if not lines[-1].endswith("?"):
            return None
        buf = b""
        while not buf.endswith(b"\n"):
            data = sock.recv(4096)
            if not data:
                break
            buf += data
        return buf.decode().strip()


# ---------------------------------------------------------------- the table under test
class Table:
    def __init__(self, fault: str | None) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="check-faults2-")
        ready = Path(self.tmp.name) / "ready"
        cmd = [sys.executable, "-m", "indie_table", "--state-dir", str(Path(self.tmp.name) / "nv"),
               "--ready-file", str(ready)]
        if fault:
            cmd += ["--fault", fault]
        self.proc = subprocess.Popen(cmd, cwd=HERE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 15
        while not ready.exists():
            if time.monotonic() > end or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("the table did not start")
            time.sleep(0.02)
        self.ports = {k: int(v) for k, v in (p.split("=") for p in ready.read_text().split())}
        self.shoe = Line(self.ports["shoe"])
        self.sens = Line(self.ports["sensors"])
        self.ctl = Line(self.ports["controller"])
        for line in (self.shoe, self.sens, self.ctl):
            line.ok("hello", version=1)

    def stop(self) -> None:
        for name in ("shoe", "sens", "ctl"):
            line = getattr(self, name, None)
            if line is not None:
                line.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.tmp.cleanup()

    # acts
    def open(self) -> None:
        self.ctl.ok("round.open")

    def place(self, seat: int, wtype: str, amount: int) -> Msg:
        return self.sens.ok("wager.place", seat=seat, type=wtype, amount=amount)

    def r9(self, seat: int, base: str = "player") -> None:
        """A base wager of $10 and the $5 Royal 9 wager at a seat."""
        assert self.place(seat, base, 1000)["accepted"]
        assert self.place(seat, "royal9", 500)["accepted"]

    def deal(self, cards: list[str]) -> list[Msg]:
        """Load and deal the cards at once; the controller's events up to round_end."""
        mark = self.ctl.mark()
        self.shoe.ok("test.load", cards=cards)
        self.shoe.ok("test.deal", count=len(cards), pace_us=0)
        self.ctl.wait(mark, lambda e: e["event"] == "round_end", 1.0)
        return self.ctl.since(mark)

    def power_cycle(self) -> None:
        mark = self.ctl.mark()
        scpi(self.ports["power"], "OUTP OFF", "*OPC?")
        time.sleep(0.1)
        scpi(self.ports["power"], "OUTP ON", "*OPC?")
        self.ctl.wait(mark, lambda e: e["event"] == "lockout" and e.get("cause") == "power", 1.0)

    def meters(self) -> Msg:
        return self.ctl.ok("meters.get")


def payouts(events: list[Msg], seat: int, wtype: str) -> list[Msg]:
    return [e for e in events if e["event"] == "payout" and e["seat"] == seat and e["type"] == wtype]


def hits(events: list[Msg], seat: int) -> list[Msg]:
    return [e for e in events if e["event"] == "hit" and e["seat"] == seat]


NO_HIT = ["2C", "3D", "4H", "4S"]  # player 6, banker 7: both stand, banker wins, no Royal 9
TIE = ["8C", "8D", "TH", "TS"]  # naturals 8 and 8: a tie
MAJOR_SEAT1 = ["2C", "KS", "3D", "9S"]  # banker KS 9S (seat 1's combination), natural 9


# ---------------------------------------------------------------- one scenario per fault
# Each returns (faulty, what was seen): faulty is True when the table answered as the fault does.
Check = Callable[[Table], tuple[bool, str]]


def c_card_n(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    mark = t.shoe.mark()
    t.shoe.ok("test.load", cards=["4H"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    card = t.shoe.wait(mark, lambda e: e["event"] == "card")
    st = t.shoe.ok("shoe.status")
    n = card["n"] if card else None
    return n != 1 or st["cards_dealt"] != 1, f"first card of the reloaded shoe n={n}, cards_dealt={st['cards_dealt']}"


def c_misread(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.fault", kind="misread")
    mark = t.ctl.mark()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    lock = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e["locked"], 0.5)
    late = t.place(2, "player", 1000)
    return lock is None or late["accepted"], f"lockout after a misread card: {lock}; wager after it: {late}"


def c_last_seat(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(7, "player", 1000)
    ans = t.place(7, "royal9", 500)
    return not ans["accepted"], f"seat 7 royal9 beside a player wager: {ans}"


def c_increase_nmb(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("round.no_more_bets")
    ans = t.place(1, "player", 5000)
    listed = t.sens.ok("wager.list")["wagers"]
    faulty = ans["accepted"] or listed[0]["amount"] != 1000
    return faulty, f"placed again at 5000 after no more bets: {ans}, list {listed}"


def c_nmb_order(t: Table) -> tuple[bool, str]:
    t.open()
    mark = t.ctl.mark()
    t.ctl.ok("round.no_more_bets")
    t.ctl.wait(mark, lambda e: e["event"] == "no_more_bets")
    t.ctl.wait(mark, lambda e: e["event"] == "lockout")
    order = [e["event"] for e in t.ctl.since(mark)]
    return order != ["no_more_bets", "lockout"], f"events {order}"


def c_old_denom(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    t.open()
    t.place(1, "player", 1000)
    ans = t.place(1, "royal9", 500)
    return ans["accepted"], f"after denomination 100, royal9 of 500: {ans}"


def c_base_removed(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    kind, ans = t.sens.req("wager.remove", seat=1, type="player")
    listed = t.sens.ok("wager.list")["wagers"]
    return kind == "rsp", f"remove seat 1 player under its royal9: {kind} {ans}; list {listed}"


def c_commission_push(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "banker", 1000)
    pay = payouts(t.deal(TIE), 1, "banker")
    returned = pay[0]["returned"] if pay else None
    return returned != 1000, f"banker 1000 on a tie: {pay}"


def c_tableau(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    # player 2+3=5 draws the 8 (total 3); banker A+2=3 must stand on a player's third card 8: a tie
    events = t.deal(["2S", "AH", "3C", "2D", "8S", "5H"])
    pay = payouts(events, 1, "player")
    cat = pay[0]["category"] if pay else None
    return cat != "push", f"player wager: {pay}"


def c_losing_r9(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    pay = payouts(t.deal(NO_HIT), 1, "royal9")
    return len(pay) != 1, f"losing royal9 payouts: {pay}"


def c_major_twice(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    pay = payouts(t.deal(MAJOR_SEAT1), 1, "royal9")
    return len(pay) != 1, f"{len(pay)} royal9 payouts for one major hit: {pay}"


def c_suited_tie(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    hit = hits(t.deal(["QH", "JD", "9H", "9D"]), 1)
    return [(h["category"], h["amount"]) for h in hit] != [("suited-royal9-tie", 150000)], f"hits {hit}"


def c_jack(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    events = t.deal(["2C", "JC", "3D", "9S"])
    hit, pay = hits(events, 1), payouts(events, 1, "royal9")
    return [h["category"] for h in hit] != ["royal9"], f"banker J+9: hits {hit}, payout {pay}"


def c_envy(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    hit = hits(t.deal(["KS", "KS", "9S", "9S"]), 2)
    return [(h["category"], h["amount"]) for h in hit] != [("mega-envy", 500000)], f"seat 2 on seat 1's KS 9S: {hit}"


def c_minor_amount(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    hit = hits(t.deal(["KH", "2C", "9H", "3D"]), 2)
    shown = t.meters()["meters"]
    amount = hit[0]["amount"] if hit else None
    return amount != shown["minor"], f"minor hit {hit}; meters {shown}"


def _one_contribution(t: Table, seat: int = 1) -> Msg:
    t.open()
    t.r9(seat)
    t.ctl.ok("lockout.press")
    return t.meters()


def c_minor_rate(t: Table) -> tuple[bool, str]:
    m = _one_contribution(t)
    got = (m["meters"]["minor"], m["residual"]["minor"])
    return got != (45001, "0.75"), f"minor after one $5 wager at 0.35%: {got} (45000 + 1.75)"


def c_seat7_twice(t: Table) -> tuple[bool, str]:
    m = _one_contribution(t, 7)
    got = (m["meters"]["mega"], m["residual"]["mega"])
    return got != (5000006, "0.25"), f"mega after one $5 wager at seat 7, 1.25%: {got} (5000000 + 6.25)"


def c_major_limit(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    m = _one_contribution(t)
    got = (m["meters"]["major"], m["diverted"]["major"])
    return got[0] > 45001, f"major (payout limit 45001) after +2.5: amount, diverted {got}"


def c_residual_power(t: Table) -> tuple[bool, str]:
    before = _one_contribution(t)["residual"]
    t.power_cycle()
    after = t.meters()["residual"]
    return after != before, f"residuals before {before}, after a power cycle {after}"


def c_tenth_round(t: Table) -> tuple[bool, str]:
    before = _one_contribution(t)["meters"]
    t.power_cycle()
    after = t.meters()["meters"]
    return after != before, f"meters before {before}, after a power cycle {after}"


def _major_hit_waiting(t: Table) -> list[Msg]:
    t.open()
    t.r9(1)
    return t.deal(MAJOR_SEAT1)


def c_reset_initial(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.deal(NO_HIT)  # major 45002.5
    t.ctl.ok("config.set", meters={"major": {"reset": 45001}})
    _major_hit_waiting(t)
    ans = t.ctl.ok("reset_key", meter="major")
    return ans["amount"] != 45001, f"reset amount 45001 written; reset_key answers {ans}"


def c_attendant(t: Table) -> tuple[bool, str]:
    _major_hit_waiting(t)
    t.ctl.ok("reset_key", meter="major")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_table"], m["paid_by_attendant"])
    return got[2] != got[0] or got[0] == 0, f"cumulative, by table, by attendant after the key: {got}"


def c_second_pending(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(2)
    t.deal(["KH", "KS", "9H", "9S"])  # seat 1: KS 9S on the banker (major); seat 2: KH 9H on the player (minor)
    pending = t.meters()["pending"]
    return sorted(p["meter"] for p in pending) != ["major", "minor"], f"pending {pending}"


def c_reset_write(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.deal(NO_HIT)
    before = t.meters()["meters"]["mega"]
    t.ctl.ok("config.set", meters={"mega": {"reset": 5000000}})
    after = t.meters()["meters"]["mega"]
    return after != before, f"mega {before} before writing its reset amount (5000000, unchanged), {after} after"


def c_commission_nv(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", commission="4")
    t.power_cycle()
    got = t.ctl.ok("config.get")["commission"]
    return got != "4", f"commission written 4, after a power cycle {got!r}"


def c_config_open(t: Table) -> tuple[bool, str]:
    t.open()
    kind, ans = t.ctl.req("config.set", commission="4")
    return kind == "rsp", f"config.set in an open round: {kind} {ans.get('code', '')} {ans.get('commission', '')}"


def c_identity(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    got = t.ctl.ok("identity").get("software_version")
    return not got, f"controller software_version after a power cycle: {got!r}"


def c_comm_locked(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("lockout.press")
    mark = t.ctl.mark()
    t.ctl.ok("test.link", up=False)
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e.get("cause") == "comm-lost", 0.5)
    return ev is None, f"link lost while locked by the button: {ev}"


def c_link_reopen(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("test.link", up=False)
    mega = t.meters()["meters"]["mega"]
    mark = t.ctl.mark()
    t.ctl.ok("test.link", up=True)
    t.ctl.wait(mark, lambda e: e["event"] == "lockout", 0.3)
    lock = t.ctl.ok("lockout.get")
    t.ctl.ok("lockout.press")
    mega2 = t.meters()["meters"]["mega"]
    return not lock["locked"] or mega2 != mega, (f"after the link is back: {lock}, events {t.ctl.since(mark)};"
                                                  f" mega {mega} -> {mega2} after the button")


def c_reboot(t: Table) -> tuple[bool, str]:
    mark = t.ctl.mark()
    t.ctl.ok("test.fault", kind="reboot", after_ms=0, duration_ms=200)
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout", 1.5)
    return ev is None, f"lockout event after the reboot: {ev}"


def c_seq(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.deal(NO_HIT)
    with t.ctl.cv:
        seqs = [s for s, _ in t.ctl.events]
    return seqs != list(range(1, len(seqs) + 1)), f"controller event SEQs {seqs}"


def c_late_after_void(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("round.settle")
    t.open()
    scpi(t.ports["counter"], "INIT", "*OPC?")
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    interval = float(scpi(t.ports["counter"], "FETC?") or "nan")
    return interval > 0.001, f"card out to lock-out in the round after a void: {interval * 1000:.3f} ms"


def c_slow_meters(t: Table) -> tuple[bool, str]:
    _major_hit_waiting(t)
    t0 = time.perf_counter()
    t.meters()
    ms = (time.perf_counter() - t0) * 1000
    return ms > 100, f"meters.get with a payment pending answered in {ms:.1f} ms"


CHECKS: dict[str, Check] = {
    "card-n-not-reset-on-reload": c_card_n,
    "misread-card-not-out": c_misread,
    "last-seat-royal9-no-base": c_last_seat,
    "wager-increase-after-no-more-bets": c_increase_nmb,
    "no-more-bets-event-after-lockout": c_nmb_order,
    "old-denomination-accepted": c_old_denom,
    "base-removed-under-royal9": c_base_removed,
    "banker-commission-on-push": c_commission_push,
    "tableau-banker-3-draws-on-8": c_tableau,
    "losing-royal9-payout-skipped": c_losing_r9,
    "major-hit-payout-twice": c_major_twice,
    "suited-tie-paid-as-tie": c_suited_tie,
    "royal9-jack-not-face": c_jack,
    "mega-envy-one-dollar-amount": c_envy,
    "minor-hit-shows-major-amount": c_minor_amount,
    "minor-rate-from-major": c_minor_rate,
    "last-seat-contributes-twice": c_seat7_twice,
    "major-payout-limit-ignored": c_major_limit,
    "residual-lost-at-power-up": c_residual_power,
    "meters-saved-every-tenth-round": c_tenth_round,
    "reset-key-restores-initial": c_reset_initial,
    "paid-by-attendant-not-booked": c_attendant,
    "second-meter-hit-not-pending": c_second_pending,
    "reset-write-turns-meter-back": c_reset_write,
    "commission-write-not-persisted": c_commission_nv,
    "config-write-open-round-accepted": c_config_open,
    "identity-version-lost-after-power-up": c_identity,
    "comm-lost-no-event-when-locked": c_comm_locked,
    "link-restore-reopens-wagering": c_link_reopen,
    "reboot-no-power-lockout": c_reboot,
    "event-seq-shared-across-lines": c_seq,
    "lockout-late-after-void": c_late_after_void,
    "meters-get-slow-with-pending": c_slow_meters,
}


def run(check: Check, fault: str | None) -> tuple[bool, str]:
    table = Table(fault)
    try:
        return check(table)
    except Exception as exc:  # a scenario that cannot finish is reported, never hidden
        return fault is None, f"scenario error: {exc!r}"  # counts as a failure either way
    finally:
        table.stop()


def check_all(checks: dict[str, Check], faults: Iterable[str], argv: list[str]) -> int:
    """Play each named check (every one by default) with the fault and clean; one line each.  A fault
    of ``faults`` without a check, or a name that is no check, is refused (exit 2)."""
    names = argv or list(checks)
    missing = (set(faults) - set(checks)) | (set(names) - set(checks))
    if missing:
        print(f"no check for {sorted(missing)}")
        return 2
    bad = 0
    for name in names:
        shows, seen = run(checks[name], name)
        faulty_clean, clean_seen = run(checks[name], None)
        ok = shows and not faulty_clean
        bad += not ok
        print(f"{name}: {'shows' if shows else 'DOES NOT SHOW'} ({seen}) / "
              f"{'clean ok' if not faulty_clean else 'CLEAN SHOWS IT'} ({clean_seen})", flush=True)
    print(f"{len(names) - bad} of {len(names)} faults show on the wire and not on the clean table")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET2, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
