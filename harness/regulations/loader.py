"""Loading and validating ``catalogue.yaml``: the catalogue is only as good as its data.

Why a validator of its own: every verdict cites a clause id, and the paytables, floors and
mystery table are read from here by game code, so a typo must stop the load with
``catalogue.yaml:line:col: message`` rather than silently drop a clause or restore a default.
Checked: known keys only and no duplicate keys, unique kebab-case ids, required fields,
``out_of_scope`` present exactly when a clause is not testable, every cross-reference between
clauses and interpretations exists, each interpretation's default is one of its choices, amounts
and rates are quoted strings that parse, and each one-line paytable clause repeats its table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import yaml

from harness.errors import InputError
from harness.games.payouts import Pay, parse_pay
from harness.money import parse_amount, parse_rate
from harness.regulations.model import (
    HR_CATEGORIES,
    ID_PATTERN,
    R9_DENOMINATIONS,
    RESOURCE,
    SPEC,
    TABLE_GAMES,
    Applies,
    Catalogue,
    Clause,
    Interpretation,
    did_you_mean,
)

#: the C-accelerated safe loader when libyaml is present (the same safe constructors)
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_CLAUSE_REQUIRED = ("id", "citation", "source", "text", "area", "testable")
_CLAUSE_KEYS = frozenset((*_CLAUSE_REQUIRED, "out_of_scope", "params", "interpretations"))
_INTERP_REQUIRED = ("id", "question", "default", "choices", "reason", "clauses")
_INTERP_KEYS = frozenset((*_INTERP_REQUIRED, "quote", "override"))
_TOP_KEYS = frozenset(("spec", "sources", "clauses", "scope", "interpretations"))
_SCOPE_KEYS = frozenset(("jurisdictions", "every_jurisdiction", "areas", "clauses"))
_APPLIES_KEYS = frozenset(("games", "capabilities", "denomination"))


class _Where:
    """Maps a path of keys/indexes in the loaded data to the YAML node's position."""

    def __init__(self, root: yaml.Node | None, path: str) -> None:
        self.root = root
        self.path = path

    def error(self, message: str, *keys: str | int) -> InputError:
        node = self.root
        for key in keys:  # the deepest node that exists: a missing key points at its mapping
            child = _child(node, key)
            if child is None:
                break
            node = child
        mark = node.start_mark if node is not None else None
        return InputError(
            message,
            path=self.path,
            line=mark.line + 1 if mark else None,
            col=mark.column + 1 if mark else None,
        )


