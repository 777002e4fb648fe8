"""The run journal: the record written while the run goes, so a crash keeps every finished case.

``RunRecorder`` appends one JSON line per fact (header, input file hashes, profile snapshot,
interpretations, device identities, one line per *finished* case, and a finish line) to
``reports/<run-id>/journal.jsonl``; each line is written with a single ``write`` and ``fsync``'ed
before the call returns.  A run killed with SIGKILL therefore leaves a journal holding every case
whose ``end_case`` returned; :func:`load_record` reads it back as a record marked incomplete.
Evidence files are written (and fsync'ed) under ``evidence/`` as they are attached.

``finish`` writes the finish line, then the canonical ``record.json``, the digest manifest and the
views (HTML, JUnit XML, Allure results).  See docs/record.md for the API and the schema.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import __version__
from harness.errors import InputError
from harness.paths import safe_name
from harness.record import sittings
from harness.record.digest import (
    EVIDENCE_DIR,
    JOURNAL_FILE,
    canonical_json,
    sha256_file,
)
from harness.record.document import InputFile, Record
from harness.record.lock import RunLock
from harness.record.model import (
    SCHEMA,
    CaseResult,
    Evidence,
    Measurement,
    RecordedIdentity,
    RunMeta,
    StepResult,
    check_outcome,
    jsonable,
)
from harness.record.replay import load_journal, load_record  # the reader; importable from here too
from harness.record.verification import verify
from harness.record.views import render_views, write_record

__all__ = ["CaseRecorder", "RunRecorder", "load_journal", "load_record", "write_journal", "write_views"]

INPUT_KINDS = ("suite", "fixture", "profile")


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_run_id() -> str:
    """UTC time plus a random suffix: sortable, and unique across benches started the same second."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def _git(*args: str) -> str | None:
    """The output of ``git ARGS`` in the checkout holding the harness, or None outside one."""
    try:
        out = subprocess.run(
            ["git", *args],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def git_dirty() -> bool | None:
    """True when the checkout holding the harness has changes not committed (``git status``), so
    the revision alone does not say which code ran; None outside a checkout."""
    out = _git("status", "--porcelain", "--untracked-files=no")
    return None if out is None else bool(out.strip())


def git_revision() -> str:
    """``git rev-parse HEAD`` of the checkout holding the harness, or "unknown" outside one."""
    rev = (_git("rev-parse", "HEAD") or "").strip()
    return rev if re.fullmatch(r"[0-9a-f]{40,64}", rev) else "unknown"


def fsync_dir(path: Path) -> None:
    """Make a new directory entry durable (a power cut, not only a kill, keeps the file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class CaseRecorder:
    """Collects one case while it runs; nothing reaches the journal until ``RunRecorder.end_case``."""

    def __init__(
        self,
        run: RunRecorder,
        *,
        case_id: str,
        title: str,
        clauses: list[str],
        suite_file: str,
        params: Mapping[str, Any],
        evidence_dir: str,
    ) -> None:
        self._run = run
        self.case_id = case_id
        self.title = title
        self.clauses = list(clauses)
        self.suite_file = str(suite_file)
        self.params = jsonable(dict(params), f"case {case_id} params")
        self.steps: list[StepResult] = []
        self.measurements: list[Measurement] = []
        self.evidence: list[Evidence] = []
        self.timelines: dict[str, list[list[Any]]] = {}
        self.started_at = utc_now()
        self._t0 = time.perf_counter_ns()
        self._evidence_dir = evidence_dir
        self._names: set[str] = set()

    def step(
        self,
        index: int,
        text: str,
        yaml_line: int | None,
        outcome: str,
        detail: Mapping[str, Any] | None = None,
    ) -> StepResult:
        """Record one YAML step as it ran (call once per step, in order)."""
        step = StepResult(index, text, yaml_line, outcome, dict(detail or {}))
        self.steps.append(step)
        return step

    def measure(self, measurement: Measurement) -> Measurement:
        """Record one named check with its value, unit, limit, outcome and clause."""
        self.measurements.append(measurement)
        return measurement

    def attach(self, name: str, data: bytes | str | Path, kind: str = "transcript") -> Evidence:
        """Store ``data`` (bytes, text, or a file to copy) as an evidence file; return its hash."""
        if isinstance(data, Path):
            payload = data.read_bytes()
        elif isinstance(data, str):
            payload = data.encode("utf-8")
        else:
            payload = bytes(data)
        base = safe_name(name, "evidence")
        stem, dot, ext = base.rpartition(".")
        fname, n = base, 1
        while fname in self._names:
            n += 1
            fname = f"{stem}-{n}.{ext}" if dot and stem else f"{base}-{n}"
        self._names.add(fname)
        rel = f"{self._evidence_dir}/{fname}"
        path = self._run.run_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        fsync_dir(path.parent)
        ev = Evidence(path=rel, sha256=sha256_file(path), kind=kind, name=name, size=len(payload))
        self.evidence.append(ev)
        return ev

    def meter_timeline(self, meter: str, points: Iterable[tuple[Any, ...]]) -> None:
        """Add (t, cents) or (t, cents, mark) points of a meter: t an int (reading number or ms) or a
        decimal string, cents an int, mark the controller events since the previous point ("hit",
        "reset", "hit+reset")."""
        series = self.timelines.setdefault(meter, [])
        for point in points:
            t_ms, cents, *mark = point
            if isinstance(cents, bool) or not isinstance(cents, int):
                raise TypeError(f"meter {meter}: amount {cents!r} must be integer cents")
            if mark and not isinstance(mark[0], str):
                raise TypeError(f"meter {meter}: mark {mark[0]!r} must be text")
            series.append([jsonable(t_ms, f"meter {meter} time"), cents, *mark])


class RunRecorder:
    """Writes one run's record; see the module docstring and docs/record.md."""

    def __init__(self, run_dir: Path, meta: RunMeta, run_id: str) -> None:
        self.run_dir = run_dir
        self.run_id = run_id
        self.meta = meta
        self._lock = threading.Lock()
        self._fd: int | None = None
        #: the run folder's lock (harness.record.lock), released by :meth:`release`
        self.lock: RunLock | None = None
        self._case_ids: set[str] = set()
        self._evidence_dirs: set[str] = set()
        self.record = Record(
            run_id=run_id,
            started_at=utc_now(),
            meta=meta,
            harness_version=__version__,
            git_revision=git_revision(),
            git_dirty=git_dirty(),
        )

    @classmethod
    def create(cls, report_root: Path, meta: RunMeta) -> RunRecorder:
        """Make ``report_root/<run-id>/`` and write the journal header."""
        run_id = meta.run_id or new_run_id()
        if safe_name(run_id) != run_id:
            raise InputError(f"run id {run_id!r} may only use letters, digits, '.', '_' and '-'")
        run_dir = Path(report_root) / run_id
        Path(report_root).mkdir(parents=True, exist_ok=True)
        lock = RunLock.hold(run_dir)  # another writer of this folder: refused before anything is written
        try:
            if run_dir.exists():
                raise InputError(f"{run_dir}: a run folder of this id exists already; give another run id "
                                 "(or continue that run: tablecert run --resume)")
            run_dir.mkdir()
        except BaseException:
            lock.release()
            raise
        meta.run_id = run_id
        rec = cls(run_dir, meta, run_id)
        rec.lock = lock
        rec._fd = os.open(run_dir / JOURNAL_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        fsync_dir(run_dir)
        r = rec.record
        sittings.start(r, r.started_at, list(meta.command))
        rec._append(
            {
                "type": "header",
                "schema": SCHEMA,
                "run_id": run_id,
                "started_at": r.started_at,
                "harness": {"version": r.harness_version, "git_revision": r.git_revision, "git_dirty": r.git_dirty},
                "meta": meta.to_dict(),
            }
        )
        return rec

    def _append(self, entry: Mapping[str, Any]) -> None:
        line = canonical_json(entry) + b"\n"
        with self._lock:
            if self._fd is None:
                raise RuntimeError("the record is finished; nothing more can be added")
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view) :]
            os.fsync(self._fd)

    def add_input_file(self, path: Path | str, kind: str, *, name: str | None = None) -> InputFile:
        """Hash a suite, fixture or profile file into the record (under ``name``: the path as the
        record shows it, e.g. relative to the checkout; by default ``path``)."""
        if kind not in INPUT_KINDS:
            raise ValueError(f"input kind {kind!r} is not one of {', '.join(INPUT_KINDS)}")
        p = Path(path)
        try:
            item = InputFile(name or p.as_posix(), kind, sha256_file(p), p.stat().st_size)
        except OSError as exc:
            raise InputError(f"{p}: cannot read ({exc.strerror})") from exc
        self.record.inputs.append(item)
        self._append({"type": "input", **item.to_dict()})
        return item

    def set_profile_snapshot(self, profile: Mapping[str, Any]) -> None:
        self.record.profile = jsonable(dict(profile), "profile")
        self._append({"type": "profile", "profile": self.record.profile})

    def set_interpretations(self, interpretations: list[dict[str, Any]]) -> None:
        """The named interpretations in force: dicts with at least ``id`` and ``value``."""
        self.record.interpretations = jsonable(list(interpretations), "interpretations")
        self._append({"type": "interpretations", "interpretations": self.record.interpretations})

    def set_bench(self, bench: Mapping[str, Any]) -> None:
        """The bench the run used (harness.bench.session.BenchSession.summary)."""
        self.record.bench = jsonable(dict(bench), "bench")
        self._append({"type": "bench", "bench": self.record.bench})

    def set_contract(self, contract: Mapping[str, Any]) -> None:
        """The protocol contract section as it stands (versions negotiated, findings so far)."""
        self.record.contract = jsonable(dict(contract), "contract")
        self._append({"type": "contract", "contract": self.record.contract})

    def set_identity(self, when: str, role: str, identity: RecordedIdentity) -> None:
        """A device's 607a.2(b) identity read at the ``start`` or the ``end`` of the run."""
        if when not in ("start", "end"):
            raise ValueError(f"identity time {when!r} must be 'start' or 'end'")
        self.record.identities.setdefault(role, {})[when] = identity
        self._append({"type": "identity", "when": when, "role": role, "identity": identity.to_dict()})

    def begin_case(
        self, case_id: str, title: str, clauses: list[str], suite_file: str | Path, params: Mapping[str, Any]
    ) -> CaseRecorder:
        """Start recording a case; ``case_id`` must be unique in the run (put parameters in it)."""
        with self._lock:
            if case_id in self._case_ids:
                raise ValueError(f"case id {case_id!r} already recorded in this run; include its parameters")
            self._case_ids.add(case_id)
            base = f"{EVIDENCE_DIR}/{safe_name(case_id, 'case')}"
            ev_dir, n = base, 1
            while ev_dir in self._evidence_dirs:
                n += 1
                ev_dir = f"{base}-{n}"
            self._evidence_dirs.add(ev_dir)
        return CaseRecorder(
            self,
            case_id=case_id,
            title=title,
            clauses=clauses,
            suite_file=Path(suite_file).as_posix(),
            params=params,
            evidence_dir=ev_dir,
        )

    def end_case(
        self,
        case: CaseRecorder,
        verdict: str,
        message: str | None = None,
        reproduce: Mapping[str, Any] | None = None,
    ) -> CaseResult:
        """Close a case: its line is in the journal, on disk, when this returns."""
        check_outcome(verdict, f"case {case.case_id}")
        result = CaseResult(
            case_id=case.case_id,
            title=case.title,
            clauses=case.clauses,
            suite_file=case.suite_file,
            params=case.params,
            verdict=verdict,
            message=message,
            steps=list(case.steps),
            measurements=list(case.measurements),
            evidence=list(case.evidence),
            timelines={k: list(v) for k, v in case.timelines.items()},
            reproduce=jsonable(dict(reproduce), "reproduce") if reproduce is not None else None,
            started_at=case.started_at,
            finished_at=utc_now(),
            duration_ms=(time.perf_counter_ns() - case._t0) // 1_000_000,
            station=self.meta.station,
            source_run=self.run_id,
        )
        self._append({"type": "case", "case": result.to_dict()})
        self.record.cases.append(result)
        sittings.case_finished(self.record, result.case_id)
        return result

    def finish(self, *, interrupted: bool = False) -> Path:
        """Mark the record complete and write record.json, the digest and the views; return the run dir.

        ``interrupted``: the operator stopped the run (Ctrl-C); the record is whole for what ran, and
        its verdict is INTERRUPTED."""
        self.record.finished_at = utc_now()
        self.record.interrupted = interrupted
        entry: dict[str, Any] = {"type": "finish", "finished_at": self.record.finished_at}
        if interrupted:
            entry["interrupted"] = True
        self._append(entry)
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
        self.record.complete = True
        sittings.finished(self.record, self.record.finished_at, interrupted)
        write_views(self.run_dir, self.record)
        self.release()
        return self.run_dir

    def release(self) -> None:
        """Stop writing: close the journal, let go of the run folder's lock (another writer may come)."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    @classmethod
    def reopen(cls, run_dir: Path, record: Record) -> RunRecorder:
        """A recorder appending to the journal of an unfinished run (``record`` read from it), for its
        next sitting (:mod:`harness.record.resume`, which then calls :meth:`resume_sitting`)."""
        rec = cls(run_dir, record.meta, record.run_id)
        rec.record = record
        rec._fd = os.open(run_dir / JOURNAL_FILE, os.O_WRONLY | os.O_APPEND)
        return rec

    def resume_sitting(self, entry: Mapping[str, Any]) -> None:
        """Append the ``resume`` line that starts the next sitting and replay it here: the cases it
        runs again leave the record, the ids and evidence folders of the cases kept are taken."""
        self._append({"type": "resume", **entry})
        sittings.resumed(self.record, entry)
        with self._lock:
            self._case_ids = {c.case_id for c in self.record.cases}
            self._evidence_dirs = {"/".join(ev.path.split("/")[:2]) for c in self.record.cases for ev in c.evidence}



def write_journal(run_dir: Path, record: Record) -> None:
    """Write the complete journal of a record made in one go (a merged record), fact by fact as a
    run would have written it, so every record keeps a journal ``verify`` can hold it to."""
    entries: list[Mapping[str, Any]] = [{
        "type": "header", "schema": record.schema, "run_id": record.run_id, "started_at": record.started_at,
        "harness": {"version": record.harness_version, "git_revision": record.git_revision,
                    "git_dirty": record.git_dirty},
        "meta": record.meta.to_dict(),
    }]
    entries += [{"type": "input", **item.to_dict()} for item in record.inputs]
    entries.append({"type": "profile", "profile": record.profile})
    entries.append({"type": "interpretations", "interpretations": record.interpretations})
    for role, pair in sorted(record.identities.items()):
        for when, ident in sorted(pair.items()):
            entries.append({"type": "identity", "when": when, "role": role, "identity": ident.to_dict()})
    entries += [{"type": "case", "case": case.to_dict()} for case in record.cases]
    if record.merged_from:
        entries.append({"type": "merged", "merged_from": record.merged_from})
    entries.append({"type": "finish", "finished_at": record.finished_at or utc_now()})
    path = run_dir / JOURNAL_FILE
    with path.open("wb") as fh:
        fh.write(b"".join(canonical_json(e) + b"\n" for e in entries))
        fh.flush()
        os.fsync(fh.fileno())


def write_views(run_dir: Path, record: Record) -> str:
    """Write the record, its digest and all its views; return the digest.

    The fresh record is verified before rendering, so even the report written by the run itself can
    never show a record that does not verify as passing.
    """
    digest = write_record(run_dir, record)
    # rendered from the record as written (canonical JSON: keys sorted), exactly as verify renders it
    render_views(run_dir, load_record(run_dir), problems=verify(run_dir, views=False))
    return digest
