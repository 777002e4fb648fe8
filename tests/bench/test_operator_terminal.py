"""A person answers every prompt of a case on the terminal that runs ``tablecert run``.

``tablecert run`` runs on a pseudo-terminal (the stdlib ``pty``) with the $5 table's bench and a
human operator (tests/bench/benchperson.py): no scripted operator, no test channel.  The test waits
for the console's address and each prompt on the terminal, carries the act out at the emulator's
physical side, types ``d`` and Enter, and the case passes.  The record must say that every answer
came from the terminal, under the operator's name, and that the terminal was a front end.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from pathlib import Path

import pytest
from benchperson import (
    CASE,
    Person,
    console_state,
    emulator_addresses,
    human_bench_profile,
    record_prompts,
    tablecert_command,
)

DEADLINE_S = 240.0
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
PROMPT = re.compile(r"tablecert needs the operator  \[(p\d{5})\]  case (\S+)\n(?:.*\n)*?  >> (.*)\n")
ADDRESS = re.compile(r"tablecert: bench console at (http://127\.0\.0\.1:\d+/\?token=\S+)")


class Terminal:
    """``tablecert run`` on a pseudo-terminal: what it shows, and keys typed into it."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.t0 = time.monotonic()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the pty is its controlling terminal and its stdin
            try:
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        self.raw = b""
        self.status: int | None = None

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def pump(self, wait_s: float = 0.1) -> None:
        if select.select([self.fd], [], [], wait_s)[0]:
            with contextlib.suppress(OSError):  # EIO: the other side has gone
                self.raw += os.read(self.fd, 65536)
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)

    def wait_for(self, pattern: re.Pattern[str], start: int = 0, timeout_s: float = 60.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = pattern.search(self.text, start)
            if found:
                return found
            if self.status is not None:
                self.pump(0)
                found = pattern.search(self.text, start)
                if found:
                    return found
                raise AssertionError(f"tablecert run ended ({self.status}) before {pattern.pattern!r}:\n"
                                     f"{self.text[-3000:]}")
            self.pump()
        raise TimeoutError(f"no {pattern.pattern!r} on the terminal within {timeout_s} s:\n{self.text[-3000:]}")

    def type(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\n")

    def close(self) -> None:
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            deadline = time.monotonic() + 30
            while self.status is None and time.monotonic() < deadline:
                self.pump()
            if self.status is None:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        os.close(self.fd)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_person_answers_every_prompt_on_the_terminal_and_the_case_passes(tmp_path: Path) -> None:
    profile = human_bench_profile(tmp_path)
    emu_tmp = tmp_path / "emu"
    emu_tmp.mkdir()
    reports = tmp_path / "reports"
    env = {**os.environ, "TMPDIR": str(emu_tmp), "TERM": "xterm-256color"}
    env.pop("CI", None)  # a person's terminal
    argv = [*tablecert_command(), "run", CASE, "--profile", str(profile), "--operator", "J. Doe",
            "--report-dir", str(reports), "-q"]
    term = Terminal(argv, tmp_path, env)
    person: Person | None = None
    try:
        url = term.wait_for(ADDRESS).group(1)
        print(f"console address on the terminal {time.monotonic() - term.t0:.1f} s after the start")
        term.wait_for(re.compile(re.escape("answer each prompt on this terminal (d, c or a, then Enter) or on the "
                                           "bench console")))
        person = Person(profile, str(emulator_addresses(emu_tmp)["physical"]))
        answered: list[str] = []
        at = 0
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            found = PROMPT.search(term.text, at)
            if found is None:
                if term.status is not None or "overall:" in term.text:
                    break
                term.pump()
                continue
            at = found.end()
            pid, case, message = found.group(1), found.group(2), found.group(3)
            assert case == "lockout-button"
            if not answered:
                print(f"first prompt on the terminal {time.monotonic() - term.t0:.1f} s after the start")
            # the person looks up from the terminal to the table: the act is the one the console shows too
            state = console_state(url)
            assert state["prompt"] is not None and state["prompt"]["id"] == pid
            assert state["prompt"]["message"] == message.strip()
            answer, note = person.act(state["prompt"])
            assert answer == "done", (message, note)
            term.type("d")
            answered.append(pid)
        term.wait_for(re.compile(r"overall: PARTIAL \(exit 4\)"), timeout_s=60)  # one case: a selection
        while term.status is None and time.monotonic() < deadline:
            term.pump()
        assert term.status == 4, term.text[-3000:]
    finally:
        if person is not None:
            person.close()
        term.close()
    text = term.text
    assert "\a" in term.raw.decode("utf-8", "replace")  # a bell with every prompt
    assert "next: Done:" in text and "[d]one   [c]annot" in text
    prompts, bench = record_prompts(reports)
    assert [e["prompt"]["id"] for e in prompts] == answered and len(answered) >= 6
    assert {e["answer"]["front_end"] for e in prompts} == {"terminal"}
    assert {e["answer"]["operator"] for e in prompts} == {"J. Doe"}
    assert {e["answer"]["answer"] for e in prompts} == {"done"}
    assert bench["front_ends"] == ["bench console", "terminal"]
    if os.environ.get("TABLECERT_UPDATE_SCREENSHOT") == "1":
        (Path(__file__).resolve().parents[2] / "docs" / "img" / "bench-terminal.txt").write_text(text, "utf-8")


@pytest.mark.slow
@pytest.mark.timeout(200)
@pytest.mark.usefixtures("sigint_delivered")  # Ctrl-C must reach the run
def test_ctrl_c_during_a_prompt_ends_the_run_interrupted_with_the_prompt_kept(tmp_path: Path) -> None:
    profile = human_bench_profile(tmp_path)
    reports = tmp_path / "reports"
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("CI", None)
    argv = [*tablecert_command(), "run", CASE, "--profile", str(profile), "--operator", "J. Doe",
            "--report-dir", str(reports), "-q"]
    term = Terminal(argv, tmp_path, env)
    try:
        pid = term.wait_for(PROMPT).group(1)
        os.write(term.fd, b"\x03")  # Ctrl-C on the terminal
        term.wait_for(re.compile(rf"\(prompt {pid}: the run was interrupted\)"))
        term.wait_for(re.compile(r"tablecert run: INTERRUPTED"))
        deadline = time.monotonic() + 60
        while term.status is None and time.monotonic() < deadline:
            term.pump()
        assert term.status == 130, term.text[-3000:]
    finally:
        term.close()
    prompts, _bench = record_prompts(reports)
    assert [e["prompt"]["id"] for e in prompts] == [pid]
    assert prompts[0]["answer"] is None and prompts[0]["unanswered"]["why"] == "interrupted"
    (run,) = [d for d in reports.iterdir() if d.is_dir()]
    record = json.loads((run / "record.json").read_text("utf-8"))
    assert record["verdict"] == "INTERRUPTED"
