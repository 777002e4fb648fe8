"""One certification session: a profile, its rig, the oracle, and the run record.

The pytest plugin creates one per pytest session (one per xdist worker, each with its own emulator
instance).  :meth:`TcSession.run_case` decides whether a case applies to the profile, runs it, and
records it; a compliance FAIL, a rig ERROR and a TIMEOUT are kept distinct.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
import time
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from harness.bench.acts import RedoCase, TurnResetKey
from harness.bench.session import BenchSession
from harness.bench.twin import bench_twin
from harness.devices.contract import ContractError
from harness.errors import DeviceError, InputError
from harness.games.interpretations import Interpretations
from harness.interrupts import deferred
from harness.profiles import load_profile
from harness.profiles.model import Profile
from harness.record import contract_findings
from harness.record.journal import RunRecorder
from harness.record.model import Measurement, RecordedIdentity, RunMeta
from harness.regulations.catalogue import load_catalogue
from harness.suites.load.applicability import not_applicable
from harness.suites.load.inputs import check_inputs, in_checkout, input_files, resumption, suites_used
from harness.suites.load.model import Case
from harness.suites.load.stacks import project_root
from harness.suites.run.context import CaseContext, Measured
from harness.suites.run.oracle import Oracle
from harness.suites.run.profile_rig import open_rig
from harness.suites.run.rig import Rig
from harness.suites.run.runner import CaseRunner, verdict_of
from harness.verdict import Verdict

DEFAULT_PROFILE = Path("device_profiles") / "emulated-midi-5.yaml"
#: a case whose premise does not hold at the table (a misstack) is run at most this often
MAX_ATTEMPTS = 3
ROLE_OF_CAPABILITY = {"power-control": "power", "latency-counter": "counter"}


class TcSession:
    def __init__(self, profile: Profile, *, recorder: Any = None, listen: str = "pty",
                 defects: tuple[str, ...] = ()) -> None:
        self.profile = profile
        self.interp = Interpretations.from_overrides(dict(profile.interpretations))
        self.oracle = Oracle(profile, self.interp)
        self.recorder = recorder
        self.listen = listen
        self.defects = defects
        self.rig: Rig | None = None
        self.rig_error: str | None = None
        self.dead: dict[str, str] = {}
        #: the operator stopped the run (Ctrl-C): the record's verdict is INTERRUPTED
        self.interrupted = False
        #: the bench: performers, actuators, prompts (opened with the rig; harness.bench.session)
        self.bench: BenchSession | None = None
        self.operator = ""
        #: cases in this run, and those finished (the bench console's progress)
        self.total = 0
        self.done = 0
        #: the interrupted or killed run this session continues (tablecert run --resume)
        self.resuming: Any = None
        #: the record's contract section (versions negotiated, findings; harness.record.contract_findings)
        self.contract: dict[str, Any] = {"versions": {}, "findings": []}
        #: ids of the cases selected for this session (None: not known, an xdist worker's share);
        #: the record is finished as a whole run only when each has a verdict
        self.selected: set[str] | None = None
        #: a write of the record failed (disk full, file too large, path too long): the run stops
        self.host_fault: str | None = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_config(cls, config: pytest.Config) -> TcSession:
        try:
            profile, _interp = profile_for(config)
        except InputError as exc:
            raise pytest.UsageError(str(exc)) from None
        recorder = None
        resume = resumption(config)
        if resume is not None:
            if config.getoption("--tc-no-record"):
                raise pytest.UsageError("--tc-resume continues a record; --tc-no-record writes none")
            check_inputs(config, resume, profile)  # the recorder comes with the sitting (harness.suites.run.resuming)
        elif not config.getoption("--tc-no-record"):
            try:
                recorder = _make_recorder(config, profile)
            except OSError as exc:  # no room, a read-only folder, a path too long: nothing can be certified
                pytest.exit(f"tablecert: the run record cannot be written: {_host_fault(exc)}",
                            returncode=HOST_FAULT_EXIT)
            except InputError as exc:  # the run folder exists, or another process writes it
                raise pytest.UsageError(str(exc)) from None
        session = cls(profile, recorder=recorder, listen=config.getoption("--tc-listen"),
                      defects=tuple(config.getoption("--tc-defect")))
        session.operator = config.getoption("--tc-operator") or ""
        session.resuming = resume
        return session

    # ------------------------------------------------------------------ devices

    def _ensure_rig(self, case: Case) -> Rig:
        """The open rig; a rig that cannot be opened ends this case as ERROR (recorded, with the
        reason) and every later case as SKIP with the same reason: nothing vanishes."""
        if self.rig is not None:
            return self.rig
        if self.rig_error is not None:
            why = f"devices unavailable: {self.rig_error}"
            self._record_skip(case, why)
            pytest.skip(why)
        try:
            self.rig = open_rig(self.profile, listen=self.listen, defects=self.defects)
        except (DeviceError, OSError, InputError) as exc:
            self.rig_error = f"{type(exc).__name__}: {exc}"
            if self.recorder is not None:
                self.recorder.end_case(self._begin(case), Verdict.ERROR,
                                       f"the devices could not be opened: {self.rig_error}",
                                       reproduce=_reproduce(case, self.profile, self.defects))
            raise
        if self.recorder is not None:
            self._record_identities("start")
            self.contract = {"versions": contract_findings.versions(self.rig.devices()), "findings": []}
            if self.contract["versions"]:
                self.recorder.set_contract(self.contract)
        self.open_bench(self.rig)
        return self.rig

    def open_bench(self, rig: Rig, run_id: str = "") -> None:
        """The bench's performers, actuators and prompt front ends (a failure is the rig's)."""
        run_id = self.recorder.run_id if self.recorder is not None else run_id
        self.bench = BenchSession(self.profile, operator=self.operator, run_id=run_id)
        try:
            self.bench.open(rig)
        except (DeviceError, OSError, InputError) as exc:
            self.rig_error = f"{type(exc).__name__}: {exc}"
            raise
        if self.recorder is not None:
            self.recorder.set_bench(self.bench.summary())

    def _record_identities(self, when: str) -> None:
        for role, ident in self.read_identities().items():
            self.recorder.set_identity(when, role, ident)

    def read_identities(self) -> dict[str, Any]:
        """Each answering device's identity now: the 607a.2(b) fields of the table devices, an
        instrument's ``*IDN?`` answer as its model (role -> :class:`RecordedIdentity`)."""
        assert self.rig is not None
        out: dict[str, Any] = {}
        for role, dev in self.rig.devices().items():
            ident = getattr(dev, "identity", None)
            if ident is None or role in self.dead:
                continue
            try:
                got = ident() if role.rsplit(".", 1)[-1] in ("shoe", "sensors", "controller", "link-controller") \
                    else None
                if got is None:
                    out[role] = RecordedIdentity(model=dev.idn())  # type: ignore[attr-defined]
                    continue
            except DeviceError:
                continue
            out[role] = RecordedIdentity(**{k: v for k, v in got.to_dict().items() if v is not None})
        return out

    def close(self) -> None:
        # a signal now (the run's parent gone, a second Ctrl-C) waits until the record is finished
        with deferred():
            self._close()

    def _close(self) -> None:
        try:
            if self.rig is not None and self.recorder is not None:
                with contextlib.suppress(Exception):  # best effort after a device died
                    self._record_identities("end")
        finally:
            if self.bench is not None:
                self.bench.close()
            if self.rig is not None:
                self.rig.close()
            if self.recorder is not None:
                self._finish_record()

    def _finish_record(self) -> None:
        """Finish the record: INTERRUPTED (resumable) when a selected case has no verdict, whatever
        ended the session; not at all after a host fault (the journal keeps the finished cases and
        ``tablecert run --resume`` continues it)."""
        assert self.recorder is not None
        if self.host_fault is not None:
            sys.stderr.write(f"\ntablecert: the record of run {self.recorder.run_id} was left unfinished: "
                             f"{self.host_fault}; its journal keeps every finished case (tablecert run --resume "
                             f"{self.recorder.run_dir})\n")
            self.recorder.release()
            return
        recorded = {c.case_id for c in self.recorder.record.cases}
        missing = sorted((self.selected or set()) - recorded)
        if missing and not self.interrupted:
            self.interrupted = True
            sys.stderr.write(f"\ntablecert: {len(missing)} selected case(s) have no verdict (first: {missing[0]}): "
                             "the record is INTERRUPTED, and tablecert run --resume runs them\n")
        try:
            path = self.recorder.finish(interrupted=self.interrupted)
        except OSError as exc:
            self.recorder.release()
            self.host_fault = _host_fault(exc)
            sys.stderr.write(f"\ntablecert: the record of run {self.recorder.run_id} could not be finished: "
                             f"{self.host_fault} (tablecert run --resume {self.recorder.run_dir} finishes it)\n")
            return
        sys.stderr.write(f"\ntablecert: record written to {path}\n")

    # ------------------------------------------------------------------ cases

    def applies(self, case: Case) -> str | None:
        """Why a case does not apply to this profile, or None."""
        return not_applicable(self.profile, self.interp, case)

    def run_case(self, case: Case) -> None:
        why = self.applies(case)
        if why:
            self._record_skip(case, why, outcome=Verdict.NOT_APPLICABLE)
            pytest.skip(f"NOT APPLICABLE: {why}")
        needed = {"shoe", "sensors", "controller"} | {ROLE_OF_CAPABILITY[c] for c in case.requires
                                                      if c in ROLE_OF_CAPABILITY}
        dead = sorted(r for r in needed if r in self.dead)
        if dead:
            why = "; ".join(f"{r} stopped answering earlier ({self.dead[r]})" for r in dead)
            self._record_skip(case, why)
            pytest.skip(why)
        rig = self._ensure_rig(case)
        rec = self._begin(case)
        marks = {name: len(t) for name, dev in rig.devices().items() if (t := dev.transcript) is not None}
        def on_step(i: int, step: Any, outcome: str, detail: dict[str, Any]) -> None:
            if rec is not None:
                rec.step(i, step.source.strip(), step.line, outcome, detail)

        def on_measure(m: Measured) -> None:
            if rec is not None:
                rec.measure(Measurement(m.name, _jsonable(m.value), m.unit, _jsonable(m.limit), m.outcome,
                                        m.clause, m.detail))

        points: dict[str, list[tuple[str, int] | tuple[str, int, str]]] = {}
        case_t0 = time.monotonic_ns()

        def meter_point(meter: str, cents: int, marks: tuple[str, ...] = ()) -> None:
            # the reading's time: milliseconds since the case began, to 0.1 ms (a decimal string)
            t_ms = str(Decimal((time.monotonic_ns() - case_t0) // 100_000) / 10)
            series = points.setdefault(meter, [])
            series.append((t_ms, cents, "+".join(marks)) if marks else (t_ms, cents))

        def make_runner() -> CaseRunner:
            made = CaseRunner(case, rig, self.oracle, on_measure=on_measure, on_step=on_step, meter_point=meter_point,
                              performers=self.bench.performers if self.bench is not None else None)
            made.host_jitter_ms = self.bench.jitter_ms if self.bench is not None else None
            return made

        verdict, message = Verdict.PASS, None
        if self.bench is not None:
            self.bench.case_started(case.name, case.title, self.done, self.total)
        runner = make_runner()
        try:
            runner = self._run_redoing(runner, make_runner, rec, rig)
        except BaseException as exc:
            verdict, message = verdict_of(exc)
            if isinstance(exc, DeviceError):
                self._note_dead(rig, exc)
            if verdict == Verdict.INTERRUPTED:
                # Ctrl-C (KeyboardInterrupt) or pytest's own exit: the operator stopped the run; the
                # device did nothing wrong and the case has no verdict of its own
                self.interrupted = True
            if verdict in (Verdict.INCONCLUSIVE, Verdict.NOT_APPLICABLE):
                # nothing failed but the case cannot be decided, or the device's permitted choice
                # made the rest of the case moot
                pytest.skip(f"{verdict}: {exc}")
            raise
        finally:
            with deferred(), self._writing():  # a Ctrl-C now would cut the case's record in two
                self.done += 1
                if self.bench is not None:
                    self.bench.case_finished(case.name, verdict, self.done, self.total)
                self._bench_evidence(rec, runner)
                tails = self._evidence(rig, rec, marks)
                if self.recorder is not None and contract_findings.collect(self.contract, rig.devices(), case.name):
                    self.recorder.set_contract(self.contract)
                for meter, pts in points.items():
                    if rec is not None:
                        rec.meter_timeline(meter, pts)
                if verdict not in (Verdict.PASS, Verdict.NOT_APPLICABLE) and tails:
                    message = (message or "") + "\n\ndevice transcript (tail):\n" + tails
                    exc_now = sys.exc_info()[1]
                    if exc_now is not None:
                        exc_now.transcript_tail = tails  # type: ignore[attr-defined]
                if rec is not None:
                    self.recorder.end_case(rec, verdict, message,
                                           reproduce=_reproduce(case, self.profile, self.defects))
            if self.host_fault is not None:
                pytest.exit(f"tablecert: run stopped: the record cannot be written: {self.host_fault}",
                            returncode=HOST_FAULT_EXIT)
            if verdict not in (Verdict.PASS, Verdict.INTERRUPTED, Verdict.INCONCLUSIVE):
                self._recover(rig, runner)
            elif verdict != Verdict.INTERRUPTED:
                self._pay_leftover(rig, runner)

    @contextlib.contextmanager
    def _writing(self) -> Any:
        """A write of the record that fails on the host (disk full, ``ulimit -f``, a path too long)
        is a host fault: noted, and the run stops after this case (exit 3), never a device verdict."""
        try:
            yield
        except OSError as exc:
            self.host_fault = _host_fault(exc)

    def _run_redoing(self, runner: CaseRunner, make_runner: Any, rec: Any, rig: Rig) -> CaseRunner:
        """Run the case; when its premise did not hold at the table (a misstacked shoe) void the
        round and run it again, up to :data:`MAX_ATTEMPTS` times.  A redo is never a verdict: the
        discarded attempt is kept as evidence."""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                runner.run()
                return runner
            except RedoCase as exc:
                if rec is not None:
                    rec.attach(f"redo-{attempt}.json", _json_bytes({
                        "attempt": attempt, "why": str(exc),
                        "steps": [st.to_dict() for st in rec.steps],
                        "measurements": [m.to_dict() for m in rec.measurements]}), kind="redo")
                    rec.steps.clear()
                    rec.measurements.clear()
                if attempt == MAX_ATTEMPTS:
                    raise DeviceError(f"the case was redone {attempt} times and its premise still did not hold "
                                      f"at the table: {exc}") from None
                self._bench_evidence(rec, runner)
                self._recover(rig, runner)
                runner = make_runner()
        return runner

    def _bench_evidence(self, rec: Any, runner: CaseRunner) -> None:
        """Every prompt and answer of the case, and the cards read from shoes dealt live, as evidence
        (plain data: the operator's words, and card sequences for the randomness statistics)."""
        if rec is None:
            return
        prompts = self.bench.prompts() if self.bench is not None else []
        if prompts:
            rec.attach("operator-prompts.json", _json_bytes(prompts), kind="operator")
        if runner.observed:
            rec.attach("observed-cards.json", _json_bytes({"shoes": runner.observed}), kind="observed-cards")
            runner.observed = []

    def _recover(self, rig: Rig, runner: CaseRunner | None = None) -> None:
        """Best effort after a case that did not pass: leave no round half-dealt for the next case.
        A round that can be voided is voided; otherwise the controller is power-cycled through the
        bench supply when there is one (meters are non-volatile, the open round is lost).  A hit
        still waiting for the reset key (one the case did not mean to win, such as a wager the
        device should have refused) has the key turned by whoever turns it on this bench, so the
        next case is not refused a round for another case's award."""
        recover = getattr(rig, "recover", None)  # a link's rig restores its links and voids every round
        if recover is not None:
            recover()
            return
        ctrl = rig.controller
        if ctrl is None or "controller" in self.dead:
            return
        try:
            ctrl.settle_round()  # type: ignore[attr-defined]
        except (DeviceError, AttributeError):
            self._power_cycle(rig, ctrl)
        self._refile_meters(ctrl)
        if runner is not None:
            with contextlib.suppress(DeviceError):
                settle_pending_keys(runner)

    def _pay_leftover(self, rig: Rig, runner: CaseRunner | None) -> None:
        """After a case that passed: an award it did not script (a mystery trigger its rounds
        reached, paid by the attendant) still waits for the reset key; the attendant pays it and
        turns the key, so the next case is not refused a round for this one's award.  A link's rig
        settles its own tables (its recovery)."""
        if runner is None or rig.controller is None or "controller" in self.dead \
                or getattr(rig, "recover", None) is not None:
            return
        with contextlib.suppress(DeviceError):
            settle_pending_keys(runner)

    def _power_cycle(self, rig: Rig, ctrl: Any) -> None:
        if rig.power is None or "power" in self.dead:
            return
        with contextlib.suppress(DeviceError):
            rig.power.output(False)
            rig.power.output(True)
            deadline = time.monotonic() + 5.0
            while time.monotonic() < deadline:
                try:
                    ctrl.ping()
                    break
                except DeviceError:
                    time.sleep(0.05)

    def _refile_meters(self, ctrl: Any) -> None:
        """A case that did not end may leave one of its writes in force (a write answered after its
        deadline, a case stopped before it wrote the filed values back): each meter whose payout limit,
        display capacity, rate, initial or reset amount differs from the Rules Submission is written
        back, all its fields at once (and a denomination that is not the filed one), so the next case
        starts from the profile, not from the last case's probe.  Best effort: a refusal or a fault is
        left for the next case to find."""
        rules = self.profile.rules
        try:
            cfg = ctrl.config()
        except (DeviceError, AttributeError):
            return
        if rules.denomination is not None and cfg.denomination != rules.denomination * 100:
            with contextlib.suppress(DeviceError):
                ctrl.set_config(denomination=rules.denomination * 100)
        for name, filed in rules.meters.items():
            got = cfg.meters.get(name)
            if got is None:
                continue
            fields = ("rate", "initial", "reset", "payout_limit", "display_capacity")
            want = {f: getattr(filed, f) for f in fields if getattr(filed, f) is not None}
            if all(getattr(got, f) == v for f, v in want.items()):
                continue
            with contextlib.suppress(DeviceError):
                ctrl.set_config(meters={name: {f: str(v) if f == "rate" else v for f, v in want.items()}})

    def _note_dead(self, rig: Rig, exc: Exception) -> None:
        for role, dev in rig.devices().items():
            ping = getattr(dev, "ping", None)
            if ping is None:
                continue
            try:
                ping()
            except DeviceError as err:
                self.dead[role] = str(err) or str(exc)

    def _evidence(self, rig: Rig, rec: Any, marks: dict[str, int]) -> str:
        tails = []
        for name, dev in rig.devices().items():
            t = dev.transcript
            if t is None:
                continue
            entries = list(t.entries)[marks.get(name, 0):]
            lines = [t.format(e) for e in entries]
            if lines:
                text = "\n".join(lines) + "\n"
                if rec is not None:
                    rec.attach(f"{name}-transcript.txt", text.encode(), kind="transcript")
            tails.append("\n".join(f"  [{name}] {line}" for line in t.tail(6)))
        return "\n".join(x for x in tails if x)

    def _begin(self, case: Case) -> Any:
        if self.recorder is None:
            return None
        return self.recorder.begin_case(case.name, case.title, list(case.clauses), in_checkout(case.path),
                                        {**case.variant, **{f"given {k}": v for k, v in case.given.items()}})

    def _record_skip(self, case: Case, why: str, outcome: str = Verdict.SKIP) -> None:
        """Record a case that did not run: NOT APPLICABLE to the profile, or SKIP (could not run)."""
        if self.recorder is None:
            return
        with deferred(), self._writing():
            rec = self._begin(case)
            self.recorder.end_case(rec, outcome, why, reproduce=_reproduce(case, self.profile, self.defects)
                                   if outcome == Verdict.SKIP else None)
        if self.host_fault is not None:
            pytest.exit(f"tablecert: run stopped: the record cannot be written: {self.host_fault}",
                        returncode=HOST_FAULT_EXIT)


#: pytest's exit status when a host fault stopped the run (harness.exitcodes.RIG_ERROR)
HOST_FAULT_EXIT = 3


def _host_fault(exc: OSError) -> str:
    """One line for a write the host refused."""
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{exc.strerror or type(exc).__name__}{where}"


def turn_pending_keys(runner: CaseContext) -> tuple[str, ...]:
    """Turn the reset key of every meter the controller reports a payment pending on (461a.12(b)(5)):
    an attendant-paid hit waits for it; a table-paid hit (a mystery award) never does."""
    pending = runner.read_meters().pending
    for name in pending:
        runner.perform(TurnResetKey(name))
    if pending:
        runner.read_meters()
    return pending


def settle_pending_keys(runner: CaseContext) -> tuple[str, ...]:
    """Between cases: :func:`turn_pending_keys`; where the controller's ``pending`` is outside its
    contract (unreadable, docs/protocol.md section 3), the key of every meter it reports is turned
    instead, each refused where nothing waits, so one case's unread award does not refuse the next
    case its rounds: the fault stays with the cases that read ``pending``."""
    try:
        return turn_pending_keys(runner)
    except ContractError:
        turned = []
        for name in runner.read_meters().meters:
            try:
                runner.perform(TurnResetKey(name, probe=True))
            except DeviceError:
                continue  # refused: nothing waited for this key
            turned.append(name)
        return tuple(turned)


_PROFILE_KEY = pytest.StashKey[tuple[Profile, Interpretations]]()


#: what the run selected of the certification suites (RunMeta.selection), counted by the plugin
#: when collection finishes; absent for a resumed run (its journal keeps the first sitting's)
SELECTION = pytest.StashKey[dict[str, Any]]()


def selection(config: pytest.Config) -> dict[str, Any] | None:
    """The plugin's count of the selection (harness.plugin.pytest_collection_finish), or None."""
    return config.stash.get(SELECTION, None)


def profile_for(config: pytest.Config) -> tuple[Profile, Interpretations]:
    """The run's profile and interpretations, loaded once per pytest session."""
    if _PROFILE_KEY not in config.stash:
        path = config.getoption("--tc-profile") or str(project_root() / DEFAULT_PROFILE)
        profile = load_profile(path)
        if config.getoption("--tc-bench-twin"):
            profile = bench_twin(profile, rehearsal=bool(config.getoption("--tc-bench-rehearsal")))
        config.stash[_PROFILE_KEY] = (profile, Interpretations.from_overrides(dict(profile.interpretations)))
    return config.stash[_PROFILE_KEY]


def _jsonable(value: Any) -> Any:
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return str(value)


def _reproduce(case: Case, profile: Profile, defects: tuple[str, ...] = ()) -> dict[str, Any]:
    """What a vendor needs to run this case again on the same devices: the exact command (profile,
    suite and case by pytest node id, the emulator defects a run switched on), and the seeds of its
    randomised steps."""
    suite = _relative(case.path)
    command = ["tablecert", "run", f"{suite}::{case.name}", "--profile", _relative(profile.source_path)]
    for name in defects:
        command += ["--defect", name]
    seeds = {f"step {i} ({s.action})": s.args["seed"] for i, s in enumerate(case.steps, 1)
             if isinstance(s.args, dict | MappingProxyType) and "seed" in s.args}
    out: dict[str, Any] = {
        "command": shlex.join(command),
        "profile": _relative(profile.source_path),
        "suite": suite,
        "case": case.name,
        "steps": [s.source.strip() for s in case.steps],
    }
    if seeds:
        out["seeds"] = _jsonable(seeds)
    if defects:
        out["defects"] = list(defects)
    return out


def command_line(argv: list[str]) -> list[str]:
    """The pytest command of the run as the record keeps it: ``pytest`` for the interpreter's
    entry point, and every existing path under the checkout relative to it."""
    out = ["pytest"]
    for arg in argv[1:]:
        path, sep, rest = arg.partition("::")
        out.append(in_checkout(path) + sep + rest if os.path.isabs(path) and os.path.exists(path) else arg)
    return out


def _relative(path: str | Path) -> str:
    """A path as the user would type it from the checkout (relative when under it)."""
    p = Path(path).resolve()
    try:
        return p.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        try:
            return p.relative_to(project_root().resolve()).as_posix()
        except ValueError:
            return p.as_posix()


def _make_recorder(config: pytest.Config, profile: Profile) -> Any:
    root = Path(config.getoption("--tc-report-dir") or project_root() / "reports")
    # an xdist worker of *this* session (not an environment variable a parent session left behind)
    worker = getattr(config, "workerinput", {}).get("workerid")
    run_id = config.getoption("--tc-run-id")
    station = config.getoption("--tc-station") or ""
    if worker:
        station = f"{station}-{worker}" if station else worker
        if run_id:
            run_id = f"{run_id}-{worker}"
    meta = RunMeta(
        profile_name=profile.name,
        jurisdiction=profile.jurisdiction or "",
        game=profile.game,
        # the standards cited follow from the clauses in scope (harness.record.matrix), not from a list here
        standards=[],
        submitting_party=config.getoption("--tc-submitting-party") or profile.report.get("submitting_party", ""),
        lab=config.getoption("--tc-lab") or profile.report.get("lab", ""),
        operator=config.getoption("--tc-operator") or "",
        station=station,
        pre_submission=bool(config.getoption("--tc-pre-submission")),
        command=command_line(sys.argv),
        run_id=run_id,
        selection=selection(config),
    )
    rec = RunRecorder.create(root, meta)
    rec.add_input_file(profile.source_path, "profile", name=in_checkout(profile.source_path))
    rec.set_profile_snapshot(dict(profile.raw))
    cat = load_catalogue()
    interp = Interpretations.from_overrides(dict(profile.interpretations)).as_dict()
    rec.set_interpretations([
        {"id": k, "value": v, "default": cat.interpretation(k).default if _known(cat, k) else None,
         "overridden": k in profile.interpretations,
         "reason": cat.interpretation(k).reason if _known(cat, k) else ""}
        for k, v in sorted(interp.items())
    ])
    for path, kind in input_files(suites_used(config)):
        rec.add_input_file(path, kind)
    return rec


def _known(cat: Any, interp_id: str) -> bool:
    try:
        cat.interpretation(interp_id)
        return True
    except Exception:
        return False


def _json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
