"""Load and validate suite files (``suites/**/*.suite.yaml``, ``spec: tablecert/suite/1``).

Validation happens before anything runs and stops at the first problem with one
``file:line:col: message`` line.  Beyond types it checks what a lab engineer would otherwise find
out at the bench: every clause id exists in the catalogue, every scripted sequence is a possible
round (enough cards, no card more often than the shoe holds), named stacks exist.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.cards import Card, check_against_shoe
from harness.errors import InputError
from harness.schema import (
    Fields,
    check_amount,
    check_bool,
    check_card,
    check_decimal,
    check_enum,
    check_int,
    check_list,
    check_map,
    check_str,
)
from harness.suites.model import Case, Step, Suite
from harness.suites.registry import ACTIONS, Arg
from harness.suites.steps import METERS, TIMED_AFTER
from harness.yamlload import Loc, YList, YMap, YStr, error_at, load_yaml, to_plain

SPEC = "tablecert/suite/1"
ID_RE = r"^[a-z0-9][a-z0-9-]*$"
GAMES = ("baccarat", "hit-and-run")
#: where named stacks live, relative to the project root (or $TABLECERT_FIXTURES)
STACKS_DIR = Path("fixtures") / "stacks"
_VAR = re.compile(r"\$\{([a-z_][a-z0-9_]*)\}")


def load_suite(path: str | Path, *, fixtures: Path | None = None) -> Suite:
    """Load, validate and expand one suite file."""
    node = load_yaml(path)
    root = Fields(
        node, None, "",
        required=("spec", "suite", "title", "cases"),
        optional=("jurisdiction", "game", "decks", "requires", "games", "description"),
    )
    spec = root.get_str("spec")
    if spec != SPEC:
        raise root.error("spec", f"unknown suite spec '{spec}' (this version reads '{SPEC}')")
    suite_id = root.get_str("suite", pattern=ID_RE)
    game = root.get_enum("game", GAMES, "baccarat")
    decks = root.get_int("decks", 8, lo=1, hi=8)
    suite_requires = _str_set(root, "requires")
    suite_games = _str_set(root, "games")
    cases: list[Case] = []
    seen: dict[str, int] = {}
    ctx = _Ctx(game=game, decks=decks, fixtures=fixtures)
    for _i, raw_case, loc in root.get_list("cases").enumerate_locs():
        for case in _cases(raw_case, loc, suite_id, str(path), ctx, suite_requires, suite_games):
            if case.name in seen:
                raise loc.error(f"duplicate case id '{case.name}' (first at line {seen[case.name]})")
            seen[case.name] = case.line
            cases.append(case)
    if not cases:
        raise root.error("cases", "a suite needs at least one case")
    return Suite(spec, suite_id, root.get_str("title"), root.get_str("jurisdiction", None), tuple(cases), str(path))


def validate_suite_file(path: str | Path) -> Suite:
    """Entry point for ``tablecert validate``."""
    return load_suite(path)


class _Ctx:
    def __init__(self, *, game: str, decks: int, fixtures: Path | None) -> None:
        self.game = game
        self.decks = decks
        self.fixtures = fixtures


def _str_set(f: Fields, key: str) -> frozenset[str]:
    if key not in f:
        return frozenset()
    items = f.get_list(key)
    return frozenset(check_str(v, loc, f"{f.name(key)}[{i}]") for i, v, loc in items.enumerate_locs())


def _cases(
    raw: Any, loc: Loc, suite_id: str, path: str, ctx: _Ctx, suite_requires: frozenset[str],
    suite_games: frozenset[str],
) -> list[Case]:
    f = Fields(
        raw, loc, "case",
        required=("id", "title", "clauses", "steps"),
        optional=("requires", "params", "when", "games", "timeout_s", "description"),
    )
    case_id = f.get_str("id", pattern=ID_RE)
    f.what = f"case '{case_id}'"
    clauses = _clauses(f)
    variants: list[Mapping[str, Any]] = [{}]
    if "params" in f:
        variants = _variants(f)
    when = to_plain(f.get_map("when", optional=("denomination", "interpretations")).node) if "when" in f else {}
    if "interpretations" in when:
        from harness.regulations.catalogue import load_catalogue

        w = f.get_map("when", optional=("denomination", "interpretations"))
        imap = check_map(w.raw("interpretations"), w.loc("interpretations"), "when.interpretations")
        for key in imap:
            try:
                load_catalogue().interpretation(str(key))
            except (InputError, KeyError):
                raise imap.key_loc(key).error(f"when.interpretations: unknown interpretation '{key}'") from None
    cases = []
    for variant in variants:
        steps_node = _substitute(f.get_list("steps"), variant) if variant else f.get_list("steps")
        steps = tuple(_step(item, sloc, ctx) for _j, item, sloc in check_list(steps_node, f.loc("steps"),
                                                                             f"{f.what}.steps").enumerate_locs())
        if not steps:
            raise f.error("steps", "a case needs at least one step")
        if not any(s.is_expectation for s in steps) and not any(s.action == "rounds" for s in steps):
            raise f.error("steps", "a case needs at least one expect_* step: a case that checks nothing "
                                   "cannot pass or fail")
        case_when = dict(when)
        if "denomination" in variant:
            case_when["denomination"] = variant["denomination"]
        cases.append(
            Case(
                suite=suite_id,
                id=case_id,
                title=f.get_str("title"),
                clauses=clauses,
                requires=suite_requires | _str_set(f, "requires"),
                games=_str_set(f, "games") if "games" in f else suite_games,
                steps=steps,
                path=path,
                line=loc.pos.line,
                variant=variant,
                when=case_when,
                timeout_s=f.get_int("timeout_s", 60, lo=1, hi=3600),
            )
        )
    return cases


def _clauses(f: Fields) -> tuple[str, ...]:
    from harness.regulations.catalogue import load_catalogue

    cat = load_catalogue()
    out = []
    items = f.get_list("clauses")
    if not items:
        raise f.error("clauses", "a case must cite at least one clause")
    for i, cid, loc in items.enumerate_locs():
        name = check_str(cid, loc, f"{f.what}.clauses[{i}]")
        if not cat.has(name):
            try:
                cat.clause(name)
            except InputError as exc:
                raise loc.error(exc.message) from None
            raise loc.error(f"unknown clause id '{name}'")  # pragma: no cover - clause() raised
        if not cat.clause(name).testable:
            raise loc.error(f"clause '{name}' is out of scope ({cat.clause(name).out_of_scope}); a case "
                            "cannot check it")
        out.append(name)
    return tuple(out)


def _variants(f: Fields) -> list[Mapping[str, Any]]:
    items = f.get_list("params")
    out: list[Mapping[str, Any]] = []
    for i, v, loc in items.enumerate_locs():
        m = check_map(v, loc, f"{f.what}.params[{i}]")
        variant: dict[str, Any] = {}
        for k in m:
            val = m[k]
            if isinstance(val, dict | list) or val is None:
                raise m.loc(k).error(f"{f.what}.params[{i}].{k}: a parameter is a single value")
            variant[str(k)] = to_plain(val)
        if "denomination" in variant:
            check_enum(variant["denomination"], m.loc("denomination"), "denomination", (5, 1))
        out.append(variant)
    if not out:
        raise f.error("params", "params lists at least one variant")
    return out


def _substitute(node: Any, variant: Mapping[str, Any]) -> Any:
    """Replace ``${name}`` in strings with the variant's value, keeping every position."""
    if isinstance(node, YMap):
        new = YMap({k: _substitute(v, variant) for k, v in node.items()})
        new._place(node.src, node.pos)
        new.key_pos, new.value_pos = node.key_pos, node.value_pos
        return new
    if isinstance(node, YList):
        lst = YList(_substitute(v, variant) for v in node)
        lst._place(node.src, node.pos)
        lst.item_pos = node.item_pos
        return lst
    if isinstance(node, YStr) and "${" in node:
        def repl(m: re.Match[str]) -> str:
            if m.group(1) not in variant:
                raise node.where.error(f"'${{{m.group(1)}}}' is not a parameter of this case "
                                       f"(parameters: {', '.join(variant) or 'none'})")
            return str(variant[m.group(1)])
        whole = _VAR.fullmatch(node)
        if whole and isinstance(variant.get(whole.group(1)), int):
            from harness.yamlload import YInt

            num = YInt(variant[whole.group(1)])
            num._place(node.src, node.pos)
            return num
        s = YStr(_VAR.sub(repl, node))
        s._place(node.src, node.pos)
        return s
    return node


