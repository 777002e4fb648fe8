"""The stack builder: every want kind verified by the oracles, impossibility, shoe limits, fixtures."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.cards import Card, parse_cards
from harness.errors import InputError
from harness.games.baccarat import BaccaratRound, deal_round
from harness.games.blackjack import dealer_hand
from harness.games.interpretations import Interpretations
from harness.games.royal9 import Royal9Table, parse_combo
from harness.stackbuilder import Impossible, NotFound, Setup, Stack, build_stack, parse_want, verify
from harness.stackbuilder.fixtures import FILES, fixture_setups, render_file, write_fixtures
from harness.stackbuilder.render import SPEC
from harness.suites.load.stacks import all_stacks
from harness.yamlload import load_yaml

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = {1: "KS9S", 2: "KH9H", 3: "KD9D", 4: "KC9C", 5: "KS9H", 6: "KH9D", 7: "KD9C"}
COMBOS = {seat: parse_combo(text) for seat, text in LAYOUT.items()}

BACCARAT_WANTS = [
    "player", "banker", "tie", "natural", "natural-8", "natural-9", "no-natural", "dragon7", "panda8",
    "tableau:banker=3,p3=8", "tableau:banker=6,p3=7,draws", "tableau:banker=4,p3=1,stands",
    "player-stands:banker=5", "player-stands:banker=7", "banker-draws", "banker-stands",
    "royal9:player", "royal9:banker", "suited-royal9:player", "suited-royal9:banker", "royal9-tie",
    "suited-royal9-tie", "major:seat=1", "minor:seat=6", "mega:seat=5", "mega-envy", "no-royal9", "ten-not-face",
    "royal9:banker+banker", "minor:seat=3+player", "mega-envy+tie", "no-royal9+dragon7", "ten-not-face+player",
    "mega:seat=7+face-first:player+nine-first:banker", "royal9:banker+face-first:banker",
]
HR_WANTS = ["dealer-cards=2", "dealer-cards=5", "dealer-cards=7", "dealer-cards=8-plus", "dealer-cards=12",
            "dealer-blackjack", "dealer-bust-cards=3", "dealer-bust-cards=6", "dealer-stands",
            "dealer-cards=6+dealer-stands"]


def build(game: str, want: str, **kw: object) -> Stack:
    kw.setdefault("seat_combos", COMBOS if game != "hit-and-run" else {})
    result = build_stack(game, want, **kw)  # type: ignore[arg-type]
    assert isinstance(result, Stack), result
    return result


def _two(a: Card, b: Card) -> int:
    return (a.baccarat_value + b.baccarat_value) % 10


#: the same wants judged straight from deal_round, independently of the builder's verifier
INDEPENDENT: dict[str, Callable[[BaccaratRound], bool]] = {
    "player": lambda r: r.winner == "player",
    "banker": lambda r: r.winner == "banker",
    "tie": lambda r: r.winner == "tie",
    "natural": lambda r: r.natural,
    "natural-8": lambda r: r.natural and max(_two(*r.player[:2]), _two(*r.banker[:2])) == 8,
    "natural-9": lambda r: r.natural and max(_two(*r.player[:2]), _two(*r.banker[:2])) == 9,
    "no-natural": lambda r: not r.natural,
    "dragon7": lambda r: r.winner == "banker" and r.banker_total == 7 and len(r.banker) == 3,
    "panda8": lambda r: r.winner == "player" and r.player_total == 8 and len(r.player) == 3,
    "tableau:banker=3,p3=8": lambda r: _two(*r.banker[:2]) == 3 and r.player[2].baccarat_value == 8
    and len(r.banker) == 2,
    "tableau:banker=6,p3=7,draws": lambda r: _two(*r.banker[:2]) == 6 and r.player[2].baccarat_value == 7
    and len(r.banker) == 3,
    "player-stands:banker=5": lambda r: len(r.player) == 2 and not r.natural and _two(*r.banker[:2]) == 5
    and len(r.banker) == 3,
    "banker-draws": lambda r: len(r.banker) == 3,
    "banker-stands": lambda r: len(r.banker) == 2 and not r.natural,
}


@pytest.mark.parametrize("want", BACCARAT_WANTS)
def test_every_baccarat_want_builds_a_verified_round(want: str) -> None:
    s = build("baccarat", want)
    assert verify(parse_want(want, "baccarat"), s.cards, s.setup) == []
    rnd = deal_round(s.cards)
    assert rnd.cards_used == len(s.cards)
    assert max(Counter(s.cards).values()) <= 8
    for part in want.split("+"):
        if part in INDEPENDENT:
            assert INDEPENDENT[part](rnd), part


@pytest.mark.parametrize("want", HR_WANTS)
def test_every_hit_and_run_want_builds_a_verified_hand(want: str) -> None:
    s = build("hit-and-run", want, decks=6, hit_soft17=True)
    hand = dealer_hand(s.cards, hit_soft17=True)
    assert hand.n_cards == len(s.cards)
    n = want.split("+", maxsplit=1)[0].partition("=")[2]
    if want.startswith("dealer-cards="):
        assert hand.n_cards >= 8 if n == "8-plus" else hand.n_cards == int(n)
        assert not hand.blackjack
    if want.startswith("dealer-bust-cards="):
        assert hand.bust and hand.n_cards == int(n)
    if "dealer-stands" in want:
        assert not hand.bust and not hand.blackjack and 17 <= hand.total <= 21
    assert hand.blackjack == (want == "dealer-blackjack")
    assert verify(parse_want(want, "hit-and-run"), s.cards, s.setup) == []


def test_royal9_banker_and_banker_wins_checked_independently() -> None:
    s = build("baccarat", "royal9:banker+banker")
    rnd = deal_round(s.cards)
    assert rnd.winner == "banker"
    b1, b2 = rnd.banker[:2]
    assert {b1.rank >= 11, b2.rank == 9} == {True} or {b2.rank >= 11, b1.rank == 9} == {True}
    assert b1.suit != b2.suit
    result = Royal9Table(COMBOS).resolve(rnd.first_four())
    assert {seat.category for seat in result.seats} == {"royal9"}
    assert result.meters_hit == ()


def test_personal_lines_pay_the_right_seat_and_nobody_else_a_meter() -> None:
    table = Royal9Table(COMBOS)
    for kind, meter in (("major", "major"), ("minor", "minor"), ("mega", "mega")):
        for seat in COMBOS:
            s = build("baccarat", f"{kind}:seat={seat}")
            r = table.resolve(deal_round(s.cards).first_four())
            assert r.seat(seat).category == kind
            assert r.meters_hit == (meter,)
            others = {x.category for x in r.seats if x.seat != seat}
            assert others == ({"mega-envy"} if kind == "mega" else others - {"major", "minor", "mega"})


def test_ten_not_face_has_a_ten_and_a_nine_and_no_royal9() -> None:
    s = build("baccarat", "ten-not-face")
    rnd = deal_round(s.cards)
    assert {rnd.player[0].rank, rnd.player[1].rank} == {10, 9}
    assert all(x.category is None for x in Royal9Table(COMBOS).resolve(rnd.first_four()).seats)


def test_verifier_rejects_wrong_stacks() -> None:
    setup = Setup("baccarat", 8, True, COMBOS)
    # Player K♠ 9♠ is seat 1's combination: a minor, not a plain Royal 9
    assert verify(parse_want("royal9:player", "baccarat"), parse_cards("KS 3C 9S KH"), setup)
    assert verify(parse_want("ten-not-face", "baccarat"), parse_cards("JS 3C 9C KH"), setup)
    assert verify(parse_want("banker", "baccarat"), parse_cards("9S 3C KS KH"), setup)
    # a trailing card the round does not use, and a round short of a card
    assert any("uses 4 of the 5" in p for p in verify(parse_want("player", "baccarat"),
                                                           parse_cards("9S 3C KS KH 2D"), setup))
    assert verify(parse_want("player", "baccarat"), parse_cards("2S 3C 2D KH"), setup)
    # the hand's first card: the nine, or the face card
    assert verify(parse_want("mega:seat=1+face-first:player", "baccarat"), parse_cards("9S KS KS 9S"), setup)
    assert not verify(parse_want("mega:seat=1+face-first:player+nine-first:banker", "baccarat"),
                      parse_cards("KS 9S 9S KS"), setup)
    assert verify(parse_want("mega:seat=1+face-first:banker", "baccarat"), parse_cards("KS 9S 9S KS"), setup)
    # the shoe: two K♠ in a one-deck shoe
    one = Setup("baccarat", 1, True, COMBOS)
    assert verify(parse_want("mega:seat=1", "baccarat"), parse_cards("KS KS 9S 9S"), one)
    hr = Setup("hit-and-run", 6, True)
    assert verify(parse_want("dealer-cards=3", "hit-and-run"), parse_cards("TS 7C"), hr)
    assert verify(parse_want("dealer-cards=2", "hit-and-run"), parse_cards("AS KC"), hr)  # a blackjack
    assert verify(parse_want("dealer-cards=3+dealer-stands", "hit-and-run"), parse_cards("TS 6C 9D"), hr)


@pytest.mark.parametrize(("game", "want", "kw", "reason"), [
    ("baccarat", "mega:seat=1", {"decks": 1}, "the same K♠ and 9♠ twice: impossible in a 1-deck shoe"),
    ("baccarat", "mega-envy", {"decks": 1}, "impossible in a 1-deck shoe"),
    ("baccarat", "tableau:banker=7,p3=5,draws", {}, "Banker 7 never draws"),
    ("baccarat", "tableau:banker=3,p3=8,draws", {}, "Banker 3 stands when Player's third card is 8"),
    ("baccarat", "tableau:banker=0,p3=8,stands", {}, "always draws"),
    ("baccarat", "tableau:banker=8,p3=1", {}, "natural"),
    ("baccarat", "dragon7+natural", {}, "'dragon7' and 'natural' never happen together"),
    ("baccarat", "player+tie", {}, "'player' and 'tie' never happen together"),
    ("baccarat", "minor:seat=3+panda8", {}, "Player two-card total 9 (a natural)"),
    ("baccarat", "royal9:player+royal9:banker", {}, "no two cards"),
    ("baccarat", "major:seat=8", {}, "seat 8 has no personal combination"),
    ("hit-and-run", "dealer-cards=14", {"decks": 6}, "the longest has 13 cards"),
    ("hit-and-run", "dealer-cards=1", {}, "starts with two cards"),
    ("hit-and-run", "dealer-bust-cards=2", {}, "cannot bust"),
    ("hit-and-run", "dealer-blackjack+dealer-cards=3", {}, "cannot have 2 and 3 cards"),
    ("hit-and-run", "dealer-cards=12", {"decks": 1}, "every hand checked, 1-deck shoe"),
])
def test_impossible_stacks_are_reported_with_a_reason(game: str, want: str, kw: dict, reason: str) -> None:
    kw.setdefault("seat_combos", COMBOS if game != "hit-and-run" else {})
    result = build_stack(game, want, **kw)
    assert isinstance(result, Impossible), result
    assert reason in result.reason


def test_mega_envy_needs_two_seats() -> None:
    result = build_stack("baccarat", "mega-envy", seat_combos={1: COMBOS[1]})
    assert isinstance(result, Impossible) and "at least two seats" in result.reason


def test_search_cap_gives_not_found_not_impossible() -> None:
    result = build_stack("hit-and-run", "dealer-cards=13", max_tries=50)
    assert isinstance(result, NotFound)
    assert result.reason.startswith("not found within")
    assert build_stack("baccarat", "mega:seat=2", seat_combos=COMBOS, max_tries=0).__class__ is NotFound


@pytest.mark.parametrize("want", ["player", "dragon7", "panda8", "royal9-tie", "suited-royal9-tie", "major:seat=4",
                                  "tableau:banker=2,p3=9"])
def test_one_deck_shoe_never_repeats_a_card(want: str) -> None:
    s = build("baccarat", want, decks=1)
    assert len(set(s.cards)) == len(s.cards)


def test_hit_and_run_respects_a_one_deck_shoe() -> None:
    s = build("hit-and-run", "dealer-cards=8-plus", decks=1)
    assert max(Counter(s.cards).values()) == 1
    assert Counter(c.rank for c in s.cards)[1] <= 4


def test_deterministic_by_seed() -> None:
    a = build("baccarat", "panda8", seed=7)
    b = build("baccarat", "panda8", seed=7)
    assert a.cards == b.cards
    seeds = {build("baccarat", "panda8", seed=n).cards for n in range(1, 6)}
    assert len(seeds) > 1


def test_stand_soft17_changes_the_dealer() -> None:
    s = build("hit-and-run", "dealer-cards=3+dealer-stands", hit_soft17=False)
    assert dealer_hand(s.cards, hit_soft17=False).n_cards == 3


def test_order_sensitive_interpretation_is_respected() -> None:
    interp = Interpretations.from_overrides({"r9-order-insensitive": False})
    s = build("baccarat", "royal9:player", interpretations=interp)
    assert s.cards[0].rank >= 11 and s.cards[2].rank == 9


@pytest.mark.parametrize(("text", "message"), [
    ("foo", "unknown want"),
    ("royal9:dealer", "'player' or 'banker'"),
    ("major:seat=x", "whole number"),
    ("major:seat=10", "1 to 9"),
    ("tableau:banker=3", "missing p3"),
    ("tableau", "needs parameters"),
    ("player+player", "given twice"),
    ("dealer-cards=5", "use --game hit-and-run"),
])
def test_bad_wants_are_input_errors(text: str, message: str) -> None:
    with pytest.raises(InputError) as exc:
        build_stack("baccarat", text)
    assert message in exc.value.message
    if message == "unknown want":
        assert "valid wants: player, banker" in exc.value.message


def test_hit_and_run_game_refuses_baccarat_wants() -> None:
    with pytest.raises(InputError, match="not a Hit and Run want"):
        build_stack("hit-and-run", "banker")


# --- fixtures ---------------------------------------------------------------------------------

class _Entry:
    def __init__(self, cards: str, game: str, want: str) -> None:
        self.cards, self.game, self.want = tuple(parse_cards(cards)), game, want


def load_fixtures(fixtures: Path = ROOT / "fixtures") -> dict[str, _Entry]:
    """The shipped stacks read directly (see the xfail below for harness.suites.load.stacks)."""
    out: dict[str, _Entry] = {}
    for path in sorted((fixtures / "stacks").glob("*.yaml")):
        doc = load_yaml(path)
        assert doc["spec"] == SPEC and set(doc) == {"spec", "stacks"}
        for name, e in doc["stacks"].items():
            assert set(e) == {"cards", "game", "want", "note"} and name not in out
            out[str(name)] = _Entry(str(e["cards"]), str(e["game"]), str(e["want"]))
    return out


def test_every_fixture_loads_through_the_suite_stacks_loader() -> None:
    stacks = all_stacks(ROOT / "fixtures")
    setups = fixture_setups(ROOT)
    assert set(stacks) == set(load_fixtures())
    for name, stack in stacks.items():
        assert verify(parse_want(stack.want, stack.game), stack.cards, setups[stack.game]) == [], name


def test_every_fixture_is_a_complete_verified_round() -> None:
    stacks = load_fixtures()
    setups = fixture_setups(ROOT)
    assert setups["baccarat"].seat_combos == COMBOS
    assert setups["hit-and-run"].decks == 6 and setups["hit-and-run"].hit_soft17 is True
    assert len(stacks) >= 140
    for name, stack in stacks.items():
        problems = verify(parse_want(stack.want, stack.game), stack.cards, setups[stack.game])
        assert problems == [], (name, problems)


def test_fixture_names_cover_every_line() -> None:
    names = set(load_fixtures())
    expected = {"r9-royal9-player", "r9-royal9-banker", "r9-suited-royal9-player", "r9-suited-royal9-banker",
                "r9-royal9-tie", "r9-suited-royal9-tie", "r9-mega-envy", "r9-no-royal9", "r9-ten-not-face",
                "bac-player-natural-9", "bac-banker-wins", "bac-tie", "bac-dragon7", "bac-panda8",
                "hr-dealer-cards-8-plus", "hr-dealer-blackjack", "hr-dealer-bust-5"}
    expected |= {f"r9-{k}-seat-{n}" for k in ("major", "minor", "mega") for n in COMBOS}
    expected |= {f"bac-tableau-b{b}-p{p}" for b in range(8) for p in range(10)}
    expected |= {f"bac-stand-b{b}" for b in range(8)}
    expected |= {f"hr-dealer-cards-{n}" for n in range(2, 8)}
    assert expected <= names, sorted(expected - names)


def test_tableau_fixtures_follow_the_tableau() -> None:
    stacks = load_fixtures()
    from harness.games.baccarat import BANKER_DRAWS

    for b in range(8):
        for p in range(10):
            rnd = deal_round(stacks[f"bac-tableau-b{b}-p{p}"].cards)
            assert rnd.player[2].baccarat_value == p
            assert (len(rnd.banker) == 3) == BANKER_DRAWS[b][p]


def test_fixtures_regenerate_identically(tmp_path: Path) -> None:
    (tmp_path / "device_profiles").mkdir()
    for name in ("emulated-midi-5.yaml", "emulated-hit-and-run.yaml"):
        shutil.copy(ROOT / "device_profiles" / name, tmp_path / "device_profiles" / name)
    written = write_fixtures(tmp_path)
    assert [p.stem for p in written] == list(FILES)
    for path in written:
        assert path.read_text(encoding="utf-8") == (ROOT / "fixtures" / "stacks" / path.name).read_text(
            encoding="utf-8"), f"{path.name} is stale: run `tablecert stack --write-fixtures`"


def test_render_file_round_trips(tmp_path: Path) -> None:
    s = build("baccarat", "dragon7", name="my-dragon")
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "x.yaml").write_text(render_file("x", [s]), encoding="utf-8")
    loaded = load_fixtures(tmp_path)["my-dragon"]
    assert loaded.cards == s.cards and loaded.want == "dragon7" and loaded.game == "baccarat"
    assert isinstance(loaded.cards[0], Card)
