"""Hit and Run stacks: the dealer's hand alone decides the wager (633a.13(l)(1) as amended).

A depth-first walk over dealer value sequences (ace 1 ... ten-value 10) under the house's soft-17
rule, in a seeded order; the count of each value is held to what the shoe has (4 a deck, 16 for
the ten-value cards).  A final hand that meets the want gets actual cards and is judged by
:func:`harness.stackbuilder.wants.verify` (:func:`harness.games.blackjack.dealer_hand`).  A walk
that ends without a cut is a proof that no hand gives the want.
"""

from __future__ import annotations

import random
from collections import Counter

from harness.cards import Card
from harness.games.blackjack import dealer_hits
from harness.stackbuilder.common import Budget, by_value, pick_cards
from harness.stackbuilder.wants import Setup, Want, check_hit_and_run_atom, verify

#: blackjack value by rank (index 0 unused): ace 1, ten and faces 10
_BJ_VALUE: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)


def search_hit_and_run(want: Want, setup: Setup, rng: random.Random, budget: Budget) -> tuple[Card, ...] | str | None:
    for atom in want.atoms:
        if atom.kind == "dealer-cards" and not atom.plus and (atom.n or 0) < 2:
            return "the dealer's hand starts with two cards"
        if atom.kind == "dealer-bust-cards" and (atom.n or 0) < 3:
            return "a two-card hand cannot bust (at most 21)"
    exact = {int(a.n or 0) for a in want.atoms if a.kind in ("dealer-cards", "dealer-bust-cards") and not a.plus}
    if want.has("dealer-blackjack"):
        exact.add(2)
    if len(exact) > 1:
        return f"the dealer's hand cannot have {' and '.join(str(n) for n in sorted(exact))} cards at once"
    limit = next(iter(exact)) if exact else None
    decks = setup.decks
    cap = {v: decks * (16 if v == 10 else 4) for v in range(1, 11)}
    cards_of = by_value(rng, _BJ_VALUE)
    longest = 0
    seq: list[int] = []
    counts: Counter[int] = Counter()

    def final(hard: int, ace: bool) -> tuple[bool, bool, bool]:
        """(final?, bust, blackjack) for the hand in ``seq``."""
        soft = ace and hard <= 11
        total = hard + 10 if soft else hard
        if len(seq) == 2 and total == 21:
            return True, False, True
        if len(seq) >= 2 and not dealer_hits(total, soft, hit_soft17=setup.hit_soft17):
            return True, total > 21, False
        return False, False, False

    def dfs(hard: int, ace: bool) -> tuple[Card, ...] | None:
        nonlocal longest
        done, bust, bj = final(hard, ace)
        if done:
            longest = max(longest, len(seq))
            if all(check_hit_and_run_atom(a, len(seq), bust, bj) is None for a in want.atoms):
                cards = pick_cards(seq, Counter(), decks, cards_of)
                if cards is not None and not verify(want, cards, setup):
                    return tuple(cards)
            return None
        if limit is not None and len(seq) >= limit:
            return None
        for v in rng.sample(range(1, 11), 10):
            if counts[v] >= cap[v]:
                continue
            if not budget.spend():
                return None
            seq.append(v)
            counts[v] += 1
            found = dfs(hard + v, ace or v == 1)
            seq.pop()
            counts[v] -= 1
            if found is not None or budget.cut:
                return found
        return None

    found = dfs(0, False)
    if found is not None:
        return found
    if budget.cut:
        return None
    rule = "hits" if setup.hit_soft17 else "stands on"
    return (f"no dealer hand gives '{want.text}' (every hand checked, {decks}-deck shoe, dealer {rule} soft 17; "
            f"the longest has {longest} cards)")


