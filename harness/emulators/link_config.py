"""What the emulated link controller is configured with: the common meters and the linked tables.

Built by :func:`harness.link.rig.controller_mapping` from a link profile (the common meters'
amounts; per table its wager, decks and the rate it files for each common meter it is on), written
as JSON for the process (``python -m harness.emulators.link_server``) and read back here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness.emulators.defects import check_defects
from harness.errors import InputError
from harness.money import Cents, parse_amount, parse_rate
from harness.progressive.meter import MeterConfig

SIMULTANEOUS = ("each-paid-meter", "shared")


@dataclass(frozen=True)
class LinkTableConfig:
    """One linked table as the controller knows it: its denomination, decks and, per common meter
    it is on, the rate of progression it files."""

    name: str
    denomination: Cents
    decks: int
    rates: Mapping[str, Decimal]


@dataclass(frozen=True)
class LinkConfig:
    """The link controller's configuration (built from the link profile by harness.link.rig)."""

    name: str
    meters: Mapping[str, MeterConfig]
    tables: tuple[LinkTableConfig, ...]
    interpretations: Mapping[str, object] = field(default_factory=dict)
    defects: frozenset[str] = frozenset()
    identity: Mapping[str, str] = field(default_factory=dict)
    nv_dir: Path | None = None

    @property
    def simultaneous(self) -> str:
        value = str(self.interpretations.get("link-simultaneous-hits", SIMULTANEOUS[0]))
        return value if value in SIMULTANEOUS else SIMULTANEOUS[0]

    def table(self, name: str) -> LinkTableConfig | None:
        return next((t for t in self.tables if t.name == name), None)

    def to_mapping(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "meters": {n: {k: v for k, v in m.to_dict().items() if k != "name"} for n, m in self.meters.items()},
            "tables": [{"name": t.name, "denomination": t.denomination, "decks": t.decks,
                        "rates": {m: str(r) for m, r in t.rates.items()}} for t in self.tables],
            "interpretations": dict(self.interpretations), "defects": sorted(self.defects),
            "identity": dict(self.identity), "nv_dir": str(self.nv_dir) if self.nv_dir else None,
        }

    @classmethod
    def from_mapping(cls, d: Mapping[str, Any]) -> LinkConfig:
        try:
            meters = {}
            for name, m in (d.get("meters") or {}).items():
                meters[str(name)] = MeterConfig(
                    str(name), parse_rate(str(m.get("rate", "1"))), _cents(m["initial"]),
                    _cents(m.get("reset", m["initial"])),
                    None if m.get("payout_limit") is None else _cents(m["payout_limit"]),
                    None if m.get("display_capacity") is None else _cents(m["display_capacity"]))
            tables = tuple(LinkTableConfig(str(t["name"]), _cents(t["denomination"]), int(t["decks"]),
                                           {str(k): parse_rate(str(v)) for k, v in t["rates"].items()})
                           for t in d.get("tables") or ())
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"link configuration: {exc!r}") from None
        defects = frozenset(str(x) for x in d.get("defects") or ())
        check_defects(defects)
        return cls(str(d.get("name", "link")), meters, tables, dict(d.get("interpretations") or {}), defects,
                   {str(k): str(v) for k, v in (d.get("identity") or {}).items()},
                   Path(str(d["nv_dir"])) if d.get("nv_dir") else None)


def _cents(value: Any) -> Cents:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return parse_amount(value)
