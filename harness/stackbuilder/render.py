"""How a found stack is shown: suite-ready YAML, a technician's stacking sheet, JSON.

The sheet is what a technician follows to load a real shoe by hand, so it lists every card by its
position (card 1 leaves the shoe first), the hand it goes to, the result the round must give
(recomputed here by the oracles, not copied from the search) and a check line to compare with the
shoe's own count after dealing.
"""

from __future__ import annotations

import json
from typing import Any

from harness.cards import RANK_LETTERS, Card
from harness.games.baccarat import BaccaratRound, deal_round
from harness.games.blackjack import DealerHand, dealer_hand, hit_and_run_category
from harness.stackbuilder.common import Stack
from harness.stackbuilder.wants import Setup

#: what a stacks file (``fixtures/stacks/*.yaml``) starts with: ``spec: tablecert/stacks/1``
#: (:mod:`harness.suites.load.stacks` reads the files)
SPEC = "tablecert/stacks/1"

_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_ORD = {1: "first", 2: "second", 3: "third"}


def pretty(c: Card) -> str:
    """``K♠``, ``10♦``: what is printed on the card."""
    rank = "10" if c.rank == 10 else RANK_LETTERS.get(c.rank, str(c.rank))
    return rank + _SYMBOLS[c.suit]


def _cards(cards: tuple[Card, ...] | list[Card]) -> str:
    return " ".join(pretty(c) for c in cards)


def _nth(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def roles(stack: Stack) -> list[str]:
    """Which hand each card goes to, in shoe order."""
    if stack.game == "hit-and-run":
        names = ["Dealer up card", "Dealer hole card"]
        return names + [f"Dealer {_nth(i + 1)} card (hit)" for i in range(2, len(stack.cards))]
    rnd = deal_round(stack.cards)
    names = ["Player first card", "Banker first card", "Player second card", "Banker second card"]
    if len(rnd.player) == 3:
        names.append("Player third card")
    if len(rnd.banker) == 3:
        names.append("Banker third card")
    return names


def _royal9_lines(rnd: BaccaratRound, setup: Setup) -> list[str]:
    if not setup.seat_combos:
        return []
    r9 = setup.table.resolve(rnd.first_four())
    by_cat: dict[str, list[int]] = {}
    for s in r9.seats:
        by_cat.setdefault(s.category or "no award", []).append(s.seat)
    parts = [f"{cat} for seat{'s' if len(seats) > 1 else ''} {', '.join(map(str, seats))}"
             for cat, seats in by_cat.items()]
    meters = f"; meters hit: {', '.join(r9.meters_hit)}" if r9.meters_hit else ""
    return [f"Royal 9 (every seat wagering): {'; '.join(parts)}{meters}"]


def _baccarat_result(rnd: BaccaratRound) -> str:
    flags = [f for f, on in (("natural", rnd.natural), ("Dragon 7", rnd.dragon7), ("Panda 8", rnd.panda8)) if on]
    winner = "tie" if rnd.winner == "tie" else f"{rnd.winner.capitalize()} wins"
    extra = f" ({', '.join(flags)})" if flags else ""
    return (f"Player {_cards(list(rnd.player))} = {rnd.player_total}, Banker {_cards(list(rnd.banker))} = "
            f"{rnd.banker_total}: {winner}{extra}")


def _dealer_result(hand: DealerHand) -> str:
    if hand.blackjack or hand.bust:
        what = "blackjack" if hand.blackjack else "bust"
    else:
        what = ("soft " if hand.soft else "") + str(hand.total)
    cat = hit_and_run_category(hand)
    line = f"{cat} line" if cat else "no Hit and Run line"
    return f"Dealer {_cards(list(hand.cards))}: {hand.n_cards} cards, {what} ({line})"


def expected(stack: Stack) -> list[str]:
    """The result the round must give, recomputed by the oracles."""
    if stack.game == "hit-and-run":
        return [_dealer_result(dealer_hand(stack.cards, hit_soft17=stack.setup.hit_soft17,
                                           interpretations=stack.setup.interpretations))]
    rnd = deal_round(stack.cards)
    return [_baccarat_result(rnd), *_royal9_lines(rnd, stack.setup)]


def shoe_text(stack: Stack) -> str:
    s = stack.setup
    if stack.game == "hit-and-run":
        return f"{s.decks}-deck shoe, dealer {'hits' if s.hit_soft17 else 'stands on'} soft 17"
    seats = f", seats {','.join(f'{n}={k.code}{x.code}' for n, (k, x) in sorted(s.seat_combos.items()))}" \
        if s.seat_combos else ", no seat combinations"
    return f"{s.decks}-deck shoe{seats}"


def note(stack: Stack) -> str:
    return f"{expected(stack)[0]}. Built for: {shoe_text(stack)}."


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def codes(stack: Stack) -> str:
    return " ".join(c.code for c in stack.cards)


def entry_yaml(stack: Stack, indent: str = "  ") -> str:
    """One ``stacks:`` entry of a ``fixtures/stacks/*.yaml`` file."""
    return (f"{indent}{stack.name}:\n"
            f"{indent}  cards: {_q(codes(stack))}\n"
            f"{indent}  game: {stack.game}\n"
            f"{indent}  want: {_q(stack.want)}\n"
            f"{indent}  note: {_q(note(stack))}\n")


def as_yaml(stack: Stack, command: str = "") -> str:
    head = f"# {command}\n" if command else ""
    return (f"{head}# suite step (inline cards); or `- deal: {{stack: {stack.name}}}` once the entry below is in "
            f"fixtures/stacks/\n"
            f"step:\n  deal: {{cards: {_q(codes(stack))}}}\n"
            f"# stacks file entry: goes under `stacks:` in fixtures/stacks/<file>.yaml (spec: tablecert/stacks/1)\n"
            f"stack:\n{entry_yaml(stack)}")


def as_sheet(stack: Stack) -> str:
    names = roles(stack)
    width = max(len(n) for n in names) + 1
    lines = [
        f"STACKING SHEET  {stack.name}",
        f"Want: {stack.want}   Game: {stack.game}   Shoe: {shoe_text(stack)}",
        "Load the shoe so that card 1 is the first card out (top of the shoe first):",
    ]
    lines += [f"  {i:>2} → {(n + ':').ljust(width)} {pretty(c)}" for i, (n, c) in enumerate(zip(names, stack.cards,
                                                                                                strict=True), 1)]
    lines.append("Expected result:")
    lines += [f"  {line}" for line in expected(stack)]
    lines.append(f"Check: {len(stack.cards)} cards ({codes(stack)}); the round uses all {len(stack.cards)}, "
                 f"so the shoe reports {len(stack.cards)} dealt after the round and deals no further card.")
    return "\n".join(lines) + "\n"


def as_json(stack: Stack) -> dict[str, Any]:
    s = stack.setup
    return {
        "status": "found", "name": stack.name, "game": stack.game, "want": stack.want,
        "cards": [c.code for c in stack.cards], "roles": roles(stack), "expected": expected(stack),
        "decks": s.decks, "hit_soft17": s.hit_soft17 if stack.game == "hit-and-run" else None,
        "seat_combos": {str(n): k.code + x.code for n, (k, x) in sorted(s.seat_combos.items())},
        "seed": stack.seed, "tries": stack.tries, "note": note(stack),
        "step": {"deal": {"cards": codes(stack)}},
    }
