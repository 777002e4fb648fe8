"""The host fault matrix: what the host does to a run never turns into a PASS or a broken record (issue 32).

Each fault is done to a real ``tablecert run`` of the Mini-Baccarat profile (the three-streak
suite: 7 applicable cases and 1 not applicable, seconds each), and the same three things are checked
every time:

1. no PASS for an incomplete run: the exit status and the record's verdict are never PASS while a
   selected case has no verdict;
2. the record verifies, or ``tablecert verify`` refuses it with a message (exit 3 "incomplete",
   never a traceback);
3. every finished case is kept, and ``tablecert run --resume`` runs the rest to the end: the final
   record holds every case, verifies and says PASS.

No process may be left behind: the run's pytest process and its emulators are gone once the run's
command returned (or was killed and its child noticed).

``python -m harness.selfcheck.faultmatrix [FAULT...]`` prints one line per fault (exit 0 when every fault held);
``tests/faults/test_host_faults.py`` runs each fault as a test.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness import exitcodes
from harness.errors import InputError
from harness.record import load_record
from harness.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "suites" / "washington" / "wac-230-15-040-streak3.suite.yaml"
PROFILE = ROOT / "device_profiles" / "emulated-mini-baccarat.yaml"
#: cases the selection holds (7 applicable, 1 not applicable): the resumed record must hold them all
CASES = 8
#: a run of the matrix's one suite that ran to the end: PARTIAL (one suite of the certification,
#: harness.record.document.Record.partial), or PASS where the suite is the whole selection
DONE = (Verdict.PASS, Verdict.PARTIAL)
DONE_EXITS = (exitcodes.PASS, exitcodes.PARTIAL)
#: every wait's deadline (a loaded machine; nothing may hang)
DEADLINE_S = 180.0


def run_command(report_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "harness", "run", str(SUITE), "-q", "--profile", str(PROFILE),
            "--report-dir", str(report_dir), *extra]


def tablecert(*args: str, max_file_bytes: int | None = None) -> subprocess.CompletedProcess[str]:
    """``tablecert ARGS`` run to the end."""
    return subprocess.run(host([sys.executable, "-m", "harness", *args], max_file_bytes=max_file_bytes), cwd=ROOT,
                          capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=DEADLINE_S,
                          check=False)


def host(command: list[str], *, sigint_ignored: bool = False, max_file_bytes: int | None = None) -> list[str]:
    """``command`` as a host may start it: SIGINT ignored (a shell without job control starting a
    background command: it and everything it starts ignore SIGINT), or ``ulimit -f`` (RLIMIT_FSIZE).
    A small Python that sets these and ``exec``s the command, which keeps them and the pid."""
    setup = ["import os, resource, signal, sys"]
    if sigint_ignored:
        setup.append("signal.signal(signal.SIGINT, signal.SIG_IGN)")
    if max_file_bytes is not None:
        setup.append(f"resource.setrlimit(resource.RLIMIT_FSIZE, ({max_file_bytes}, {max_file_bytes}))")
    setup.append("os.execv(sys.argv[1], sys.argv[1:])")
    return [sys.executable, "-c", "; ".join(setup), *command]


def start(report_dir: Path, *extra: str, sigint_ignored: bool = False,
          max_file_bytes: int | None = None) -> subprocess.Popen[str]:
    """Start ``tablecert run`` as a script would (see :func:`host`)."""
    return subprocess.Popen(host(run_command(report_dir, *extra), sigint_ignored=sigint_ignored,
                                 max_file_bytes=max_file_bytes),
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            text=True, encoding="utf-8", errors="replace")


def reap(proc: subprocess.Popen[str]) -> None:
    """Kill ``proc`` if it is still running, and wait for it."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(10)


def finish(proc: subprocess.Popen[str]) -> str:
    """``proc``'s output once it ended (within :data:`DEADLINE_S`; killed if it did not)."""
    try:
        return proc.communicate(timeout=DEADLINE_S)[0]
    finally:
        reap(proc)


