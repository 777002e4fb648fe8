"""Shared pieces of the stack search: result types, the search budget, card choice by value.

A stack is only ever one of three answers (issue "Shoe stack builder"): a verified
:class:`Stack`, an :class:`Impossible` proven by exhaustive search, or a :class:`NotFound` when
the bounded search stopped first; the two failures are kept apart so a capped search is never
mistaken for a proof.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from harness.cards import SUITS, Card
from harness.stackbuilder.wants import Setup

ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s) for r in range(1, 14) for s in SUITS)

DEFAULT_MAX_TRIES = 200_000
DEFAULT_DEADLINE_S = 20.0


@dataclass(frozen=True)
class Stack:
    """A verified sequence: ``cards`` top of the shoe first, exactly one round."""

    name: str
    game: str
    want: str
    cards: tuple[Card, ...]
    setup: Setup
    seed: int
    tries: int
    seconds: float


@dataclass(frozen=True)
class Impossible:
    """No sequence can produce the want; ``reason`` says why (checked exhaustively)."""

    game: str
    want: str
    reason: str


@dataclass(frozen=True)
class NotFound:
    """The search stopped (try cap or deadline) before finding a stack or exhausting the space."""

    game: str
    want: str
    tries: int
    reason: str


Result = Stack | Impossible | NotFound


def slug(text: str) -> str:
    """A stack name from a want: ``royal9:banker+banker`` -> ``royal9-banker-banker``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "stack"


@dataclass
class Budget:
    max_tries: int
    deadline: float
    tries: int = 0
    cut: bool = False

    def spend(self) -> bool:
        """Count one try; False once the cap or the deadline is reached."""
        self.tries += 1
        if self.tries > self.max_tries or (self.tries % 1024 == 0 and time.monotonic() > self.deadline):
            self.cut = True
            return False
        return True



def by_value(rng: random.Random, values: Sequence[int]) -> dict[int, list[Card]]:
    out: dict[int, list[Card]] = defaultdict(list)
    for c in ALL_CARDS:
        out[values[c.rank]].append(c)
    for lst in out.values():
        rng.shuffle(lst)
    return dict(out)


def pick_cards(
    tail: Sequence[int], used: Counter[Card], decks: int, cards_of: dict[int, list[Card]]
) -> list[Card] | None:
    """Cards for the given values (third cards, dealer draws): any card of the value the shoe
    still holds, or ``None`` when one value is used up."""
    picked: list[Card] = []
    counts = Counter(used)
    for v in tail:
        # the least used card of the value first: a sheet that repeats one card is harder to load
        card = min(cards_of[v], key=lambda c: counts[c])
        if counts[card] >= decks:
            return None
        counts[card] += 1
        picked.append(card)
    return picked

