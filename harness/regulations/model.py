"""The regulation catalogue's types: a clause, where it applies, an interpretation, the mystery
table's rows and the :class:`Catalogue` with its typed access (paytables, floors, the mystery
configurations).  :mod:`harness.regulations.catalogue` loads the packaged ``catalogue.yaml`` into
them, through the validation of :mod:`harness.regulations.loader`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Any, TypeVar

from harness.errors import InputError
from harness.games.payouts import Pay, parse_pay
from harness.money import Cents, parse_amount, parse_rate

SPEC = "tablecert/catalogue/1"
RESOURCE = "catalogue.yaml"
ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: Royal 9 categories in the agreed order (highest first)
R9_CATEGORIES = (
    "mega", "major", "minor", "mega-envy", "suited-royal9-tie", "royal9-tie", "suited-royal9", "royal9",
)
#: Hit and Run categories in the agreed order (highest first), 633a.13(l)(1)
HR_CATEGORIES = ("8-plus-cards", "7-cards", "6-cards", "5-cards", "blackjack")
R9_DENOMINATIONS = (5, 1)
R9_METERS = ("mega", "major", "minor")
#: the games a profile may name (harness.profiles.load.GAMES); the catalogue's scope is checked against them
TABLE_GAMES = ("baccarat", "minibaccarat", "midibaccarat", "ez-baccarat", "blackjack-hit-and-run")


@dataclass(frozen=True)
class Clause:
    """One requirement of a regulation text."""

    id: str
    citation: str
    source: str
    text: str
    area: str
    testable: bool
    out_of_scope: str | None = None
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    interpretations: tuple[str, ...] = ()

    @property
    def out_of_scope_reason(self) -> str | None:
        """Alias of :attr:`out_of_scope` (the name other layers use)."""
        return self.out_of_scope


@dataclass(frozen=True)
class Applies:
    """Where a clause applies: a jurisdiction, and the games, capabilities and denomination it is
    limited to (empty / None: any).  From the catalogue's ``scope:`` section."""

    #: "" for a source that binds in every jurisdiction (the device contract)
    jurisdiction: str
    games: frozenset[str] = frozenset()
    capabilities: frozenset[str] = frozenset()
    denomination: int | None = None

    def in_scope(self, jurisdictions: frozenset[str], game: str) -> bool:
        """Whether the clause belongs in the report of a table of ``game`` under ``jurisdictions``."""
        return ((not self.jurisdiction or self.jurisdiction in jurisdictions)
                and (not self.games or game in self.games))

    def not_applicable(self, capabilities: frozenset[str], denomination: int | None) -> str | None:
        """Why the clause does not apply at a table with these capabilities and denomination, or None."""
        missing = sorted(self.capabilities - capabilities)
        if missing:
            return f"the profile does not offer {', '.join(missing)}"
        if self.denomination is not None and denomination != self.denomination:
            offered = f"${denomination}" if denomination is not None else "no Royal 9 denomination"
            return f"the clause is for the ${self.denomination} wager; the profile offers {offered}"
        return None


@dataclass(frozen=True)
class Interpretation:
    """A question the text leaves open, with the harness's default and why."""

    id: str
    question: str
    default: Any
    choices: tuple[Any, ...]
    reason: str
    clauses: tuple[str, ...]
    #: the regulation text that raises the question
    quote: str = ""
    #: how a device profile overrides it (one line)
    override: str = ""


@dataclass(frozen=True)
class MysteryTableRow:
    """One row of the mystery progressive table, Royal 9 (h)."""

    reseed_cents: Cents
    must_hit_by_cents: Cents
    #: incrementation rate, percent of each qualifying wager
    rate: Decimal


T = TypeVar("T")


def did_you_mean(word: str, known: list[str]) -> str:
    """`` (did you mean 'a', 'b'?)`` with up to three of ``known`` close to ``word``; "" when none is."""
    close = difflib.get_close_matches(word, known, n=3, cutoff=0.6)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


