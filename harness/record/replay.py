"""Reading a run back from its journal (or its ``record.json``).

:func:`load_journal` replays ``journal.jsonl`` fact by fact, as :class:`~harness.record.journal.RunRecorder`
wrote it: a journal without a finish line is a record marked incomplete holding every finished case
(a run killed with SIGKILL); a ``resume`` line after the last line of a killed sitting, or after the
finish line of an interrupted one, starts the next sitting (:mod:`harness.record.sittings`).
:func:`load_record` reads a run directory: ``record.json`` when the run finished, else the journal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.errors import InputError
from harness.record import sittings
from harness.record.check import MAX_RECORD_BYTES, check_journal_entry, check_record_data, parse_json
from harness.record.digest import JOURNAL_FILE, RECORD_FILE, run_dir_of
from harness.record.document import InputFile, Record
from harness.record.model import SCHEMAS, CaseResult, RecordedIdentity, RunMeta
from harness.yamlload import read_input

#: the note of a journal whose last line a kill cut short
CUT_LINE_NOTE = "the journal's last line was cut short by the interruption and is ignored"


def load_journal(path: Path) -> Record:
    """Replay a journal; without a finish line the record is incomplete (and says so in ``notes``).

    Every line is checked for its shape before it is replayed (:mod:`harness.record.check`): a
    journal of the wrong shape is an :class:`InputError` naming the file and line.  After a finish
    line only a ``resume`` line may follow, and only when the finish line says the run was
    interrupted.
    """
    record: Record | None = None
    raw = read_input(path, limit=MAX_RECORD_BYTES, what="journal")
    lines = raw.split(b"\n")
    notes: list[str] = []
    if lines and lines[-1] != b"":
        notes.append(CUT_LINE_NOTE)
    finished_at: int | None = None
    for n, line in enumerate(lines[:-1], 1):
        entry = parse_json(line, str(path), n)
        check_journal_entry(entry, str(path), n)
        if finished_at is not None:
            if entry["type"] != "resume" or record is None or not record.interrupted:
                raise InputError(f"not a valid journal: an entry after the finish line (line {finished_at})",
                                 path=str(path), line=n)
            finished_at = None
        if entry["type"] == "header" and record is not None:
            raise InputError("not a valid journal: a second header", path=str(path), line=n)
        try:
            record = _replay(record, entry, path, n)
        except (KeyError, TypeError, ValueError, AttributeError, StopIteration) as exc:
            raise InputError(f"unreadable journal entry ({exc})", path=str(path), line=n) from exc
        if entry["type"] == "finish":
            finished_at = n
    if record is None:
        raise InputError("empty journal (the run was stopped before its header was written)", path=str(path))
    record.notes.extend(notes)
    return record


def _replay(record: Record | None, entry: Any, path: Path, n: int) -> Record:
    kind = entry.get("type")
    if record is None:
        if kind != "header" or entry.get("schema") not in SCHEMAS:
            raise InputError(f"not a tablecert journal of a schema this version reads ({', '.join(SCHEMAS)})",
                             path=str(path), line=n)
        record = Record(
            run_id=entry["run_id"],
            started_at=entry["started_at"],
            meta=RunMeta.from_dict(entry.get("meta") or {}),
            harness_version=entry["harness"]["version"],
            git_revision=entry["harness"]["git_revision"],
            git_dirty=entry["harness"].get("git_dirty"),
            schema=entry["schema"],
        )
        sittings.start(record, record.started_at, list(record.meta.command))
    elif kind == "input":
        record.inputs.append(InputFile(entry["path"], entry["kind"], entry["sha256"], entry["size"]))
    elif kind == "profile":
        record.profile = entry["profile"]
    elif kind == "interpretations":
        record.interpretations = entry["interpretations"]
    elif kind == "identity":
        ident = RecordedIdentity.from_dict(entry["identity"])
        record.identities.setdefault(entry["role"], {})[entry["when"]] = ident
    elif kind == "case":
        case = CaseResult.from_dict(entry["case"])
        record.cases.append(case)
        sittings.case_finished(record, case.case_id)
    elif kind == "merged":
        record.merged_from = list(entry["merged_from"])
        record.sittings = []  # a merged record's cases ran in its sources' sittings (merged_from)
    elif kind == "bench":
        record.bench = dict(entry["bench"])
    elif kind == "contract":
        record.contract = dict(entry["contract"])
    elif kind == "resume":
        sittings.resumed(record, entry)
    elif kind == "finish":
        record.finished_at = entry["finished_at"]
        record.complete = True
        record.interrupted = bool(entry.get("interrupted"))
        sittings.finished(record, record.finished_at, record.interrupted)
    else:
        raise InputError(f"unknown journal entry {kind!r}", path=str(path), line=n)
    return record


def load_record(target: Path | str) -> Record:
    """Load a run directory, its ``record.json`` or its ``journal.jsonl``.

    A directory is read from ``record.json`` when the run finished, else from the journal (an
    incomplete record holding every finished case; a resumed run's ``record.json`` is removed when
    its next sitting begins, and written again when that sitting finishes).
    """
    path = Path(target)
    run_dir = run_dir_of(path)
    if path.is_dir():
        path = run_dir / RECORD_FILE if (run_dir / RECORD_FILE).exists() else run_dir / JOURNAL_FILE
    if not path.exists():
        raise InputError(f"{run_dir}: no {RECORD_FILE} or {JOURNAL_FILE} here")
    if path.name == JOURNAL_FILE or path.suffix == ".jsonl":
        return load_journal(path)

    data = parse_json(read_input(path, limit=MAX_RECORD_BYTES, what="record"), str(path), 1)
    check_record_data(data, str(path))
    if data.get("schema") not in SCHEMAS:
        raise InputError(f"not a record of a schema this version reads ({', '.join(SCHEMAS)}): schema "
                         f"{str(data.get('schema'))[:40]!r}", path=str(path), line=1)
    try:
        return Record.from_dict(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a readable tablecert record: {exc}", path=str(path), line=1) from exc

