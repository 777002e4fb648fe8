"""The typed result of loading a suite file (see ``docs/writing-suites.md``).

A suite is a list of cases; a case checks one or more catalogue clauses through a list of steps.
Steps are kept close to what the author wrote: an action name, its validated arguments (money in
cents, rates as ``Decimal``, cards as :class:`~harness.cards.Card`) and the file position, so a
failing case can show the YAML step with its line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


def _frozen() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Step:
    """One YAML step: ``action`` with its validated ``args``."""

    action: str
    args: Mapping[str, Any]
    path: str
    line: int
    col: int
    #: the step's source lines, for failure output and the record
    source: str
    #: the clause this step's expectation checks (None: the case's clauses)
    clause: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"

    @property
    def is_expectation(self) -> bool:
        return self.action.startswith("expect_")


@dataclass(frozen=True)
class Case:
    """One certification case; ``variant`` holds the parameter values of this instance."""

    suite: str
    id: str
    title: str
    clauses: tuple[str, ...]
    requires: frozenset[str]
    games: frozenset[str]
    steps: tuple[Step, ...]
    path: str
    line: int
    variant: Mapping[str, Any] = field(default_factory=_frozen)
    #: filter on the profile's Rules Submission, e.g. {"denomination": 5}
    when: Mapping[str, Any] = field(default_factory=_frozen)
    #: a case's own deadline for the whole case, seconds
    timeout_s: int = 60
    #: the ``given:`` names bound to the profile's Rules Submission (name -> value as text)
    given: Mapping[str, str] = field(default_factory=_frozen)
    #: why the profile cannot fill a role the case names: the case does not apply to it
    not_for_table: str | None = None
    #: why a role could not be bound although the table could fill it: the case is an ERROR
    bind_error: str | None = None
    #: the column of the case in its file (with ``line``: where ``- id:`` is written)
    col: int = 1

    @property
    def name(self) -> str:
        """The pytest item name: the id, plus the variant values (``royal9-line[5]``)."""
        if not self.variant:
            return self.id
        return f"{self.id}[{'-'.join(str(v) for v in self.variant.values())}]"


@dataclass(frozen=True)
class Suite:
    spec: str
    id: str
    title: str
    jurisdiction: str | None
    cases: tuple[Case, ...]
    path: str