def _lookup(table: Mapping[str, T], key: str, what: str) -> T:
    """``table[key]``, or ``InputError`` naming the unknown ``what`` with the near misses."""
    try:
        return table[key]
    except KeyError:
        raise InputError(f"unknown {what} {key!r}{did_you_mean(key, list(table))}") from None


class Catalogue:
    """Validated clauses and interpretations, in file order."""

    def __init__(self, clauses: tuple[Clause, ...], interpretations: tuple[Interpretation, ...],
                 applies: Mapping[str, Applies] | None = None,
                 sources: Mapping[str, str] | None = None) -> None:
        self.clauses = clauses
        self._by_id = {c.id: c for c in clauses}
        self._interps = interpretations
        self._interp_by_id = {i.id: i for i in interpretations}
        self._applies = dict(applies or {})
        #: source file -> its title (the standard a report cites)
        self.sources = dict(sources or {})

    def applies(self, clause_id: str) -> Applies:
        """Where a clause applies (see the catalogue's ``scope:``); unknown scope: any game, no jurisdiction."""
        return self._applies.get(clause_id, Applies(jurisdiction=""))

    def jurisdictions(self) -> tuple[str, ...]:
        """The jurisdictions the catalogue's clauses belong to (its ``scope:``), in file order."""
        return tuple(dict.fromkeys(a.jurisdiction for a in self._applies.values() if a.jurisdiction))

    def __len__(self) -> int:
        return len(self.clauses)

    def has(self, clause_id: str) -> bool:
        return clause_id in self._by_id

    def clause(self, clause_id: str) -> Clause:
        return _lookup(self._by_id, clause_id, "clause id")

    def testable(self) -> tuple[Clause, ...]:
        return tuple(c for c in self.clauses if c.testable)

    def out_of_scope(self) -> tuple[Clause, ...]:
        return tuple(c for c in self.clauses if not c.testable)

    def interpretations(self) -> list[Interpretation]:
        return list(self._interps)

    def interpretation(self, interp_id: str) -> Interpretation:
        return _lookup(self._interp_by_id, interp_id, "interpretation id")

    def defaults(self) -> dict[str, Any]:
        """Interpretation id -> default, as a profile's ``interpretations:`` map would hold it."""
        return {i.id: i.default for i in self._interps}

    # --- parameter access ----------------------------------------------------------------------

    def paytable(self, denomination: int) -> dict[str, Pay]:
        """Royal 9 paytable for the $5 (f)(1) or $1 (g)(1) wager, highest category first."""
        clause = self.clause(f"pa-midi-r9-paytable-{_denomination(denomination)}")
        table = clause.params["paytable"]
        return {cat: parse_pay(table[cat]) for cat in R9_CATEGORIES}

    def floors(self, denomination: int) -> dict[str, Cents]:
        """Minimum initial and reset amounts per meter, (f)(2) / (g)(2), in cents."""
        clause = self.clause(f"pa-midi-r9-floors-{_denomination(denomination)}")
        floors = clause.params["floors"]
        return {meter: parse_amount(floors[meter]) for meter in R9_METERS}

    def mystery_configurations(self) -> dict[int, MysteryTableRow]:
        """Mystery progressive configurations 1-3 of Royal 9 (h)."""
        configs = self.clause("pa-midi-r9-mystery").params["configurations"]
        return {
            int(n): MysteryTableRow(
                reseed_cents=parse_amount(row["reseed"]),
                must_hit_by_cents=parse_amount(row["must_hit_by"]),
                rate=parse_rate(row["rate"]),
            )
            for n, row in configs.items()
        }

    def hit_and_run_paytable(self) -> dict[str, Pay]:
        """Blackjack Hit and Run paytable as amended, 633a.13(l)(1), highest category first."""
        table = self.clause("pa-633a13-l1-paytable").params["paytable"]
        return {cat: parse_pay(table[cat]) for cat in HR_CATEGORIES}


def _denomination(denomination: int) -> int:
    if isinstance(denomination, bool) or denomination not in R9_DENOMINATIONS:
        raise InputError(f"Royal 9 denomination {denomination!r}: the regulation has $5 and $1 paytables")
    return denomination
