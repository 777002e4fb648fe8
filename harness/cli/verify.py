"""``tablecert verify RECORD``: has anything been edited since the run finished, and who signed it?

Prints ``OK`` with the record digest and verdict, or one line per problem (an edited verdict or
measurement, a changed transcript byte, a missing or extra evidence file, a missing journal or
manifest line, an incomplete record).  With ``--key PUB`` the record must also carry a signature
(``tablecert sign``) by that key over its current digest.  Without it, a signature present is
checked against the key it names (intact, but not proof of who signed) and shown.

Exit 0 when the record verifies, 1 when it does not (or the signature fails), 2 when the input is
not a readable record or key or ``--digest`` is not a digest, 3 when the run did not finish (an
incomplete record, nothing else wrong), 3 too when the output could not be written (a broken pipe:
the reader never saw the result; see :mod:`harness.exitcodes`).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from harness import exitcodes
from harness.cli.output import Out
from harness.errors import InputError

HELP = ("check a run record (journal, evidence, views) against itself, its digest and --key its signature: "
        "exit 0 verified, 1 listing each problem, 3 incomplete")
EXAMPLE = """\
tablecert verify reports/20250101T120000Z-1a2b3c
tablecert verify reports/20250101T120000Z-1a2b3c --digest 5d41...   # the digest printed in a signed report
tablecert verify reports/20250101T120000Z-1a2b3c --key keys/acme-lab.key.pub
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, help="run directory, its record.json or its journal.jsonl")
    parser.add_argument("--digest", default=None, metavar="HEX",
                        help="the record digest it must have (64 hex digits, from a signed report)")
    parser.add_argument("--key", type=Path, default=None, metavar="PUB",
                        help="the signing lab's public key: the record must carry its valid signature")


def digest_argument(text: str | None) -> str | None:
    """``--digest``: 64 hex digits (a SHA-256), else bad input (exit 2), never a mere mismatch."""
    if text is None:
        return None
    value = text.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", value):
        raise InputError(f"--digest {text[:80]!r}: a record digest is 64 hex digits (the SHA-256 printed in the "
                         "report, `tablecert verify RECORD` prints it too)")
    return value


def status_of(problems: list[str]) -> int:
    """1 when the record does not verify; 3 when the only problem is that the run did not finish."""
    from harness.record.verification import INCOMPLETE

    if problems and all(p.startswith(INCOMPLETE) for p in problems):
        return exitcodes.RIG_ERROR
    return exitcodes.FAIL if problems else exitcodes.PASS


def unchecked_entries(run_dir: Path) -> list[str]:
    """Top-level entries of the run folder that are neither the record nor a view ``verify``
    checks (a PDF print, a file someone put there): listed, so nobody takes them as verified."""
    from harness.record.views import known_entries

    known = known_entries()
    return sorted(p.name for p in run_dir.iterdir() if p.name not in known)


def folder_notes(run_dir: Path) -> list[str]:
    """What a reader should know of a record that verified: a folder renamed (a lab's report
    number: the run id inside the record is what the digest and the signature name), the schema
    it was verified by, views another build rendered."""
    import os

    from harness.record.journal import load_record
    from harness.record.model import SCHEMA
    from harness.record.views import views_note

    record = load_record(run_dir)
    notes = []
    folder = Path(os.path.realpath(run_dir)).name
    if folder != record.run_id:
        notes.append(f"the folder is named {folder[:80]!r}; it holds run {record.run_id} (the run id inside the "
                     "record is what its digest and signature name)")
    if record.schema != SCHEMA:
        notes.append(f"written as {record.schema} by tablecert {record.harness_version} (git "
                     f"{record.git_revision[:12]}), verified by that schema's rules")
    note = views_note(run_dir)
    if note:
        notes.append(note)
    return notes


def run(args: argparse.Namespace) -> int:
    from harness.record.digest import record_digest, run_dir_of
    from harness.record.journal import load_record
    from harness.record.signing import signature_info, signature_problems
    from harness.record.verification import verify

    expected = digest_argument(args.digest)
    public = None
    if args.key is not None:
        from harness.record.signing import load_public_key

        public = load_public_key(args.key)
    try:
        problems = verify(args.record, expected_digest=expected)
        run_dir = run_dir_of(args.record)
        verdict = load_record(run_dir).derived_verdict()[0]
        info = signature_info(run_dir)
        if public is not None:
            problems += signature_problems(run_dir, public)
        elif info is not None:
            problems += info["problems"]
        extra = unchecked_entries(run_dir)
    except OSError as exc:
        raise InputError(f"{args.record}: cannot read ({exc.strerror or exc})") from exc
    out = Out()  # `verify R | head -1` still ends with what verification found
    if problems:
        for problem in problems:
            out.print(f"{args.record}: {problem}")
        out.print(f"{args.record}: FAILED VERIFICATION ({len(problems)} problem(s)); verdict NOT VALID")
        return out.status(status_of(problems))
    out.print(f"OK {args.record}: digest {record_digest(run_dir)}, verdict {verdict}")
    for note in folder_notes(run_dir):
        out.print(f"{args.record}: {note}")
    if info is not None:
        how = "checked against the key given" if public is not None else "intact; give --key PUB to check whose key"
        out.print(f"signed by {info['signer']} at {info['signed_at']}, key {info['key_fingerprint']} ({how})")
    if expected is None and public is None:
        out.print(f"{args.record}: self-consistent only: unverified without --digest (the digest from a signed "
                  "report) or --key (the lab's public key); a consistent rewrite of the whole folder passes "
                  "this check")
    for name in extra:
        out.print(f"{args.record}: {name}: not part of the record, not checked")
    return out.status(exitcodes.PASS)
