"""``tablecert defects``: the named emulator defects, each breaking exactly one requirement.

Why: a harness that passes a non-compliant device is worse than none (issue 6).  The defects in
:data:`harness.emulators.defects.DEFECTS` are what the suites are proven against; this command
lists them (name, the clause it breaks, what goes wrong) so a lab can pick one for
``tablecert emulate --defect NAME`` or a profile's ``emulator.defect``.  ``--json`` prints the same
as a list of objects carrying every field of each defect, for scripts and CI.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from harness.errors import InputError

HELP = "List the emulator defects (name, clause it breaks, description) the suites must catch"
EXAMPLE = """\
tablecert defects                       # every defect, one per line
tablecert defects lockout-late rate-off # just these two
tablecert defects --json                # machine-readable list
tablecert emulate --defect lockout-late # then run the suites against it: some case must FAIL
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME", help="only these defects (default: all)")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")


def selected(names: list[str]) -> list[Any]:
    """The defects named (all when none), in registry order; an unknown name is bad input."""
    from harness.emulators.defects import DEFECTS, check_defects

    if not names:
        return list(DEFECTS.values())
    try:
        check_defects(names)
    except InputError:
        unknown = next(n for n in names if n not in DEFECTS)
        raise InputError(f"defect {unknown!r}: unknown; `tablecert defects` lists the "
                         f"{len(DEFECTS)} known ones") from None
    return [DEFECTS[n] for n in dict.fromkeys(names)]


def run(args: argparse.Namespace) -> int:
    defects = selected(list(args.names))
    if args.json:
        print(json.dumps([dataclasses.asdict(d) for d in defects], indent=2, ensure_ascii=False))
        return 0
    width_name = max((len(d.name) for d in defects), default=4)
    width_clause = max((len(d.clause) for d in defects), default=6)
    print(f"{'DEFECT':<{width_name}}  {'BREAKS':<{width_clause}}  DESCRIPTION")
    for d in defects:
        print(f"{d.name:<{width_name}}  {d.clause:<{width_clause}}  {d.description}")
    print(f"\n{len(defects)} defect(s); run one with: tablecert emulate --defect NAME")
    return 0
