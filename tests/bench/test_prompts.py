"""The prompt model: first answer wins, Cannot, Abort and silence; the terminal and the console front ends."""

from __future__ import annotations

import io
import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from harness.bench.acts import LoadShoe, PlaceWagers, PressLockout
from harness.bench.console import BenchConsole
from harness.bench.prompts import Answer, OperatorAborted, OperatorCannot, Prompt, PromptBroker
from harness.bench.terminal import TerminalFrontEnd, render
from harness.cards import parse_cards
from harness.devices.roles import Wager
from harness.errors import DeviceTimeout


class Auto:
    """A front end that answers every prompt at once (or records it)."""

    name = "auto"

    def __init__(self, broker: PromptBroker, answer: str | None, note: str = "") -> None:
        self.broker, self.answer, self.note = broker, answer, note
        self.offered: list[Prompt] = []
        self.withdrawn: list[tuple[Prompt, Answer | None]] = []

    def offer(self, prompt: Prompt) -> None:
        self.offered.append(prompt)
        if self.answer is not None:
            threading.Timer(0.01, self.broker.answer, (prompt.id, self.answer),
                            {"operator": "A. Person", "note": self.note, "front_end": self.name}).start()

    def withdraw(self, prompt: Prompt, answer: Answer | None) -> None:
        self.withdrawn.append((prompt, answer))

    def close(self) -> None:
        pass


def test_the_first_answer_wins_and_every_front_end_sees_the_prompt_withdrawn() -> None:
    broker = PromptBroker("J. Doe")
    fast, slow = Auto(broker, "done"), Auto(broker, None)
    broker.attach(fast)
    broker.attach(slow)
    answer = broker.ask(PressLockout(), case="c1", step="line 3: lockout_button")
    assert answer.answer == "done" and answer.operator == "A. Person" and answer.front_end == "auto"
    assert slow.offered and slow.withdrawn[0][1] == answer
    assert broker.answer(answer.prompt_id, "abort") is not None  # too late: no longer current
    log = broker.take_log()
    assert len(log) == 1 and log[0]["prompt"]["message"] == "Press the lock-out button now"
    assert log[0]["answer"]["answer"] == "done" and log[0]["prompt"]["case"] == "c1"
    assert broker.take_log() == []


def test_cannot_abort_and_silence() -> None:
    broker = PromptBroker()
    broker.attach(Auto(broker, "cannot", "no chips"))
    with pytest.raises(OperatorCannot, match="no chips"):
        broker.ask(PressLockout())
    assert broker.ask(PressLockout(), raise_on_cannot=False).answer == "cannot"
    broker.front_ends[:] = [Auto(broker, "abort")]
    with pytest.raises(OperatorAborted):
        broker.ask(PressLockout())
    broker.front_ends[:] = [Auto(broker, None)]
    t0 = time.monotonic()
    with pytest.raises(DeviceTimeout, match=r"did not answer within 0\.2 s"):
        broker.ask(PressLockout(), timeout_s=0.2)
    assert time.monotonic() - t0 < 5
    assert broker.take_log()[-1]["answer"] is None  # the silence is evidence too
    assert broker.answer("p99999", "maybe") is not None


def test_no_front_end_is_a_rig_error() -> None:
    with pytest.raises(Exception, match="no prompt front end is attached"):
        PromptBroker().ask(PressLockout())


def test_the_terminal_shows_the_sheet_and_takes_a_key() -> None:
    broker = PromptBroker("J. Doe")
    stack = LoadShoe(tuple(parse_cards("KS 9H TD")), sheet_id="R9-5-07")
    out = io.StringIO()
    term = TerminalFrontEnd(broker, io.StringIO(), out)
    broker.attach(term)
    result: dict[str, Any] = {}
    t = threading.Thread(target=lambda: result.update(a=broker.ask(stack, case="r9", timeout_s=10,
                                                                      raise_on_cannot=False)))
    t.start()
    deadline = time.monotonic() + 5
    while term.current is None and time.monotonic() < deadline:
        time.sleep(0.01)
    term.handle("x\n")
    term.handle("c the deck is short\n")
    t.join(5)
    text = out.getvalue()
    term.close()
    assert "Stack the shoe from sheet R9-5-07 (3 cards, top first): K\u2660 9\u2665 10\u2666" in text
    assert "  1.   K\u2660   (KS)" in text and "answer d (done), c (cannot) or a (abort)" in text
    answer = result["a"]
    assert answer.answer == "cannot" and answer.note == "the deck is short" and answer.front_end == "terminal"


def test_a_wager_sheet_renders_in_text() -> None:
    act = PlaceWagers((Wager(3, "royal9", 500), Wager(3, "banker", 1000)))
    prompt = Prompt("p1", act, act.instruction(), "c", "", 60, "", 0)
    text = render(prompt)
    assert "Place the 2 wagers of the wager sheet" in text and "seat 3:  Royal 9        $5.00" in text


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_the_console_wants_its_token_and_the_loopback_host() -> None:
    broker = PromptBroker("J. Doe")
    console = BenchConsole(broker)
    try:
        base = f"http://127.0.0.1:{console.port}"
        assert console.url == f"{base}/?token={console.token}"
        assert _get(base + "/")[0] == 403
        assert _get(base + "/api/state", {"X-Tablecert-Token": "wrong"})[0] == 403
        assert _get(base + "/api/state", {"X-Tablecert-Token": console.token, "Host": "evil.example"})[0] == 403
        status, body = _get(console.url)
        assert status == 200 and b"tablecert bench console" in body
        assert _get(base + "/console.js")[0] == 200  # static, holds no run data
        status, body = _get(base + "/api/state?since=0", {"X-Tablecert-Token": console.token})
        assert status == 200 and json.loads(body)["prompt"] is None
        broker.device_event("shoe", "card", {"event": "card", "card": "KS", "n": 1})
        state = json.loads(_get(base + "/api/state?since=0", {"X-Tablecert-Token": console.token})[1])
        assert state["events"][0]["payload"] == {"card": "KS", "n": 1} and state["last_event"] == 1
        req = urllib.request.Request(base + "/api/answer", data=b'{"prompt": "p1", "answer": "done"}',
                                     headers={"X-Tablecert-Token": console.token,
                                              "Content-Type": "application/json"}, method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=5)
        assert info.value.code == 409  # no such prompt is current
    finally:
        console.close()
