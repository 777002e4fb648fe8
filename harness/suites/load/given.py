"""What a case takes from the Rules Submission: the ``given:`` section, bound to a profile.

A suite never writes a value the certificate holder chooses (which seats the table has, whose
personal combination is whose, the decks, the dealer's soft-17 rule).  A case names those by
*role* in its ``given:`` section, and the plugin binds every name to the run's profile when it
collects the case, before anything runs::

    given:
      owner:  {seat: with-combo}                     # a seat with a personal combination
      others: {seats: all, not: [owner]}             # every other seat of the table
      hand:   {stack: "major:seat=${owner}"}         # cards built for this table's combinations
    steps:
      - wagers: {seats: all, type: player, amount: "$10"}
      - wagers: all
      - deal: {cards: "${hand}"}
      - expect_r9_meter_award: {seat: "${owner}", meter: major}

``${name}`` in a step is replaced by the bound value exactly like a ``params:`` value, so the step
validates and reads as if it had been written for that table (the record shows the values).
Each given is one of the kinds registered below with :func:`given` (``seat``, ``seats``,
``stack``); a name may use the names bound before it (``${owner}`` in the stack's want).

A role the profile cannot fill (a second seat with a combination on a one-seat table, a stack the
shoe cannot hold) makes the case NOT APPLICABLE to that profile, with the reason: that is a fact
about the table, not a failure.  A stack the builder could not find within its budget is not
such a fact: the case then ends as an ERROR naming the want.  A stack the builder proves impossible
on the suite's reference table (no round of that table gives the want: ``royal9-tie+player``) is an
error of the suite at validation; on the profile of a run it is NOT APPLICABLE with that proof.

Without a profile (``tablecert validate``) a suite is bound to the reference table of its game
(:data:`REFERENCE_PROFILES`), so every step is still checked as it will run.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import stackbuilder
from harness.cards import Combo, parse_cards
from harness.errors import InputError
from harness.games.interpretations import Interpretations
from harness.profiles import load_profile
from harness.schema import Fields, check_list, check_map, check_str
from harness.stackbuilder import Impossible, NotFound, memo
from harness.suites.load.stacks import project_root
from harness.yamlload import Loc, YMap, YStr

if TYPE_CHECKING:
    from harness.cards import Card
    from harness.games.interpretations import Interpretations
    from harness.profiles.model import Profile

#: the built-in profile a suite of each ``game:`` is checked against when no profile is given
REFERENCE_PROFILES = {"baccarat": "emulated-midi-5.yaml", "hit-and-run": "emulated-hit-and-run.yaml"}
SEAT_POOLS = ("all", "first", "last", "with-combo", "without-combo", "past-last")
_VAR = re.compile(r"\$\{([a-z_][a-z0-9_]*)\}")


class NotForTable(Exception):
    """The profile cannot fill this role; the case does not apply to it (the message says why)."""


class ImpossibleStack(NotForTable):
    """The stack builder proved that no round on this table gives the want (``where``: the want)."""

    def __init__(self, message: str, where: Loc) -> None:
        super().__init__(message)
        self.where = where


class BindError(Exception):
    """The role could not be bound for a reason that is not the table's (e.g. a search budget)."""


@dataclass(frozen=True)
class TableFacts:
    """What binding reads: the profile, the interpretations in force and the suite's game."""

    profile: Profile
    interp: Interpretations
    game: str

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(sorted(s.seat for s in self.profile.rules.seats))

    def combo(self, seat: int) -> Any:
        return self.profile.rules.combo_of(seat)


@dataclass(frozen=True)
class Binding:
    """The values of a case's ``given:`` names for one table (``values`` in the order written)."""

    values: Mapping[str, Any] = field(default_factory=dict)
    #: why the table cannot fill a role: the case is NOT APPLICABLE
    not_applicable: str | None = None
    #: why a role could not be bound although the table could fill it: the case is an ERROR
    error: str | None = None
    #: where the want is written when the reason is a stack the builder proved impossible on the table
    impossible_at: Loc | None = None

    def shown(self) -> dict[str, str]:
        """``{name: text}`` for the record and the failure output."""
        return {k: show(v) for k, v in self.values.items()}


