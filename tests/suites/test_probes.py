"""The pure parts of the covering probes: which bounds the meter-bounds step writes, how a refusal's
trace is read, how a host-stamped round decides, which awards the payout meters owe (the cases
themselves are proven by the kill matrix, tests/killmatrix)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.devices.link import DeviceEvent
from harness.devices.roles import MeterReading
from harness.profiles import load_profile
from harness.suites.run.context import LockTiming, RoundLock
from harness.suites.run.timing import decided
from harness.suites.steps.accounts import awards, owed, residual_problems
from harness.suites.steps.bounds import _floor_probes, _limit_probes
from harness.suites.steps.probes import trace

ROOT = Path(__file__).resolve().parents[2]
PROFILE = load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")


def _reading(meters: dict[str, int], residual: dict[str, str] | None = None, paid: tuple[int, int, int] = (0, 0, 0),
             ) -> MeterReading:
    return MeterReading(meters, {k: Decimal(v) for k, v in (residual or {}).items()}, *paid)


def _runner(interp: dict[str, Any] | None = None, **extra: Any) -> Any:
    values = {"meter-residual-on-reset": "carry", **(interp or {})}
    return SimpleNamespace(profile=PROFILE, rates_written={}, hits_seen=[],
                           interpretation=values.get, **extra)


def _event(name: str, **payload: Any) -> DeviceEvent:
    return DeviceEvent(name, payload, 0, 0)


def test_limit_probes_are_the_bounds_and_one_cent_either_side() -> None:
    major = PROFILE.rules.meters["major"]  # limit $10,000, display $99,999.99, reset $450
    full = {"initial": major.initial, "reset": major.reset, "payout_limit": 1_000_000, "display_capacity": 9_999_999}
    probes = {p.label: (p.write, p.expect) for p in _limit_probes(major, 45_123, ("payout_limit", "display_capacity"),
                                                                  full)}
    assert probes["payout_limit = meter - $0.01"] == ({"payout_limit": 45_122}, "refused")
    assert probes["payout_limit = meter"] == ({"payout_limit": 45_123}, "refused")
    assert probes["payout_limit = meter + $0.01"] == ({"payout_limit": 45_124}, "accepted")
    assert probes["payout_limit = display_capacity"] == ({"payout_limit": 9_999_999}, "accepted")
    assert probes["payout_limit = display_capacity + $0.01"] == ({"payout_limit": 10_000_000}, "refused")
    assert probes["display_capacity = payout_limit - $0.01"] == ({"display_capacity": 999_999}, "refused")
    assert probes["display_capacity = payout_limit"] == ({"display_capacity": 1_000_000}, "accepted")
    whole = probes["the whole meter with payout_limit = display_capacity + $0.01"]
    assert whole == ({**full, "payout_limit": 10_000_000}, "refused")
    # with a fresh meter below its initial amount, the payout limit's bound is the initial amount
    low = _limit_probes(major, 40_000, ("payout_limit",), full)
    assert low[0].label == "payout_limit = initial - $0.01" and low[0].write == {"payout_limit": 44_999}
    # interpretation meter-payout-limit-check current-only: the bound is the meter; a limit above it but not
    # above the initial amount may be taken or refused, so it is not asked for
    only = {p.label: (p.write, p.expect) for p in _limit_probes(major, 40_000, ("payout_limit",), full, "current-only")}
    assert only["payout_limit = meter"] == ({"payout_limit": 40_000}, "refused")
    assert only["payout_limit = meter - $0.01"] == ({"payout_limit": 39_999}, "refused")
    assert "payout_limit = meter + $0.01" not in only
    # above the initial and reset amounts both readings agree
    same = _limit_probes(major, 45_123, ("payout_limit",), full, "current-only")
    assert [(p.label, p.expect) for p in same] == [(p.label, p.expect) for p in _limit_probes(major, 45_123,
                                                                                               ("payout_limit",), full)]


def test_floor_probes_never_ask_a_reset_above_the_meter() -> None:
    minor = PROFILE.rules.meters["minor"]  # floor $450 on the $5 table
    full = {"initial": 45_000, "reset": 45_000}
    at_floor = {p.label: (p.write, p.expect) for p in _floor_probes(_runner(), "minor", minor, 45_000,
                                                                    ("initial", "reset"), full)}
    assert at_floor["reset = floor - $0.01"] == ({"reset": 44_999}, "refused")
    assert at_floor["reset = floor"] == ({"reset": 45_000}, "accepted")
    assert "reset = floor + $0.01" not in at_floor  # above what the meter shows: a controller may refuse it
    assert at_floor["initial = floor + $0.01"] == ({"initial": 45_001}, "accepted")
    assert at_floor["initial and reset = floor - $0.01"] == ({"initial": 44_999, "reset": 44_999}, "refused")
    played = {p.label for p in _floor_probes(_runner(), "minor", minor, 45_017, ("reset",), full)}
    assert "reset = floor + $0.01" in played and not any(label.startswith("initial") for label in played)


def test_trace_names_every_meter_fraction_and_payout_meter_that_moved() -> None:
    # payout meters: cumulative, paid by table, paid by attendant
    before = _reading({"mega": 5_000_006, "major": 45_002}, {"mega": "0.25"}, (10, 10, 0))
    assert trace(before, before) == []
    after = _reading({"mega": 5_000_012, "major": 45_002}, {"mega": "0.5"}, (12, 12, 0))
    assert trace(before, after) == ["mega $50,000.06 -> $50,000.12", "mega residual 0.25 -> 0.5 c",
                                    "cumulative paid $0.10 -> $0.12", "paid by table $0.10 -> $0.12"]


def test_a_host_stamped_round_decides_only_beyond_the_jitter() -> None:
    limit, jitter = Decimal("1.0"), Decimal("0.4")
    assert decided(Decimal("0.5"), limit, jitter, by_counter=False)
    assert not decided(Decimal("0.8"), limit, jitter, by_counter=False)
    assert not decided(Decimal("1.3"), limit, jitter, by_counter=False)
    assert decided(Decimal("1.5"), limit, jitter, by_counter=False)
    assert decided(Decimal("0.99"), limit, jitter, by_counter=True)
    assert RoundLock(3, None).ms is None  # a round the controller never locked out


def test_a_counter_that_measured_the_line_before_and_nothing_now_is_a_round_without_lock_out() -> None:
    host = Decimal("0.4")
    unwired = LockTiming(host, None, counter_armed=True, cause="card", before_card=False)
    assert not unwired.line_dead and RoundLock(1, unwired).ms == host  # a bench wired wrong: host stamps
    dead = LockTiming(host, None, counter_armed=True, cause="card", before_card=False, counter_seen=True)
    assert dead.line_dead and RoundLock(2, dead).ms is None  # section 9: the line did not edge
    measured = LockTiming(host, Decimal("0.3"), counter_armed=True, cause="card", before_card=False, counter_seen=True)
    assert not measured.line_dead and RoundLock(3, measured).ms == Decimal("0.3")


def test_awards_owed_at_the_key_are_the_hits_since_the_meter_last_reset() -> None:
    runner = _runner()
    runner.hits_seen = [_event("hit", meter="minor", amount=50_000), _event("reset", meter="minor", amount=45_000),
                        _event("hit", meter="minor", amount=46_000), _event("hit", meter="mega", amount=5_000_100),
                        _event("hit", meter=None, amount=2_500)]
    assert owed(runner, "minor", len(runner.hits_seen)) == 46_000
    assert owed(runner, "minor", 1) == 50_000
    assert owed(runner, "mega", len(runner.hits_seen)) == 5_000_100
    # a meter jackpot is the attendant's; a fixed line (no meter) is no progressive payout
    assert awards(runner, runner.hits_seen) == (0, 50_000 + 46_000 + 5_000_100)


def test_a_reset_keeps_the_fraction_of_a_cent_the_wagers_left() -> None:
    start = _reading({"mega": 5_000_000}, {"mega": "0.25"})
    ok = _reading({"mega": 5_000_000}, {"mega": "0.5"})  # one $5 wager at 1.25%: 6.25 c, 0.25 + 0.25 carried
    dropped = _reading({"mega": 5_000_000}, {"mega": "0"})
    assert residual_problems(_runner(), start, ok, 500, ["mega"], "round 1") == []
    assert residual_problems(_runner(), start, dropped, 500, ["mega"], "round 1") == [
        "round 1: mega carries 0 c after its reset, the wagers left 0.50 c"]
    discard = _runner({"meter-residual-on-reset": "discard"})
    assert residual_problems(discard, start, dropped, 500, ["mega"], "round 1") == []


def test_grown_leaves_out_a_mystery_meter_that_awarded_in_the_span() -> None:
    from harness.suites.steps.expect import _grown

    mystery = load_profile(ROOT / "device_profiles" / "emulated-midi-5-mystery.yaml")
    measured: list[tuple[str, bool]] = []
    for awarded in (False, True):
        measured.clear()
        runner = SimpleNamespace(profile=mystery, rates_written={}, stakes_since=lambda _name: 3_500,
                                 hit_since=lambda _name, a=awarded: {"mystery"} if a else set(),
                                 measure=lambda _step, name, got, want, ok, **_kw: measured.append((name, ok)))
        base = _reading({"mega": 5_000_000, "major": 45_000, "minor": 45_000, "mystery": 25_000})
        # $35 of Royal 9 wagers: mega 43.75 c, major 17.5 c, minor 12.25 c, mystery 175 c; the mystery
        # meter awarded and reseeded at $250 plus what the round carried past the award
        now = _reading({"mega": 5_000_043, "major": 45_017, "minor": 45_012, "mystery": 25_050})
        _grown(runner, None, "before", base, now, ("all",))  # type: ignore[arg-type]
        names = dict(measured)
        assert names["mega meter growth since before"] and names["minor meter growth since before"]
        assert ("mystery meter growth since before" in names) is not awarded
        if not awarded:
            assert names["mystery meter growth since before"] is False  # 50 c is not 175 c


def _measuring(**extra: Any) -> tuple[Any, dict[str, tuple[Any, Any, bool]]]:
    measured: dict[str, tuple[Any, Any, bool]] = {}
    mystery = load_profile(ROOT / "device_profiles" / "emulated-midi-5-mystery.yaml")

    def measure(_step: Any, name: str, got: Any, want: Any, ok: bool, **_kw: Any) -> None:
        measured[name] = (got, want, ok)

    values = {"meter-residual-on-reset": "carry"}
    return SimpleNamespace(profile=mystery, rates_written={}, measure=measure, interpretation=values.get,
                           **extra), measured


def test_conservation_leaves_out_a_meter_hit_in_any_round_since_the_snapshot() -> None:
    """A mystery award in the first of two rounds (no hit in the last) is still an award of the span."""
    from harness.suites.steps.expect import _conservation

    base = _reading({"mega": 5_000_000, "major": 45_000, "minor": 45_000, "mystery": 31_025})
    now = _reading({"mega": 5_000_011, "major": 45_004, "minor": 45_003, "mystery": 10_475},
                   {"mega": "0.25", "major": "0.5", "minor": "0.5"})
    for hit in (set(), {"mystery"}):
        runner, measured = _measuring(snapshots={"written": base}, stakes_since=lambda _n: 9_000,
                                      hit_since=lambda _n, h=hit: h,
                                      round=SimpleNamespace(ctrl_events=[]))
        _conservation(runner, None, "written", now)  # type: ignore[arg-type]
        name = "mystery contributions conserved (growth + residual)"
        assert (name in measured) is not bool(hit)
        if not hit:  # $90 at 5% is 450 c; the meter fell by $205.50 (its award)
            assert measured[name][2] is False
        assert "mega contributions conserved (growth + residual)" in measured


def test_two_awards_in_one_round_reseed_twice() -> None:
    """Seat 5 takes $224.00, the meter reseeds at $100 and draws a trigger of $101, seat 9's share takes
    $101.00 and it reseeds again: before + contributions = awards + meter - 2 x reseed."""
    from harness.suites.steps.mystery import _award

    def hit(seat: int, amount: int) -> DeviceEvent:
        return _event("hit", seat=seat, category="mystery", meter="mystery", amount=amount)

    def payout(seat: int, amount: int) -> DeviceEvent:
        return _event("payout", seat=seat, type="royal9", category="mystery", stake=0, returned=amount,
                      paid_by="table")

    before = _reading({"mystery": 22_275})
    for hits, now_amount, conserved in (([hit(5, 22_400), hit(9, 10_100)], 10_000, True),
                                        ([hit(5, 22_400), hit(9, 10_100)], 10_100, False),
                                        ([hit(5, 22_500)], 10_000, True)):
        payouts = [payout(int(e.payload["seat"]), int(e.payload["amount"])) for e in hits]
        runner, measured = _measuring(round=SimpleNamespace(ctrl_events=[*hits, *payouts]))
        now = _reading({"mystery": now_amount}, paid=(sum(int(e.payload["amount"]) for e in hits), 0, 0))
        _award(runner, None, "", 7, before, now, hits, Decimal(225), (10_000, 50_000))  # type: ignore[arg-type]
        assert measured["mystery contributions conserved over the award"][2] is conserved
        assert measured["mystery award at least the reseed amount (each)"][2] is True


def test_a_meter_at_its_payout_limit_stops_there_and_counts_what_it_diverted() -> None:
    """The major meter of a variant ($450.01 reset, $903.01 payout limit, 1.75%) reached its limit in
    play: the expected meter stops at the cap (the oracle pays the capped amount) and the
    contributions balance with the diverted cents, counted only at the cap."""
    from harness.profiles.model import MeterSettings
    from harness.suites.run.oracle import capped, contribution_check
    from harness.suites.steps.award_rounds import advance

    major = MeterSettings("major", Decimal("1.75"), 45_101, 45_001, 90_301, 99_999_999)
    assert capped(major, 90_250, 52) == 90_301 and capped(major, 90_200, 52) == 90_252
    assert capped(major, 90_301, 52) == 90_301
    start = _reading({"major": 90_250}, {"major": "0.5"})
    assert advance(start, {"major": major}, 3_000).meters["major"] == 90_301  # 52.5 c + 0.5 c: 53 c, 2 over
    at_cap = MeterReading({"major": 90_301}, {"major": Decimal(0)}, 0, 0, 0, raw={"diverted": {"major": 2}})
    assert contribution_check(major.rate, 3_000, start, at_cap, "major", major.cap) == (Decimal("52.5"),
                                                                                          Decimal("52.5"))
    # below the cap a diverted cent is a lost contribution, not counted
    below = MeterReading({"major": 90_300}, {"major": Decimal(0)}, 0, 0, 0, raw={"diverted": {"major": 3}})
    assert contribution_check(major.rate, 3_000, start, below, "major", major.cap)[0] == Decimal("49.5")


def test_a_reading_below_the_cap_without_diverted_leaves_the_earlier_diverted_cents_out_of_the_stretch() -> None:
    """Variant 4 of seed 325808434 (persona omits-optional-fields): `diverted` is optional below a
    meter's cap and cumulative, so a stretch from a reading below the cap (no `diverted`) to one at
    the cap (`diverted` 40: 38 cents diverted before an earlier reset, 2 in this stretch) must not
    count the 38 as this stretch's: the minor 'grew' 12690 c against 5200 c of contributions and the
    conservation check FAILed a compliant device.  Cents lost or created still fail."""
    from harness.profiles.model import MeterSettings
    from harness.suites.run.oracle import contribution_check

    major = MeterSettings("major", Decimal("1.75"), 45_101, 45_001, 90_301, 99_999_999)
    start = _reading({"major": 90_250}, {"major": "0.5"})
    assert "diverted" not in start.raw
    at_cap = MeterReading({"major": 90_301}, {"major": Decimal(0)}, 0, 0, 0, raw={"diverted": {"major": 40}})
    assert contribution_check(major.rate, 3_000, start, at_cap, "major", major.cap) == (Decimal("52.5"),
                                                                                          Decimal("52.5"))
    # $30.20 wagered: 52.85 c + 0.5 c carried = 51 c to the cap, 2 c diverted, 0.35 c carried; a
    # device that dropped the 0.35 c fails whatever it says it diverted
    kept = MeterReading({"major": 90_301}, {"major": Decimal("0.35")}, 0, 0, 0, raw={"diverted": {"major": 40}})
    got, want = contribution_check(major.rate, 3_020, start, kept, "major", major.cap)
    assert got == want == Decimal("52.85")
    dropped = MeterReading({"major": 90_301}, {"major": Decimal(0)}, 0, 0, 0, raw={"diverted": {"major": 40}})
    got, want = contribution_check(major.rate, 3_020, start, dropped, "major", major.cap)
    assert got != want
    # more missing than the device says it ever diverted: cents lost
    short = MeterReading({"major": 90_301}, {"major": Decimal(0)}, 0, 0, 0, raw={"diverted": {"major": 1}})
    got, want = contribution_check(major.rate, 3_000, start, short, "major", major.cap)
    assert got != want
    # the meter grew by more than the contributions: cents created
    created = MeterReading({"major": 90_301}, {"major": Decimal(0)}, 0, 0, 0, raw={"diverted": {"major": 40}})
    got, want = contribution_check(major.rate, 1_000, start, created, "major", major.cap)
    assert got > want


def test_a_meter_at_its_cap_that_reports_no_diverted_cents_is_outside_the_contract() -> None:
    """At its cap the conservation check needs the diverted cents; a reading without them is a
    ContractError naming the field (the case's ERROR), never a FAIL nor a silent pass."""
    from harness.devices.contract import ContractError
    from harness.profiles.model import MeterSettings
    from harness.suites.run.oracle import contribution_check

    major = MeterSettings("major", Decimal("1.75"), 45_101, 45_001, 90_301, 99_999_999)
    start = _reading({"major": 90_250}, {"major": "0.5"})
    silent = MeterReading({"major": 90_301}, {"major": Decimal(0)}, 0, 0, 0, raw={})
    with pytest.raises(ContractError, match=r"diverted\.major"):
        contribution_check(major.rate, 3_000, start, silent, "major", major.cap)
    below = MeterReading({"major": 90_300}, {"major": Decimal(0)}, 0, 0, 0, raw={})
    assert contribution_check(major.rate, 3_000, start, below, "major", major.cap)[0] == Decimal("49.5")


def test_a_power_cut_must_be_seen_dark_then_back_locked_by_power() -> None:
    """The power step's evidence: with the power off the controller answers nothing (one that
    answers was never cut: an ERROR, never a PASS on a case about power loss); back on, it is
    locked with lock-out cause power (a device that only rebooted in place would not have gone dark)."""
    from harness.errors import DeviceError, DeviceTimeout
    from harness.suites.steps.core import _went_dark, came_back

    measured: list[tuple[str, bool]] = []

    class Ctrl:
        def __init__(self, dark: bool) -> None:
            self.dark = dark

        def request(self, cmd: str, timeout_s: float | None = None) -> dict[str, Any]:
            if self.dark:
                raise DeviceTimeout(f"no reply to {cmd} within {timeout_s} s")
            return {}

    def runner(dark: bool, events: list[DeviceEvent], supply: str | None = None, shoe_dark: bool = True) -> Any:
        from harness.profiles.model import DeviceSpec

        devices = {} if supply is None else {"power": DeviceSpec(role="power", driver="scpi-power", resource=supply)}
        return SimpleNamespace(controller=lambda: Ctrl(dark), round=SimpleNamespace(ctrl_events=events),
                               profile=SimpleNamespace(devices=devices),
                               rig=SimpleNamespace(shoe=Ctrl(shoe_dark), sensors=Ctrl(True)),
                               pump=lambda timeout_s=0.0: None,
                               measure=lambda step, name, value, limit, ok, **kw: measured.append((name, ok)))

    _went_dark(runner(True, []), None)  # type: ignore[arg-type]
    assert measured == [("the controller went dark with its power off", True)]
    with pytest.raises(DeviceError, match="controller still answers 'ping' with its power off"):
        _went_dark(runner(False, []), None)  # type: ignore[arg-type]
    # the built-in emulator's supply is the table's mains: every device must go dark
    _went_dark(runner(True, [], supply="emulator"), None)  # type: ignore[arg-type]
    assert [n for n, _ in measured[1:]] == [f"the {r} went dark with its power off"
                                           for r in ("controller", "shoe", "sensors")]
    with pytest.raises(DeviceError, match="shoe still answers 'ping' with its power off"):
        _went_dark(runner(True, [], supply="emulator", shoe_dark=False), None)  # type: ignore[arg-type]
    # a bench supply feeds the controller unless the profile says more: the shoe is not asked
    del measured[:]
    _went_dark(runner(True, [], supply="TCPIP::192.0.2.11::5025::SOCKET", shoe_dark=False), None)  # type: ignore[arg-type]
    assert measured == [("the controller went dark with its power off", True)]
    came_back(runner(True, [_event("lockout", locked=True, cause="power")]), None, 0)  # type: ignore[arg-type]
    came_back(runner(True, [_event("lockout", locked=True, cause="card")]), None, 0, within_s=0.05)  # type: ignore[arg-type]
    assert [ok for _, ok in measured[1:]] == [True, False]


def test_a_limit_at_the_initial_amount_may_be_taken_under_current_only() -> None:
    from harness.suites.steps.progressive import _limit_either

    major = PROFILE.rules.meters["major"]  # initial and reset $450, limit $10,000, display $99,999.99
    config = SimpleNamespace(meters={"major": major})
    ctrl = SimpleNamespace(config=lambda: config)

    def runner(check: str, shown: int) -> Any:
        return _runner({"meter-payout-limit-check": check}, controller=lambda: ctrl,
                       read_meters=lambda: _reading({"major": shown}))

    assert _limit_either(runner("current-only", 40_000), "major", {"payout_limit": 45_000})
    assert not _limit_either(runner("set-and-reset", 40_000), "major", {"payout_limit": 45_000})
    assert not _limit_either(runner("current-only", 40_000), "major", {"payout_limit": 40_000})  # at the meter
    assert not _limit_either(runner("current-only", 40_000), "major", {"payout_limit": 45_001})  # above both
    assert not _limit_either(runner("current-only", 40_000), "major", {"payout_limit": 45_000, "reset": 45_000})
