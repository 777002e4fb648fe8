"""Load and validate suite files (``suites/**/*.suite.yaml``, ``spec: tablecert/suite/1``).

Validation happens before anything runs and reports every problem of a file, each as one
``file:line:col: message`` line.  Beyond types it checks what a lab engineer would otherwise find
out at the bench, or never:

* every clause id exists in the catalogue; every capability (``requires:``), game (``games:``),
  denomination and interpretation value (``when:``) exists, with a did-you-mean, so a typo can
  never deselect a case in silence and leave the verdict PASS;
* every case measures something: an expectation that checks nothing (``expect_meters: {}``), a
  bulk ``rounds: {count: 0}``, a meter check on a meter the case's tables need not have, are
  refused, because such a case could only pass;
* values come in through no back door: a parameter is a plain value (a bare ``12.50`` is refused
  as money is never a float), ``true`` is no seat, waits and offsets are not negative, a seat
  appears once in a seat list, digits are ASCII;
* every scripted sequence is a possible round (enough cards, no card more often than the shoe
  holds), and a named stack exists, is of the suite's game, and its file is valid (errors in a
  stack file name the stack file and line);
* with a profile (:func:`check_suite_against_profile`): every seat a case names is on its table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness.cards import Card, check_against_shoe, parse_card
from harness.errors import InputError, error_lines
from harness.games.baccarat import deal_round
from harness.games.blackjack import dealer_hand
from harness.games.interpretations import Interpretations
from harness.games.streak import resolve_streak3
from harness.money import parse_rate
from harness.profiles import CAPABILITIES
from harness.profiles import GAMES as PROFILE_GAMES
from harness.profiles.known_values import interpretation_choices
from harness.profiles.load import interpretation_value
from harness.progressive.floors import FLOORS
from harness.regulations.catalogue import load_catalogue
from harness.schema import (
    Abandoned,
    Fields,
    attempt,
    check_amount,
    check_bool,
    check_card,
    check_decimal,
    check_enum,
    check_int,
    check_list,
    check_map,
    check_str,
    collecting,
    error_count,
    guard,
    report,
    shown,
    suggest,
)
from harness.suites.load.applicability import not_applicable
from harness.suites.load.given import BindError, Binding, NotForTable, TableFacts, bind, build_round, reference_table
from harness.suites.load.model import Case, Step, Suite
from harness.suites.load.refs import BASES, parse_ref, unfilled
from harness.suites.load.semantics import case_problems
from harness.suites.load.stacks import find_stack
from harness.suites.steps.contract import ANSWERS, not_a_request
from harness.suites.steps.core import METERS, TIMED_AFTER
from harness.suites.steps.registry import ACTIONS, Arg
from harness.yamlload import Loc, Pos, YDecimal, YInt, YList, YMap, YStr, error_at, load_yaml, to_plain

SPEC = "tablecert/suite/1"
ID_RE = r"^[a-z0-9][a-z0-9-]*$"
GAMES = ("baccarat", "hit-and-run")
#: where named stacks live, relative to the project root (or $TABLECERT_FIXTURES)
STACKS_DIR = Path("fixtures") / "stacks"
_VAR = re.compile(r"\$\{([a-z_][a-z0-9_]*)\}")
#: the capability a table needs to have each meter (a check of a meter the table lacks reads 0 = 0)
METER_CAPABILITY = {"mega": "royal9", "major": "royal9", "minor": "royal9", "mystery": "mystery",
                    "hit-and-run": "hit-and-run"}
#: capabilities every profile of a game has (a profile refuses the game without them)
GAME_IMPLIES = {"blackjack-hit-and-run": ("hit-and-run",)}
#: the meters of each card game a suite is written for
GAME_METERS = {"baccarat": ("mega", "major", "minor", "mystery"), "hit-and-run": ("hit-and-run",)}
#: the stack games each suite game can deal
STACK_GAMES = {"baccarat": ("baccarat", "ez-baccarat"), "hit-and-run": ("hit-and-run",)}
#: largest count, seed or other whole-number argument; longest wait or offset (ms)
MAX_INT = 1_000_000
MAX_MS = 3_600_000


def _profile_vocabulary() -> tuple[tuple[str, ...], tuple[str, ...]]:
    return CAPABILITIES, PROFILE_GAMES


def load_suite(path: str | Path, *, fixtures: Path | None = None, profile: Any = None, node: Any = None) -> Suite:
    """Load, validate and expand one suite file; every problem is reported (``InputErrors``).

    With a ``profile`` every case's ``given:`` names are bound to its Rules Submission
    (:mod:`harness.suites.load.given`); without one, to the reference table of the suite's game, so the
    steps are checked either way.  ``node``: the file already loaded (``tablecert validate`` reads
    it once to see its ``spec:``)."""
    if node is None:
        node = load_yaml(path)
    with collecting():
        root = Fields(
            node, None, "",
            required=("suite", "title", "cases"),
            optional=("spec", "jurisdiction", "game", "decks", "requires", "games", "description"),
        )
        if "spec" not in root:
            raise error_at(root.node.where, f"missing key 'spec' (a suite starts with spec: {SPEC})")
        spec = root.get_str("spec")
        if spec != SPEC:
            raise root.error("spec", f"unknown suite spec '{spec}' (this version reads '{SPEC}')")
        suite_id = attempt(lambda: root.get_str("suite", pattern=ID_RE), "suite")
        game = attempt(lambda: root.get_enum("game", GAMES, "baccarat"), "baccarat")
        decks = attempt(lambda: root.get_int("decks", 8, lo=1, hi=8), 8)
        suite_requires = attempt(lambda: _capabilities(root, "requires"), frozenset())
        suite_games = attempt(lambda: _games(root, "games"), frozenset())
        title = attempt(lambda: root.get_str("title"), "")
        jurisdiction = attempt(lambda: root.get_str("jurisdiction", None))
        cases: list[Case] = []
        seen: dict[str, int] = {}
        ctx = _Ctx(game=game, decks=decks, fixtures=fixtures, profile=profile)
        for _i, raw_case, loc in root.get_list("cases").enumerate_locs():
            with guard():
                for case in _cases(raw_case, loc, suite_id, str(path), ctx, suite_requires, suite_games):
                    if case.name in seen:
                        report(loc.error(f"duplicate case id '{case.name}' (first at line {seen[case.name]})"))
                        continue
                    seen[case.name] = case.line
                    cases.append(case)
        if not cases and error_count() == 0:
            raise root.error("cases", "a suite needs at least one case")
    return Suite(spec, suite_id, title, jurisdiction, tuple(cases), str(path))


def validate_suite_file(path: str | Path, *, profile: Any = None, node: Any = None) -> Suite:
    """Entry point for ``tablecert validate`` (with a profile: also the checks against its table)."""
    suite = load_suite(path, node=node)
    if profile is not None:
        check_suite_against_profile(suite, profile)
    return suite


def check_suite_against_profile(suite: Suite, profile: Any) -> None:
    """Every seat a case that applies to ``profile`` names is on the profile's table.

    A case naming seat 8 on a seven-seat table would wager at a position the controller does not
    have: the case can only end in a rig error, so it is refused before anything runs.
    """
    interp = Interpretations.from_overrides(dict(profile.interpretations))
    table = {s.seat for s in profile.rules.seats}
    with collecting():
        for case in suite.cases:
            if not_applicable(profile, interp, case):
                continue
            for step in case.steps:
                if step.args.get("expect") == "rejected":
                    continue  # a wager refused at a seat the table does not have is the point
                named = [step.args["seat"]] if isinstance(step.args.get("seat"), int) else []
                seats = step.args.get("seats")
                named += list(seats) if isinstance(seats, tuple) else []
                for seat in named:
                    if seat not in table:
                        report(InputError(
                            f"{step.action}: seat {seat} is not on the table of profile {profile.name} "
                            f"(seats {', '.join(map(str, sorted(table)))}; {profile.source_path})",
                            path=step.path, line=step.line, col=step.col))


class _Ctx:
    def __init__(self, *, game: str, decks: int, fixtures: Path | None, profile: Any = None) -> None:
        self.game = game
        self.decks = decks
        self.fixtures = fixtures
        #: capabilities the case being checked requires (its own and the suite's), and its games
        self.requires: frozenset[str] = frozenset()
        self.games: frozenset[str] = frozenset()
        self.profile = profile
        #: while steps are bound to a profile: the decks of its shoe (a scripted sequence needing more
        #: copies of a card than the table's shoe holds does not apply to that table)
        self.table_decks: int | None = None
        #: while steps are bound to a profile: its dealer's soft-17 rule (None: not bound, or not Blackjack)
        self.hit_soft17: bool | None = None
        #: while steps are bound: the table (the profile's, or the reference table of the suite's game)
        #: a step's rounds are built for (``winners`` arguments: one stack per wanted winner)
        self.table: Any = None


def _str_set(f: Fields, key: str, choices: tuple[str, ...] | None = None, what: str = "") -> frozenset[str]:
    """A list of distinct strings; with ``choices`` each must be one of them (did-you-mean)."""
    if key not in f:
        return frozenset()
    items = f.get_list(key)
    out: dict[str, int] = {}
    for i, v, loc in items.enumerate_locs():
        with guard():
            name = check_str(v, loc, f"{f.name(key)}[{i}]")
            if choices is not None and name not in choices:
                raise loc.error(f"{f.name(key)}: unknown {what} {shown(name)}{suggest(name, choices)} "
                                f"(known: {', '.join(choices)})")
            if name in out:
                raise loc.error(f"{f.name(key)}: '{name}' is listed twice (first at line {out[name]})")
            out[name] = loc.pos.line
    return frozenset(out)


def _capabilities(f: Fields, key: str) -> frozenset[str]:
    return _str_set(f, key, _profile_vocabulary()[0], "capability")


def _games(f: Fields, key: str) -> frozenset[str]:
    games = _str_set(f, key, _profile_vocabulary()[1], "game")
    if key in f and not f.get_list(key):
        raise f.error(key, "an empty list matches no table: leave it out to run on every game")
    return games


def _when(f: Fields) -> dict[str, Any]:
    """``when: {denomination: 5, interpretations: {id: value}}``: values that can exist."""
    if "when" not in f:
        return {}
    w = f.get_map("when", optional=("denomination", "interpretations"))
    out: dict[str, Any] = {}
    if "denomination" in w:
        out["denomination"] = attempt(lambda: w.get_enum("denomination", sorted(FLOORS, reverse=True)))
    if "interpretations" in w:
        imap = check_map(w.raw("interpretations"), w.loc("interpretations"), "when.interpretations")
        if not imap:
            report(w.error("interpretations", "is empty: leave it out, or name an interpretation"))
        known = interpretation_choices()
        values: dict[str, Any] = {}
        for key, value in imap.items():
            with guard():
                values[str(key)] = interpretation_value(key, value, imap, known, "when.interpretations")
        out["interpretations"] = values
    return out


def _cases(
    raw: Any, loc: Loc, suite_id: str, path: str, ctx: _Ctx, suite_requires: frozenset[str],
    suite_games: frozenset[str],
) -> list[Case]:
    f = Fields(
        raw, loc, "case",
        required=("id", "title", "clauses", "steps"),
        optional=("requires", "params", "when", "games", "timeout_s", "description", "given"),
    )
    case_id = f.get_str("id", pattern=ID_RE)
    f.what = f"case '{case_id}'"
    before = error_count()
    clauses = attempt(lambda: _clauses(f), ())
    variants: list[Mapping[str, Any]] = [{}]
    if "params" in f:
        variants = attempt(lambda: _variants(f), [{}])
        if error_count() > before:
            return []  # steps written with ${...} cannot be read without their parameters
    when = attempt(lambda: _when(f), {})
    requires = suite_requires | attempt(lambda: _capabilities(f, "requires"), frozenset())
    _scoped_clauses(f, clauses, requires)
    games = attempt(lambda: _games(f, "games"), frozenset()) if "games" in f else suite_games
    title = attempt(lambda: f.get_str("title"), "")
    with guard():
        _check_title(f, title, variants)
    timeout_s = attempt(lambda: f.get_int("timeout_s", 60, lo=1, hi=3600), 60)
    ctx.requires, ctx.games = requires, games
    given_node = attempt(lambda: check_map(f.raw("given"), f.loc("given"), f"{f.what}.given")) if "given" in f else None
    cases = []
    for variant in variants:
        case_when = dict(when)
        if "denomination" in variant:
            case_when["denomination"] = variant["denomination"]
        case = Case(
            suite=suite_id,
            id=case_id,
            title=title,
            clauses=clauses,
            requires=requires,
            games=games,
            steps=(),
            path=path,
            line=loc.pos.line,
            col=loc.pos.col,
            variant=variant,
            when=case_when,
            timeout_s=timeout_s,
        )
        with guard():
            bound = _bound(case, f, given_node, variant, ctx)
            if error_count() == before:
                cases.append(bound)
    return cases


def _bound(case: Case, f: Fields, given_node: Any, variant: Mapping[str, Any], ctx: _Ctx) -> Case:
    """The case with its steps, its ``given:`` names bound to the profile (or to the reference table
    of the suite's game without one, or when the case does not apply to the profile)."""
    table = _table(ctx, case)
    binding = Binding()
    not_for_table: str | None = None
    if table is not None:
        if given_node is not None:
            binding = bind(given_node, table, variant)
        if binding.not_applicable is None and binding.error is None:
            ctx.table_decks = _decks_of(table.profile)
            hr = table.profile.rules.hit_and_run
            ctx.hit_soft17 = hr.hits_soft17 if hr is not None else None
            ctx.table = table
            try:
                steps = _steps(f, {**variant, **binding.values}, ctx)
                not_for_table = unfilled(steps, table.profile)
                if not_for_table is None:
                    return _with(case, steps, binding)
            except NotForTable as exc:
                not_for_table = str(exc)
            except BindError as exc:
                binding = Binding(binding.values, error=str(exc))
            finally:
                ctx.table_decks = ctx.hit_soft17 = ctx.table = None
    reference = reference_table(ctx.game)
    ref_binding = bind(given_node, reference, variant) if given_node is not None else Binding()
    if table is None and ref_binding.impossible_at is not None:
        raise ref_binding.impossible_at.error(
            f"{ref_binding.not_applicable} (on the reference table, {reference.profile.name}): the case could "
            "never be dealt; give a want some round can produce")
    ctx.table = reference
    try:
        steps = _steps(f, {**variant, **ref_binding.values}, ctx) if ref_binding.not_applicable is None else ()
    finally:
        ctx.table = None
    if table is None:
        return _with(case, steps, ref_binding, not_for_table=ref_binding.not_applicable)
    return _with(case, steps, binding, not_for_table=not_for_table or binding.not_applicable,
                 bind_error=binding.error)


def _table(ctx: _Ctx, case: Case) -> Any:
    """The profile's table when the case applies to it by capability, game and ``when:``."""
    if ctx.profile is None:
        return None
    interp = Interpretations.from_overrides(dict(ctx.profile.interpretations))
    if not_applicable(ctx.profile, interp, case):
        return None
    return TableFacts(ctx.profile, interp, ctx.game)


def _decks_of(profile: Any) -> int:
    hr = profile.rules.hit_and_run
    return int(hr.decks if hr is not None else profile.rules.decks)


def _with(case: Case, steps: tuple[Step, ...], binding: Any, *, not_for_table: str | None = None,
          bind_error: str | None = None) -> Case:
    title = fill_title(case.title, {**case.variant, **binding.shown()})
    return replace(case, title=title, steps=steps, given=binding.shown(), not_for_table=not_for_table,
                   bind_error=bind_error)


def _check_title(f: Fields, title: str, variants: list[Mapping[str, Any]]) -> None:
    """A ``${name}`` in the title must be a parameter of every variant or a ``given:`` name: a title
    is shown in the report, the appendix, JUnit, Allure and on the terminal, never as a template."""
    given_raw = f.raw("given") if "given" in f else None
    given = set(map(str, given_raw)) if isinstance(given_raw, Mapping) else set()
    for name in _VAR.findall(title):
        missing = [i + 1 for i, v in enumerate(variants) if name not in v]
        if name in given or not missing:
            continue
        known = sorted(set().union(*(set(v) for v in variants)) | given)
        where = "" if len(missing) == len(variants) else f" in params variant {missing[0]}"
        raise f.error("title", f"'${{{name}}}' in the title is not a parameter{where} nor a given "
                               f"(known: {', '.join(known) or 'none'})")


def fill_title(title: str, values: Mapping[str, Any]) -> str:
    """The title with each ``${name}`` replaced by its parameter or given value (a list of seats is
    written 1,2,3); a given that did not bind (the case is not applicable) is written as ``?``."""
    def repl(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            return "?"
        value = values[m.group(1)]
        return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
    return _VAR.sub(repl, title) if "${" in title else title


def _steps(f: Fields, values: Mapping[str, Any], ctx: _Ctx) -> tuple[Step, ...]:
    steps_node = _substitute(f.get_list("steps"), values) if values else f.get_list("steps")
    listed = check_list(steps_node, f.loc("steps"), f"{f.what}.steps")
    steps: list[Step] = []
    step_errors = error_count()
    for _j, item, sloc in listed.enumerate_locs():
        with guard():
            steps.append(_step(item, sloc, ctx))
    if not listed:
        raise f.error("steps", "a case needs at least one step")
    if error_count() == step_errors and not any(_measures(s) for s in steps):
        raise f.error("steps", "a case needs at least one expect_* step: a case that checks nothing "
                               "cannot pass or fail")
    if error_count() == step_errors:
        for problem in case_problems(steps, ctx.game):
            report(error_at(Loc(listed.src, Pos(problem.line or 1, problem.col or 1)), problem.message))
    return tuple(steps)


def _measures(step: Step) -> bool:
    return step.is_expectation or step.action == "rounds"


def _clauses(f: Fields) -> tuple[str, ...]:
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


def _scoped_clauses(f: Fields, clauses: tuple[str, ...], requires: frozenset[str]) -> None:
    """A clause the catalogue scopes to a capability (the link clauses of 461a.12(c), (d): ``link``) is
    credited only by a case that requires it: a single table cannot show what linked tables do."""
    cat = load_catalogue()
    items = f.raw("clauses")
    for i, cid in enumerate(clauses):
        needs = cat.applies(cid).capabilities - requires
        if "link" in needs:
            loc = items.loc(i) if hasattr(items, "loc") else f.loc("clauses")
            report(loc.error(f"{f.what}: clause '{cid}' is about linked tables; only a case that requires "
                             "link (a link profile's) can check it"))


def _variants(f: Fields) -> list[Mapping[str, Any]]:
    items = f.get_list("params")
    out: list[Mapping[str, Any]] = []
    for i, v, loc in items.enumerate_locs():
        m = check_map(v, loc, f"{f.what}.params[{i}]")
        variant: dict[str, Any] = {}
        for k in m:
            val = m[k]
            what = f"{f.what}.params[{i}].{k}"
            if not isinstance(k, str) or not re.fullmatch(r"[a-z_][a-z0-9_]*", k):
                report(m.key_loc(k).error(f"{f.what}.params[{i}]: parameter name {shown(k)} must be lower-case "
                                          "letters, digits and _ (it is written ${name} in the steps)"))
                continue
            if isinstance(val, dict | list) or val is None:
                report(m.loc(k).error(f"{what}: a parameter is a single value"))
                continue
            if isinstance(val, YDecimal):
                report(m.loc(k).error(f"{what}: {val.text} is a bare decimal; money is never a float and a "
                                      f"parameter keeps what was written: write '{val.text}' in quotes"))
                continue
            variant[str(k)] = to_plain(val)
        if "denomination" in variant:
            with guard():
                check_enum(variant["denomination"], m.loc("denomination"), "denomination",
                           sorted(FLOORS, reverse=True))
        if variant in out:
            report(loc.error(f"{f.what}.params[{i}]: the same values as an earlier variant"))
            continue
        out.append(variant)
    if not items:
        raise f.error("params", "params lists at least one variant")
    return out or [{}]


def _substitute(node: Any, variant: Mapping[str, Any]) -> Any:
    """Replace ``${name}`` in strings with the variant's value, keeping every position."""
    if isinstance(node, YMap):
        new = YMap({k: _substitute(v, variant) for k, v in node.items()})
        new.place_at(node.src, node.pos)
        new.key_pos, new.value_pos = node.key_pos, node.value_pos
        return new
    if isinstance(node, YList):
        lst = YList(_substitute(v, variant) for v in node)
        lst.place_at(node.src, node.pos)
        lst.item_pos = node.item_pos
        return lst
    if isinstance(node, YStr) and "${" in node:
        def repl(m: re.Match[str]) -> str:
            if m.group(1) not in variant:
                raise node.where.error(f"'${{{m.group(1)}}}' is not a parameter of this case nor a "
                                       f"given (known: {', '.join(variant) or 'none'})")
            value = variant[m.group(1)]
            return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
        whole = _VAR.fullmatch(node)
        value = variant.get(whole.group(1)) if whole else None
        if whole and isinstance(value, bool):  # `true` stays a boolean: never the seat 1
            return value
        if whole and isinstance(value, int):
            num = YInt(value)
            num.place_at(node.src, node.pos)
            return num
        if whole and isinstance(value, tuple):  # a list of seats
            items = YList()
            for v in value:
                item = YInt(v)
                item.place_at(node.src, node.pos)
                items.append(item)
            items.place_at(node.src, node.pos)
            items.item_pos = [node.pos] * len(value)
            return items
        s = YStr(_VAR.sub(repl, node))
        s.place_at(node.src, node.pos)
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
        raise loc.error(f"unknown step {shown(action)}{suggest(action, ACTIONS)}")
    clause = None
    if value is None or (isinstance(value, YMap) and not value):
        args_node: Any = YMap()
        args_node.place_at(vloc.src, vloc.pos)
        args_node.key_pos, args_node.value_pos = {}, {}
    elif isinstance(value, dict):
        args_node = value
    else:
        if spec.shorthand is None:
            raise vloc.error(f"{action}: expected a mapping of arguments")
        if spec.args[spec.shorthand].kind == "bool" and value == spec.shorthand:
            value = True  # `expect_payout: oracle` reads as `{oracle: true}`
        args_node = YMap({spec.shorthand: value})
        args_node.place_at(vloc.src, vloc.pos)
        args_node.key_pos, args_node.value_pos = {spec.shorthand: vloc.pos}, {spec.shorthand: vloc.pos}
    f = Fields(args_node, vloc, action, required=[k for k, a in spec.args.items() if a.required],
               optional=[*(k for k, a in spec.args.items() if not a.required), "clause"])
    if "clause" in f:
        clause = f.get_str("clause")
        if not load_catalogue().has(clause):
            raise f.error("clause", f"unknown clause id '{clause}'")
    if spec.one_of and sum(k in f for k in spec.one_of) != 1:
        raise loc.error(f"{action}: give exactly one of {', '.join(spec.one_of)}")
    args: dict[str, Any] = {}
    before = error_count()
    for key, arg in spec.args.items():
        if key in f:
            with guard():
                args[key] = _check_arg(arg, f.raw(key), f.loc(key), f.name(key), ctx)
        elif arg.default is not None:
            args[key] = arg.default
    if error_count() > before:
        raise Abandoned()
    _check_step_semantics(action, args, f, ctx)
    source_line = loc.src.line(loc.pos.line) or action
    return Step(action, args, loc.src.path, loc.pos.line, loc.pos.col, source_line.strip(), clause)


def _check_arg(arg: Arg, value: Any, loc: Loc, what: str, ctx: _Ctx) -> Any:
    try:
        checked = _check_kind(arg, value, loc, what, ctx)
    except InputError as exc:
        if arg.why and "out of range" in exc.message:
            raise loc.error(f"{exc.message}: {arg.why}") from None
        raise
    if arg.positive and isinstance(checked, int | Decimal) and not isinstance(checked, bool) and checked <= 0:
        raise loc.error(f"{what}: must be more than 0" + (f": {arg.why}" if arg.why else ""))
    return checked


def _check_kind(arg: Arg, value: Any, loc: Loc, what: str, ctx: _Ctx) -> Any:
    kind = arg.kind
    if kind == "enum":
        return check_enum(value, loc, what, arg.choices)
    if kind == "int":
        return check_int(value, loc, what, lo=0 if arg.lo is None else arg.lo, hi=MAX_INT if arg.hi is None else arg.hi)
    if kind == "seat":
        return check_int(value, loc, what, lo=1, hi=9)
    if kind == "str":
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)  # `configure_mystery: 3` names configuration "3"
        return check_str(value, loc, what)
    if kind == "bool":
        return check_bool(value, loc, what)
    if kind == "amount":
        return check_amount(value, loc, what)
    if kind == "decimal":
        return check_decimal(value, loc, what, lo=Decimal(0), hi=Decimal(MAX_MS))
    if kind == "map":
        m = check_map(value, loc, what)
        if not m:
            raise loc.error(f"{what}: is empty: it would set or check nothing")
        return to_plain(m)
    if kind == "str-list":
        items = check_list(value, loc, what)
        if not items:
            raise loc.error(f"{what}: is empty: it would check nothing")
        return tuple(check_str(v, vl, f"{what}[{i}]") for i, v, vl in items.enumerate_locs())
    if kind == "cards":
        return _cards(value, loc, what, ctx)
    if kind == "winners":
        return _winners(value, loc, what, ctx)
    if kind == "seats":
        return _seats(value, loc, what)
    if kind == "timing":
        t = Fields(value, loc, what, required=("after",), optional=("n", "offset_ms", "past_limit_ms"))
        if "offset_ms" in t and "past_limit_ms" in t:
            raise t.loc("past_limit_ms").error(
                f"{what}: give offset_ms or past_limit_ms, not both (past_limit_ms is counted from the "
                "profile's lock-out limit)")
        return {
            "after": t.get_enum("after", TIMED_AFTER),
            "n": t.get_int("n", 1, lo=1, hi=MAX_INT),
            "offset_ms": t.get_decimal("offset_ms", None, lo=Decimal(0), hi=Decimal(MAX_MS)),
            "past_limit_ms": t.get_decimal("past_limit_ms", None, lo=Decimal(0), hi=Decimal(MAX_MS)),
        }
    if kind == "meter-amounts":
        mf = _meters_map(value, loc, what, ctx)
        return {k: mf.get_amount(k) for k in mf}
    if kind == "meters":
        if isinstance(value, str) and value == "all":
            return ("all",)
        items = check_list(value, loc, what)
        if not items:
            raise loc.error(f"{what}: is empty: it would check nothing")
        return tuple(check_enum(v, vl, f"{what}[{i}]", METERS) for i, v, vl in items.enumerate_locs())
    if kind == "meter-refs":
        mf = _meters_map(value, loc, what, ctx)
        return {k: _amount_ref(mf.raw(k), mf.loc(k), mf.name(k), field=False) for k in mf}
    if kind == "amount-ref":
        return _amount_ref(value, loc, what, field=True)
    if kind == "rate-ref":
        text = check_str(value, loc, what)
        try:
            ref = parse_ref(text, rate=True)
            return ref if ref is not None else parse_rate(text)
        except InputError as exc:
            raise loc.error(f"{what}: {exc.message}") from None
    raise AssertionError(f"unknown argument kind {kind}")  # pragma: no cover - table is static


#: the winners a ``winners`` argument may ask of a baccarat round
WINNERS = ("player", "banker", "tie")
#: most rounds one ``winners`` argument plays
MAX_WINNERS = 12


def _winners(value: Any, loc: Loc, what: str, ctx: _Ctx) -> tuple[tuple[str, tuple[Card, ...]], ...]:
    """A list of wanted winners, one round each, and the cards of each round built by the stack
    builder for the bound table (its decks and interpretations), so a case never writes cards a
    Rules Submission could make wrong: ``((winner, cards), ...)``."""
    if ctx.game != "baccarat":
        raise loc.error(f"{what}: winners are baccarat rounds; this suite deals {ctx.game}")
    items = check_list(value, loc, what)
    if not items:
        raise loc.error(f"{what}: is empty: it would play nothing")
    if len(items) > MAX_WINNERS:
        raise items.loc(MAX_WINNERS).error(f"{what}: {len(items)} rounds; at most {MAX_WINNERS}")
    out = []
    for i, v, vl in items.enumerate_locs():
        winner = check_enum(v, vl, f"{what}[{i}]", WINNERS)
        cards: tuple[Card, ...] = ()
        if ctx.table is not None:
            try:
                cards = build_round(ctx.table, winner)
            except InputError as exc:
                raise vl.error(f"{what}[{i}]: {exc.message}") from None
        out.append((winner, cards))
    return tuple(out)


def _seats(value: Any, loc: Loc, what: str) -> Any:
    """``all`` or a list of distinct seats 1-9."""
    if isinstance(value, str) and value == "all":
        return "all"
    items = check_list(value, loc, what)
    if not items:
        raise loc.error(f"{what}: an empty list of seats places nothing (write all, or name seats)")
    seen: dict[int, int] = {}
    for i, v, vl in items.enumerate_locs():
        seat = check_int(v, vl, f"{what}[{i}]", lo=1, hi=9)
        if seat in seen:
            raise vl.error(f"{what}: seat {seat} is listed twice (first at line {seen[seat]})")
        seen[seat] = vl.pos.line
    return tuple(seen)


def _meters_map(value: Any, loc: Loc, what: str, ctx: _Ctx) -> Fields:
    """A ``{meter: ...}`` mapping: not empty, only meters of the suite's game, each one a meter the
    case's tables must have (``requires:``), else the check reads 0 = 0 on a table without it."""
    m = Fields(value, loc, what, optional=METERS)
    if not m.node:
        raise loc.error(f"{what}: is empty: it checks nothing")
    for k in m:
        if k not in METERS:
            continue
        if k not in GAME_METERS.get(ctx.game, METERS):
            report(m.key_loc(k).error(f"{what}: a {ctx.game} table has no {k} meter "
                                      f"(its meters: {', '.join(GAME_METERS[ctx.game])})"))
        elif METER_CAPABILITY[k] not in ctx.requires and not (
                ctx.games and all(METER_CAPABILITY[k] in GAME_IMPLIES.get(g, ()) for g in ctx.games)):
            report(m.key_loc(k).error(
                f"{what}: checks the {k} meter but the case does not require {METER_CAPABILITY[k]}: on a "
                f"table without that meter the check reads nothing and cannot fail (add "
                f"requires: [{METER_CAPABILITY[k]}])"))
    return m


def _amount_ref(value: Any, loc: Loc, what: str, *, field: bool) -> Any:
    """An amount, or a reference to the Rules Submission or the meter (:mod:`harness.suites.load.refs`)."""
    if isinstance(value, str):
        try:
            ref = parse_ref(str(value))
        except InputError as exc:
            raise loc.error(f"{what}: {exc.message}") from None
        if ref is not None:
            if ref.base == "profile" and not field:
                raise loc.error(f"{what}: 'profile' names the value of the field a step writes; say which "
                                "value here (reset, initial, payout_limit, ...)")
            return ref
        if value and value[0].isalpha():
            word = str(value).split()[0]
            raise loc.error(f"{what}: '{value}' is neither an amount nor a reference{suggest(word, BASES)} "
                            f"(references: {', '.join(BASES)}, optionally '+ $0.01' or '- $0.01')")
    return check_amount(value, loc, what)


def _cards(value: Any, loc: Loc, what: str, ctx: _Ctx) -> tuple[Card, ...]:
    if isinstance(value, str):
        parts = str(value).replace(",", " ").split()
        cards = []
        for i, text in enumerate(parts, start=1):
            try:
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
    if ctx.table_decks is not None and ctx.table_decks < ctx.decks:
        try:
            check_against_shoe(cards, ctx.table_decks)
        except InputError as exc:
            raise NotForTable(f"the scripted cards do not fit the table's {ctx.table_decks}-deck shoe "
                              f"({exc.message})") from None
    return tuple(cards)


def _check_step_semantics(action: str, args: dict[str, Any], f: Fields, ctx: _Ctx) -> None:
    """Checks that need more than one argument or the game: a scripted round must be possible, an
    expectation must check something."""
    if action == "rounds" and args.get("count") == 0:
        raise f.error("count", "0 rounds play nothing and check nothing (at least 1)")
    if action == "wager" and args.get("amount") == 0 and args.get("expect") != "rejected":
        raise f.error("amount", "a $0 wager is no wager: a device refuses it (write expect: rejected to check "
                                "that it does)")
    if action == "deal" and args.get("count") == 0:
        raise f.error("count", "dealing 0 cards deals nothing (at least 1)")
    if action == "expect_answer":
        why = not_a_request(str(args.get("cmd")), str(args.get("role") or "controller"))
        if why:
            raise f.error("cmd", why)
        wrong = [a for a in args.get("answer") or () if a not in ANSWERS]
        if wrong:
            raise f.error("answer", f"{wrong[0]!r} is not an answer of the contract: {', '.join(ANSWERS)}")
        if args.get("match") and "ok" not in (args.get("answer") or ("ok",)):
            raise f.error("match", "fields to match in an answer the step does not accept (add ok to answer)")
    if action == "expect_meters" and not (args.get("delta") or args.get("grown") or args.get("equals")
                                          or args.get("at_least")
                                          or args.get("never_decreased") or args.get("conservation")):
        raise f.node.where.error("expect_meters: checks nothing: give delta, grown, equals, at_least, "
                                 "never_decreased: true or conservation: true")
    if action == "expect_payout" and not args.get("oracle"):
        if args.get("seat") is None:
            raise f.node.where.error("expect_payout: give oracle: true, or a seat with returned, category or "
                                     "none: true")
        if args.get("returned") is None and args.get("award") is None and args.get("category") is None \
                and not args.get("none"):
            raise f.node.where.error(f"expect_payout: seat {args['seat']}: checks nothing: give returned, "
                                     "award, category or none: true (or oracle: true)")
    if action in ("shoe", "deal") and "cards" in args and args.get("count") is None:
        cards = args["cards"]
        try:
            if ctx.game == "baccarat":
                used = deal_round(cards).cards_used
                why = "a natural stops the deal" if used == 4 else "the tableau draws no further card"
            else:
                used = dealer_hand(cards, hit_soft17=True).n_cards
                why = "the dealer's hand is complete"
                if ctx.hit_soft17 is False and dealer_hand(cards[:used], hit_soft17=False).n_cards != used:
                    raise NotForTable("the scripted dealer's hand draws to a soft 17, which this table's dealer "
                                      "stands on")
        except InputError as exc:
            raise f.error("cards", exc.message) from None
        if used < len(cards) and action == "deal":
            raise f.error("cards", f"{len(cards)} cards given but the round uses {used} ({why}); the rest would "
                                   "be dealt after the round is settled")
    if action in ("shoe", "deal") and "stack" in args:
        _stack_exists(args["stack"], f, ctx)
    if action == "streak3" and "games" in args and "hand" in args:
        kind = f"streak3-{args['hand']}"
        res = resolve_streak3(kind, [w for w, _cards in args["games"]])
        if res.result == "open":  # under every tie rule: only wins so far, fewer than three
            raise f.error("games", f"{res.rounds} game(s) leave the {kind} wager riding: list the games until "
                                   "it is decided (a case leaves no wager on the layout)")


def _stack_exists(name: str, f: Fields, ctx: _Ctx) -> None:
    """The stack exists, is valid and is of the suite's game.  Errors inside the stack file are
    reported at the stack file's own line, and the suite's step says which stack it cannot use."""
    try:
        stack = find_stack(name, ctx.fixtures)
    except InputError as exc:
        located = [e for e in error_lines(exc) if e.path is not None]
        for err in located:
            report(err)
        unlocated = [e.message for e in error_lines(exc) if e.path is None]
        if unlocated:
            raise f.error("stack", "; ".join(unlocated)) from None
        files = sorted({str(e.path) for e in located})
        raise f.error("stack", f"stack '{name}' cannot be used: {', '.join(files)} has errors") from None
    if stack.game not in STACK_GAMES[ctx.game]:
        raise f.error("stack", f"stack '{name}' is a {stack.game} stack ({stack.path}); this suite deals "
                               f"{ctx.game}")


def expand_suites(paths: list[Path]) -> list[Path]:
    """Suite files under the given files or directories, sorted."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(p.rglob("*.suite.yaml")))
        else:
            out.append(p)
    return out


__all__ = ["SPEC", "check_suite_against_profile", "error_at", "expand_suites", "load_suite", "validate_suite_file"]
