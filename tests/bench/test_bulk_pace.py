"""Bulk rounds' pace: prompts asked inside ``bulk_rounds`` say so, a scripted operator with a
``bulk_speed`` hurries only those, and a bench without one keeps a person's pace throughout."""

from __future__ import annotations

import random
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness.bench.acts import PressLockout
from harness.bench.prompts import Answer, Prompt, PromptBroker
from harness.bench.scripted import HumanPace, ScriptedOperator
from harness.bench.twin import CI_BULK_SPEED, bench_twin

ROOT = Path(__file__).resolve().parents[2]


class Recorder:
    name = "recorder"

    def __init__(self, broker: PromptBroker) -> None:
        self.broker = broker
        self.offered: list[Prompt] = []

    def offer(self, prompt: Prompt) -> None:
        self.offered.append(prompt)
        threading.Timer(0.001, self.broker.answer, (prompt.id, "done")).start()

    def withdraw(self, prompt: Prompt, answer: Answer | None) -> None:
        pass

    def close(self) -> None:
        pass


class Pace(HumanPace):
    """A pace that records the waits it is asked for instead of sleeping."""

    def __init__(self, speed: Decimal, log: list[tuple[Decimal, float]]) -> None:
        super().__init__(speed)
        object.__setattr__(self, "log", log)

    def wait(self, rng: random.Random, seconds: float) -> None:
        self.log.append((self.speed, seconds))  # type: ignore[attr-defined]


class Hands:
    def act(self, act: str, **args: Any) -> dict[str, Any]:
        return {"ok": True}

    def close(self) -> None:
        pass


def test_prompts_inside_bulk_rounds_are_marked() -> None:
    broker = PromptBroker()
    rec = Recorder(broker)
    broker.attach(rec)
    broker.ask(PressLockout())
    with broker.bulk_rounds():
        broker.ask(PressLockout())
    broker.ask(PressLockout())
    assert [p.bulk for p in rec.offered] == [False, True, False]
    assert [e["prompt"]["bulk"] for e in broker.take_log()] == [False, True, False]


def test_the_scripted_operator_hurries_bulk_prompts_only_when_given_a_bulk_pace() -> None:
    log: list[tuple[Decimal, float]] = []
    broker = PromptBroker()
    op = ScriptedOperator(Hands(), broker, lambda cards: None, pace=Pace(Decimal(500), log),  # type: ignore[arg-type]
                          bulk_pace=Pace(Decimal(50_000), log))
    plain = ScriptedOperator(Hands(), broker, lambda cards: None, pace=Pace(Decimal(500), log))  # type: ignore[arg-type]
    try:
        for bulk in (False, True, False):
            op.carry_out(Prompt("p1", PressLockout(), "", "", "", 5.0, "", 0, bulk=bulk))
        plain.carry_out(Prompt("p2", PressLockout(), "", "", "", 5.0, "", 0, bulk=True))
    finally:
        op.close()
        plain.close()
    speeds = [speed for speed, _s in log]
    # read + button per prompt: the bulk prompt at the bulk pace; without a bulk pace, the regular one
    assert speeds == [500, 500, 50_000, 50_000, 500, 500, 500, 500]


def test_the_twin_hurries_bulk_rounds_and_a_profile_keeps_its_pace_unless_it_says() -> None:
    from harness.profiles.load import load_profile

    profile = load_profile(ROOT / "device_profiles" / "emulated-midi-5-mystery.yaml")
    twin = bench_twin(profile)
    scripted = twin.bench.operator.scripted
    assert scripted is not None and scripted.bulk_speed == CI_BULK_SPEED and scripted.speed < CI_BULK_SPEED
    assert bench_twin(profile, bulk_speed=None).bench.operator.scripted.bulk_speed is None  # type: ignore[union-attr]


class Shoe(Hands):
    """Hands at a shoe: each draw stamped (host perf_counter_ns)."""

    def __init__(self) -> None:
        self.drawn: list[int] = []

    def act(self, act: str, **args: Any) -> dict[str, Any]:
        import time

        self.drawn.append(time.perf_counter_ns())
        return {"ok": True, "card": "2H"}


def test_the_scripted_operator_deals_no_faster_than_the_acts_pace_unless_hurrying_bulk_rounds() -> None:
    """A case that deals its cards 200 ms apart judges what happens between them (a lock-out reported
    before the next card): a hurried operator's 2 ms a card must not race it."""
    from harness.bench.acts import Deal

    log: list[tuple[Decimal, float]] = []
    broker = PromptBroker()
    gaps: dict[bool, list[int]] = {}
    for bulk in (False, True):
        shoe = Shoe()
        op = ScriptedOperator(shoe, broker, lambda cards: None, pace=Pace(Decimal(500), log),  # type: ignore[arg-type]
                              bulk_pace=Pace(Decimal(50_000), log))
        try:
            op.carry_out(Prompt("p1", Deal(count=3, pace_us=50_000), "", "", "", 5.0, "", 0, bulk=bulk))
        finally:
            op.close()
        gaps[bulk] = [b - a for a, b in zip(shoe.drawn, shoe.drawn[1:], strict=False)]
    assert len(gaps[False]) == 2 and min(gaps[False]) >= 50_000_000  # 50 ms at least, card after card
    assert max(gaps[True]) < 50_000_000  # bulk rounds hurried: the pace is the operator's own
