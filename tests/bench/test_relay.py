"""The terminal relay between ``tablecert run`` and its pytest child, over a real socket pair.

The child's broker gets the relayed terminal beside the bench console; ``tablecert run``'s end shows
what the child says and each prompt, and sends back what the person types.  An answer on either front
end withdraws the prompt from the other at once; a timeout is said on both and kept in the record.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
import urllib.request
from typing import Any

import pytest

from harness.bench.acts import LoadShoe, PressLockout
from harness.bench.console import BenchConsole
from harness.bench.prompts import Answer, PromptBroker
from harness.bench.relay import ENV, RelayedTerminal, RelayLink, TerminalRelay
from harness.bench.scripted import ScriptedOperator
from harness.cards import parse_cards
from harness.errors import DeviceTimeout, InputError


def _until(check: Any, timeout_s: float = 5.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.01)
    raise TimeoutError("condition not met")


class Pair:
    """Both ends as ``tablecert run`` and its child hold them (the child's end through the environment)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, terminal: bool = True) -> None:
        self.said: list[str] = []
        self.held: list[bool] = []
        self.parent = TerminalRelay(self.said.append, hold=self.held.append, terminal=terminal)
        child_fd = os.dup(self.parent.child_fd())  # the child's copy, as pass_fds gives it
        env = self.parent.env()
        assert env[ENV] == f"{self.parent.child_fd()}{':terminal' if terminal else ''}"
        monkeypatch.setenv(ENV, f"{child_fd}{':terminal' if terminal else ''}")
        self.parent.start()
        link = RelayLink.from_environment()
        assert link is not None and link.terminal is terminal and ENV not in os.environ
        self.link = link
        self.broker = PromptBroker("J. Doe")

    def close(self) -> None:
        self.link.close()
        self.parent.close()


def test_a_prompt_goes_to_the_terminal_and_its_answer_comes_back(monkeypatch: pytest.MonkeyPatch) -> None:
    pair = Pair(monkeypatch)
    try:
        pair.broker.attach(RelayedTerminal(pair.link))
        pair.link.serve(pair.broker)
        pair.link.say("tablecert: bench console at http://127.0.0.1:1/?token=x")
        result: dict[str, Answer] = {}
        act = LoadShoe(tuple(parse_cards("KS 9H")), sheet_id="S1")
        t = threading.Thread(target=lambda: result.update(a=pair.broker.ask(act, case="c1", timeout_s=10)))
        t.start()
        _until(lambda: pair.parent.current is not None)
        text = "\n".join(pair.said)
        assert "tablecert: bench console at http://127.0.0.1:1/?token=x" in text
        assert "tablecert needs the operator  [p00001]  case c1" in text and "  1.   K\u2660   (KS)" in text
        assert "next: Done: tablecert then has the cards dealt" in text
        assert pair.held == [True]  # the progress bar stops while the person answers
        pair.parent.typed("x\n")  # not an answer: nothing is sent
        pair.parent.typed("d stacked\n")
        t.join(5)
        answer = result["a"]
        assert (answer.answer, answer.note, answer.front_end, answer.operator) == ("done", "stacked", "terminal",
                                                                                   "J. Doe")
        _until(lambda: pair.parent.current is None)
        assert pair.held == [True, False]
        pair.parent.typed("d\n")
        assert pair.said[-1] == "(no prompt is waiting for an answer)"
    finally:
        pair.close()


def test_the_console_answers_and_the_terminal_follows_a_timeout_is_said_on_both(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pair = Pair(monkeypatch)
    console = BenchConsole(pair.broker)
    try:
        pair.broker.attach(console)
        pair.broker.attach(RelayedTerminal(pair.link))
        pair.link.serve(pair.broker)
        t = threading.Thread(target=lambda: pair.broker.ask(PressLockout(), case="c2", timeout_s=10))
        t.start()
        _until(lambda: pair.parent.current == "p00001")
        body = json.dumps({"prompt": "p00001", "answer": "done", "operator": "A. Page"}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{console.port}/api/answer", data=body, method="POST",
                                     headers={"X-Tablecert-Token": console.token, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert resp.status == 200
        t.join(5)
        _until(lambda: pair.parent.current is None)
        assert "(prompt p00001: answered done by A. Page on the bench console)" in pair.said
        with pytest.raises(DeviceTimeout, match=r"did not answer within 0\.3 s \(prompt p00002, lockout-button\)"):
            pair.broker.ask(PressLockout(), case="c2", timeout_s=0.3)
        _until(lambda: any("p00002" in s and "timed out" in s for s in pair.said))
        assert pair.broker.snapshot()["last"]["answer"] == "timeout"  # what the console page shows
        assert "timed out" in pair.broker.snapshot()["last"]["outcome"]
        log = pair.broker.take_log()
        assert log[0]["answer"]["front_end"] == "bench console"
        assert log[1]["answer"] is None and log[1]["unanswered"]["why"] == "timeout"
        assert log[1]["unanswered"]["after_ms"] >= 300
    finally:
        console.close()
        pair.close()


@pytest.mark.parametrize("terminal", [True, False])
def test_the_bench_attaches_the_terminal_only_when_a_person_can_answer_on_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any, terminal: bool) -> None:
    from benchperson import human_bench_profile

    from harness.bench.session import BenchSession
    from harness.profiles import load_profile

    pair = Pair(monkeypatch, terminal=terminal)
    bench = BenchSession(load_profile(human_bench_profile(tmp_path)), run_id="r")
    try:
        assert bench.broker is not None
        bench.link, bench.console = pair.link, object()
        bench._attach_terminal()
        names = [fe.name for fe in bench.broker.front_ends]
        if terminal:
            assert names == ["terminal"]
            _until(lambda: any("answer each prompt on this terminal" in s for s in pair.said))
        else:
            assert names == []  # the record's front ends will not claim a terminal
            _until(lambda: any("only the bench console can answer" in s for s in pair.said))
    finally:
        bench.link = None
        pair.close()


def test_a_descriptor_that_is_not_a_socket_is_left_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    with open(tmp_path / "f", "w") as f:
        monkeypatch.setenv(ENV, str(f.fileno()))
        assert RelayLink.from_environment() is None  # a regular file: not a relay
        f.write("still open")
    assert (tmp_path / "f").read_text() == "still open"
    monkeypatch.setenv(ENV, "nonsense")
    assert RelayLink.from_environment() is None


class _Hands:
    def __init__(self) -> None:
        self.acts: list[str] = []

    def act(self, what: str, **kw: Any) -> dict[str, Any]:
        self.acts.append(what)
        return {}

    def close(self) -> None:
        pass


def test_rehearsal_hands_act_but_leave_the_answer_to_the_person() -> None:
    broker = PromptBroker("J. Doe")
    hands = _Hands()
    scripted = ScriptedOperator(hands, broker, lambda cards: None, answers="bulk")  # type: ignore[arg-type]
    from harness.bench.scripted import HumanPace

    scripted.pace = scripted.regular_pace = HumanPace(speed=HumanPace().speed * 10_000)
    broker.attach(scripted)
    try:
        with pytest.raises(DeviceTimeout):  # nobody answered: the hands only pressed the button
            broker.ask(PressLockout(), timeout_s=1.0)
        assert hands.acts == ["button"]
        with broker.bulk_rounds():  # a bulk round's prompt: the hands answer it
            assert broker.ask(PressLockout(), timeout_s=5.0).front_end == "scripted operator"
    finally:
        scripted.close()


def test_console_is_only_for_a_bench_twin() -> None:
    from harness.cli import run_cmd

    p = argparse.ArgumentParser()
    run_cmd.add_arguments(p)
    args = p.parse_args(["--console"])
    with pytest.raises(InputError, match="--console rehearses a bench twin"):
        run_cmd.run(args)
    assert "--tc-bench-rehearsal" in run_cmd._pytest_command(
        p.parse_args(["--console", "--bench-twin"]), run_cmd.project_root(), [],
        run_cmd.ProfileRun("x", run_cmd.project_root(), run_cmd.project_root(), 0), [])


def test_a_scripted_operator_turns_the_console_on_only_when_asked() -> None:
    from pathlib import Path

    from harness.bench.twin import bench_twin
    from harness.profiles import load_profile

    profile = load_profile(Path(__file__).resolve().parents[2] / "device_profiles" / "emulated-midi-5.yaml")
    op = bench_twin(profile).bench.operator
    assert (op.console, op.terminal, op.scripted and op.scripted.answers) == (False, False, "all")
    op = bench_twin(profile, rehearsal=True).bench.operator
    assert (op.console, op.terminal, op.name, op.scripted and op.scripted.answers) == (True, True, "", "bulk")