def _step(raw: Any, loc: Loc, ctx: _Ctx) -> Step:
    if isinstance(raw, str):
        raw_map: Any = None
        action, value, vloc = str(raw), None, loc
    else:
        raw_map = check_map(raw, loc, "step")
        if len(raw_map) != 1:
            raise loc.error(f"a step is one action, e.g. '- deal: {{cards: ...}}'; this one has "
                            f"{len(raw_map)} keys ({', '.join(map(str, raw_map))})")
        action = str(next(iter(raw_map)))
        value, vloc = raw_map[action], raw_map.loc(action)
        loc = raw_map.key_loc(action)
    spec = ACTIONS.get(action)
    if spec is None:
        from harness.schema import suggest

        raise loc.error(f"unknown step '{action}'{suggest(action, ACTIONS)}")
    clause = None
    if value is None or (isinstance(value, YMap) and not value):
        args_node: Any = YMap()
        args_node._place(vloc.src, vloc.pos)
        args_node.key_pos, args_node.value_pos = {}, {}
    elif isinstance(value, dict):
        args_node = value
    else:
        if spec.shorthand is None:
            raise vloc.error(f"{action}: expected a mapping of arguments")
        if spec.args[spec.shorthand].kind == "bool" and value == spec.shorthand:
            value = True  # `expect_payout: oracle` reads as `{oracle: true}`
        args_node = YMap({spec.shorthand: value})
        args_node._place(vloc.src, vloc.pos)
        args_node.key_pos, args_node.value_pos = {spec.shorthand: vloc.pos}, {spec.shorthand: vloc.pos}
    f = Fields(args_node, vloc, action, required=[k for k, a in spec.args.items() if a.required],
               optional=[*(k for k, a in spec.args.items() if not a.required), "clause"])
    if "clause" in f:
        clause = f.get_str("clause")
        from harness.regulations.catalogue import load_catalogue

        if not load_catalogue().has(clause):
            raise f.error("clause", f"unknown clause id '{clause}'")
    if spec.one_of and sum(k in f for k in spec.one_of) != 1:
        raise loc.error(f"{action}: give exactly one of {', '.join(spec.one_of)}")
    args: dict[str, Any] = {}
    for key, arg in spec.args.items():
        if key in f:
            args[key] = _check_arg(arg, f.raw(key), f.loc(key), f.name(key), ctx)
        elif arg.default is not None:
            args[key] = arg.default
    _check_step_semantics(action, args, f, ctx)
    source_line = loc.src.text.splitlines()[loc.pos.line - 1] if loc.src.text else action
    return Step(action, args, loc.src.path, loc.pos.line, loc.pos.col, source_line.strip(), clause)


