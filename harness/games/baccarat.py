"""Punto banco: the round oracle shared by Minibaccarat, Midibaccarat and Baccarat (incl. EZ).

58 Pa. Code 627a (Minibaccarat), 629a (Midibaccarat) and 631a (Baccarat) deal the same round:
cards go Player, Banker, Player, Banker; a two-card 8 or 9 on either hand (a natural) ends the
deal; otherwise Player draws on 0-5, and Banker's third card follows the punto banco
tableau.  Ten, jack, queen and king count 0, an ace 1, and a hand's point count is the
last digit of its sum.

The EZ Baccarat amendments (42 Pa.B. 6761; 627a.1, 629a.1, 631a.1) name two outcomes the round
reports as flags: a Dragon 7 (Banker wins with a three-card 7) and a Panda 8 (Player's three-card
8 beats Banker's count below 8).  :func:`deal_round` only says what happened; what each wager
is paid for it is :func:`settle_wager`'s business.

:func:`deal_round` sits on the hot path of every simulated shoe (and of the Royal 9 benchmark),
so it reads values through a rank-indexed tuple and does no work beyond building its result.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any, Literal

from harness.cards import Card
from harness.errors import InputError
from harness.games.payouts import Pay, Settlement, parse_pay, settle
from harness.money import Cents

Winner = Literal["player", "banker", "tie"]

#: baccarat value by rank (index 0 unused): ace 1, two-nine face value, ten and faces 0
RANK_VALUE: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0)


def _banker_draws_row(total: int) -> tuple[bool, ...]:
    """Whether Banker with two-card ``total`` draws, by Player's third-card value 0-9."""
    if total <= 2:
        return (True,) * 10
    if total == 3:
        return tuple(p3 != 8 for p3 in range(10))
    if total == 4:
        return tuple(2 <= p3 <= 7 for p3 in range(10))
    if total == 5:
        return tuple(4 <= p3 <= 7 for p3 in range(10))
    if total == 6:
        return tuple(6 <= p3 <= 7 for p3 in range(10))
    return (False,) * 10


#: ``BANKER_DRAWS[banker_two_card_total][player_third_card_value]`` after Player drew
BANKER_DRAWS: tuple[tuple[bool, ...], ...] = tuple(_banker_draws_row(t) for t in range(10))


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """The tableau: does Banker draw on ``banker_total`` (no natural on either hand)?

    ``player_third`` is the value of Player's third card, or ``None`` when Player stood (then
    Banker draws on 0-5 and stands on 6-7, exactly as Player does).
    """
    if player_third is None:
        return banker_total <= 5
    return BANKER_DRAWS[banker_total][player_third]


@dataclass(frozen=True, slots=True)
class BaccaratRound:
    """One dealt round: both hands, their point counts, the winner and the EZ flags."""

    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    player_total: int
    banker_total: int
    winner: Winner
    natural: bool  # either two-card total 8 or 9
    dragon7: bool  # Banker wins with a three-card 7
    panda8: bool  # Player wins with a three-card 8 (Banker below 8)
    cards_used: int

    def first_four(self) -> tuple[Card, Card, Card, Card]:
        """The first four cards in deal order (Player, Banker, Player, Banker): Royal 9 reads these."""
        p, b = self.player, self.banker
        return (p[0], b[0], p[1], b[1])


