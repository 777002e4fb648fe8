"""Named interpretations: where the regulation text leaves a question open, the harness does not
guess silently.  Each open question has a kebab-case id, a default with a reason, and a device
profile's Rules Submission may override it (``interpretations: {r9-envy-requires-wager: false}``).

The ids and defaults are data in the regulation catalogue (``harness.regulations.catalogue``);
game code takes them as one typed, frozen :class:`Interpretations` object so that a misspelt id
is refused (:meth:`Interpretations.from_overrides`) instead of silently restoring a default.

Royal 9 (58 Pa. Code 629a Royal 9 progressive, (e)-(g)):

* ``r9-envy-for-mega-winner`` (false): the mega winner does not also collect mega envy; (e)(9)
  speaks of "any player position's" combination, i.e. of the *other* seats.
* ``r9-envy-requires-wager`` (true): envy is paid only to seats with a Royal 9 wager; (e)(9)'s
  "does not matter if the player position is occupied or if there is a wager" speaks of the seat
  whose combination hit, not of who is paid.
* ``r9-personal-combo-suited`` (true): a personal king-9 combination is suit-specific (K♠ 9♥);
  (e)(5) requires each position's combination to be *unique*, which only suits make possible.
* ``r9-one-award-per-wager`` (true): a wager is paid the single highest award it qualifies for (the
  lines overlap: a suited Royal 9 is also a Royal 9).
* ``r9-order-insensitive`` (true): "a face card and a nine" in either order.
* ``r9-mega-excludes-major-minor`` (true): when a seat's combination is on *both* hands that is
  the mega hand (e)(6), not also a major (e)(7) and a minor (e)(8); the rows describe three
  distinct hands, and one hand cannot hit three meters.
* ``r9-rank-by-amount`` (false): the "highest" award is the paytable row listed first ((f)/(g)
  list the meter lines, then the fixed lines from the largest; not an order of rarity: per seat the
  minor and the major are each about ten times likelier than a suited Royal 9 tie); a minor meter
  below a fixed line (minor $450 v. suited tie $1,500) still wins the minor, so the award is
  decidable from the cards alone and the meter that is hit is the one that resets.  True ranks by
  the amount at the moment of the hit.

Payouts (how a paytable's "to 1", "for 1" and fixed amounts are paid):

* ``award-returns-stake`` (true): a fixed or meter award is the win; the stake is handed back too.

Blackjack Hit and Run (58 Pa. Code 633a.13(l)(1) as amended by 42 Pa.B. 6761):

* ``hr-bust-counts`` (true): the paytable says "Dealer has: eight or more cards ..." and nothing
  about busting; the wager is on the number of cards in the dealer's hand, so a busted hand counts
  by its cards (the published card-count calculator check is itself "bust by card count").
* ``hr-dealer-completes`` (true): the dealer completes the hand for the Hit and Run wager even when
  no player hand is left standing; otherwise the card count would depend on the players' play.
  False: the dealer's cards as given are taken as the final hand when they end early.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from harness.errors import InputError

#: the fall-back defaults, used until (and checked against) the regulation catalogue's data
DEFAULTS: dict[str, bool] = {
    "r9-envy-for-mega-winner": False,
    "r9-envy-requires-wager": True,
    "r9-personal-combo-suited": True,
    "r9-one-award-per-wager": True,
    "r9-order-insensitive": True,
    "r9-mega-excludes-major-minor": True,
    "r9-rank-by-amount": False,
    "award-returns-stake": True,
    "hr-bust-counts": True,
    "hr-dealer-completes": True,
}


def _field(interp_id: str) -> str:
    return interp_id.replace("-", "_")


def catalogue() -> Any | None:
    """The regulation catalogue, or ``None`` while its module or data is not installed.

    A catalogue that is present but invalid raises its own :class:`InputError` (file:line:col).
    """
    try:
        from harness.regulations.catalogue import load_catalogue
    except ModuleNotFoundError:
        return None
    try:
        return load_catalogue()
    except FileNotFoundError:
        return None


def catalogue_defaults() -> dict[str, object]:
    """Every interpretation id -> default: the catalogue's, then :data:`DEFAULTS` for ids it
    does not (yet) list."""
    merged: dict[str, object] = dict(DEFAULTS)
    cat = catalogue()
    if cat is not None:
        merged.update(cat.defaults())
    return merged


@dataclass(frozen=True, slots=True)
class Interpretations:
    """The interpretations in force for one table (see the module docstring for each id)."""

    r9_envy_for_mega_winner: bool = DEFAULTS["r9-envy-for-mega-winner"]
    r9_envy_requires_wager: bool = DEFAULTS["r9-envy-requires-wager"]
    r9_personal_combo_suited: bool = DEFAULTS["r9-personal-combo-suited"]
    r9_one_award_per_wager: bool = DEFAULTS["r9-one-award-per-wager"]
    r9_order_insensitive: bool = DEFAULTS["r9-order-insensitive"]
    r9_mega_excludes_major_minor: bool = DEFAULTS["r9-mega-excludes-major-minor"]
    r9_rank_by_amount: bool = DEFAULTS["r9-rank-by-amount"]
    award_returns_stake: bool = DEFAULTS["award-returns-stake"]
    hr_bust_counts: bool = DEFAULTS["hr-bust-counts"]
    hr_dealer_completes: bool = DEFAULTS["hr-dealer-completes"]

    @classmethod
    def ids(cls) -> tuple[str, ...]:
        return tuple(DEFAULTS)

    #: catalogue interpretations this object does not model (read by other layers), as pairs
    others: tuple[tuple[str, object], ...] = ()

    @classmethod
    def defaults(cls) -> Interpretations:
        """The defaults, taken from the catalogue when it is installed."""
        return cls.from_overrides({})

    @classmethod
    def from_overrides(cls, overrides: Mapping[str, object] | None = None) -> Interpretations:
        """Defaults with a profile's overrides applied.

        An id neither modelled here nor listed in the catalogue is refused, as is a value outside
        the catalogue's choices (a typo must not silently restore a default).
        """
        values = catalogue_defaults()
        cat = catalogue()
        for key, value in (overrides or {}).items():
            if key not in values:
                known = ", ".join(sorted(values))
                raise InputError(f"interpretation {key!r}: unknown id (known: {known})")
            if key in DEFAULTS and not isinstance(value, bool):
                raise InputError(f"interpretation {key!r}: expected true or false, got {value!r}")
            if cat is not None and key not in DEFAULTS:
                choices = cat.interpretation(key).choices
                if choices and value not in choices:
                    raise InputError(f"interpretation {key!r}: {value!r} is not one of {list(choices)}")
            values[key] = value
        modelled = {_field(k): bool(values[k]) for k in DEFAULTS}
        others = tuple((k, v) for k, v in values.items() if k not in DEFAULTS)
        return cls(**modelled, others=others)

    def as_dict(self) -> dict[str, object]:
        """``{id: value}`` in catalogue notation (kebab-case ids)."""
        out: dict[str, object] = {
            f.name.replace("_", "-"): getattr(self, f.name) for f in fields(self) if f.name != "others"
        }
        out.update(self.others)
        return out


DEFAULT = Interpretations()
