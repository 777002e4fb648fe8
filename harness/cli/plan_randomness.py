"""``tablecert plan-randomness``: the observations each statistical battery needs, and the bench time.

For the profile's shuffler, shoe and (with a mystery progressive) mystery awards: the confidence
level and where it comes from, each declared defect, the observations each test needs to detect it
with the planned power, the battery's total and the hours at the bench's rate (the profile's
``randomness:`` section; docs/randomness.md).
"""

from __future__ import annotations

import argparse
import json

HELP = "Sample sizes and bench time for the statistical batteries (shuffler, shoe, mystery awards) of a profile."
EXAMPLE = """\
tablecert plan-randomness --profile device_profiles/emulated-midi-5-mystery.yaml
tablecert plan-randomness --profile device_profiles/hardware-example.yaml --json"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", required=True, metavar="P", help="device profile (YAML)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from harness.profiles.load import load_profile
    from harness.randomness.plan import profile_plans, render, to_json  # scipy: only when planning

    profile = load_profile(args.profile)
    plans = profile_plans(profile)
    if args.json:
        print(json.dumps(to_json(profile, plans), indent=2))
    else:
        print(render(profile, plans))
    return 0
