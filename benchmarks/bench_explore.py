"""Explorer operations per second: the model alone, and the model judging the emulator.

``tablecert explore`` (docs/explore.md) asks the model of the device contract for every permitted
outcome of each operation and compares every observable of the device with them.  The first figure
is the model alone on random legal operations (rounds with any cards, wagers, lock-outs, configuration
writes, power cycles, link cuts, shoe loads), each outcome's state taken in turn: how fast a rare
sequence (the 256th card, the 50th power cycle) is reached when the device is not the limit.  The
second is a whole exploration of the clean emulated profile through its drivers (Hypothesis choosing
the operations, every observable read and every event judged after each, each round's lock-out timed),
operations per second of wall time: with a new emulator for every sequence (the default, so that a
finding reproduces from the table as filed) and with one emulator going on (``--history``).

Run: ``.venv/bin/python benchmarks/bench_explore.py [--ops 200000] [--seconds 30] [--profile P]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.cards import shoe_composition  # noqa: E402
from harness.explore.draws import CONFIG_TEMPLATES  # noqa: E402
from harness.explore.explorer import Session, explore  # noqa: E402
from harness.explore.model import TableModel  # noqa: E402
from harness.explore.ops import (  # noqa: E402
    Comm,
    ConfigWrite,
    DealFirst,
    DealMisread,
    DealRest,
    LoadShoe,
    NoMoreBets,
    Op,
    OpenRound,
    PlaceWager,
    PowerCycle,
    PressLockout,
    Reboot,
    Reconnect,
    RemoveWager,
    ResetKey,
    VoidRound,
)
from harness.profiles import load_profile  # noqa: E402


def model_alone(profile_path: str, ops: int, seed: int) -> tuple[int, float]:
    profile = load_profile(profile_path)
    model = TableModel(profile)
    session = Session(profile)
    rng = random.Random(seed)
    shoe = [c.code for c, n in shoe_composition(profile.rules.decks).items() for _ in range(n)]
    seats = [*model.seats, max(model.seats) + 1]
    s = model.initial()
    played = 0
    t0 = time.perf_counter()
    while played < ops:
        roll = rng.random()
        op: Op
        if roll < 0.35:
            kind = rng.choice(model.types)
            op = PlaceWager(rng.choice(seats), kind, (s.denomination or 500) if kind == "royal9" else 500)
        elif roll < 0.45:
            op = OpenRound()
        elif roll < 0.55:
            op = DealRest() if s.phase == "dealing" else DealMisread() if roll > 0.54 else DealFirst()
        elif roll < 0.6:
            op = LoadShoe(tuple(rng.sample(shoe, rng.randint(6, 300))))
        elif roll < 0.65:
            op = RemoveWager(rng.choice(seats), rng.choice(model.types))
        elif roll < 0.7:
            op = PressLockout()
        elif roll < 0.75:
            op = NoMoreBets()
        elif roll < 0.8:
            op = ResetKey(rng.choice(["mega", "major", "minor"]))
        elif roll < 0.9:
            changes = session.draws.config_write(s, rng.choice(CONFIG_TEMPLATES))
            if changes is None:
                continue
            op = ConfigWrite(changes)
        elif roll < 0.93:
            op = PowerCycle() if roll < 0.92 else Reboot()
        elif roll < 0.96:
            op = VoidRound() if roll < 0.945 else Reconnect()
        else:
            op = Comm(not s.link_up)
        if not model.legal(s, op):
            continue
        outs = model.step(s, op)
        s = outs[played % len(outs)].state
        if s.round is None and s.phase == "open":
            s.round = 1
        played += 1
    session.close()
    return played, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=200_000, help="operations for the model alone")
    parser.add_argument("--seconds", type=float, default=30.0, help="exploration of the emulator, seconds")
    parser.add_argument("--profile", default="device_profiles/emulated-midi-5.yaml")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    n, secs = model_alone(args.profile, args.ops, args.seed)
    print(f"model alone: {n:,} operations in {secs:.2f} s = {n / secs:,.0f} operations/s")
    for fresh in (True, False):
        session = Session(load_profile(args.profile), steps=120, fresh=fresh)
        try:
            result = explore(session, seed=args.seed, budget_s=args.seconds)
        finally:
            session.close()
        st = result.stats
        mode = "a new emulator per sequence" if fresh else "one emulator going on (--history)"
        print(f"against the emulator ({args.profile}, {mode}): {st.ops:,} operations in {st.sequences} sequences, "
              f"{result.elapsed_s:.1f} s = {st.ops / result.elapsed_s:,.1f} operations/s "
              f"(device {st.device_s:.1f} s, model and judgement {st.model_s:.2f} s); "
              f"finding: {'none' if result.finding is None else result.finding}")
        covered = sum(1 for v in st.rules.values() if v)
        print(f"  rules covered {covered}/{len(st.to_dict()['rules'])}; (phase, operation) pairs {len(st.pairs)}; "
              f"rounds whose lock-out was timed {st.rules.get('lockout-latency', 0):,}")


if __name__ == "__main__":
    main()
