"""``tablecert bench check``: is this bench ready?  Devices, identities, jitter, counter, actuators.

See :mod:`harness.bench.check`: it opens every device and instrument, compares identities with the
profile, measures the host-stamp jitter, arms the counter and operates each actuator once while the
operator confirms what the table did; one table, no case run, no record.  Exit 0 when every row is
OK, 3 when any is not.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness import exitcodes
from harness.errors import InputError

HELP = "check a bench before a run: devices and identities, host-stamp jitter, counter, each actuator once"
EXAMPLE = """
tablecert bench check --profile my-bench.yaml --operator "J. Doe"
tablecert bench check --profile device_profiles/emulated-midi-5.yaml --bench-twin   # the emulated bench
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("check",), help="check: probe the bench and print one table")
    p.add_argument("--profile", required=True, metavar="P", help="the bench's device profile")
    p.add_argument("--bench-twin", action="store_true", help="check the emulated profile's bench twin")
    p.add_argument("--operator", default="", metavar="NAME", help="who confirms the actuators, for the table")


def run(args: argparse.Namespace) -> int:
    from harness.bench.check import check, table
    from harness.profiles import load_profile

    path = Path(args.profile)
    if not path.is_file():
        raise InputError(f"--profile {path}: no such file")
    profile = load_profile(path)
    if args.bench_twin:
        from harness.bench.twin import bench_twin

        profile = bench_twin(profile)
    rows = check(profile, operator=args.operator)
    print(table(rows))
    bad = sum(1 for r in rows if not r.ok)
    print(f"\nbench check: {'OK' if not bad else f'{bad} row(s) not OK'} ({profile.name})")
    return exitcodes.RIG_ERROR if bad else exitcodes.PASS
