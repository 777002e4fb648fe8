"""The physical acts a case can ask for, one small frozen dataclass each.

An act says *what* must happen at the table, never *how*: the performer the profile chooses for
its :attr:`Act.kind` (:mod:`harness.bench.performers`) carries it out.  Each act can describe
itself to a person (:meth:`Act.instruction`, and a sheet for the bench console: the stacking sheet
of a shoe, the wager sheet of a batch of wagers), and serialises to plain data for the record
(:meth:`Act.to_dict`), so every prompt and answer is evidence.

:data:`ACTS` is the vocabulary a profile's ``bench.performers`` uses.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from harness.cards import Card
from harness.devices.roles import Wager
from harness.money import fmt

#: act kind -> what it is (the vocabulary of ``bench.performers`` and of NOT APPLICABLE reasons)
ACTS: Mapping[str, str] = {
    "load": "stack the shoe (from a stacking sheet, or a freshly shuffled shoe)",
    "deal": "deal cards out of the shoe",
    "wager": "put chips on a betting area",
    "remove-wager": "take chips off a betting area",
    "open-round": "open wagering for a round (the dealer)",
    "no-more-bets": "call \"no more bets\" (the dealer)",
    "lockout-button": "press the lock-out button",
    "reset-key": "turn the reset key for a meter",
    "power": "switch the table's power off or on",
    "comm": "break or restore the link between the controller and the wagering devices (pull a cable)",
    "fault": "inject a device fault (a silent device, line noise, a reboot, a power loss)",
    "shuffler-readout": "read out the built-in shuffler's pack order before and after each shuffle",
}

WAGER_NAMES = {
    "royal9": "Royal 9", "player": "Player", "banker": "Banker", "tie": "Tie", "dragon7": "Dragon 7",
    "panda8": "Panda 8", "hit-and-run": "Hit and Run", "blackjack": "Blackjack",
    "streak3-player": "Streak 3 Player", "streak3-banker": "Streak 3 Banker",
}


class RedoCase(Exception):
    """The case's premise did not hold at the table (e.g. the shoe was misstacked): the session
    voids the round and runs the case again.  Never a FAIL: the device did nothing wrong."""


@dataclass(frozen=True)
class Removal:
    """The outcome of taking chips off a betting area, as the wagering system reports it."""

    removed: bool
    reason: str = ""


@dataclass(frozen=True)
class Act:
    """Base of every act; ``kind`` is its key in :data:`ACTS`."""

    kind: ClassVar[str] = ""

    def instruction(self) -> str:
        """One sentence telling a person what to do."""
        raise NotImplementedError

    def sheet(self) -> dict[str, Any] | None:
        """What the bench console shows next to the instruction (a stacking or wager sheet)."""
        return None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"act": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, tuple) and value and isinstance(value[0], Card):
                value = [c.code for c in value]
            elif isinstance(value, tuple) and value and isinstance(value[0], Wager):
                value = [{"seat": w.seat, "type": w.type, "amount": w.amount} for w in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


def card_face(card: Card) -> dict[str, str]:
    """A card as the bench console draws it: rank text, suit symbol, colour."""
    rank = {1: "A", 10: "10", 11: "J", 12: "Q", 13: "K"}.get(card.rank, str(card.rank))
    symbol = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}[card.suit]
    return {"code": card.code, "rank": rank, "suit": symbol, "colour": "red" if card.suit in "HD" else "black"}


def faces(cards: tuple[Card, ...]) -> str:
    return " ".join(f["rank"] + f["suit"] for f in map(card_face, cards))


@dataclass(frozen=True)
class LoadShoe(Act):
    """Put cards into the shoe: ``cards`` top card first, or a shuffled shoe of ``decks`` decks."""

    kind: ClassVar[str] = "load"
    cards: tuple[Card, ...] = ()
    shuffled: bool = False
    decks: int = 8
    #: the stacking sheet's name (a fixture stack, or the case and YAML line)
    sheet_id: str = ""
    check_decks: bool = True
    #: the shuffle of a shoe loaded by the test channel (a person shuffles as people do)
    seed: int = 0
    #: with ``shuffled``: the shoe's built-in shuffler shuffles, not a person: the pack goes in in
    #: new-deck order and the shuffle button is pressed (a hand-shuffled pack would hide the
    #: shuffler's order from the shoe battery)
    by_shuffler: bool = False

    def instruction(self) -> str:
        if self.shuffled and self.by_shuffler:
            return (f"Load {self.decks} deck(s) in new-deck order (each deck spades A-K, then hearts, diamonds, "
                    "clubs), press the shoe's shuffle button and confirm (the cards are read as they are dealt)")
        if self.shuffled:
            return (f"Shuffle {self.decks} deck(s), load the whole shoe and confirm (the cards are read "
                    "as they are dealt)")
        return (f"Stack the shoe from sheet {self.sheet_id or '(this case)'} ({len(self.cards)} cards, top "
                f"first): {faces(self.cards)}, and confirm")

    def sheet(self) -> dict[str, Any] | None:
        if self.shuffled and self.by_shuffler:
            return {"kind": "shuffle", "title": f"{self.decks} deck(s) in new-deck order, shuffled by the shoe"}
        if self.shuffled:
            return {"kind": "shuffle", "title": f"a freshly shuffled shoe of {self.decks} deck(s)"}
        return {"kind": "stack", "title": f"stacking sheet {self.sheet_id}".strip(),
                "cards": [card_face(c) for c in self.cards]}


@dataclass(frozen=True)
class Deal(Act):
    """Deal ``count`` cards (``None``: every card stacked), or one whole round (``one_round``) from a
    shuffled shoe, as the game's rules say.  ``pace_us`` is a pace only a machine can keep."""

    kind: ClassVar[str] = "deal"
    count: int | None = None
    pace_us: int | None = None
    one_round: bool = False

    def instruction(self) -> str:
        if self.one_round:
            return "Deal one round from the shoe as the game's rules say, then confirm"
        if self.count is None:
            return "Deal every stacked card out of the shoe, one by one, then confirm"
        return f"Deal {self.count} card(s) out of the shoe, one by one, then confirm"


