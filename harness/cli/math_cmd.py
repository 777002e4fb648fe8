"""``tablecert math``: exact probability of every outcome and each wager's return, per game.

Flags (stable; other tools call this command):

``--game baccarat|ez-baccarat|royal9|hit-and-run``  the game (required)
``--decks N``  full shoe of N decks (default 8; 6 for hit-and-run)
``--commission RATE``  Banker vigorish for ``baccarat`` (default 5%)
``--denomination 5|1``  Royal 9 paytable (default: both)
``--seat-combos "1=KS9S,..."``  Royal 9 table (default the seven-seat example layout of
    ``tablecert deal``); every seat is assumed to wager
``--meters "mega=C,major=C,minor=C"``  Royal 9 meter amounts in cents (default the floors)
``--hit-soft17`` / ``--stand-soft17``  dealer rule for hit-and-run (default hit)
``--meter CENTS`` / ``--stake CENTS``  Hit and Run meter (default 100000) and stake (default 500)
``--interpretation ID=true|false``  override a named interpretation (repeatable)
``--json``  print one JSON object

Every outcome is reported as ``{"count", "total", "probability"}``: an exact integer count of
equally likely ordered deals over ``total``, and the float.  JSON keys:
baccarat games: ``{"game", "decks", "total", "outcomes", "commission", "house_edge",
"house_edge_exact", "wagers": [{"wager", "house_edge", "return"}]}``;
royal9: ``{"game", "decks", "total", "hands", "seat_combos", "paytables": [{"denomination",
"stake", "meters", "meter_hits", "seats": [{"seat", "combo", "outcomes", "return",
"return_exact", "house_edge"}]}]}``;
hit-and-run: ``{"game", "decks", "hit_soft17", "total", "max_cards", "by_cards": {"2".."8+":
{"count", "total", "probability", "bust"}}, "wager": {"stake", "meter", "lines": [{"category",
"pay", "count", "total", "probability", "returned_per_unit", "contribution"}], "return",
"house_edge"}}``.  Returns are per unit staked, stake included (1.0 = fair).
"""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from typing import Any

from harness.cli.deal import (
    DEFAULT_LAYOUT,
    add_hit_and_run_arguments,
    describe_pay,
    parse_interpretations,
    parse_meters,
    parse_seat_combos,
)
from harness.cli.numbers import MAX_CENTS, count
from harness.errors import InputError
from harness.games.interpretations import Interpretations
from harness.money import parse_rate

