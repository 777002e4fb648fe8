"""The line-aware loader: positions, YAML 1.1 traps, refusals, syntax errors."""

from decimal import Decimal
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.yamlload import (
    Pos,
    YDecimal,
    YInt,
    YList,
    YMap,
    YStr,
    error_at,
    load_yaml,
    load_yaml_text,
    pos_of,
    to_plain,
)


def _fails(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        load_yaml_text(text, "f.yaml")
    return info.value


def test_positions_of_every_node() -> None:
    doc = load_yaml_text("name: x\nseats:\n  - {seat: 1, combo: [KS, 9H]}\n  - seat: 2\n    flag: true\n")
    assert isinstance(doc, YMap)
    assert doc.pos == Pos(1, 1)
    assert doc.key_pos["seats"] == Pos(2, 1)
    seats = doc["seats"]
    assert isinstance(seats, YList)
    assert seats.pos == Pos(3, 3)
    assert seats.item_pos == [Pos(3, 5), Pos(4, 5)]
    first = seats[0]
    assert first.value_pos["seat"] == Pos(3, 12)
    assert pos_of(first["combo"][1]) == Pos(3, 27)
    assert pos_of(first["seat"]) == Pos(3, 12)
    # bool/None carry no position of their own: the parent gives it
    assert pos_of(seats[1]["flag"]) is None
    assert seats[1].loc("flag").pos == Pos(5, 11)


@pytest.mark.parametrize(
    ("text", "expected", "kind"),
    [
        ("on", "on", YStr), ("off", "off", YStr), ("yes", "yes", YStr), ("no", "no", YStr),
        ("y", "y", YStr), ("n", "n", YStr), ("Yes", "Yes", YStr), ("NO", "NO", YStr),
        ("010", "010", YStr), ("0x1F", "0x1F", YStr), ("1_000", "1_000", YStr), ("0o17", "0o17", YStr),
        ("1:30", "1:30", YStr), ("2024-01-31", "2024-01-31", YStr), ("9H", "9H", YStr),
        ("10", 10, YInt), ("-3", -3, YInt), ("0", 0, YInt),
        ("12.50", Decimal("12.50"), YDecimal), ("1e3", Decimal("1000"), YDecimal),
    ],
)
def test_yaml11_traps_keep_what_was_written(text: str, expected: object, kind: type) -> None:
    value = load_yaml_text(f"v: {text}\n")["v"]
    assert type(value) is kind
    assert value == expected


def test_booleans_and_null() -> None:
    doc = load_yaml_text("a: true\nb: False\nc: null\nd: ~\ne:\n")
    assert doc == {"a": True, "b": False, "c": None, "d": None, "e": None}
    assert doc["a"] is True


def test_leading_zero_plain_versus_quoted() -> None:
    doc = load_yaml_text("a: 010\nb: '010'\n")
    assert doc["a"].plain is True
    assert doc["b"].plain is False


def test_no_float_ever() -> None:
    value = load_yaml_text("v: 0.1\n")["v"]
    assert isinstance(value, Decimal)
    assert not isinstance(value, float)
    assert value == Decimal("0.1")
    assert value.text == "0.1"


def test_to_plain_drops_positions_and_decimals() -> None:
    plain = to_plain(load_yaml_text("a: [1, '2', 1.50, on, true, null]\n"))
    assert plain == {"a": [1, "2", "1.50", "on", True, None]}
    assert type(plain) is dict
    assert type(plain["a"][0]) is int
    assert type(plain["a"][1]) is str


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("a: 1\nb: 2\na: 3\n", "3:1", "duplicate key 'a' (first at line 1)"),
        ("m: {x: 1, x: 2}\n", "1:11", "duplicate key 'x' (first at line 1)"),
        ("a:\n\tb: 1\n", "2:1", "tab character"),
        ("a: !!python/object:os.system {}\n", "1:4", "tag !!python/object:os.system is not allowed"),
        ("a: !!python/name:os.system\n", "1:4", "is not allowed"),
        ("a: !custom 1\n", "1:4", "tag !custom is not allowed"),
        ("a: !!timestamp 2024-01-01\n", "1:4", "is not allowed"),
        ("base: {x: 1}\nb:\n  <<: {x: 2}\n", "3:3", "merge keys (<<) are not supported"),
        ("a: &x 1\nb: *x\n", "2:4", "alias *x is not supported"),
        ("a: [1, 2\n", "2:1", "expected ',' or ']'"),
        ("a: b: c\n", "1:5", "mapping values are not allowed here"),
        ("a: !!int 010\n", "1:4", "leading zero in 010: write 10 or quote it"),
        ("a: !!bool yes\n", "1:4", "'yes' is not a boolean"),
        ("a: 1\n---\nb: 2\n", "2:1", "expected a single document"),
        ("? [a, b]\n: 1\n", "1:3", "a key must be a plain value"),
        ("a: 'unterminated\n", "1:4", "this quoted string is not closed on its line"),
        ("a: \x07\n", "1:4", "control character #x0007"),
    ],
)
def test_errors_are_positioned(text: str, where: str, message: str) -> None:
    err = _fails(text)
    assert f"{err.line}:{err.col}" == where, str(err)
    assert message in err.message
    assert str(err).startswith(f"f.yaml:{where}: ")


