"""Device profiles: the shipped ones load truthfully, and the schema's checks hold."""

from decimal import Decimal
from pathlib import Path

import pytest

from harness.cards import Card
from harness.errors import InputError
from harness.games.payouts import Pay
from harness.profiles import Profile, load_profile, load_profile_text

PROFILES = Path(__file__).resolve().parents[2] / "device_profiles"
SHIPPED = sorted(PROFILES.glob("*.yaml"))

BASE = """spec: tablecert/profile/1
name: t
game: midibaccarat
devices:
  shoe: {driver: reference-shoe, port: emulator}
  sensors: {driver: reference-sensors, port: emulator}
  controller: {driver: reference-controller, port: emulator}
capabilities: [royal9]
rules:
  denomination: 5
  seats:
    - {seat: 1, combo: [KS, 9S]}
    - {seat: 2, combo: [9H, KH]}
  meters:
    mega: {rate: "1%", initial: "$50,000", reset: "$50,000"}
    major: {rate: "0.5%", initial: "$450", reset: "$450"}
    minor: {rate: "0.5%", initial: 450, reset: "450.00"}
"""


def _load(text: str) -> Profile:
    return load_profile_text(text, "p.yaml")


def _error(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        _load(text)
    return info.value


def test_shipped_profiles_present() -> None:
    names = {p.stem for p in SHIPPED}
    assert {"emulated-midi-5", "emulated-midi-1", "emulated-midi-5-mystery", "emulated-ez-baccarat",
            "emulated-hit-and-run", "emulated-mini-baccarat", "hardware-example"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_profile_loads(path: Path) -> None:
    profile = load_profile(path)
    assert profile.name == path.stem
    assert profile.source_path == str(path)
    assert profile.is_emulated == path.stem.startswith("emulated-")
    assert profile.raw["name"] == path.stem


@pytest.mark.parametrize("denomination", [5, 1])
def test_midi_profiles_exercise_residuals(denomination: int) -> None:
    """Each meter's rate x the denomination leaves a fraction of a cent, so residuals are carried."""
    profile = load_profile(PROFILES / f"emulated-midi-{denomination}.yaml")
    assert profile.rules.denomination == denomination
    assert len(profile.rules.seats) == 7
    combos = [s.combo for s in profile.rules.seats]
    assert len(set(combos)) == 7
    for meter in profile.rules.meters.values():
        cents = Decimal(denomination * 100) * meter.rate / 100
        assert cents != cents.to_integral_value(), meter


def test_capabilities_truthful() -> None:
    midi = load_profile(PROFILES / "emulated-midi-5.yaml")
    assert midi.has("royal9") and not midi.has("mystery")
    mystery = load_profile(PROFILES / "emulated-midi-5-mystery.yaml")
    assert mystery.has("mystery")
    assert mystery.rules.mystery is not None
    assert (mystery.rules.mystery.reseed, mystery.rules.mystery.must_hit_by) == (25_000, 100_000)
    ez = load_profile(PROFILES / "emulated-ez-baccarat.yaml")
    assert ez.has("dragon7") and ez.has("panda8") and not ez.has("royal9")
    assert not ez.rules.meters
    hr = load_profile(PROFILES / "emulated-hit-and-run.yaml")
    assert hr.rules.hit_and_run is not None
    assert hr.rules.hit_and_run.hits_soft17
    assert hr.rules.hit_and_run.decks == 6


def test_mini_baccarat_profile_offers_the_streak_wager_in_washington() -> None:
    mini = load_profile(PROFILES / "emulated-mini-baccarat.yaml")
    assert mini.game == "minibaccarat" and mini.has("streak3") and mini.jurisdictions == ("WA",)
    assert mini.rules.streak3 is not None and mini.rules.streak3.pays == Pay("to", Decimal(7))
    assert not mini.rules.meters and mini.rules.denomination is None


MINI = """spec: tablecert/profile/1
name: t
game: minibaccarat
devices:
  shoe: {driver: reference-shoe, port: emulator}
  sensors: {driver: reference-sensors, port: emulator}
  controller: {driver: reference-controller, port: emulator}
capabilities: [streak3]
rules:
  seats:
    - {seat: 1}
  streak3: {pays: "7 to 1"}
"""


@pytest.mark.parametrize(("pays", "kind", "odds"), [("7 to 1", "to", "7"), ("8 for 1", "for", "8"),
                                                    ("5.5 to 1", "to", "5.5"), ("2 for 1", "for", "2")])
def test_streak3_pay_is_odds_the_pay_parser_reads(pays: str, kind: str, odds: str) -> None:
    p = _load(MINI.replace("7 to 1", pays))
    assert p.rules.streak3 is not None and p.rules.streak3.pays == Pay(kind, Decimal(odds))  # type: ignore[arg-type]


@pytest.mark.parametrize(("change", "message"), [
    (("game: minibaccarat", "game: baccarat"), "capabilities: streak3 needs game minibaccarat, not baccarat"),
    (('  streak3: {pays: "7 to 1"}\n', ""), "rules: missing key 'streak3'"),
    (("capabilities: [streak3]", "capabilities: []"), "rules.streak3: the three-consecutive-games wager needs the "
                                                      "streak3 capability"),
    (("7 to 1", "0 to 1"), "rules.streak3.pays: 0 to 1 pays nothing beyond the stake"),
    (("7 to 1", "100% of meter"), "a won streak is paid at odds"),
    (("7 to 1", "seven to one"), "'seven to one' is not odds"),
    (("game: minibaccarat", "game: minibaccarat\njurisdiction: [PA]"),
     "jurisdiction: capability streak3 is the Washington Mini-Baccarat wager"),
])
def test_streak3_refusals(change: tuple[str, str], message: str) -> None:
    assert message in str(_error(MINI.replace(*change)))


def test_streak3_in_washington_or_no_named_jurisdiction() -> None:
    assert _load(MINI.replace("game: minibaccarat", "game: minibaccarat\njurisdiction: [PA, WA]")).has("streak3")
    assert _load(MINI).jurisdictions == ()


def test_hardware_example_uses_stable_names_and_documentation_addresses() -> None:
    hw = load_profile(PROFILES / "hardware-example.yaml")
    assert not hw.is_emulated
    for role in ("shoe", "sensors", "controller"):
        device = hw.devices[role]
        assert device.port is not None and device.port.startswith("/dev/serial/by-id/")
        assert device.match
    for role in ("counter", "power"):
        resource = hw.devices[role].resource
        assert resource is not None and resource.startswith("TCPIP::192.0.2.")


def test_typed_values() -> None:
    p = _load(BASE)
    assert p.rules.meters["minor"].initial == 45_000
    assert p.rules.meters["minor"].reset == 45_000
    assert p.rules.meters["major"].rate == Decimal("0.5")
    assert p.rules.seats[1].combo == (Card(13, "H"), Card(9, "H"))  # king first, whatever the order
    assert p.rules.decks == 8
    assert p.timing.lockout_deadline_ms == Decimal("1.0")
    assert p.emulator.defect is None
    assert p.is_emulated
    assert p.raw["rules"]["meters"]["minor"]["initial"] == 450
    with pytest.raises(TypeError):
        p.raw["name"] = "x"  # type: ignore[index]


def test_floor_at_exact_amount_accepted_and_one_cent_below_refused() -> None:
    ok = _load(BASE.replace('major: {rate: "0.5%", initial: "$450", reset: "$450"}',
                            'major: {rate: "0.5%", initial: "$450.00", reset: "$450.00"}'))
    assert ok.rules.meters["major"].reset == 45_000
    err = _error(BASE.replace('reset: "$50,000"', 'reset: "$49,999.99"'))
    assert (err.line, err.col) == (15, 51)
    assert "below the $50,000.00 floor for the $5 Royal 9" in err.message


def test_one_dollar_floors_are_lower() -> None:
    text = BASE.replace("denomination: 5", "denomination: 1").replace('"$50,000"', '"$10,000"')
    text = text.replace('"$450"', '"$90"')
    assert _load(text).rules.meters["major"].reset == 9_000


def test_nine_seats_allowed() -> None:
    suits = [("S", "S"), ("H", "H"), ("D", "D"), ("C", "C"), ("S", "H"), ("H", "D"), ("D", "C"),
             ("C", "S"), ("S", "D")]
    seats = "".join(f"    - {{seat: {n}, combo: [K{a}, 9{b}]}}\n" for n, (a, b) in enumerate(suits, 1))
    text = BASE.replace("    - {seat: 1, combo: [KS, 9S]}\n    - {seat: 2, combo: [9H, KH]}\n", seats)
    assert len(_load(text).rules.seats) == 9


def test_unsuited_interpretation_makes_any_two_combos_collide() -> None:
    text = BASE + "interpretations: {r9-personal-combo-suited: false}\n"
    err = _error(text)
    assert err.line == 13
    assert "r9-personal-combo-suited is false" in err.message
    one_seat = text.replace("    - {seat: 2, combo: [9H, KH]}\n", "")
    assert _load(one_seat).interpretations == {"r9-personal-combo-suited": False}


def test_emulator_latency_must_be_below_deadline() -> None:
    err = _error(BASE + 'timing: {lockout_deadline_ms: "1.0"}\nemulator: {lockout_latency_ms: "1.5"}\n')
    assert "not below timing.lockout_deadline_ms" in err.message
    # a defective emulator may be late on purpose
    text = BASE + 'emulator: {lockout_latency_ms: "1.5", defect: lockout-late}\n'
    assert _load(text).emulator.defect == "lockout-late"


def test_unknown_defect() -> None:
    err = _error(BASE + "emulator: {defect: lockout-lates}\n")
    assert "unknown defect 'lockout-lates'" in err.message


def test_mystery_needs_capability() -> None:
    err = _error(BASE.replace("  denomination: 5\n", "  denomination: 5\n  mystery: {configuration: 2}\n"))
    assert "needs the mystery capability" in err.message
    assert (err.line, err.col) == (11, 12)


def test_ttyusb_allowed_with_match() -> None:
    text = BASE.replace("shoe: {driver: reference-shoe, port: emulator}",
                        'shoe: {driver: reference-shoe, port: /dev/ttyUSB0, match: {serial: "S-1"}}')
    p = _load(text)
    assert p.devices["shoe"].match == {"serial": "S-1"}
    assert not p.devices["shoe"].is_emulated


def test_hit_and_run_rules_refused_for_baccarat() -> None:
    text = BASE.replace("  denomination: 5\n", "  denomination: 5\n  hit_and_run: {decks: 6, soft17: hit}\n")
    assert "blackjack-hit-and-run only" in _error(text).message


def test_royal9_capability_requires_midibaccarat() -> None:
    err = _error(BASE.replace("game: midibaccarat", "game: ez-baccarat"))
    assert "royal9 needs game midibaccarat" in err.message
