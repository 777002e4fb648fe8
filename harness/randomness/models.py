"""Shuffler models, vectorised: a batch of ``m`` shuffles of ``n`` cards in one numpy call.

A shuffle is returned as ``pos`` (shape ``(m, n)``): ``pos[s, j]`` is where shuffle ``s`` put the
card that was at position ``j`` (see :mod:`harness.randomness.stats`).  The emulated shuffler
(:mod:`harness.emulators.shuffler`) and the power planning (:mod:`harness.randomness.power`) use
the same models, so a defect's declared size is the size the emulator has.

* ``uniform``: every permutation equally likely (a Fisher-Yates shuffle from a sound generator).
* ``riffles``: ``k`` Gilbert-Shannon-Reeds riffle passes (Bayer and Diaconis 1992); with
  ``cut`` other than 1/2 each pass cuts the pack Binomial(n, cut), a biased cut.
* ``stuck``: uniform, except that with probability ``probability`` the card at the bottom before
  the shuffle ends anywhere in the bottom ``span`` positions (a card that sticks near the bottom).
* ``period``: uniform shuffles from a generator whose output repeats every ``period`` shuffles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ShufflerModel:
    """One way to shuffle; ``kind`` is one of ``uniform``, ``riffles``, ``stuck``, ``period``."""

    kind: str = "uniform"
    riffles: int = 0
    cut: float = 0.5
    probability: float = 0.0
    span: int = 0
    period: int = 0

    def describe(self, n: int) -> str:
        if self.kind == "riffles":
            cut = "" if self.cut == 0.5 else f", each cut Binomial(n, {self.cut:g})"
            return f"{self.riffles} riffle pass(es){cut}"
        if self.kind == "stuck":
            return (f"the bottom card stays in the bottom {self.span} of {n} positions with probability "
                    f"{self.probability:g}")
        if self.kind == "period":
            return f"the generator repeats every {self.period} shuffles"
        return "uniform"

    def shuffle(self, rng: np.random.Generator, m: int, n: int) -> np.ndarray:
        """``m`` shuffles of ``n`` cards as an ``(m, n)`` array of final positions."""
        if self.kind == "riffles":
            return riffle(rng, m, n, self.riffles, self.cut)
        if self.kind == "stuck":
            return stuck(rng, m, n, self.probability, self.span)
        if self.kind == "period":
            base = uniform(rng, min(m, self.period), n)
            return base[np.arange(m) % self.period]
        return uniform(rng, m, n)


def uniform(rng: np.random.Generator, m: int, n: int) -> np.ndarray:
    """``m`` uniform permutations (final position of each card)."""
    return rng.permuted(np.broadcast_to(np.arange(n, dtype=np.int32), (m, n)), axis=1)


def riffle(rng: np.random.Generator, m: int, n: int, passes: int, cut: float = 0.5) -> np.ndarray:
    """``passes`` GSR riffles, each cutting Binomial(n, ``cut``) and dropping cards in proportion to
    the packets' sizes, which is the same as giving every position of the result a packet drawn
    Bernoulli(``cut``) and filling each packet's positions in order."""
    pos = np.broadcast_to(np.arange(n, dtype=np.int64), (m, n)).copy()
    rows = np.arange(m)[:, None]
    for _ in range(passes):
        # packet of each final position: 0 = the top packet (probability ``cut``)
        packet = (rng.random((m, n)) >= cut).astype(np.int8)
        order = np.argsort(packet, axis=1, kind="stable")  # order[s, i] = final position of the i-th card
        # the card now at position i goes to order[s, i]; compose with where it already was
        pos = order[rows, pos]
    return pos


def stuck(rng: np.random.Generator, m: int, n: int, probability: float, span: int) -> np.ndarray:
    """Uniform shuffles in which the bottom card, with ``probability``, is swapped into a uniformly
    chosen position among the bottom ``span``."""
    pos = uniform(rng, m, n).astype(np.int64)
    hit = rng.random(m) < probability
    rows = np.nonzero(hit)[0]
    if len(rows) and span > 0:
        target = n - 1 - rng.integers(0, span, size=len(rows))
        # the card sitting at the target position takes the bottom card's place
        inverse = np.argsort(pos[rows], axis=1)
        other = inverse[np.arange(len(rows)), target]
        pos[rows, other] = pos[rows, n - 1]
        pos[rows, n - 1] = target
    return pos


def compose(pre_order: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The pack after a shuffle: ``pre_order`` (card ids top to bottom) moved by ``pos``."""
    out = np.empty_like(pre_order)
    out[pos] = pre_order
    return out


def positions(pre: list[object] | tuple[object, ...], post: list[object] | tuple[object, ...]) -> np.ndarray:
    """``pos`` of one observed shuffle: where each card of ``pre`` is found in ``post`` (labels must be
    distinct and the same cards on both sides)."""
    where = {label: i for i, label in enumerate(post)}
    if len(where) != len(post) or len(pre) != len(post):
        raise ValueError("a shuffle's orders must list the same distinct cards before and after")
    try:
        return np.asarray([where[label] for label in pre], dtype=np.int64)
    except KeyError as exc:
        raise ValueError(f"card {exc.args[0]!r} is in the order before the shuffle but not after it") from None
