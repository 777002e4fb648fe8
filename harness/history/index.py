"""The run index: one row per finished record and one per device of it, in SQLite or PostgreSQL.

Written through SQLAlchemy Core, so the same statements run on the embedded default
(``sqlite:///reports/history.sqlite``) and on a lab's shared server
(``postgresql+psycopg://user@host/db``).  Rows are replaced, never updated in place: indexing a
record again (a resumed run finished, a folder re-indexed by ``--rebuild``) gives the same rows.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from harness.errors import InputError
from harness.record.digest import record_digest
from harness.record.journal import load_record
from harness.verdict import Verdict

#: the environment variable that points every bench at one index (a database URL)
ENV = "TABLECERT_HISTORY"
DEFAULT_FILE = "history.sqlite"

#: the run row's counts of the record's cases, each a column of ``tablecert_runs``
COUNTS = ("passed", "failed", "errors", "not_applicable", "cases")
#: what a device row keeps of the identity the device answered (docs/protocol.md section 6.1): each a
#: column of ``tablecert_devices`` and a field of the recorded identity, by the same name
DEVICE_FIELDS = ("manufacturer", "model", "serial", "software_name", "software_version", "program_hash")

metadata = sa.MetaData()
runs = sa.Table(
    "tablecert_runs", metadata,
    sa.Column("run_id", sa.String(200), primary_key=True),
    sa.Column("folder", sa.Text, nullable=False),
    sa.Column("profile", sa.String(200), nullable=False),
    sa.Column("game", sa.String(100), nullable=False),
    sa.Column("jurisdiction", sa.String(100), nullable=False),
    sa.Column("verdict", sa.String(20), nullable=False),
    sa.Column("started_at", sa.String(40), nullable=False),
    sa.Column("finished_at", sa.String(40), nullable=False),
    sa.Column("digest", sa.String(64), nullable=False),
    sa.Column("schema", sa.String(60), nullable=False),
    sa.Column("harness", sa.String(120), nullable=False),
    *(sa.Column(name, sa.Integer, nullable=False) for name in COUNTS),
    sa.Index("ix_tablecert_runs_started", "started_at"),
    sa.Index("ix_tablecert_runs_profile", "profile"),
)
devices = sa.Table(
    "tablecert_devices", metadata,
    sa.Column("run_id", sa.String(200), sa.ForeignKey("tablecert_runs.run_id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("role", sa.String(60), primary_key=True),
    *(sa.Column(name, sa.String(200), nullable=False) for name in DEVICE_FIELDS),
    sa.Index("ix_tablecert_devices_serial", "serial"),
    sa.Index("ix_tablecert_devices_version", "software_version"),
)


def url_for(reports: Path, db: str | None = None) -> str:
    """The index to use: ``db`` (``--db``), else ``$TABLECERT_HISTORY``, else the SQLite file beside
    the reports."""
    chosen = db or os.environ.get(ENV)
    return chosen if chosen else f"sqlite:///{(Path(reports).absolute() / DEFAULT_FILE).as_posix()}"


def open_index(url: str) -> sa.Engine:
    """The index at ``url``, its tables made if missing.  A URL no driver takes, or a server that
    does not answer within 10 s, is bad input (exit 2) with the reason."""
    try:
        args = {"connect_timeout": 10} if url.startswith("postgresql") else {}
        engine = sa.create_engine(url, connect_args=args)
        if url.startswith("sqlite:///"):
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        metadata.create_all(engine)
    except (sa.exc.SQLAlchemyError, ImportError, ValueError, OSError) as exc:
        raise InputError(f"history index {_safe(url)}: {str(exc).splitlines()[0][:200]}") from None
    return engine


def _safe(url: str) -> str:
    """A URL as it may be printed: without its password."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except (sa.exc.ArgumentError, ValueError):
        return "(an unreadable URL)"


@dataclass(frozen=True)
class Indexed:
    run_id: str
    folder: str
    profile: str
    verdict: str
    started_at: str
    passed: int
    failed: int
    errors: int
    not_applicable: int
    digest: str
    firmware: str  # "role version" of each device, as read at the start of the run


#: the fields of :class:`Indexed` read from the run row as they stand (``firmware`` is gathered from its devices)
INDEXED_COLUMNS = tuple(f.name for f in fields(Indexed) if f.name != "firmware")


