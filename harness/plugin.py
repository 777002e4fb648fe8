"""pytest glue: YAML suite files become pytest items with real fixtures.

* ``*.suite.yaml`` files are collected by :class:`SuiteFile`; each case (and each parameter
  variant) becomes a ``pytest.Function`` built with ``from_parent(callobj=partial(...))``, so it gets
  fixtures through public pytest API only.
* Options: ``--tc-profile`` (the device profile), ``--tc-report-dir`` (where the run record goes),
  ``--tc-lab`` / ``--tc-operator`` / ``--tc-station``, ``--tc-pre-submission``.
* Markers: ``tablecert_requires(cap)`` per capability a case needs, ``tablecert_clause(id)`` per
  clause (``--tc-clause`` selects by them).  The Allure view is written from the record after the
  run (:mod:`harness.record.allure_view`), the one Allure path: nothing here writes Allure results.
* Verdicts: a compliance mismatch raises :class:`ComplianceFailure` (an ``AssertionError``): the
  case FAILS.  A rig problem (timeout, protocol error, device error) is any other exception: the
  case is an ERROR.  When a role stops answering, later cases that need it are skipped with the
  reason instead of failing one after another.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.errors import DeviceError, InputError, render
from harness.verdict import Verdict

if TYPE_CHECKING:
    from harness.suites.load.model import Case
    from harness.suites.run.session import TcSession

SUITE_SUFFIX = ".suite.yaml"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tablecert", "tablecert certification")
    group.addoption("--tc-profile", action="store", default=None, metavar="PROFILE",
                    help="device profile YAML the suites run against (default: device_profiles/emulated-midi-5.yaml)")
    group.addoption("--tc-report-dir", action="store", default=None, metavar="DIR",
                    help="directory under which the run record reports/<run-id>/ is written (default: reports)")
    group.addoption("--tc-no-record", action="store_true", default=False,
                    help="do not write a certification record (unit-test runs)")
    group.addoption("--tc-lab", action="store", default=None, help="issuing lab, for the record")
    group.addoption("--tc-operator", action="store", default=None, help="operator, for the record")
    group.addoption("--tc-station", action="store", default=None, help="test station / bench, for the record")
    group.addoption("--tc-run-id", action="store", default=None, help="run id to use (default: generated)")
    group.addoption("--tc-clause", action="append", default=[], metavar="ID",
                    help="only cases citing this clause (repeatable; a trailing * matches a prefix)")
    group.addoption("--tc-defect", action="append", default=[], metavar="NAME",
                    help="start the emulators with this defect (see `tablecert defects`); repeatable")
    group.addoption("--tc-bench-twin", action="store_true", default=False,
                    help="run the profile's bench twin: no test channel, a scripted operator, relays and the "
                         "bench supply perform every act (harness.bench.twin)")
    group.addoption("--tc-bench-rehearsal", action="store_true", default=False,
                    help="with --tc-bench-twin: a person answers the prompts on the bench console or the terminal "
                         "while the scripted operator's hands carry out the acts (harness.bench.twin)")
    group.addoption("--tc-listen", action="store", default="pty", choices=("pty", "tcp"),
                    help="how the emulators listen: pty (default) or 127.0.0.1 TCP")
    group.addoption("--tc-pre-submission", action="store_true", default=False,
                    help="vendor pre-submission mode: finish with a gap report")
    group.addoption("--tc-submitting-party", action="store", default=None, metavar="NAME",
                    help="certificate holder or vendor who submitted the device (default: the profile's)")
    group.addoption("--tc-resume", action="store", default=None, metavar="RUN_DIR",
                    help="continue this interrupted or killed run from its journal (a new sitting): its finished "
                         "cases are not run again; the devices' identity is checked first (tablecert run --resume)")
    group.addoption("--tc-progress-fd", action="store", type=int, default=None, metavar="FD",
                    help="write one JSON line per collected set and finished case to this file descriptor "
                         "(tablecert run's progress display)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--tc-profile") and not hasattr(config, "workerinput"):
        _terminate_as_interrupt()
        fd = config.getoption("--tc-progress-fd")
        if fd is not None:
            config.pluginmanager.register(ProgressReporter(config, fd), "tablecert-progress")
    config.addinivalue_line("markers", "tablecert_requires(capability): the case needs this device capability")
    config.addinivalue_line("markers", "tablecert_clause(clause_id): the case checks this catalogue clause")


def _terminate_as_interrupt() -> None:
    """SIGTERM or SIGHUP during a certification run ends it like Ctrl-C: the finished cases are
    written into a finished record whose verdict is INTERRUPTED (exit 130), instead of a process
    killed mid-write.  Started by ``tablecert run`` (its pid in ``TABLECERT_PARENT_PID``), the
    process also ends that way when ``tablecert run`` dies (``kill -9``, a closed terminal): the
    record is never left to a process nobody reads (harness.interrupts)."""
    from harness.interrupts import die_with_parent, install_stop_signals, parent_from_environment

    parent = parent_from_environment()
    install_stop_signals(parent)
    if parent is not None:
        die_with_parent(parent)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(SUITE_SUFFIX):
        return SuiteFile.from_parent(parent, path=file_path)
    return None


class SuiteFile(pytest.File):
    """One suite file; its cases are the items."""

    def collect(self) -> Iterator[pytest.Item]:
        from harness.regulations.catalogue import load_catalogue
        from harness.suites.load.inputs import SUITES_USED
        from harness.suites.load.schema import check_suite_against_profile, load_suite
        from harness.suites.run.session import profile_for

        try:
            profile = profile_for(self.config)[0]
        except InputError:
            profile = None  # reported once by the session fixture, as a usage error
        try:
            suite = load_suite(self.path, profile=profile)
        except InputError as exc:
            # CollectError is shown as its message alone: each file:line:col line and its source
            raise self.CollectError(render(exc, indent="")) from None
        self.config.stash.setdefault(SUITES_USED, {})[str(self.path)] = suite

        try:
            profile, _interp = profile_for(self.config)
        except InputError:
            profile = None  # reported once by the session fixture, as a usage error
        if profile is not None:
            try:
                check_suite_against_profile(suite, profile)
            except InputError as exc:
                raise self.CollectError(render(exc, indent="")) from None
        cat = load_catalogue()
        for case in suite.cases:
            item = CaseItem.from_parent(self, name=case.name, callobj=functools.partial(_run_case, case))
            item.tc_case = case
            item.add_marker(pytest.mark.timeout(item_timeout(case, profile)))
            for cap in sorted(case.requires):
                item.add_marker(pytest.mark.tablecert_requires(cap))
            for cid in case.clauses:
                cat.clause(cid)  # an unknown clause id stops the collection with its name
                item.add_marker(pytest.mark.tablecert_clause(cid))
            item.user_properties.append(("clauses", " ".join(case.clauses)))
            ini = str(self.config.getini("timeout") or "0")  # pytest-timeout's, for every item
            if float(ini) and case.timeout_s + 30 > float(ini):  # a long case's own deadline comes first
                item.add_marker(pytest.mark.timeout(case.timeout_s + 30))
            yield item


#: what an item may take beyond its case's own deadline: recording it, and recovering the devices after it
CASE_GRACE_S = 120


def item_timeout(case: Case, profile: Any) -> int:
    """pytest-timeout's limit for a case item: the case's own deadline (``timeout_s``, which the runner
    enforces on the devices' time) and a grace; none where a person performs acts, whose time is not
    the devices' (each prompt has its own deadline, ``bench.operator.prompt_timeout_s``, and a
    person's time does not count against ``timeout_s``)."""
    if profile is not None and profile.bench.uses_operator:
        return 0
    return case.timeout_s + CASE_GRACE_S


class CaseItem(pytest.Function):
    """A suite case.  A compliance failure is shown as the YAML step, expected and actual, and the
    device transcript tail -- not as a Python traceback into the harness."""

    tc_case: Case | None = None

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        from harness.suites.run.runner import ComplianceFailure

        if isinstance(excinfo.value, ComplianceFailure | DeviceError):
            kind = Verdict.FAIL if isinstance(excinfo.value, ComplianceFailure) else type(excinfo.value).__name__
            tail = getattr(excinfo.value, "transcript_tail", "")
            return f"{kind}: {excinfo.value}" + (f"\n\ndevice transcript (tail):\n{tail}" if tail else "")
        return super().repr_failure(excinfo)


@pytest.fixture(scope="session")
def tc_session(request: pytest.FixtureRequest) -> Iterator[TcSession]:
    """The certification session: profile, devices (emulators started if the profile says so),
    the run recorder.  Closed (ports, emulator processes, record) at the end of the session."""
    from harness.suites.run.session import TcSession

    session = TcSession.from_config(request.config)
    session.total = sum(1 for item in request.session.items if getattr(item, "tc_case", None) is not None)
    if not hasattr(request.config, "workerinput"):  # a worker runs a share of the items it collected
        session.selected = {case.name for item in request.session.items
                            if (case := getattr(item, "tc_case", None)) is not None}
    if session.resuming is not None:
        from harness.suites.run.resuming import begin_sitting

        begin_sitting(request.config, session, session.resuming)
    try:
        yield session
    finally:
        # Ctrl-C between cases (or pytest's own exit): the record says INTERRUPTED, not a device fault
        if request.session.exitstatus == pytest.ExitCode.INTERRUPTED:
            session.interrupted = True
        session.close()


def _run_case(case: Case, tc_session: TcSession) -> None:
    tc_session.run_case(case)


def _cites(item: pytest.Item, patterns: list[str]) -> bool:
    clauses = [m.args[0] for m in item.iter_markers("tablecert_clause")]
    return any(c == p or (p.endswith("*") and c.startswith(p[:-1])) for c in clauses for p in patterns)


def _not_applicable(config: pytest.Config, item: pytest.Item) -> str | None:
    """Why a case does not apply to the run's profile (capability, game, denomination,
    interpretation), or None.  Such cases stay selected: the session records each as NOT APPLICABLE
    with this reason (nothing vanishes from the record), which never makes a run incomplete."""
    case = getattr(item, "tc_case", None)
    if case is None:
        return None
    from harness.suites.load.applicability import not_applicable
    from harness.suites.run.session import profile_for

    try:
        profile, interp = profile_for(config)
    except InputError:
        return None  # reported once by the session fixture, as a usage error
    return not_applicable(profile, interp, case)


def _same_case_ids(items: list[pytest.Item]) -> None:
    """Case ids are unique across the suites of a run (the record keys its cases by id): two suites
    sharing one stop the run before anything starts, naming both, never a crash half-way through."""
    seen: dict[str, Case] = {}
    for item in items:
        case = getattr(item, "tc_case", None)
        if case is None:
            continue
        first = seen.setdefault(case.name, case)
        if first is not case and first.path != case.path:
            raise pytest.UsageError(
                f"{case.path}:{case.line}:{case.col}: case id '{case.name}' is also in {first.path}:{first.line}: "
                "case ids are unique across the suites of a run (the record keys its cases by id); rename one")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    _same_case_ids(items)
    patterns = config.getoption("--tc-clause")
    if patterns:
        keep = [item for item in items if _cites(item, patterns)]
        dropped = [item for item in items if not _cites(item, patterns)]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep
    if config.getoption("--tc-resume"):
        from harness.suites.run.resuming import deselect_finished

        deselect_finished(config, items)  # what is left may be nothing: the record is still finished
        return
    if config.getoption("--tc-profile") and any(
        str(a).endswith(SUITE_SUFFIX) or "suites" in str(a) for a in config.args
    ):
        cases = [item for item in items if getattr(item, "tc_case", None) is not None]
        if not cases:
            raise pytest.UsageError("no certification case selected: an empty selection certifies nothing")
        if all(_not_applicable(config, item) for item in cases):
            raise pytest.UsageError(
                f"none of the {len(cases)} selected case(s) applies to the profile:"
                " an empty selection certifies nothing"
            )



def pytest_collection_finish(session: pytest.Session) -> None:
    """How many of the applicable cases of every suite under ``suites/`` the run selected, kept for
    the record: a run of ``FILE::CASE``, ``-k`` or ``--tc-clause`` is PARTIAL, never a certification.
    A resumed run keeps the selection its first sitting wrote in the journal."""
    config = session.config
    if not config.getoption("--tc-profile") or config.getoption("--tc-resume") \
            or config.getoption("--tc-no-record"):
        return
    from harness.suites.load.applicability import not_applicable
    from harness.suites.load.inputs import suites_used
    from harness.suites.load.schema import expand_suites, load_suite
    from harness.suites.load.stacks import project_root
    from harness.suites.run.session import SELECTION, profile_for

    try:
        profile, interp = profile_for(config)
    except InputError:
        return  # reported once by the session fixture, as a usage error
    scope = project_root() / "suites"
    loaded = suites_used(config)
    applicable: set[str] = set()
    for path in expand_suites([scope]):
        try:
            suite = loaded.get(str(path)) or load_suite(path, profile=profile)
        except InputError:
            continue  # a suite that does not load is not part of what can be certified
        applicable |= {c.name for c in suite.cases if not_applicable(profile, interp, c) is None}
    cases = (getattr(item, "tc_case", None) for item in session.items)
    selected = {case.name for case in cases if case is not None}
    config.stash[SELECTION] = {"selected": len(applicable & selected), "applicable": len(applicable),
                               "scope": "suites/"}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A resumed run whose every case had finished before: its sitting still checks the devices'
    identity and finishes the record (no case item asked for the session fixture)."""
    if session.config.getoption("--tc-resume") and not hasattr(session.config, "workerinput") \
            and exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        from harness.suites.run.resuming import finish_if_nothing_ran

        finish_if_nothing_ran(session)


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, Any] | None:
    """A case that does not apply to the profile is NOT APPLICABLE in pytest's own lines and tally
    too (pytest would count it "skipped": a skip is a case that could not run; this one has nothing to run)."""
    if report.skipped and Verdict.NOT_APPLICABLE in str(report.longrepr):
        return "not applicable", "n", (Verdict.NOT_APPLICABLE, {"yellow": True})
    return None


# -- progress for `tablecert run` (one JSON line per event on --tc-progress-fd) -----------------------

class ProgressReporter:
    """Registered by :func:`pytest_configure` in the controlling process when ``--tc-progress-fd``
    is given (never in an xdist worker: the descriptor belongs to the controller)."""

    def __init__(self, config: pytest.Config, fd: int) -> None:
        self.config = config
        self.sent_collected = False
        try:
            self.stream: Any = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
        except OSError:
            self.stream = None

    def send(self, event: dict[str, Any]) -> None:
        if self.stream is None:
            return
        try:
            self.stream.write(json.dumps(event) + "\n")
        except OSError:  # the display went away; the run goes on
            self.stream = None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        cases = [item for item in session.items if getattr(item, "tc_case", None) is not None]
        applicable = sum(1 for item in cases if not _not_applicable(session.config, item))
        self.sent_collected = True
        self.send({"collected": len(session.items), "applicable": applicable})

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if not self.sent_collected:
            self.sent_collected = True
            self.send({"collected": len(ids)})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" and not (report.when == "setup" and not report.passed):
            return
        outcome = report.outcome.upper()
        if report.skipped and Verdict.NOT_APPLICABLE in str(report.longrepr):
            outcome = Verdict.NOT_APPLICABLE
        self.send({"done": report.nodeid, "outcome": outcome})

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.stream is not None:
            with contextlib.suppress(OSError):
                self.stream.close()
            self.stream = None
