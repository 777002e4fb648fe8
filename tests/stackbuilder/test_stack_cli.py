"""``tablecert stack``: output formats, exit codes, help."""

from __future__ import annotations

import json

import pytest

from harness.cards import parse_cards
from harness.cli import main
from harness.cli.deal import parse_seat_combos
from harness.stackbuilder import Setup, parse_want, verify
from harness.stackbuilder.render import pretty
from harness.yamlload import load_yaml_text, to_plain

LAYOUT = "1=KS9S,2=KH9H,3=KD9D,4=KC9C,5=KS9H,6=KH9D,7=KD9C"
COMBOS = parse_seat_combos(LAYOUT)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["stack", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_yaml_parses_back_and_is_the_verified_stack(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--game", "baccarat", "--want", "royal9:banker+banker", "--seat-combos", LAYOUT,
                       "--name", "r9-banker-wins", "--yaml")
    assert code == 0
    doc = to_plain(load_yaml_text(out))
    cards = doc["step"]["deal"]["cards"]
    entry = doc["stack"]["r9-banker-wins"]
    assert entry["cards"] == cards and entry["game"] == "baccarat" and entry["want"] == "royal9:banker+banker"
    assert entry["note"]
    setup = Setup("baccarat", 8, True, COMBOS)
    assert verify(parse_want(entry["want"], "baccarat"), parse_cards(cards), setup) == []


def test_sheet_lists_every_card_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--game", "baccarat", "--want", "dragon7", "--sheet")
    assert code == 0
    lines = [line for line in out.splitlines() if "→" in line]
    js = json.loads(run(capsys, "--game", "baccarat", "--want", "dragon7", "--json")[1])
    assert len(lines) == len(js["cards"]) == 6
    for i, (line, code_) in enumerate(zip(lines, js["cards"], strict=True), 1):
        assert line.strip().startswith(f"{i} →")
        assert line.rstrip().endswith(pretty(parse_cards(code_)[0]))
    assert "1 → Player first card:" in lines[0] and "Banker third card" in lines[5]
    assert "Expected result:" in out and "Dragon 7" in out
    assert "Check: 6 cards" in out


def test_default_output_has_sheet_and_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--game", "hit-and-run", "--want", "dealer-cards=7", "--decks", "6", "--hit-soft17")
    assert code == 0
    assert "STACKING SHEET" in out and "Dealer up card" in out and "7-cards line" in out
    assert "step:\n  deal: {cards:" in out and "game: hit-and-run" in out


def test_json_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--game", "baccarat", "--want", "major:seat=3", "--profile",
                       "device_profiles/emulated-midi-1.yaml", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["status"] == "found" and doc["want"] == "major:seat=3"
    assert doc["seat_combos"]["3"] == "KD9D" and doc["decks"] == 8
    assert len(doc["roles"]) == len(doc["cards"])
    assert doc["step"] == {"deal": {"cards": " ".join(doc["cards"])}}


def test_impossible_exits_2_with_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--game", "baccarat", "--want", "mega:seat=1", "--decks", "1")
    assert code == 2 and out == ""
    assert err.startswith("tablecert stack: impossible: mega:seat=1:") and "1-deck shoe" in err
    code, out, err = run(capsys, "--game", "baccarat", "--want", "tableau:banker=7,p3=4,draws", "--json")
    assert code == 2
    assert json.loads(out) == {"status": "impossible", "game": "baccarat", "want": "tableau:banker=7,p3=4,draws",
                               "reason": "Banker 7 never draws"}


def test_not_found_is_distinct_from_impossible(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--game", "hit-and-run", "--want", "dealer-cards=13", "--max-tries", "20", "--json")
    assert code == 2
    doc = json.loads(out)
    assert doc["status"] == "not-found" and doc["tries"] > 0
    assert "not found within" in err


def test_unknown_want_is_one_line_listing_valid_wants(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--game", "baccarat", "--want", "royal10:player")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "unknown want" in err and "mega-envy" in err and "Traceback" not in err


def test_missing_game_is_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--want", "player")
    assert code == 2 and "--game and --want are required" in err


def test_bad_seat_combos_are_input_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--game", "baccarat", "--want", "player", "--seat-combos", "1=KS9S,2=KS9S")
    assert code == 2 and "unique" in err


def test_help_has_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["stack", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "Example:" in out and 'tablecert stack --game baccarat --want "royal9:banker+banker"' in out
    assert "--write-fixtures" in out
