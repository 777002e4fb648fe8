"""Records outlive versions: a record from each released schema version, kept as written by that
release, still verifies and renders with this one (by its own schema's rules, never migrated in
place), also from a folder a lab renamed to its report number."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.record.journal import load_record
from harness.record.model import SCHEMA, SCHEMAS
from harness.record.verification import verify
from harness.record.views import STAMP_FILE, renderer_id, stamps

FIXTURES = Path(__file__).parent / "fixtures"
#: schema -> a record written by the release that wrote that schema (tablecert run of one case)
ARCHIVE = {"tablecert/record/1": FIXTURES / "schema-1" / "20261205T131452Z-emulated-midi-5"}


def test_every_earlier_schema_has_an_archived_record() -> None:
    assert set(ARCHIVE) == set(SCHEMAS) - {SCHEMA}
    assert all(load_record(path).schema == schema for schema, path in ARCHIVE.items())


@pytest.mark.parametrize("schema", sorted(ARCHIVE))
def test_an_archived_record_verifies_renamed_and_renders_again(schema: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "TC-2026-0042"  # the lab's report number, not the run id
    shutil.copytree(ARCHIVE[schema], run)
    assert verify(run) == []
    assert main(["verify", str(run)]) == 0
    out = capsys.readouterr().out
    assert "verdict PASS" in out
    assert f"it holds run {ARCHIVE[schema].name}" in out
    assert f"written as {schema}" in out and "verified by that schema's rules" in out
    assert "rendered by another build of tablecert" in out
    # rendered again with this build: the views are stamped and compared byte for byte from now on
    assert main(["report", str(run), "--format", "all"]) == 0
    assert set(stamps(run).values()) == {renderer_id()}
    capsys.readouterr()
    assert main(["verify", str(run)]) == 0
    assert "rendered by another build" not in capsys.readouterr().out
    html = run / "record.html"
    html.write_text(html.read_text("utf-8").replace("PASS", "FAIL"), "utf-8")  # an edit is caught again
    assert any(p.startswith("record.html: differs") for p in verify(run))
    assert (run / STAMP_FILE).is_file()


def test_a_record_of_an_unknown_schema_is_refused_with_a_message(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(ARCHIVE["tablecert/record/1"], run)
    rec = run / "record.json"
    rec.write_bytes(rec.read_bytes().replace(b'"tablecert/record/1"', b'"tablecert/record/99"'))
    assert main(["verify", str(run)]) == 2
    assert "schema this version reads" in capsys.readouterr().err
