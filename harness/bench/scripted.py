"""The scripted operator: a front end that carries out each prompt at an emulated table's physical side.

It stands where a person stands on a real bench.  Offered a prompt, it waits as long as a person
would (reading the instruction, stacking card after card, dealing, placing chips: :class:`HumanPace`,
divided by ``speed`` so CI stays quick), does the act through :class:`~harness.bench.hands.Hands`,
and answers Done, or Cannot with what the table showed.  It knows only what a person at the table
knows: the cards it put in the shoe and the cards it pulled out, what it was asked; never the
emulator's state.  It deals a round from a shuffled shoe the way a dealer does, by the game's rules
applied to the cards as they come.

A prompt of a step's bulk rounds (``Prompt.bulk``: thousands of random rounds for a statistic,
where no act's timing is judged) is carried out at ``bulk_pace`` when one is given (the profile's
``bulk_speed``; the bench twin in CI hurries them, :mod:`harness.bench.twin`), else at the same
pace as every other prompt: a realistic bench keeps a person's pace throughout.

``misstack_every`` N misstacks every Nth shoe it stacks from a sheet (two neighbouring cards
swapped), so the redo path (a misstack is a redo, never a FAIL) runs in CI too; asked whether the
cards dealt were the sheet's, it answers truthfully.

With ``answers="bulk"`` it is only a person's hands: it carries out every act, but answers only the
prompts of bulk rounds (and Cannot when the table refuses); a person reads each other prompt on the
bench console or the terminal and answers it there (``tablecert run --bench-twin --console``).
"""

from __future__ import annotations

import math
import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from harness.bench.acts import (
    Deal,
    InjectFault,
    LoadShoe,
    NoMoreBets,
    OpenRound,
    PlaceWagers,
    PressLockout,
    ReadShuffler,
    RemoveWager,
    SetComm,
    SwitchPower,
    TurnResetKey,
)
from harness.bench.hands import Hands, TableRefused
from harness.bench.prompts import Answer, Prompt, PromptBroker
from harness.cards import Card, parse_card, shoe_composition
from harness.errors import DeviceError
from harness.randomness.observations import id_card

RoundLength = Callable[[list[Card]], int | None]


@dataclass(frozen=True)
class HumanPace:
    """Seconds a person takes, at ``speed`` 1; each draw varies by a log-normal factor."""

    speed: Decimal = Decimal(1)
    read: float = 1.5
    stack_card: float = 2.0
    shuffle: float = 45.0
    deal_card: float = 1.0
    chips: float = 1.2
    lift_chips: float = 1.0
    button: float = 0.6
    key: float = 2.5
    power: float = 1.5
    cable: float = 4.0
    look: float = 3.0
    spread: float = 0.25

    def wait(self, rng: random.Random, seconds: float) -> None:
        factor = math.exp(rng.gauss(0.0, self.spread))
        pause = seconds * factor / float(self.speed)
        if pause >= MIN_PAUSE_S:  # a shorter sleep lasts as long as the thread's wake-up, not the pause
            time.sleep(pause)


#: the shortest pause slept (s): a hurried pace's pauses under it (``bulk_speed``) are not slept
MIN_PAUSE_S = 0.001


