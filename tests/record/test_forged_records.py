"""A record forged every way we could think of is refused by ``tablecert verify``; a signed record
verifies with its own key and fails with another.

Each forgery starts from a finished, signed run (one PASS, one FAIL case, each with a transcript)
and changes it the way someone hiding the FAIL would: edit, delete, rename, add a file, reorder,
swap evidence between runs, replace the journal, and the same with the manifest recomputed so the
hashes agree.  ``verify`` must exit 1 (the record does not verify) or 2 (it is not even a record of
the right shape) and never 0; the forgeries that keep the record self-consistent are caught by the
signature (``verify --key``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from recordkit import build_run

from harness.cli import main
from harness.record import canonical_json
from harness.record.digest import JOURNAL_FILE, MANIFEST_FILE, RECORD_FILE
from harness.record.signing import SIGNATURE_FILE, generate_key, sign_record, signature_info

Forgery = Callable[[Path, Path], None]


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("keys")
    generate_key(d / "lab.key")
    generate_key(d / "other.key")
    return d / "lab.key", d / "other.key"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, keys: tuple[Path, Path]) -> tuple[Path, Path]:
    """Two signed runs of the same product: the one forged, and another to take files from."""
    d = tmp_path_factory.mktemp("runs")
    a = build_run(d / "a", verdicts=("PASS", "FAIL"))
    b = build_run(d / "b", verdicts=("PASS", "FAIL"))
    for run in (a, b):
        sign_record(run, keys[0], "Example Test Lab, J. Tester")
    return a, b


# ----------------------------------------------------------------------------- helpers
def _data(run: Path) -> dict:
    return json.loads((run / RECORD_FILE).read_bytes())


def _write(run: Path, data: dict) -> None:
    (run / RECORD_FILE).write_bytes(canonical_json(data))


def _remanifest(run: Path) -> None:
    """What a careful forger does last: make every hash in record.sha256 agree again."""
    evidence = [ev["path"] for case in _data(run)["cases"] for ev in case["evidence"]]
    names = [RECORD_FILE, *([JOURNAL_FILE] if (run / JOURNAL_FILE).exists() else []), *sorted(evidence)]
    lines = []
    for name in names:
        path = run / name
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "0" * 64
        lines.append(f"{digest}  {name}\n")
    (run / MANIFEST_FILE).write_text("".join(lines), "utf-8")


def _pass_the_fail(data: dict) -> None:
    case = data["cases"][1]
    case["verdict"] = "PASS"
    case["message"] = None
    for m in case["measurements"]:
        m["outcome"] = "PASS"
    for s in case["steps"]:
        s["outcome"] = "PASS"
    data["verdict"] = "PASS"
    data["verdict_reasons"] = ["every case passed"]
    data["counts"]["FAIL"] = 0
    data["counts"]["PASS"] = 2


def _journal_lines(run: Path) -> list[bytes]:
    return (run / JOURNAL_FILE).read_bytes().splitlines(keepends=True)


def _evidence(run: Path, n: int = 1) -> str:
    return str(_data(run)["cases"][n]["evidence"][0]["path"])


# ----------------------------------------------------------------------------- the forgeries
def edit_verdict(run: Path, other: Path) -> None:
    data = _data(run)
    _pass_the_fail(data)
    _write(run, data)


def edit_verdict_and_manifest(run: Path, other: Path) -> None:
    edit_verdict(run, other)
    _remanifest(run)


def edit_verdict_delete_journal_and_its_line(run: Path, other: Path) -> None:
    """The forgery verify used to accept: FAIL edited to PASS, the journal and its manifest line gone."""
    edit_verdict(run, other)
    (run / JOURNAL_FILE).unlink()
    _remanifest(run)


def edit_record_and_journal_consistently(run: Path, other: Path) -> None:
    """Everything rewritten to agree: only the signature can tell."""
    edit_verdict(run, other)
    lines = _journal_lines(run)
    out = []
    for line in lines:
        entry = json.loads(line)
        if entry["type"] == "case" and entry["case"]["verdict"] == "FAIL":
            entry["case"] = _data(run)["cases"][1]
        out.append(canonical_json(entry) + b"\n")
    (run / JOURNAL_FILE).write_bytes(b"".join(out))
    _remanifest(run)


def edit_measurement(run: Path, other: Path) -> None:
    data = _data(run)
    data["cases"][1]["measurements"][-1]["value"] = "0.9"
    _write(run, data)
    _remanifest(run)


def edit_evidence_byte(run: Path, other: Path) -> None:
    path = run / _evidence(run)
    raw = bytearray(path.read_bytes())
    raw[3] ^= 0x01
    path.write_bytes(bytes(raw))


def edit_evidence_and_its_hashes(run: Path, other: Path) -> None:
    rel = _evidence(run)
    (run / rel).write_bytes(b"TX a55a0101\nRX a55a0101\n")
    data = _data(run)
    digest = hashlib.sha256((run / rel).read_bytes()).hexdigest()
    data["cases"][1]["evidence"][0]["sha256"] = digest
    _write(run, data)
    _remanifest(run)


def edit_journal_line(run: Path, other: Path) -> None:
    lines = _journal_lines(run)
    lines = [line.replace(b'"verdict":"FAIL"', b'"verdict":"PASS"') for line in lines]
    (run / JOURNAL_FILE).write_bytes(b"".join(lines))


def edit_signer(run: Path, other: Path) -> None:
    sig = json.loads((run / SIGNATURE_FILE).read_bytes())
    sig["signer"] = "Somebody Else"
    (run / SIGNATURE_FILE).write_bytes(canonical_json(sig))


def delete_record(run: Path, other: Path) -> None:
    (run / RECORD_FILE).unlink()


def delete_journal(run: Path, other: Path) -> None:
    (run / JOURNAL_FILE).unlink()


def delete_manifest(run: Path, other: Path) -> None:
    (run / MANIFEST_FILE).unlink()


def delete_evidence(run: Path, other: Path) -> None:
    (run / _evidence(run)).unlink()


def delete_evidence_everywhere(run: Path, other: Path) -> None:
    """The failing case's transcript removed from disk, record and manifest."""
    (run / _evidence(run)).unlink()
    data = _data(run)
    data["cases"][1]["evidence"] = []
    _write(run, data)
    _remanifest(run)


