"""The emulated table's physical side: what hands (or a relay) do at the table.

A real shoe cannot be told which cards to deal and a real bet sensor cannot be told that chips
lie on it: a technician stacks the shoe and deals, puts chips on the layout, presses the lock-out
button, turns the reset key, pulls a cable.  The emulator offers the same acts here, apart from
the devices' own lines, so a scripted operator (harness.bench.scripted) can carry out each prompt
the way a person would, and the harness sees the results only as a real bench shows them: card
events from the shoe, ``wager`` events from the sensors, the controller's events.

One JSON object per line over a 127.0.0.1 socket (the ``physical`` address), one answer line each
(docs/protocol.md, section 11)::

    {"act": "shoe.insert", "cards": ["KS", "9H"]}    -> {"ok": true, "in_shoe": 2}
    {"act": "shoe.shuffle"}                          -> {"ok": true, "in_shoe": 416}  (the shuffle button)
    {"act": "shoe.draw"}                             -> {"ok": true, "card": "KS"}
    {"act": "chips.place", "seat": 3, "type": "royal9", "amount": 500}
    {"act": "chips.remove", "seat": 3, "type": "royal9"}
    {"act": "button", "name": "lockout" | "open-round" | "no-more-bets"}
    {"act": "key", "meter": "mega"}
    {"act": "cable", "connected": false}
    {"act": "power", "on": false}
    {"act": "look"}                                  -> what a person sees: cards in the shoe, power

An act the table cannot do answers ``{"ok": false, "error": ...}``; a button or key the controller
does not act on answers ``{"ok": true, "display": <the controller's message>}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from harness.cards import parse_cards
from harness.emulators import settle
from harness.emulators.base import Refusal
from harness.emulators.controller import Controller
from harness.emulators.scpi import PoweredTable
from harness.emulators.sensors import SEAT_MAX, SEAT_MIN, WAGER_TYPES, Sensors
from harness.emulators.shoe import EmulatedShoe
from harness.errors import InputError


class PhysicalTable(PoweredTable, Protocol):
    """What the physical side uses of the emulated table (a :class:`harness.emulators.table.EmulatedTable`)."""

    @property
    def shoe(self) -> EmulatedShoe: ...
    @property
    def sensors(self) -> Sensors: ...
    @property
    def controller(self) -> Controller: ...


BUTTONS = ("lockout", "open-round", "no-more-bets")


class PhysicalSide:
    """Acts at the emulated table (see the module docstring); ``handle_line`` serves the socket."""

    def __init__(self, table: PhysicalTable) -> None:
        self.table = table

    def handle_line(self, line: str) -> str:
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise ValueError("not a JSON object")
            answer = self.handle(req)
        except (ValueError, TypeError, KeyError) as exc:
            answer = {"ok": False, "error": f"bad request: {exc}"}
        return json.dumps(answer, separators=(",", ":"))

    def handle(self, req: Mapping[str, Any]) -> dict[str, Any]:
        act = req.get("act")
        table = self.table
        with table.lock:
            if act == "power":
                table.set_power(bool(req["on"]))
                return {"ok": True}
            if act == "look":
                return {"ok": True, "in_shoe": len(table.shoe.cards), "power": table.powered}
            if not table.powered:
                return {"ok": True, "display": "the table is dark (no power)"}
            try:
                return {"ok": True, **self._act(str(act), req)}
            except (ValueError, InputError) as exc:
                return {"ok": False, "error": str(exc)}

    def _act(self, act: str, req: Mapping[str, Any]) -> dict[str, Any]:
        table = self.table
        if act == "shoe.insert":
            return {"in_shoe": table.shoe.insert(parse_cards([str(c) for c in req["cards"]]))}
        if act == "shoe.shuffle":
            return {"in_shoe": table.shoe.shuffle_loaded()}
        if act == "shoe.draw":
            return {"card": table.shoe.draw().code}
        if act in ("chips.place", "chips.remove"):
            seat, kind = int(req["seat"]), str(req["type"])
            if not SEAT_MIN <= seat <= SEAT_MAX:
                raise ValueError(f"the layout has no seat {seat}")
            if kind not in WAGER_TYPES:
                raise ValueError(f"the layout has no {kind!r} area")
            if act == "chips.place":
                table.sensors.chips_placed(seat, kind, int(req["amount"]))
            else:
                table.sensors.chips_lifted(seat, kind)
            return {}
        if act == "button":
            return self.button(str(req["name"]))
        if act == "key":
            return self.key(str(req["meter"]))
        if act == "cable":
            table.controller.cable(bool(req["connected"]))
            return {}
        raise ValueError(f"unknown act {act!r}")

    def button(self, name: str) -> dict[str, Any]:
        ctrl = self.table.controller
        if name not in BUTTONS:
            raise ValueError(f"no {name!r} button (buttons: {', '.join(BUTTONS)})")
        if name == "lockout":
            result = ctrl.handle({"cmd": "lockout.press"}, remote=False)
        elif name == "open-round":
            result = ctrl.handle({"cmd": "round.open"}, remote=False)
        else:
            result = ctrl.handle({"cmd": "round.no_more_bets"}, remote=False)
        return {"display": result.reason} if isinstance(result, Refusal) else {}

    def key(self, meter: str) -> dict[str, Any]:
        result = settle.reset_key(self.table.controller, {"meter": meter})
        return {"display": result.reason} if isinstance(result, Refusal) else {}