class ScriptedOperator:
    """A prompt front end that acts at the emulated table (see the module docstring)."""

    name = "scripted operator"

    def __init__(self, hands: Hands, broker: PromptBroker, round_length: RoundLength, *,
                 pace: HumanPace | None = None, seed: int = 1, misstack_every: int = 0,
                 operator: str = "scripted operator", bulk_pace: HumanPace | None = None,
                 answers: str = "all") -> None:
        self.hands = hands
        self.broker = broker
        self.round_length = round_length
        self.pace = pace or HumanPace()
        #: the pace of bulk prompts (None: ``pace``), and the pace of the prompt being carried out
        self.bulk_pace = bulk_pace
        self.regular_pace = self.pace
        self.rng = random.Random(seed)
        self.misstack_every = misstack_every
        self.operator = operator
        self.answers = answers
        #: the cards in the shoe as this person put them there, top first, and those pulled out
        self.in_shoe: list[Card] = []
        self.stacks = 0
        self.misstacked = False
        self._work: queue.SimpleQueue[Prompt | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="scripted-operator", daemon=True)
        self._thread.start()

    # -- the front-end interface --------------------------------------------------------------
    def offer(self, prompt: Prompt) -> None:
        self._work.put(prompt)

    def withdraw(self, prompt: Prompt, answer: Answer | None) -> None:
        pass

    def close(self) -> None:
        self._work.put(None)
        self._thread.join(5.0)
        self.hands.close()

    # -- acting -------------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            prompt = self._work.get()
            if prompt is None:
                return
            try:
                answer, note = self.carry_out(prompt)
            except TableRefused as exc:
                answer, note = "cannot", str(exc)
            except (DeviceError, OSError, ValueError) as exc:
                answer, note = "cannot", f"{type(exc).__name__}: {exc}"
            if self.answers == "bulk" and answer == "done" and not prompt.bulk:
                continue  # the person answers (see the module docstring)
            self.broker.answer(prompt.id, answer, operator=self.operator, note=note, front_end=self.name)

    def carry_out(self, prompt: Prompt) -> tuple[str, str]:
        self.pace = self.bulk_pace if prompt.bulk and self.bulk_pace is not None else self.regular_pace
        pace, rng, act = self.pace, self.rng, prompt.act
        pace.wait(rng, pace.read)
        if prompt.question == "confirm":  # the bench check: it cannot see the table, it takes the relay's word
            return "done", "the scripted operator cannot see the table; the relay answered"
        if prompt.question == "misstack":
            pace.wait(rng, pace.look)
            return ("cannot", "the shoe was misstacked") if self.misstacked else ("done", "stacked as the sheet")
        if isinstance(act, LoadShoe):
            return self._load(act)
        if isinstance(act, Deal):
            return self._deal(act, hurried=prompt.bulk and self.bulk_pace is not None)
        if isinstance(act, PlaceWagers):
            for w in act.wagers:
                pace.wait(rng, pace.chips)
                try:
                    self.hands.act("chips.place", seat=w.seat, type=w.type, amount=w.amount)
                except TableRefused as exc:
                    return "cannot", str(exc)
            return "done", ""
        if isinstance(act, RemoveWager):
            pace.wait(rng, pace.lift_chips)
            self.hands.act("chips.remove", seat=act.seat, type=act.type)
            return "done", ""
        if isinstance(act, OpenRound | NoMoreBets | PressLockout):
            pace.wait(rng, pace.button)
            name = {OpenRound: "open-round", NoMoreBets: "no-more-bets", PressLockout: "lockout"}[type(act)]
            return self._shown(self.hands.act("button", name=name))
        if isinstance(act, TurnResetKey):
            pace.wait(rng, pace.key)
            return self._shown(self.hands.act("key", meter=act.meter))
        if isinstance(act, SwitchPower):
            pace.wait(rng, pace.power)
            self.hands.act("power", on=act.on)
            return "done", ""
        if isinstance(act, SetComm):
            pace.wait(rng, pace.cable)
            self.hands.act("cable", connected=act.connected)
            return "done", ""
        if isinstance(act, InjectFault | ReadShuffler):
            return "cannot", f"no one can {act.kind} by hand"
        return "cannot", f"no idea how to {act.kind}"

    @staticmethod
    def _shown(answer: dict[str, object]) -> tuple[str, str]:
        shown = answer.get("display")
        return ("cannot", f"the controller shows: {shown}") if shown else ("done", "")

    def _load(self, act: LoadShoe) -> tuple[str, str]:
        pace, rng = self.pace, self.rng
        self.misstacked = False
        if act.shuffled and act.by_shuffler:  # new-deck order in; the shoe's shuffler shuffles
            cards = [parse_card(id_card(i)) for i in range(52 * act.decks)]
            pace.wait(rng, pace.shuffle)  # sorting the decks takes as long as a shuffle
        elif act.shuffled:
            cards = [c for c, n in shoe_composition(act.decks).items() for _ in range(n)]
            rng.shuffle(cards)
            pace.wait(rng, pace.shuffle)
        else:
            cards = list(act.cards)
            self.stacks += 1
            if self.misstack_every and self.stacks % self.misstack_every == 0:
                i = next((k for k in range(len(cards) - 1) if cards[k] != cards[k + 1]), None)
                if i is not None:
                    cards[i], cards[i + 1] = cards[i + 1], cards[i]
                    self.misstacked = True
            for _ in cards:
                pace.wait(rng, pace.stack_card)
        self.hands.act("shoe.insert", cards=[c.code for c in cards])
        if act.shuffled and act.by_shuffler:
            self.hands.act("shoe.shuffle")
            cards = []  # no one sees the order the shuffler left: the cards are read as they are dealt
        self.in_shoe = cards
        return "done", ("misstacked" if self.misstacked else "")

    def _deal(self, act: Deal, hurried: bool = False) -> tuple[str, str]:
        """Deal card after card at a person's pace; never faster than the act's pace (a case that
        deals its cards 200 ms apart judges what happens between them, and a person keeps that pace
        or a slower one), unless the prompt is of bulk rounds being hurried."""
        least_ns = 0 if hurried or not act.pace_us else act.pace_us * 1000
        if act.one_round:
            count = self.round_length(list(self.in_shoe))
            if count is None:
                return "cannot", "the shoe does not hold a whole round"
        else:
            count = len(self.in_shoe) if act.count is None else act.count
        last_ns: int | None = None
        for _ in range(count):
            self.pace.wait(self.rng, self.pace.deal_card)
            if last_ns is not None and (short := last_ns + least_ns - time.perf_counter_ns()) > 0:
                time.sleep(short / 1e9)
            last_ns = time.perf_counter_ns()
            card = parse_card(str(self.hands.act("shoe.draw")["card"]))
            if self.in_shoe and self.in_shoe[0] == card:
                self.in_shoe.pop(0)
        return "done", ""
