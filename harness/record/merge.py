"""Merging the records of one product run on several benches into one certification record.

A lab may split a certification over benches (two shoes, two controllers of the same product).
The merged record is only meaningful if every source is trustworthy and describes the same
product, so merging refuses:

* a source that does not verify in full (edited, incomplete, missing evidence, a journal that is
  not a regular file, a view that is not what the record renders);
* an ``--out`` inside a source record (the merged files would break the source), or whose name is
  not a run id (the merged record's run id is its folder's name, as for every record);
* sources whose devices differ in a product field (manufacturer, model, software name, software
  version, program hash; 58 Pa. Code 607a.2(b)) for a role they share, naming the field; serial and
  location may differ, they are different units of one product;
* sources with no device role in common (nothing shows they are the same product), or with
  different jurisdictions or different interpretations in force.

Cases are the union of the sources' cases, each noting its bench (station) and source run; a case
id run on two benches keeps both results (the second as ``id@station``).  Evidence files are copied
under ``evidence/<source-run-id>/`` and re-hashed; the merged record gets its own digest.
"""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path
from typing import Any

from harness import __version__
from harness.errors import InputError
from harness.record.check import RUN_ID_RE
from harness.record.digest import EVIDENCE_DIR, record_digest, run_dir_of, sha256_file
from harness.record.document import InputFile, Record
from harness.record.journal import git_dirty, git_revision, load_record, utc_now, write_journal, write_views
from harness.record.model import PRODUCT_FIELDS, Evidence, RecordedIdentity
from harness.record.verification import verify


def _start_identities(record: Record) -> dict[str, RecordedIdentity]:
    out = {}
    for role, pair in record.identities.items():
        ident = pair.get("start") or pair.get("end")
        if ident is not None:
            out[role] = ident
    return out


def _met_no_device(record: Record) -> bool:
    """A record that never met the devices: no identity read, and no case that ran (a split run's worker
    whose share held only cases that do not apply to the profile).  It says nothing of the product."""
    return not _start_identities(record) and all(c.verdict == "NOT APPLICABLE" for c in record.cases)


def check_same_product(records: list[tuple[Path, Record]]) -> None:
    """Raise InputError naming the first field that shows two records are of different products."""
    with_ids = [(p, r) for p, r in records if not _met_no_device(r)]
    base_path, base = (with_ids or records)[0]
    base_ids = _start_identities(base)
    if not base_ids:
        raise InputError(f"{base_path}: the record holds no device identity; cannot confirm the product")
    for path, rec in records:
        if rec is base or _met_no_device(rec):
            continue
        ids = _start_identities(rec)
        common = sorted(set(base_ids) & set(ids))
        if not common:
            raise InputError(
                f"{path}: no device role in common with {base_path}"
                f" (roles {sorted(ids)} vs {sorted(base_ids)}); cannot confirm the same product"
            )
        for role in common:
            for field in base_ids[role].differences(ids[role], PRODUCT_FIELDS):
                raise InputError(
                    f"{path}: {role} {field} is {getattr(ids[role], field)!r}, not"
                    f" {getattr(base_ids[role], field)!r} as in {base_path}:"
                    " different products cannot be merged"
                )
        if rec.meta.jurisdiction != base.meta.jurisdiction:
            raise InputError(
                f"{path}: jurisdiction {rec.meta.jurisdiction!r} differs from"
                f" {base.meta.jurisdiction!r} in {base_path}"
            )
        if rec.interpretations != base.interpretations:
            a = {str(i.get("id")): i for i in base.interpretations}
            b = {str(i.get("id")): i for i in rec.interpretations}
            which = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            raise InputError(
                f"{path}: interpretations in force differ from {base_path}: {', '.join(which) or 'order'}"
            )


