"""A real PostgreSQL server for the history index tests, started in a temporary folder on
127.0.0.1 (its own port, trust authentication) and stopped after the module, where the machine has
the server programs.  In CI it must start; elsewhere the tests say why they could not run."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "record"))  # recordkit: the synthetic runs


def _bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    why = None
    if not initdb or not pg_ctl:
        why = "no PostgreSQL server programs (initdb, pg_ctl) on this machine"
    as_user: list[str] = []
    if why is None and os.geteuid() == 0:  # the server refuses to run as root: run it as postgres
        try:
            pwd.getpwnam("postgres")
            as_user = ["runuser", "-u", "postgres", "--"]
        except KeyError:
            why = "running as root and there is no postgres user to start the server as"
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the PostgreSQL history tests must run in CI: {why}")
        pytest.skip(f"PostgreSQL path not tested here: {why}")
    # not under pytest's own temporary folder, which only root may enter: the server runs as postgres
    base = Path(tempfile.mkdtemp(prefix="tablecert-pg-"))
    data = base / "data"
    data.mkdir()
    if as_user:
        shutil.chown(base, "postgres")
        shutil.chown(data, "postgres")
    port = _free_port()
    subprocess.run([*as_user, initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
                   check=True, capture_output=True, timeout=120)
    opts = f"-c listen_addresses=127.0.0.1 -p {port} -k {data}"
    start = subprocess.run([*as_user, pg_ctl, "-D", str(data), "-o", opts, "-l", str(data / "log"), "-w", "-t", "60",
                            "start"], capture_output=True, timeout=90, check=False)
    if start.returncode != 0:
        log = (data / "log").read_text(errors="replace")[-2000:] if (data / "log").exists() else ""
        pytest.fail(f"PostgreSQL did not start: {start.stderr.decode(errors='replace')} {log}")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "-t", "30", "stop"],
                           capture_output=True, timeout=60, check=False)
        shutil.rmtree(base, ignore_errors=True)
