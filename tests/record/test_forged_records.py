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
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from recordkit import build_run

from harness.cli import main
from harness.record import canonical_json
from harness.record.digest import JOURNAL_FILE, MANIFEST_FILE, RECORD_FILE
from harness.record.sign import sign_record
from harness.record.signing import SIGNATURE_FILE, generate_key, signature_info

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


# --- the folder's files replaced by something that is not a regular file (redteam rows 56-60, 71-72)
def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def journal_fifo(run: Path, other: Path) -> None:
    """The journal replaced by a FIFO: reading it would block, skipping it hid every edit."""
    _fifo(run / JOURNAL_FILE)


def journal_fifo_hides_edit(run: Path, other: Path) -> None:
    edit_verdict_and_manifest(run, other)
    _fifo(run / JOURNAL_FILE)


def journal_is_a_directory(run: Path, other: Path) -> None:
    edit_verdict_and_manifest(run, other)
    (run / JOURNAL_FILE).unlink()
    (run / JOURNAL_FILE).mkdir()


def journal_symlink_to_other_run(run: Path, other: Path) -> None:
    edit_verdict_and_manifest(run, other)
    (run / JOURNAL_FILE).unlink()
    (run / JOURNAL_FILE).symlink_to(other / JOURNAL_FILE)


def manifest_fifo(run: Path, other: Path) -> None:
    _fifo(run / MANIFEST_FILE)


def evidence_fifo(run: Path, other: Path) -> None:
    _fifo(run / _evidence(run))


def signature_fifo(run: Path, other: Path) -> None:
    _fifo(run / SIGNATURE_FILE)


# --- a field of record.json edited alone, the manifest recomputed (rows 61-65)
def _edit_field(edit: Callable[[dict], None]) -> Forgery:
    def forge(run: Path, other: Path) -> None:
        data = _data(run)
        edit(data)
        _write(run, data)
        _remanifest(run)
    return forge


edit_counts = _edit_field(lambda d: d["counts"].update({"FAIL": 0, "PASS": 2}))
edit_counts_not_applicable = _edit_field(lambda d: d["counts"].update({"NOT APPLICABLE": 40}))
plant_identity_changed = _edit_field(lambda d: d.update(identity_changed={"controller": ["software_version"]}))
plant_note = _edit_field(lambda d: d.update(notes=["reviewed and approved by the regulator"]))
edit_verdict_reasons = _edit_field(lambda d: d.update(verdict_reasons=["all cases passed"]))
edit_git_dirty = _edit_field(lambda d: d["harness"].update(git_dirty=not d["harness"]["git_dirty"]))
edit_input_sha = _edit_field(lambda d: d["inputs"][0].update(sha256="0" * 64))


# --- the views edited (rows 66-67): not in the manifest, rendered again by verify and compared
def edit_report_html(run: Path, other: Path) -> None:
    text = (run / "record.html").read_text("utf-8")
    (run / "record.html").write_text(text.replace("<strong>FAIL</strong>", "<strong>PASS</strong>"), "utf-8")


def remove_junit_failure(run: Path, other: Path) -> None:
    text = (run / "junit.xml").read_text("utf-8")
    start, end = text.index("<failure"), text.index("</failure>") + len("</failure>")
    (run / "junit.xml").write_text(text[:start] + text[end:], "utf-8")


def add_allure_result(run: Path, other: Path) -> None:
    (run / "allure-results" / "00000000-0000-4000-8000-000000000000-result.json").write_text(
        '{"name": "planted", "status": "passed"}', "utf-8")


def edit_allure_result(run: Path, other: Path) -> None:
    failed = next(p for p in sorted((run / "allure-results").glob("*-result.json")) if '"failed"' in p.read_text())
    failed.write_text(failed.read_text("utf-8").replace('"failed"', '"passed"'), "utf-8")


def view_symlink_out(run: Path, other: Path) -> None:
    (run / "junit.xml").unlink()
    (run / "junit.xml").symlink_to(other / "junit.xml")


# --- what the JSON reader must refuse (rows 68-70)
def journal_duplicate_key(run: Path, other: Path) -> None:
    lines = _journal_lines(run)
    n = next(i for i, line in enumerate(lines) if b'"verdict":"FAIL"' in line)
    lines[n] = lines[n].replace(b'"verdict":"FAIL"', b'"verdict":"FAIL","verdict":"PASS"', 1)
    (run / JOURNAL_FILE).write_bytes(b"".join(lines))
    _remanifest(run)


