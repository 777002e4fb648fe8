"""A link of 8 tables for 10,000 rounds in total, all at once: rounds per second, the link
controller's contribution latency, and exact conservation of every common meter at the end.

The link is the emulated one of a link profile (written here: eight $5 Midibaccarat tables, four
seats each, a common mega and a common major meter on one link controller, each table its own minor
meter), opened with :func:`harness.link.rig.open_link_rig`: the link controller and every table are
separate processes, the tables reach the controller over 127.0.0.1 (docs/protocol.md, section 12),
the host reaches every device through the reference drivers over ptys.  Each table is played by its
own host thread: open the round, a Banker and a Royal 9 wager at every seat, load a random round,
deal, wait for the settlement, pay any hit (a common meter's reset key on the link controller).

Printed:

* baseline: one table alone, the seven others idle (rounds/s, contribution round trip p50/p99);
* the link: 8 tables at once for 10,000 rounds (rounds/s, contribution round trip p50/p99 pooled from
  every table, ratios to the baseline), and the host's ``ping`` round trip to the link controller;
* conservation: for every common meter, growth + residual + held + diverted against every accepted
  Royal 9 wager times its table's rate less what the hits took, exactly; and the wagers counted per
  table against the wagers placed.  Exit 1 if either does not hold.

The contribution round trip is taken by each table's link side (``link.contribute`` sent to its
answer read), reported by the table controller's ``test.state`` as 101 quantiles.

Run: ``.venv/bin/python benchmarks/bench_link.py [--rounds 10000] [--tables 8]``  (one to two minutes)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import statistics
import sys
import threading
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.cards import shoe_composition  # noqa: E402
from harness.devices.link import NakError  # noqa: E402
from harness.devices.roles import Wager  # noqa: E402
from harness.games.baccarat import deal_round  # noqa: E402
from harness.link.rig import LinkRig, open_link_rig, scratch_dir  # noqa: E402
from harness.profiles import load_profile  # noqa: E402
from harness.soak.rig import bound_transcripts  # noqa: E402

COMBOS = [("KS", "9S"), ("KH", "9H"), ("KD", "9D"), ("KC", "9C")]
RATES = {"mega": "1.25", "major": "0.5"}
BASELINE_ROUNDS = 300


def link_yaml(tables: int) -> str:
    out = ["spec: tablecert/profile/1", f"name: bench-link-{tables}", "game: midibaccarat",
           "capabilities: [royal9, link, reset-key]", "link:",
           "  controller: {driver: reference-link-controller, port: emulator}", "  meters:",
           '    mega-5: {initial: "$50,000", reset: "$50,000", display_capacity: "$9,999,999.99"}',
           '    major-5: {initial: "$450", reset: "$450", display_capacity: "$999,999.99"}', "  tables:"]
    for i in range(1, tables + 1):
        out += [f"    - name: t{i}", "      devices:",
                "        shoe: {driver: reference-shoe, port: emulator}",
                "        sensors: {driver: reference-sensors, port: emulator}",
                "        controller: {driver: reference-controller, port: emulator}",
                "      rules:", "        denomination: 5", "        decks: 8", "        seats:"]
        out += [f"          - {{seat: {s}, combo: [{k}, {n}]}}" for s, (k, n) in enumerate(COMBOS, 1)]
        out += ["        meters:", f'          mega: {{link: mega-5, rate: "{RATES["mega"]}%"}}',
                f'          major: {{link: major-5, rate: "{RATES["major"]}%"}}',
                '          minor: {rate: "0.35%", initial: "$450", display_capacity: "$999,999.99"}']
    out += ['emulator: {lockout_latency_ms: "0.3", deal_pace_ms: "0"}', ""]
    return "\n".join(out)


class TablePlayer:
    """One table played by one host thread, its accepted Royal 9 wagers counted."""

    def __init__(self, rig: LinkRig, name: str, seed: int) -> None:
        t = rig.tables[name]
        self.name = name
        self.shoe: Any = t.rig.shoe
        self.sensors: Any = t.rig.sensors
        self.ctrl: Any = t.rig.controller
        self.link: Any = rig.link
        self.links = dict(t.table.links)
        self.rng = random.Random(seed)
        self.deck = [c.code for c, n in shoe_composition(8).items() for _ in range(n)]
        self.placed = 0
        self.rounds = 0

    def round(self) -> None:
        for _attempt in range(3):
            try:
                self.ctrl.open_round()
                break
            except NakError:
                self.pay()
        wagers = [Wager(s, k, 1000 if k == "banker" else 500) for s in range(1, len(COMBOS) + 1)
                  for k in ("banker", "royal9")]
        self.placed += sum(w.amount for w, r in zip(wagers, self.sensors.place_many(wagers), strict=True)
                           if w.type == "royal9" and r.accepted)
        cards = self.rng.sample(self.deck, 6)
        cards = cards[: deal_round([_card(c) for c in cards]).cards_used]
        self.shoe.load(cards)
        self.shoe.deal(pace_us=0)
        self.ctrl.wait_event("round_end", 5.0)
        events = self.ctrl.events(0.0) + self.shoe.events(0.0)
        if any(e.name == "hit" and e.payload.get("meter") for e in events):
            self.pay()
        self.rounds += 1

    def pay(self) -> None:
        """Pay every hit the table waits on (a common meter's key is the link controller's)."""
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            pending = self.ctrl.meters().pending
            if not pending:
                return
            for meter in pending:
                if meter in self.links:
                    with contextlib.suppress(NakError):
                        self.link.reset_key(self.links[meter])
                else:
                    self.ctrl.reset_key(meter)
            time.sleep(0.01)


def _card(code: str) -> Any:
    from harness.cards import parse_card

    return parse_card(code)


def play(players: list[TablePlayer], rounds_each: int) -> float:
    errors: list[BaseException] = []

    def run(p: TablePlayer) -> None:
        try:
            for _ in range(rounds_each):
                p.round()
        except BaseException as exc:  # reported after the others finish
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(p,), name=f"bench-{p.name}") for p in players]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise errors[0]
    return time.perf_counter() - t0


def rtt_quantiles(rig: LinkRig) -> tuple[list[int], int]:
    """Pooled contribution round-trip quantiles (µs) of every table, weighted by its count."""
    pooled: list[int] = []
    total = 0
    for t in rig.tables.values():
        state = t.rig.controller.test_state().get("link") or {}  # type: ignore[union-attr]
        n, qs = int(state.get("contributions", 0)), list(state.get("rtt_us") or [])
        total += n
        if qs:
            pooled += [q for q in qs for _ in range(max(1, n // 100))]
    return sorted(pooled), total


def pct(values: list[int], q: int) -> int:
    return values[min(len(values) - 1, len(values) * q // 100)] if values else 0


def drained(rig: LinkRig, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        links = [t.rig.controller.meters().raw.get("link") or {} for t in rig.tables.values()]  # type: ignore[union-attr]
        if all(x.get("up") and not x.get("outbox") for x in links):
            return
        time.sleep(0.05)
    raise SystemExit("the tables did not deliver their outboxes")


def total(reading: Any, meter: str) -> Fraction:
    raw = reading.raw
    return (Fraction(reading.meters[meter]) + Fraction(str(reading.residual.get(meter, 0)))
            + int((raw.get("held") or {}).get(meter, 0)) + int((raw.get("diverted") or {}).get(meter, 0)))


def conservation(rig: LinkRig, start: Any, players: list[TablePlayer], reset: dict[str, int]) -> bool:
    assert rig.link is not None
    drained(rig)
    now = rig.link.meters()
    pending = {p["meter"]: p["instant"] for p in now.raw.get("pending") or []}
    instants: dict[tuple[str, int], int] = {}
    for h in rig.link.hits():
        instants.setdefault((h.meter, h.instant), h.amount)
    start_instants = {(p["meter"], p["instant"]) for p in start.raw.get("pending") or []}
    ok = True
    wagered = sum(p.placed for p in players)
    for meter, common in (("mega", "mega-5"), ("major", "major-5")):
        fed = Fraction(wagered) * Fraction(RATES[meter]) / 100
        closed = [a for (m, i), a in instants.items() if m == common and pending.get(m) != i
                  and (m, i) not in start_instants]
        taken = sum(Fraction(a - reset[common]) for a in closed)
        got, want = total(now, common) - total(start, common), fed - taken
        ok &= got == want
        print(f"  {common:<8} grew {_d(got)} c; contributions {_d(fed)} c less {len(closed)} hit(s) "
              f"({_d(taken)} c over the reset amount) = {_d(want)} c: {'EXACT' if got == want else 'MISMATCH'}")
    counted0, counted1 = start.raw.get("counted") or {}, now.raw.get("counted") or {}
    for p in players:
        got_amount = int(counted1.get(p.name, {}).get("amount", 0)) - int(counted0.get(p.name, {}).get("amount", 0))
        if got_amount != p.placed:
            ok = False
            print(f"  table {p.name}: the controller counted {got_amount} c of Royal 9 wagers, {p.placed} c placed")
    print(f"  wagers counted per table = wagers placed: {'yes' if ok else 'NO'} "
          f"({sum(p.placed for p in players) // 500} Royal 9 wagers)")
    return ok


def _d(value: Fraction) -> str:
    return f"{Decimal(value.numerator) / Decimal(value.denominator):f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10_000, help="rounds in total (default 10,000)")
    parser.add_argument("--tables", type=int, default=8, help="tables on the link (2 to 8, default 8)")
    args = parser.parse_args()
    print(f"bench_link: {args.tables} tables, {args.rounds} rounds; {os.cpu_count()} CPU(s), "
          f"non-volatile storage in {'/dev/shm' if Path('/dev/shm').is_dir() else 'the temp folder'}, "
          f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    # the emulators' storage in memory where the host has a tmpfs, as the link rig keeps it (scratch_dir)
    tmp = scratch_dir()
    try:
        path = Path(tmp) / "bench-link.yaml"
        path.write_text(link_yaml(args.tables), encoding="utf-8")
        t0 = time.perf_counter()
        profile = load_profile(path)
        rig = open_link_rig(profile, listen="pty", run_dir=Path(tmp) / "run")
        bound_transcripts(rig, 2000)  # 10,000 rounds: keep only the latest exchanges in memory
        print(f"link up: 1 link controller and {args.tables} table processes in {time.perf_counter() - t0:.1f} s "
              "(profile checked against 461a.12(c)/(d) included)")
        try:
            assert rig.link is not None
            reset = {m.name: m.reset for m in profile.link.meters.values()} if profile.link else {}
            pings = []
            for _ in range(500):
                r = rig.link.ping()
                pings.append(r.t_reply_ns - r.t_sent_ns)
            start = rig.link.meters()
            players = [TablePlayer(rig, name, seed=i) for i, name in enumerate(rig.tables, 1)]
            base_s = play(players[:1], BASELINE_ROUNDS)
            base_q, base_n = rtt_quantiles(rig)
            base_rate = BASELINE_ROUNDS / base_s
            print(f"baseline, table t1 alone: {BASELINE_ROUNDS} rounds in {base_s:.1f} s = {base_rate:.1f} rounds/s; "
                  f"contribution round trip p50 {pct(base_q, 50)} µs, p99 {pct(base_q, 99)} µs "
                  f"({base_n} contributions)")
            each = args.rounds // len(players)
            wall = play(players, each)
            done = each * len(players)
            q, n = rtt_quantiles(rig)
            rate = done / wall
            print(f"link, {len(players)} tables at once: {done} rounds in {wall:.1f} s = {rate:.1f} rounds/s "
                  f"({rate / base_rate:.2f}x one table alone)")
            print(f"link controller contribution round trip, every table pooled ({n} contributions): "
                  f"p50 {pct(q, 50)} µs, p99 {pct(q, 99)} µs, max {q[-1] if q else 0} µs "
                  f"(p50 {pct(q, 50) / max(1, pct(base_q, 50)):.2f}x, p99 {pct(q, 99) / max(1, pct(base_q, 99)):.2f}x "
                  "one table alone)")
            print(f"host ping to the link controller: p50 {statistics.median(pings) / 1000:.0f} µs, "
                  f"p99 {pct(sorted(pings), 99) / 1000:.0f} µs")
            print("conservation over both phases:")
            ok = conservation(rig, start, players, reset)
        finally:
            rig.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("conservation: EXACT" if ok else "conservation: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