def delete_manifest_line(run: Path, other: Path) -> None:
    text = (run / MANIFEST_FILE).read_text()
    (run / MANIFEST_FILE).write_text("".join(line for line in text.splitlines(keepends=True)
                                             if "evidence/" not in line))


def delete_journal_line_of_the_case(run: Path, other: Path) -> None:
    lines = [line for line in _journal_lines(run) if b'"verdict":"FAIL"' not in line]
    (run / JOURNAL_FILE).write_bytes(b"".join(lines))
    _remanifest(run)


def delete_signature(run: Path, other: Path) -> None:
    (run / SIGNATURE_FILE).unlink()


def rename_evidence(run: Path, other: Path) -> None:
    path = run / _evidence(run)
    path.rename(path.with_name("renamed.txt"))


def rename_record(run: Path, other: Path) -> None:
    (run / RECORD_FILE).rename(run / "record.json.bak")


def rename_journal(run: Path, other: Path) -> None:
    (run / JOURNAL_FILE).rename(run / "journal.old")


def add_evidence_file(run: Path, other: Path) -> None:
    (run / "evidence" / "extra.txt").write_text("a transcript nobody recorded\n")


def add_manifest_line(run: Path, other: Path) -> None:
    with (run / MANIFEST_FILE).open("a") as fh:
        fh.write("0" * 64 + "  evidence/planted.txt\n")


def add_case(run: Path, other: Path) -> None:
    data = _data(run)
    extra = json.loads(json.dumps(data["cases"][0]))
    extra["case_id"] = "planted-pass"
    extra["evidence"] = []
    data["cases"].append(extra)
    _write(run, data)
    _remanifest(run)


def reorder_manifest(run: Path, other: Path) -> None:
    lines = (run / MANIFEST_FILE).read_text().splitlines(keepends=True)
    (run / MANIFEST_FILE).write_text("".join(reversed(lines)))


def reorder_cases(run: Path, other: Path) -> None:
    data = _data(run)
    data["cases"].reverse()
    _write(run, data)
    _remanifest(run)


def reorder_journal(run: Path, other: Path) -> None:
    lines = _journal_lines(run)
    cases = [i for i, line in enumerate(lines) if b'"type":"case"' in line]
    lines[cases[0]], lines[cases[1]] = lines[cases[1]], lines[cases[0]]
    (run / JOURNAL_FILE).write_bytes(b"".join(lines))
    _remanifest(run)


def swap_evidence_between_runs(run: Path, other: Path) -> None:
    rel = _evidence(run)
    shutil.copyfile(other / _evidence(other, 0), run / rel)


def swap_evidence_and_hashes(run: Path, other: Path) -> None:
    data, theirs = _data(run), _data(other)
    rel = _evidence(run)
    shutil.copyfile(other / _evidence(other, 0), run / rel)
    data["cases"][1]["evidence"][0]["sha256"] = theirs["cases"][0]["evidence"][0]["sha256"]
    _write(run, data)
    _remanifest(run)


def replace_journal(run: Path, other: Path) -> None:
    shutil.copyfile(other / JOURNAL_FILE, run / JOURNAL_FILE)
    _remanifest(run)


