"""``tablecert history``: the runs a device had, under which firmware, with what verdict.

Every finished ``tablecert run`` is indexed (``reports/history.sqlite`` by default, or the database
``--db URL`` / ``$TABLECERT_HISTORY`` names, e.g. a lab's shared PostgreSQL server).  The records on
disk stay the source of truth: ``--rebuild`` indexes every record under ``--reports`` again.
Exit 0, 2 for bad input (an unreadable index URL, a server that does not answer).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness import exitcodes
from harness.cli.numbers import count
from harness.cli.output import Out

HELP = "list indexed runs by device, firmware or profile (--rebuild indexes every record again)"
EXAMPLE = """\
tablecert history                                   # the last 50 runs, newest first
tablecert history --device SN-0001 --firmware 2.4.1 # one device's runs under one firmware
tablecert history --rebuild --reports reports       # index every record under reports/ again
tablecert history --db postgresql+psycopg://lab@db.example/tablecert   # the lab's shared index
"""


def add_db_arguments(parser: argparse.ArgumentParser) -> None:
    """``--db`` and ``--reports``: which index (shared by history and diff)."""
    parser.add_argument("--reports", type=Path, default=Path("reports"), metavar="DIR",
                        help="the reports folder the default index sits in (default: reports)")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="database URL of the index (default: $TABLECERT_HISTORY, else "
                             "sqlite:///DIR/history.sqlite)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_db_arguments(parser)
    parser.add_argument("--device", default=None, metavar="ID", help="a device's serial, model or manufacturer")
    parser.add_argument("--firmware", default=None, metavar="VERSION", help="a software version or program hash")
    parser.add_argument("--profile", default=None, metavar="NAME", help="a profile name")
    parser.add_argument("--verdict", default=None, metavar="V", help="PASS, FAIL, PARTIAL, ERROR, ...")
    parser.add_argument("--limit", type=count(1, 100_000), default=50, metavar="N",
                        help="at most N runs (default 50)")
    parser.add_argument("--rebuild", action="store_true",
                        help="empty the index and index every record under --reports")


def run(args: argparse.Namespace) -> int:
    from harness.history.index import open_index, query, rebuild, url_for

    engine = open_index(url_for(args.reports, args.db))
    out = Out()
    if args.rebuild:
        count, problems = rebuild(engine, args.reports)
        for problem in problems:
            out.print(problem)
        out.print(f"indexed {count} finished record(s) under {args.reports}")
    found = query(engine, device=args.device, firmware=args.firmware, profile=args.profile, verdict=args.verdict,
                  limit=args.limit)
    out.print(f"{'run':<40} {'started':<21} {'profile':<24} {'verdict':<11} pass fail  err  n/a  firmware")
    for r in found:
        out.print(f"{r.run_id:<40} {r.started_at[:19]:<21} {r.profile[:24]:<24} {r.verdict:<11} "
                  f"{r.passed:>4} {r.failed:>4} {r.errors:>4} {r.not_applicable:>4}  {r.firmware}")
    out.print(f"{len(found)} run(s)")
    return out.status(exitcodes.PASS)
