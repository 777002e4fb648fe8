"""Midibaccarat with the Royal 9 wager: the tableau (58 Pa. Code 629a.8) and the Royal 9 paytable
(629a Royal 9 (e)-(g)), pure functions on card strings like "KS".

Choices where the text leaves one (named as `tablecert catalogue --interpretations` names them; the
defaults): a personal combination is suit-specific; order of the two cards does not matter; one
award per wager, the first paytable row it makes; mega envy only to a seat with a Royal 9 wager and
not to the mega winner; awards hand the stake back too; commission rounded down to the cent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal

RANKS = "A23456789TJQK"
SUITS = "SHDC"
FACES = "JQK"


def valid_card(card: object) -> bool:
    return isinstance(card, str) and len(card) == 2 and card[0] in RANKS and card[1] in SUITS


def value(card: str) -> int:
    rank = card[0]
    if rank == "A":
        return 1
    if rank in "TJQK":
        return 0
    return int(rank)


def cards_needed(cards: list[str], banker3_draws_on_8: bool = False, player_natural_9_only: bool = False,
                 banker6_draws: bool = False, banker5_from_5: bool = False, banker4_from_1: bool = False,
                 player_draws_6: bool = False, banker6_on_7_only: bool = False,
                 banker_natural_late: bool = False, banker2_as_3: bool = False,
                 banker5_stands_stood: bool = False, *, banker3_stands_on_9: bool = False,
                 banker4_draws_on_8: bool = False, player_stands_on_5: bool = False,
                 banker7_draws_on_6_7: bool = False, natural_before_mod: bool = False,
                 banker_reads_total: bool = False, ten_as_stood: bool = False) -> int:
    """How many cards this round takes in all, given the cards out so far (4, 5 or 6); 4 until known.

    `banker3_draws_on_8`: fault tableau-banker-3-draws-on-8 (the banker with 3 also draws on an 8).
    `player_natural_9_only`: fault player-natural-8-not-natural (a player's two-card 8 is no natural).
    `banker6_draws`: fault banker-6-draws-player-stood (the banker draws on 6 when the player stood).
    `banker5_from_5`: fault banker-5-stands-on-4 (the banker's 5 row starts at the player's third card 5).
    `banker4_from_1`: fault banker-4-draws-on-ace (the banker's 4 row starts at the player's third card 1).
    `player_draws_6`: fault player-draws-on-6 (the player's draw row ends at 6).
    `banker6_on_7_only`: fault banker-6-stands-on-third-6 (the banker's 6 row holds the player's third card 7 only).
    `banker_natural_late`: fault banker-natural-checked-after-player-draw (the banker's natural is looked at only
    after the player's draw).
    `banker2_as_3`: fault banker-2-stands-on-third-8 (the banker's 3 row starts at 2: a 2 stands on a third card 8).
    `banker5_stands_stood`: fault banker-5-stands-when-player-stood (the banker's "player stood" row ends at 4).
    `banker3_stands_on_9`: fault banker-3-stands-on-third-9 (the banker's 3 row ends at the player's third card 8,
    which it excludes, so a 9 stands too).
    `banker4_draws_on_8`: fault banker-4-draws-on-third-8 (the banker's 4 row ends at the player's third card 8).
    `player_stands_on_5`: fault player-stands-on-5 (the player's draw row ends at 4).
    `banker7_draws_on_6_7`: fault banker-7-draws-on-third-6-or-7 (the banker's 6 row is written for 6 and 7).
    `natural_before_mod`: fault natural-tested-before-mod-10 (the natural test reads the two cards' sum before it
    is taken modulo 10).
    `banker_reads_total`: fault banker-draw-reads-player-total (the banker's rows are looked up with the player's
    three-card total, the variable the player's draw has just updated, instead of the third card's value).
    `ten_as_stood`: fault third-card-ten-read-as-player-stood (the player's third-card register holds the card's value,
    and 0 is its "no third card" mark: a third card worth 0 sends the banker to the "player stood" row).
    """
    if len(cards) < 4:
        return 4
    p = (value(cards[0]) + value(cards[2])) % 10
    b = (value(cards[1]) + value(cards[3])) % 10
    p_nat, b_nat = p, b
    if natural_before_mod:
        p_nat, b_nat = value(cards[0]) + value(cards[2]), value(cards[1]) + value(cards[3])
    if p_nat >= (9 if player_natural_9_only else 8) or (b_nat >= 8 and not banker_natural_late):
        return 4
    if p <= (6 if player_draws_6 else 4 if player_stands_on_5 else 5):  # player draws
        if len(cards) < 5:
            return 5
        p3 = value(cards[4])
        if ten_as_stood and p3 == 0:
            return 6 if b <= 5 else 5  # fault third-card-ten-read-as-player-stood
        if banker_reads_total:
            p3 = (p + p3) % 10
        low = 1 if banker2_as_3 else 2
        # fault banker-3-stands-on-third-9: the 3 row's "draws" test was written as "third card below 8"
        stands_9 = banker3_stands_on_9 and b == 3 and p3 == 9
        draw = (b <= low or (low < b <= 3 and (p3 != 8 or banker3_draws_on_8) and not stands_9)
                or (b == 4 and (1 if banker4_from_1 else 2) <= p3 <= (8 if banker4_draws_on_8 else 7))
                or (b == 5 and (5 if banker5_from_5 else 4) <= p3 <= 7)
                or ((b in (6, 7) if banker7_draws_on_6_7 else b == 6)
                    and p3 in ((7,) if banker6_on_7_only else (6, 7))))
        return 6 if draw else 5
    # player stands on 6 or 7
    return 5 if b <= (6 if banker6_draws else 4 if banker5_stands_stood else 5) else 4


@dataclass
class Hands:
    player: list[str]
    banker: list[str]
    third_no_mod: bool = False  # fault third-card-total-not-mod-10: the third card added to the two-card point
    naturals_tie: bool = False  # fault two-naturals-settled-as-tie: two naturals compared as "natural", not by points
    # fault tie-check-reads-two-card-points: the tie test reads the two-card point counts kept from the natural check
    tie_two_cards: bool = False

    def _total(self, hand: list[str]) -> int:
        if self.third_no_mod:
            return sum(value(c) for c in hand[:2]) % 10 + sum(value(c) for c in hand[2:])
        return sum(value(c) for c in hand) % 10

    @property
    def p_total(self) -> int:
        return self._total(self.player)

    @property
    def b_total(self) -> int:
        return self._total(self.banker)

    @property
    def winner(self) -> str:
        if (self.naturals_tie and len(self.player) == 2 and len(self.banker) == 2
                and self.p_total >= 8 and self.b_total >= 8):
            return "tie"  # fault two-naturals-settled-as-tie: the natural branch ends the round as a tie hand
        if self.tie_two_cards:
            # fault tie-check-reads-two-card-points: "tie" is tested on the two-card points, the rest on the final ones
            if self._total(self.player[:2]) == self._total(self.banker[:2]):
                return "tie"
            return "player" if self.p_total > self.b_total else "banker"
        if self.p_total > self.b_total:
            return "player"
        if self.b_total > self.p_total:
            return "banker"
        return "tie"


def hands(cards: list[str], banker3_draws_on_8: bool = False, player_natural_9_only: bool = False,
          banker6_draws: bool = False, banker5_from_5: bool = False, banker4_from_1: bool = False,
          player_draws_6: bool = False, banker6_on_7_only: bool = False, banker_natural_late: bool = False,
          banker2_as_3: bool = False, banker5_stands_stood: bool = False, *, banker3_stands_on_9: bool = False,
          third_no_mod: bool = False, banker4_draws_on_8: bool = False, player_stands_on_5: bool = False,
          banker7_draws_on_6_7: bool = False, natural_before_mod: bool = False,
          fifth_to_player: bool = False, banker_reads_total: bool = False, naturals_tie: bool = False,
          tie_two_cards: bool = False, ten_as_stood: bool = False) -> Hands:
    """`fifth_to_player`: fault banker-third-card-added-to-player (the fifth card is put in the player's hand).
    `banker_reads_total`: fault banker-draw-reads-player-total (see cards_needed).
    `naturals_tie`: fault two-naturals-settled-as-tie (a natural against a natural is settled as a tie hand, whatever
    the two point counts).
    `tie_two_cards`: fault tie-check-reads-two-card-points (equal final points are a tie only when the two-card points
    are equal too)."""
    player = [cards[0], cards[2]]
    banker = [cards[1], cards[3]]
    n = cards_needed(cards, banker3_draws_on_8, player_natural_9_only, banker6_draws, banker5_from_5, banker4_from_1,
                     player_draws_6, banker6_on_7_only, banker_natural_late, banker2_as_3, banker5_stands_stood,
                     banker3_stands_on_9=banker3_stands_on_9, banker4_draws_on_8=banker4_draws_on_8,
                     player_stands_on_5=player_stands_on_5, banker7_draws_on_6_7=banker7_draws_on_6_7,
                     natural_before_mod=natural_before_mod, banker_reads_total=banker_reads_total,
                     ten_as_stood=ten_as_stood)
    n = min(n, len(cards))  # fault settle-taken-before-third-card: a hand settled on the cards out so far
    if n >= 5:
        p = (value(cards[0]) + value(cards[2])) % 10
        if p <= (6 if player_draws_6 else 4 if player_stands_on_5 else 5):
            player.append(cards[4])
            if n == 6:
                banker.append(cards[5])
        else:
            # (fault banker-third-card-added-to-player: the fifth card is always stored as the player's third card)
            (player if fifth_to_player else banker).append(cards[4])
    return Hands(player, banker, third_no_mod, naturals_tie, tie_two_cards)


def base_payout(wtype: str, stake: int, winner: str, commission: Decimal) -> tuple[str, int]:
    """(category, returned) for a Player, Banker or Tie wager: 1 to 1, 1 to 1 less commission, 8 to 1."""
    if wtype == "tie":
        return ("win", stake * 9) if winner == "tie" else ("lose", 0)
    if winner == "tie":
        return "push", stake
    if wtype == winner:
        if wtype == "banker":
            vig = (Decimal(stake) * commission / 100).to_integral_value(rounding=ROUND_FLOOR)
            return "win", 2 * stake - int(vig)
        return "win", 2 * stake
    return "lose", 0


FIXED = {  # 629a Royal 9 (f)(1) for $5, (g)(1) for $1: cents
    500: {"mega-envy": 500000, "suited-royal9-tie": 150000, "royal9-tie": 25000, "suited-royal9": 5000,
          "royal9": 2500},
    100: {"mega-envy": 100000, "suited-royal9-tie": 30000, "royal9-tie": 5000, "suited-royal9": 1000,
          "royal9": 500},
}
FLOORS = {500: {"mega": 5000000, "major": 45000, "minor": 45000},
          100: {"mega": 1000000, "major": 9000, "minor": 9000}}


def _royal9(two: list[str], faces: str = FACES) -> tuple[bool, bool]:
    a, b = two
    r9 = (a[0] in faces and b[0] == "9") or (b[0] in faces and a[0] == "9")
    return r9, r9 and a[1] == b[1]


def _royal9_in_hand(hand: list[str], faces: str = FACES) -> tuple[bool, bool]:
    """Fault royal9-counts-third-card: a face card and a nine anywhere in the hand, third card too."""
    pairs = [(a, b) for a in hand for b in hand if a[0] in faces and b[0] == "9"]
    return bool(pairs), any(a[1] == b[1] for a, b in pairs)


def _has(two: list[str], combo: list[str]) -> bool:
    return sorted(two) == sorted(combo)


def _has_king_only(two: list[str], combo: list[str]) -> bool:
    """Fault combination-matched-on-king-suit: the combination's king, and any nine beside it."""
    kings = [c for c in combo if c[0] == "K"]
    if not kings or kings[0] not in two:
        return False
    other = two[1] if two[0] == kings[0] else two[0]
    return other[0] == "9"


@dataclass
class R9Result:
    category: str | None = None  # the first paytable row the seat's wager makes
    meter: str | None = None
    extra: dict[str, object] = field(default_factory=dict)


def royal9_category(cards: list[str], seat: int, combos: dict[int, list[str] | None],
                    slips: frozenset[str] = frozenset()) -> R9Result:
    """`slips`: the faults of this function's paytable checks (royal9-jack-not-face, suited-tie-paid-as-tie,
    tie-with-one-suited-paid-suited-tie, royal9-counts-third-card, banker-suited-royal9-paid-unsuited,
    suited-tie-requires-same-suit, suited-minor-paid-as-suited-royal9, nine-first-not-royal9-on-banker,
    combination-matched-on-king-suit, ten-nine-counted-royal9, royal9-tie-paid-as-royal9, personal-hands-swapped,
    royal9-read-from-first-two-cards, mega-checked-after-major, tie-rows-checked-before-personal,
    unsuited-combination-paid-as-royal9, envy-needs-same-card-order, envy-paid-for-unassigned-combination,
    envy-checks-lower-seats-only, envy-skips-two-suit-combinations, identical-royal9-pair-tie-unpaid)."""
    p2 = [cards[0], cards[2]]
    b2 = [cards[1], cards[3]]
    own = combos.get(seat)
    if "unsuited-combination-paid-as-royal9" in slips and own is not None and own[0][1] != own[1][1]:
        own = None  # fault unsuited-combination-paid-as-royal9: the personal check starts with "both cards one suit"
    has = _has_king_only if "combination-matched-on-king-suit" in slips else _has
    if "mega-checked-after-major" in slips and own is not None and has(b2, own):
        return R9Result("major", "major")  # the rows are tested in the order of the meters' records: major first
    if own is not None and has(p2, own) and has(b2, own):
        return R9Result("mega", "mega")
    if "tie-rows-checked-before-personal" in slips:
        pr0, ps0 = _royal9(p2)
        br0, bs0 = _royal9(b2)
        if pr0 and br0:  # the two-hand rows are tested before the one-hand (personal) rows
            return R9Result("suited-royal9-tie" if ps0 and bs0 else "royal9-tie")
    if "personal-hands-swapped" in slips:  # the major row tests the player hand, the minor row the banker's
        if own is not None and has(p2, own):
            return R9Result("major", "major")
        if own is not None and has(b2, own):
            return R9Result("minor", "minor")
    if own is not None and has(b2, own):
        return R9Result("major", "major")
    if own is not None and has(p2, own):
        if "suited-minor-paid-as-suited-royal9" in slips and own[0][1] == own[1][1]:
            return R9Result("suited-royal9")  # the suited check runs before the personal one
        return R9Result("minor", "minor")
    for other, combo in combos.items():
        if "envy-checks-lower-seats-only" in slips and other > seat:
            break  # fault envy-checks-lower-seats-only: the envy loop runs over the seats before the wager's seat
        if "envy-skips-two-suit-combinations" in slips and combo is not None and combo[0][1] != combo[1][1]:
            continue  # fault envy-skips-two-suit-combinations: the envy loop starts with the suited-pair test
        if other != seat and combo is not None and has(p2, combo) and has(b2, combo):
            if "envy-needs-same-card-order" in slips and p2 != b2:
                continue  # fault envy-needs-same-card-order: the envy test compares the two hands card by card
            return R9Result("mega-envy")
    if "identical-royal9-pair-tie-unpaid" in slips and sorted(p2) == sorted(b2):
        # fault identical-royal9-pair-tie-unpaid: the same two cards on both hands go to the envy row's branch, which
        # finds no position holding them and ends the check with no award
        return R9Result(None)
    if ("envy-paid-for-unassigned-combination" in slips and sorted(p2) == sorted(b2)
            and any(c[0] == "K" for c in p2) and any(c[0] == "9" for c in p2)):
        # fault envy-paid-for-unassigned-combination: the envy row compares the two hands' king 9 with each other
        # and not with the positions' combinations
        return R9Result("mega-envy")
    faces = "KQ" if "royal9-jack-not-face" in slips else FACES
    if "ten-nine-counted-royal9" in slips:
        faces = "T" + faces  # the face check tests for a card of value 0
    if "royal9-read-from-first-two-cards" in slips:
        p2 = [cards[0], cards[1]]  # the player's pair is taken as the first two cards out of the shoe
    pr, ps = _royal9(p2, faces)
    br, bs = _royal9(b2, faces)
    if "royal9-counts-third-card" in slips and len(cards) > 4:
        final = hands(cards)
        pr, ps = _royal9_in_hand(final.player, faces)
        br, bs = _royal9_in_hand(final.banker, faces)
    if "suited-check-compares-colour" in slips:
        # fault suited-check-compares-colour: the suit test compares the suits' colour bit (hearts and diamonds red)
        red = "HD"
        ps = pr and (p2[0][1] in red) == (p2[1][1] in red)
        bs = br and (b2[0][1] in red) == (b2[1][1] in red)
    if "nine-first-not-royal9-on-banker" in slips and b2[0][0] == "9":
        br = bs = False  # the banker hand's check looks for the face card first
    if "banker-suited-royal9-paid-unsuited" in slips:
        bs = False  # the suit comparison reads the player hand's cards only
    if "suited-tie-requires-same-suit" in slips and ps and bs and p2[0][1] != b2[0][1]:
        return R9Result("royal9-tie")
    if "suited-tie-paid-as-tie" in slips and pr and br:
        return R9Result("royal9-tie")
    if "tie-with-one-suited-paid-suited-tie" in slips and pr and br and (ps or bs):
        return R9Result("suited-royal9-tie")
    if ps and bs:
        return R9Result("suited-royal9-tie")
    if "royal9-tie-paid-as-royal9" in slips and pr and br:
        return R9Result("royal9")  # the tie row is reached only through the suited test
    if pr and br:
        return R9Result("royal9-tie")
    if ps or bs:
        return R9Result("suited-royal9")
    if pr or br:
        return R9Result("royal9")
    return R9Result(None)
