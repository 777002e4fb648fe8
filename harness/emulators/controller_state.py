"""The emulated controller as its round settlement (:mod:`harness.emulators.settle`) and its defect
branches (:mod:`harness.emulators.bent`) read and change it.

Both modules take the controller as their first argument and are called by it; typed against this
protocol rather than :class:`~harness.emulators.controller.Controller`, neither imports the
controller, so the controller sits on top of them (no import circle).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Protocol

from harness.cards import Card
from harness.emulators.config import EmulatorConfig
from harness.emulators.link_table import Ledger, TableLink
from harness.emulators.sensors import Sensors
from harness.games.baccarat import BaccaratRound
from harness.games.interpretations import Interpretations
from harness.games.royal9 import Royal9Table
from harness.money import Cents
from harness.progressive.floors import ProgressiveOptions
from harness.progressive.meter import MeterBank


class PayoutAccounts(Ledger, Protocol):
    """The payout meters a progressive controller keeps (:class:`harness.emulators.settle.Accounts`)."""

    cumulative_paid: Cents
    paid_by_table: Cents
    paid_by_attendant: Cents


class ControllerState(Protocol):
    """What settlement and the defect branches read of the controller, and the two things they change
    (its meter bank, and whether a rewrite disarmed the mystery trigger)."""

    bank: MeterBank | None
    mystery_disarmed: bool

    @property
    def cfg(self) -> EmulatorConfig: ...
    @property
    def options(self) -> ProgressiveOptions: ...
    @property
    def interp(self) -> Interpretations: ...
    @property
    def rng(self) -> random.Random: ...
    @property
    def sensors(self) -> Sensors: ...
    @property
    def r9(self) -> Royal9Table | None: ...
    @property
    def link(self) -> TableLink | None: ...
    @property
    def accounts(self) -> PayoutAccounts: ...
    @property
    def hr_meter(self) -> str | None: ...
    @property
    def cards(self) -> list[Card]: ...
    @property
    def phase(self) -> str: ...
    @property
    def lock_cause(self) -> str | None: ...
    @property
    def round_no(self) -> int: ...
    @property
    def boot_rates(self) -> dict[str, Decimal]: ...

    def deal_round(self, cards: Sequence[Card]) -> BaccaratRound: ...
    def r9_cards(self, rnd: BaccaratRound) -> Sequence[Card]: ...
    def emit(self, event: str, **fields: Any) -> None: ...
    def save(self) -> None: ...