def _check_arg(arg: Arg, value: Any, loc: Loc, what: str, ctx: _Ctx) -> Any:
    kind = arg.kind
    if kind == "enum":
        return check_enum(value, loc, what, arg.choices)
    if kind == "int":
        return check_int(value, loc, what, lo=0)
    if kind == "seat":
        return check_int(value, loc, what, lo=1, hi=9)
    if kind == "str":
        return check_str(value, loc, what)
    if kind == "bool":
        return check_bool(value, loc, what)
    if kind == "amount":
        return check_amount(value, loc, what)
    if kind == "decimal":
        return check_decimal(value, loc, what)
    if kind == "map":
        return to_plain(check_map(value, loc, what))
    if kind == "str-list":
        items = check_list(value, loc, what)
        return tuple(check_str(v, vl, f"{what}[{i}]") for i, v, vl in items.enumerate_locs())
    if kind == "cards":
        return _cards(value, loc, what, ctx)
    if kind == "seats":
        if isinstance(value, str) and value == "all":
            return "all"
        items = check_list(value, loc, what)
        return tuple(check_int(v, vl, f"{what}[{i}]", lo=1, hi=9) for i, v, vl in items.enumerate_locs())
    if kind == "timing":
        t = Fields(value, loc, what, required=("after",), optional=("n", "offset_ms"))
        return {
            "after": t.get_enum("after", TIMED_AFTER),
            "n": t.get_int("n", 1, lo=1),
            "offset_ms": t.get_decimal("offset_ms", None),
        }
    if kind == "meter-amounts":
        m = Fields(value, loc, what, optional=METERS)
        return {k: m.get_amount(k) for k in m}
    if kind == "meter-refs":
        m = Fields(value, loc, what, optional=METERS)
        out: dict[str, Any] = {}
        for k in m:
            raw = m.raw(k)
            if isinstance(raw, str) and raw in ("reset", "initial", "floor", "reseed", "must_hit_by"):
                out[k] = str(raw)
            else:
                out[k] = m.get_amount(k)
        return out
    raise AssertionError(f"unknown argument kind {kind}")  # pragma: no cover - table is static


