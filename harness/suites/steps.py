"""The step vocabulary of suite files: every action, its arguments and their types.

A step is a one-key mapping ``{action: arguments}``.  Actions with a single natural argument take a
scalar shorthand (``power: off``, ``wait: 100``, ``reset_key: mega``).  This table is the single
source of truth: the validator checks against it and ``docs/writing-suites.md`` documents it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

WAGER_TYPES = (
    "royal9", "player", "banker", "tie", "dragon7", "panda8", "hit-and-run", "blackjack",
    "streak3-player", "streak3-banker",
)
METERS = ("mega", "major", "minor", "mystery", "hit-and-run")
EVENTS = (
    "card", "misread", "error", "lockout", "no_more_bets", "hit", "payout", "round_end", "reset",
)
TIMED_AFTER = ("first-card", "card", "lockout", "no-more-bets")


@dataclass(frozen=True)
class Arg:
    """One argument: ``kind`` names its check (see :mod:`harness.suites.schema`)."""

    kind: str
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Action:
    args: dict[str, Arg] = field(default_factory=dict)
    #: argument a scalar value stands for (``power: off`` -> ``{"state": "off"}``)
    shorthand: str | None = None
    #: the arguments of which exactly one must be given
    one_of: tuple[str, ...] = ()
    doc: str = ""


def _enum(*choices: str, required: bool = False, default: str | None = None) -> Arg:
    return Arg("enum", required=required, default=default, choices=choices)


ACTIONS: dict[str, Action] = {
    # --- driving the devices -------------------------------------------------------------
    "open_round": Action(doc="open wagering for a new round (dealer's round start)"),
    "wager": Action(
        {
            "seat": Arg("seat", required=True),
            "type": _enum(*WAGER_TYPES, default="royal9"),
            "amount": Arg("amount"),
            "expect": _enum("accepted", "rejected", default="accepted"),
            "reason": Arg("str"),
            "at": Arg("timing"),
        },
        doc="place a wager at a seat; `amount` defaults to the profile's denomination; "
        "`at: {after: first-card, offset_ms: '5'}` times the attempt relative to a dealing event",
    ),
    "wagers": Action(
        {
            "seats": Arg("seats", default="all"),
            "type": _enum(*WAGER_TYPES, default="royal9"),
            "amount": Arg("amount"),
        },
        shorthand="seats",
        doc="place the same wager at several seats (`all` = every seat of the profile); each must be accepted",
    ),
    "remove_wager": Action({"seat": Arg("seat", required=True), "type": _enum(*WAGER_TYPES, default="royal9")}),
    "shoe": Action(
        {"cards": Arg("cards"), "stack": Arg("str")},
        one_of=("cards", "stack"),
        doc="load a scripted sequence (inline cards or a named stack from fixtures/stacks/)",
    ),
    "deal": Action(
        {
            "cards": Arg("cards"),
            "stack": Arg("str"),
            "count": Arg("int"),
            "pace_ms": Arg("decimal"),
            "settle": Arg("bool", default=True),
        },
        doc="deal the loaded (or given) cards; with `settle` (default) wait until the round is settled",
    ),
    "settle": Action(doc="wait until the controller reports the round settled (after `deal: {settle: false}`)"),
    "lockout_button": Action(doc="press the lock-out button"),
    "no_more_bets": Action(doc="the dealer calls no more bets"),
    "reset_key": Action({"meter": _enum(*METERS, required=True)}, shorthand="meter"),
    "power": Action({"state": _enum("off", "on", required=True)}, shorthand="state",
                    doc="switch the power supply that feeds the controller"),
    "comm": Action({"state": _enum("lost", "restored", required=True)}, shorthand="state",
                   doc="break or restore communication between controller and wagering devices"),
    "configure": Action(
        {"set": Arg("map", required=True), "expect": _enum("accepted", "refused", default="accepted"),
         "reason": Arg("str")},
        doc="write controller parameters",
    ),
    "read_meters": Action({"as": Arg("str", required=True)}, shorthand="as", doc="snapshot the meters under a name"),
    "wait": Action({"ms": Arg("decimal", required=True)}, shorthand="ms"),
    "rounds": Action(
        {
            "count": Arg("int", required=True),
            "seed": Arg("int", default=1),
            "seats": Arg("seats", default="all"),
            "type": _enum(*WAGER_TYPES, default="royal9"),
            "pace_ms": Arg("decimal", default=Decimal(1)),
            "base": _enum("auto", "none", "player", "banker", "tie", "mixed", default="auto"),
            "base_amount": Arg("amount"),
        },
        doc="play `count` rounds of random shoes, every listed seat wagering; each round's payouts are "
        "checked against the oracle and the meters against exact contribution arithmetic; `base` is the "
        "base wager placed before a Royal 9 wager (`auto`: a Banker wager where r9-requires-base-wager "
        "holds; `mixed`: Player, Banker, Tie by seat)",
    ),
    "fault": Action({"kind": Arg("str", required=True), "role": _enum("shoe", "sensors", "controller",
                                                                     default="controller")},
                    shorthand="kind", doc="ask an emulator to inject a device fault"),
    # --- expectations (each becomes a measurement) -----------------------------------------
    "expect_outcome": Action(
        {
            "oracle": Arg("bool"),
            "winner": _enum("player", "banker", "tie"),
            "natural": Arg("bool"),
            "dragon7": Arg("bool"),
            "panda8": Arg("bool"),
            "player_total": Arg("int"),
            "banker_total": Arg("int"),
            "dealer_cards": Arg("int"),
            "dealer_bust": Arg("bool"),
        },
        shorthand="oracle",
        doc="the round's outcome as the device reported it",
    ),
    "expect_payout": Action(
        {
            "oracle": Arg("bool"),
            "seat": Arg("seat"),
            "type": _enum(*WAGER_TYPES, default="royal9"),
            "returned": Arg("amount"),
            "category": Arg("str"),
            "none": Arg("bool"),
        },
        shorthand="oracle",
        doc="what the device paid a seat's wager (total returned, stake included)",
    ),
    "expect_meters": Action(
        {
            "since": Arg("str"),
            "delta": Arg("meter-amounts"),
            "equals": Arg("meter-refs"),
            "at_least": Arg("meter-refs"),
            "never_decreased": Arg("bool"),
            "conservation": Arg("bool"),
        },
        doc="meter deltas to the cent, relations to reset/floor, no turning back, residual conservation",
    ),
    "expect_lockout": Action(
        {"locked": Arg("bool", default=True), "within_ms": Arg("decimal")},
        doc="the controller locked out wagering; `within_ms` (default: the profile's limit) bounds the "
        "latency from the first card out of the shoe",
    ),
    "expect_event": Action(
        {"event": _enum(*EVENTS, required=True), "match": Arg("map"), "absent": Arg("bool", default=False)},
        shorthand="event",
    ),
    "expect_identity": Action({"fields": Arg("str-list")}, doc="every 607a.2(b) identity field present"),
    "expect_config": Action({"matches": _enum("profile", default="profile")},
                            doc="configuration read back equals the profile's Rules Submission"),
    "expect_mystery": Action(
        {"within_range": Arg("bool", default=True)},
        doc="the mystery meter is within [reseed, must-hit-by] and never passed must-hit-by",
    ),
}

#: modules that add actions: each exposes ``ACTIONS`` (merged here) and ``do_<action>(runner, step, **args)``
#: functions (bound onto the runner); a module that does not exist is skipped
EXTENSIONS = (
    "harness.suites.actions_royal9",
    "harness.suites.actions_progressive",
    "harness.suites.actions_games",
    "harness.suites.actions_faults",
)


def _load_extensions() -> None:
    import importlib

    for name in EXTENSIONS:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        for action, spec in getattr(mod, "ACTIONS", {}).items():
            if action in ACTIONS:
                raise RuntimeError(f"{name}: action '{action}' is already defined")
            ACTIONS[action] = spec


_load_extensions()


def reference_markdown() -> str:
    """The action reference table of ``docs/writing-suites.md`` (kept in step by a test)."""
    rows = ["| step | arguments | what it does |", "|---|---|---|"]
    for name, spec in ACTIONS.items():
        args = []
        for key, a in spec.args.items():
            kind = "|".join(a.choices) if a.kind == "enum" else a.kind
            flag = " (required)" if a.required else (f" = {a.default}" if a.default is not None else "")
            args.append(f"`{key}`: {kind}{flag}".replace("|", "\\|"))
        short = f" (shorthand: `{name}: <{spec.shorthand}>`)" if spec.shorthand else ""
        rows.append(f"| `{name}` | {'; '.join(args) or '-'} | {spec.doc}{short} |")
    return "\n".join(rows)


if __name__ == "__main__":  # pragma: no cover - `python -m harness.suites.steps` prints the reference
    print(reference_markdown())