@dataclass(frozen=True)
class PlaceWagers(Act):
    """Put chips on the betting areas; ``not_before_ns`` (host ``perf_counter_ns``) times a single
    placement relative to a dealing event (``after``): no earlier than that instant."""

    kind: ClassVar[str] = "wager"
    wagers: tuple[Wager, ...] = ()
    after: str | None = None
    not_before_ns: int | None = None
    #: the area or position may not exist on this layout (a probe the wagering system must refuse);
    #: a person who finds no such area answers Cannot, which counts as refused
    probe: bool = False

    def instruction(self) -> str:
        if len(self.wagers) == 1:
            w = self.wagers[0]
            when = f" now (after the {self.after.replace('-', ' ')})" if self.after else ""
            cannot = " (Cannot if the layout has no such area)" if self.probe else ""
            return (f"Place {fmt(w.amount)} on the {WAGER_NAMES.get(w.type, w.type)} area of seat "
                    f"{w.seat}{when}{cannot}")
        return f"Place the {len(self.wagers)} wagers of the wager sheet, then confirm"

    def sheet(self) -> dict[str, Any] | None:
        return {"kind": "wagers", "title": "wager sheet",
                "rows": [{"seat": w.seat, "area": WAGER_NAMES.get(w.type, w.type), "amount": fmt(w.amount)}
                         for w in self.wagers]}


@dataclass(frozen=True)
class RemoveWager(Act):
    kind: ClassVar[str] = "remove-wager"
    seat: int = 0
    type: str = "royal9"

    def instruction(self) -> str:
        return f"Take the chips off the {WAGER_NAMES.get(self.type, self.type)} area of seat {self.seat}"


@dataclass(frozen=True)
class OpenRound(Act):
    kind: ClassVar[str] = "open-round"
    #: the controller should refuse this round (the link is down, a payment waits for the reset key);
    #: a person who sees it refuse answers Cannot with what it shows, which counts as refused
    probe: bool = False

    def instruction(self) -> str:
        cannot = " (Cannot, with what the controller shows, if it refuses)" if self.probe else ""
        return f"Open the round for wagering (the dealer's round start){cannot}"


@dataclass(frozen=True)
class NoMoreBets(Act):
    kind: ClassVar[str] = "no-more-bets"
    #: the controller should refuse the call (no round open; a table without the input); a person who
    #: sees it refuse answers Cannot with what it shows, which counts as refused
    probe: bool = False

    def instruction(self) -> str:
        cannot = " (Cannot, with what the controller shows, if it refuses)" if self.probe else ""
        return f"Call \"no more bets\" on the controller{cannot}"


@dataclass(frozen=True)
class PressLockout(Act):
    kind: ClassVar[str] = "lockout-button"

    def instruction(self) -> str:
        return "Press the lock-out button now"


@dataclass(frozen=True)
class TurnResetKey(Act):
    kind: ClassVar[str] = "reset-key"
    meter: str = "mega"
    #: no hit is waiting for this key (a probe the controller should refuse or ignore); a person who
    #: sees the controller refuse answers Cannot with what it shows, which counts as refused
    probe: bool = False

    def instruction(self) -> str:
        cannot = " (Cannot, with what the controller shows, if it refuses)" if self.probe else ""
        return f"Turn the reset key for the {self.meter} meter{cannot}"


@dataclass(frozen=True)
class SwitchPower(Act):
    kind: ClassVar[str] = "power"
    on: bool = True

    def instruction(self) -> str:
        return f"Switch the table's power {'on' if self.on else 'off'}"


@dataclass(frozen=True)
class SetComm(Act):
    kind: ClassVar[str] = "comm"
    connected: bool = True

    def instruction(self) -> str:
        if self.connected:
            return "Reconnect the cable between the controller and the wagering devices"
        return "Pull the cable between the controller and the wagering devices"


@dataclass(frozen=True)
class InjectFault(Act):
    kind: ClassVar[str] = "fault"
    role: str = "controller"
    fault: str = "no-answer"
    args: tuple[tuple[str, Any], ...] = field(default=())

    def instruction(self) -> str:
        return f"Make the {self.role} show a {self.fault} fault"

    def to_dict(self) -> dict[str, Any]:
        return {"act": self.kind, "role": self.role, "fault": self.fault, "args": dict(self.args)}


@dataclass(frozen=True)
class ReadShuffler(Act):
    """The pack's order after each of ``count`` shuffles of the shoe's built-in shuffler (the first
    observation is the order before the first).  Only a device's test channel reports it; on a bench
    the orders of a marked pack are observed by hand and given to the battery as a file (``from:``)."""

    kind: ClassVar[str] = "shuffler-readout"
    count: int = 1

    def instruction(self) -> str:
        return f"Read out the shuffler's pack order over {self.count} shuffle(s)"


ACT_TYPES: dict[str, type[Act]] = {cls.kind: cls for cls in (
    LoadShoe, Deal, PlaceWagers, RemoveWager, OpenRound, NoMoreBets, PressLockout, TurnResetKey,
    SwitchPower, SetComm, InjectFault, ReadShuffler)}
assert set(ACT_TYPES) == set(ACTS)
