"""Writes that fail leave the previous file whole (harness.record.atomic); verify sizes before it hashes."""

import subprocess
import sys
from pathlib import Path

import pytest

from harness.record.atomic import TEMP_PREFIX, replace_folder, write_atomic

FULL_DISK = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_FSIZE, (10, 10))
from harness.record.atomic import write_atomic
try:
    write_atomic(Path(sys.argv[1]), b"a new text longer than ten bytes")
except OSError as exc:
    print(exc.strerror)
"""


def test_a_write_that_fails_leaves_the_previous_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "record.html"
    target.write_bytes(b"previous")
    out = subprocess.run([sys.executable, "-c", FULL_DISK, str(target)], capture_output=True, text=True, timeout=60,
                         check=True)
    assert out.stdout.strip() == "File too large"
    assert target.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["record.html"]  # no temporary file left


def test_a_symlink_is_replaced_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"keep")
    (tmp_path / "view").symlink_to(outside)
    write_atomic(tmp_path / "view", b"new")
    assert not (tmp_path / "view").is_symlink() and (tmp_path / "view").read_bytes() == b"new"
    assert outside.read_bytes() == b"keep"


def test_a_folder_that_fails_to_fill_leaves_the_old_one(tmp_path: Path) -> None:
    old = tmp_path / "allure-results"
    old.mkdir()
    (old / "a.json").write_text("old")

    def fail(new: Path) -> None:
        (new / "half.json").write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        replace_folder(old, fail)
    assert [p.name for p in tmp_path.iterdir()] == ["allure-results"]
    assert (old / "a.json").read_text() == "old"
    replace_folder(old, lambda new: (new / "b.json").write_text("new"))
    assert [p.name for p in old.iterdir()] == ["b.json"]
    assert not list(tmp_path.glob(f"{TEMP_PREFIX}*"))


def test_verify_compares_the_size_before_it_hashes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from recordkit import build_run

    from harness.record import folder, load_record, verify

    run = build_run(tmp_path / "w", verdicts=("PASS",))
    ev = next(e for c in load_record(run).cases for e in c.evidence)
    with open(run / ev.path, "r+b") as fh:  # a large sparse file in the evidence's place
        fh.truncate(1 << 24)
    hashed: list[str] = []
    real = folder.sha256_member

    def counting(d: Path, rel: str) -> str:
        hashed.append(rel)
        return real(d, rel)

    monkeypatch.setattr(folder, "sha256_member", counting)
    problems = verify(run)
    assert any(f"{ev.path}: SHA-256 differs" in p and str(1 << 24) in p for p in problems), problems
    assert ev.path not in hashed
