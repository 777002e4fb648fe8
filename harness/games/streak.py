"""Mini-Baccarat "three consecutive games" wager, Wash. Admin. Code 230-15-040(8)(b).

230-15-040(8) requires a player's win or loss to be determined during a single deal, and (b)
excepts one wager: "In the game of Mini-Baccarat, a player may make an optional wager on the
player hand winning the next three consecutive games, or the banker hand winning the next three
consecutive games."  The wager types are ``streak3-player`` and ``streak3-banker``.  It is
settled over up to three rounds: it loses as soon as a round is not won by the chosen hand, and
wins when the chosen hand has won three in a row.  The regulation states no odds, so the payout
comes from the certificate holder's paytable (a :class:`~harness.games.payouts.Pay`).

Interpretation ``wa-streak3-tie`` (what a tie does to the streak), choices:

* ``loses`` (default): a tie is a game the chosen hand did not win, so the wager loses.  Reason:
  the text asks for the hand "winning the next three consecutive games", and a tie round is one
  of those games.
* ``push``: a tie ends the wager and returns the stake (the tie is one of the three games, but
  neither hand won it).

Both keep the wager inside the exception's bound of three deals, where (8) otherwise demands
single-deal resolution (compare (8)(a), which caps a carryover at ten games): the wager takes
part in at most :data:`STREAK_LENGTH` games, and is decided in the first game its hand does not
win.  A reading where a tie does not count as a game ("skip": the wager rides on to the next deal)
is not offered: it lets the wager ride past three deals without bound, which "the next three
consecutive games" excludes.  (Capping "skip" at three deals gives no reading of its own: a tie
among three deals leaves the hand short of three wins, so the wager loses, as under ``loses``.)

Only who won matters: a Banker win that is an EZ Dragon 7 is still a Banker win here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from harness.errors import InputError
from harness.games.baccarat import BaccaratRound
from harness.games.payouts import Pay, Settlement, settle
from harness.money import Cents

StreakTieRule = Literal["loses", "push"]
StreakResult = Literal["win", "lose", "push", "open"]
TIE_RULES: tuple[StreakTieRule, ...] = ("loses", "push")
#: the catalogue id of the interpretation the tie rule is
TIE_INTERPRETATION = "wa-streak3-tie"
DEFAULT_TIE_RULE: StreakTieRule = "loses"

#: wager type -> the hand that has to win
STREAK_WAGERS = {"streak3-player": "player", "streak3-banker": "banker"}
STREAK_LENGTH = 3


@dataclass(frozen=True, slots=True)
class StreakResolution:
    """Where a streak wager stands after the rounds seen so far.

    ``result`` is ``open`` while it is still riding.  ``rounds`` counts the rounds the wager took
    part in (up to and including the deciding one); ``wins`` the chosen hand's wins among them.
    """

    wager: str
    result: StreakResult
    rounds: int
    wins: int


def tie_rule_of(interpretations: Mapping[str, object]) -> StreakTieRule:
    """The tie rule in force: ``wa-streak3-tie`` in ``interpretations`` (e.g.
    :meth:`~harness.games.interpretations.Interpretations.as_dict`), the default when absent."""
    value = interpretations.get(TIE_INTERPRETATION, DEFAULT_TIE_RULE)
    for rule in TIE_RULES:
        if value == rule:
            return rule
    raise InputError(f"{TIE_INTERPRETATION} {value!r}: expected one of {', '.join(TIE_RULES)}")


def _winner(item: BaccaratRound | str, position: int) -> str:
    w = item.winner if isinstance(item, BaccaratRound) else item
    if w not in ("player", "banker", "tie"):
        raise InputError(f"round {position}: winner {w!r}, expected 'player', 'banker' or 'tie'")
    return w


def resolve_streak3(
    wager: str, rounds: Iterable[BaccaratRound | str], *, tie_rule: StreakTieRule = DEFAULT_TIE_RULE
) -> StreakResolution:
    """Follow a ``streak3-player`` / ``streak3-banker`` wager through the rounds after it was placed.

    ``rounds`` are dealt rounds or their winners (``"player"``, ``"banker"``, ``"tie"``); rounds
    after the deciding one are not read.  The wager is decided within :data:`STREAK_LENGTH`
    rounds under every tie rule.
    """
    side = STREAK_WAGERS.get(wager)
    if side is None:
        raise InputError(f"wager {wager!r}: expected one of {', '.join(STREAK_WAGERS)}")
    if tie_rule not in TIE_RULES:
        raise InputError(f"wa-streak3-tie {tie_rule!r}: expected one of {', '.join(TIE_RULES)}")
    wins = 0
    seen = 0
    for seen, item in enumerate(rounds, start=1):
        w = _winner(item, seen)
        if w == side:
            wins += 1
            if wins == STREAK_LENGTH:
                return StreakResolution(wager, "win", seen, wins)
        elif w == "tie" and tie_rule == "push":
            return StreakResolution(wager, "push", seen, wins)
        else:
            return StreakResolution(wager, "lose", seen, wins)
    return StreakResolution(wager, "open", seen, wins)


def settle_streak3(
    wager: str,
    rounds: Iterable[BaccaratRound | str],
    stake: Cents,
    pay: Pay,
    *,
    tie_rule: StreakTieRule = DEFAULT_TIE_RULE,
) -> tuple[StreakResolution, Settlement | None]:
    """Resolve the wager and settle it with the paytable's ``pay``; ``None`` while still open."""
    if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
        raise InputError(f"stake {stake!r}: expected a positive amount in cents")
    res = resolve_streak3(wager, rounds, tie_rule=tie_rule)
    if res.result == "open":
        return res, None
    if res.result == "win":
        return res, settle(pay, stake)
    return res, settle(Pay(res.result), stake)
