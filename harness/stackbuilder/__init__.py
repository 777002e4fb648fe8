"""Shoe stack builder: a card sequence that produces a wanted result, or the proof there is none.

Issue "Shoe stack builder": ``tablecert stack --game ... --want "..."`` finds a sequence for each
paytable line (Royal 9, 629a Royal 9 (e)-(g); Hit and Run, 633a.13(l)(1)), Dragon 7, Panda 8, a
natural, a tableau cell, and prints it as suite-ready YAML and as a stacking sheet.  Every stack
is judged by the oracles (:func:`harness.stackbuilder.wants.verify`) before it is returned, and
no card is used more often than the shoe holds.

API::

    build_stack("baccarat", "royal9:banker+banker", seat_combos={...}) -> Stack | Impossible | NotFound

The want vocabulary is in :mod:`harness.stackbuilder.wants`, the search in
:mod:`harness.stackbuilder.search`, output formats in :mod:`harness.stackbuilder.render` and the
shipped ``fixtures/stacks/*.yaml`` in :mod:`harness.stackbuilder.fixtures`.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.cards import Combo
from harness.errors import InputError
from harness.games.interpretations import DEFAULT, Interpretations
from harness.stackbuilder.search import (
    DEFAULT_DEADLINE_S,
    DEFAULT_MAX_TRIES,
    Impossible,
    NotFound,
    Result,
    Stack,
    run_search,
    slug,
)
from harness.stackbuilder.wants import GAMES, VOCABULARY, Setup, Want, parse_want, verify

__all__ = [
    "GAMES",
    "VOCABULARY",
    "Impossible",
    "NotFound",
    "Result",
    "Setup",
    "Stack",
    "Want",
    "build_stack",
    "default_decks",
    "parse_want",
    "verify",
]


def default_decks(game: str) -> int:
    """8 decks for baccarat games, 6 for blackjack (the shipped profiles' shoes)."""
    return 6 if game == "hit-and-run" else 8


def build_stack(
    game: str,
    want: str | Want,
    *,
    decks: int | None = None,
    hit_soft17: bool = True,
    seat_combos: Mapping[int, Combo] | None = None,
    interpretations: Interpretations = DEFAULT,
    seed: int = 1,
    name: str | None = None,
    max_tries: int = DEFAULT_MAX_TRIES,
    deadline_s: float = DEFAULT_DEADLINE_S,
) -> Result:
    """Find a verified stack for ``want``; bad want text raises :class:`InputError`.

    Deterministic for a given ``seed``.  ``Impossible`` is returned only after an exhaustive
    search (or a rule stated by the regulation's tableau / the shoe's composition);
    ``NotFound`` when ``max_tries`` or ``deadline_s`` stopped the search first.
    """
    if game not in GAMES:
        raise InputError(f"game {game!r}: expected one of {', '.join(GAMES)}")
    w = want if isinstance(want, Want) else parse_want(want, game)
    n = default_decks(game) if decks is None else decks
    if isinstance(n, bool) or not 1 <= n <= 16:
        raise InputError(f"decks {n}: a shoe holds 1 to 16 decks")
    setup = Setup(game, n, hit_soft17, dict(seat_combos or {}), interpretations)
    if game != "hit-and-run":
        setup.table  # noqa: B018 - validates the seat combinations (unique, king-9, seats 1-9)
    return run_search(w, setup, seed=seed, name=name or slug(w.text), max_tries=max_tries, deadline_s=deadline_s)