def _child(node: yaml.Node | None, key: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if k.value == str(key):
                return v
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        return node.value[key]
    return None


def _check_duplicate_keys(node: yaml.Node | None, path: str) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for k, v in node.value:
            if k.value in seen:
                raise InputError(
                    f"duplicate key {k.value!r}", path=path, line=k.start_mark.line + 1,
                    col=k.start_mark.column + 1,
                )
            seen.add(k.value)
            _check_duplicate_keys(v, path)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _check_duplicate_keys(item, path)


def parse_catalogue(text: str, path: str = RESOURCE) -> Catalogue:
    """Parse and validate catalogue YAML (the packaged file, or a test's variant of it)."""
    loader = _SafeLoader(text)
    try:  # one parse: the node tree gives positions, the same tree is constructed (safely)
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(
            f"not valid YAML: {getattr(exc, 'problem', exc)}", path=path,
            line=mark.line + 1 if mark else None, col=mark.column + 1 if mark else None,
        ) from None
    finally:
        loader.dispose()
    _check_duplicate_keys(root, path)
    where = _Where(root, path)
    if not isinstance(data, dict):
        raise where.error("expected a mapping with spec, sources, clauses, interpretations")
    for key in data:
        if key not in _TOP_KEYS:
            raise where.error(f"unknown key {key!r}", key)
    if data.get("spec") != SPEC:
        raise where.error(f"spec must be {SPEC!r}, got {data.get('spec')!r}", "spec")
    sources = data.get("sources")
    if not isinstance(sources, dict) or not sources:
        raise where.error("sources: expected a mapping of file name -> title", "sources")
    raw_clauses = data.get("clauses")
    raw_interps = data.get("interpretations")
    if not isinstance(raw_clauses, list) or not isinstance(raw_interps, list):
        raise where.error("clauses and interpretations must be lists")
    clauses = tuple(_clause(where, i, raw, sources) for i, raw in enumerate(raw_clauses))
    interps = tuple(_interpretation(where, i, raw) for i, raw in enumerate(raw_interps))
    _cross_check(where, clauses, interps)
    clauses, interps = _mirror(clauses, interps)
    applies = _scope(where, data.get("scope"), clauses, sources)
    catalogue = Catalogue(clauses, interps, applies, {str(k): str(v) for k, v in sources.items()})
    _check_params(where, catalogue)
    return catalogue


def _str_field(where: _Where, raw: Mapping[str, Any], key: str, *at: str | int) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise where.error(f"{str(at[0]).rstrip('s')} {raw.get('id')!r}: {key}: expected a non-empty string",
                          *at, key)
    return value.strip()


def _check_entry(where: _Where, kind: str, raw: Any, keys: frozenset[str], required: tuple[str, ...],
                 *at: str | int) -> None:
    """Raise unless ``raw``, a ``kind`` of the catalogue at ``at``, is a mapping of known keys with
    every required one."""
    if not isinstance(raw, dict):
        raise where.error(f"{kind}: expected a mapping", *at)
    for key in raw:
        if key not in keys:
            raise where.error(f"{kind} {raw.get('id')!r}: unknown key {key!r}", *at, key)
    for key in required:
        if key not in raw:
            raise where.error(f"{kind} {raw.get('id')!r}: missing {key!r}", *at)


def _clause(where: _Where, i: int, raw: Any, sources: Mapping[str, Any]) -> Clause:
    at: tuple[str | int, ...] = ("clauses", i)
    _check_entry(where, "clause", raw, _CLAUSE_KEYS, _CLAUSE_REQUIRED, *at)
    cid = _str_field(where, raw, "id", *at)
    if not ID_PATTERN.match(cid):
        raise where.error(f"clause id {cid!r}: expected kebab-case (a-z, 0-9, '-')", *at, "id")
    source = _str_field(where, raw, "source", *at)
    if source not in sources:
        raise where.error(f"clause {cid!r}: source {source!r} is not listed under sources", *at, "source")
    testable = raw["testable"]
    if not isinstance(testable, bool):
        raise where.error(f"clause {cid!r}: testable must be true or false", *at, "testable")
    reason = raw.get("out_of_scope")
    if testable and reason is not None:
        raise where.error(
            f"clause {cid!r}: a testable clause has no out_of_scope reason", *at, "out_of_scope"
        )
    if not testable:
        reason = _str_field(where, raw, "out_of_scope", *at)
    params = raw.get("params", {})
    if not isinstance(params, dict):
        raise where.error(f"clause {cid!r}: params must be a mapping", *at, "params")
    interps = raw.get("interpretations", [])
    if not isinstance(interps, list) or not all(isinstance(x, str) for x in interps):
        raise where.error(f"clause {cid!r}: interpretations must be a list of ids", *at, "interpretations")
    return Clause(
        id=cid,
        citation=_str_field(where, raw, "citation", *at),
        source=source,
        text=" ".join(_str_field(where, raw, "text", *at).split()),
        area=_str_field(where, raw, "area", *at),
        testable=testable,
        out_of_scope=reason,
        params=MappingProxyType(params),
        interpretations=tuple(interps),
    )


def _interpretation(where: _Where, i: int, raw: Any) -> Interpretation:
    at: tuple[str | int, ...] = ("interpretations", i)
    _check_entry(where, "interpretation", raw, _INTERP_KEYS, _INTERP_REQUIRED, *at)
    iid = _str_field(where, raw, "id", *at)
    if not ID_PATTERN.match(iid):
        raise where.error(f"interpretation id {iid!r}: expected kebab-case", *at, "id")
    choices = raw["choices"]
    if not isinstance(choices, list) or len(choices) < 2:
        raise where.error(f"interpretation {iid!r}: choices must list at least two values", *at, "choices")
    if raw["default"] not in choices or type(raw["default"]) not in {type(c) for c in choices}:
        raise where.error(f"interpretation {iid!r}: default {raw['default']!r} is not one of the choices",
                          *at, "default")
    clauses = raw["clauses"]
    if not isinstance(clauses, list) or not all(isinstance(x, str) for x in clauses):
        raise where.error(f"interpretation {iid!r}: clauses must be a list of clause ids", *at, "clauses")
    return Interpretation(
        id=iid,
        question=" ".join(_str_field(where, raw, "question", *at).split()),
        default=raw["default"],
        choices=tuple(choices),
        reason=" ".join(_str_field(where, raw, "reason", *at).split()),
        clauses=tuple(clauses),
        quote=" ".join(str(raw.get("quote", "")).split()),
        override=" ".join(str(raw.get("override", "")).split()),
    )


def _cross_check(where: _Where, clauses: tuple[Clause, ...], interps: tuple[Interpretation, ...]) -> None:
    clause_ids: set[str] = set()
    for i, c in enumerate(clauses):
        if c.id in clause_ids:
            raise where.error(f"duplicate clause id {c.id!r}", "clauses", i, "id")
        clause_ids.add(c.id)
    interp_ids: set[str] = set()
    for i, interp in enumerate(interps):
        if interp.id in interp_ids:
            raise where.error(f"duplicate interpretation id {interp.id!r}", "interpretations", i, "id")
        interp_ids.add(interp.id)
        for cid in interp.clauses:
            if cid not in clause_ids:
                hint = did_you_mean(cid, sorted(clause_ids))
                raise where.error(f"interpretation {interp.id!r}: unknown clause id {cid!r}{hint}",
                                  "interpretations", i, "clauses")
    for i, c in enumerate(clauses):
        for iid in c.interpretations:
            if iid not in interp_ids:
                hint = did_you_mean(iid, sorted(interp_ids))
                raise where.error(f"clause {c.id!r}: unknown interpretation id {iid!r}{hint}",
                                  "clauses", i, "interpretations")


def _mirror(
    clauses: tuple[Clause, ...], interps: tuple[Interpretation, ...]
) -> tuple[tuple[Clause, ...], tuple[Interpretation, ...]]:
    """A link may be written on either side; both sides see it (clause order, then file order)."""
    order = {c.id: n for n, c in enumerate(clauses)}
    iorder = {i.id: n for n, i in enumerate(interps)}
    by_interp: dict[str, set[str]] = {i.id: set(i.clauses) for i in interps}
    by_clause: dict[str, set[str]] = {c.id: set(c.interpretations) for c in clauses}
    for c in clauses:
        for iid in c.interpretations:
            by_interp[iid].add(c.id)
    for i in interps:
        for cid in i.clauses:
            by_clause[cid].add(i.id)
    new_clauses = tuple(
        replace(c, interpretations=tuple(sorted(by_clause[c.id], key=iorder.__getitem__))) for c in clauses
    )
    new_interps = tuple(
        replace(i, clauses=tuple(sorted(by_interp[i.id], key=order.__getitem__))) for i in interps
    )
    return new_clauses, new_interps


def _check_params(where: _Where, cat: Catalogue) -> None:
    """Every amount, rate and pay text in the params must parse; the agreed tables must be whole."""
    index = {c.id: i for i, c in enumerate(cat.clauses)}
    for c in cat.clauses:
        at = ("clauses", index[c.id], "params")
        try:
            _parse_params(c)
        except InputError as exc:
            raise where.error(f"clause {c.id!r}: {exc.message}", *at) from None
        except (KeyError, TypeError, AttributeError) as exc:
            raise where.error(f"clause {c.id!r}: malformed params ({exc})", *at) from None
    try:
        for d in R9_DENOMINATIONS:
            cat.paytable(d)
            cat.floors(d)
        cat.mystery_configurations()
        cat.hit_and_run_paytable()
    except InputError as exc:
        raise where.error(exc.message, "clauses") from None
    except (KeyError, TypeError, AttributeError) as exc:
        raise where.error(f"a parameter table is incomplete: missing {exc}", "clauses") from None
    for c in cat.clauses:
        line = _line_pay(cat, c)
        if line is not None and parse_pay(c.params["pay"]) != line:
            raise where.error(
                f"clause {c.id!r}: pay {c.params['pay']!r} differs from its paytable's line", *("clauses",
                index[c.id], "params"))


def _line_pay(cat: Catalogue, c: Clause) -> Pay | None:
    """The table-level pay a one-line clause must repeat (Royal 9 by denomination, Hit and Run)."""
    p = c.params
    if "category" not in p or "pay" not in p:
        return None
    if "denomination" in p:
        return cat.paytable(p["denomination"]).get(p["category"])
    if p["category"] in HR_CATEGORIES:
        return cat.hit_and_run_paytable()[p["category"]]
    return None


def _text(value: Any, what: str) -> str:
    """Amounts, rates and pays are quoted strings in the data, so YAML never re-reads them."""
    if not isinstance(value, str):
        raise InputError(f"{what} {value!r}: write it as a quoted string, e.g. \"$450\" or \"5%\"")
    return value


def _parse_params(c: Clause) -> None:
    p = c.params
    if "pay" in p:
        parse_pay(_text(p["pay"], "pay"))
    for text in dict(p.get("paytable", {})).values():
        parse_pay(_text(text, "pay"))
    for text in dict(p.get("floors", {})).values():
        parse_amount(_text(text, "amount"))
    for row in dict(p.get("configurations", {})).values():
        parse_amount(_text(row["reseed"], "amount"))
        parse_amount(_text(row["must_hit_by"], "amount"))
        parse_rate(_text(row["rate"], "rate"))
    for key in ("amount", "floor"):
        if key in p:
            parse_amount(_text(p[key], "amount"))
    if "rate" in p:
        parse_rate(_text(p["rate"], "rate"))


def _scope(where: _Where, raw: Any, clauses: tuple[Clause, ...], sources: Mapping[str, Any]) -> dict[str, Applies]:
    """The ``scope:`` section: each clause's jurisdiction (by source), games, capabilities, denomination."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise where.error("scope: expected a mapping with jurisdictions, areas, clauses", "scope")
    for key in raw:
        if key not in _SCOPE_KEYS:
            raise where.error(f"scope: unknown key {key!r}", "scope", key)
    by_source: dict[str, str] = {}
    for jur, files in dict(raw.get("jurisdictions") or {}).items():
        if not isinstance(files, list):
            raise where.error(f"scope: jurisdiction {jur!r}: expected a list of sources", "scope", "jurisdictions", jur)
        for f in files:
            if f not in sources:
                raise where.error(f"scope: jurisdiction {jur!r}: unknown source {f!r}", "scope", "jurisdictions", jur)
            by_source[f] = str(jur)
    everywhere = raw.get("every_jurisdiction") or []
    if not isinstance(everywhere, list):
        raise where.error("scope: every_jurisdiction: expected a list of sources", "scope", "every_jurisdiction")
    for f in everywhere:
        if f not in sources:
            raise where.error(f"scope: every_jurisdiction: unknown source {f!r}", "scope", "every_jurisdiction")
        if f in by_source:
            raise where.error(f"scope: source {f!r} is in jurisdiction {by_source[f]!r} and in every_jurisdiction",
                              "scope", "every_jurisdiction")
    # a source in every jurisdiction: its clauses carry no jurisdiction of their own ("")
    missing = sorted(set(sources) - set(by_source) - set(everywhere))
    if raw.get("jurisdictions") is not None and missing:
        raise where.error(f"scope: source {missing[0]!r} has no jurisdiction", "scope", "jurisdictions")
    areas = {c.area for c in clauses}
    ids = {c.id for c in clauses}

    def limits(value: Any, *at: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise where.error("scope: expected a mapping of games, capabilities, denomination", "scope", *at)
        for key in value:
            if key not in _APPLIES_KEYS:
                raise where.error(f"scope: unknown key {key!r}", "scope", *at, key)
        out: dict[str, Any] = {}
        for key in ("games", "capabilities"):
            if key in value:
                items = value[key]
                if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
                    raise where.error(f"scope: {key} must be a list of names", "scope", *at, key)
                if key == "games":
                    for g in items:
                        if g not in TABLE_GAMES:
                            raise where.error(f"scope: unknown game {g!r}{did_you_mean(g, list(TABLE_GAMES))}",
                                              "scope", *at, key)
                out[key] = frozenset(items)
        if "denomination" in value:
            den = value["denomination"]
            if den not in R9_DENOMINATIONS or isinstance(den, bool):
                raise where.error(f"scope: denomination {den!r} is not one of {list(R9_DENOMINATIONS)}",
                                  "scope", *at, "denomination")
            out["denomination"] = den
        return out

    def limits_by(section: str, known: set[str], what: str) -> dict[str, dict[str, Any]]:
        """The limits of each ``what`` (an area, a clause id) listed under ``section``."""
        found: dict[str, dict[str, Any]] = {}
        for name, value in dict(raw.get(section) or {}).items():
            if name not in known:
                raise where.error(f"scope: unknown {what} {name!r}{did_you_mean(str(name), sorted(known))}",
                                  "scope", section, name)
            found[str(name)] = limits(value, section, str(name))
        return found

    by_area = limits_by("areas", areas, "area")
    by_clause = limits_by("clauses", ids, "clause id")
    out = {}
    for c in clauses:
        fields = {**by_area.get(c.area, {}), **by_clause.get(c.id, {})}
        out[c.id] = Applies(jurisdiction=by_source.get(c.source, ""), **fields)
    return out
