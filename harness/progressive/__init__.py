"""Progressive meter model: exact, pure (no I/O), and what the emulated controller runs.

Public API (amounts are integer cents, rates ``Decimal`` percent, residuals exact ``Decimal``
fractions of a cent):

* :class:`MeterConfig` (name, rate, initial, reset, payout_limit, display_capacity) and
  :class:`Meter`: ``contribute(wager)``, ``hit(share, paid_by)`` -> :class:`Hit`,
  ``reset_key()``, ``correct(amount, reason)``, ``set_payout_limit(limit)``, ``amount``,
  ``residual``, ``held``, ``diverted``, ``pending``, ``to_state()`` / ``Meter.from_state()``.
  Identity at all times: ``contributed == growth + held + diverted + residual``.
* :class:`MeterBank`: the meters one wager type feeds (mega/major/minor, a Hit and Run meter,
  a mystery); ``contribute(wager)`` returns mystery hits; ``hit``, ``reset_key``, ``amounts()``,
  ``residuals()``, ``to_state()`` / ``MeterBank.from_state(state, options, rng)``.
* :class:`MysteryConfig` (``MysteryConfig.regulation(1..3)``) and :class:`MysteryMeter`
  (Royal 9 (h)): hidden ``trigger`` drawn with an injected RNG, kept in the state.
* :mod:`~harness.progressive.floors`: :func:`floors_for`, :func:`mystery_configuration`,
  :func:`check_configuration` / :func:`configuration_problems`, :func:`check_payout_limit`,
  :func:`check_linked_rates`; :class:`ProgressiveOptions` and :data:`INTERPRETATIONS`.
* :mod:`~harness.progressive.invariants`: :class:`MeterAudit` over :class:`Contribution`,
  :class:`Reading`, :class:`JackpotHit`, :class:`Reset`, :class:`Correction` observations ->
  :class:`Violation`; :func:`chi_square`, :func:`trigger_chi_square`,
  :func:`hit_frequency_chi_square`.

Refused configurations raise :class:`harness.errors.InputError` naming meter, amount and clause;
operations a meter's state does not allow raise :class:`MeterError`.

A sketch::

    bank = MeterBank([Meter(MeterConfig("mega", Decimal("1"), 5_000_000, 5_000_000)),
                      MysteryMeter(MysteryConfig.regulation(1), rng=7)])
    hits = bank.contribute(500)          # a $5 qualifying wager
    won = bank.hit("mega", paid_by="attendant")   # pending until bank.reset_key("mega")
    saved = bank.to_state()              # JSON-friendly: ints and strings only
"""

from harness.progressive.floors import (
    FLOORS,
    INTERPRETATIONS,
    MYSTERY_CONFIGURATIONS,
    ProgressiveOptions,
    check_configuration,
    check_linked_rates,
    check_payout_limit,
    configuration_problems,
    floors_for,
    mystery_configuration,
)
from harness.progressive.invariants import (
    ChiSquare,
    Contribution,
    Correction,
    JackpotHit,
    MeterAudit,
    MeterSpec,
    Reading,
    Reset,
    Violation,
    chi_square,
    chi_square_sf,
    hit_frequency_chi_square,
    trigger_chi_square,
)
from harness.progressive.meter import Hit, Meter, MeterBank, MeterConfig, MeterError, meter_from_state
from harness.progressive.mystery import MysteryConfig, MysteryMeter, UniformCents

__all__ = [
    "FLOORS",
    "INTERPRETATIONS",
    "MYSTERY_CONFIGURATIONS",
    "ChiSquare",
    "Contribution",
    "Correction",
    "Hit",
    "JackpotHit",
    "Meter",
    "MeterAudit",
    "MeterBank",
    "MeterConfig",
    "MeterError",
    "MeterSpec",
    "MysteryConfig",
    "MysteryMeter",
    "ProgressiveOptions",
    "Reading",
    "Reset",
    "UniformCents",
    "Violation",
    "check_configuration",
    "check_linked_rates",
    "check_payout_limit",
    "chi_square",
    "chi_square_sf",
    "configuration_problems",
    "floors_for",
    "hit_frequency_chi_square",
    "meter_from_state",
    "mystery_configuration",
    "trigger_chi_square",
]
