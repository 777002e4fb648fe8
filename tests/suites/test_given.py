"""Cases refer to the Rules Submission by role: ``given:`` bound per profile, references to amounts."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import InputError
from harness.profiles import load_profile, load_profile_text
from harness.profiles.model import Profile
from harness.suites.load.given import reference_markdown
from harness.suites.load.refs import Ref, missing, parse_ref, unfilled
from harness.suites.load.schema import load_suite

ROOT = Path(__file__).resolve().parents[2]
HEAD = "spec: tablecert/suite/1\nsuite: t\ntitle: T\nrequires: [royal9]\ncases:\n"
MIDI5 = (ROOT / "device_profiles" / "emulated-midi-5.yaml").read_text()


def _profile(seats: str, *, decks: int = 8, extra: str = "") -> Profile:
    text = MIDI5.replace("  decks: 8\n", f"  decks: {decks}\n")
    start = text.index("  seats:")
    end = text.index("  meters:")
    text = text[:start] + "  seats:\n" + seats + text[end:] + extra
    return load_profile_text(text, "variant.yaml")


def _write(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "x.suite.yaml"
    p.write_text(HEAD + body)
    return p


CASE = """  - id: major
    title: The owner's combination on the Banker hand
    clauses: [pa-midi-r9-f1-major]
    given:
      owner: {seat: with-combo, pick: last}
      others: {seats: all, not: [owner]}
      past: {seat: past-last}
      cards: {stack: "major:seat=${owner}"}
    steps:
      - open_round
      - wagers: "${others}"
      - wager: {seat: "${past}", expect: rejected}
      - deal: {cards: "${cards}"}
      - expect_r9_meter_award: {seat: "${owner}", meter: major}
"""


def test_roles_bind_to_each_tables_seats_and_combinations(tmp_path: Path) -> None:
    path = _write(tmp_path, CASE)
    three = _profile("    - {seat: 2, combo: [KS, 9H]}\n    - {seat: 5, combo: [KD, 9D]}\n"
                     "    - {seat: 6, combo: [KC, 9S]}\n")
    case = load_suite(path, profile=three).cases[0]
    assert case.not_for_table is None and case.bind_error is None
    assert case.given["owner"] == "6" and case.given["others"] == "2, 5" and case.given["past"] == "7"
    steps = {s.action: s for s in case.steps}
    assert steps["wagers"].args["seats"] == (2, 5) and steps["wager"].args["seat"] == 7
    assert steps["expect_r9_meter_award"].args["seat"] == 6
    cards = steps["deal"].args["cards"]
    assert {cards[1].code, cards[3].code} == {"KC", "9S"}  # seat 6's combination on the Banker hand
    # the same case on another table deals another seat's combination
    other = _profile("    - {seat: 1, combo: [KH, 9H]}\n    - {seat: 2, combo: [KD, 9C]}\n")
    bound = load_suite(path, profile=other).cases[0]
    cards = next(s for s in bound.steps if s.action == "deal").args["cards"]
    assert bound.given["owner"] == "2" and {cards[1].code, cards[3].code} == {"KD", "9C"}


def test_a_role_the_table_cannot_fill_makes_the_case_not_applicable(tmp_path: Path) -> None:
    from harness.games.interpretations import Interpretations
    from harness.suites.load.applicability import not_applicable

    path = _write(tmp_path, CASE)
    one = _profile("    - {seat: 1, combo: [KS, 9S]}\n")
    case = load_suite(path, profile=one).cases[0]
    assert case.not_for_table and "given others" in case.not_for_table
    why = not_applicable(one, Interpretations.defaults(), case)
    assert why is not None and "no place for it" in why
    assert case.steps  # still checked, against the reference table


def test_an_impossible_stack_is_a_fact_of_the_table(tmp_path: Path) -> None:
    path = _write(tmp_path, """  - id: mega
    title: mega
    clauses: [pa-midi-r9-f1-mega]
    given:
      owner: {seat: with-combo}
      cards: {stack: "mega:seat=${owner}"}
    steps:
      - deal: {cards: "${cards}"}
      - expect_payout: oracle
""")
    one_deck = _profile("    - {seat: 1, combo: [KS, 9S]}\n    - {seat: 2, combo: [KH, 9H]}\n", decks=1)
    case = load_suite(path, profile=one_deck).cases[0]
    assert case.not_for_table and "1-deck shoe" in case.not_for_table


def test_literal_cards_beyond_the_tables_shoe_do_not_apply(tmp_path: Path) -> None:
    path = _write(tmp_path, """  - id: tie
    title: the same suited Royal 9 twice
    clauses: [pa-midi-r9-f1-suited-royal9-tie]
    steps:
      - deal: {cards: "QC QC 9C 9C"}
      - expect_payout: oracle
