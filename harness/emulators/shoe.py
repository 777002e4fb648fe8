"""The emulated electronic dealing shoe.

The shoe reads each card as it leaves and reports it as a ``card`` event.  The same instant is
signalled to the progressive controller over the wired "card out" line (``on_card_out``): the
controller's lock-out on the first card out of the shoe (629a Royal 9 (a)(2)) keys off that
line, not off the host's reading of the event.

Emulator-only test channel (REFUSED "not an emulator" on real devices):

* ``test.load {"cards": ["KS", "9H", ...], "check_decks": true}``: put a scripted sequence in the
  shoe (replacing what is left).  The sequence must be possible for the table's deck count
  unless ``check_decks`` is false.
* ``test.deal {"count": n, "pace_us": u}``: deal ``n`` cards (default: all), one every ``u`` µs
  (default: the profile's ``deal_pace``), the first ``u`` µs after the answer.  Answers at once;
  cards follow as events.  ``pace_us`` 0 deals synchronously, before the answer (fast
  in-process rounds).  BUSY while dealing.
* ``test.shuffle {"count": k}``: the shuffler built into the shoe reshuffles its pack ``k`` times
  and reports each order (:mod:`harness.emulators.shuffler`).
* ``test.fault {"kind": "misread"}``: the next card is read as a ``misread`` event (the card is
  still physically dealt, so the controller still sees it out); ``{"kind": "error", "code",
  "text"}`` emits an ``error`` event.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from harness.cards import Card, check_against_shoe, parse_cards
from harness.emulators.base import Answer, BadArgs, Emit, EmulatedDevice, Refusal, arg
from harness.emulators.clock import Scheduler
from harness.emulators.config import EmulatorConfig
from harness.emulators.shuffler import PackShuffler, per_frame
from harness.errors import InputError
from harness.randomness.observations import encode_order

CardOut = Callable[[Card, int], None]  # (card, perf_counter_ns when it left the shoe)


class EmulatedShoe(EmulatedDevice):
    role = "shoe"

    def __init__(self, cfg: EmulatorConfig, emit: Emit, lock: threading.RLock, clock: Scheduler,
                 on_card_out: CardOut) -> None:
        super().__init__(cfg, emit, lock)
        self.clock = clock
        self.on_card_out = on_card_out
        self.cards: deque[Card] = deque()
        self.dealt = 0
        self.dealing = 0  # cards still to deal in the current test.deal
        self._timers: list[int] = []
        self._misread_next = False
        self.shuffler = PackShuffler(52 * cfg.decks, cfg.defects, cfg.seed)
        self.commands.update({
            "test.shuffle": self._shuffle,
            "shoe.status": self._status,
            "test.load": self._load,
            "test.deal": self._deal,
            "test.fault": self._fault,
        })

    def _status(self, req: Mapping[str, Any]) -> Answer:
        state = "dealing" if self.dealing else "ready" if self.cards else "empty"
        return {"state": state, "cards_dealt": self.dealt, "cards_remaining": len(self.cards)}

    def _load(self, req: Mapping[str, Any]) -> Answer:
        if self.dealing:
            return Refusal("BUSY", "the shoe is dealing")
        codes = arg(req, "cards", list)
        if "load-refusal-clears-shoe" in self.cfg.defects:
            self.cards, self.dealt = deque(), 0  # defect: emptied before the checks that may refuse the load
        try:
            cards = parse_cards([str(c) for c in codes])
            if arg(req, "check_decks", bool, True):
                check_against_shoe(cards, self.cfg.decks)
        except InputError as exc:
            raise BadArgs(str(exc)) from None
        self.cards = deque(cards)
        self.dealt = 0
        return {"cards_remaining": len(self.cards)}

    def _deal(self, req: Mapping[str, Any]) -> Answer:
        if self.dealing:
            return Refusal("BUSY", "the shoe is already dealing")
        count = arg(req, "count", int, len(self.cards))
        if count == 0 and "deal-zero-deals-all" in self.cfg.defects:
            count = len(self.cards)  # defect: a count of 0 read as no count given
        pace = arg(req, "pace_us", int, self.cfg.deal_pace_us)
        if count < 0 or pace < 0:
            raise BadArgs("count and pace_us must not be negative")
        if count > len(self.cards):
            return Refusal("REFUSED", f"only {len(self.cards)} card(s) in the shoe")
        if pace == 0:
            for _ in range(count):
                self._deal_one(time.perf_counter_ns())
            return {"dealing": 0, "cards_remaining": len(self.cards)}
        self.dealing = count
        start = time.perf_counter_ns()
        self._timers = [self.clock.at(start + (k + 1) * pace * 1000, self._tick) for k in range(count)]
        return {"dealing": count, "cards_remaining": len(self.cards)}

    def _tick(self, due_ns: int, fired_ns: int) -> None:
        with self.lock:
            if not self.powered or not self.dealing:
                return
            self.dealing -= 1
            self._deal_one(fired_ns)

    def _deal_one(self, t_ns: int) -> None:
        card = self.cards.popleft()
        if "shoe-misread" in self.cfg.defects and card.rank == 6:
            card = Card(9, card.suit)  # read upside down: reported, and passed on, as a nine
        self.dealt += 1
        if self._misread_next:
            self._misread_next = False
            if "omits-optional-fields" in self.cfg.personas:  # raw is optional (docs/protocol.md 6.2)
                self.emit("misread", n=self.dealt)
            else:
                self.emit("misread", n=self.dealt, raw="??")
        elif "reordered-events" in self.cfg.personas:
            # the controller hears of the card first; the shoe's own line reports it after the
            # controller's events for it (settlement and round_end on a last card): section 8
            self.on_card_out(card, t_ns)
            self.emit("card", card=card.code, n=self.dealt)
            return
        else:
            self.emit("card", card=card.code, n=self.dealt)
        self.on_card_out(card, t_ns)

    def _shuffle(self, req: Mapping[str, Any]) -> Answer:
        count = arg(req, "count", int, 1)
        most = per_frame(self.shuffler.n)
        if not 1 <= count <= most:
            raise BadArgs(f"count must be 1..{most} (orders of {self.shuffler.n} cards in one frame)")
        return {"cards": self.shuffler.n,
                "shuffles": [encode_order(self.shuffler.shuffle()) for _ in range(count)]}

    # -- the physical side (harness.emulators.physical): a person's hands ----------------------
    def insert(self, cards: list[Card]) -> int:
        """Cards put into the shoe by hand, top card first (replacing what was left)."""
        if self.dealing:
            raise ValueError("the shoe is dealing")
        self.cards = deque(cards)
        self.dealt = 0
        return len(self.cards)

    def shuffle_loaded(self) -> int:
        """The shoe's shuffle button: its built-in shuffler shuffles the cards a person loaded (a
        whole pack), once, with the generator ``test.shuffle`` reads out."""
        if self.dealing:
            raise ValueError("the shoe is dealing")
        if len(self.cards) != self.shuffler.n:
            raise ValueError(f"the shuffler takes the whole pack of {self.shuffler.n} cards; "
                             f"the shoe holds {len(self.cards)}")
        cards = list(self.cards)
        shuffled: list[Card] = list(cards)
        for i, p in enumerate(self.shuffler.positions()):
            shuffled[int(p)] = cards[i]
        self.cards = deque(shuffled)
        return len(shuffled)

    def draw(self) -> Card:
        """One card pulled out of the shoe by hand: read, reported and signalled like any other."""
        if self.dealing:
            raise ValueError("the shoe is dealing")
        if not self.cards:
            raise ValueError("the shoe is empty")
        card = self.cards[0]
        self._deal_one(time.perf_counter_ns())
        return card

    def _fault(self, req: Mapping[str, Any]) -> Answer:
        kind = arg(req, "kind", str)
        if kind == "misread":
            self._misread_next = True
        elif kind == "error":
            self.emit("error", code=str(req.get("code", "E1")), text=str(req.get("text", "reader fault")))
        else:
            return Refusal("BAD_ARGS", f"shoe fault {kind!r}: known kinds are misread, error")
        return {"kind": kind}

    def power_off(self) -> None:
        """The reader stops; the cards physically in the shoe stay there."""
        super().power_off()
        for tid in self._timers:
            self.clock.cancel(tid)
        self._timers = []
        self.dealing = 0
        self._misread_next = False

    def state(self) -> dict[str, Any]:
        return {"remaining": [c.code for c in self.cards], "dealt": self.dealt, "dealing": self.dealing}
