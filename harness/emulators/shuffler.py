"""The emulated shuffler built into the electronic shoe: it reshuffles the pack it holds and, over
the emulator's test channel, reports each new order (what a lab reads off a marked pack in
observe mode).

* the physical side (a bench): the shuffle button shuffles the cards a person loaded, one shuffle of
  the same generator (``shoe.shuffle``, :meth:`harness.emulators.shoe.EmulatedShoe.shuffle_loaded`);
* ``test.shuffle {"count": k}``: shuffle the pack ``k`` times (1 <= k <= what fits one frame) and
  answer ``{"cards": n, "shuffles": [ORDER, ...]}``, each ORDER the pack after that shuffle, top
  first, as card ids ``0..n-1`` (``id = deck * 52 + card`` in new-pack order) packed as
  little-endian 16-bit integers in base64.  The pack before the first shuffle is in id order;
  each shuffle starts from the order the previous one left.

The shuffle is uniform (a Fisher-Yates shuffle from numpy's PCG64, seeded by the profile's
``emulator.seed``) unless one of the shuffler defects is on; each carries the size the default
randomness plan declares (:class:`harness.randomness.settings.ShufflerDefects`), so the battery
must catch it at the planned sample size: ``shuffler-few-riffles``, ``shuffler-biased-cut``,
``shuffler-stuck-card``, ``shuffler-short-period``.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from harness.devices.framing import MAX_PAYLOAD
from harness.randomness.models import ShufflerModel, compose
from harness.randomness.settings import ShufflerDefects

SHUFFLER_DEFECTS = ("shuffler-few-riffles", "shuffler-biased-cut", "shuffler-stuck-card", "shuffler-short-period")
DEFAULT_SEED = 15


def per_frame(n: int) -> int:
    """Orders of ``n`` cards that fit one answer frame (base64 of 2n bytes each, with some room)."""
    return max(1, (MAX_PAYLOAD - 200) // (4 * ((2 * n + 2) // 3) + 3))


class PackShuffler:
    """The pack, its generator and the one model the defects select."""

    def __init__(self, cards: int, defects: Collection[str], seed: int | None) -> None:
        self.n = cards
        self.order = np.arange(cards, dtype=np.int64)
        self.rng = np.random.default_rng(DEFAULT_SEED if seed is None else seed)
        models = ShufflerDefects().models(cards)
        chosen = [models[d] for d in SHUFFLER_DEFECTS if d in defects]
        self.model = chosen[0] if chosen else ShufflerModel()
        self._cycle: np.ndarray | None = None
        self.count = 0

    def shuffle(self) -> np.ndarray:
        """One shuffle of the pack it holds (read out by ``test.shuffle``): the new order."""
        self.order = compose(self.order, self.positions())
        return self.order

    def positions(self) -> np.ndarray:
        """The next shuffle: ``pos[i]`` is where the card at position ``i`` goes."""
        if self.model.kind == "period":
            if self._cycle is None:
                self._cycle = self.model.shuffle(self.rng, self.model.period, self.n)
            pos = self._cycle[self.count % self.model.period]
        else:
            pos = self.model.shuffle(self.rng, 1, self.n)[0]
        self.count += 1
        return pos
