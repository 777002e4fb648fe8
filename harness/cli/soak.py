"""``tablecert soak``: random rounds through the emulators, invariants checked every round.

``--observe`` soaks a real bench (or, with ``--bench-twin``, an emulated profile's bench twin):
nothing is loaded; the operator deals rounds from a shoe shuffled at the table, chips are placed from
a wager sheet (or only read off the sensors: ``--wagers observed``), and every invariant is checked on
what the devices report (:mod:`harness.soak.observe`).  ``--hours H`` runs for that long.

Exit 0 when no round broke an invariant, no hit frequency is implausible (p >= 0.001) and the
mystery awards (with a mystery progressive) do not reject the declared trigger law, 1
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
from decimal import Decimal, InvalidOperation
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
tablecert soak --profile device_profiles/emulated-midi-5-mystery.yaml --rounds 3000 --awards awards.json
tablecert soak --observe --profile my-bench.yaml --hours 8 --operator "J. Doe"    # a real bench, observed
tablecert soak --observe --bench-twin --profile device_profiles/emulated-midi-5.yaml --rounds 50
"""
BAR = 24


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", required=True, metavar="P",
                        help="device profile (an emulated one; with --observe, a bench)")
    parser.add_argument("--rounds", type=count(1, 100_000_000), default=None, metavar="N",
                        help="rounds to play (with --hours: whichever comes first)")
    parser.add_argument("--hours", default=None, metavar="H", help="play for this many hours (e.g. 8 or 0.5)")
    parser.add_argument("--observe", action="store_true",
                        help="observe only, on a bench: nothing is loaded; the operator deals from a shuffled shoe, "
                             "the cards read are judged")
    parser.add_argument("--wagers", choices=("sheet", "observed"), default="sheet",
                        help="with --observe: chips placed from a wager sheet (default), or only the wagers the "
                             "sensors report")
    parser.add_argument("--bench-twin", action="store_true",
                        help="with --observe: the emulated profile's bench twin (no test channel, a scripted operator)")
    parser.add_argument("--operator", default="", metavar="NAME", help="with --observe: who deals, for the prompts")
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
    parser.add_argument("--awards", metavar="FILE",
                        help="write the mystery awards to FILE (JSON, for expect_mystery_distribution from:)")


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


def _hours(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        hours = Decimal(text)
    except InvalidOperation:
        raise InputError(f"--hours {text!r}: expected hours such as 8 or 0.5") from None
    if not hours.is_finite() or hours <= 0:
        raise InputError(f"--hours {text}: must be more than 0")
    return hours


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


class ProgressBar:
    """Carriage-return progress on a stream: rounds, rounds/s, violations (throttled)."""

    def __init__(self, stream: TextIO, total: int, hours: Decimal | None = None) -> None:
        self.stream = stream
        self.total = total
        self.seconds = float(hours * 3600) if hours is not None else None
        self.tty = stream.isatty()
        self.every = 0.2 if self.tty else 5.0
        self.last = 0.0
        self.shown = False

    def __call__(self, res: object) -> None:
        from harness.soak.result import SoakResult

        assert isinstance(res, SoakResult)
        now = time.monotonic()
        if now - self.last < self.every and (not self.total or res.rounds < self.total):
            return
        self.last = now
        rate = res.rate
        done = res.rounds / self.total if self.total else 0.0
        eta = (self.total - res.rounds) / rate if rate > 0 and self.total else 0.0
        if self.seconds is not None:  # --hours: the time is the limit unless the rounds come first
            by_time = min(1.0, res.elapsed_s / self.seconds)
            if by_time > done:
                done, eta = by_time, max(0.0, self.seconds - res.elapsed_s)
        fill = int(done * BAR)
        of = f"/{self.total:,}" if self.total else ""
        line = (f"\rsoak [{'#' * fill}{'.' * (BAR - fill)}] {res.rounds:,}{of} rounds  "
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
    from harness.soak.result import iter_summary
    from harness.soak.run import SoakOptions, run_soak

    if not re.fullmatch(r"[0-9]+(?:\.[0-9]{1,3})?", str(args.pace_ms)):
        raise InputError(f"--pace-ms {args.pace_ms!r}: expected milliseconds in ASCII digits, such as 0 or 15")
    pace_us = int(Decimal(str(args.pace_ms)) * 1000)
    if pace_us < 0 or args.rss_every < 1:
        raise InputError("--pace-ms must not be negative and --rss-every must be at least 1")
    if args.defect:
        check_defects([args.defect])
    hours = _hours(args.hours)
    if args.rounds is None and hours is None:
        raise InputError("give --rounds N, --hours H or both")
    if (args.bench_twin or args.wagers != "sheet" or args.operator) and not args.observe:
        raise InputError("--bench-twin, --wagers and --operator go with --observe")
    seats = seats_arg(args.seats)
    profile = load_profile(args.profile)
    if args.bench_twin:
        from harness.bench.twin import bench_twin

        profile = bench_twin(profile)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    opts = SoakOptions(rounds=args.rounds or 0, seed=seed, seats=seats, listen=args.listen, pace_us=pace_us,
                       rss_every=args.rss_every, defect=args.defect, hours=hours, observe=args.observe,
                       wagers=args.wagers, operator=args.operator)
    bar = ProgressBar(sys.stderr, args.rounds or 0, hours)
    # a soak runs for a long while, often in the background: SIGTERM (and SIGINT, which a shell
    # ignores for background jobs) end it like Ctrl-C, so the rounds played are still summarised
    # and the emulator is stopped
    previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if args.observe:
            from harness.soak.observe import run_observe

            result = run_observe(profile, opts, bar)
        else:
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
    if args.awards:
        target = Path(args.awards)
        target.parent.mkdir(parents=True, exist_ok=True)
        observed = (result.mystery or {}).get("observations", [])
        target.write_text(json.dumps(observed, indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(doc, indent=2, default=str))
    else:
        for line in iter_summary(result):
            print(line)
    if result.interrupted:
        return 130
    return 0 if result.ok else 1
