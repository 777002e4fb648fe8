"""Continuing an interrupted or killed run from its journal: the record's side of ``tablecert run --resume``.

:class:`Resumption` reads the run folder's journal and decides, before anything is written, whether
the run can go on: it must be unfinished (killed) or interrupted, not merged, run by the same harness,
with the same profile snapshot and the same suite and stack files (by SHA-256), and every device must
still be the one the run started with (58 Pa. Code 607a.2(b) fields: a lab must not certify half a run
on one program and half on another).  :meth:`Resumption.begin` then starts the next sitting
(:mod:`harness.record.sittings`): it drops a journal line cut short by a kill, removes the interrupted
sitting's ``record.json`` and manifest (the journal holds everything; ``finish`` writes them again),
moves evidence no kept case names out of ``evidence/``, and appends the ``resume`` line.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness import __version__
from harness.errors import InputError
from harness.record import sittings
from harness.record.digest import EVIDENCE_DIR, JOURNAL_FILE, MANIFEST_FILE, RECORD_FILE, sha256_file
from harness.record.document import Record
from harness.record.journal import RunRecorder, fsync_dir, git_revision, utc_now
from harness.record.lock import RunLock
from harness.record.model import RecordedIdentity, jsonable
from harness.record.replay import CUT_LINE_NOTE, load_journal
from harness.record.signing import SIGNATURE_FILE


class IdentityChanged(Exception):
    """A device is not the one the run started with: the run is not resumed (exit 3)."""


class Resumption:
    """An unfinished run about to get its next sitting; nothing is written before :meth:`begin`."""

    def __init__(self, run_dir: Path | str) -> None:
        self.run_dir = Path(run_dir)
        journal = self.run_dir / JOURNAL_FILE
        if not journal.is_file():
            raise InputError(f"{self.run_dir}: no {JOURNAL_FILE} here (--resume takes a run folder under reports/)")
        self.record: Record = load_journal(journal)
        rec = self.record
        if rec.run_id != self.run_dir.name:
            raise InputError(f"{self.run_dir}: the journal here is of run {rec.run_id}; a run is resumed in its "
                             f"own folder (reports/{rec.run_id})")
        if rec.merged_from:
            raise InputError(f"{self.run_dir}: a merged record; resume the runs it was merged from")
        if rec.complete and not rec.interrupted:
            raise InputError(f"{self.run_dir}: run {rec.run_id} finished; there is nothing to resume")
        #: cases the next sitting runs again (INTERRUPTED, or SKIP: they did not finish)
        self.rerun = sittings.to_rerun(rec)
        #: cases finished in earlier sittings: the next sitting does not run them
        self.finished = {c.case_id for c in rec.cases} - set(self.rerun)
        #: where :meth:`begin` moved the signature of a signed record (it needs signing again)
        self.signature_set_aside: str | None = None

    @property
    def sitting(self) -> int:
        return len(self.record.sittings) + 1

    # ------------------------------------------------------------------ checks before any case
    def problems(self, profile: Mapping[str, Any], inputs: Iterable[tuple[str, str]], root: Path) -> list[str]:
        """Why the run cannot be continued with this profile snapshot and these (path, kind) input
        files (a relative path is under ``root``), each hashed now against the record; empty when it can."""
        rec = self.record
        out: list[str] = []
        if rec.harness_version != __version__ or rec.git_revision != git_revision():
            out.append(f"the run was started by tablecert {rec.harness_version} at revision {rec.git_revision}; "
                       f"this is {__version__} at {git_revision()} (finish the run with the harness it began with)")
        if jsonable(dict(profile), "profile") != rec.profile:
            out.append(f"the profile is not the one run {rec.run_id} started with (its snapshot differs)")
        recorded = {(i.path, i.kind): i.sha256 for i in rec.inputs}
        for path, kind in inputs:
            want = recorded.get((path, kind))
            if want is None:
                out.append(f"{kind} {path}: not an input of run {rec.run_id}")
                continue
            try:
                now = sha256_file(Path(path) if Path(path).is_absolute() else root / path)
            except OSError as exc:
                out.append(f"{kind} {path}: cannot read ({exc.strerror})")
                continue
            if now != want:
                out.append(f"{kind} {path}: changed since run {rec.run_id} started (SHA-256 {now[:12]}..., "
                           f"recorded {want[:12]}...)")
        return out

    def identity_changes(self, now: Mapping[str, RecordedIdentity]) -> list[str]:
        """Every role whose identity read now differs from the one read at the start of the run."""
        out = []
        for role, pair in sorted(self.record.identities.items()):
            first = pair.get("start")
            if first is None:
                continue
            seen = now.get(role)
            if seen is None:
                out.append(f"{role}: gave no identity now (the run started with {first.model or 'one'})")
                continue
            for name in first.differences(seen):
                out.append(f"{role}: {name} was {getattr(first, name)!r} at the start of the run, the device "
                           f"now says {getattr(seen, name)!r}")
        return out

    # ------------------------------------------------------------------ the next sitting
    def begin(self, command: list[str], identities: Mapping[str, RecordedIdentity]) -> RunRecorder:
        """Start the next sitting (see the module docstring); raises :class:`IdentityChanged`, having
        written nothing, when a device is not the one the run started with."""
        changes = self.identity_changes(identities)
        if changes:
            raise IdentityChanged("; ".join(changes))
        lock = RunLock.hold(self.run_dir)  # one writer: another resume of this run is refused here
        try:
            return self._begin(command, identities, lock)
        except BaseException:
            lock.release()
            raise

    def _begin(self, command: list[str], identities: Mapping[str, RecordedIdentity], lock: RunLock) -> RunRecorder:
        dropped = self._drop_cut_line()
        if dropped:  # the journal no longer holds the cut line: its resume line says what was dropped
            self.record.notes = [n for n in self.record.notes if n != CUT_LINE_NOTE]
        for name in (RECORD_FILE, MANIFEST_FILE):
            (self.run_dir / name).unlink(missing_ok=True)
        moved = self._set_aside()
        self.signature_set_aside = self._set_signature_aside()
        if self.signature_set_aside:
            moved.append(self.signature_set_aside)
        rec = RunRecorder.reopen(self.run_dir, self.record)
        rec.lock = lock
        rec.resume_sitting({
            "sitting": self.sitting, "started_at": utc_now(), "command": list(command), "rerun": list(self.rerun),
            "identities": {role: ident.to_dict() for role, ident in sorted(identities.items())},
            "set_aside": moved, **({"dropped_cut_line": dropped} if dropped else {}),
        })
        return rec

    def _set_signature_aside(self) -> str | None:
        """A signed interrupted record: its signature signs the record as it was, not the one this
        sitting makes; moved to ``set-aside/sitting-N/`` (the record needs signing again)."""
        path = self.run_dir / SIGNATURE_FILE
        if not path.exists():
            return None
        rel = Path(sittings.SET_ASIDE_DIR) / f"sitting-{self.sitting}" / SIGNATURE_FILE
        (self.run_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, self.run_dir / rel)
        fsync_dir(self.run_dir)
        return rel.as_posix()

    def _drop_cut_line(self) -> int:
        """A line the kill cut short would run into the next one: cut the journal back to its last
        whole line; returns the bytes dropped (0: none)."""
        path = self.run_dir / JOURNAL_FILE
        data = path.read_bytes()
        if not data or data.endswith(b"\n"):
            return 0
        keep = data.rfind(b"\n") + 1
        with path.open("r+b") as fh:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
        return len(data) - keep

    def _set_aside(self) -> list[str]:
        """Move every evidence file no kept case names to ``set-aside/sitting-N/``; returns the new paths."""
        kept = {ev.path for c in self.record.cases if c.case_id not in self.rerun for ev in c.evidence}
        root = self.run_dir / EVIDENCE_DIR
        moved: list[str] = []
        if not root.is_dir():
            return moved
        target = Path(sittings.SET_ASIDE_DIR) / f"sitting-{self.sitting}"
        for path in sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink()):
            rel = path.relative_to(self.run_dir).as_posix()
            if rel in kept:
                continue
            dest = self.run_dir / target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(path, dest)
            moved.append((target / rel).as_posix())
        for d in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
            if not any(d.iterdir()):
                d.rmdir()
        if moved:
            fsync_dir(self.run_dir)
        return moved