def show(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class GivenKind:
    name: str
    #: the keys a spec of this kind may have besides its own name
    options: tuple[str, ...]
    #: ``resolve(fields, table, bound) -> value``; raises NotForTable / BindError
    resolve: Callable[[Fields, TableFacts, Mapping[str, Any]], Any]
    doc: str


_KINDS: dict[str, GivenKind] = {}


Resolver = Callable[..., Any]


def given(name: str, options: tuple[str, ...] = (), doc: str = "") -> Callable[[Resolver], Resolver]:
    """Register a kind of given (the key that names it in a spec, e.g. ``{seat: first}``)."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in _KINDS:
            raise RuntimeError(f"given kind '{name}' is registered twice")
        _KINDS[name] = GivenKind(name, options, fn, doc)
        return fn

    return register


def kinds() -> Mapping[str, GivenKind]:
    return _KINDS


# --------------------------------------------------------------------------- the kinds


def _pool(f: Fields, key: str, table: TableFacts, bound: Mapping[str, Any]) -> list[int]:
    """The seats a ``seat:``/``seats:`` spec chooses from, ``not:`` names removed."""
    pool = f.get_enum(key, SEAT_POOLS)
    seats = list(table.seats)
    if pool == "with-combo":
        seats = [s for s in seats if table.combo(s) is not None]
    elif pool == "without-combo":
        seats = [s for s in seats if table.combo(s) is None]
    elif pool == "past-last":
        seats = [max(seats) + 1] if max(seats) < 9 else []
    excluded: set[int] = set()
    if "not" in f:
        names = check_list(f.raw("not"), f.loc("not"), f.name("not"))
        for _i, name, loc in names.enumerate_locs():
            text = check_str(name, loc, f.name("not"))
            if text not in bound:
                raise loc.error(f"{f.name('not')}: '{text}' is not a given bound before this one")
            value = bound[text]
            excluded.update(value if isinstance(value, tuple) else (value,))
    return [s for s in seats if s not in excluded]


def _describe_pool(f: Fields, key: str) -> str:
    pool = str(f.raw(key))
    what = {"all": "seat", "first": "seat", "last": "seat", "with-combo": "seat with a personal combination",
            "without-combo": "seat without a personal combination", "past-last": "seat"}[pool]
    return what + (f" other than {', '.join(map(str, f.raw('not')))}" if "not" in f else "")


@given("seat", ("not", "pick"), "one seat of the table: `first`, `last`, `with-combo`, `without-combo` "
       "(the first such seat, or the last with `pick: last`), `past-last` (the seat number after the "
       "table's last seat: a seat the table does not have); `not: [names]` leaves out seats bound before")
def _seat(f: Fields, table: TableFacts, bound: Mapping[str, Any]) -> int:
    seats = _pool(f, "seat", table, bound)
    if not seats:
        if f.raw("seat") == "past-last":
            raise NotForTable(f"the table's last seat is seat 9, the most a table may have (seats {show(table.seats)})")
        raise NotForTable(f"the table has no {_describe_pool(f, 'seat')} (seats {show(table.seats)})")
    pick = f.get_enum("pick", ("first", "last"), "last" if f.raw("seat") == "last" else "first")
    return seats[-1] if pick == "last" else seats[0]


@given("seats", ("not", "count"), "several seats, in seat order: `all`, `with-combo`, `without-combo`; "
       "`count: N` takes the first N (the case does not apply to a table with fewer); "
       "`not: [names]` leaves out seats bound before")
def _seats(f: Fields, table: TableFacts, bound: Mapping[str, Any]) -> tuple[int, ...]:
    seats = _pool(f, "seats", table, bound)
    count = f.get_int("count", None, lo=1, hi=9) if "count" in f else None
    if count is not None:
        if len(seats) < count:
            raise NotForTable(f"the table has {len(seats)} {_describe_pool(f, 'seats')}(s), the case needs {count} "
                              f"(seats {show(table.seats)})")
        seats = seats[:count]
    if not seats:
        raise NotForTable(f"the table has no {_describe_pool(f, 'seats')} (seats {show(table.seats)})")
    return tuple(seats)


@given("stack", ("seed",), "cards for one round that produce the want (the `tablecert stack` vocabulary, "
       "e.g. `major:seat=${owner}`, `dealer-cards=5`), built by the stack builder for the table's "
       "personal combinations, decks, soft-17 rule and interpretations and checked by the oracle")
def _stack(f: Fields, table: TableFacts, bound: Mapping[str, Any]) -> str:
    want = f.get_str("stack")
    seed = f.get_int("seed", 1, lo=1, hi=1_000_000)
    game = "hit-and-run" if table.game == "hit-and-run" else "baccarat"
    rules = table.profile.rules
    hr = rules.hit_and_run
    decks = hr.decks if hr is not None and game == "hit-and-run" else rules.decks
    combos = tuple(sorted((s.seat, s.combo.codes()) for s in rules.seats if s.combo))
    try:
        return _build(game, want, decks, hr.hits_soft17 if hr is not None else True, combos, table.interp, seed)
    except InputError as exc:
        raise f.error("stack", exc.message) from None
    except NotForTable as exc:
        raise ImpossibleStack(str(exc), f.loc("stack")) from None


def build_round(table: TableFacts, want: str, *, seed: int = 1) -> tuple[Card, ...]:
    """The cards of one baccarat round giving ``want`` (a stack-builder want, e.g. ``player``) at
    ``table``: its decks and interpretations.  Raises :class:`NotForTable` when no round can,
    :class:`BindError` when the search ran out of budget."""
    rules = table.profile.rules
    combos = tuple(sorted((s.seat, s.combo.codes()) for s in rules.seats if s.combo))
    return tuple(parse_cards(_build("baccarat", want, rules.decks, True, combos, table.interp, seed)))


@functools.cache
def _build(game: str, want: str, decks: int, hit_soft17: bool, combos: tuple[tuple[int, tuple[str, str]], ...],
           interp: Interpretations, seed: int) -> str:
    key = memo.key_of(game, want, decks, hit_soft17, combos, interp, seed)
    kept = memo.recall(key)
    if kept is None:
        seat_combos = {seat: Combo.of_codes(codes) for seat, codes in combos}
        result = stackbuilder.build_stack(game, want, decks=decks, hit_soft17=hit_soft17, seat_combos=seat_combos,
                                          interpretations=interp, seed=seed, deadline_s=10.0)
        if isinstance(result, NotFound):  # out of time or tries: not kept, a later search may find it
            raise BindError(f"the stack builder found no round for '{want}' ({result.reason})")
        kept = ({"impossible": result.reason} if isinstance(result, Impossible)
                else {"cards": " ".join(c.code for c in result.cards)})
        memo.keep(key, kept)
    if "impossible" in kept:
        raise NotForTable(f"no round on this table gives '{want}': {kept['impossible']}")
    return str(kept["cards"])


# --------------------------------------------------------------------------- binding


def substitute_text(text: str, values: Mapping[str, Any], loc: Loc) -> str:
    def repl(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise loc.error(f"'${{{m.group(1)}}}' is not a given bound before this one or a parameter "
                            f"(known: {', '.join(values) or 'none'})")
        value = values[m.group(1)]
        return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)

    return _VAR.sub(repl, text)


def bind(spec: YMap, table: TableFacts, params: Mapping[str, Any]) -> Binding:
    """Bind every name of a case's ``given:`` mapping to ``table``.

    A malformed spec is an :class:`InputError` (a fault of the suite, whatever the table); a role
    the table cannot fill gives a binding with ``not_applicable`` set.
    """
    values: dict[str, Any] = {}
    node = check_map(spec, spec.where, "given")
    for name in node:
        key_loc = node.key_loc(name)
        text = check_str(name, key_loc, "given name", pattern=r"^[a-z_][a-z0-9_]*$")
        if text in params:
            raise key_loc.error(f"given '{text}' has the name of a parameter")
        item = check_map(node[name], node.loc(name), f"given.{text}")
        kind_name = next((k for k in item if k in _KINDS), None)
        if kind_name is None:
            raise node.loc(name).error(f"given.{text}: say what it is with one of "
                                       f"{', '.join(_KINDS)} (e.g. {{seat: first}})")
        kind = _KINDS[kind_name]
        f = Fields(_substituted(item, {**params, **values}), node.loc(name), f"given.{text}",
                   required=(kind_name,), optional=kind.options)
        try:
            values[text] = kind.resolve(f, table, values)
        except ImpossibleStack as exc:
            return Binding(values, not_applicable=f"given {text}: {exc}", impossible_at=exc.where)
        except NotForTable as exc:
            return Binding(values, not_applicable=f"given {text}: {exc}")
        except BindError as exc:
            return Binding(values, error=f"given {text}: {exc}")
    return Binding(values)


def _substituted(item: YMap, values: Mapping[str, Any]) -> YMap:
    """``item`` with ``${name}`` in its string values replaced (positions kept)."""
    out = YMap()
    for key, value in item.items():
        out[key] = value
        if isinstance(value, YStr) and "${" in value:
            new = YStr(substitute_text(value, values, value.where))
            new.place_at(value.src, value.pos)
            out[key] = new
    out.place_at(item.src, item.pos)
    out.key_pos, out.value_pos = item.key_pos, item.value_pos
    return out


@functools.cache
def reference_table(game: str) -> TableFacts:
    """The built-in profile a suite of ``game`` is validated against when no profile is given."""
    path = Path(project_root()) / "device_profiles" / REFERENCE_PROFILES.get(game, REFERENCE_PROFILES["baccarat"])
    profile = load_profile(path)
    return TableFacts(profile, Interpretations.from_overrides(dict(profile.interpretations)), game)


def reference_markdown() -> str:
    """The table of given kinds for ``docs/writing-suites.md`` (kept in step by a test)."""
    rows = ["| kind | options | what it binds |", "|---|---|---|"]
    for kind in _KINDS.values():
        rows.append(f"| `{kind.name}` | {', '.join(f'`{o}`' for o in kind.options) or '-'} | {kind.doc} |")
    return "\n".join(rows)
