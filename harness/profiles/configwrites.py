"""``config_writes:``: which configuration fields the device lets an operator write, and when.

What a lab knows before a run is what the device's manual says about its configuration: a
controller may fix its denomination for good, refuse to move a personal combination while the
meters show amounts (the safest reading of 461a.12(i)), or take any write between rounds.  No
clause of 629a Royal 9 or 461a.12 requires a controller to accept a write, so a refusal of a
write the profile does not declare writable is never a FAIL: the case that needed it is NOT
APPLICABLE, with the reason (harness.suites.steps.permitted).

The capability ``config-write`` keeps its meaning: every field writable between rounds.  A profile
with ``config_writes:`` gets the capability when it declares any field writable, so the cases that
require it run and each write is judged field by field.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from harness.schema import Fields, check_enum, guard, report

#: the fields of ``config.set`` (docs/protocol.md, section 8), as a profile names them
FIELDS = ("denomination", "combinations", "decks", "meters", "mystery", "commission", "hit_soft17")
#: when a field may be written: never; whenever no round is open; only while no progressive meter
#: shows an amount (461a.12(i) constrains changes "once an amount appears on a progressive meter")
WHEN = ("never", "between-rounds", "no-amount-shown")
#: how each reads in a reason
WHEN_TEXT = {"never": "refuses every write of it", "between-rounds": "takes it between rounds",
             "no-amount-shown": "refuses it while a progressive meter shows an amount"}
#: the ``config.set`` key each field is written as
WIRE_KEY = {"combinations": "seats"}

ALL_BETWEEN_ROUNDS: Mapping[str, str] = MappingProxyType(dict.fromkeys(FIELDS, "between-rounds"))
NONE_WRITABLE: Mapping[str, str] = MappingProxyType(dict.fromkeys(FIELDS, "never"))


def field_of_wire(key: str) -> str:
    """The profile's name of a ``config.set`` key (``seats`` -> ``combinations``)."""
    return next((f for f, w in WIRE_KEY.items() if w == key), key)


def parse_config_writes(f: Fields, caps: frozenset[str]) -> tuple[Mapping[str, str], frozenset[str], frozenset[str]]:
    """The declaration (every field, ``never`` where left out), the capabilities it implies, and the
    fields it leaves unstated.

    Without ``config_writes:``, capability ``config-write`` means every field between rounds and its
    absence none; with it, ``config-write`` must not also be listed (it would say "every field")
    and is added when any field is declared writable.

    A field the profile does not name (no ``config_writes:`` and no ``config-write``, or a field
    left out of ``config_writes:``) is ``never`` to the suites, whose cases that write it are then
    NOT APPLICABLE; it is also returned as *unstated*, so that the explorer takes a write of it, or
    its refusal, as the device's choice and records which (no clause requires either)."""
    if "config_writes" not in f:
        if "config-write" in caps:
            return ALL_BETWEEN_ROUNDS, caps, frozenset()
        return NONE_WRITABLE, caps, frozenset(FIELDS)
    node = f.get_map("config_writes", optional=FIELDS)  # an unknown field is reported with a did-you-mean
    out = dict(NONE_WRITABLE)
    for key in (k for k in node if k in FIELDS):
        with guard():
            out[key] = check_enum(node.raw(key), node.loc(key), f"config_writes.{key}", WHEN)
    if "config-write" in caps:
        report(f.key_loc("config_writes").error(
            "config_writes: capability config-write already says every field can be written between rounds; "
            "list one or the other (config_writes says it field by field)"))
    writable = any(w != "never" for w in out.values())
    unstated = frozenset(k for k in FIELDS if k not in node)
    return MappingProxyType(out), (caps | {"config-write"}) if writable else caps - {"config-write"}, unstated
