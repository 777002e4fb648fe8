"""``tablecert clean --keep N``: prune old run folders under the reports folder.

Every run folder (one holding a record or a journal) but the newest N, by the time its run started,
is deleted, and its row leaves the history index.  A signed record (``record.sig``) is never deleted
without ``--force``: it is what a lab put its name to.  ``--dry-run`` lists what would go.  Exit 0,
2 for bad input.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from harness import exitcodes
from harness.cli.numbers import count
from harness.cli.output import Out
from harness.errors import InputError

HELP = "delete all but the newest N run folders under the reports folder (signed records only with --force)"
EXAMPLE = """\
tablecert clean --keep 20 --dry-run     # what would be deleted
tablecert clean --keep 20               # keep the 20 newest runs (and every signed one)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from harness.cli.history import add_db_arguments

    parser.add_argument("--keep", type=count(0, 1_000_000), required=True, metavar="N",
                        help="how many of the newest runs to keep")
    parser.add_argument("--force", action="store_true", help="delete signed records too")
    parser.add_argument("--dry-run", action="store_true", help="list what would be deleted, delete nothing")
    add_db_arguments(parser)


def _started(folder: Path) -> str:
    from harness.record.journal import load_record

    try:
        return load_record(folder).started_at
    except (InputError, OSError, ValueError):
        return ""  # an unreadable record sorts as the oldest


def run(args: argparse.Namespace) -> int:
    from harness.history.index import forget, open_index, record_folders, url_for
    from harness.record.signing import SIGNATURE_FILE

    if not args.reports.is_dir():
        raise InputError(f"--reports {args.reports}: no such folder")
    folders = sorted((f for f in record_folders(args.reports) if f.parent == args.reports),
                     key=lambda f: (_started(f), f.name), reverse=True)
    out = Out()
    doomed, kept_signed = [], []
    for folder in folders[args.keep:]:
        if (folder / SIGNATURE_FILE).exists() and not args.force:
            kept_signed.append(folder)
        else:
            doomed.append(folder)
    for folder in kept_signed:
        out.print(f"kept {folder}: a signed record (--force deletes it)")
    engine = None if args.dry_run or not doomed else open_index(url_for(args.reports, args.db))
    for folder in doomed:
        out.print(f"{'would delete' if args.dry_run else 'deleted'} {folder}")
        if args.dry_run:
            continue
        shutil.rmtree(folder)
        if engine is not None:
            forget(engine, folder)
    out.print(f"{len(folders)} run(s): {len(doomed)} {'to delete' if args.dry_run else 'deleted'}, "
              f"{len(folders) - len(doomed)} kept")
    return out.status(exitcodes.PASS)
