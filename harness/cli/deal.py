"""``tablecert deal``: resolve one round from a scripted card sequence, as the regulation expects.

Flags (stable; other tools call this command):

``--game baccarat|ez-baccarat|blackjack``  the game (required)
``--cards "KS 9H 3D 4C ..."``  cards in the order they leave the shoe; for ``blackjack`` the
    dealer's cards in the order the dealer receives them (up card, hole card, draws)
``--decks N``  shoe size the sequence is checked against (default 8; 6 for blackjack)
``--stake CENTS``  stake of every base / Hit and Run wager (default 500)
``--commission RATE``  Banker vigorish, e.g. ``5%`` (default 5%; not charged on EZ tables)
``--royal9``  also resolve the Royal 9 progressive wagers (baccarat games only), with
    ``--denomination 5|1`` (default 5), ``--seat-combos "1=KS9S,2=KH9H,..."`` (default the
    seven-seat example layout ``1=KS9S,2=KH9H,3=KD9D,4=KC9C,5=KS9H,6=KH9D,7=KD9C`` (the built-in profiles' seats)),
    ``--wagers "1,2,3"`` (seats with a Royal 9 wager; default every seat with a combination) and
    ``--meters "mega=5000000,major=45000,minor=45000"`` (cents; default the denomination's floors)
``--hit-soft17`` / ``--stand-soft17``  dealer rule for blackjack (default hit)
``--meter CENTS``  Hit and Run meter amount (default 100000, the regulation sets no reset)
``--interpretation ID=true|false``  override a named interpretation (repeatable)
``--json``  print one JSON object instead of the table

JSON (baccarat games): ``{"game", "decks", "cards", "cards_used", "unused", "player": {"cards",
"total"}, "banker": {...}, "winner", "natural", "dragon7", "panda8", "wagers": [{"type",
"result", "stake", "returned", "net"}], "royal9": null | {"denomination", "stake",
"player_hand": {"royal9", "suited"}, "banker_hand": {...}, "meters", "meters_hit", "seats":
[{"seat", "combo", "wager", "combo_on", "qualifies", "awarded", "category", "pay", "stake",
"returned", "net", "meters_hit"}]}, "interpretations"}``.
JSON (blackjack): ``{"game", "decks", "hit_soft17", "cards", "cards_used", "unused", "dealer":
{"cards", "total", "soft", "bust", "blackjack", "n_cards"}, "wagers": [{"type": "hit-and-run",
"category", "pay", "meter", "result", "stake", "returned", "net"}], "interpretations"}``.
Money is integer cents throughout.
"""

from __future__ import annotations

import argparse
import json
from decimal import Decimal
from typing import Any

from harness.cards import Card, Combo, check_against_shoe, parse_cards
from harness.cli.numbers import MAX_CENTS, count, whole
from harness.errors import InputError
from harness.games.interpretations import Interpretations
from harness.games.payouts import Pay, Settlement
from harness.math.royal9_exact import DEFAULT_LAYOUT
from harness.money import fmt, parse_rate

HELP = "Resolve one round from a card sequence: hands, winner, every wager's payout, Royal 9 per seat."
EXAMPLE = """\
tablecert deal --game baccarat --cards "KS 9H 9S KD 4C" --royal9 --seat-combos "1=KS9S,2=KD9H"
tablecert deal --game ez-baccarat --cards "2S 3H 4D 4C 5S 3D" --json
tablecert deal --game blackjack --cards "2S 2D 2C 2H 3S 7D" --decks 6 --stand-soft17"""



