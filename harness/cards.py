"""Card and shoe notation.

A card is written rank then suit: ``KS``, ``9H``, ``TD`` or ``10D``, ``AC``, or with a suit symbol
``K♠``, ``9♥``, ``10♦``, ``A♣``.  Lower case is accepted.  A scripted sequence must be physically
possible: it may not use any card more often than an N-deck shoe holds (N decks hold N of each
card).

Errors name the position (1-based) and the problem, e.g. ``card 3 'KX': unknown suit 'X'``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from harness.errors import InputError

SUITS = "SHDC"
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
_RANK_CODES = {"A": 1, "T": 10, "10": 10, "J": 11, "Q": 12, "K": 13}
_RANK_CODES.update({str(n): n for n in range(2, 10)})
RANK_LETTERS = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}
RANK_NAMES = {1: "ace", 11: "jack", 12: "queen", 13: "king"}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card.  ``rank`` is 1 (ace) .. 13 (king); ``suit`` is one of ``S H D C``."""

    rank: int
    suit: str

    @property
    def code(self) -> str:
        """Canonical two-character code: ``KS``, ``TD``, ``9H``."""
        return RANK_LETTERS.get(self.rank, str(self.rank)) + self.suit

    @property
    def index(self) -> int:
        """Dense index 0..51, ``(rank - 1) * 4 + suit``; handy for array-based math."""
        return (self.rank - 1) * 4 + SUITS.index(self.suit)

    @property
    def baccarat_value(self) -> int:
        """Point value in baccarat: ace 1, two to nine face value, ten and faces 0."""
        return self.rank if self.rank < 10 else 0

    @property
    def blackjack_value(self) -> int:
        """Hard value in blackjack: ace 1 (soft handling is the hand's job), ten and faces 10."""
        return min(self.rank, 10)

    @property
    def is_face(self) -> bool:
        """King, queen or jack.  A ten is *not* a face card (Royal 9 depends on this)."""
        return self.rank >= 11

    def __str__(self) -> str:
        return self.code


class Combo(NamedTuple):
    """A position's personal combination (629a Royal 9 (e)(5)): its king and its nine.

    The one shape of a combination from the profile to the verdict: the profile's, the oracle's, the
    stack builder's and the exact math's.  A tuple, so ``king, nine = combo`` and a hand's ``(face,
    nine)`` key compare with it; the wire and the emulated device keep the card codes a device sent or
    was written (:meth:`codes`), which a device may get wrong."""

    king: Card
    nine: Card

    def codes(self) -> tuple[str, str]:
        """The card codes, as the protocol writes a combination: ``("KS", "9H")``."""
        return (self.king.code, self.nine.code)

    def text(self) -> str:
        """``"KS9H"``, as the profile and the regulation's tables write it."""
        return self.king.code + self.nine.code

    @classmethod
    def of_codes(cls, codes: Sequence[str]) -> Combo:
        """Two card codes in the order given (a king and a nine are checked where the combination is
        declared: :func:`harness.games.royal9.parse_combo`)."""
        if len(codes) != 2:
            raise InputError(f"combination {list(codes)!r}: expected two cards, e.g. ['KS', '9H']")
        return cls(parse_card(str(codes[0]), 1), parse_card(str(codes[1]), 2))


def card(code: str) -> Card:
    """Parse one card with no position context (for code and tests)."""
    return parse_card(code)


def parse_card(text: str, position: int | None = None) -> Card:
    """Parse one card; ``position`` (1-based) only feeds the error message."""
    where = f"card {position} {text!r}" if position is not None else f"card {text!r}"
    raw = text.strip()
    if not raw:
        raise InputError(f"{where}: empty")
    suit_ch = raw[-1]
    rank_txt = raw[:-1].upper()
    suit = _SUIT_SYMBOLS.get(suit_ch, suit_ch.upper())
    if not rank_txt:
        raise InputError(f"{where}: needs a rank and a suit, e.g. 'KS' or '9♥'")
    if rank_txt not in _RANK_CODES:
        if suit not in SUITS and raw[:-1].upper() + suit_ch.upper() in _RANK_CODES:
            raise InputError(f"{where}: missing suit")
        raise InputError(f"{where}: unknown rank {rank_txt!r}")
    if suit not in SUITS:
        raise InputError(f"{where}: unknown suit {suit_ch!r}")
    return Card(_RANK_CODES[rank_txt], suit)


def parse_cards(cards: str | Iterable[str]) -> list[Card]:
    """Parse ``"KS 9H 3D"`` (spaces or commas) or a list of codes into cards."""
    items = cards.replace(",", " ").split() if isinstance(cards, str) else [str(c) for c in cards]
    return [parse_card(c, i) for i, c in enumerate(items, start=1)]


def shoe_composition(decks: int) -> Counter[Card]:
    """The cards an N-deck shoe holds: N of each of the 52."""
    if decks < 1:
        raise InputError(f"decks {decks}: a shoe holds at least one deck")
    return Counter({Card(r, s): decks for r in range(1, 14) for s in SUITS})


def check_against_shoe(cards: Sequence[Card], decks: int) -> None:
    """Refuse a sequence that uses a card more often than ``decks`` decks hold."""
    if decks < 1:
        raise InputError(f"decks {decks}: a shoe holds at least one deck")
    seen: Counter[Card] = Counter()
    for i, c in enumerate(cards, start=1):
        seen[c] += 1
        if seen[c] > decks:
            raise InputError(
                f"card {i} '{c.code}': copy {seen[c]} of {c.code}, but a {decks}-deck shoe holds only {decks}"
            )


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(c.code for c in cards)