def applicable_done(journal: Path) -> int:
    """Applicable cases with a verdict in a journal so far."""
    try:
        lines = journal.read_text("utf-8", "replace").splitlines()
    except OSError:
        return 0
    return sum(1 for line in lines if '"type":"case"' in line and '"NOT APPLICABLE"' not in line)


def wait_for_cases(report_dir: Path, n: int, proc: subprocess.Popen[str]) -> Path:
    """The run folder once its journal holds ``n`` applicable cases (the run still going)."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        for journal in report_dir.glob("*/journal.jsonl"):
            if applicable_done(journal) >= n:
                return journal.parent
        if proc.poll() is not None:
            raise RuntimeError(f"the run ended (status {proc.returncode}) before {n} case(s) finished")
        time.sleep(0.05)
    raise RuntimeError(f"no {n} finished case(s) within {DEADLINE_S:.0f} s")


def children(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc)."""
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as fh:
                for kid in map(int, fh.read().split()):
                    out += [kid, *children(kid)]
    return out


def alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def wait_gone(pids: Sequence[int], seconds: float = 15.0) -> list[int]:
    """The pids still alive after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def kill_all(pids: Sequence[int]) -> None:
    """Clean-up of what a failed check left (by pid: only processes this matrix started)."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@dataclass
class FaultOutcome:
    """What one fault left and what ``verify`` and ``--resume`` said of it."""

    fault: str
    status: int | None = None
    verdict: str = "-"
    kept: int = 0
    verify: str = "-"
    resume: str = "-"
    final: str = "-"
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def line(self) -> str:
        head = (f"{'ok  ' if self.ok else 'FAIL'} {self.fault:<26} exit {self.status!s:<4} record {self.verdict:<11} "
                f"kept {self.kept}; verify: {self.verify}; resume: {self.resume} -> {self.final}")
        return head + "".join(f"\n       problem: {p}" for p in self.problems)


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def no_traceback(out: FaultOutcome, what: str, text: str) -> None:
    if "Traceback (most recent call last)" in text:
        tail = text[text.index("Traceback (most recent call last)"):].strip().splitlines()
        out.problems.append(f"{what} printed a traceback: " + " | ".join(tail[-3:]))


def judge(out: FaultOutcome, report_dir: Path, *, resume: bool = True) -> FaultOutcome:
    """The three checks of the module docstring, on the one run folder under ``report_dir``."""
    dirs = [d for d in report_dir.iterdir() if d.is_dir()]
    if len(dirs) != 1:
        out.problems.append(f"{len(dirs)} run folders, not 1")
        return out
    run_dir = dirs[0]
    try:
        record = load_record(run_dir)
    except InputError as exc:
        out.problems.append(f"the record cannot be read: {exc}")
        return out
    finished = {c.case_id: c.finished_at for c in record.cases if c.verdict != Verdict.INTERRUPTED}
    out.kept = len(finished)
    out.verdict = record.derived_verdict()[0] if record.complete else "UNFINISHED"
    if (out.status in DONE_EXITS or out.verdict in DONE) and len(record.cases) < CASES:
        out.problems.append(f"an incomplete run said PASS (exit {out.status}, record {out.verdict}, "
                            f"{len(record.cases)} of {CASES} cases)")
    ver = tablecert("verify", str(run_dir))
    said = first_line(ver.stdout + ver.stderr).replace(f"{run_dir}: ", "").replace(str(run_dir), "RUN")
    out.verify = f"exit {ver.returncode} {said[:70]}"
    no_traceback(out, "verify", ver.stdout + ver.stderr)
    if ver.returncode not in (0, 3):
        out.problems.append(f"verify neither verified nor refused as incomplete: exit {ver.returncode}")
    if not resume:
        return out
    res = tablecert("run", "--resume", str(run_dir), "-q")
    no_traceback(out, "resume", res.stdout + res.stderr)
    overall = [line for line in res.stdout.splitlines() if line.startswith("overall:")]
    out.resume = f"exit {res.returncode} {overall[-1] if overall else first_line(res.stderr)[:60]}"
    after = load_record(run_dir)
    out.final = f"{after.derived_verdict()[0]} ({len(after.cases)} cases)"
    if res.returncode not in DONE_EXITS or after.derived_verdict()[0] not in DONE or len(after.cases) != CASES:
        out.problems.append(f"the run did not resume to the end: {out.resume}; {out.final}")
    kept_after = {c.case_id: c.finished_at for c in after.cases}
    lost = [cid for cid, at in finished.items() if kept_after.get(cid) != at]
    if lost:
        out.problems.append(f"finished case(s) not kept as they were: {', '.join(lost)}")
    if tablecert("verify", str(run_dir)).returncode != 0:
        out.problems.append("the resumed record does not verify")
    return out