def replace_whole_record(run: Path, other: Path) -> None:
    """Another run's record, journal, manifest and evidence under this run's name and signature."""
    for name in (RECORD_FILE, JOURNAL_FILE, MANIFEST_FILE):
        shutil.copyfile(other / name, run / name)
    shutil.rmtree(run / "evidence")
    shutil.copytree(other / "evidence", run / "evidence")


def replace_signature(run: Path, other: Path) -> None:
    """The other run's (valid) signature put on this record."""
    shutil.copyfile(other / SIGNATURE_FILE, run / SIGNATURE_FILE)


def evidence_symlink_out(run: Path, other: Path) -> None:
    path = run / _evidence(run)
    target = run.parent / "outside.txt"
    shutil.copyfile(path, target)
    path.unlink()
    path.symlink_to(target)


def evidence_path_escapes(run: Path, other: Path) -> None:
    data = _data(run)
    data["cases"][1]["evidence"][0]["path"] = "evidence/../../outside.txt"
    _write(run, data)
    _remanifest(run)


def run_id_escapes(run: Path, other: Path) -> None:
    data = _data(run)
    data["run_id"] = "../../elsewhere"
    _write(run, data)
    _remanifest(run)


FORGERIES: dict[str, Forgery] = {f.__name__: f for f in (
    edit_verdict, edit_verdict_and_manifest, edit_verdict_delete_journal_and_its_line,
    edit_record_and_journal_consistently, edit_measurement, edit_evidence_byte, edit_evidence_and_its_hashes,
    edit_journal_line, edit_signer,
    delete_record, delete_journal, delete_manifest, delete_evidence, delete_evidence_everywhere,
    delete_manifest_line, delete_journal_line_of_the_case, delete_signature,
    rename_evidence, rename_record, rename_journal,
    add_evidence_file, add_manifest_line, add_case,
    reorder_manifest, reorder_cases, reorder_journal,
    swap_evidence_between_runs, swap_evidence_and_hashes,
    replace_journal, replace_whole_record, replace_signature,
    evidence_symlink_out, evidence_path_escapes, run_id_escapes,
)}
#: forgeries that leave a record consistent with itself: only the signature shows them
SELF_CONSISTENT = {"edit_record_and_journal_consistently", "replace_whole_record", "delete_signature",
                   "replace_signature"}


def _forged(runs: tuple[Path, Path], name: str, tmp_path: Path) -> Path:
    run, other = runs
    copy = tmp_path / run.name
    shutil.copytree(run, copy, symlinks=True)
    FORGERIES[name](copy, other)
    return copy


def test_the_untouched_signed_record_verifies(runs: tuple[Path, Path], keys: tuple[Path, Path],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    run = runs[0]
    assert main(["verify", str(run)]) == 0
    assert main(["verify", str(run), "--key", f"{keys[0]}.pub"]) == 0
    out = capsys.readouterr().out
    assert "signed by Example Test Lab, J. Tester" in out and "checked against the key given" in out
    info = signature_info(run)
    assert info is not None and info["intact"] and info["key_fingerprint"].startswith("SHA256:")


def test_a_signed_record_fails_with_another_key(runs: tuple[Path, Path], keys: tuple[Path, Path],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(runs[0]), "--key", f"{keys[1]}.pub"]) == 1
    assert "not with the key given" in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_every_forgery_is_refused(name: str, runs: tuple[Path, Path], keys: tuple[Path, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    forged = _forged(runs, name, tmp_path)
    with_key = main(["verify", str(forged), "--key", f"{keys[0]}.pub"])
    out = capsys.readouterr()
    assert with_key in (1, 2), out
    assert "Traceback" not in out.out + out.err
    if name not in SELF_CONSISTENT:
        # caught by the record itself, without any key
        assert main(["verify", str(forged)]) in (1, 2)
        out = capsys.readouterr()
        assert "OK " not in out.out


def test_the_forgery_the_issue_names(runs: tuple[Path, Path], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """FAIL edited to PASS, the journal and its manifest line deleted: refused for the missing journal."""
    forged = _forged(runs, "edit_verdict_delete_journal_and_its_line", tmp_path)
    (forged / SIGNATURE_FILE).unlink()  # and no signature to give it away
    assert main(["verify", str(forged)]) == 1
    out = capsys.readouterr().out
    assert "journal.jsonl: missing" in out
    assert "does not list journal.jsonl" in out


def test_self_consistent_rewrite_is_caught_only_by_the_signature(runs: tuple[Path, Path], keys: tuple[Path, Path],
                                                                 tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    forged = _forged(runs, "edit_record_and_journal_consistently", tmp_path)
    assert main(["verify", str(forged), "--key", f"{keys[0]}.pub"]) == 1
    assert "the record changed after it was signed" in capsys.readouterr().out
