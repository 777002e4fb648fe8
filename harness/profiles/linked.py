"""The ``link:`` section of a profile: one link controller, its common meters, two to eight tables.

A link profile files what a linked progressive's Rules Submission says: the common meters (their
amounts; :class:`~harness.profiles.model.CommonMeter`), and for every table its devices and its own
Rules Submission as a single table files it, where a meter on a common meter names it and the rate
of progression the table feeds it at (``mega: {link: mega-5, rate: "1.25%"}``).  Before anything
runs, the link is held to 58 Pa. Code 461a.12(c) and (d):

* every table on a common meter feeds it at the same rate of progression ((c)(2)), an error at
  the rate that differs from the first table's;
* every wager that feeds a common meter has the same chance of winning it per unit of wager
  ((c)(1): same wager, same probability; (d)(1): different wagers, probability directly
  proportional), computed exactly per table and seat by :mod:`harness.math.link_exact` from the
  table's decks, personal combinations, denomination and the interpretations in force (the wager
  counted as ``link-wager-measure`` says); an error at the table's meter or seat, with the figures;
* a common meter links two or more tables, each at or above the floors of its own denomination.

Errors are positioned (``file:line:col``) and all of them are reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from harness.errors import InputError
from harness.games.interpretations import Interpretations
from harness.math.link_exact import compare, meter_chances, why_unequal
from harness.profiles.model import CommonMeter, DeviceSpec, LinkSettings, LinkTable
from harness.profiles.rules import parse_rules
from harness.schema import Fields, attempt, check_list, check_map, check_str, guard, report
from harness.yamlload import Loc, YMap, to_plain

MIN_TABLES = 2
MAX_TABLES = 8
_COMMON_KEYS = ("initial", "reset", "payout_limit", "display_capacity")
_NAME = r"[a-z0-9][a-z0-9-]*"


def parse_link(
    f: Fields, *, game: str, capabilities: frozenset[str], interpretations: Mapping[str, Any],
    device: Callable[[str, Fields], DeviceSpec], devices: Callable[[Fields], dict[str, DeviceSpec]],
) -> LinkSettings:
    """The ``link:`` mapping of ``f`` (the profile's top level); ``device`` and ``devices`` parse a
    device entry and a ``devices:`` mapping as the profile loader does."""
    lf = f.get_map("link", required=("controller", "meters", "tables"))
    controller = device("link-controller", lf.get_map("controller", required=("driver",),
                                                      optional=("driver", "port", "baudrate", "match")))
    common = _common_meters(lf)
    suited = bool(interpretations.get("r9-personal-combo-suited", True))
    tables_node = lf.get_list("tables")
    if not MIN_TABLES <= len(tables_node) <= MAX_TABLES:
        report(lf.error("tables", f"{len(tables_node)} table(s): a link has {MIN_TABLES} to {MAX_TABLES}"))
    tables: list[LinkTable] = []
    nodes: dict[str, YMap] = {}
    seen: dict[str, int] = {}
    for i, item, loc in tables_node.enumerate_locs():
        with guard():
            tf = Fields(item, loc, f"link.tables[{i + 1}]", required=("name", "devices", "rules"))
            name = tf.get_str("name", pattern=_NAME)
            if name in seen:
                raise tf.error("name", f"table {name} is listed twice (first at line {seen[name]})")
            seen[name] = tf.loc("name").pos.line
            devs = attempt(lambda tf=tf: devices(tf), {})  # type: ignore[misc]
            rules = parse_rules(tf.raw("rules"), tf.loc("rules"), game=game, capabilities=capabilities,
                                suited=suited, common=common)
            links = _links(tf.raw("rules"))
            tables.append(LinkTable(name, MappingProxyType(devs), rules, MappingProxyType(links),
                                    MappingProxyType(to_plain(item))))
            nodes[name] = tf.node
    link = LinkSettings(controller, MappingProxyType(common), tuple(tables))
    _check_meters_shared(lf, link)
    _check_rates(link, nodes)
    _check_chances(link, nodes, interpretations)
    return link


def _common_meters(lf: Fields) -> dict[str, CommonMeter]:
    mnode = check_map(lf.raw("meters"), lf.loc("meters"), "link.meters")
    out: dict[str, CommonMeter] = {}
    for name in mnode:
        with guard():
            key = check_str(name, mnode.key_loc(name), "link.meters", pattern=_NAME)
            m = Fields(mnode[name], mnode.loc(name), f"link.meters.{key}", required=("initial",),
                       optional=_COMMON_KEYS)
            initial = m.get_amount("initial")
            reset = m.get_amount("reset", initial)
            limit = m.get_amount("payout_limit", None)
            capacity = m.get_amount("display_capacity", None)
            if limit is not None and limit <= max(initial, reset):
                raise m.error("payout_limit", "must be greater than the initial and reset amounts (461a.12(k)(1))")
            if capacity is not None and max(initial, reset, limit or 0) > capacity:
                raise m.error("display_capacity", "below an amount the meter must show (461a.12(j))")
            out[key] = CommonMeter(key, initial, reset, limit, capacity)
    if not out and "meters" in lf:
        report(lf.error("meters", "a link has at least one common meter"))
    return out


def _links(rules: Any) -> dict[str, str]:
    meters = rules.get("meters") if isinstance(rules, Mapping) else None
    if not isinstance(meters, Mapping):
        return {}
    return {str(m): str(e["link"]) for m, e in meters.items() if isinstance(e, Mapping) and "link" in e}


def _at(node: Any, *keys: Any) -> Loc | None:
    """Where ``node[k1][k2]...`` was written (the deepest mapping that has the keys)."""
    loc = None
    for key in keys:
        if not isinstance(node, YMap) or key not in node:
            break
        loc, node = node.loc(key), node[key]
    return loc


def _check_meters_shared(lf: Fields, link: LinkSettings) -> None:
    for name in link.meters:
        on = link.on(name)
        if len(on) < MIN_TABLES:
            which = ", ".join(t.name for t, _m in on) or "none"
            report(lf.node["meters"].key_loc(name).error(
                f"link.meters.{name}: on {len(on)} table(s) ({which}); a common meter links two or more tables "
                "(461a.12(c)); a meter of one table belongs in that table's rules"))


def _check_rates(link: LinkSettings, nodes: Mapping[str, YMap]) -> None:
    """461a.12(c)(2): every table increments a common meter at the same rate of progression."""
    for name in link.meters:
        on = link.on(name)
        if not on:
            continue
        first, m0 = on[0]
        rate0 = first.rules.meters[m0].rate
        for table, meter in on[1:]:
            rate = table.rules.meters[meter].rate
            if rate != rate0:
                where = _at(nodes[table.name], "rules", "meters", meter, "rate")
                message = (f"link table {table.name}: feeds the common meter {name} at {rate}%, table {first.name} "
                           f"at {rate0}%; every linked table increments it at the same rate of progression "
                           "(461a.12(c)(2))")
                report(where.error(message) if where is not None else _plain(message))


def _check_chances(link: LinkSettings, nodes: Mapping[str, YMap], interpretations: Mapping[str, Any]) -> None:
    """461a.12(c)(1), (d)(1): the same chance per unit of wager on every table and seat."""
    interp = Interpretations.from_overrides(dict(interpretations))
    measure = str(interp.as_dict().get("link-wager-measure", "money"))
    chances = []
    for t in link.tables:
        if t.rules.denomination is None or not t.links:
            continue
        chances += meter_chances(
            t.name, decks=t.rules.decks, seats={s.seat: s.combo for s in t.rules.seats},
            denomination=t.rules.denomination, interpretations=interp,
            amounts={m: s.reset for m, s in t.rules.meters.items()}, links=t.links, measure=measure)
    said: dict[tuple[str, str], list[int]] = {}
    for c, ref in compare(chances):
        seats = said.setdefault((c.table, c.common), [])
        seats.append(c.seat)
        if c.p != 0 and len(seats) > 1:
            continue  # one error per table and meter for the same figures; a seat with no chance is its own
        seat_index = next(i for i, s in enumerate(link.table(c.table).rules.seats) if s.seat == c.seat)
        node = nodes[c.table]
        where = (_seat_loc(node, seat_index) if c.p == 0 else _at(node, "rules", "meters", c.meter, "link"))
        message = f"link table {c.table}: {why_unequal(c, ref)}"
        if c.denomination != ref.denomination and measure == "money":
            message += ("; a Royal 9 wager's chance does not grow with the denomination, so $5 and $1 tables cannot "
                        "share a common meter where the wager is counted in money (interpretation link-wager-measure)")
        report(where.error(message) if where is not None else _plain(message))


def _seat_loc(node: YMap, index: int) -> Loc | None:
    rules = node.get("rules")
    seats = rules.get("seats") if isinstance(rules, YMap) else None
    if seats is None:
        return None
    return check_list(seats, None, "rules.seats").loc(index)


def _plain(message: str) -> Any:
    return InputError(message)
