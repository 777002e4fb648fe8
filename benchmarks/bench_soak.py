"""Soak rounds per second over a pty, against the same rounds played with no checks.

The soak (``tablecert soak``) plays each round through the rig a profile describes (the emulator
in its own process, the reference drivers over a pty) and checks every payout against the oracle,
every meter reading against the audit and tallies the hit frequencies.  The baseline, measured in
the same run on a fresh emulator, sends the same requests per round (open the round, seven seats
each a Banker wager and a Royal 9 wager, load and deal the cards, wait for ``round_end``, turn the
reset key after a meter hit, read the meters) and checks nothing.  The ratio shows what the checks
cost; the absolute figure says how long a 100,000-round soak takes on this machine.

Run: ``.venv/bin/python benchmarks/bench_soak.py [--rounds N] [--listen pty|tcp]``
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.cards import shoe_composition  # noqa: E402
from harness.profiles import load_profile  # noqa: E402
from harness.soak.run import SoakOptions, run_soak  # noqa: E402
from harness.suites.run.profile_rig import open_rig  # noqa: E402

PROFILE = ROOT / "device_profiles" / "emulated-midi-5.yaml"
STAKE = 500


def bare(rounds: int, listen: str, seed: int) -> float:
    """Rounds per second with the soak's requests and no checks."""
    profile = load_profile(PROFILE)
    seats = [s.seat for s in profile.rules.seats]
    deck = [c for c, n in shoe_composition(profile.rules.decks).items() for _ in range(n)]
    rng = random.Random(seed)
    rig = open_rig(profile, listen=listen)
    try:
        shoe, sensors, ctrl = rig.shoe, rig.sensors, rig.controller
        assert shoe is not None and sensors is not None and ctrl is not None
        ctrl.meters()
        t0 = time.perf_counter()
        for _ in range(rounds):
            shoe.events(0.0)
            ctrl.events(0.0)
            ctrl.open_round()
            for seat in seats:
                sensors.place(seat, "banker", STAKE)
                sensors.place(seat, "royal9", STAKE)
            shoe.load(rng.sample(deck, 6))
            shoe.deal(None, 0)
            hits: list[str] = []
            while True:
                got = ctrl.events(0.05)
                hits += [str(e.payload["meter"]) for e in got if e.name == "hit" and e.payload.get("meter")]
                if any(e.name == "round_end" for e in got):
                    break
            for meter in hits:
                ctrl.reset_key(meter)
            ctrl.meters()
        return rounds / (time.perf_counter() - t0)
    finally:
        rig.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--listen", choices=("pty", "tcp"), default="pty")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    print(f"machine: {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"Python {sys.version.split()[0]}")
    base = bare(args.rounds, args.listen, args.seed)
    print(f"baseline (same requests, no checks): {args.rounds} rounds over {args.listen} = {base:,.1f} rounds/s")
    res = run_soak(load_profile(PROFILE), SoakOptions(rounds=args.rounds, seed=args.seed, listen=args.listen))
    print(f"soak (oracle, meter audit, frequencies): {res.rounds} rounds over {args.listen} = "
          f"{res.rate:,.1f} rounds/s, {res.total_violations} violations, {res.payouts_checked:,} payouts checked")
    print(f"soak / baseline: {res.rate / base:.2f}x the unchecked rate")
    print(f"100,000 rounds at this rate: {100_000 / res.rate / 60:,.1f} min")


if __name__ == "__main__":
    main()
