"""Meter rules: exact contributions, limits, hits, resets, corrections, floors, state round trip."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import InputError
from harness.money import rate_ratio
from harness.progressive import (
    FLOORS,
    MYSTERY_CONFIGURATIONS,
    Meter,
    MeterBank,
    MeterConfig,
    MeterError,
    ProgressiveOptions,
    check_configuration,
    check_linked_rates,
    configuration_problems,
    floors_for,
    mystery_configuration,
)
from harness.progressive.meter import grow_to_cap, parse_residual, residual_text


def cfg(name: str = "major", rate: str = "0.5", initial: int = 45_000, reset: int = 45_000,
        limit: int | None = None, display: int | None = None) -> MeterConfig:
    return MeterConfig(name, Decimal(rate), initial, reset, limit, display)


def r9_bank_configs(denomination: int = 5) -> list[MeterConfig]:
    f = FLOORS[denomination]
    return [cfg("mega", "1", f["mega"], f["mega"]), cfg("major", "0.5", f["major"], f["major"]),
            cfg("minor", "0.5", f["minor"], f["minor"])]


def identity_holds(m: Meter) -> bool:
    return m.contributed == m.growth + m.held + m.diverted + Fraction(m.residual)


# -- exact contributions --------------------------------------------------------------------------

def test_rate_ratio_is_exact_power_of_ten() -> None:
    assert rate_ratio(Decimal("0.5")) == (5, 1000)
    assert rate_ratio(Decimal("1.25")) == (125, 10000)
    assert rate_ratio(Decimal("5")) == (5, 100)
    assert rate_ratio(Decimal("100")) == (100, 100)
    assert rate_ratio(Decimal("0.50")) == (5, 1000)
    for bad in ("-1", "100.01", "NaN"):
        with pytest.raises(InputError):
            rate_ratio(Decimal(bad))


def test_fraction_of_a_cent_is_carried_not_dropped() -> None:
    m = Meter(cfg(rate="0.5"))
    m.contribute(100)                         # $1 at 0.5% = 0.5 cent
    assert (m.amount, m.residual) == (45_000, Decimal("0.5"))
    m.contribute(100)                         # another 0.5: one whole cent
    assert (m.amount, m.residual) == (45_001, Decimal("0"))
    m.contribute(333)                         # 1.665 cents
    assert (m.amount, m.residual) == (45_002, Decimal("0.665"))
    assert m.contributed == Fraction(533 * 5, 1000)
    assert identity_holds(m)


def test_whole_cents_go_on_the_meter() -> None:
    m = Meter(cfg("mega", "1", 5_000_000, 5_000_000))
    m.contribute(500)
    assert m.amount == 5_000_005 and m.residual == 0


def test_zero_rate_fixed_jackpot_never_grows() -> None:
    m = Meter(cfg(rate="0"))
    m.contribute(10_000)
    assert m.amount == 45_000 and m.contributed == 0


def test_negative_wager_refused() -> None:
    with pytest.raises(MeterError):
        Meter(cfg()).contribute(-1)


@settings(deadline=None)
@given(rate=st.decimals(min_value=0, max_value=100, places=3),
       wagers=st.lists(st.integers(min_value=0, max_value=1_000_000), max_size=60))
def test_residual_conservation_to_the_cent(rate: Decimal, wagers: list[int]) -> None:
    m = Meter(cfg(rate=str(rate), limit=None))
    for w in wagers:
        m.contribute(w)
        assert 0 <= m.residual < 1
    expected = sum((Fraction(w) * Fraction(rate) / 100 for w in wagers), Fraction(0))
    assert m.contributed == expected
    assert expected == (m.amount - 45_000) + Fraction(m.residual)


@settings(deadline=None)
@given(wagers=st.lists(st.tuples(st.integers(min_value=0, max_value=500_000),
                                 st.sampled_from(["contribute", "hit-table", "hit-attendant", "key"])),
                       max_size=80),
       rate=st.sampled_from(["0.5", "1", "1.25", "5", "0.333"]))
def test_never_decreases_without_a_hit_and_identity_always_holds(wagers: list[tuple[int, str]],
                                                                 rate: str) -> None:
    m = Meter(cfg(rate=rate, limit=60_000, display=99_999))
    for amount, action in wagers:
        before = m.amount
        if action == "contribute":
            m.contribute(amount)
            assert m.amount >= before
            assert m.amount <= 60_000
        elif action.startswith("hit") and m.pending is None:
            hit = m.hit(paid_by="table" if action == "hit-table" else "attendant")
            assert hit.paid == before
        elif action == "key" and m.pending is not None:
            m.reset_key()
            assert m.amount >= 45_000
        assert m.amount >= 45_000
        assert identity_holds(m)


# -- limits and display capacity -----------------------------------------------------------------

def test_amount_stops_at_payout_limit_and_excess_is_diverted() -> None:
    m = Meter(cfg(rate="100", limit=45_100))
    m.contribute(60)
    m.contribute(60)                          # would be 45_120
    assert m.amount == 45_100 and m.diverted == 20
    m.contribute(7)
    assert m.amount == 45_100 and m.diverted == 27
    assert identity_holds(m)


def test_display_capacity_is_the_limit_when_none_is_set_and_never_wraps() -> None:
    m = Meter(cfg(rate="100", display=99_999))
    m.contribute(60_000)
    assert m.amount == 99_999 and m.diverted == 45_000 + 60_000 - 99_999


@pytest.mark.parametrize(("amount", "whole", "cap", "expected"), [
    (45_000, 100, None, (45_100, 0)),         # no cap: grows
    (45_000, 100, 45_100, (45_100, 0)),       # exactly to the cap: nothing diverted
    (45_000, 101, 45_100, (45_100, 1)),       # one cent over: that cent diverted
    (45_000, 99, 45_100, (45_099, 0)),        # one cent under
    (46_000, 10, 45_100, (46_000, 10)),       # above a lowered cap: stays, all diverted
    (45_100, 0, 45_100, (45_100, 0)),
])
def test_grow_to_cap_stops_at_the_cap_and_diverts_the_excess(
        amount: int, whole: int, cap: int | None, expected: tuple[int, int]) -> None:
    assert grow_to_cap(amount, whole, cap) == expected


def test_payout_limit_must_exceed_current_amount() -> None:
    m = Meter(cfg(rate="100"))
    m.contribute(1_000)                       # 46_000
    with pytest.raises(InputError, match=r"461a\.12\(k\)\(1\)"):
        m.set_payout_limit(46_000)            # equal is not greater
    m.set_payout_limit(46_001)
    assert m.config.payout_limit == 46_001
    m2 = Meter(cfg(display=50_000))
    with pytest.raises(InputError, match=r"461a\.12\(j\)"):
        m2.set_payout_limit(50_001)


def test_payout_limit_not_above_reset_refused() -> None:
    m = Meter(cfg(rate="100", initial=40_000, reset=45_000))
    with pytest.raises(InputError, match="reset amount"):
        m.set_payout_limit(45_000)          # above the current $400, not above the reset $450
    m.set_payout_limit(45_001)
    m.contribute(1_000)
    m.hit()
    assert m.amount == 45_000


# -- hits, resets, corrections -------------------------------------------------------------------

def test_table_paid_hit_resets_at_once_and_residual_is_carried() -> None:
    m = Meter(cfg(rate="0.5"))
    m.contribute(100_150)                     # 500.75 cents
    assert (m.amount, m.residual) == (45_500, Decimal("0.75"))
    hit = m.hit()
    assert (hit.paid, hit.meter_amount, hit.pending) == (45_500, 45_500, False)
    assert (m.amount, m.residual) == (45_000, Decimal("0.75"))   # meter-residual-on-reset: carried
    assert m.paid == 45_500 and identity_holds(m)


def test_attendant_hit_pends_until_reset_key_and_holds_contributions() -> None:
    m = Meter(cfg(rate="1"))
    m.contribute(10_000)                      # 45_100
    hit = m.hit(paid_by="attendant")
    assert hit.pending and m.amount == 45_100
    m.contribute(5_000)                       # 50 cents held, amount frozen
    assert m.amount == 45_100 and m.held == 50
    with pytest.raises(MeterError, match="reset key"):
        m.hit()
    assert identity_holds(m)
    m.reset_key()
    assert m.amount == 45_050 and m.held == 0 and m.pending is None
    with pytest.raises(MeterError, match="no hit"):
        m.reset_key()
    assert identity_holds(m)


def test_attendant_hit_resets_immediately_when_interpretation_says_so() -> None:
    m = Meter(cfg(), ProgressiveOptions(attendant_reset="immediate"))
    hit = m.hit(paid_by="attendant")
    assert not hit.pending and m.amount == 45_000


def test_share_is_rounded_down_then_meter_resets() -> None:
    m = Meter(cfg(rate="100"))
    m.contribute(1)                           # 45_001
    hit = m.hit(Decimal(50))
    assert hit.paid == 22_500 and hit.meter_amount == 45_001 and m.amount == 45_000
    with pytest.raises(MeterError):
        m.hit(Decimal(0))


def test_correction_needs_a_reason() -> None:
    m = Meter(cfg(rate="100"))
    m.contribute(500)
    with pytest.raises(MeterError, match=r"461a\.12\(h\)\(3\)"):
        m.correct(45_000, "  ")
    m.correct(45_100, "display board fault, ticket 42")
    assert m.amount == 45_100 and identity_holds(m)


def test_options_from_overrides() -> None:
    opts = ProgressiveOptions.from_overrides({"r9-envy-requires-wager": True,
                                              "mystery-award-amount": "trigger-amount",
                                              "meter-reset-timing": "at-hit",
                                              "meter-residual-on-reset": "discard"})
    assert opts == ProgressiveOptions("immediate", "trigger-amount", "discard")
    assert ProgressiveOptions() == ProgressiveOptions("on-reset-key", "meter-at-trigger", "carry")
    with pytest.raises(InputError, match="not one of"):
        ProgressiveOptions.from_overrides({"meter-residual-on-reset": "drop"})
    with pytest.raises(InputError, match="not one of"):
        ProgressiveOptions.from_overrides({"mystery-award-amount": "exact"})


# -- state ---------------------------------------------------------------------------------------

def test_residual_text_round_trip_and_refusals() -> None:
    assert residual_text(665, 1000) == "0.665" and residual_text(0, 1000) == "0"
    assert parse_residual("0.665", 1000, "x") == 665
    for bad in ("1", "-0.1", "0.0001", "abc"):
        with pytest.raises(InputError):
            parse_residual(bad, 1000, "x")


def _only_ints_and_strings(value: object) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _only_ints_and_strings(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_only_ints_and_strings(v) for v in value)
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


@settings(deadline=None)
@given(wagers=st.lists(st.integers(min_value=0, max_value=100_000), max_size=30),
       pend=st.booleans())
def test_state_round_trip(wagers: list[int], pend: bool) -> None:
    bank = MeterBank([Meter(c) for c in r9_bank_configs()])
    for w in wagers:
        bank.contribute(w)
    if pend:
        bank.hit("major", paid_by="attendant")
        bank.contribute(12_345)
    state = bank.to_state()
    assert _only_ints_and_strings(state)
    again = MeterBank.from_state(json.loads(json.dumps(state)))
    assert again.to_state() == state
    for w in (777, 1_001):
        assert again.contribute(w) == bank.contribute(w)
    assert again.to_state() == bank.to_state()


def test_a_rate_written_keeps_a_residual_the_new_rate_cannot_count() -> None:
    # 1.25 % of $0.10 is 0.125 of a cent; the meter rebuilt at 2 % (a configuration write) keeps that residual
    # exact (461a.12(h): never turned back), in the finer unit it was counted in
    meter = Meter(cfg(rate="1.25"))
    meter.contribute(10)
    assert meter.residual == Decimal("0.125")
    state = dict(meter.to_state(), config=cfg(rate="2").to_dict())
    again = Meter.from_state(json.loads(json.dumps(state)))
    assert (again.amount, again.residual, again.config.rate) == (meter.amount, Decimal("0.125"), Decimal(2))
    again.contribute(50)  # 2 % of $0.50: one whole cent, the residual untouched
    assert (again.amount, again.residual) == (meter.amount + 1, Decimal("0.125"))


def test_bad_state_refused() -> None:
    state = Meter(cfg()).to_state()
    for key, value in (("amount", "12"), ("residual", "2"), ("contributed", "0.0001")):
        broken = dict(state, **{key: value})
        with pytest.raises(InputError):
            Meter.from_state(broken)
    with pytest.raises(InputError, match="unknown kind"):
        MeterBank.from_state({"meters": [dict(state, kind="wheel")]})


# -- bank ----------------------------------------------------------------------------------------

def test_bank_feeds_each_meter_at_its_own_rate() -> None:
    bank = MeterBank([Meter(c) for c in r9_bank_configs()])
    bank.contribute(500)
    assert bank.amounts() == {"mega": 5_000_005, "major": 45_002, "minor": 45_002}
    assert bank.residuals() == {"mega": "0", "major": "0.5", "minor": "0.5"}
    with pytest.raises(InputError, match="twice"):
        MeterBank([Meter(cfg()), Meter(cfg())])
    with pytest.raises(MeterError, match="no meter named"):
        bank.hit("grand")


# -- floors and configuration --------------------------------------------------------------------

def test_floors_match_the_regulation_text() -> None:
    assert floors_for(5) == {"mega": 5_000_000, "major": 45_000, "minor": 45_000}
    assert floors_for(1) == {"mega": 1_000_000, "major": 9_000, "minor": 9_000}
    with pytest.raises(InputError, match=r"\$3"):
        floors_for(3)


def test_constant_tables_equal_the_catalogue() -> None:
    from harness.regulations.catalogue import load_catalogue

    cat = load_catalogue()  # the catalogue ships with the package: it must load
    from harness.money import parse_amount, parse_rate
    for denomination, clause in ((5, "pa-midi-r9-floors-5"), (1, "pa-midi-r9-floors-1")):
        floors = cat.clause(clause).params["floors"]
        assert {k: parse_amount(v) for k, v in floors.items()} == FLOORS[denomination]
    table = cat.clause("pa-midi-r9-mystery").params["configurations"]
    for number, (reseed, mhb, rate) in MYSTERY_CONFIGURATIONS.items():
        row = table.get(number, table.get(str(number)))
        assert (parse_amount(row["reseed"]), parse_amount(row["must_hit_by"]), parse_rate(row["rate"])) == (
            reseed, mhb, rate)


def test_mystery_table() -> None:
    assert mystery_configuration(1) == (25_000, 100_000, Decimal(5))
    assert mystery_configuration(2) == (10_000, 50_000, Decimal(5))
    assert mystery_configuration(3) == (10_000, 20_000, Decimal(2))
    with pytest.raises(InputError, match="configurations 1, 2 and 3"):
        mystery_configuration(4)


def test_good_configuration_accepted() -> None:
    check_configuration(r9_bank_configs(5), 5)
    check_configuration(r9_bank_configs(1), 1)


@pytest.mark.parametrize(("change", "message"), [
    ({"name": "major", "reset": 40_000},
     "major reset $400.00 is below the $450.00 floor for the $5 Royal 9 (pa-midi-r9-floors-5)"),
    ({"name": "mega", "initial": 4_999_999},
     "mega initial $49,999.99 is below the $50,000.00 floor for the $5 Royal 9 (pa-midi-r9-floors-5)"),
    ({"name": "minor", "payout_limit": 45_000},
     "minor payout limit $450.00 must be greater than the initial amount $450.00 (461a.12(k)(1))"),
    ({"name": "minor", "payout_limit": 2_000_000, "display_capacity": 999_999},
     "minor payout limit $20,000.00 exceeds the display capacity $9,999.99 (461a.12(j))"),
    ({"name": "minor", "display_capacity": 44_999},
     "minor initial amount $450.00 exceeds the display capacity $449.99 (461a.12(j))"),
    ({"name": "minor", "rate": Decimal("101")}, "minor rate 101%: must be between 0% and 100%"),
])
def test_bad_configuration_refused_with_clause(change: dict[str, object], message: str) -> None:
    configs = []
    for c in r9_bank_configs(5):
        if c.name == change["name"]:
            fields = {**c.to_dict(), "rate": c.rate, **change}
            configs.append(MeterConfig(**fields))  # type: ignore[arg-type]
        else:
            configs.append(c)
    assert message in configuration_problems(configs, 5)
    with pytest.raises(InputError, match=message[:20].replace("$", r"\$")):
        check_configuration(configs, 5)


def test_missing_meter_and_duplicates_refused() -> None:
    problems = configuration_problems([*r9_bank_configs(1)[:2], r9_bank_configs(1)[0]], 1)
    assert "meter 'mega' is declared twice" in problems
    assert any("needs a minor meter" in p and "pa-midi-r9-floors-1" in p for p in problems)


def test_floors_not_applied_without_denomination() -> None:
    check_configuration([cfg("hit-and-run", "1", 100, 100)], None, game="Hit and Run")


def test_linked_tables_must_share_rates() -> None:
    check_linked_rates({"T1": {"mega": Decimal("1"), "major": Decimal("0.5")},
                        "T2": {"mega": Decimal("1.0"), "major": Decimal("0.50")}})
    with pytest.raises(InputError, match=r"T2 major rate 0.4% differs .* \(461a\.12\(c\)\(2\)\)"):
        check_linked_rates({"T1": {"mega": Decimal("1"), "major": Decimal("0.5")},
                            "T2": {"mega": Decimal("1"), "major": Decimal("0.4")}})
    with pytest.raises(InputError, match="same meters"):
        check_linked_rates({"T1": {"mega": Decimal("1")}, "T2": {"major": Decimal("1")}})