def record_lone_surrogate(run: Path, other: Path) -> None:
    raw = (run / RECORD_FILE).read_bytes()
    (run / RECORD_FILE).write_bytes(raw.replace(b'"title":"Case 0 (PASS)"', b'"title":"Case 0 \\ud800"', 1))
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
    journal_fifo, journal_fifo_hides_edit, journal_is_a_directory, journal_symlink_to_other_run, manifest_fifo,
    evidence_fifo, signature_fifo,
    edit_report_html, remove_junit_failure, add_allure_result, edit_allure_result, view_symlink_out,
    journal_duplicate_key, record_lone_surrogate,
)}
FORGERIES |= {"edit_counts": edit_counts, "edit_counts_not_applicable": edit_counts_not_applicable,
              "plant_identity_changed": plant_identity_changed, "plant_note": plant_note,
              "edit_verdict_reasons": edit_verdict_reasons, "edit_git_dirty": edit_git_dirty,
              "edit_input_sha": edit_input_sha}
#: forgeries the JSON reader refuses outright: bad input, exit 2, with the file and line
UNREADABLE = {"journal_duplicate_key": "journal.jsonl:8: not valid JSON (duplicate key 'verdict' in one object)",
              "record_lone_surrogate": "record.json:1: not valid text: a lone surrogate \\ud800",
              "evidence_path_escapes": "record.json:1: not a valid record: record.cases[1].evidence[0].path",
              "run_id_escapes": "record.json:1: not a valid record: record.run_id: '../../elsewhere'"}
