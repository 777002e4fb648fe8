"""Royal 9 oracle (629a Royal 9 (b), (e)-(g)): every case the text names, and the interpretations."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.cards import Card, parse_card, parse_cards
from harness.errors import InputError
from harness.games.interpretations import Interpretations
from harness.games.royal9 import (
    CATEGORIES,
    Royal9Table,
    hand_key,
    parse_combo,
    royal9_floors,
    royal9_paytable,
)

# (f)(1) and (g)(1) as printed, in cents
FIXED = {5: {"mega-envy": 500000, "suited-royal9-tie": 150000, "royal9-tie": 25000,
             "suited-royal9": 5000, "royal9": 2500},
         1: {"mega-envy": 100000, "suited-royal9-tie": 30000, "royal9-tie": 5000,
             "suited-royal9": 1000, "royal9": 500}}
METERS = {"mega": 5_000_000, "major": 45_000, "minor": 46_000}
LAYOUT = {1: "KS9S", 2: "KH9H", 3: "KD9C", 4: "KC9D", 5: "KS9H"}


def table(denomination: int = 5, layout: dict[int, str] | None = None, **overrides: bool) -> Royal9Table:
    combos = {s: parse_combo(c) for s, c in (layout or LAYOUT).items()}
    interp = Interpretations.from_overrides({k.replace("_", "-"): v for k, v in overrides.items()})
    return Royal9Table(combos, denomination, interpretations=interp)


def deal(p: str, b: str) -> list[Card]:
    """First four cards from Player's and Banker's two-card hands (deal order P, B, P, B)."""
    pc, bc = parse_cards(p), parse_cards(b)
    return [pc[0], bc[0], pc[1], bc[1]]


def test_paytables_are_the_regulation() -> None:
    for denom, fixed in FIXED.items():
        pays = royal9_paytable(denom)
        assert list(pays) == list(CATEGORIES)
        for cat, cents in fixed.items():
            assert pays[cat].kind == "fixed" and int(pays[cat].value) == cents
        assert [(pays[m].kind, pays[m].meter) for m in ("mega", "major", "minor")] == [
            ("meter", "mega"), ("meter", "major"), ("meter", "minor")]
    assert royal9_floors(5) == {"mega": 5_000_000, "major": 45_000, "minor": 45_000}
    assert royal9_floors(1) == {"mega": 1_000_000, "major": 9_000, "minor": 9_000}


@pytest.mark.parametrize(("a", "b", "royal"), [
    ("KS", "9H", True), ("9H", "KS", True), ("QD", "9D", True), ("JC", "9S", True),
    ("TS", "9S", False), ("9S", "9H", False), ("KS", "8S", False), ("KS", "QS", False),
])
def test_hand_key_face_and_nine_either_order(a: str, b: str, royal: bool) -> None:
    key = hand_key(parse_card(a), parse_card(b))
    assert (key is not None) is royal
    if key is not None:
        assert key[0].is_face and key[1].rank == 9


def test_order_sensitive_interpretation() -> None:
    t = table(r9_order_insensitive=False)
    assert t.resolve(deal("9H QD", "2C 3C")).seat(2).category is None
    assert t.resolve(deal("QD 9H", "2C 3C")).seat(2).category == "royal9"


def test_mega_to_owner_envy_to_every_other_wager() -> None:
    r = table().resolve(deal("KS 9S", "9S KS"), meters=METERS)
    owner = r.seat(1)
    assert owner.combo_on == "both" and owner.category == "mega" and owner.meters_hit == ("mega",)
    assert owner.settlement is not None and owner.settlement.returned == 500 + METERS["mega"]
    assert "suited-royal9-tie" in owner.qualifies and "major" not in owner.qualifies
    assert "mega-envy" not in owner.qualifies  # r9-envy-for-mega-winner false
    for seat in (2, 3, 4, 5):
        s = r.seat(seat)
        assert s.category == "mega-envy" and s.meters_hit == ()
        assert s.settlement is not None and s.settlement.returned == 500 + 500000
    assert r.meters_hit == ("mega",)


def test_envy_when_owner_has_no_wager() -> None:
    r = table().resolve(deal("KH 9H", "KH 9H"), wagers={1, 3}, meters=METERS)
    owner = r.seat(2)
    assert not owner.wager and owner.combo_on == "both" and owner.settlement is None
    assert owner.category is None
    assert r.meters_hit == ()  # nobody can win the mega: the meter is not hit
    assert r.seat(1).category == "mega-envy" and r.seat(3).category == "mega-envy"
    assert r.seat(4).settlement is None and r.seat(4).category is None


def test_envy_without_wager_override() -> None:
    r = table(r9_envy_requires_wager=False).resolve(deal("KH 9H", "KH 9H"), wagers={1})
    s4 = r.seat(4)
    assert s4.category == "mega-envy" and s4.settlement is not None
    assert (s4.settlement.stake, s4.settlement.returned) == (0, 500000)
    assert r.seat(2).category is None  # the owner without a wager still wins nothing


def test_envy_for_mega_winner_override_under_sum_of_lines() -> None:
    r = table(r9_envy_for_mega_winner=True, r9_one_award_per_wager=False).resolve(
        deal("KS 9S", "KS 9S"), meters=METERS)
    owner = r.seat(1)
    assert owner.awarded == ("mega", "mega-envy", "suited-royal9-tie", "royal9-tie", "suited-royal9", "royal9")
    assert owner.settlement is not None
    assert owner.settlement.returned == 500 + METERS["mega"] + 500000 + 150000 + 25000 + 5000 + 2500


def test_two_personal_combinations_major_and_minor() -> None:
    # seat 3's KD9C on Player (minor), seat 4's KC9D on Banker (major)
    r = table().resolve(deal("9C KD", "KC 9D"), meters=METERS)
    assert r.seat(3).combo_on == "player" and r.seat(3).category == "minor"
    assert r.seat(4).combo_on == "banker" and r.seat(4).category == "major"
    assert r.seat(3).settlement is not None and r.seat(3).settlement.returned == 500 + METERS["minor"]
    assert r.seat(4).settlement is not None and r.seat(4).settlement.returned == 500 + METERS["major"]
    for seat in (1, 2, 5):
        assert r.seat(seat).category == "royal9-tie"
        assert "mega-envy" not in r.seat(seat).qualifies
    assert r.meters_hit == ("major", "minor")


def test_suited_personal_combo_owner_takes_the_higher_row() -> None:
    r = table().resolve(deal("2C 3D", "KS 9S"))
    assert r.seat(1).qualifies == ("major", "suited-royal9", "royal9")
    assert r.seat(1).category == "major"
    assert r.seat(2).category == "suited-royal9"  # nobody else's combo: a suited Royal 9 for them
    assert r.banker_suited and not r.player_royal9


def test_own_combo_missed_still_wins_generic_lines() -> None:
    r = table().resolve(deal("QH 9H", "JD 9S"))
    assert r.player_suited and not r.banker_suited
    for seat in LAYOUT:
        s = r.seat(seat)
        assert s.combo_on is None and s.category == "royal9-tie" and s.meters_hit == ()
        assert s.settlement is not None and s.settlement.returned == 500 + 25000


def test_king_nine_of_nobody_is_just_a_royal9() -> None:
    r = table().resolve(deal("KH 9C", "5C 6D"))
    assert all(r.seat(s).category == "royal9" for s in LAYOUT)
    assert r.meters_hit == ()
    r = table().resolve(deal("KD 9D", "5C 6D"))
    assert all(r.seat(s).category == "suited-royal9" for s in LAYOUT)


def test_no_royal9_loses_every_wager() -> None:
    r = table().resolve(parse_cards("TS 9H 9D TC"), wagers={1, 2})
    assert r.seat(1).settlement is not None and r.seat(1).settlement.returned == 0
    assert r.seat(3).settlement is None
    assert r.meters_hit == ()


def test_rank_by_row_versus_amount() -> None:
    # seat 1's KS9S on Player (minor) and a suited Royal 9 on Banker: suited tie $1,500 > minor $460
    cards = deal("KS 9S", "QH 9H")
    assert table().resolve(cards, meters=METERS).seat(1).category == "minor"
    r = table(r9_rank_by_amount=True).resolve(cards, meters=METERS)
    assert r.seat(1).category == "suited-royal9-tie" and r.meters_hit == ()
    big = dict(METERS, minor=200000)
    assert table(r9_rank_by_amount=True).resolve(cards, meters=big).seat(1).category == "minor"


def test_mega_also_major_and_minor_when_not_excluded() -> None:
    t = table(r9_mega_excludes_major_minor=False, r9_one_award_per_wager=False)
    r = t.resolve(deal("KS 9S", "KS 9S"), meters=METERS)
    assert r.seat(1).meters_hit == ("mega", "major", "minor")
    assert r.meters_hit == ("mega", "major", "minor")


def test_one_dollar_denomination() -> None:
    t = table(1)
    r = t.resolve(deal("QH 9H", "JD 9D"))
    s = r.seat(2).settlement
    assert s is not None and (s.stake, s.returned) == (100, 100 + 30000)
    r = t.resolve(deal("KS 9S", "KS 9S"))  # default meters: the $1 floors
    assert r.seat(1).settlement is not None and r.seat(1).settlement.returned == 100 + 1_000_000


def test_unsuited_combinations() -> None:
    with pytest.raises(InputError, match="only one position"):
        table(r9_personal_combo_suited=False)
    t = table(layout={4: "KS9S"}, r9_personal_combo_suited=False)
    r = t.resolve(deal("KH 9D", "KC 9S"), wagers={4, 6}, meters=METERS)
    assert r.seat(4).category == "mega" and r.seat(6).category == "mega-envy"


@pytest.mark.parametrize(("combos", "message"), [
    ({1: "KS9S", 2: "9SKS"}, "same as seat 1's"),
    ({10: "KS9S"}, "positions are 1 to 9"),
])
def test_bad_tables(combos: dict[int, str], message: str) -> None:
    with pytest.raises(InputError, match=message):
        Royal9Table({s: parse_combo(c) for s, c in combos.items()})


@pytest.mark.parametrize(("text", "message"), [
    ("QS9S", "a king and a nine"), ("KS9", "expected a king and a nine"), ("KX9S", "unknown suit"),
])
def test_bad_combo_text(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_combo(text, 1)


def test_combo_notation() -> None:
    ks, nh = parse_card("KS"), parse_card("9H")
    assert parse_combo("KS9H") == parse_combo("9H-KS") == parse_combo("K♠9♥") == (ks, nh)


# --- property: the cached oracle agrees with a plain reading of the regulation --------------

def naive(first4: list[Card], combos: dict[int, tuple[Card, Card]], wagers: set[int], denom: int,
          meters: dict[str, int]) -> dict[int, tuple[str | None, int]]:
    def r9(h: tuple[Card, Card]) -> bool:
        return sorted(c.rank >= 11 for c in h) == [False, True] and any(c.rank == 9 for c in h)

    def combo(h: tuple[Card, Card]) -> tuple[Card, Card] | None:
        if not r9(h) or not any(c.rank == 13 for c in h):
            return None
        return (h[0], h[1]) if h[0].rank == 13 else (h[1], h[0])

    p, b = (first4[0], first4[2]), (first4[1], first4[3])
    suited = [r9(h) and h[0].suit == h[1].suit for h in (p, b)]
    cp, cb = combo(p), combo(b)
    mega_seat = next((s for s, c in combos.items() if c == cp == cb), None)
    pay = {**FIXED[denom], **meters}
    out: dict[int, tuple[str | None, int]] = {}
    for seat in wagers:
        own = combos.get(seat)
        cats = []
        if own is not None and seat == mega_seat:
            cats.append("mega")
        elif own is not None:
            if cb == own:
                cats.append("major")
            if cp == own:
                cats.append("minor")
        if mega_seat is not None and seat != mega_seat:
            cats.append("mega-envy")
        if r9(p) and r9(b):
            cats.append("suited-royal9-tie" if all(suited) else "royal9-tie")
        elif any(suited):
            cats.append("suited-royal9")
        elif r9(p) or r9(b):
            cats.append("royal9")
        best = min(cats, key=CATEGORIES.index) if cats else None
        out[seat] = (best, 0 if best is None else 100 * denom + pay[best])
    return out


RELEVANT = [Card(r, s) for r in (13, 12, 11, 9, 10, 5) for s in "SHDC"]
KINGNINE = [(Card(13, s), Card(9, t)) for s in "SHDC" for t in "SHDC"]


@settings(max_examples=400, deadline=None)
@given(
    cards=st.lists(st.sampled_from(RELEVANT), min_size=4, max_size=4),
    combos=st.lists(st.sampled_from(KINGNINE), min_size=0, max_size=9, unique=True),
    wager_mask=st.integers(0, 511),
    denom=st.sampled_from([5, 1]),
)
def test_oracle_matches_plain_reading(cards: list[Card], combos: list[tuple[Card, Card]], wager_mask: int,
                                      denom: int) -> None:
    seat_combos = {i + 1: c for i, c in enumerate(combos)}
    wagers = {s for s in range(1, 10) if wager_mask >> (s - 1) & 1}
    t = Royal9Table(seat_combos, denom)
    got = t.resolve(cards, wagers, METERS)
    want = naive(cards, seat_combos, wagers, denom, METERS)
    for seat, (cat, returned) in want.items():
        s = got.seat(seat)
        assert s.category == cat
        assert s.settlement is not None and s.settlement.returned == returned
    hit = {m for s in want.values() for m in ("mega", "major", "minor") if s[0] == m}
    assert set(got.meters_hit) == hit
    # the same round through the cache gives the same answer
    assert t.resolve(cards, frozenset(wagers), METERS) == got


# --- interpretations ---------------------------------------------------------------------------

def test_interpretations_reject_unknown_ids_and_bad_values() -> None:
    with pytest.raises(InputError, match="unknown id"):
        Interpretations.from_overrides({"r9-envy-requires-wagers": False})
    with pytest.raises(InputError, match="expected true or false"):
        Interpretations.from_overrides({"r9-envy-requires-wager": "no"})
    i = Interpretations.from_overrides({"r9-envy-requires-wager": False})
    assert not i.r9_envy_requires_wager and i.as_dict()["r9-envy-requires-wager"] is False


def test_interpretation_defaults_agree_with_catalogue() -> None:
    from harness.games.interpretations import DEFAULTS, catalogue

    cat = catalogue()
    assert cat is not None, "the regulation catalogue ships with the package"
    listed = cat.defaults()
    for interp_id, default in DEFAULTS.items():
        assert listed.get(interp_id, default) == default, interp_id
    assert Interpretations.defaults().as_dict()["r9-one-award-per-wager"] is True


