"""``tablecert soak``: random rounds through the emulators, invariants checked every round.

Exit 0 when no round broke an invariant and no hit frequency is implausible (p >= 0.001), 1
otherwise (a rig error included), 2 for bad input, 130 when interrupted (the summary of the
rounds played is still printed).  The progress bar goes to stderr, the summary to stdout.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import signal
import sys
import time
from decimal import Decimal
from pathlib import Path
from types import FrameType
from typing import TextIO

from harness.cli.numbers import MAX_SEED, count, whole
from harness.errors import InputError

HELP = "deal random shoes through the emulators and check meters, payouts and hit frequencies every round"
EXAMPLE = """
tablecert soak --profile device_profiles/emulated-midi-5.yaml --rounds 100000
tablecert soak --profile device_profiles/emulated-midi-5-mystery.yaml --rounds 5000 --seats 1,2,3 --seed 7
tablecert soak --profile device_profiles/emulated-midi-5.yaml --rounds 2000 --defect residual-dropped --json
"""
BAR = 24


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", required=True, metavar="P", help="device profile (an emulated one)")
    parser.add_argument("--rounds", required=True, type=count(1, 100_000_000), metavar="N", help="rounds to play")
    parser.add_argument("--seed", type=count(0, MAX_SEED), metavar="S",
                        help="shoe seed (default: random, printed to replay)")
    parser.add_argument("--seats", default="all", metavar="all|1,2,3", help="wagering seats (default all)")
    parser.add_argument("--listen", choices=("pty", "tcp"), default="pty", help="how the emulator is reached")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--report", metavar="FILE", help="also write the JSON summary to FILE")
    parser.add_argument("--pace-ms", default="0", metavar="MS",
                        help="deal pace per card (default 0: each round dealt at once)")
    parser.add_argument("--rss-every", type=count(1, 1_000_000_000), default=1000, metavar="N",
                        help="sample RSS every N rounds")
    parser.add_argument("--defect", metavar="NAME", help="start the emulator with this defect (see tablecert defects)")


def seats_arg(text: str) -> tuple[int, ...] | None:
    """``all`` -> None (every seat), ``1,2,3`` -> (1, 2, 3)."""
    if text.strip().lower() == "all":
        return None
    try:
        seats = tuple(whole(part.strip(), "seat", 1, 9) for part in text.split(",") if part.strip())
    except InputError as exc:
        raise InputError(f"--seats {text!r}: expected 'all' or seat numbers such as 1,2,3 ({exc.message})") from None
    if not seats or len(set(seats)) != len(seats):
        raise InputError(f"--seats {text!r}: expected 'all' or distinct seat numbers such as 1,2,3")
    return seats


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


class ProgressBar:
    """Carriage-return progress on a stream: rounds, rounds/s, violations (throttled)."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream = stream
        self.total = total
        self.tty = stream.isatty()
        self.every = 0.2 if self.tty else 5.0
        self.last = 0.0
        self.shown = False

    def __call__(self, res: object) -> None:
        from harness.soak_result import SoakResult

        assert isinstance(res, SoakResult)
        now = time.monotonic()
        if now - self.last < self.every and res.rounds < self.total:
            return
        self.last = now
        done = res.rounds / self.total
        fill = int(done * BAR)
        rate = res.rate
        eta = (self.total - res.rounds) / rate if rate > 0 else 0.0
        line = (f"\rsoak [{'#' * fill}{'.' * (BAR - fill)}] {res.rounds:,}/{self.total:,} rounds  "
                f"{rate:,.1f} rounds/s  {res.total_violations} violations  eta {int(eta) // 60}:{int(eta) % 60:02d}")
        self.stream.write(line)
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def run(args: argparse.Namespace) -> int:
    from harness.emulators.defects import check_defects
    from harness.profiles import load_profile
    from harness.soak import SoakOptions, run_soak
    from harness.soak_result import iter_summary

    if not re.fullmatch(r"[0-9]+(?:\.[0-9]{1,3})?", str(args.pace_ms)):
        raise InputError(f"--pace-ms {args.pace_ms!r}: expected milliseconds in ASCII digits, such as 0 or 15")
    pace_us = int(Decimal(str(args.pace_ms)) * 1000)
    if pace_us < 0 or args.rss_every < 1:
        raise InputError("--pace-ms must not be negative and --rss-every must be at least 1")
    if args.defect:
        check_defects([args.defect])
    seats = seats_arg(args.seats)
    profile = load_profile(args.profile)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    opts = SoakOptions(rounds=args.rounds, seed=seed, seats=seats, listen=args.listen, pace_us=pace_us,
                       rss_every=args.rss_every, defect=args.defect)
    bar = ProgressBar(sys.stderr, args.rounds)
    # a soak runs for a long while, often in the background: SIGTERM (and SIGINT, which a shell
    # ignores for background jobs) end it like Ctrl-C, so the rounds played are still summarised
    # and the emulator is stopped
    previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        result = run_soak(profile, opts, bar)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        bar.close()
    doc = result.to_dict()
    if args.report:
        target = Path(args.report)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(doc, indent=2, default=str))
    else:
        for line in iter_summary(result):
            print(line)
    if result.interrupted:
        return 130
    return 0 if result.ok else 1