def test_aliases_allowed_on_request() -> None:
    doc = load_yaml_text("a: &x [1, 2]\nb: *x\n", allow_aliases=True)
    assert doc["b"] == [1, 2]


def test_context_shows_offending_lines_with_caret() -> None:
    err = _fails("one: 1\ntwo: 2\nthree: 3\none: 4\n")
    assert err.context is not None
    lines = err.context.splitlines()
    assert lines == ["2 | two: 2", "3 | three: 3", "4 | one: 4", "  | ^"]


def test_error_at_node() -> None:
    doc = load_yaml_text("x:\n  - KS\n  - 9Q\n", "p.yaml")
    err = error_at(doc["x"][1], "card '9Q': unknown suit 'Q'")
    assert str(err) == "p.yaml:3:5: card '9Q': unknown suit 'Q'"


def test_empty_document_is_none() -> None:
    assert load_yaml_text("# nothing\n") is None


def test_load_file_and_bad_encoding(tmp_path: Path) -> None:
    good = tmp_path / "g.yaml"
    good.write_text("a: on\n", encoding="utf-8")
    assert load_yaml(good) == {"a": "on"}
    bad = tmp_path / "b.yaml"
    bad.write_bytes(b"a: 1\nb: \xff\n")
    with pytest.raises(InputError) as info:
        load_yaml(bad)
    assert (info.value.line, info.value.col) == (2, 4)
    with pytest.raises(InputError, match="cannot read"):
        load_yaml(tmp_path / "missing.yaml")


def test_safe_loader_subclass() -> None:
    import yaml

    from harness import yamlload

    assert issubclass(yamlload._Loader, yaml.SafeLoader)


# --- the validation toolkit (harness.schema) over loaded nodes ---------------------------------

from harness.schema import Fields, check_card, describe, suggest  # noqa: E402


def _fields(text: str, **kw: object) -> Fields:
    doc = load_yaml_text(text, "s.yaml")
    return Fields(doc, doc.where, "timing", **kw)  # type: ignore[arg-type]


def _schema_error(fn: object) -> str:
    with pytest.raises(InputError) as info:
        fn()  # type: ignore[operator]
    return str(info.value)


def test_unknown_key_did_you_mean() -> None:
    msg = _schema_error(lambda: _fields("lockout_deadine_ms: '1.0'\n", optional=["lockout_deadline_ms"]))
    assert msg == "s.yaml:1:1: timing: unknown key 'lockout_deadine_ms' (did you mean 'lockout_deadline_ms'?)"


def test_missing_key_at_mapping() -> None:
    msg = _schema_error(lambda: _fields("\n\na: 1\n", required=["b"], optional=["a"]))
    assert msg == "s.yaml:3:1: timing: missing key 'b'"


