"""Finding a card sequence for a want, or proving there is none.

Why this split works: in punto banco the outcome (winner, natural, tableau, Dragon 7, Panda 8)
depends only on card *values*, and only through the two two-card totals and the third-card
values; the Royal 9 lines (629a Royal 9 (b), (e)) depend only on the first four cards' ranks and
suits.  So the search is

1. constructive for the first four cards: the Royal 9 atoms become conditions on each hand's two
   cards (and on the pair of hands), and every ordered pair of cards is filtered by them (a hand
   with no Royal 9 atom must not be a Royal 9, so a stack built for a baccarat outcome pays no
   Royal 9 award by accident);
2. exhaustive over value classes for the rest: all 100 pairs of two-card totals with every
   third-card value, each judged by :func:`harness.games.baccarat.deal_round`;
3. a seeded, deterministic walk over the card choices that fit, every candidate judged by
   :func:`harness.stackbuilder.wants.verify` (the oracles) and by the shoe's composition.

When the walk ends without a candidate and nothing was cut short, the want cannot exist and the
reason says which part failed; when the try cap or the deadline stops it first the answer is
:class:`NotFound`, never a claim of impossibility.  Hit and Run (633a.13(l)(1)) is a
depth-first walk over dealer value sequences under the house's soft-17 rule, same judging.
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from harness.cards import Card
from harness.games.baccarat import BANKER_DRAWS, RANK_VALUE, deal_round
from harness.stackbuilder.common import (
    ALL_CARDS,
    DEFAULT_DEADLINE_S,
    DEFAULT_MAX_TRIES,
    Budget,
    Impossible,
    NotFound,
    Result,
    Stack,
    by_value,
    pick_cards,
    slug,
)
from harness.stackbuilder.hitrun import search_hit_and_run
from harness.stackbuilder.render import pretty
from harness.stackbuilder.wants import BAC_KINDS, R9_KINDS, Atom, Setup, Want, check_baccarat_atom, verify

__all__ = ["DEFAULT_DEADLINE_S", "DEFAULT_MAX_TRIES", "Impossible", "NotFound", "Result", "Stack", "run_search",
           "slug"]

Pair = tuple[Card, Card]
Pred = Callable[[Card, Card], bool]
Cross = Callable[[Pair, Pair], bool]

ALL_PAIRS: tuple[Pair, ...] = tuple((a, b) for a in ALL_CARDS for b in ALL_CARDS)
#: a card standing for its baccarat value when only values matter (0 is a ten)
_REP: tuple[Card, ...] = tuple(Card(v or 10, "S") for v in range(10))
#: tries spent looking for a stack with no repeated card once one with a repeat is in hand
_PATIENCE = 5_000


# --- baccarat ---------------------------------------------------------------------------------

@dataclass
class _HandRules:
    player: list[Pred] = field(default_factory=list)
    banker: list[Pred] = field(default_factory=list)
    cross: list[Cross] = field(default_factory=list)


def _hand_rules(want: Want, setup: Setup) -> _HandRules | str:
    """Royal 9 atoms as conditions on each hand's first two cards; a string is an impossibility."""
    key, owner = setup.key, setup.owner
    combos = setup.seat_combos
    rules = _HandRules()

    def not_r9(a: Card, b: Card) -> bool:
        return key(a, b) is None

    def suited(a: Card, b: Card) -> bool:
        k = key(a, b)
        return k is not None and k[0].suit == k[1].suit

    def royal(need_suited: bool | None) -> Pred:
        def pred(a: Card, b: Card) -> bool:
            k = key(a, b)
            if k is None or owner(k) is not None:
                return False
            return need_suited is None or (k[0].suit == k[1].suit) == need_suited
        return pred

    def owned_by(seat: int) -> Pred:
        return lambda a, b: owner(key(a, b)) == seat

    def hands(hand: str) -> tuple[list[Pred], list[Pred]]:
        return (rules.player, rules.banker) if hand == "player" else (rules.banker, rules.player)

    r9_atoms = [a for a in want.atoms if a.kind in R9_KINDS]
    for atom in r9_atoms:
        k = atom.kind
        for seat in (atom.banker_seat,) if k == "combos" else ():
            if seat not in combos:
                return f"seat {seat} has no personal combination"
        if k in ("major", "minor", "mega", "combos") and atom.seat not in combos:
            have = ", ".join(str(s) for s in sorted(combos)) or "none"
            return f"seat {atom.seat} has no personal combination (seats with one: {have})"
        if k in ("mega", "mega-envy") and setup.decks < 2 and setup.interpretations.r9_personal_combo_suited:
            seat = atom.seat if atom.seat is not None else min(combos, default=None)
            if seat is None:
                return "mega envy needs a seat with a personal combination"
            king, nine = combos[seat]
            return (f"{atom.text} needs seat {seat}'s {_sym(king)}{_sym(nine)} on both hands, i.e. the same "
                    f"{_sym(king)} and {_sym(nine)} twice: impossible in a {setup.decks}-deck shoe")
        if k in ("royal9", "suited-royal9"):
            mine, other = hands(str(atom.hand))
            mine.append(royal(k == "suited-royal9"))
            other.append(not_r9)
        elif k == "royal9-tie":
            rules.player.append(royal(None))
            rules.banker.append(royal(None))
            rules.cross.append(lambda p, b: not (suited(*p) and suited(*b)))
        elif k == "suited-royal9-tie":
            rules.player.append(royal(True))
            rules.banker.append(royal(True))
        elif k in ("major", "minor"):
            mine, other = hands("banker" if k == "major" else "player")
            mine.append(owned_by(int(atom.seat or 0)))
            other.append(not_r9)
        elif k == "mega":
            rules.player.append(owned_by(int(atom.seat or 0)))
            rules.banker.append(owned_by(int(atom.seat or 0)))
        elif k == "combos":
            rules.player.append(owned_by(int(atom.seat or 0)))
            rules.banker.append(owned_by(int(atom.banker_seat or 0)))
        elif k in ("king-nine", "nine-first", "face-first"):
            mine, _other = hands(str(atom.hand))
            if k == "king-nine":
                mine.append(lambda a, b: (k9 := key(a, b)) is not None and k9[0].rank == 13)
            elif k == "face-first":
                mine.append(lambda a, b: key(a, b) is not None and a.rank >= 11)
            else:
                mine.append(lambda a, b: key(a, b) is not None and a.rank == 9)
        elif k == "mega-envy":
            if len(combos) < 2:
                return "mega envy is paid to the other seats: the table needs at least two seats with combinations"
            rules.player.append(lambda a, b: owner(key(a, b)) is not None)
            rules.banker.append(lambda a, b: owner(key(a, b)) is not None)
            rules.cross.append(lambda p, b: owner(key(*p)) == owner(key(*b)))
        elif k == "no-royal9":
            rules.player.append(not_r9)
            rules.banker.append(not_r9)
        elif k == "ten-not-face":
            rules.player.append(lambda a, b: {a.rank, b.rank} == {10, 9})
            rules.banker.append(not_r9)
    if not r9_atoms:
        rules.player.append(not_r9)
        rules.banker.append(not_r9)
    return rules