def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, choices=("baccarat", "ez-baccarat", "blackjack"))
    p.add_argument("--cards", required=True, help='cards in shoe order, e.g. "KS 9H 3D 4C"')
    p.add_argument("--decks", type=count(1, 8), default=None, help="shoe decks (default 8; 6 for blackjack)")
    p.add_argument("--stake", type=count(1, MAX_CENTS), default=500, help="stake of each wager in cents (default 500)")
    p.add_argument("--commission", default="5%", help="Banker commission (default 5%%)")
    p.add_argument("--royal9", action="store_true", help="resolve Royal 9 progressive wagers too")
    p.add_argument("--denomination", type=count(1, 5), choices=(5, 1), default=5, help="Royal 9 $5 or $1 table")
    p.add_argument("--seat-combos", default=None, help=f'seat=king-9 pairs (default "{DEFAULT_LAYOUT}")')
    p.add_argument("--wagers", default=None, help='seats with a Royal 9 wager, e.g. "1,2,3" (default all)')
    p.add_argument("--meters", default=None, help='"mega=C,major=C,minor=C" in cents (default floors)')
    add_hit_and_run_arguments(p)
    p.add_argument("--interpretation", action="append", default=[], metavar="ID=VALUE",
                   help="override a named interpretation (repeatable)")
    p.add_argument("--json", action="store_true", help="print JSON")


def add_hit_and_run_arguments(p: argparse.ArgumentParser) -> None:
    """The dealer's soft-17 rule (``--hit-soft17``, the default, or ``--stand-soft17``) and the Hit and
    Run meter (``--meter``), as ``tablecert deal`` and ``tablecert math`` take them."""
    soft = p.add_mutually_exclusive_group()
    soft.add_argument("--hit-soft17", dest="hit_soft17", action="store_true", default=True)
    soft.add_argument("--stand-soft17", dest="hit_soft17", action="store_false")
    p.add_argument("--meter", type=count(0, MAX_CENTS), default=None,
                   help="Hit and Run meter in cents (default 100000)")


# --- parsing helpers (shared with ``tablecert math``) ------------------------------------------

def parse_interpretations(items: list[str]) -> Interpretations:
    overrides: dict[str, object] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep:
            raise InputError(f"--interpretation {item!r}: expected ID=VALUE")
        low = raw.strip().lower()
        value: object = True if low == "true" else False if low == "false" else raw.strip()
        overrides[key.strip()] = value
    return Interpretations.from_overrides(overrides)


def parse_seat_combos(text: str) -> dict[int, Combo]:
    from harness.games.royal9 import parse_combo

    combos: dict[int, Combo] = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        seat_txt, sep, combo = item.partition("=")
        if not sep:
            raise InputError(f"--seat-combos {item!r}: expected SEAT=KING-NINE, e.g. 1=KS9H")
        seat = whole(seat_txt.strip(), "--seat-combos: seat", 1, 9)
        if seat in combos:
            raise InputError(f"--seat-combos: seat {seat} given twice")
        combos[seat] = parse_combo(combo, seat)
    return combos


def parse_seats(text: str) -> frozenset[int]:
    seats = set()
    for item in filter(None, (x.strip() for x in text.split(","))):
        seats.add(whole(item, "--wagers: seat", 1, 9))
    return frozenset(seats)


def parse_meters(text: str, defaults: dict[str, int]) -> dict[str, int]:
    meters = dict(defaults)
    for item in filter(None, (x.strip() for x in text.split(","))):
        name, sep, amount = item.partition("=")
        name = name.strip()
        if not sep or name not in defaults:
            raise InputError(f"--meters {item!r}: expected mega=CENTS, major=CENTS or minor=CENTS")
        meters[name] = whole(amount.strip(), f"--meters {name}: amount in whole cents", 0, MAX_CENTS)
    return meters


def describe_pay(pay: Pay) -> str:
    """A paytable cell as the regulation writes it ("100% of meter", "100% of mega meter")."""
    if pay.kind == "meter" and pay.meter == "meter":
        return f"{pay.value}% of meter"
    return pay.describe()


def _money(s: Settlement) -> dict[str, int]:
    return {"stake": s.stake, "returned": s.returned, "net": s.net}


# --- the command ---------------------------------------------------------------------------

def run(args: argparse.Namespace) -> int:
    interp = parse_interpretations(args.interpretation)
    cards = parse_cards(args.cards)
    decks = args.decks if args.decks is not None else (6 if args.game == "blackjack" else 8)
    check_against_shoe(cards, decks)
    if args.stake <= 0:
        raise InputError(f"--stake {args.stake}: expected a positive amount in cents")
    if args.game == "blackjack":
        if args.royal9:
            raise InputError("--royal9: the Royal 9 wager is a Midibaccarat wager, not a blackjack one")
        out = _blackjack(args, cards, decks, interp)
    else:
        out = _baccarat(args, cards, decks, interp)
    out["interpretations"] = interp.as_dict()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(_human(out))
    return 0


