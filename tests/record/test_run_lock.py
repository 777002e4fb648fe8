"""One writer per run folder (harness.record.lock): a second writer is refused, same-second ids differ."""

import subprocess
import sys
from pathlib import Path

import pytest

from harness.record.lock import RunLock, RunLocked, lock_path, reserve

HOLD = """
import sys, time
from pathlib import Path
from harness.record.lock import RunLock
lock = RunLock.acquire(Path(sys.argv[1]))
print("held", flush=True)
sys.stdin.readline()
"""


def test_a_second_process_is_refused_while_the_first_holds_the_lock(tmp_path: Path) -> None:
    run_dir = tmp_path / "run-1"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(run_dir)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(RunLocked, match=rf"being written by another tablecert process \(pid {holder.pid}\)"):
            RunLock.acquire(run_dir)
        assert not run_dir.exists()  # the refused writer made nothing
        rid, lock = reserve(tmp_path, "run-1")  # the same second: the next id
        assert rid == "run-1-2"
        lock.release()
    finally:
        holder.communicate("\n", timeout=30)
    with RunLock.acquire(run_dir):  # the holder gone, its lock went with it
        assert lock_path(run_dir).exists()
    assert not lock_path(run_dir).exists()


def test_an_existing_folder_moves_the_id_on(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    rid, lock = reserve(tmp_path, "run", {"run-2"})
    assert rid == "run-3"
    lock.release()


def test_a_handed_over_lock_is_held_not_taken_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lock = RunLock.acquire(tmp_path / "r")
    monkeypatch.setenv(*next(iter(lock.environment().items())))
    held = RunLock.hold(tmp_path / "r")
    assert held.fd == lock.fd and not held.owner
    held.release()
    assert lock_path(tmp_path / "r").exists()  # only the owner removes it
    lock.release()
