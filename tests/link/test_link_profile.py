"""Link profiles: the shipped one loads as four single tables on two pools; the loader holds a link
to 461a.12(c)/(d) with exact chances (see also tests/bad_input/profiles/link-*.yaml); single-table
cases and link cases apply where they belong; a case citing a link clause must require link."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.games.interpretations import Interpretations
from harness.link.rig import controller_mapping, table_profile
from harness.profiles import load_profile, load_profile_text
from harness.suites.load.applicability import not_applicable
from harness.suites.load.schema import load_suite

ROOT = Path(__file__).resolve().parents[2]
LINK = ROOT / "device_profiles" / "emulated-link-4.yaml"

TWO = """spec: tablecert/profile/1
name: two
game: midibaccarat
capabilities: [royal9, link]
{interp}link:
  controller: {{driver: reference-link-controller, port: emulator}}
  meters:
    mega: {{initial: "$50,000"}}
  tables:
    - name: a
      devices: &dev
        shoe: {{driver: reference-shoe, port: emulator}}
        sensors: {{driver: reference-sensors, port: emulator}}
        controller: {{driver: reference-controller, port: emulator}}
      rules:
        denomination: 5
        decks: 8
        seats: [{{seat: 1, combo: [KS, 9S]}}]
        meters:
          mega: {{link: mega, rate: "1%"}}
          major: {{rate: "1%", initial: "$450"}}
          minor: {{rate: "1%", initial: "$450"}}
    - name: b
      devices:
        shoe: {{driver: reference-shoe, port: emulator}}
        sensors: {{driver: reference-sensors, port: emulator}}
        controller: {{driver: reference-controller, port: emulator}}
      rules:
        denomination: {den}
        decks: {decks}
        seats: [{{seat: 4, combo: [KH, 9C]}}]
        meters:
          mega: {{link: mega, rate: "1%"}}
          major: {{rate: "1%", initial: "$450"}}
          minor: {{rate: "1%", initial: "$450"}}
"""


def two(den: int = 5, decks: int = 8, interp: str = "") -> str:
    return TWO.format(den=den, decks=decks, interp=interp).replace("devices: &dev", "devices:")


def test_the_shipped_link() -> None:
    p = load_profile(LINK)
    assert p.link is not None and [t.name for t in p.link.tables] == ["t1", "t2", "t3", "t4"]
    assert [t.name for t, _m in p.link.on("mega-5")] == ["t1", "t2"]
    assert [(t.name, m) for t, m in p.link.on("major-1")] == [("t3", "major"), ("t4", "major")]
    assert p.is_emulated and p.devices == {} and "link" in p.capabilities
    t3 = table_profile(p, p.link.table("t3"), "127.0.0.1:9")
    assert t3.link is None and "link" not in t3.capabilities and t3.rules.denomination == 1
    assert t3.rules.meters["mega"].initial == 1_000_000 and str(t3.rules.meters["mega"].rate) == "1.5"
    assert t3.raw["link"] == {"table": "t3", "address": "127.0.0.1:9", "meters": {"mega": "mega-1", "major": "major-1"}}
    assert t3.raw["rules"]["meters"]["major"] == {"rate": "0.6%", "initial": "90.00", "reset": "90.00",
                                                   "payout_limit": "5000.00", "display_capacity": "99999.99"}
    ctl = controller_mapping(p, [])
    assert ctl["tables"][2] == {"name": "t3", "denomination": 100, "decks": 6,
                                "rates": {"mega-1": "1.5", "major-1": "0.6"}}


def test_same_decks_other_combinations_same_chance() -> None:
    assert load_profile_text(two()).link is not None


def test_money_refuses_five_and_one_dollars_on_one_meter() -> None:
    with pytest.raises(InputError, match=r"not proportional to the wager required.*link-wager-measure"):
        load_profile_text(two(den=1))


def test_denomination_units_takes_them_when_the_chances_are_equal() -> None:
    units = "interpretations: {link-wager-measure: denomination-units}\n"
    assert load_profile_text(two(den=1, interp=units)).link is not None
    with pytest.raises(InputError, match="another probability"):
        load_profile_text(two(den=1, decks=6, interp=units))


def test_link_and_devices_do_not_mix() -> None:
    text = two().replace("link:\n", "devices: {}\nlink:\n", 1)
    with pytest.raises(InputError, match="a link profile files devices per table"):
        load_profile_text(text)
    with pytest.raises(InputError, match="link and a link: section go together"):
        load_profile_text(two().replace("[royal9, link]", "[royal9]"))


def test_cases_apply_where_they_belong() -> None:
    link = load_profile(LINK)
    single = load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")
    link_case = load_suite(ROOT / "suites" / "link" / "link.suite.yaml").cases[0]
    table_case = load_suite(ROOT / "suites" / "royal9" / "wagering.suite.yaml").cases[0]
    interp = Interpretations.defaults()
    assert not_applicable(link, interp, link_case) is None
    assert "link of 4 tables" in str(not_applicable(link, interp, table_case))
    assert "lacks capability link" in str(not_applicable(single, interp, link_case))


def test_a_single_table_case_cannot_cite_a_link_clause(tmp_path: Path) -> None:
    suite = tmp_path / "x.suite.yaml"
    suite.write_text("spec: tablecert/suite/1\nsuite: x\ntitle: t\ncases:\n  - id: c\n    title: t\n"
                     "    clauses: [pa-461a12-c1-same-probability]\n    steps:\n      - expect_config: {}\n")
    with pytest.raises(InputError, match=r"x.suite.yaml:7:15: .*about linked tables"):
        load_suite(suite)


def test_exact_chances_from_the_math_module() -> None:
    from harness.cards import parse_card
    from harness.math.link_exact import compare, meter_chances

    seats = {1: (parse_card("KS"), parse_card("9S")), 2: (parse_card("KH"), parse_card("9D"))}
    interp = Interpretations.defaults()
    eight = meter_chances("a", decks=8, seats=seats, denomination=5, interpretations=interp,
                          amounts={"mega": 5_000_000}, links={"mega": "m"})
    assert {c.p for c in eight} == {Fraction(28, 65889135)}  # a suit-specific king-9 on both hands
    one = meter_chances("b", decks=1, seats=seats, denomination=5, interpretations=interp,
                        amounts={"mega": 5_000_000}, links={"mega": "m"})
    assert {c.p for c in one} == {Fraction(0)}  # one deck holds one king of spades
    assert compare(eight) == [] and len(compare(eight + one)) == 2
    units = meter_chances("c", decks=8, seats=seats, denomination=1, interpretations=interp,
                          amounts={"mega": 1_000_000}, links={"mega": "m"}, measure="denomination-units")
    assert units[0].per_unit == Fraction(28, 65889135)
