"""Blackjack dealer play and the Hit and Run progressive wager (58 Pa. Code 633a.13(l)(1)).

The Hit and Run wager is decided by the dealer's hand alone: the paytable as corrected by
42 Pa.B. 6761 (2012) pays "Dealer has: eight or more cards 100% of meter, seven cards 200 for 1
(was 100), six cards 25 for 1, five cards 8 for 1 (was 7), blackjack 4 for 1".  The text does not
say whether a busted hand counts or whether the dealer must complete a hand nobody is playing
against; those are the named interpretations ``hr-bust-counts`` and ``hr-dealer-completes``
(both default true, see :mod:`harness.games.interpretations`).

Dealer play is the house rule the Rules Submission declares: the dealer draws to hard 16 and
below, stands on hard 17+, stands on soft 18+, and hits or stands on soft 17 as configured.  A
two-card 21 is a blackjack and ends the hand.  ``cards`` given to :func:`dealer_hand` are the
dealer's cards in the order the dealer receives them (up card, hole card, then draws).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.cards import Card
from harness.errors import InputError
from harness.games.interpretations import DEFAULT, Interpretations, catalogue
from harness.games.payouts import Pay, Settlement, parse_pay, settle
from harness.money import Cents

#: Hit and Run categories, highest first (agreed names)
CATEGORIES = ("8-plus-cards", "7-cards", "6-cards", "5-cards", "blackjack")

#: 633a.13(l)(1) as amended; the catalogue's ``pa-633a13-l1-paytable`` carries the same cells
_PAYTABLE_TEXT: dict[str, str] = {
    "8-plus-cards": "100% of meter",
    "7-cards": "200 for 1",
    "6-cards": "25 for 1",
    "5-cards": "8 for 1",
    "blackjack": "4 for 1",
}

#: The regulation sets no reset amount for the Hit and Run meter; this is the figure used when a
#: profile or the command line gives none ($1,000), stated wherever it is used.
DEFAULT_METER: Cents = 100_000

_ORDINAL = {1: "st", 2: "nd", 3: "rd"}


def _nth(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else _ORDINAL.get(n % 10, "th")
    return f"{n}{suffix}"


def hit_and_run_paytable() -> dict[str, Pay]:
    """The 633a.13(l)(1) paytable as :class:`Pay` cells, from the catalogue when installed."""
    cat = catalogue()
    if cat is not None:
        return dict(cat.hit_and_run_paytable())
    return {c: parse_pay(_PAYTABLE_TEXT[c]) for c in CATEGORIES}


@dataclass(frozen=True, slots=True)
class DealerHand:
    """The dealer's final hand.  ``total`` is the best total (soft when ``soft``)."""

    cards: tuple[Card, ...]
    total: int
    soft: bool
    bust: bool
    blackjack: bool
    n_cards: int


def hand_total(cards: Sequence[Card]) -> tuple[int, bool]:
    """``(best total, soft)``: an ace counts 11 when that does not bust the hand."""
    hard = sum(min(c.rank, 10) for c in cards)
    if hard <= 11 and any(c.rank == 1 for c in cards):
        return hard + 10, True
    return hard, False


def dealer_hits(total: int, soft: bool, *, hit_soft17: bool) -> bool:
    """The dealer's rule: hit below 17, and on soft 17 when the house hits soft 17."""
    return total < 17 or (total == 17 and soft and hit_soft17)


def dealer_hand(
    cards: Sequence[Card], *, hit_soft17: bool, interpretations: Interpretations = DEFAULT
) -> DealerHand:
    """Play the dealer's hand from ``cards``; trailing cards beyond the final hand are not used.

    Too few cards raise :class:`InputError` naming the draw that needed the missing card
    (``round needs a 4th card: dealer hits 15``) unless ``hr-dealer-completes`` is false, in which
    case the cards given are the final hand.
    """
    if len(cards) < 2:
        if not interpretations.hr_dealer_completes and cards:
            total, soft = hand_total(cards)
            return DealerHand(tuple(cards), total, soft, False, False, len(cards))
        nth = _nth(len(cards) + 1)
        raise InputError(f"round needs a {nth} card: the dealer's hand starts with two cards")
    hand = list(cards[:2])
    total, soft = hand_total(hand)
    if total == 21:
        return DealerHand(tuple(hand), 21, soft, False, True, 2)
    while dealer_hits(total, soft, hit_soft17=hit_soft17):
        if len(hand) == len(cards):
            if not interpretations.hr_dealer_completes:
                break
            what = f"soft {total}" if soft else str(total)
            raise InputError(f"round needs a {_nth(len(hand) + 1)} card: dealer hits {what}")
        hand.append(cards[len(hand)])
        total, soft = hand_total(hand)
    return DealerHand(tuple(hand), total, soft, total > 21, False, len(hand))


def hit_and_run_category(hand: DealerHand, *, interpretations: Interpretations = DEFAULT) -> str | None:
    """The paytable row the dealer's hand makes, or ``None`` (a busted hand under
    ``hr-bust-counts`` = false, or fewer than five cards without a blackjack)."""
    if hand.blackjack:
        return "blackjack"
    if hand.bust and not interpretations.hr_bust_counts:
        return None
    n = hand.n_cards
    if n >= 8:
        return "8-plus-cards"
    if n >= 5:
        return f"{n}-cards"
    return None


def settle_hit_and_run(
    hand: DealerHand,
    stake: Cents,
    meter_amount: Cents | None = None,
    paytable: Mapping[str, Pay] | None = None,
    *,
    interpretations: Interpretations = DEFAULT,
) -> tuple[str | None, Settlement]:
    """Settle one Hit and Run wager of ``stake`` cents: ``(category or None, Settlement)``.

    ``meter_amount`` is the progressive meter when the hand is dealt (needed only for the
    eight-or-more line; :data:`DEFAULT_METER` when omitted).  ``paytable`` defaults to
    :func:`hit_and_run_paytable`.
    """
    if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
        raise InputError(f"stake {stake!r}: expected a positive amount in cents")
    table = paytable if paytable is not None else hit_and_run_paytable()
    category = hit_and_run_category(hand, interpretations=interpretations)
    if category is None:
        return None, settle(Pay("lose"), stake)
    pay = table[category]
    meter = DEFAULT_METER if meter_amount is None else meter_amount
    return category, settle(pay, stake, meter, award_returns_stake=interpretations.award_returns_stake)


def meter_shares(interpretations: Interpretations, winners: Sequence[tuple[int, str | None]],
                 meter_amount: Cents | None) -> dict[int, Cents]:
    """The meter amount each eight-or-more winner of one hand is paid 100% of.

    ``winners`` is ``[(seat, category)]`` for every Hit and Run wager of the hand.  Interpretation
    ``hr-simultaneous-meter-winners``: ``each-paid-meter`` (default) pays every winning wager the
    meter as it stands; ``shared`` divides the meter among them, whole cents, the cent left over to
    the lowest seat, so the meter is paid exactly once."""
    seats = sorted(seat for seat, category in winners if category == "8-plus-cards")
    if meter_amount is None or not seats:
        return {}
    if dict(interpretations.as_dict()).get("hr-simultaneous-meter-winners") != "shared":
        return {seat: meter_amount for seat in seats}
    share, left = divmod(meter_amount, len(seats))
    return {seat: share + (left if i == 0 else 0) for i, seat in enumerate(seats)}