HELP = "Exact probability of every outcome and each wager's house edge (baccarat, EZ, Royal 9, Hit and Run)."
EXAMPLE = """\
tablecert math --game baccarat --decks 8
tablecert math --game royal9 --decks 8 --denomination 5 --json
tablecert math --game hit-and-run --decks 6 --hit-soft17 --meter 250000"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, choices=("baccarat", "ez-baccarat", "royal9", "hit-and-run"))
    p.add_argument("--decks", type=count(1, 8), default=None, help="decks in the shoe (default 8; 6 for hit-and-run)")
    p.add_argument("--commission", default="5%", help="Banker commission (default 5%%)")
    p.add_argument("--denomination", type=count(1, 5), choices=(5, 1), default=None, help="Royal 9 paytable")
    p.add_argument("--seat-combos", default=None, help=f'Royal 9 table (default "{DEFAULT_LAYOUT}")')
    p.add_argument("--meters", default=None, help='Royal 9 "mega=C,major=C,minor=C" cents (default floors)')
    add_hit_and_run_arguments(p)
    p.add_argument("--stake", type=count(1, MAX_CENTS), default=500, help="Hit and Run stake in cents (default 500)")
    p.add_argument("--interpretation", action="append", default=[], metavar="ID=VALUE")
    p.add_argument("--json", action="store_true", help="print JSON")


def _p(count: int, total: int) -> dict[str, Any]:
    return {"count": count, "total": total, "probability": count / total}


def _exact(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def run(args: argparse.Namespace) -> int:
    interp = parse_interpretations(args.interpretation)
    decks = args.decks if args.decks is not None else (6 if args.game == "hit-and-run" else 8)
    if not 1 <= decks <= 16:
        raise InputError(f"--decks {decks}: expected 1 to 16")
    if args.game in ("baccarat", "ez-baccarat"):
        out = _baccarat(args.game, decks, args.commission)
    elif args.game == "royal9":
        out = _royal9(args, decks, interp)
    else:
        out = _hit_and_run(args, decks, interp)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(_human(out))
    return 0


def _baccarat(game: str, decks: int, commission_text: str) -> dict[str, Any]:
    from harness.math.baccarat_exact import baccarat_counts

    commission = parse_rate(commission_text)
    counts = baccarat_counts(decks)
    out: dict[str, Any] = {"game": game, **counts.as_dict(commission)}
    edges = counts.house_edges(commission)
    names = (("player", "player"), ("banker", "banker"), ("tie", "tie")) if game == "baccarat" else (
        ("player", "player"), ("banker", "ez-banker"), ("tie", "tie"), ("dragon7", "dragon7"),
        ("panda8", "panda8"))
    out["wagers"] = [{"wager": w, "house_edge": float(edges[k]), "return": float(1 - edges[k])} for w, k in names]
    return out


def _royal9(args: argparse.Namespace, decks: int, interp: Interpretations) -> dict[str, Any]:
    from harness.games.royal9 import Royal9Table, royal9_floors
    from harness.math.royal9_exact import royal9_math

    combos = parse_seat_combos(args.seat_combos if args.seat_combos is not None else DEFAULT_LAYOUT)
    if not interp.r9_personal_combo_suited and args.seat_combos is None:
        combos = dict(list(combos.items())[:1])
    tables = []
    hands: dict[str, Any] = {}
    total = 0
    for denom in (args.denomination,) if args.denomination else (5, 1):
        table = Royal9Table(combos, denom, interpretations=interp)
        meters = parse_meters(args.meters or "", royal9_floors(denom))
        m = royal9_math(table, decks=decks, meters=meters)
        total = m.total
        hands = {k: _p(v, m.total) for k, v in m.hands.items()}
        tables.append({
            "denomination": denom, "stake": table.stake, "meters": meters,
            "meter_hits": {k: _p(v, m.total) for k, v in m.meter_hits.items()},
            "seats": [{"seat": s.seat, "combo": list(s.combo.codes()) if s.combo else None,
                       "outcomes": {k: _p(v, m.total) for k, v in s.counts.items()},
                       "return": float(s.returned), "return_exact": _exact(s.returned),
                       "house_edge": float(s.house_edge)} for s in m.seats],
        })
    return {"game": "royal9", "decks": decks, "total": total, "hands": hands,
            "seat_combos": {str(k): f"{a.code}{b.code}" for k, (a, b) in combos.items()},
            "paytables": tables}


def _hit_and_run(args: argparse.Namespace, decks: int, interp: Interpretations) -> dict[str, Any]:
    from harness.games.blackjack import DEFAULT_METER
    from harness.math.hitrun_exact import BUST, dealer_distribution, hit_and_run_return

    d = dealer_distribution(decks, args.hit_soft17)
    meter = DEFAULT_METER if args.meter is None else args.meter
    r = hit_and_run_return(decks, args.hit_soft17, stake=args.stake, meter=meter, interpretations=interp)
    total = d.total
    by: dict[str, dict[str, Any]] = {}
    for (n, t) in sorted(d.counts):
        key = "8+" if n >= 8 else str(n)
        row = by.setdefault(key, {"count": 0, "bust": 0})
        row["count"] += d.common_count(n, t)
        if t == BUST:
            row["bust"] += d.common_count(n, t)
    cat_counts = d.category_counts(interp)
    return {
        "game": "hit-and-run", "decks": decks, "hit_soft17": args.hit_soft17, "total": total,
        "max_cards": d.max_cards,
        "by_cards": {k: {**_p(v["count"], total), "bust": _p(v["bust"], total)} for k, v in by.items()},
        "wager": {
            "stake": args.stake, "meter": meter,
            "lines": [{"category": line.category, "pay": describe_pay(line.pay), **_p(cat_counts[line.category], total),
                       "returned_per_unit": float(line.returned_per_unit),
                       "contribution": float(line.contribution)} for line in r.lines],
            "return": float(r.total_return), "house_edge": float(r.house_edge),
        },
    }


def _pct(x: float) -> str:
    return f"{x * 100:.4f}%"


def _human(out: dict[str, Any]) -> str:
    lines: list[str] = []
    game = out["game"]
    if game in ("baccarat", "ez-baccarat"):
        lines.append(f"{game}, {out['decks']} decks: {out['total']:,} ordered six-card deals")
        for name, o in out["outcomes"].items():
            lines.append(f"  {name:<9} {o['count']:>28,} / total  {o['probability']:.15f}")
        for w in out["wagers"]:
            lines.append(f"  {w['wager']:<9} house edge {_pct(w['house_edge'])}")
    elif game == "royal9":
        lines.append(f"Royal 9, {out['decks']} decks: {out['total']:,} ordered first-four deals")
        for name, o in out["hands"].items():
            if not name.startswith("player-K"):
                lines.append(f"  {name:<22} {o['count']:>16,} / total  {o['probability']:.9f}")
        for tab in out["paytables"]:
            meters = ", ".join(f"{k} {v / 100:,.2f}" for k, v in tab["meters"].items())
            lines.append(f"${tab['denomination']} paytable (meters {meters})")
            for s in tab["seats"]:
                combo = "".join(s["combo"]) if s["combo"] else "-"
                lines.append(f"  seat {s['seat']} {combo}: return {_pct(s['return'])}, "
                             f"house edge {_pct(s['house_edge'])}")
                for cat, o in s["outcomes"].items():
                    lines.append(f"    {cat:<18} {o['count']:>16,} / total  {o['probability']:.9f}")
    else:
        rule = "hits" if out["hit_soft17"] else "stands on"
        lines.append(f"Hit and Run, {out['decks']} decks, dealer {rule} soft 17 "
                     f"(common total: ordered {out['max_cards']}-card deals)")
        lines.append(f"  {'cards':<6} {'probability':>12} {'bust':>12}")
        for n, o in out["by_cards"].items():
            lines.append(f"  {n:<6} {o['probability']:>12.6f} {o['bust']['probability']:>12.6f}")
        w = out["wager"]
        lines.append(f"  wager: stake {w['stake'] / 100:,.2f}, meter {w['meter'] / 100:,.2f}")
        for line in w["lines"]:
            lines.append(f"    {line['category']:<13} {line['pay']:<18} p {line['probability']:.9f}  "
                         f"contributes {line['contribution']:.6f}")
        lines.append(f"  return {_pct(w['return'])}, house edge {_pct(w['house_edge'])}")
    return "\n".join(lines)