@pytest.mark.parametrize(
    ("text", "call", "message"),
    [
        ("x: 010\n", lambda f: f.get_int("x"), "1:4: timing.x: leading zero in 010: write 10"),
        ("x: '8'\n", lambda f: f.get_int("x"), "1:4: timing.x: expected a whole number, got the string '8'"),
        ("x: 9\n", lambda f: f.get_int("x", lo=1, hi=8), "1:4: timing.x: 9 is out of range (1..8)"),
        ("x: true\n", lambda f: f.get_int("x"), "expected a whole number, got true"),
        ("x: yes\n", lambda f: f.get_bool("x"), "1:4: timing.x: 'yes' is a string here, not a boolean"),
        ("x: 12.50\n", lambda f: f.get_amount("x"),
         "1:4: timing.x: 12.50 is a bare decimal; money is never a float: write '12.50' in quotes"),
        ("x: '12.505'\n", lambda f: f.get_amount("x"), "1:4: timing.x: amount '12.505'"),
        ("x: -5\n", lambda f: f.get_amount("x"), "timing.x: -5 is negative"),
        ("x: abc\n", lambda f: f.get_rate("x"), "1:4: timing.x: rate 'abc': expected a percentage"),
        ("x: standd\n", lambda f: f.get_enum("x", ["hit", "stand"]),
         "timing.x: 'standd' is not one of hit, stand (did you mean 'stand'?)"),
        ("x: 4\n", lambda f: f.get_enum("x", [1, 2, 3]), "timing.x: the number 4 is not one of 1, 2, 3"),
        ("x: '1'\n", lambda f: f.get_enum("x", [1, 2, 3]), "timing.x: '1' is not one of 1, 2, 3"),
        ("x: KX\n", lambda f: f.get_card("x"), "1:4: timing.x: card 'KX': unknown suit 'X'"),
        ("x: [1]\n", lambda f: f.get_map("x"), "1:4: timing.x: expected a mapping"),
        ("x: {a: 1}\n", lambda f: f.get_list("x"), "1:4: timing.x: expected a list, got a mapping"),
        ("x: 1\n", lambda f: f.get_str("x"), "timing.x: expected a string, got the number 1"),
        ("x: abc\n", lambda f: f.get_decimal("x"), "timing.x: 'abc' is not a decimal number"),
        ("x: {y: 1}\n", lambda f: f.get_map("x", optional=["z"]), "1:5: timing.x: unknown key 'y'"),
    ],
)
def test_checks_are_positioned(text: str, call: object, message: str) -> None:
    f = _fields(text, optional=["x"])
    assert message in _schema_error(lambda: call(f))  # type: ignore[operator]


def test_good_values() -> None:
    f = _fields(
        "a: '$5,000'\nb: 450\nc: '0.5%'\nd: 0.25\ne: '1.0'\ng: stand\nh: 9H\ni: false\n",
        optional=list("abcdeghi"),
    )
    assert f.get_amount("a") == 500000
    assert f.get_amount("b") == 45000
    assert f.get_rate("c") == Decimal("0.5")
    assert f.get_rate("d") == Decimal("0.25")
    assert f.get_decimal("e") == Decimal("1.0")
    assert f.get_enum("g", ["hit", "stand"]) == "stand"
    assert f.get_card("h").code == "9H"
    assert f.get_bool("i") is False
    assert f.get_int("missing", 7) == 7


def test_card_in_list_positioned() -> None:
    doc = load_yaml_text("combo: [KS, 9X]\n", "c.yaml")
    combo = doc["combo"]
    with pytest.raises(InputError) as info:
        for _i, item, loc in combo.enumerate_locs():
            check_card(item, loc, "combo")
    assert str(info.value) == "c.yaml:1:13: combo: card '9X': unknown suit 'X'"


def test_describe_and_suggest() -> None:
    assert describe(None) == "nothing (null)"
    assert suggest("royal-9", ["royal9", "mystery"]) == " (did you mean 'royal9'?)"
    assert suggest("zzz", ["royal9"]) == ""
