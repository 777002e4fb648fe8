"""Driver for a link progressive controller that speaks the reference protocol (docs/protocol.md,
section 14): registry name ``reference-link-controller``.

The host reaches the link controller on a line of its own (a serial port or ``socket://``), says
``hello`` (the role must be ``link-controller``) and reads the common meters, the linked tables and
the hit history; the reset key of a common meter is turned here.  The emulator-only test channel
cuts and restores a table's link (``test.cut``, ``test.restore``) and power-cycles the controller
(``test.fault`` ``reboot``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.devices.contract import fields_of
from harness.devices.drivers.reference import ReferenceDevice, decimal_field, int_field, parse_meters, reply_shape
from harness.devices.roles import LinkController, LinkedTable, LinkHit, MeterReading
from harness.errors import DeviceError
from harness.money import Cents


class ReferenceLinkController(ReferenceDevice, LinkController):
    """Registry name ``reference-link-controller``."""

    role = "link-controller"

    def config(self) -> dict[str, Any]:
        """``config.get`` as sent (common meters, tables, the simultaneous-hit policy)."""
        return fields_of(self.request("config.get"), "ok")

    def tables(self) -> tuple[LinkedTable, ...]:
        with reply_shape("config.get"):
            return tuple(_table(t) for t in self.config().get("tables") or ())

    def meters(self) -> MeterReading:
        return parse_meters(self.call("meters.get"))

    def hits(self, since: int = 0) -> list[LinkHit]:
        """Every hit after order ``since`` the controller keeps, page after page."""
        out: list[LinkHit] = []
        while True:
            page = self.request("hits.get", since=since)
            items = page.get("hits")
            if not isinstance(items, list):
                raise DeviceError("hits.get: 'hits' should be a list")
            with reply_shape("hits.get"):
                out += [_hit(h) for h in items]
            if not page.get("more") or not items:
                return out
            since = out[-1].order

    def links_up(self) -> dict[str, bool]:
        items = self.request("tables.get").get("tables")
        if not isinstance(items, list):
            raise DeviceError("tables.get: 'tables' should be a list")
        with reply_shape("tables.get"):
            return {str(t["table"]): bool(t["up"]) for t in items}

    def reset_key(self, meter: str) -> Cents:
        return int_field(self.request("reset_key", meter=meter), "amount", "reset_key")

    # -- emulator-only test channel -------------------------------------------------------------
    def cut(self, table: str, when: str = "now") -> None:
        """``test.cut``: the table's link goes down now, or right after its next contribution is
        processed (the answer is lost on the way)."""
        self.request("test.cut", table=table, when=when)

    def restore(self, table: str) -> None:
        self.request("test.restore", table=table)

    def reboot(self, duration_ms: int, after_ms: int = 0) -> None:
        """``test.fault`` ``reboot``: dark for ``duration_ms``, then back from non-volatile storage."""
        self.request("test.fault", kind="reboot", duration_ms=duration_ms, after_ms=after_ms)


def _table(t: Mapping[str, Any]) -> LinkedTable:
    rates = t.get("rates") or {}
    return LinkedTable(str(t["table"]), int_field(t, "denomination", "config.get tables"),
                       int_field(t, "decks", "config.get"),
                       {str(m): decimal_field(r, f"config.get tables.{t['table']}.rates.{m}")
                        for m, r in rates.items()})


def _hit(h: Mapping[str, Any]) -> LinkHit:
    award = h.get("award")
    return LinkHit(int_field(h, "order", "hit"), int_field(h, "instant", "hit"), str(h["table"]),
                   int_field(h, "n", "hit"), int_field(h, "seat", "hit"), str(h["meter"]),
                   int_field(h, "amount", "hit"),
                   None if award is None else int_field(h, "award", "hit"))
