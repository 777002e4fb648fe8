"""The regulation catalogue: every requirement of the three texts as data.

Why data and not code: a verdict names the clause it rests on, coverage counts cases per clause,
and the paytables, reset floors and mystery table must be read by game code from *one* place
that can be checked line by line against the regulation text.  The data lives in
``catalogue.yaml`` next to this module (package data, so it ships in the wheel); this module loads
it with ``yaml.safe_load`` and validates it into the typed access of :mod:`harness.regulations.model`.

Each clause has a stable kebab-case id, a citation, a source key naming the published text it
comes from (``sources:`` maps each key to 58 Pa. Code ch. 629a, 42 Pa.B. 6761, WAC 230-15-040 or the
reference protocol), a short paraphrase, an ``area``, whether a device
harness can test it (and if not, a one-line reason), optional ``params`` and the named
interpretations that bear on it.  Amounts in the data are strings such as ``"$50,000"`` and are
parsed by :func:`harness.money.parse_amount` and :func:`harness.games.payouts.parse_pay`, never
read as YAML numbers.

Validation on load lives in :mod:`harness.regulations.loader`: a bad catalogue stops the load
with ``catalogue.yaml:line:col: message``.
"""

from __future__ import annotations

import functools
from importlib import resources

from harness.regulations.loader import parse_catalogue as _parse
from harness.regulations.model import RESOURCE, Catalogue


@functools.cache
def load_catalogue() -> Catalogue:
    """The packaged catalogue, validated once per process."""
    text = resources.files("harness.regulations").joinpath(RESOURCE).read_text(encoding="utf-8")
    return parse_catalogue(text, path=f"harness/regulations/{RESOURCE}")


def parse_catalogue(text: str, path: str = RESOURCE) -> Catalogue:
    """Parse and validate catalogue YAML (the packaged file, or a variant of it in a test)."""
    return _parse(text, path)