def _blackjack(args: argparse.Namespace, cards: list[Card], decks: int, interp: Interpretations) -> dict[str, Any]:
    from harness.games.blackjack import DEFAULT_METER, dealer_hand, hit_and_run_paytable, settle_hit_and_run

    hand = dealer_hand(cards, hit_soft17=args.hit_soft17, interpretations=interp)
    meter = DEFAULT_METER if args.meter is None else args.meter
    if meter < 0:
        raise InputError(f"--meter {meter}: a meter is never negative")
    table = hit_and_run_paytable()
    category, s = settle_hit_and_run(hand, args.stake, meter, table, interpretations=interp)
    return {
        "game": "blackjack", "decks": decks, "hit_soft17": args.hit_soft17,
        "cards": [c.code for c in cards], "cards_used": hand.n_cards,
        "unused": [c.code for c in cards[hand.n_cards:]],
        "dealer": {"cards": [c.code for c in hand.cards], "total": hand.total, "soft": hand.soft,
                   "bust": hand.bust, "blackjack": hand.blackjack, "n_cards": hand.n_cards},
        "wagers": [{"type": "hit-and-run", "category": category,
                    "pay": describe_pay(table[category]) if category else None, "meter": meter,
                    "result": "win" if category else "lose", **_money(s)}],
    }


def _baccarat(args: argparse.Namespace, cards: list[Card], decks: int, interp: Interpretations) -> dict[str, Any]:
    from harness.games.baccarat import WAGERS, deal_round, settle_wager, wager_options

    rnd = deal_round(cards)
    commission: Decimal = parse_rate(args.commission)
    options = wager_options(dict(interp.others))
    game = args.game
    wagers = []
    for w in WAGERS:
        if w in ("dragon7", "panda8") and game != "ez-baccarat":
            continue
        label, s = settle_wager(rnd, w, args.stake, game=game, commission=commission, **options)
        wagers.append({"type": w, "result": label, **_money(s)})
    out: dict[str, Any] = {
        "game": game, "decks": decks, "cards": [c.code for c in cards], "cards_used": rnd.cards_used,
        "unused": [c.code for c in cards[rnd.cards_used:]],
        "player": {"cards": [c.code for c in rnd.player], "total": rnd.player_total},
        "banker": {"cards": [c.code for c in rnd.banker], "total": rnd.banker_total},
        "winner": rnd.winner, "natural": rnd.natural, "dragon7": rnd.dragon7, "panda8": rnd.panda8,
        "commission": None if game == "ez-baccarat" else str(commission),
        "wagers": wagers, "royal9": None,
    }
    if args.royal9:
        out["royal9"] = _royal9(args, rnd.first_four(), interp)
    return out


def _royal9(args: argparse.Namespace, first_four: tuple[Card, ...], interp: Interpretations) -> dict[str, Any]:
    from harness.games.royal9 import Royal9Table, royal9_floors

    combos = parse_seat_combos(args.seat_combos if args.seat_combos is not None else DEFAULT_LAYOUT)
    table = Royal9Table(combos, args.denomination, interpretations=interp)
    wagers = parse_seats(args.wagers) if args.wagers is not None else frozenset(combos)
    meters = parse_meters(args.meters or "", royal9_floors(args.denomination))
    r = table.resolve(first_four, wagers, meters)
    seats = []
    for s in r.seats:
        money = _money(s.settlement) if s.settlement is not None else {"stake": 0, "returned": 0, "net": 0}
        seats.append({
            "seat": s.seat, "combo": list(s.combo.codes()) if s.combo else None, "wager": s.wager,
            "combo_on": s.combo_on, "qualifies": list(s.qualifies), "awarded": list(s.awarded),
            "category": s.category, "pay": " + ".join(describe_pay(p) for p in s.pays) or None,
            **money, "meters_hit": list(s.meters_hit),
        })
    return {
        "denomination": args.denomination, "stake": table.stake,
        "player_hand": {"royal9": r.player_royal9, "suited": r.player_suited},
        "banker_hand": {"royal9": r.banker_royal9, "suited": r.banker_suited},
        "meters": meters, "meters_hit": list(r.meters_hit), "seats": seats,
    }


