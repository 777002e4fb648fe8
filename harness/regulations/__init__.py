"""The regulation catalogue: every requirement of the texts tablecert certifies against, as data.

``catalogue.yaml`` (package data) holds the clauses, their parameters (paytables, reset floors,
the mystery table) and the named interpretations; :mod:`harness.regulations.catalogue` loads and
validates it.  See ``docs/catalogue.md`` and ``docs/interpretations.md``.
"""

from harness.regulations.catalogue import load_catalogue
from harness.regulations.model import Catalogue, Clause, Interpretation, MysteryTableRow

__all__ = ["Catalogue", "Clause", "Interpretation", "MysteryTableRow", "load_catalogue"]
