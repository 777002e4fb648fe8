"""Checks of a case's steps taken together: what no single step can know.

A case whose steps are each well formed can still be one that can never pass, or one that passes
checking nothing.  These are refused at validation, each at the step that is wrong:

* an expectation naming a meter snapshot (``since: before``) that no earlier step of the case
  takes (``read_meters: {as: before}``; ``open_round`` and the steps that play rounds take
  ``round-start``): at the bench it could only end in a rig error;
* ``expect_outcome`` on literal cards (``deal: {cards: "QH 4S 9D 3C"}``) stating a winner, a total
  or a flag that those cards cannot give: the baccarat oracle resolves the cards here, so the case
  would fail a compliant device;
* ``expect_outcome`` that states nothing (``expect_outcome: {}``): it would pass whatever the round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.errors import InputError
from harness.games.baccarat import deal_round
from harness.schema import suggest
from harness.suites.load.model import Step

#: the snapshot ``open_round`` takes, and the steps that open rounds themselves
ROUND_START = "round-start"
ROUND_OPENERS = ("open_round", "rounds", "single_deal_rounds", "mystery_play")
#: what ``expect_outcome`` can state about a baccarat round, as the oracle names it
OUTCOME_FIELDS = ("winner", "natural", "dragon7", "panda8", "player_total", "banker_total")
#: steps after which the literal cards of the last deal no longer describe the round
_NEW_ROUND = ("open_round", "shoe", "rounds", "single_deal_rounds", "mystery_play", "end_round")


def _error(step: Step, message: str) -> InputError:
    return InputError(f"{step.action}: {message}", path=step.path, line=step.line, col=step.col)


def case_problems(steps: Sequence[Step], game: str) -> list[InputError]:
    """Every problem of this kind in one case's steps (in step order)."""
    problems: list[InputError] = []
    taken: dict[str, int] = {}
    dealt: tuple[Step, Any] | None = None
    for step in steps:
        since = step.args.get("since")
        if isinstance(since, str) and since not in taken:
            known = ", ".join(sorted(taken)) or "none"
            hint = suggest(since, taken)
            how = ("open_round takes it" if since == ROUND_START else
                   f"read_meters: {{as: {since}}} takes it")
            problems.append(_error(step, f"since: no snapshot '{since}' is taken earlier in this case{hint} "
                                         f"({how}; taken before this step: {known})"))
        if step.action in ROUND_OPENERS:
            taken.setdefault(ROUND_START, step.line)
        if step.action == "read_meters" and isinstance(step.args.get("as"), str):
            taken.setdefault(step.args["as"], step.line)
        if step.action in _NEW_ROUND or (step.action == "deal" and "cards" not in step.args):
            dealt = None
        if step.action == "deal" and "cards" in step.args and step.args.get("count") is None and game == "baccarat":
            dealt = (step, step.args["cards"])
        if step.action == "expect_outcome":
            problems.extend(_outcome_problems(step, dealt))
    return problems


def _outcome_problems(step: Step, dealt: tuple[Step, Any] | None) -> list[InputError]:
    stated = {k: v for k, v in step.args.items() if k != "oracle" and v is not None}
    if not stated and not step.args.get("oracle"):
        return [_error(step, "states nothing, so it cannot fail: give oracle: true (the cards the shoe "
                             "reported and the cards the round used) or what the outcome must be (winner, "
                             "player_total, banker_total, natural, dragon7, panda8)")]
    if dealt is None:
        return []
    deal_step, cards = dealt
    try:
        rnd = deal_round(cards)
    except InputError:
        return []  # too few cards: the deal step reports it
    actual = {k: getattr(rnd, k) for k in OUTCOME_FIELDS}
    out = []
    for key, value in stated.items():
        if key in actual and actual[key] != value:
            shown = " ".join(c.code for c in cards[: rnd.cards_used])
            out.append(_error(step, f"{key}: {_word(value)} contradicts the cards dealt at line {deal_step.line} "
                                    f"({shown}): they give {key} {_word(actual[key])} (Player "
                                    f"{rnd.player_total}, Banker {rnd.banker_total}, {rnd.winner} wins); the "
                                    "case would fail a compliant device"))
    return out


def _word(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)
