"""A pytest plugin (``-p harness.selfcheck.mutation.batch_plugin``): several mutants in one certification process.

Starting pytest, loading the suites and the harness costs seconds per run, more than most mutants
need to be killed.  With ``TABLECERT_MUTANT_BATCH=FILE`` (JSON: ``{"groups": [{"mutant": ID,
"cases": [NODE ID, ...]}, ...], "results": FILE}``) one pytest process runs each group's cases in
turn, each group against its own emulator: before a group's first case the rig is closed and
``TABLECERT_MUTANT`` set to the group's mutant, so the session opens a new rig, and with it a new
emulator process carrying that mutant (:func:`harness.emulators.process.start_emulator` hands the
emulator this environment).  The session's memory of the previous emulator (roles that stopped
answering, a rig that could not be opened) is forgotten with it.

A group stops at its first case that does not pass (``-x`` per mutant): its remaining cases are
skipped.  Every case's verdict, as the session records it, is appended to the results file (one
JSON line: group, case id, verdict, message) as soon as the case ends, so a batch cut short still
tells what it ran.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from harness.selfcheck.mutation.hook import MUTANT_ENV
from harness.verdict import Verdict

BATCH_ENV = "TABLECERT_MUTANT_BATCH"


class Batch:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.groups: list[dict[str, Any]] = spec["groups"]
        self.results = Path(spec["results"])
        self.group_of: dict[int, int] = {}  # id(item) -> group index
        self.current: int | None = None
        self.stopped: set[int] = set()
        self.session: Any = None
        self.names: dict[str, str] = {}  # case id in the record -> the case's own id

    # -- items: each group's cases, a fresh item wherever a case repeats ------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        first = {item.nodeid: item for item in items}
        used: set[str] = set()
        out: list[pytest.Item] = []
        for gi, group in enumerate(self.groups):
            fresh: dict[str, pytest.Item] = {}
            for nodeid in group["cases"]:
                item = first.get(nodeid)
                if item is None:
                    continue
                if nodeid in used:
                    if nodeid not in fresh:
                        parent = item.parent
                        assert isinstance(parent, pytest.Collector)
                        fresh.update({c.nodeid: c for c in parent.collect() if isinstance(c, pytest.Item)})
                    item = fresh[nodeid]
                used.add(nodeid)
                self.group_of[id(item)] = gi
                out.append(item)
        items[:] = out

    # -- the session: captured once, its recorder tapped ---------------------------------------
    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Generator[None, Any, None]:
        outcome = yield
        if fixturedef.argname == "tc_session" and self.session is None:
            self.session = outcome.get_result()
            recorder = getattr(self.session, "recorder", None)
            if recorder is not None:
                begin_case, end_case = recorder.begin_case, recorder.end_case
                seen: set[str] = set()

                def begun(case_id: str, *args: Any, **kw: Any) -> Any:
                    # one record, one case id: a case run again for a later mutant is named by it
                    name = case_id if case_id not in seen else f"{case_id} [mutant {self.current}]"
                    seen.add(name)
                    self.names[name] = case_id
                    return begin_case(name, *args, **kw)

                def ended(case: Any, verdict: str, message: str | None = None, **kw: Any) -> Any:
                    self._result(self.names.get(case.case_id, case.case_id), verdict, message)
                    return end_case(case, verdict, message, **kw)

                recorder.begin_case, recorder.end_case = begun, ended

    def _result(self, case_id: str, verdict: str, message: str | None) -> None:
        if self.current is None:
            return
        if verdict not in (Verdict.PASS, Verdict.SKIP, Verdict.NOT_APPLICABLE):
            self.stopped.add(self.current)
        with open(self.results, "a", encoding="utf-8") as f:
            f.write(json.dumps({"group": self.current, "case": case_id, "verdict": verdict,
                                "message": (message or "")[:2000]}) + "\n")

    # -- switching mutants between groups -------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        gi = self.group_of.get(id(item))
        if gi is None:
            return
        if gi != self.current:
            self._switch(gi)
        if gi in self.stopped:
            pytest.skip("this mutant was already killed by an earlier case")

    def _switch(self, gi: int) -> None:
        session = self.session
        if session is not None:
            if getattr(session, "bench", None) is not None:
                session.bench.close()
                session.bench = None
            if getattr(session, "rig", None) is not None:
                session.rig.close()
                session.rig = None
            session.rig_error = None
            session.dead.clear()
        os.environ[MUTANT_ENV] = str(self.groups[gi]["mutant"])
        self.current = gi


def pytest_configure(config: pytest.Config) -> None:
    path = os.environ.get(BATCH_ENV)
    if path:
        config.pluginmanager.register(Batch(json.loads(Path(path).read_text(encoding="utf-8"))), "tablecert-batch")
