"""Named shoe stacks kept in ``fixtures/stacks/*.yaml`` (``spec: tablecert/stacks/1``).

A stack is a scripted card sequence with a name, the result it was built to produce, and a note
for the technician.  ``tablecert stack`` writes them; suites refer to them with ``stack: NAME``.

A stack file is checked as thoroughly as a suite, every error at its own line in the stack file:
each card exists, the sequence fits the shoe (no card more often than the decks hold), the game is
one the stack builder knows, and the cards **produce the ``want``** (judged by the oracles through
:func:`harness.stackbuilder.wants.verify`, exactly one complete round).  The table a file is
built for is its optional ``table: {decks: 8, soft17: hit, seats: {1: KS9S, ...}}``; without it the
shipped tables of ``harness.stackbuilder.fixtures`` (the ones its notes name) are used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from harness import paths
from harness.cards import Card, parse_cards
from harness.errors import InputError, InputErrors, error_lines
from harness.games.royal9 import parse_combo
from harness.schema import Fields, attempt, check_map, check_str, collecting, guard, in_order, suggest
from harness.stackbuilder.fixtures import fixture_setups
from harness.stackbuilder.render import SPEC
from harness.stackbuilder.wants import GAMES, Setup, parse_want, verify
from harness.yamlload import YMap, error_at, load_yaml

NAME_RE = r"^[a-z0-9][a-z0-9-]*$"


@dataclass(frozen=True)
class StackEntry:
    """One named stack of a stack file (``path``): its cards, top of the shoe first, and its want."""

    name: str
    cards: tuple[Card, ...]
    game: str
    want: str
    note: str
    path: str


@dataclass
class StackDir:
    """The stacks of one folder; a stack whose entry (or file) has errors is kept out of ``stacks``."""

    stacks: dict[str, StackEntry] = field(default_factory=dict)
    #: stack name -> the errors of its entry
    broken: dict[str, list[InputError]] = field(default_factory=dict)
    #: errors of whole files (unreadable, wrong spec): any name might have been in them
    file_errors: list[InputError] = field(default_factory=list)


project_root = paths.project_root  # the checkout: harness.paths (kept here for its many importers)


def fixtures_dir(fixtures: Path | None = None) -> Path:
    return fixtures if fixtures is not None else project_root() / "fixtures"


def _setup(table: Fields | None, game: str) -> Any:
    """The :class:`~harness.stackbuilder.wants.Setup` a stack of ``game`` is judged against."""
    base = fixture_setups()["hit-and-run" if game == "hit-and-run" else "baccarat"]
    if table is None:
        return Setup(game, base.decks, base.hit_soft17, base.seat_combos, base.interpretations)
    decks = table.get_int("decks", base.decks, lo=1, hi=8)
    soft17 = table.get_enum("soft17", ["hit", "stand"], "hit" if base.hit_soft17 else "stand")
    combos = base.seat_combos
    if "seats" in table:
        seats = check_map(table.raw("seats"), table.loc("seats"), "table.seats")
        combos = {}
        suited = bool(getattr(base.interpretations, "r9_personal_combo_suited", True))
        owners: dict[Any, tuple[int, int]] = {}
        for seat, text_node in seats.items():
            loc = seats.loc(seat)
            if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 9:
                raise seats.key_loc(seat).error(f"table.seats: {seat!r} is not a seat 1-9")
            text = check_str(text_node, loc, f"table.seats.{seat}")
            try:
                combos[int(seat)] = parse_combo(text, int(seat))
            except InputError as exc:
                raise loc.error(f"table.seats.{seat}: {exc.message}") from None
            key = combos[int(seat)] if suited else "king-nine"
            if key in owners:
                first, line = owners[key]
                raise loc.error(f"table.seats.{seat}: combination {text} is the same as seat {first}'s (line {line}); "
                                "each position has its own combination (58 Pa. Code 629a Royal 9 (e)(5))")
            owners[key] = (int(seat), loc.pos.line)
    return Setup(game, decks, soft17 == "hit", combos, base.interpretations)


def load_stack_file(path: Path) -> tuple[dict[str, StackEntry], dict[str, list[InputError]]]:
    """The valid stacks of one file, and the errors of each invalid entry (by name).

    Raises :class:`InputError` when the file as a whole cannot be used.
    """
    node = load_yaml(path)
    if not isinstance(node, YMap):
        raise InputError(f"a stacks file is a mapping starting with spec: {SPEC}", path=str(path), line=1, col=1)
    good: dict[str, StackEntry] = {}
    broken: dict[str, list[InputError]] = {}
    with collecting(isolated=True) as sink:
        root = Fields(node, None, "", required=("stacks",), optional=("spec", "table"))
        if "spec" not in root:
            raise error_at(root.node.where, f"missing key 'spec' (a stacks file starts with spec: {SPEC})")
        if root.get_str("spec") != SPEC:
            raise root.error("spec", f"unknown stacks spec (this version reads '{SPEC}')")
        table = attempt(lambda: root.get_map("table", optional=("decks", "soft17", "seats"), default=None))
        setups: dict[str, Any] = {}
        entries = check_map(root.raw("stacks"), root.loc("stacks"), "stacks")
        file_errors = list(sink)
        for name in entries:
            before = len(sink)
            with guard():
                check_str(name, entries.key_loc(name), "stack name", pattern=NAME_RE)
                e = Fields(entries[name], entries.loc(name), f"stacks.{name}", required=("cards", "game", "want"),
                           optional=("note",))
                game = e.get_enum("game", GAMES)
                try:
                    cards = tuple(parse_cards(e.get_str("cards")))
                except InputError as exc:
                    raise e.error("cards", exc.message) from None
                if not cards:
                    raise e.error("cards", "no cards: a stack is one complete round")
                want_text = e.get_str("want")
                try:
                    want = parse_want(want_text, game)
                except InputError as exc:
                    raise e.error("want", exc.message) from None
                if game not in setups:
                    setups[game] = _setup(table, game)
                problems = verify(want, cards, setups[game])
                if problems:
                    raise e.error("cards", f"the cards do not produce the want '{want_text}': "
                                           + "; ".join(problems))
                good[str(name)] = StackEntry(str(name), cards, game, want_text, e.get_str("note", ""), str(path))
            if len(sink) > before:
                broken[str(name)] = sink[before:]
                good.pop(str(name), None)
        # entry errors are kept by name for the suites that use them; the file is still usable
        # unless the file itself is wrong
        del sink[:]
        sink.extend(file_errors)
    return good, broken


def validate_stack_file(path: Path) -> dict[str, StackEntry]:
    """``tablecert validate`` of a stacks file: every error of every entry, or its stacks."""
    good, broken = load_stack_file(path)
    errors = [e for errs in broken.values() for e in errs]
    if errors:
        raise InputErrors(in_order(errors))
    return good


@cache
def _load_dir(directory: Path) -> StackDir:
    out = StackDir()
    if not directory.is_dir():
        return out
    for path in sorted(directory.glob("*.yaml")):
        try:
            good, broken = load_stack_file(path)
        except InputError as exc:
            out.file_errors.extend(error_lines(exc))
            continue
        for name, stack in good.items():
            if name in out.stacks or name in out.broken:
                first = out.stacks[name].path if name in out.stacks else "another file"
                out.broken[name] = [InputError(f"stack '{name}' already defined in {first}", path=str(path))]
                out.stacks.pop(name, None)
                continue
            out.stacks[name] = stack
        for name, errs in broken.items():
            out.broken.setdefault(name, []).extend(errs)
            out.stacks.pop(name, None)
    return out


def all_stacks(fixtures: Path | None = None) -> dict[str, StackEntry]:
    """Every valid stack of the fixtures folder (raises the errors of a folder with bad files)."""
    d = _load_dir(fixtures_dir(fixtures) / "stacks")
    errors = d.file_errors + [e for errs in d.broken.values() for e in errs]
    if errors:
        raise InputErrors(errors)
    return dict(d.stacks)


def find_stack(name: str, fixtures: Path | None = None) -> StackEntry:
    """The named stack; :class:`InputError` naming the stack file and line when it is invalid."""
    d = _load_dir(fixtures_dir(fixtures) / "stacks")
    if name in d.broken:
        raise InputErrors(d.broken[name])
    if name not in d.stacks:
        unknown = InputError(f"unknown stack '{name}'{suggest(name, d.stacks)} (stacks live in fixtures/stacks/)")
        raise InputErrors([unknown, *d.file_errors]) if d.file_errors else unknown
    return d.stacks[name]