def deal_round(cards: Sequence[Card]) -> BaccaratRound:
    """Resolve one round from ``cards`` in the order they leave the shoe.

    Extra trailing cards are allowed; ``cards_used`` says how many the round took.  Too few cards
    raise :class:`InputError` naming the draw that needed the missing card.
    """
    n = len(cards)
    if n < 4:
        raise InputError(f"round needs 4 cards, got {n}")
    p1, b1, p2, b2 = cards[0], cards[1], cards[2], cards[3]
    v = RANK_VALUE
    pt = (v[p1.rank] + v[p2.rank]) % 10
    bt = (v[b1.rank] + v[b2.rank]) % 10
    if pt >= 8 or bt >= 8:
        winner: Winner = "player" if pt > bt else "banker" if bt > pt else "tie"
        return BaccaratRound((p1, p2), (b1, b2), pt, bt, winner, True, False, False, 4)
    if pt <= 5:
        if n < 5:
            raise InputError(f"round needs a 5th card: Player draws on {pt}")
        p3 = cards[4]
        p3v = v[p3.rank]
        pt = (pt + p3v) % 10
        player: tuple[Card, ...] = (p1, p2, p3)
        if BANKER_DRAWS[bt][p3v]:
            if n < 6:
                raise InputError(
                    f"round needs a 6th card: Banker draws on {bt} against Player's third card {p3v}"
                )
            b3 = cards[5]
            bt = (bt + v[b3.rank]) % 10
            banker: tuple[Card, ...] = (b1, b2, b3)
            used = 6
        else:
            banker = (b1, b2)
            used = 5
    else:
        player = (p1, p2)
        if bt <= 5:
            if n < 5:
                raise InputError(f"round needs a 5th card: Banker draws on {bt} after Player stands on {pt}")
            b3 = cards[4]
            bt = (bt + v[b3.rank]) % 10
            banker = (b1, b2, b3)
            used = 5
        else:
            banker = (b1, b2)
            used = 4
    if pt > bt:
        return BaccaratRound(
            player, banker, pt, bt, "player", False, False, pt == 8 and len(player) == 3, used
        )
    if bt > pt:
        return BaccaratRound(
            player, banker, pt, bt, "banker", False, bt == 7 and len(banker) == 3, False, used
        )
    return BaccaratRound(player, banker, pt, bt, "tie", False, False, False, used)



# --- settlement -------------------------------------------------------------------------------

Game = Literal["baccarat", "ez-baccarat"]
WAGERS = ("player", "banker", "tie", "dragon7", "panda8")
EZ_ONLY = frozenset({"dragon7", "panda8"})

#: Even money on Player and Banker (Banker less vigorish outside EZ), ties 8 to 1 (627a.12 and
#: peers).
EVEN_MONEY = Pay("to", Decimal(1))
TIE_PAY = parse_pay("8 to 1")
#: EZ insurance odds, 627a.12(f)-(g), 629a.12(f)-(g), 631a.13(f)-(g), in the regulation's words.
#: The regulation catalogue carries the same figures as ``pa-ez-dragon7`` / ``pa-ez-panda8``
#: params; :func:`ez_paytable` reads them from there and falls back to these only while the
#: catalogue data is not installed.
EZ_PAY_TEXT = {"dragon7": "40 to 1", "panda8": "25 to 1"}
EZ_CLAUSES = {"dragon7": "pa-ez-dragon7", "panda8": "pa-ez-panda8"}


@functools.cache
def ez_paytable() -> dict[str, Pay]:
    """``{"dragon7": Pay, "panda8": Pay}``: the EZ insurance odds from the regulation catalogue."""
    from harness.games.interpretations import catalogue

    cat = catalogue()
    if cat is None:
        return {wager: parse_pay(text) for wager, text in EZ_PAY_TEXT.items()}
    return {wager: parse_pay(str(cat.clause(cid).params["pay"])) for wager, cid in EZ_CLAUSES.items()}


LOSE = Pay("lose")
PUSH = Pay("push")

CommissionRounding = Literal["down", "up"]
Dragon7Definition = Literal["banker-three-card-7-wins", "banker-three-card-7"]
PlayerOnPanda8 = Literal["wins-even-money", "push"]


def commission_cents(stake: Cents, rate: Decimal, rounding: CommissionRounding = "down") -> Cents:
    """Vigorish on a winning Banker wager of ``stake`` cents at ``rate`` percent.

    Interpretation ``bac-commission-rounding`` (default ``down``): the text states a percentage
    and no rounding; a stake that is not a multiple of 20 cents gives a fraction of a cent, which
    is rounded down so the player is never charged more than the stated rate.  ``up`` rounds the
    fraction in the house's favour.
    """
    exact = Decimal(stake) * rate / 100
    return int(exact.to_integral_value(ROUND_FLOOR if rounding == "down" else ROUND_CEILING))


#: interpretation id -> the :func:`settle_wager` option it sets
WAGER_INTERPRETATIONS = {
    "bac-commission-rounding": "commission_rounding",
    "ez-dragon7-definition": "dragon7_definition",
    "ez-player-wager-on-panda8": "player_on_panda8",
}


