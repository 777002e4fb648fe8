"""What a drawn Rules Submission draws from: the personal combinations, the rates of progression and
the Royal 9 floors (:mod:`harness.selfcheck.variants` for single tables,
:mod:`harness.selfcheck.link_variants` for links).
"""

from __future__ import annotations

from harness.progressive.floors import FLOORS

__all__ = ["COMBOS", "FLOORS", "RATES", "SUITS"]

SUITS = ("S", "H", "D", "C")
#: every personal combination a seat may have (Royal 9 (e)(5): a king and a nine)
COMBOS = tuple((f"K{k}", f"9{n}") for k in SUITS for n in SUITS)
#: rates of progression a variant draws from (percent), 0.1% to 5%
RATES = ("0.1", "0.15", "0.2", "0.25", "0.3", "0.35", "0.4", "0.5", "0.6", "0.75", "0.8", "1", "1.1",
         "1.25", "1.5", "1.75", "2", "2.5", "3", "3.5", "4", "4.5", "5")
# the Royal 9 (f)(2), (g)(2) floors a variant's meters start from: FLOORS, from their one home