def rows_of(run_dir: Path) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The run row and device rows of a finished record, or None (not finished: nothing to index)."""
    record = load_record(run_dir)
    if not record.complete:
        return None
    counts = record.counts()
    run = {
        "run_id": record.run_id, "folder": str(Path(run_dir).absolute()), "profile": record.meta.profile_name,
        "game": record.meta.game, "jurisdiction": record.meta.jurisdiction,
        "verdict": record.derived_verdict()[0], "started_at": record.started_at,
        "finished_at": record.finished_at or "", "digest": record_digest(run_dir), "schema": record.schema,
        "harness": f"{record.harness_version} {record.git_revision[:12]}",
        "passed": counts[Verdict.PASS], "failed": counts[Verdict.FAIL],
        "errors": counts[Verdict.ERROR] + counts[Verdict.TIMEOUT],
        "not_applicable": counts[Verdict.NOT_APPLICABLE], "cases": len(record.cases),
    }
    devs = []
    for role, pair in sorted(record.identities.items()):
        ident = pair.get("start") or pair.get("end")
        if ident is not None:
            devs.append({"run_id": record.run_id, "role": role,
                         **{name: getattr(ident, name) for name in DEVICE_FIELDS}})
    return run, devs


def put(engine: sa.Engine, run: dict[str, Any], devs: Sequence[dict[str, Any]]) -> None:
    """Replace the rows of one run."""
    with engine.begin() as conn:
        conn.execute(devices.delete().where(devices.c.run_id == run["run_id"]))
        conn.execute(runs.delete().where(runs.c.run_id == run["run_id"]))
        conn.execute(runs.insert(), [run])
        if devs:
            conn.execute(devices.insert(), list(devs))


def index_run(engine: sa.Engine, run_dir: Path) -> bool:
    """Index one record folder; False when its run did not finish (nothing indexed)."""
    rows = rows_of(run_dir)
    if rows is None:
        return False
    put(engine, *rows)
    return True


def record_folders(reports: Path) -> Iterator[Path]:
    """Every run folder under ``reports`` (a folder holding a record or a journal), sorted."""
    seen = set()
    for name in ("record.json", "journal.jsonl"):
        for path in sorted(Path(reports).rglob(name)):
            if path.parent not in seen:
                seen.add(path.parent)
                yield path.parent


def rebuild(engine: sa.Engine, reports: Path) -> tuple[int, list[str]]:
    """Empty the index and index every finished record under ``reports`` again: (indexed, problems)."""
    with engine.begin() as conn:
        conn.execute(devices.delete())
        conn.execute(runs.delete())
    count, problems = 0, []
    for folder in record_folders(reports):
        try:
            count += index_run(engine, folder)
        except (InputError, OSError, ValueError) as exc:
            problems.append(f"{folder}: not indexed: {getattr(exc, 'message', str(exc))[:200]}")
    return count, problems


def query(engine: sa.Engine, *, device: str | None = None, firmware: str | None = None,
          profile: str | None = None, verdict: str | None = None, limit: int = 50) -> list[Indexed]:
    """The runs that match, newest first: ``device`` a serial, model or manufacturer; ``firmware`` a
    software version or program hash; ``profile`` a profile name."""
    stmt = sa.select(runs).order_by(runs.c.started_at.desc(), runs.c.run_id.desc()).limit(limit)
    if device:
        stmt = stmt.where(runs.c.run_id.in_(sa.select(devices.c.run_id).where(sa.or_(
            devices.c.serial == device, devices.c.model == device, devices.c.manufacturer == device))))
    if firmware:
        stmt = stmt.where(runs.c.run_id.in_(sa.select(devices.c.run_id).where(sa.or_(
            devices.c.software_version == firmware, devices.c.program_hash == firmware))))
    if profile:
        stmt = stmt.where(runs.c.profile == profile)
    if verdict:
        stmt = stmt.where(runs.c.verdict == verdict)
    with engine.connect() as conn:
        found = conn.execute(stmt).mappings().all()
        ids = [r["run_id"] for r in found]
        firmware_of: dict[str, list[str]] = {}
        if ids:
            for d in conn.execute(sa.select(devices).where(devices.c.run_id.in_(ids)).order_by(devices.c.role)):
                firmware_of.setdefault(d.run_id, []).append(f"{d.role} {d.software_version}".strip())
    return [Indexed(**{name: r[name] for name in INDEXED_COLUMNS},
                    firmware=", ".join(firmware_of.get(r["run_id"], []))) for r in found]


def forget(engine: sa.Engine, folder: Path) -> None:
    """Remove the rows of the run indexed from ``folder`` (a folder deleted by ``tablecert clean``)."""
    where = str(Path(folder).absolute())
    with engine.begin() as conn:
        ids = [r for (r,) in conn.execute(sa.select(runs.c.run_id).where(runs.c.folder == where))]
        if ids:
            conn.execute(devices.delete().where(devices.c.run_id.in_(ids)))
            conn.execute(runs.delete().where(runs.c.run_id.in_(ids)))


def folder_of(engine: sa.Engine, run_id: str) -> str | None:
    """The folder the index has for ``run_id``, or None."""
    with engine.connect() as conn:
        return conn.execute(sa.select(runs.c.folder).where(runs.c.run_id == run_id)).scalar_one_or_none()