#: forgeries that leave a record consistent with itself, caught only by the key: none of the above
#: any more (the views are rendered again and compared, a record.sig present is checked without a
#: key, the folder must be named by the run id); the forger who also renders the views again and
#: removes the signature is test_a_consistent_rewrite_is_caught_only_by_the_digest_or_the_key
SELF_CONSISTENT: frozenset[str] = frozenset()


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


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_every_forgery_is_refused(name: str, runs: tuple[Path, Path], keys: tuple[Path, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    forged = _forged(runs, name, tmp_path)
    with_key = main(["verify", str(forged), "--key", f"{keys[0]}.pub"])
    out = capsys.readouterr()
    assert with_key in (1, 2), out
    assert "Traceback" not in out.out + out.err
    if name not in SELF_CONSISTENT:
        # caught by the record itself, without any key, by every reader
        assert main(["verify", str(forged)]) == (2 if name in UNREADABLE else 1)
        out = capsys.readouterr()
        assert "OK " not in out.out and "Traceback" not in out.err
        if name in UNREADABLE:
            assert f"{forged}/{UNREADABLE[name]}" in out.err
        assert main(["report", str(forged), "--out", str(tmp_path / "r.html")]) in (1, 2)
        assert "verdict PASS" not in capsys.readouterr().out
        assert main(["merge", str(forged), "--out", str(tmp_path / "merged")]) == 2
        assert not (tmp_path / "merged").exists() or not any((tmp_path / "merged").iterdir())


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


# ----------------------------------------------------------------------------- whole-folder forgeries
def _rewrite_consistently(run: Path, edit: Callable[[list[dict]], list[dict]]) -> None:
    """What a forger with tablecert at hand does (redteam rows 48-55): edit the journal, write
    record.json from it, recompute the manifest, render every view again, drop the signature."""
    from harness.record.journal import load_journal

    entries = [json.loads(line) for line in _journal_lines(run)]
    (run / JOURNAL_FILE).write_bytes(b"".join(canonical_json(e) + b"\n" for e in edit(entries)))
    (run / RECORD_FILE).write_bytes(canonical_json(load_journal(run / JOURNAL_FILE).to_dict()))
    (run / SIGNATURE_FILE).unlink()
    _remanifest(run)
    assert main(["report", str(run), "--format", "all"]) == 0


def _cases_of(entries: list[dict]) -> list[dict]:
    return [e["case"] for e in entries if e["type"] == "case"]


def _pass_case(entries: list[dict]) -> list[dict]:
    case = _cases_of(entries)[1]
    case.update(verdict="PASS", message=None)
    for item in case["measurements"] + case["steps"]:
        item["outcome"] = "PASS"
    return entries


def _drop_evidence(entries: list[dict]) -> list[dict]:
    case = _cases_of(entries)[1]
    for ev in case["evidence"]:
        Path(_RUN[0] / ev["path"]).unlink()
    case["evidence"] = []
    return entries


_RUN: list[Path] = []
CONSISTENT: dict[str, Callable[[list[dict]], list[dict]]] = {
    "fail-made-pass": _pass_case,
    "evidence-deleted": _drop_evidence,
    "failed-case-dropped": lambda es: [e for e in _drop_evidence(es)
                                       if not (e["type"] == "case" and e["case"]["verdict"] == "FAIL")],
    "start-back-dated": lambda es: [{**e, "started_at": "2020-01-01T00:00:00.000Z"} if e["type"] == "header" else e
                                    for e in es],
    "input-sha-zeroed": lambda es: [{**e, "sha256": "0" * 64} if e["type"] == "input" else e for e in es],
    "cases-swapped": lambda es: [*es[:6], es[7], es[6], *es[8:]],
}


@pytest.mark.parametrize("name", sorted(CONSISTENT))
def test_a_consistent_rewrite_is_caught_only_by_the_digest_or_the_key(
        name: str, runs: tuple[Path, Path], keys: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The documented limit (docs/record.md): a rewrite of every file passes the record's own
    checks; the digest from the signed report and the lab's key catch it, and every view says that
    the record is unverified without them."""
    run = tmp_path / runs[0].name
    shutil.copytree(runs[0], run)
    signed_digest = json.loads((run / SIGNATURE_FILE).read_bytes())["record_digest"]
    _RUN[:] = [run]
    _rewrite_consistently(run, CONSISTENT[name])
    capsys.readouterr()
    assert main(["verify", str(run)]) == 0
    assert "self-consistent only: unverified without --digest" in capsys.readouterr().out
    assert main(["verify", str(run), "--digest", signed_digest]) == 1
    assert f"is not the expected {signed_digest}" in capsys.readouterr().out
    assert main(["verify", str(run), "--key", f"{keys[0]}.pub"]) == 1
    assert "record.sig: missing" in capsys.readouterr().out
    html = (run / "record.html").read_text("utf-8")
    assert "Integrity: unverified.</strong> Unverified without digest or signature" in html
    assert main(["report", str(run), "--format", "gap"]) == 0
    gap = capsys.readouterr().out
    assert "Integrity: Unverified without digest or signature" in gap


def test_a_signed_record_says_whose_key_in_its_report(runs: tuple[Path, Path]) -> None:
    html = (runs[0] / "record.html").read_text("utf-8")
    assert "Integrity: signed.</strong> Signed by Example Test Lab, J. Tester with key SHA256:" in html


def test_a_copy_in_a_folder_of_another_name_verifies_and_says_which_run_it_holds(
        runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A lab renames a run folder to its report number: the run id inside the record is what the
    digest and the signature name, so the copy verifies, and verify says which run it holds."""
    for name in (runs[1].name, f"{runs[0].name}-renamed", "TC-2026-0042"):
        copy = tmp_path / name
        shutil.copytree(runs[0], copy)
        assert main(["verify", str(copy)]) == 0
        assert f"the folder is named '{name}'; it holds run {runs[0].name}" in capsys.readouterr().out
    link = tmp_path / "latest"
    link.symlink_to(runs[0])  # a symlink to the run folder is the run folder
    assert main(["verify", str(link)]) == 0


def test_merge_refuses_an_out_inside_a_source(runs: tuple[Path, Path], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Row 84: `merge A B --out A/evidence/merged` would add files to A and break it."""
    a, b = (tmp_path / r.name for r in runs)
    for src, dst in zip(runs, (a, b), strict=True):
        shutil.copytree(src, dst)
    for out in (a / "evidence" / "merged", b / "sub"):
        assert main(["merge", str(a), str(b), "--out", str(out)]) == 2
        assert "--out is inside the record" in capsys.readouterr().err
        assert not out.exists()
    assert main(["verify", str(a)]) == 0
