"""The state of a table as the explorer's model holds it: every observable a host can read (pure data)."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from harness.money import Cents
from harness.progressive.meter import MeterConfig


@dataclass
class MeterState:
    amount: Cents
    residual: Decimal = Decimal(0)
    diverted: Cents = 0


@dataclass(frozen=True, order=True)
class Pending:
    meter: str
    seat: int
    amount: Cents
    category: str


@dataclass
class State:
    denomination: Cents | None
    meter_cfg: dict[str, MeterConfig]
    meters: dict[str, MeterState]
    cumulative_paid: Cents = 0
    paid_by_table: Cents = 0
    paid_by_attendant: Cents = 0
    pending: tuple[Pending, ...] = ()
    layout: dict[tuple[int, str], Cents] = field(default_factory=dict)
    #: idle (after power-up) | open | dealing | settled
    phase: str = "idle"
    locked: bool = True
    cause: str | None = "power"
    #: the last round number; None until the device first shows one
    round: int | None = None
    #: cards left in the shoe, top first; None while unknown (after a power cycle, before a load)
    shoe: tuple[str, ...] | None = None
    dealt: int = 0
    #: the shoe as the power went (its cards, top first, and its count): the cards are still in it, and a
    #: shoe.status after power-up that counts them as before shows they are known again (None: nothing kept)
    shoe_kept: tuple[tuple[str, ...], int] | None = None
    round_cards: tuple[str, ...] = ()
    round_need: int = 0
    link_up: bool = True
    #: the SEQ of the last event each role (controller, shoe) sent; None while unknown
    seqs: dict[str, int | None] = field(default_factory=lambda: {"controller": None, "shoe": None})
    #: the roles that have sent no event since the power came back: their next may be numbered 1
    seq_fresh: frozenset[str] = frozenset()
    #: the Banker commission in force, percent (docs/protocol.md 6.4 ``commission``)
    commission: Decimal = Decimal(5)
    #: decks in the shoe as configured (docs/protocol.md 6.4 ``decks``)
    decks: int = 8
    #: the seats and their personal king-9 combinations in force: (seat, (king, nine) codes or None)
    seats: tuple[tuple[int, tuple[str, str] | None], ...] = ()

    def in_force(self) -> tuple[Any, ...]:
        """The configuration held in force: what a ``config.set`` may change."""
        return self.denomination, self.commission, self.decks, self.seats, self.meter_cfg

    def clone(self) -> State:
        new = copy.copy(self)
        new.meter_cfg = dict(self.meter_cfg)
        new.meters = {k: dataclasses.replace(v) for k, v in self.meters.items()}
        new.layout = dict(self.layout)
        new.seqs = dict(self.seqs)
        return new
