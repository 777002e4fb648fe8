"""``tablecert stack``: build a shoe stack for a wanted result (issue "Shoe stack builder").

Prints a verified card sequence as suite-ready YAML and as a stacking sheet a technician follows
to load a real shoe (both by default; ``--yaml``, ``--sheet`` or ``--json`` for one).  Exit 0
with a stack; exit 2 when the stack cannot exist (the reason is printed), when the bounded search
stops first ("not found within N tries"), or on bad input.

Seat combinations (Royal 9 wants must not hit anybody's personal king-9 by accident) come from
``--seat-combos``, else ``--profile``, else ``device_profiles/emulated-midi-5.yaml`` when it
exists, else none.  ``--write-fixtures`` regenerates ``fixtures/stacks/*.yaml``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from harness.cli.numbers import MAX_SEED, count
from harness.errors import InputError

HELP = "Find a shoe stack that produces a wanted result; print it as suite YAML and a stacking sheet."
EXAMPLE = """\
tablecert stack --game baccarat --want "royal9:banker+banker"
tablecert stack --game baccarat --want "major:seat=3" --profile device_profiles/emulated-midi-5.yaml --sheet
tablecert stack --game ez-baccarat --want dragon7 --yaml
tablecert stack --game hit-and-run --want "dealer-cards=7" --decks 6 --hit-soft17 --json
tablecert stack --write-fixtures        # regenerate fixtures/stacks/*.yaml"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    from harness.stackbuilder import VOCABULARY

    p.add_argument("--game", choices=("baccarat", "ez-baccarat", "hit-and-run"), help="the game (required)")
    p.add_argument("--want", help="wanted result; combine with '+'. Valid: " + ", ".join(VOCABULARY))
    combos = p.add_mutually_exclusive_group()
    combos.add_argument("--seat-combos", default=None, help='Royal 9 seat combinations, e.g. "1=KS9S,2=KH9H"')
    combos.add_argument("--profile", default=None, help="device profile for seat combinations, decks and rules")
    p.add_argument("--decks", type=count(1, 8), default=None,
                   help="shoe decks (default: profile's, else 8; 6 for hit-and-run)")
    soft = p.add_mutually_exclusive_group()
    soft.add_argument("--hit-soft17", dest="hit_soft17", action="store_true", default=None,
                      help="dealer hits soft 17 (default, or the profile's rule)")
    soft.add_argument("--stand-soft17", dest="hit_soft17", action="store_false")
    p.add_argument("--seed", type=count(0, MAX_SEED), default=1, help="search seed (deterministic; default 1)")
    p.add_argument("--name", default=None, help="stack name for the stacks-file entry (default from the want)")
    p.add_argument("--max-tries", type=count(1, 100_000_000), default=200_000, help="search cap (default 200000)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--yaml", dest="format", action="store_const", const="yaml", help="only the YAML")
    fmt.add_argument("--sheet", dest="format", action="store_const", const="sheet", help="only the stacking sheet")
    fmt.add_argument("--json", dest="format", action="store_const", const="json", help="one JSON object")
    p.add_argument("--write-fixtures", action="store_true", help="regenerate fixtures/stacks/*.yaml and exit")


def _command(args: argparse.Namespace) -> str:
    parts = ["tablecert", "stack", "--game", args.game, "--want", args.want]
    for flag in ("seat_combos", "profile", "decks", "name"):
        value = getattr(args, flag)
        if value is not None:
            parts += ["--" + flag.replace("_", "-"), str(value)]
    if args.seed != 1:
        parts += ["--seed", str(args.seed)]
    return shlex.join(parts)


def run(args: argparse.Namespace) -> int:
    # imported when the command runs: `tablecert --help` does not pay for the stack search
    from harness.games.interpretations import DEFAULT
    from harness.stackbuilder import Impossible, NotFound, Stack, build_stack
    from harness.stackbuilder.fixtures import default_royal9_setup, profile_setup, write_fixtures
    from harness.stackbuilder.render import as_json, as_sheet, as_yaml

    if args.write_fixtures:
        for path in write_fixtures():
            print(f"wrote {path}")
        return 0
    if not args.game or not args.want:
        raise InputError("--game and --want are required (or --write-fixtures)")
    if args.name is not None and not args.name.replace("-", "").isalnum():
        raise InputError(f"--name {args.name!r}: use lower-case letters, digits and '-'")
    if args.seat_combos is not None:
        from harness.cli.deal import parse_seat_combos

        combos, decks, soft17, interp = parse_seat_combos(args.seat_combos), None, None, DEFAULT
    else:
        table = profile_setup(args.profile) if args.profile else default_royal9_setup()
        combos, decks, soft17, interp = table.seat_combos, table.decks, table.hit_soft17, table.interpretations
    if args.game == "hit-and-run" and not args.profile:
        decks = None  # the Royal 9 profile's baccarat shoe says nothing about a blackjack shoe
    hit_soft17 = args.hit_soft17 if args.hit_soft17 is not None else (True if soft17 is None else soft17)
    result = build_stack(
        args.game, args.want, decks=args.decks if args.decks is not None else decks, hit_soft17=hit_soft17,
        seat_combos=combos if args.game != "hit-and-run" else {}, interpretations=interp, seed=args.seed,
        name=args.name, max_tries=args.max_tries,
    )
    if isinstance(result, Stack):
        if args.format == "json":
            print(json.dumps(as_json(result), ensure_ascii=False, indent=2))
        elif args.format == "yaml":
            print(as_yaml(result, _command(args)), end="")
        elif args.format == "sheet":
            print(as_sheet(result), end="")
        else:
            print(as_sheet(result))
            print(as_yaml(result, _command(args)), end="")
        return 0
    status = "impossible" if isinstance(result, Impossible) else "not-found"
    if args.format == "json":
        out: dict[str, object] = {"status": status, "game": result.game, "want": result.want, "reason": result.reason}
        if isinstance(result, NotFound):
            out["tries"] = result.tries
        print(json.dumps(out, ensure_ascii=False, indent=2))
    label = "impossible" if isinstance(result, Impossible) else "not found"
    print(f"tablecert stack: {label}: {result.want}: {result.reason}", file=sys.stderr)
    return 2
