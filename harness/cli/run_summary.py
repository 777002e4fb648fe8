"""What ``tablecert run`` writes and reads besides the records: ``--json PATH`` (the run summary),
``--junitxml PATH`` (one JUnit file for every profile), ``--rerun-failed RUN`` (the cases a
record did not pass, as pytest's ``--lf`` takes them from its cache), colour on a terminal
(off with ``NO_COLOR``, https://no-color.org), and the seconds each applicable case took in the
previous record of the same profile (the time estimate's rate).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from harness.errors import InputError
from harness.verdict import Verdict

#: verdicts a ``--rerun-failed`` selects again: every case that did not pass and did apply
NOT_PASSED = (Verdict.FAIL, Verdict.ERROR, Verdict.TIMEOUT, Verdict.INTERRUPTED, Verdict.INCONCLUSIVE, Verdict.SKIP)

_COLOURS = {Verdict.PASS: "32", Verdict.PARTIAL: "36", Verdict.FAIL: "31", "INVALID": "31", Verdict.ERROR: "33",
            Verdict.INCOMPLETE: "33", Verdict.INTERRUPTED: "35", Verdict.NOT_RUN: "33", "BAD INPUT": "31",
            "ERROR or INCOMPLETE": "33"}


# -- colour ---------------------------------------------------------------------------------------

def colour_on(stream: TextIO) -> bool:
    """Colour when the stream is a terminal and ``NO_COLOR`` is unset or empty."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint(text: str, verdict: str, on: bool) -> str:
    """``text`` (already padded) in the verdict's colour when ``on``."""
    code = _COLOURS.get(verdict.strip())
    return f"\x1b[{code}m{text}\x1b[0m" if on and code else text


def pytest_colour(stream: TextIO) -> list[str]:
    """pytest's output reaches the terminal through a pipe: tell it whether to colour."""
    return ["--color=yes" if colour_on(stream) else "--color=no"]


# -- --rerun-failed -------------------------------------------------------------------------------

def run_folder(given: str, report_root: Path) -> Path:
    for path in (Path(given), report_root / given):
        if path.is_dir():
            return path.absolute()
    raise InputError(f"--rerun-failed {given}: no such run folder (give reports/<run-id>)")


def rerun_selection(run_dir: Path, root: Path) -> tuple[list[str], str | None]:
    """The ``FILE::CASE`` of every case ``run_dir``'s record did not pass, and the profile it ran
    (from the record's command line; None when it does not say)."""
    from harness.record import load_record

    try:
        record = load_record(run_dir)
    except (InputError, OSError) as exc:
        raise InputError(f"--rerun-failed {run_dir}: not a readable run record ({exc})") from None
    picked = []
    for case in record.cases:
        if case.verdict in NOT_PASSED:
            file = Path(case.suite_file)
            picked.append(f"{file if file.is_absolute() else root / file}::{case.case_id}")
    command = list(record.meta.command)
    profile = command[command.index("--tc-profile") + 1] if "--tc-profile" in command[:-1] else None
    if not picked:
        raise InputError(f"--rerun-failed {run_dir}: every case of this record passed or was NOT APPLICABLE; "
                         "nothing to run again")
    return picked, profile


# -- the previous record of the same profile ------------------------------------------------------

def previous_case_seconds(report_root: Path, run_name: str, before: str) -> float | None:
    """Seconds per applicable case in the newest record under ``report_root`` of the profile whose
    run ids are ``<stamp>-<run_name>`` and that started before ``before`` (a run id's time stamp), or
    None when there is none (or it ran no applicable case)."""
    if not report_root.is_dir():
        return None
    # a run id is STAMP-NAME, the stamp 16 characters (20250101T120000Z): the same NAME, an earlier stamp
    older = sorted((d for d in report_root.iterdir()
                    if d.is_dir() and d.name[16:17] == "-" and d.name[17:] == run_name and d.name[:16] < before[:16]),
                   reverse=True)
    for d in older[:5]:
        rate = record_case_seconds(d)
        if rate is not None:
            return rate
    return None


def record_case_seconds(run_dir: Path) -> float | None:
    """Seconds per applicable case of the record in ``run_dir`` (None: unreadable, or none ran);
    a resumed run's own earlier sittings give its rate."""
    from harness.record import load_record

    try:
        record = load_record(run_dir)
    except (InputError, OSError, ValueError):
        return None
    ran = [c for c in record.cases if c.verdict != Verdict.NOT_APPLICABLE]
    return sum(c.duration_ms for c in ran) / 1000 / len(ran) if ran else None


# -- --json and --junitxml ------------------------------------------------------------------------

def summary_json(runs: Sequence[Any], status: int, overall: str) -> dict[str, Any]:
    return {
        "schema": "tablecert/run-summary/1",
        "verdict": overall,
        "exit": status,
        "profiles": [{
            "name": pr.name,
            "profile": str(pr.path),
            "verdict": pr.verdict,
            "exit": pr.status,
            "seconds": round(pr.seconds, 1),
            "tally": dict(sorted(pr.tally.items())),
            "reasons": list(pr.reasons),
            "records": [str(d) for d in pr.dirs],
            "ran": pr.exit_code is not None,
        } for pr in runs],
    }


def write_json(path: str, runs: Sequence[Any], status: int, overall: str) -> None:
    _write(path, (json.dumps(summary_json(runs, status, overall), indent=2) + "\n").encode())


def write_outputs(args: Any, runs: Sequence[Any], status: int, overall: str) -> None:
    """``--json PATH`` and ``--junitxml PATH`` of a finished (or interrupted) run, where given."""
    if getattr(args, "json_path", None):
        write_json(args.json_path, runs, status, overall)
    if getattr(args, "junitxml", None):
        write_junit(args.junitxml, runs)


def check_outputs(args: Any) -> None:
    for flag, out in (("--junitxml", getattr(args, "junitxml", None)), ("--json", getattr(args, "json_path", None))):
        check_writable(flag, out)


def junit_all(runs: Sequence[Any]) -> bytes:
    """One ``<testsuites>`` holding every record's ``<testsuite>`` (harness.record.junit)."""
    import xml.etree.ElementTree as ET

    from harness.record import load_record
    from harness.record.junit import render_junit

    root = ET.Element("testsuites", name="tablecert run")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    for pr in runs:
        for d in pr.dirs:
            doc = ET.fromstring(render_junit(load_record(d), d))
            for suite in doc.iter("testsuite"):
                root.append(suite)
                for key in totals:
                    totals[key] += int(suite.get(key, "0"))
                seconds += float(suite.get("time", "0"))
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{seconds:.3f}")
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write_junit(path: str, runs: Sequence[Any]) -> None:
    _write(path, junit_all(runs))


def check_writable(flag: str, path: str | None) -> None:
    """Refuse before anything runs an output path that cannot be written (a folder, a missing parent)."""
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{flag} {path}: a folder; give a file name")
    if not p.absolute().parent.is_dir():
        raise InputError(f"{flag} {path}: no such folder {p.absolute().parent}")


def _write(path: str, data: bytes) -> None:
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)
