"""``tablecert diff RUN_A RUN_B``: the cases whose verdict or measurements changed between two runs
of the same product (a vendor's firmware 2.4.0 against 2.4.1, a bench before and after a repair).

A run is a record folder, or a run id looked up in the history index (``tablecert history``).  Both
records are verified first: a record that does not verify is not compared.  A case is listed when
its verdict or a measurement's outcome changed (``--values``: also a measurement's value).  Exit 0
when no case changed, 1 when some did (as diff(1)), 2 for bad input (no such run, a record that does
not verify).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness import exitcodes
from harness.cli.output import Out
from harness.errors import InputError

HELP = "the cases whose verdict or measurements changed between two runs (exit 1 when any did)"
EXAMPLE = """\
tablecert diff reports/20261201T090000Z-emulated-midi-5 reports/20261202T090000Z-emulated-midi-5
tablecert diff 20261201T090000Z-emulated-midi-5 20261202T090000Z-emulated-midi-5   # run ids, from the index
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from harness.cli.history import add_db_arguments

    parser.add_argument("run_a", metavar="RUN_A", help="the earlier run: a record folder or an indexed run id")
    parser.add_argument("run_b", metavar="RUN_B", help="the later run: a record folder or an indexed run id")
    add_db_arguments(parser)
    parser.add_argument("--values", action="store_true",
                        help="also list measurements whose value changed with the same outcome (host timings "
                             "differ from run to run)")


def _folder(run: str, args: argparse.Namespace) -> Path:
    path = Path(run)
    if path.exists():
        return path
    from harness.history.index import folder_of, open_index, url_for

    found = folder_of(open_index(url_for(args.reports, args.db)), run)
    if found is None:
        raise InputError(f"{run}: no such record folder, and no run of that id in the history index "
                         "(`tablecert history --rebuild` indexes the records under --reports)")
    return Path(found)


def run(args: argparse.Namespace) -> int:
    from harness.history.diff import diff_records
    from harness.record.digest import run_dir_of
    from harness.record.journal import load_record
    from harness.record.verification import verify

    records = []
    for given in (args.run_a, args.run_b):
        folder = run_dir_of(_folder(given, args))
        problems = verify(folder, views=False)
        if problems:
            raise InputError(f"{given}: the record does not verify ({problems[0]}): it is not compared")
        records.append(load_record(folder))
    d = diff_records(*records, values=args.values)
    out = Out()
    out.print(f"{d.a} -> {d.b}")
    for note in d.notes:
        out.print(f"  {note}")
    for change in d.changes:
        for line in change.lines():
            out.print(f"  {line}")
    out.print(f"{len(d.changes)} case(s) changed, {len(d.verdict_changes)} of them in verdict")
    return out.status(exitcodes.FAIL if d.changes else exitcodes.PASS)
