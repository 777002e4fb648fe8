"""What a battery reads: plain data, whoever collected it.

The emulator's test channel, the soak, and an operator on a bench in observe mode all produce the
same three kinds of observation, so a battery never knows (or cares) where its data came from:

* :class:`ShuffleObservation`: the order of the pack before and after one shuffle, as card labels
  (distinct labels: a lab marks the cards of a multi-deck pack, e.g. ``KS#3`` for the king of
  spades of deck 3; the emulator uses card ids ``0..n-1``).
* :class:`ShoeObservation`: the cards read from a shoe, in the order dealt (card codes).
* :class:`MysteryAward`: one mystery award in cents, with the reseed and must-hit-by amounts in
  force when it was won (Royal 9 (h)).

Each has ``to_dict`` / ``from_dict`` so a bench can write them to a file as JSON or YAML.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.cards import parse_card
from harness.errors import InputError
from harness.money import Cents
from harness.randomness.models import positions


@dataclass(frozen=True)
class ShuffleObservation:
    pre: tuple[str, ...]
    post: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"pre": list(self.pre), "post": list(self.post)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ShuffleObservation:
        return cls(_labels(data, "pre", "shuffle"), _labels(data, "post", "shuffle"))


@dataclass(frozen=True)
class ShoeObservation:
    cards: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"cards": list(self.cards)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ShoeObservation:
        return cls(_labels(data, "cards", "shoe"))


def _labels(data: Mapping[str, Any], key: str, what: str) -> tuple[str, ...]:
    value = data.get(key)
    if not isinstance(value, list | tuple) or not value:
        raise InputError(f"{what} {dict(data)!s:.80}: '{key}' must be a list of cards")
    return tuple(str(c) for c in value)


@dataclass(frozen=True)
class MysteryAward:
    amount: Cents
    reseed: Cents
    must_hit_by: Cents

    def to_dict(self) -> dict[str, Any]:
        return {"amount": self.amount, "reseed": self.reseed, "must_hit_by": self.must_hit_by}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MysteryAward:
        values = [data.get(k) for k in ("amount", "reseed", "must_hit_by")]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise InputError(f"mystery award {dict(data)}: amount, reseed and must_hit_by are whole cents")
        return cls(int(values[0]), int(values[1]), int(values[2]))  # type: ignore[arg-type]


def encode_order(order: Sequence[int] | np.ndarray) -> str:
    """A pack order of card ids as little-endian 16-bit integers in base64 (the test channel's form)."""
    return base64.b64encode(np.asarray(order, dtype="<u2").tobytes()).decode("ascii")


def decode_order(text: str) -> list[int]:
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise InputError("a pack order is not base64") from None
    if len(raw) % 2:
        raise InputError("a pack order has an odd number of bytes")
    return np.frombuffer(raw, dtype="<u2").astype(int).tolist()


def id_card(card_id: int) -> str:
    """The card code of card id ``deck * 52 + k`` (k in new-pack order: spades A-K, hearts, diamonds, clubs)."""
    k = card_id % 52
    return "A23456789TJQK"[k % 13] + "SHDC"[k // 13]


def shuffle_positions(shuffles: Sequence[ShuffleObservation]) -> np.ndarray:
    """The ``(m, n)`` array of final positions of a list of observed shuffles (same pack size)."""
    if not shuffles:
        return np.zeros((0, 0), dtype=np.int64)
    n = len(shuffles[0].pre)
    out = np.empty((len(shuffles), n), dtype=np.int64)
    for i, s in enumerate(shuffles):
        if len(s.pre) != n:
            raise InputError(f"shuffle {i + 1}: {len(s.pre)} cards, the first shuffle had {n}")
        try:
            out[i] = positions(s.pre, s.post)
        except ValueError as exc:
            raise InputError(f"shuffle {i + 1}: {exc}") from None
    return out


def shoe_arrays(shoes: Iterable[ShoeObservation]) -> tuple[np.ndarray, np.ndarray]:
    """(ranks, red) arrays ``(m, L)`` over the shoes' first ``L`` cards, ``L`` the shortest shoe:
    ranks 1-13, red 1 for hearts and diamonds."""
    rows = [list(s.cards) for s in shoes]
    if not rows:
        return np.zeros((0, 0), dtype=np.int64), np.zeros((0, 0), dtype=np.int8)
    length = min(len(r) for r in rows)
    ranks = np.empty((len(rows), length), dtype=np.int64)
    red = np.empty((len(rows), length), dtype=np.int8)
    for i, row in enumerate(rows):
        for j, code in enumerate(row[:length]):
            card = parse_card(code)
            ranks[i, j] = card.rank
            red[i, j] = 1 if card.suit in ("H", "D") else 0
    return ranks, red
