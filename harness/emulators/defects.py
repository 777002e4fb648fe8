"""Named defects: each one a single, deliberate deviation of an emulated device from a requirement.

A defect is switched on by name (``tablecert emulate --defect NAME`` or the profile's
``emulator.defect``) and read by the state machine at exactly one place with
``cfg.defective("name")``-style checks (``name in cfg.defects``).  The harness must catch every
one of them: a suite that passes a defective device is a suite that proves nothing.

To add a defect: add its entry here (name, the clause it breaks, one line of what goes wrong),
then add the one ``if "name" in self.cfg.defects`` branch in the state machine it bends.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from harness.errors import InputError


@dataclass(frozen=True)
class Defect:
    name: str
    #: the regulation text it breaks (a citation; the catalogue maps it to clause ids)
    clause: str
    description: str


_LOCK = "629a Royal 9 (a)(2)"
_RATE = "629a Royal 9 (f)(2); 461a.12(c)"
_NV = "461a.12; REFERENCE.md power cycle"

DEFECTS: dict[str, Defect] = {
    d.name: d
    for d in (
        Defect("lockout-late", _LOCK, "locks out 5 ms later than configured after the first card"),
        Defect("lockout-missing", _LOCK, "never locks out wagers when cards are dealt"),
        Defect("lockout-early", _LOCK, "refuses wagers as soon as the round opens"),
        Defect("rate-off", _RATE, "rate of progression 0.01 point above the configured one"),
        Defect("residual-dropped", _RATE, "drops the fraction of a cent of every contribution"),
        Defect("reset-zero", "629a Royal 9 (f)(2)", "resets a hit meter to zero instead of its reset amount"),
        Defect("power-loses-meters", _NV, "meters restart from their initial amounts on power-up"),
        Defect("mystery-redrawn", _NV, "draws a new mystery trigger on every power-up"),
        Defect("config-while-live", "461a.12 parameters", "accepts a parameter change while a round is live"),
        Defect("wager-after-comm-loss", _LOCK, "accepts wagers while the sensors link is down"),
        Defect("wager-after-no-more-bets", "627a.7(c)", "accepts wagers after no more bets"),
    )
}


def check_defects(names: Iterable[str]) -> None:
    """Refuse an unknown defect name (a typo must not silently run a clean device)."""
    for name in names:
        if name not in DEFECTS:
            raise InputError(f"defect {name!r}: unknown (known: {', '.join(sorted(DEFECTS))})")
