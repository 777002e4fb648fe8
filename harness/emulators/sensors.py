"""The emulated bet sensors: one wagering device per betting position (629a Royal 9 (a)(1)).

A sensor recognises the chips in a betting area; whether a wager is *accepted* is the progressive
controller's decision (it owns the lock-out, the no-more-bets state and the link), asked over the
controller↔sensors link (``Controller.wager_refusal``).  The layout (the wagers recognised now)
lives here; the controller reads it when it closes wagering and when it settles the round.

Commands: ``wager.place {"seat", "type", "amount"}`` -> ``{"accepted", "reason"}`` (a refused
wager is a normal answer with ``accepted: false``, not a NAK); ``wager.remove {"seat", "type"}``;
``wager.list``.  A seat holds at most one wager of each type: placing again replaces the amount.
A seat outside the protocol's 1..9 is a malformed argument (NAK BAD_ARGS); a seat in 1..9 the table
does not have is refused with reason ``bad-seat`` (docs/protocol.md, section 6.3: both are refusals).

A Royal 9 wager is offered only to a player who placed a Midibaccarat wager (629a Royal 9 (b),
629a.7(b)): at a seat with no Player, Banker or Tie wager it is refused with reason
``no-base-wager`` (interpretation ``r9-requires-base-wager``, default true; a profile may set it
false).  The controller's refusals (lock-out, link, seat, amount) are answered first.

The Mini-Baccarat three-consecutive-games wager (``streak3-player``, ``streak3-banker``; Wash.
Admin. Code 230-15-040(8)(b)) is placed like any wager before the deal of its first game.  While
the controller has it *riding* (it took part in a game and is not decided yet, :attr:`riding`) its
chips stay on the layout: ``round.open`` and the settlement leave it, ``wager.list`` shows it with
``games`` (the games it has taken part in), and placing again at that seat and type is refused
with reason ``riding``, as is ``wager.remove`` (NAK REFUSED, reason ``riding``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from harness.devices.vocabulary import SEAT_MAX, SEAT_MIN
from harness.devices.vocabulary import WAGER_TYPES as _WAGER_TYPES
from harness.emulators.base import Answer, BadArgs, Emit, EmulatedDevice, Refusal, arg
from harness.emulators.config import EmulatorConfig
from harness.money import Cents

WAGER_TYPES = tuple(_WAGER_TYPES)

#: the wagers that ride over up to three games (Wash. Admin. Code 230-15-040(8)(b))
STREAK_TYPES = ("streak3-player", "streak3-banker")
RIDING = "riding"

#: the Midibaccarat wagers of 629a.7(b) that open the Royal 9 option (629a Royal 9 (b))
BASE_TYPES = ("player", "banker", "tie")
REQUIRES_BASE = "r9-requires-base-wager"

#: (seat, type, amount) -> a refusal reason or None; the controller's decision
Gate = Callable[[int, str, Cents], "str | None"]


class Sensors(EmulatedDevice):
    role = "sensors"

    def __init__(self, cfg: EmulatorConfig, emit: Emit, lock: threading.RLock, gate: Gate,
                 may_remove: Callable[[], str | None]) -> None:
        super().__init__(cfg, emit, lock)
        self.gate = gate
        self.may_remove = may_remove
        self.wagers: dict[tuple[int, str], Cents] = {}
        #: streak wagers riding on the layout -> the winners of the games they took part in (the
        #: controller's settlement keeps it; its non-volatile storage restores it on power-up)
        self.riding: dict[tuple[int, str], list[str]] = {}
        self.commands.update({
            "wager.place": self._place,
            "wager.remove": self._remove,
            "wager.list": self._list,
        })

    def _seat_type(self, req: Mapping[str, Any]) -> tuple[int, str]:
        seat = arg(req, "seat", int)
        if not SEAT_MIN <= seat <= SEAT_MAX:
            raise BadArgs(f"seat {seat}: seats are numbered {SEAT_MIN} to {SEAT_MAX}")
        kind = arg(req, "type", str)
        if kind not in WAGER_TYPES:
            raise BadArgs(f"wager type {kind!r}: expected one of {', '.join(WAGER_TYPES)}")
        return seat, kind

    def _place(self, req: Mapping[str, Any]) -> Answer:
        seat = req.get("seat")
        if "other-refusal-reasons" in self.cfg.personas and isinstance(seat, int) and not isinstance(seat, bool) \
                and not SEAT_MIN <= seat <= SEAT_MAX:  # REFUSED is a refusal as BAD_ARGS is (section 6.3)
            return Refusal("REFUSED", f"seat {seat}: this table has no such seat")
        seat, kind = self._seat_type(req)
        reason = self.detect(seat, kind, arg(req, "amount", int))
        return {"accepted": reason is None, "reason": reason}

    def detect(self, seat: int, kind: str, amount: Cents) -> str | None:
        """Chips in a betting area: the controller accepts the wager (None) or gives its reason."""
        if "other-refusal-reasons" in self.cfg.personas and kind == "royal9" and self._requires_base() \
                and not any((seat, base) in self.wagers for base in BASE_TYPES):
            return "no-base-wager"  # a true cause, given before the controller's own (section 6.3)
        reason = self.gate(seat, kind, amount)
        if reason is None and (seat, kind) in self.riding:
            reason = RIDING  # the chips of a riding wager are on that area: it cannot be placed again
        if reason is None and kind == "royal9" and self._requires_base() \
                and not any((seat, base) in self.wagers for base in BASE_TYPES):
            reason = "no-base-wager"
        if reason is None:
            self.wagers[(seat, kind)] = amount
        return reason

    def chips_placed(self, seat: int, kind: str, amount: Cents) -> None:
        """Chips put on a betting area by hand: the sensor reports what it detected as a ``wager``
        event (docs/protocol.md, section 11), accepted or with the controller's reason."""
        reason = self.detect(seat, kind, amount)
        self.emit("wager", seat=seat, type=kind, amount=amount, accepted=reason is None, reason=reason)

    def chips_lifted(self, seat: int, kind: str) -> None:
        """Chips taken off a betting area by hand: ``wager_removed`` says whether the wager is gone."""
        reason = self.removal(seat, kind)
        self.emit("wager_removed", seat=seat, type=kind, removed=reason is None, reason=reason)

    def removal(self, seat: int, kind: str) -> str | None:
        if (seat, kind) not in self.wagers:
            return f"no {kind} wager at seat {seat}"
        if (seat, kind) in self.riding and "streak3-removable-while-riding" not in self.cfg.defects:
            return RIDING
        reason = self.may_remove()
        if reason is None and self._base_under_royal9(seat, kind):
            reason = f"a Royal 9 wager stands on the {kind} wager at seat {seat} (629a Royal 9 (b))"
        if reason is None:
            del self.wagers[(seat, kind)]
            self.riding.pop((seat, kind), None)
        return reason

    def _base_under_royal9(self, seat: int, kind: str) -> bool:
        """The last base wager at a seat whose Royal 9 wager stands: withdrawing it would leave the
        Royal 9 wager with no Midibaccarat wager (629a Royal 9 (b), r9-requires-base-wager)."""
        if kind not in BASE_TYPES or (seat, "royal9") not in self.wagers or not self._requires_base():
            return False
        if "base-withdrawn-under-royal9" in self.cfg.defects:
            return False
        return not any((seat, base) in self.wagers for base in BASE_TYPES if base != kind)

    def _requires_base(self) -> bool:
        return bool(self.cfg.interpretations.get(REQUIRES_BASE, True))

    def _remove(self, req: Mapping[str, Any]) -> Answer:
        seat, kind = self._seat_type(req)
        reason = self.removal(seat, kind)
        return Refusal("REFUSED", reason) if reason is not None else {"removed": True}

    def _list(self, req: Mapping[str, Any]) -> Answer:
        return {"wagers": self.listing()}

    def listing(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for (s, t), a in sorted(self.wagers.items()):
            entry: dict[str, Any] = {"seat": s, "type": t, "amount": a}
            if t in STREAK_TYPES:
                entry["games"] = len(self.riding.get((s, t), ()))
            out.append(entry)
        return out

    def clear(self) -> None:
        """The round is over: its wagers leave the layout, except the streak wagers still riding."""
        self.wagers = {k: a for k, a in self.wagers.items() if k in self.riding}

    def restore(self, riding: list[tuple[int, str, Cents, list[str]]]) -> None:
        """Power-up: the riding wagers the controller's non-volatile storage kept."""
        for seat, kind, amount, games in riding:
            self.wagers[(seat, kind)] = amount
            self.riding[(seat, kind)] = list(games)

    def power_off(self) -> None:
        super().power_off()
        self.wagers.clear()
        self.riding.clear()
