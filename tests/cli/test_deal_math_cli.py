"""``tablecert deal`` and ``tablecert math``: flags, JSON keys, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_deal_baccarat_with_royal9(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "deal", "--game", "baccarat", "--cards", "KS KD 9S 9H 4C",
                   "--royal9", "--seat-combos", "1=KS9S,2=KD9H,3=KH9H", "--wagers", "1,2",
                   "--meters", "mega=6000000,major=50000")
    assert out["player"] == {"cards": ["KS", "9S"], "total": 9}
    assert out["banker"] == {"cards": ["KD", "9H"], "total": 9}
    assert (out["winner"], out["natural"], out["cards_used"], out["unused"]) == ("tie", True, 4, ["4C"])
    wagers = {w["type"]: w for w in out["wagers"]}
    assert set(wagers) == {"player", "banker", "tie"}
    assert wagers["tie"] == {"type": "tie", "result": "win", "stake": 500, "returned": 4500, "net": 4000}
    r9 = out["royal9"]
    assert r9["meters"] == {"mega": 6000000, "major": 50000, "minor": 45000}
    seats = {s["seat"]: s for s in r9["seats"]}
    assert (seats[1]["category"], seats[1]["combo_on"], seats[1]["returned"]) == ("minor", "player", 45500)
    assert (seats[2]["category"], seats[2]["combo_on"], seats[2]["returned"]) == ("major", "banker", 50500)
    assert seats[3]["wager"] is False and seats[3]["category"] is None
    assert r9["meters_hit"] == ["major", "minor"]
    assert out["interpretations"]["r9-one-award-per-wager"] is True


def test_deal_ez_and_commission(capsys: pytest.CaptureFixture[str]) -> None:
    # Player 2+4=6 stands, Banker 3+4=7 stands: Banker wins with two cards
    out = run_json(capsys, "deal", "--game", "baccarat", "--cards", "2S 3H 4D 4C", "--stake", "10000")
    banker = next(w for w in out["wagers"] if w["type"] == "banker")
    assert banker["returned"] == 19500 and out["commission"] == "5"
    out = run_json(capsys, "deal", "--game", "ez-baccarat", "--cards", "2S 3H 4D 4C")
    assert {w["type"] for w in out["wagers"]} == {"player", "banker", "tie", "dragon7", "panda8"}
    assert next(w for w in out["wagers"] if w["type"] == "banker")["returned"] == 1000


def test_deal_blackjack_hit_and_run(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "deal", "--game", "blackjack", "--cards", "2S 2D 2C 2H 3S 3D AS 3C 9H",
                   "--meter", "250000")
    assert out["dealer"]["n_cards"] == 8 and out["dealer"]["total"] == 18 and out["unused"] == ["9H"]
    w = out["wagers"][0]
    assert (w["category"], w["pay"], w["returned"], w["meter"]) == ("8-plus-cards", "100% of meter", 250500, 250000)
    soft = run_json(capsys, "deal", "--game", "blackjack", "--cards", "AS 6D 4C", "--stand-soft17")
    assert soft["dealer"]["n_cards"] == 2 and soft["wagers"][0]["category"] is None


def test_deal_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deal", "--game", "baccarat", "--cards", "KS KS 9S 9S", "--royal9"]) == 0
    text = capsys.readouterr().out
    assert "Royal 9 ($5 paytable)" in text and "mega" in text and "mega-envy" in text
    assert "meters hit (reset): mega" in text


@pytest.mark.parametrize(("argv", "message"), [
    (["--game", "baccarat", "--cards", "KS 9H KX 4C"], "tablecert deal: card 3 'KX': unknown suit 'X'"),
    (["--game", "baccarat", "--cards", "2S 3H 2D 2C"], "tablecert deal: round needs a 5th card: Player draws on 4"),
    (["--game", "blackjack", "--cards", "TS 5D"], "tablecert deal: round needs a 3rd card: dealer hits 15"),
    (["--game", "baccarat", "--cards", "KS KS 9S 9S", "--decks", "1"],
     "tablecert deal: card 2 'KS': copy 2 of KS, but a 1-deck shoe holds only 1"),
    (["--game", "baccarat", "--cards", "KS 9H 9S KD", "--royal9", "--seat-combos", "1=QS9S"],
     "tablecert deal: seat 1 combination 'QS9S': a personal combination is a king and a nine (e)(5)"),
    (["--game", "baccarat", "--cards", "KS 9H 9S KD", "--royal9", "--meters", "jackpot=5"],
     "tablecert deal: --meters 'jackpot=5': expected mega=CENTS, major=CENTS or minor=CENTS"),
    (["--game", "blackjack", "--cards", "KS 9H", "--royal9"],
     "tablecert deal: --royal9: the Royal 9 wager is a Midibaccarat wager, not a blackjack one"),
])
def test_deal_errors_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["deal", *argv]) == 2
    err = capsys.readouterr().err
    assert err.strip() == message


def test_interpretation_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deal", "--game", "baccarat", "--cards", "KS 9S 9S KS", "--interpretation", "r9-nope=true"]) == 2
    assert "unknown id" in capsys.readouterr().err
    out = run_json(capsys, "deal", "--game", "baccarat", "--cards", "KS KH 9S 9H", "--royal9",
                   "--seat-combos", "1=KS9S,2=KH9H", "--wagers", "1,2",
                   "--interpretation", "r9-one-award-per-wager=false")
    s1 = next(s for s in out["royal9"]["seats"] if s["seat"] == 1)
    assert s1["awarded"] == ["minor", "suited-royal9-tie", "royal9-tie", "suited-royal9", "royal9"]


def test_math_baccarat_reference(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "math", "--game", "ez-baccarat", "--decks", "8")
    assert out["total"] == 4_998_398_275_503_360
    assert out["outcomes"]["banker"]["count"] == 2_292_252_566_437_888
    edges = {w["wager"]: w["house_edge"] for w in out["wagers"]}
    assert round(edges["banker"] * 100, 4) == 1.0183 and round(edges["dragon7"] * 100, 4) == 7.6113


def test_math_royal9(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "math", "--game", "royal9", "--decks", "8")
    assert out["total"] == 416 * 415 * 414 * 413
    assert out["hands"]["player-royal9"]["count"] * 172640 == 6144 * out["total"]
    assert [t["denomination"] for t in out["paytables"]] == [5, 1]
    seat1 = out["paytables"][0]["seats"][0]
    assert seat1["outcomes"]["mega"]["count"] == 8 * 8 * 2 * 7 * 7 * 2
    assert 0 < seat1["return"] < 1 and abs(seat1["return"] + seat1["house_edge"] - 1) < 1e-12


def test_math_hit_and_run(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "math", "--game", "hit-and-run", "--decks", "6", "--hit-soft17")
    bust = {k: round(v["bust"]["probability"], 6) for k, v in out["by_cards"].items()}
    assert bust == {"2": 0.0, "3": 0.173032, "4": 0.089392, "5": 0.020473, "6": 0.002638, "7": 0.000214,
                    "8+": 0.000012}
    lines = {line["category"]: line for line in out["wager"]["lines"]}
    assert lines["7-cards"]["returned_per_unit"] == 200
    assert sum(v["count"] for v in out["by_cards"].values()) == out["total"]


def test_help_has_example(capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in ("deal", "math"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert "Example:" in capsys.readouterr().out


def test_installed_command_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "deal", "--game", "baccarat", "--cards", "KS 9H KX"],
        check=False, capture_output=True, text=True, timeout=60, cwd=ROOT,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == "tablecert deal: card 3 'KX': unknown suit 'X'"
    assert "Traceback" not in proc.stderr