def wager_options(interpretations: Mapping[str, object]) -> dict[str, Any]:
    """The :func:`settle_wager` options the interpretations in force set (``{id: value}``): the one
    place the oracle, the emulators and ``tablecert deal`` read them from."""
    return {opt: interpretations[key] for key, opt in WAGER_INTERPRETATIONS.items() if key in interpretations}


def settle_wager(
    rnd: BaccaratRound,
    wager: str,
    stake: Cents,
    *,
    game: Game = "baccarat",
    commission: Decimal = Decimal(5),
    commission_rounding: CommissionRounding = "down",
    dragon7_definition: Dragon7Definition = "banker-three-card-7-wins",
    player_on_panda8: PlayerOnPanda8 = "wins-even-money",
) -> tuple[str, Settlement]:
    """Settle one wager on a dealt round: ``("win" | "lose" | "push", Settlement)``.

    * Player: 1 to 1; pushes on a tie.  On an EZ table a Panda 8 is an ordinary Player win
      (627a.7(a)(2)(i)).
    * Banker: 1 to 1 less ``commission`` percent of the stake (vigorish, rounded per
      :func:`commission_cents`); pushes on a tie.  On an EZ table no vigorish is collected and a
      Dragon 7 pushes the Banker wager (627a.2(b)(6)(ii), catalogue ``pa-ez-banker-push-on-dragon7``).
    * Tie: 8 to 1.
    * Dragon 7 / Panda 8 insurance (EZ tables only): 40 to 1 / 25 to 1, lose otherwise
      (627a.7(a)(5)-(6), 627a.12(f)-(g) and the 629a / 631a peers).

    The keyword options carry the catalogue's interpretations, defaults first:
    ``commission_rounding`` is ``bac-commission-rounding`` (down | up); ``dragon7_definition`` is
    ``ez-dragon7-definition`` (the amendments never define a Dragon 7: Banker *wins* with a
    three-card 7, or any three-card Banker 7, which adds 7-7 ties, for the insurance wager);
    ``player_on_panda8`` is ``ez-player-wager-on-panda8`` (wins-even-money | push).
    """
    if game not in ("baccarat", "ez-baccarat"):
        raise InputError(f"game {game!r}: expected 'baccarat' or 'ez-baccarat'")
    if wager not in WAGERS:
        raise InputError(f"wager {wager!r}: not a baccarat wager (expected one of {', '.join(WAGERS)})")
    if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
        raise InputError(f"stake {stake!r}: expected a positive amount in cents")
    ez = game == "ez-baccarat"
    if wager == "banker" and not ez and not Decimal(0) <= commission <= Decimal(100):
        raise InputError(f"commission {commission}%: must be between 0% and 100%")
    if wager in EZ_ONLY and not ez:
        raise InputError(f"wager {wager!r} is offered only on an EZ Baccarat table")
    winner = rnd.winner
    if wager in EZ_ONLY:
        if wager == "panda8":
            hit = rnd.panda8
        elif dragon7_definition == "banker-three-card-7-wins":
            hit = rnd.dragon7
        else:
            hit = len(rnd.banker) == 3 and rnd.banker_total == 7
        return ("win", settle(ez_paytable()[wager], stake)) if hit else ("lose", settle(LOSE, stake))
    if wager == "tie":
        return ("win", settle(TIE_PAY, stake)) if winner == "tie" else ("lose", settle(LOSE, stake))
    if winner == "tie":
        return "push", settle(PUSH, stake)
    if winner != wager:
        return "lose", settle(LOSE, stake)
    if wager == "player":
        if ez and rnd.panda8 and player_on_panda8 == "push":
            return "push", settle(PUSH, stake)
        return "win", settle(EVEN_MONEY, stake)
    if ez:
        if rnd.dragon7:
            return "push", settle(PUSH, stake)
        return "win", settle(EVEN_MONEY, stake)
    paid = settle(EVEN_MONEY, stake)
    return "win", Settlement(stake, paid.returned - commission_cents(stake, commission, commission_rounding))