def _cards(value: Any, loc: Loc, what: str, ctx: _Ctx) -> tuple[Card, ...]:
    if isinstance(value, str):
        parts = str(value).replace(",", " ").split()
        cards = []
        for i, text in enumerate(parts, start=1):
            try:
                from harness.cards import parse_card

                cards.append(parse_card(text, i))
            except InputError as exc:
                raise loc.error(f"{what}: {exc.message}") from None
    else:
        items = check_list(value, loc, what)
        cards = [check_card(v, vl, f"{what}[{i}]") for i, v, vl in items.enumerate_locs()]
    try:
        check_against_shoe(cards, ctx.decks)
    except InputError as exc:
        raise loc.error(f"{what}: {exc.message}") from None
    return tuple(cards)


def _check_step_semantics(action: str, args: dict[str, Any], f: Fields, ctx: _Ctx) -> None:
    """Checks that need more than one argument or the game: a scripted round must be possible."""
    if action in ("shoe", "deal") and "cards" in args and args.get("count") is None:
        cards = args["cards"]
        try:
            if ctx.game == "baccarat":
                from harness.games.baccarat import deal_round

                used = deal_round(cards).cards_used
                why = "a natural stops the deal" if used == 4 else "the tableau draws no further card"
            else:
                from harness.games.blackjack import dealer_hand

                used = dealer_hand(cards, hit_soft17=True).n_cards
                why = "the dealer's hand is complete"
        except InputError as exc:
            raise f.error("cards", exc.message) from None
        if used < len(cards) and action == "deal":
            raise f.error("cards", f"{len(cards)} cards given but the round uses {used} ({why}); the rest would "
                                   "be dealt after the round is settled")
    if action in ("shoe", "deal") and "stack" in args:
        _stack_exists(args["stack"], f, ctx)


def _stack_exists(name: str, f: Fields, ctx: _Ctx) -> None:
    from harness.suites.stacks import find_stack

    try:
        find_stack(name, ctx.fixtures)
    except InputError as exc:
        raise f.error("stack", exc.message) from None


def expand_suites(paths: list[Path]) -> list[Path]:
    """Suite files under the given files or directories, sorted."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(p.rglob("*.suite.yaml")))
        else:
            out.append(p)
    return out


__all__ = ["SPEC", "error_at", "expand_suites", "load_suite", "validate_suite_file"]