def _signal_run(fault: str, tmp: Path, sig: int, *, target: str, sigint_ignored: bool = False) -> FaultOutcome:
    """Start a run, let 2 applicable cases finish, send ``sig`` to the run (``target`` "parent") or
    to its pytest process ("child"), then judge what is left."""
    out = FaultOutcome(fault)
    proc = start(tmp, sigint_ignored=sigint_ignored)
    family: list[int] = []
    try:
        wait_for_cases(tmp, 2, proc)
        family = children(proc.pid)
        pytest_pid = next(p for p in family if "pytest" in _cmdline(p))
        os.kill(proc.pid if target == "parent" else pytest_pid, sig)
        try:
            text, _ = proc.communicate(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            out.problems.append("tablecert run did not end")
            text = ""
        out.status = proc.returncode
        no_traceback(out, "tablecert run", text)
        left = wait_gone(family)
        if left:
            out.problems.append(f"process(es) left behind: {', '.join(_cmdline(p)[:60] for p in left)}")
            kill_all(left)
    finally:
        reap(proc)
        kill_all([p for p in family if alive(p)])
    return judge(out, tmp)


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def fault_sighup(tmp: Path) -> FaultOutcome:
    """The terminal closed (an ssh session dropped): SIGHUP to ``tablecert run``."""
    out = _signal_run("sighup", tmp, signal.SIGHUP, target="parent")
    if out.status != 130:
        out.problems.append(f"exit {out.status}, not 130 (interrupted)")
    return out


def fault_sigterm_sigint_ignored(tmp: Path) -> FaultOutcome:
    """Started from a script without job control (SIGINT ignored), stopped with SIGTERM."""
    out = _signal_run("sigterm-sigint-ignored", tmp, signal.SIGTERM, target="parent", sigint_ignored=True)
    if out.status != 130:
        out.problems.append(f"exit {out.status}, not 130 (interrupted)")
    if out.kept > 4:
        out.problems.append(f"{out.kept} cases finished: the run did not stop when told")
    return out


def fault_kill9_parent(tmp: Path) -> FaultOutcome:
    """``kill -9`` of ``tablecert run`` itself: its pytest process notices and ends INTERRUPTED."""
    out = _signal_run("kill-9-parent", tmp, signal.SIGKILL, target="parent")
    if out.verdict != Verdict.INTERRUPTED:
        out.problems.append(f"record {out.verdict}, not INTERRUPTED")
    return out


def fault_kill9_child(tmp: Path) -> FaultOutcome:
    """``kill -9`` of the pytest process (what the out-of-memory killer does): ERROR, exit 3."""
    out = _signal_run("kill-9-child", tmp, signal.SIGKILL, target="child")
    if out.status != 3:
        out.problems.append(f"exit {out.status}, not 3 (a host fault)")
    return out


def _stop(proc: subprocess.Popen[str]) -> str:
    """SIGTERM a run and wait for it (it writes its record INTERRUPTED); its output."""
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    return finish(proc)


def _refused(out: FaultOutcome, run_dir: Path, who: str) -> None:
    """A ``--resume`` of ``run_dir`` now, while another process writes it: refused, exit 2, nothing written."""
    before = _resumes(run_dir / "journal.jsonl")
    second = tablecert("run", "--resume", str(run_dir), "-q")
    no_traceback(out, f"a resume during {who}", second.stdout + second.stderr)
    if second.returncode != 2 or "being written by another" not in second.stderr:
        out.problems.append(f"a resume during {who} was not refused (exit {second.returncode}): "
                            f"{first_line(second.stderr)}")
    if _resumes(run_dir / "journal.jsonl") != before:
        out.problems.append(f"a resume during {who} wrote to the journal")


def _wait_for(path: Path, proc: subprocess.Popen[str], *, resumes_after: int | None = None) -> None:
    """Until ``path`` exists (the writer's lock) and, with ``resumes_after``, the writer's own resume entry
    is in the journal beside it (more than ``resumes_after`` of them): it takes the lock before it writes
    that entry, so a count taken at the lock alone could credit its entry to another writer."""
    deadline = time.monotonic() + DEADLINE_S
    journal = path.parent / path.name.removeprefix(".").removesuffix(".lock") / "journal.jsonl"
    while not path.exists() or (resumes_after is not None and _resumes(journal) <= resumes_after):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{path.name} did not appear while the run ran")
        time.sleep(0.02)


def _resumes(journal: Path) -> int:
    return journal.read_bytes().count(b'"type":"resume"') if journal.exists() else 0


def fault_two_writers(tmp: Path) -> FaultOutcome:
    """Two writers of one run folder: a second ``--resume`` while the first resumes the interrupted
    run is refused (exit 2) and writes nothing; the first goes on to the end."""
    out = FaultOutcome("two-writers")
    run_dir = _stopped_after(out, tmp, 1)
    record = load_record(run_dir)
    out.verdict, out.kept = record.derived_verdict()[0], len(record.cases)
    resumes = _resumes(run_dir / "journal.jsonl")
    first = subprocess.Popen(host([sys.executable, "-m", "harness", "run", "--resume", str(run_dir), "-q"]), cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8",
                             errors="replace")
    try:
        _wait_for(tmp / f".{run_dir.name}.lock", first, resumes_after=resumes)
        _refused(out, run_dir, "a resume")
        res_text = first.communicate(timeout=DEADLINE_S)[0]
    finally:
        reap(first)
    no_traceback(out, "the first resume", res_text)
    after = load_record(run_dir)
    ver = tablecert("verify", str(run_dir))
    out.resume, out.final = f"exit {first.returncode} (second writers refused, exit 2)", \
        f"{after.derived_verdict()[0]} ({len(after.cases)} cases)"
    out.verify = f"exit {ver.returncode}"
    if first.returncode not in DONE_EXITS or ver.returncode != 0 or len(after.cases) != CASES:
        out.problems.append(f"the first resume did not finish the run: exit {first.returncode}, verify "
                            f"{ver.returncode}, {len(after.cases)} cases")
    return out


def fault_same_second(tmp: Path) -> FaultOutcome:
    """Two runs of one profile started at once (the same second): two run ids, two whole records."""
    out = FaultOutcome("same-second-ids")
    procs = [start(tmp), start(tmp)]
    try:
        texts = [p.communicate(timeout=DEADLINE_S)[0] for p in procs]
    finally:
        for p in procs:
            reap(p)
    out.status = max(p.returncode for p in procs)
    for text in texts:
        no_traceback(out, "a run", text)
    dirs = sorted(d for d in tmp.iterdir() if d.is_dir())
    verdicts = []
    for d in dirs:
        ver = tablecert("verify", str(d))
        verdicts.append(f"{d.name.split('Z-', 1)[-1]} exit {ver.returncode}")
        if ver.returncode != 0:
            out.problems.append(f"{d.name} does not verify: {first_line(ver.stdout + ver.stderr)}")
    out.verify = ", ".join(verdicts)
    stamps = {d.name.split("Z-", 1)[0] for d in dirs}
    out.verdict = f"{len(dirs)} records" + (" (same second)" if len(stamps) == 1 else "")
    if len(dirs) != 2 or out.status not in DONE_EXITS:
        out.problems.append(f"{len(dirs)} run folders, exit statuses {[p.returncode for p in procs]} "
                            "(two whole PASS records expected)")
    out.resume, out.final, out.kept = "not needed", Verdict.PASS, CASES
    return out


def _stopped_after(out: FaultOutcome, tmp: Path, cases: int) -> Path:
    """Start a run, let ``cases`` cases finish, stop it (harness.selfcheck.faultmatrix._stop); its exit status
    and any traceback go into ``out``; return its run folder."""
    proc = start(tmp)
    try:
        run_dir = wait_for_cases(tmp, cases, proc)
    finally:
        text = _stop(proc)
    out.status = proc.returncode
    no_traceback(out, "tablecert run", text)
    return run_dir


def fault_signed_then_resumed(tmp: Path) -> FaultOutcome:
    """An interrupted run that was signed, then resumed: the old signature moves aside; sign again."""
    out = FaultOutcome("signed-then-resumed")
    run_dir = _stopped_after(out, tmp, 2)
    key = tmp.parent / f"{tmp.name}-lab.key"
    made = tablecert("keygen", str(key))
    signed = tablecert("sign", str(run_dir), "--key", str(key), "--signer", "Fault Matrix Lab",
                       "--partial")  # one suite of the certification: a PARTIAL record
    if made.returncode or signed.returncode:
        out.problems.append(f"could not sign the interrupted record: {first_line(made.stderr + signed.stderr)}")
        return out
    res = tablecert("run", "--resume", str(run_dir), "-q")
    if "needs signing again" not in res.stderr or (run_dir / "record.sig").exists():
        out.problems.append("resuming a signed record did not set its signature aside and say so")
    if not list(run_dir.glob("set-aside/sitting-*/record.sig")):
        out.problems.append("the old signature was not kept under set-aside/")
    no_traceback(out, "resume", res.stdout + res.stderr)
    ver = tablecert("verify", str(run_dir))
    out.verify = f"exit {ver.returncode} after resume"
    out.resume = f"exit {res.returncode}"
    if ver.returncode != 0 or res.returncode not in DONE_EXITS:
        out.problems.append(f"resume exit {res.returncode}, verify exit {ver.returncode}: "
                            f"{first_line(ver.stdout + ver.stderr)}")

    after = load_record(run_dir)
    out.verdict, out.kept = Verdict.INTERRUPTED, len(after.cases)
    out.final = f"{after.derived_verdict()[0]} ({len(after.cases)} cases), unsigned"
    return out


#: ``ulimit -f`` for the run: the journal reaches it after a few cases (a disk that fills mid-run)
FSIZE_LIMIT = 40_000


def fault_ulimit_f(tmp: Path) -> FaultOutcome:
    """A disk that fills during the run (``ulimit -f``: a write of the record fails): ERROR, exit 3."""
    out = FaultOutcome("ulimit-f")
    proc = start(tmp, max_file_bytes=FSIZE_LIMIT)
    text = finish(proc)
    out.status = proc.returncode
    no_traceback(out, "tablecert run", text)
    if out.status != 3:
        out.problems.append(f"exit {out.status}, not 3 (a host fault): {text.strip().splitlines()[-3:]}")
    return judge(out, tmp)


def fault_long_names(tmp: Path) -> FaultOutcome:
    """A report folder whose name the file system refuses (300 characters, a path near PATH_MAX): a
    message and a non-zero exit, never a traceback, nothing half-written."""
    out = FaultOutcome("long-names")
    texts = []
    for report_dir in (tmp / ("r" * 300), tmp.joinpath(*(["d" * 250] * 17))):
        proc = start(report_dir)
        text = finish(proc)
        texts.append(f"exit {proc.returncode}")
        no_traceback(out, "tablecert run", text)
        if proc.returncode not in (2, 3) or not text.strip():
            out.problems.append(f"a {len(str(report_dir))}-character report folder: exit {proc.returncode}")
        out.status = proc.returncode
    out.verdict, out.verify, out.resume, out.final = "none", "-", "not resumable (nothing written)", "-"
    out.resume = ", ".join(texts)
    return out


def fault_full_disk_rewrite(tmp: Path) -> FaultOutcome:
    """A finished record re-rendered, signed and reported to ``--out`` on a full disk (``ulimit -f 0``:
    every write fails): each command one message, no traceback; the views, the ``--out`` file and the
    record as they were, and the record still verifies."""
    out = FaultOutcome("full-disk-rewrite")
    proc = start(tmp)
    text = finish(proc)
    out.status = proc.returncode
    no_traceback(out, "tablecert run", text)
    (run_dir,) = [d for d in tmp.iterdir() if d.is_dir()]
    before = {p.relative_to(run_dir): p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    key = tmp.parent / f"{tmp.name}-lab.key"
    tablecert("keygen", str(key))
    lab_copy = tmp.parent / f"{tmp.name}-copy.html"
    lab_copy.write_bytes(b"the previous copy\n")
    said = []
    for args in (("report", str(run_dir), "--format", "all"), ("sign", str(run_dir), "--key", str(key),
                 "--signer", "Fault Matrix Lab", "--partial"), ("report", str(run_dir), "--out", str(lab_copy))):
        res = tablecert(*args, max_file_bytes=0)
        said.append(f"{args[0]} {res.returncode}")
        no_traceback(out, " ".join(args[:1]), res.stdout + res.stderr)
        lines = [line for line in res.stderr.splitlines() if line.strip()]
        if res.returncode == 0 or len(lines) != 1:
            out.problems.append(f"{' '.join(args[:2])} on a full disk: exit {res.returncode}, {len(lines)} line(s) "
                                f"of message: {lines[-1:] or '-'}")
    after = {p.relative_to(run_dir): p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    if after != before:
        changed = sorted(str(k) for k in set(before) | set(after) if before.get(k) != after.get(k))
        out.problems.append(f"the run folder changed: {', '.join(changed[:5])}")
    if lab_copy.read_bytes() != b"the previous copy\n" or list(tmp.parent.glob(".tc-tmp-*")):
        out.problems.append("the --out file was not left whole, or a temporary file was left")
    ver = tablecert("verify", str(run_dir))
    out.verify = f"exit {ver.returncode}"
    if ver.returncode != 0:
        out.problems.append(f"the record no longer verifies: {first_line(ver.stdout + ver.stderr)}")

    out.verdict = load_record(run_dir).derived_verdict()[0]
    out.kept, out.resume, out.final = CASES, "; ".join(said), "unchanged"
    if out.status not in DONE_EXITS:
        out.problems.append(f"the run itself ended {out.status}")
    out.status = None  # the run was whole: the fault came after it
    return out


FAULTS: dict[str, Callable[[Path], FaultOutcome]] = {
    "full-disk-rewrite": fault_full_disk_rewrite,
    "ulimit-f": fault_ulimit_f,
    "long-names": fault_long_names,
    "two-writers": fault_two_writers,
    "same-second-ids": fault_same_second,
    "signed-then-resumed": fault_signed_then_resumed,
    "sighup": fault_sighup,
    "sigterm-sigint-ignored": fault_sigterm_sigint_ignored,
    "kill-9-parent": fault_kill9_parent,
    "kill-9-child": fault_kill9_child,
}


def main(argv: Sequence[str] | None = None) -> int:
    names = list(sys.argv[1:] if argv is None else argv) or list(FAULTS)
    unknown = [n for n in names if n not in FAULTS]
    if unknown:
        print(f"faultmatrix: no fault {', '.join(unknown)} (faults: {', '.join(FAULTS)})", file=sys.stderr)
        return 2
    bad = 0
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"tc-fault-{name}-") as tmp:
            try:
                out = FAULTS[name](Path(tmp))
            except RuntimeError as exc:
                out = FaultOutcome(name, problems=[str(exc)])
            print(out.line(), flush=True)
            bad += not out.ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
