"""The emulated controller as its round settlement (:mod:`harness.emulators.settle`) and its defect
branches (:mod:`harness.emulators.defect_branches`) read and change it.

Both modules take the controller as their first argument and are called by it; typed against this
protocol rather than :class:`~harness.emulators.controller.Controller`, neither imports the
controller, so the controller sits on top of them (no import circle).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from decimal import Decimal
from typing import Protocol

from harness.cards import Card
from harness.emulators.config import EmulatorConfig
from harness.emulators.link_table import Host, LinkPayoutAccounts, TableLink
from harness.emulators.sensors import Sensors
from harness.games.baccarat import BaccaratRound
from harness.games.royal9 import Royal9Table
from harness.money import Cents
from harness.progressive.floors import ProgressiveOptions
from harness.progressive.meter import MeterBank


class PayoutAccounts(LinkPayoutAccounts, Protocol):
    """The payout meters a progressive controller keeps (:class:`harness.emulators.settle.Accounts`)."""

    cumulative_paid: Cents
    paid_by_table: Cents
    paid_by_attendant: Cents


class ControllerState(Host, Protocol):
    """What settlement and the defect branches read of the controller, beyond what its link does; of
    it they change only the meter bank and whether a rewrite disarmed the mystery trigger."""

    cfg: EmulatorConfig
    options: ProgressiveOptions
    rng: random.Random
    sensors: Sensors
    r9: Royal9Table | None
    link: TableLink | None
    hr_meter: str | None
    cards: list[Card]
    phase: str
    lock_cause: str | None
    round_no: int
    boot_rates: dict[str, Decimal]
    bank: MeterBank | None
    mystery_disarmed: bool

    @property
    def accounts(self) -> PayoutAccounts: ...

    def deal_round(self, cards: Sequence[Card]) -> BaccaratRound: ...
    def r9_cards(self, rnd: BaccaratRound) -> Sequence[Card]: ...