def _sym(c: Card) -> str:
    return pretty(c)


def _tableau_reason(atom: Atom) -> str | None:
    """Impossibilities the tableau states outright (the punto banco tableau)."""
    b = atom.banker
    if atom.kind in ("tableau", "player-stands") and b is not None and b >= 8:
        return f"Banker {b} is a natural: the round ends on the first four cards and nobody draws"
    if atom.kind == "tableau" and atom.action and b is not None and atom.p3 is not None:
        draws = BANKER_DRAWS[b][atom.p3]
        if atom.action == "draws" and not draws:
            if b == 7:
                return "Banker 7 never draws"
            return f"Banker {b} stands when Player's third card is {atom.p3}"
        if atom.action == "stands" and draws:
            return f"Banker {b} always draws when Player's third card is {atom.p3}"
    return None


def _tails(pt: int, bt: int) -> list[tuple[int, ...]]:
    """Every sequence of third-card values the round can take after two-card totals pt, bt."""
    if pt >= 8 or bt >= 8:
        return [()]
    if pt <= 5:
        out: list[tuple[int, ...]] = []
        for p3 in range(10):
            if BANKER_DRAWS[bt][p3]:
                out += [(p3, b3) for b3 in range(10)]
            else:
                out.append((p3,))
        return out
    return [(b3,) for b3 in range(10)] if bt <= 5 else [()]


def _value_feasible(atoms: Sequence[Atom]) -> dict[tuple[int, int], list[tuple[int, ...]]]:
    """(Player two-card total, Banker two-card total) -> the third-card value tails that satisfy
    every baccarat atom, judged by :func:`deal_round` on cards standing for the values."""
    out: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    for pt in range(10):
        for bt in range(10):
            ok = []
            for tail in _tails(pt, bt):
                rnd = deal_round((_REP[pt], _REP[bt], _REP[0], _REP[0], *(_REP[v] for v in tail)))
                if all(check_baccarat_atom(a, rnd) is None for a in atoms):
                    ok.append(tail)
            if ok:
                out[(pt, bt)] = ok
    return out


def _conflict(atoms: Sequence[Atom]) -> str:
    """Name the smallest set of baccarat atoms that never happen together."""
    for a in atoms:
        if not _value_feasible([a]):
            return f"'{a.text}' never happens"
    for i, a in enumerate(atoms):
        for b in atoms[i + 1:]:
            if not _value_feasible([a, b]):
                return f"'{a.text}' and '{b.text}' never happen together"
    return f"{' + '.join(repr(a.text) for a in atoms)} never happen together"