# --- human output ----------------------------------------------------------------------------

def _yn(flag: bool) -> str:
    return "yes" if flag else "no"


def _wager_lines(wagers: list[dict[str, Any]]) -> list[str]:
    lines = [f"  {'wager':<22} {'result':<7} {'stake':>10} {'returned':>12} {'net':>12}"]
    for w in wagers:
        name = w["type"] + (f" ({w['category']})" if w.get("category") else "")
        lines.append(f"  {name:<22} {w['result']:<7} {fmt(w['stake']):>10} {fmt(w['returned']):>12} "
                     f"{fmt(w['net']):>12}")
    return lines


def _human(out: dict[str, Any]) -> str:
    lines = []
    used = f"cards used {out['cards_used']} of {len(out['cards'])}"
    unused = f" (unused: {' '.join(out['unused'])})" if out["unused"] else ""
    if out["game"] == "blackjack":
        d = out["dealer"]
        rule = "hits" if out["hit_soft17"] else "stands on"
        lines.append(f"Blackjack, {out['decks']} decks, dealer {rule} soft 17; {used}{unused}")
        state = "blackjack" if d["blackjack"] else "bust" if d["bust"] else ("soft " if d["soft"] else "")
        total = f"{d['total']}" if state in ("", "soft ") else f"{d['total']} ({state})"
        if state == "soft ":
            total = f"soft {d['total']}"
        lines.append(f"  Dealer  {' '.join(d['cards']):<28} total {total}, {d['n_cards']} cards")
        w = out["wagers"][0]
        lines.append(f"Hit and Run: {w['category'] or 'no paytable line'}"
                     + (f", pays {w['pay']}" if w["pay"] else "") + f" (meter {fmt(w['meter'])})")
        lines += _wager_lines(out["wagers"])
        return "\n".join(lines)
    title = "EZ Baccarat" if out["game"] == "ez-baccarat" else "Baccarat"
    lines.append(f"{title}, {out['decks']} decks; {used}{unused}")
    for side in ("player", "banker"):
        h = out[side]
        lines.append(f"  {side.title():<7} {' '.join(h['cards']):<12} total {h['total']}")
    lines.append(f"  Winner {out['winner']}   natural {_yn(out['natural'])}   Dragon 7 {_yn(out['dragon7'])}"
                 f"   Panda 8 {_yn(out['panda8'])}")
    lines += _wager_lines(out["wagers"])
    r9 = out["royal9"]
    if r9 is not None:
        def hand(h: dict[str, bool]) -> str:
            return ("suited Royal 9" if h["suited"] else "Royal 9") if h["royal9"] else "no Royal 9"

        meters = ", ".join(f"{k} {fmt(v)}" for k, v in r9["meters"].items())
        lines.append(f"Royal 9 (${r9['denomination']} paytable): Player {hand(r9['player_hand'])}, "
                     f"Banker {hand(r9['banker_hand'])}; meters {meters}")
        lines.append(f"  {'seat':<4} {'combo':<6} {'wager':<5} {'combo on':<8} {'award':<17} {'pays':<24} "
                     f"{'returned':>14} {'net':>14}")
        for s in r9["seats"]:
            combo = "".join(s["combo"]) if s["combo"] else "-"
            award = s["category"] or ("lose" if s["wager"] else "-")
            lines.append(f"  {s['seat']:<4} {combo:<6} {_yn(s['wager']):<5} {s['combo_on'] or '-':<8} "
                         f"{award:<17} {s['pay'] or '-':<24} {fmt(s['returned']):>14} {fmt(s['net']):>14}")
        lines.append(f"  meters hit (reset): {', '.join(r9['meters_hit']) or 'none'}")
    return "\n".join(lines)
