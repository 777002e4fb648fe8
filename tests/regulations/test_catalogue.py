"""The regulation catalogue against the regulation texts.

The expected paytables, floors and mystery table below are copied from the texts by hand
(000_45d581accf23eceb.txt (f)-(h); 002_f72af1483f886cc3.txt 627a.12(f)-(g), 633a.13(l)(1)), not
computed from the catalogue, so a wrong line in catalogue.yaml fails here.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from importlib import resources
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.games.payouts import Pay, parse_pay
from harness.money import parse_amount
from harness.regulations.catalogue import load_catalogue, parse_catalogue
from harness.regulations.model import HR_CATEGORIES, R9_CATEGORIES, MysteryTableRow

CAT = load_catalogue()
YAML_TEXT = resources.files("harness.regulations").joinpath("catalogue.yaml").read_text(encoding="utf-8")

R9_PAYTABLE_TEXT = {
    5: {
        "mega": Pay("meter", Decimal(100), "mega"),
        "major": Pay("meter", Decimal(100), "major"),
        "minor": Pay("meter", Decimal(100), "minor"),
        "mega-envy": Pay("fixed", Decimal(5_000_00)),
        "suited-royal9-tie": Pay("fixed", Decimal(1_500_00)),
        "royal9-tie": Pay("fixed", Decimal(250_00)),
        "suited-royal9": Pay("fixed", Decimal(50_00)),
        "royal9": Pay("fixed", Decimal(25_00)),
    },
    1: {
        "mega": Pay("meter", Decimal(100), "mega"),
        "major": Pay("meter", Decimal(100), "major"),
        "minor": Pay("meter", Decimal(100), "minor"),
        "mega-envy": Pay("fixed", Decimal(1_000_00)),
        "suited-royal9-tie": Pay("fixed", Decimal(300_00)),
        "royal9-tie": Pay("fixed", Decimal(50_00)),
        "suited-royal9": Pay("fixed", Decimal(10_00)),
        "royal9": Pay("fixed", Decimal(5_00)),
    },
}
FLOORS_TEXT = {
    5: {"mega": 50_000_00, "major": 450_00, "minor": 450_00},
    1: {"mega": 10_000_00, "major": 90_00, "minor": 90_00},
}
MYSTERY_TEXT = {
    1: MysteryTableRow(250_00, 1_000_00, Decimal(5)),
    2: MysteryTableRow(100_00, 500_00, Decimal(5)),
    3: MysteryTableRow(100_00, 200_00, Decimal(2)),
}
HIT_AND_RUN_TEXT = {
    "8-plus-cards": Pay("meter", Decimal(100), "meter"),
    "7-cards": Pay("for", Decimal(200)),
    "6-cards": Pay("for", Decimal(25)),
    "5-cards": Pay("for", Decimal(8)),
    "blackjack": Pay("for", Decimal(4)),
}
#: ids the game code and suites rely on, with the params shape the brief agreed
AGREED_PARAM_CLAUSES = {
    "pa-midi-r9-paytable-5": "paytable",
    "pa-midi-r9-paytable-1": "paytable",
    "pa-midi-r9-floors-5": "floors",
    "pa-midi-r9-floors-1": "floors",
    "pa-midi-r9-mystery": "configurations",
    "pa-633a13-l1-paytable": "paytable",
    "pa-ez-dragon7": "pay",
    "pa-ez-panda8": "pay",
}
AGREED_INTERPRETATION_DEFAULTS = {
    "r9-envy-for-mega-winner": False,
    "r9-envy-requires-wager": True,
    "r9-personal-combo-suited": True,
    "r9-one-award-per-wager": True,
    "award-returns-stake": True,
    "r9-order-insensitive": True,
    "bac-commission-rounding": "down",
    "wa-streak3-tie": "loses",
    "meter-residual-on-reset": "carry",
    "mystery-award-amount": "meter-at-trigger",
    "lockout-automatic": True,
}
ID_PREFIX_BY_SOURCE = {
    "000_45d581accf23eceb.txt": r"pa-midi-r9-",
    "002_f72af1483f886cc3.txt": r"pa-(?:4[0-9]{2}a[0-9]+|6[0-9]{2}a[0-9]+|ez|bac)-",
    "004_836245495542aa89.txt": r"wa-230-15-040-",
    "protocol-1": r"contract-",
}


# --- the data against the text ------------------------------------------------------------------


@pytest.mark.parametrize("denomination", [5, 1])
def test_royal9_paytable_is_the_regulation_text(denomination: int) -> None:
    table = CAT.paytable(denomination)
    assert table == R9_PAYTABLE_TEXT[denomination]
    assert tuple(table) == R9_CATEGORIES  # highest first


@pytest.mark.parametrize("denomination", [5, 1])
def test_every_paytable_line_is_its_own_clause(denomination: int) -> None:
    letter = {5: "f", 1: "g"}[denomination]
    for category, pay in R9_PAYTABLE_TEXT[denomination].items():
        clause = CAT.clause(f"pa-midi-r9-{letter}1-{category}")
        assert clause.testable
        assert clause.params["denomination"] == denomination
        assert clause.params["category"] == category
        assert parse_pay(clause.params["pay"]) == pay
        assert f"({letter})(1)" in clause.citation


@pytest.mark.parametrize("denomination", [5, 1])
def test_reset_floors_are_the_regulation_text(denomination: int) -> None:
    assert CAT.floors(denomination) == FLOORS_TEXT[denomination]


def test_unknown_denomination_is_refused() -> None:
    with pytest.raises(InputError, match=r"\$5 and \$1"):
        CAT.paytable(25)


def test_mystery_configurations_are_the_regulation_text() -> None:
    assert CAT.mystery_configurations() == MYSTERY_TEXT


def test_hit_and_run_paytable_is_the_2012_correction() -> None:
    assert CAT.hit_and_run_paytable() == HIT_AND_RUN_TEXT
    assert tuple(CAT.hit_and_run_paytable()) == HR_CATEGORIES
    for category, pay in HIT_AND_RUN_TEXT.items():
        assert parse_pay(CAT.clause(f"pa-633a13-l1-{category}").params["pay"]) == pay
    # the superseded amounts must not come back
    assert CAT.hit_and_run_paytable()["7-cards"] != Pay("for", Decimal(100))
    assert CAT.hit_and_run_paytable()["5-cards"] != Pay("for", Decimal(7))


def test_ez_insurance_odds_and_banker_push() -> None:
    assert parse_pay(CAT.clause("pa-ez-dragon7").params["pay"]) == Pay("to", Decimal(40))
    assert parse_pay(CAT.clause("pa-ez-panda8").params["pay"]) == Pay("to", Decimal(25))
    push = CAT.clause("pa-ez-banker-push-on-dragon7")
    assert push.testable and "push" in push.text


def test_agreed_parameter_clauses_exist_with_their_shapes() -> None:
    for cid, key in AGREED_PARAM_CLAUSES.items():
        assert key in CAT.clause(cid).params, cid
    assert set(CAT.clause("pa-midi-r9-mystery").params["configurations"]) == {1, 2, 3}


def test_every_parameter_parses_and_no_amount_is_a_yaml_number() -> None:
    def walk(value: object, key: str, cid: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k), cid)
        elif key in {"pay", "reseed", "must_hit_by", "rate"} or key in R9_CATEGORIES + HR_CATEGORIES:
            assert isinstance(value, str), f"{cid}: {key} is {value!r}"

    for clause in CAT.clauses:
        walk(dict(clause.params), "", clause.id)
        for text in dict(clause.params.get("floors", {})).values():
            assert isinstance(text, str)
            parse_amount(text)


# --- ids, fields, interpretations ----------------------------------------------------------------


def test_ids_unique_stable_format_and_prefixed_by_source() -> None:
    ids = [c.id for c in CAT.clauses]
    assert len(ids) == len(set(ids))
    for clause in CAT.clauses:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", clause.id), clause.id
        assert re.match(ID_PREFIX_BY_SOURCE[clause.source], clause.id), (clause.id, clause.source)


def test_every_source_is_catalogued_with_testable_and_out_of_scope_clauses() -> None:
    for source in ID_PREFIX_BY_SOURCE:
        mine = [c for c in CAT.clauses if c.source == source]
        assert any(c.testable for c in mine) and any(not c.testable for c in mine), source


def test_out_of_scope_reason_present_exactly_when_not_testable() -> None:
    for clause in CAT.clauses:
        assert clause.citation and clause.text and clause.area
        if clause.testable:
            assert clause.out_of_scope is None, clause.id
        else:
            assert clause.out_of_scope and clause.out_of_scope_reason == clause.out_of_scope, clause.id
    assert CAT.testable() == tuple(c for c in CAT.clauses if c.testable)


def test_royal9_outcomes_each_have_a_clause() -> None:
    for n, name in enumerate(
        ["royal9", "suited-royal9", "royal9-tie", "suited-royal9-tie", "personal-combinations",
         "mega", "major", "minor", "mega-envy"], start=1,
    ):
        assert CAT.clause(f"pa-midi-r9-e{n}-{name}").testable


def test_device_requirements_marked_testable_and_filings_not() -> None:
    for cid in ["pa-midi-r9-a1-wagering-device", "pa-midi-r9-a2-lockout", "pa-461a12-h-no-turning-back",
                "pa-461a12-k1-payout-limit", "pa-461a12-j-display-limit", "pa-607a2-b2iv-serial",
                "pa-627a7-c-no-more-bets", "pa-629a7-c-no-more-bets", "pa-631a8-c-no-more-bets",
                "wa-230-15-040-2-nine-areas", "wa-230-15-040-8b-streak3"]:
        assert CAT.clause(cid).testable, cid
    for cid in ["pa-607a2-c-monthly-update", "pa-607a3-a-storage-approval", "pa-464a2-c-notice-of-intent",
                "pa-461a12-k1-limit-notice", "pa-465a19-d-tip-wager-separate"]:
        assert not CAT.clause(cid).testable, cid


def test_interpretations_have_defaults_in_choices_reasons_and_known_clauses() -> None:
    interps = CAT.interpretations()
    assert len({i.id for i in interps}) == len(interps)
    for interp in interps:
        assert interp.default in interp.choices, interp.id
        assert interp.reason and interp.question and interp.quote, interp.id
        assert interp.clauses, interp.id
        for cid in interp.clauses:
            assert interp.id in CAT.clause(cid).interpretations  # the link is seen from both sides
    for cid in (i for c in CAT.clauses for i in c.interpretations):
        CAT.interpretation(cid)


def test_agreed_interpretations_and_defaults() -> None:
    defaults = CAT.defaults()
    for iid, default in AGREED_INTERPRETATION_DEFAULTS.items():
        assert defaults[iid] == default, iid


def test_game_code_fallback_defaults_agree_with_the_catalogue() -> None:
    games = pytest.importorskip("harness.games.interpretations")
    for iid, default in games.DEFAULTS.items():
        assert CAT.interpretation(iid).default == default, iid


def test_unknown_ids_get_a_suggestion() -> None:
    with pytest.raises(InputError, match=r"unknown clause id 'pa-ez-dragon-7'.*did you mean 'pa-ez-dragon7'"):
        CAT.clause("pa-ez-dragon-7")
    with pytest.raises(InputError, match=r"did you mean 'wa-streak3-tie'"):
        CAT.interpretation("wa-streak-tie")
    assert CAT.has("pa-ez-dragon7") and not CAT.has("pa-ez-dragon-7")


def test_load_is_cached() -> None:
    assert load_catalogue() is CAT


# --- validation of the data ----------------------------------------------------------------------


def _variant(old: str, new: str, count: int = 1) -> str:
    assert old in YAML_TEXT, old
    return YAML_TEXT.replace(old, new, count)


BROKEN = {
    "duplicate clause id": ("  - id: pa-ez-dragon7-loses\n", "  - id: pa-ez-dragon7\n"),
    "kebab-case": ("  - id: pa-ez-dragon7-loses\n", "  - id: pa_ez_dragon7_loses\n"),
    "no out_of_scope reason": (
        '    testable: true\n    text: "The Dragon 7 Insurance Wager loses',
        '    testable: true\n    out_of_scope: "x"\n    text: "The Dragon 7 Insurance Wager loses',
    ),
    "expected a non-empty string": (
        '    out_of_scope: "a monthly filing deadline (5 p.m., first Tuesday)"\n    text: "Updated table',
        '    text: "Updated table'),
    "unknown interpretation id 'ez-dragon7-def'": ("    interpretations: [ez-dragon7-definition]\n    params",
                                                   "    interpretations: [ez-dragon7-def]\n    params"),
    "is not one of the choices": ("    default: loses\n", "    default: ties\n"),
    "quoted string": (
        '        2: {reseed: "$100", must_hit_by: "$500"',
        '        2: {reseed: 100, must_hit_by: "$500"',
    ),
    "differs from its paytable's line": ('params: {denomination: 5, category: royal9, pay: "$25"}',
                                         'params: {denomination: 5, category: royal9, pay: "$20"}'),
    "duplicate key 'citation'": ('    citation: "58 Pa. Code § 607a.2(c)"\n',
                                 '    citation: "58 Pa. Code § 607a.2(c)"\n    citation: "x"\n'),
    "unknown key 'testible'": ("  - id: pa-ez-no-vigorish\n", "  - id: pa-ez-no-vigorish\n    testible: true\n"),
    "pay '40 to one'": ('params: {pay: "40 to 1"}', 'params: {pay: "40 to one"}'),
    "every_jurisdiction: unknown source 'protocol-2'": ("  every_jurisdiction: [protocol-1]\n",
                                                        "  every_jurisdiction: [protocol-1, protocol-2]\n"),
    "is in jurisdiction 'WA' and in every_jurisdiction": (
        "  every_jurisdiction: [protocol-1]\n", "  every_jurisdiction: [protocol-1, 004_836245495542aa89.txt]\n"),
    "source 'protocol-1' has no jurisdiction": ("  every_jurisdiction: [protocol-1]\n", ""),
}


@pytest.mark.parametrize("problem", sorted(BROKEN))
def test_broken_catalogue_is_refused_with_a_position(problem: str) -> None:
    old, new = BROKEN[problem]
    with pytest.raises(InputError) as info:
        parse_catalogue(_variant(old, new), path="catalogue.yaml")
    assert problem in info.value.message
    assert info.value.line is not None and re.match(r"catalogue\.yaml:\d+:\d+: ", str(info.value))


def test_a_missing_paytable_line_is_refused() -> None:
    text = _variant('        royal9: "$5"\n', "")
    with pytest.raises(InputError, match="incomplete"):
        parse_catalogue(text)


def test_the_packaged_text_parses_to_the_same_catalogue() -> None:
    again = parse_catalogue(YAML_TEXT)
    assert [c.id for c in again.clauses] == [c.id for c in CAT.clauses]


# --- the command ----------------------------------------------------------------------------------


def test_cli_json_lists_testable_clauses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalogue", "--testable", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["clauses"] == len(CAT.testable()) == data["counts"]["testable"]
    first = data["clauses"][0]
    assert set(first) == {"id", "citation", "source", "area", "testable", "out_of_scope", "text", "params",
                          "interpretations"}


def test_cli_glob_and_detail(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalogue", "--json", "pa-633a13-*"]) == 0
    ids = [c["id"] for c in json.loads(capsys.readouterr().out)["clauses"]]
    assert ids[0] == "pa-633a13-l1-paytable" and len(ids) == 6
    assert main(["catalogue", "pa-midi-r9-f1-suited-royal9"]) == 0
    out = capsys.readouterr().out
    assert '"pay": "$50"' in out and "(f)(1)" in out


def test_cli_out_of_scope_shows_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalogue", "--out-of-scope"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^pa-607a3-a-storage-approval\s", out, re.M)
    assert not re.search(r"^pa-ez-dragon7\s", out, re.M)


def test_cli_interpretations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalogue", "--interpretations", "--json", "wa-streak3-tie"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["interpretations"]
    assert entry["default"] == "loses" and entry["choices"] == ["loses", "push"]


def test_cli_unknown_id_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalogue", "pa-ez-dragon-7"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean 'pa-ez-dragon7'" in err
    assert main(["catalogue", "nothing-*"]) == 2


# --- the documentation ----------------------------------------------------------------------------


def test_docs_name_every_interpretation_and_its_default() -> None:
    text = (Path(__file__).parents[2] / "docs" / "interpretations.md").read_text(encoding="utf-8")
    for interp in CAT.interpretations():
        assert f"## {interp.id}\n" in text, interp.id
        section = text.split(f"## {interp.id}\n", 1)[1].split("\n## ", 1)[0]
        assert f"| default | `{json.dumps(interp.default)}` |" in section, interp.id
