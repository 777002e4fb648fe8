"""The suite loader: what it accepts, what it refuses (one positioned line), and the docs table."""

from pathlib import Path

import pytest

from harness.errors import InputError
from harness.suites.load.schema import load_suite
from harness.suites.steps.registry import ACTIONS, reference_markdown

ROOT = Path(__file__).resolve().parents[2]
HEAD = "spec: tablecert/suite/1\nsuite: t\ntitle: T\ncases:\n"


def _write(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "x.suite.yaml"
    p.write_text(HEAD + body)
    return p


def test_valid_case_loads_with_positions(tmp_path: Path) -> None:
    p = _write(tmp_path, """  - id: c1
    title: A case
    clauses: [pa-midi-r9-f1-royal9]
    params: [{denomination: 5, award: "$30"}, {denomination: 1, award: "$6"}]
    steps:
      - open_round
      - wager: {seat: 1}
      - deal: {cards: "QH 4S 9D 3C"}
      - expect_payout: {seat: 1, returned: "${award}"}
      - expect_payout: oracle
""")
    suite = load_suite(p)
    assert [c.name for c in suite.cases] == ["c1[5-$30]", "c1[1-$6]"]
    first = suite.cases[0]
    assert first.when == {"denomination": 5}
    pay = first.steps[3]
    assert pay.action == "expect_payout" and pay.args["returned"] == 3000 and pay.line == 13
    assert suite.cases[1].steps[3].args["returned"] == 600
    assert first.steps[4].args["oracle"] is True
    assert first.steps[1].args == {"seat": 1, "type": "royal9", "expect": "accepted"}


@pytest.mark.parametrize(
    ("body", "where", "message"),
    [
        ("  - id: c\n    title: t\n    clauses: [no-such-clause]\n    steps: [open_round]\n", "7:15",
         "unknown clause id 'no-such-clause'"),
        ("  - id: c\n    title: t\n    clauses: [pa-midi-r9-f1-royal9]\n    steps:\n      - open_round\n"
         "      - deal: {cards: \"KS 4D 3H 2C\"}\n      - expect_payout: oracle\n", "10:23",
         "round needs a 5th card: Player draws on 3"),
        ("  - id: c\n    title: t\n    clauses: [pa-midi-r9-f1-royal9]\n    steps:\n      - open_round\n"
         "      - dael: {}\n", "10:9", "unknown step 'dael' (did you mean 'deal'?)"),
        ("  - id: c\n    title: t\n    clauses: [pa-midi-r9-f1-royal9]\n    steps:\n      - open_round\n",
         "9:7", "a case that checks nothing"),
        ("  - id: c\n    title: t\n    clauses: [pa-midi-r9-f1-royal9]\n    steps:\n"
         "      - expect_payout: {seat: 1, returned: 12.50}\n", "9:44", "quotes"),
    ],
)
def test_errors_are_positioned(tmp_path: Path, body: str, where: str, message: str) -> None:
    p = _write(tmp_path, body)
    with pytest.raises(InputError) as err:
        load_suite(p)
    text = str(err.value)
    assert text.startswith(f"{p}:{where}: "), text
    assert message in text


def test_docs_list_every_action() -> None:
    doc = (ROOT / "docs" / "writing-suites.md").read_text()
    missing = [a for a in ACTIONS if f"`{a}`" not in doc]
    assert not missing, (f"docs/writing-suites.md lacks {missing}: regenerate with "
                         "python -m harness.suites.steps.registry")
    assert reference_markdown() in doc, "step reference out of date: python -m harness.suites.steps.registry"


def test_shipped_suites_validate() -> None:
    paths = sorted((ROOT / "suites").rglob("*.suite.yaml"))
    assert paths
    for p in paths:
        assert load_suite(p).cases


def test_titles_are_filled_from_each_variant(tmp_path: Path) -> None:
    p = _write(tmp_path, """  - id: c1
    title: "A ${denomination} wager returns ${award}"
    clauses: [pa-midi-r9-f1-royal9]
    params: [{denomination: 5, award: "$30"}, {denomination: 1, award: "$6"}]
    steps:
      - open_round
      - wager: {seat: 1}
      - deal: {cards: "QH 4S 9D 3C"}
      - expect_payout: {seat: 1, returned: "${award}"}
""")
    assert [c.title for c in load_suite(p).cases] == ["A 5 wager returns $30", "A 1 wager returns $6"]


def test_a_title_placeholder_no_variant_fills_is_refused(tmp_path: Path) -> None:
    p = _write(tmp_path, """  - id: c1
    title: "Returns ${award}"
    clauses: [pa-midi-r9-f1-royal9]
    params: [{denomination: 5, award: "$30"}, {denomination: 1}]
    steps:
      - open_round
      - wager: {seat: 1}
      - deal: {cards: "QH 4S 9D 3C"}
      - expect_payout: oracle
""")
    with pytest.raises(InputError, match=r"x.suite.yaml:6:12: .*'\$\{award\}' in the title is not a parameter "
                                         r"in params variant 2"):
        load_suite(p)


def test_no_shipped_title_is_a_template() -> None:
    for p in sorted((ROOT / "suites").rglob("*.suite.yaml")):
        for case in load_suite(p).cases:
            assert "${" not in case.title, (p, case.name, case.title)
