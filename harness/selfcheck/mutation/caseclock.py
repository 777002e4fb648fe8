"""A pytest plugin for the trace run (``-p harness.selfcheck.mutation.caseclock``): number the cases.

Before each case it writes the case's number (1, 2, ...) into ``$TABLECERT_MUTANT_TRACE/epoch``,
which the traced emulator reads as it runs (:class:`harness.selfcheck.mutation.hook.LineTrace`); at the end
of the session ``cases.json`` lists the cases' pytest node ids in that order (``ids``; number n is
``ids[n - 1]``) and those that passed (``passed``).  Number 0 is the time
before the first case.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest

from harness.selfcheck.mutation.hook import EPOCH_FILE, EPOCH_SIZE, TRACE_ENV

_state: dict[str, list[str]] = {"ids": [], "passed": []}


def _directory() -> Path | None:
    value = os.environ.get(TRACE_ENV)
    return Path(value) if value else None


def _write(n: int) -> None:
    directory = _directory()
    if directory is None:
        return
    fd = os.open(directory / EPOCH_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, struct.pack("<q", n), 0)
    finally:
        os.close(fd)


def pytest_configure(config: pytest.Config) -> None:
    directory = _directory()
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / EPOCH_FILE).write_bytes(b"\0" * EPOCH_SIZE)


def pytest_runtest_setup(item: pytest.Item) -> None:
    ids = _state["ids"]
    ids.append(item.nodeid)
    _write(len(ids))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.passed:
        _state["passed"].append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session) -> None:
    directory = _directory()
    if directory is not None:
        (directory / "cases.json").write_text(json.dumps(_state), encoding="utf-8")