def _group(pairs: Sequence[Pair], rng: random.Random) -> dict[tuple[int, int], list[Pair]]:
    groups: dict[tuple[int, int], list[Pair]] = defaultdict(list)
    for a, b in pairs:
        groups[(RANK_VALUE[a.rank], RANK_VALUE[b.rank])].append((a, b))
    for lst in groups.values():
        rng.shuffle(lst)
    return dict(groups)


def _totals(groups: dict[tuple[int, int], list[Pair]]) -> str:
    totals = sorted({(a + b) % 10 for a, b in groups})
    if len(totals) == 10:
        return "any"
    return ", ".join(map(str, totals)) + (" (a natural)" if min(totals) >= 8 else "")



def search_baccarat(want: Want, setup: Setup, rng: random.Random, budget: Budget) -> tuple[Card, ...] | str | None:
    """A verified sequence, an impossibility reason (str), or None when the budget ran out."""
    for atom in want.atoms:
        why = _tableau_reason(atom)
        if why:
            return why
    rules = _hand_rules(want, setup)
    if isinstance(rules, str):
        return rules
    bac = [a for a in want.atoms if a.kind in BAC_KINDS]
    r9_text = " + ".join(a.text for a in want.atoms if a.kind in R9_KINDS) or "no Royal 9"
    feasible = _value_feasible(bac)
    if not feasible:
        return _conflict(bac)
    p_pairs = [p for p in ALL_PAIRS if all(f(*p) for f in rules.player)]
    b_pairs = [p for p in ALL_PAIRS if all(f(*p) for f in rules.banker)]
    for hand, pairs in (("Player", p_pairs), ("Banker", b_pairs)):
        if not pairs:
            return f"no two cards give the {hand} hand what '{r9_text}' asks"
    p_groups, b_groups = _group(p_pairs, rng), _group(b_pairs, rng)
    keys = [(pv, bv) for pv in p_groups for bv in b_groups
            if ((pv[0] + pv[1]) % 10, (bv[0] + bv[1]) % 10) in feasible]
    if not keys:
        bac_text = " + ".join(a.text for a in bac)
        pts = _totals(p_groups)
        bts = _totals(b_groups)
        return (f"the first two cards '{r9_text}' needs (Player two-card total {pts}, Banker {bts}) never make "
                f"'{bac_text}' (every two-card total and third card checked)")
    keys.sort()
    rng.shuffle(keys)
    cards_of = by_value(rng, RANK_VALUE)
    decks = setup.decks
    fallback: tuple[Card, ...] | None = None
    patience = 0
    for pv, bv in keys:
        tails = list(feasible[((pv[0] + pv[1]) % 10, (bv[0] + bv[1]) % 10)])
        rng.shuffle(tails)
        for pp in p_groups[pv]:
            for bp in b_groups[bv]:
                if fallback is not None:
                    patience += 1
                    if patience > _PATIENCE:
                        return fallback
                if not budget.spend():
                    return fallback
                if any(not c(pp, bp) for c in rules.cross):
                    continue
                first = (pp[0], bp[0], pp[1], bp[1])
                used = Counter(first)
                if max(used.values()) > decks:
                    continue
                for tail in tails:
                    extra = pick_cards(tail, used, decks, cards_of)
                    if extra is None:
                        continue
                    cards = (*first, *extra)
                    if not verify(want, cards, setup):
                        if len(set(cards)) == len(cards):
                            return cards
                        fallback = fallback or cards
    if fallback is not None:
        return fallback
    return f"every card choice for '{want.text}' needs a card more often than a {decks}-deck shoe holds"


# --- entry point ------------------------------------------------------------------------------

def run_search(
    want: Want, setup: Setup, *, seed: int, name: str, max_tries: int, deadline_s: float
) -> Result:
    start = time.monotonic()
    budget = Budget(max_tries, start + deadline_s)
    rng = random.Random(seed)
    search = search_hit_and_run if setup.game == "hit-and-run" else search_baccarat
    found = search(want, setup, rng, budget)
    if isinstance(found, str):
        return Impossible(setup.game, want.text, found)
    if found is None:
        why = "deadline" if budget.tries <= max_tries else "try cap"
        return NotFound(setup.game, want.text, budget.tries,
                        f"not found within {budget.tries} tries ({why} reached; try another --seed)")
    problems = verify(want, found, setup)
    if problems:  # pragma: no cover - the search only returns verified sequences
        raise AssertionError(problems)
    return Stack(name, setup.game, want.text, found, setup, seed, budget.tries, time.monotonic() - start)