def merge_records(sources: list[Path], out_dir: Path) -> Path:
    """Merge verified records of one product into ``out_dir`` (created); return it."""
    if not sources:
        raise InputError("merge needs at least one record")
    loaded: list[tuple[Path, Path, Record]] = []
    seen_dirs: dict[str, Path] = {}
    seen_runs: dict[str, Path] = {}
    out_dir = Path(out_dir)
    for src in sources:
        run_dir = run_dir_of(Path(src))
        real = os.path.realpath(run_dir)
        if real in seen_dirs:
            raise InputError(f"{src}: the same record as {seen_dirs[real]}: merging a record with itself would "
                             "count its cases twice")
        seen_dirs[real] = Path(src)
        out_real = os.path.realpath(out_dir)
        if out_real == real:
            raise InputError(f"{out_dir}: --out is one of the records being merged")
        if out_real.startswith(real + os.sep):
            raise InputError(f"{out_dir}: --out is inside the record {src}: the merged record would add files to "
                             "a source record (and break its verification)")
        problems = verify(run_dir)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InputError(f"{src}: does not verify: {problems[0]}{more}")
        rec = load_record(run_dir)
        # a run, or a merged record's source runs, may appear once only
        for run_id in [rec.run_id, *(str(m.get("run_id")) for m in rec.merged_from)]:
            if run_id in seen_runs:
                raise InputError(f"{src}: run {run_id} is already in {seen_runs[run_id]}: its cases would be "
                                 "counted twice")
            seen_runs[run_id] = Path(src)
        loaded.append((Path(src), run_dir, rec))
    check_same_product([(p, r) for p, _, r in loaded])
    run_id = Path(os.path.realpath(out_dir)).name
    if not RUN_ID_RE.match(run_id):
        raise InputError(f"{out_dir}: --out names the merged record's folder, and a folder is named by its run "
                         "id: 1-80 of letters, digits, '.', '_' and '-', starting with a letter or digit")
    if out_dir.is_symlink() or (out_dir.exists() and not out_dir.is_dir()):
        raise InputError(f"{out_dir}: --out exists and is not a folder")
    if out_dir.exists() and any(out_dir.iterdir()):
        raise InputError(f"{out_dir}: exists and is not empty")
    out_dir.mkdir(parents=True, exist_ok=True)

    # the first record that met the devices gives the merged record its identities and profile
    first = next((r for _, _, r in loaded if not _met_no_device(r)), loaded[0][2])
    meta = copy.deepcopy(first.meta)
    meta.run_id = run_id
    stations = [r.meta.station or r.run_id for _, _, r in loaded]
    meta.station = ", ".join(dict.fromkeys(stations))
    merged = Record(
        run_id=meta.run_id,
        started_at=min(r.started_at for _, _, r in loaded),
        meta=meta,
        harness_version=__version__,
        git_revision=git_revision(),
        git_dirty=git_dirty(),
        finished_at=utc_now(),
        complete=True,
        profile=copy.deepcopy(first.profile),
        interpretations=copy.deepcopy(first.interpretations),
        identities=copy.deepcopy(first.identities),
    )
    seen_inputs: set[tuple[str, str]] = set()
    seen_ids: set[str] = set()
    for _, run_dir, rec in loaded:
        for item in rec.inputs:
            if (item.path, item.sha256) not in seen_inputs:
                seen_inputs.add((item.path, item.sha256))
                merged.inputs.append(InputFile(item.path, item.kind, item.sha256, item.size))
        station = rec.meta.station or rec.run_id
        for case in rec.cases:
            new = copy.deepcopy(case)
            new.station = case.station or station
            new.source_run = case.source_run or rec.run_id
            if new.case_id in seen_ids:
                new.case_id = f"{case.case_id}@{station}"
            seen_ids.add(new.case_id)
            new.evidence = [_copy_evidence(run_dir, out_dir, rec.run_id, ev) for ev in case.evidence]
            merged.cases.append(new)
        merged.merged_from.append(_source_entry(run_dir, rec))
    write_journal(out_dir, merged)
    write_views(out_dir, merged)
    return out_dir


def _copy_evidence(src_dir: Path, out_dir: Path, run_id: str, ev: Evidence) -> Evidence:
    rel = ev.path.removeprefix(EVIDENCE_DIR + "/")
    new_rel = f"{EVIDENCE_DIR}/{run_id}/{rel}"
    # the source was shape-checked (run id and evidence path confined) and verified; check again
    # here, where a file is written, that nothing leads out of either folder
    dest = out_dir / new_rel
    src = src_dir / ev.path
    if not (os.path.realpath(dest).startswith(os.path.realpath(out_dir) + os.sep)
            and os.path.realpath(src).startswith(os.path.realpath(src_dir) + os.sep)):
        raise InputError(f"{src_dir}: evidence path {ev.path!r} of run {run_id!r} leads outside its folder")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    digest = sha256_file(dest)
    if digest != ev.sha256:
        raise InputError(f"{src_dir / ev.path}: changed while merging")
    return Evidence(new_rel, digest, ev.kind, ev.name, ev.size)


def _source_entry(run_dir: Path, rec: Record) -> dict[str, Any]:
    return {
        "run_id": rec.run_id,
        "station": rec.meta.station,
        "lab": rec.meta.lab,
        "operator": rec.meta.operator,
        "profile_name": rec.meta.profile_name,
        "digest": record_digest(run_dir),
        "started_at": rec.started_at,
        "finished_at": rec.finished_at,
        "cases": len(rec.cases),
        "verdict": rec.derived_verdict()[0],
        "identities": {
            role: {when: ident.to_dict() for when, ident in sorted(pair.items())}
            for role, pair in sorted(rec.identities.items())
        },
        "profile": rec.profile,
        "sittings": [s.to_dict() for s in rec.sittings],
    }