""")
    one_deck = _profile("    - {seat: 1, combo: [KS, 9S]}\n", decks=1)
    assert "1-deck shoe" in (load_suite(path, profile=one_deck).cases[0].not_for_table or "")
    assert load_suite(path, profile=load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")
                      ).cases[0].not_for_table is None


@pytest.mark.parametrize(("given", "message"), [
    ("x: {seat: middle}", "is not one of"),
    ("x: {chair: first}", "say what it is with one of seat, seats, stack"),
    ("x: {seat: first, not: [y]}", "'y' is not a given bound before this one"),
    ("x: {stack: \"major:seat=${nobody}\"}", "'${nobody}' is not a given"),
    ("x: {stack: \"dragon9\"}", "unknown want"),
])
def test_malformed_givens_are_positioned_errors(tmp_path: Path, given: str, message: str) -> None:
    path = _write(tmp_path, f"""  - id: c
    title: c
    clauses: [pa-midi-r9-f1-major]
    given:
      {given}
    steps:
      - expect_payout: oracle
""")
    with pytest.raises(InputError) as err:
        load_suite(path)
    assert str(err.value).startswith(f"{path}:10:") and message in str(err.value), str(err.value)


def test_references_parse_resolve_and_say_what_a_profile_lacks() -> None:
    assert parse_ref("display_capacity + $0.01") == Ref("display_capacity", 1)
    assert parse_ref("meter - $1") == Ref("meter", -100)
    assert parse_ref("$450") is None
    assert str(parse_ref("floor - $0.01")) == "floor - $0.01"
    profile = load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")
    assert missing(profile, "mega", Ref("display_capacity")) is None
    assert "no mystery" in (missing(profile, "mystery", Ref("reseed")) or "")
    bare = load_profile_text(MIDI5.replace(', payout_limit: "$250,000", display_capacity: "$999,999.99"', ""))
    assert "no display capacity" in (missing(bare, "mega", Ref("display_capacity")) or "")
    assert "no payout limit" in (missing(bare, "mega", Ref("profile"), "payout_limit") or "")


def test_a_case_referring_to_an_undeclared_value_does_not_apply(tmp_path: Path) -> None:
    path = _write(tmp_path, """  - id: cap
    title: past the display
    clauses: [pa-461a12-j-display-limit]
    steps:
      - configure_meter: {meter: mega, payout_limit: "display_capacity + $0.01", expect: refused}
      - expect_config: {}
""")
    bare = load_profile_text(MIDI5.replace(', payout_limit: "$250,000", display_capacity: "$999,999.99"', ""))
    case = load_suite(path, profile=bare).cases[0]
    assert case.not_for_table and "display capacity" in case.not_for_table
    full = load_suite(path, profile=load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")).cases[0]
    assert full.not_for_table is None and unfilled(full.steps, bare)


def test_docs_list_every_given_kind() -> None:
    doc = (ROOT / "docs" / "writing-suites.md").read_text()
    assert reference_markdown() in doc, "given reference out of date in docs/writing-suites.md"


def test_a_stack_the_table_cannot_deal_is_shown_in_coverage_with_its_reason(tmp_path: Path) -> None:
    """Redteam row 17: a case whose given stack no round of a profile's table can give is NOT
    APPLICABLE there with the builder's proof, and `tablecert coverage` names it, never drops it."""
    from harness.cli.coverage import compute

    path = _write(tmp_path, """  - id: mega
    title: mega
    clauses: [pa-midi-r9-f1-mega]
    given:
      owner: {seat: with-combo}
      cards: {stack: "mega:seat=${owner}"}
    steps:
      - deal: {cards: "${cards}"}
      - expect_payout: oracle
""")
    profile = tmp_path / "one-deck.yaml"
    profile.write_text(MIDI5.replace("  decks: 8\n", "  decks: 1\n"))
    table = compute([path], [profile])
    (line,) = table["pa-midi-r9-f1-mega"]["not_runnable"]  # type: ignore[misc]
    assert line.startswith("t::mega: emulated-midi-5: NOT APPLICABLE ("), line
    assert "given cards: no round on this table gives 'mega:seat=1'" in line and "1-deck shoe" in line


def test_a_stack_impossible_on_the_reference_table_is_an_error_at_validation(tmp_path: Path) -> None:
    path = _write(tmp_path, """  - id: never
    title: never
    clauses: [pa-midi-r9-f1-royal9]
    given:
      cards: {stack: "player+banker"}
    steps:
      - deal: {cards: "${cards}"}
      - expect_payout: oracle
""")
    with pytest.raises(InputError) as err:
        load_suite(path)
    assert str(err.value).startswith(f"{path}:10:22: given cards: no round on this table gives 'player+banker'")
    assert "(on the reference table, emulated-midi-5)" in str(err.value)
