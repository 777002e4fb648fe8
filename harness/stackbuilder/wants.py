"""The want vocabulary of ``tablecert stack`` and the oracle check that judges a stack.

A *want* is one or more atoms joined by ``+`` (``royal9:banker+banker``).  Every atom is checked
against the harness's own oracles (:func:`harness.games.baccarat.deal_round`,
:class:`harness.games.royal9.Royal9Table`, :func:`harness.games.blackjack.dealer_hand`), so a
stack is never printed on the builder's word alone.

Baccarat atoms (punto banco; EZ flags 42 Pa.B. 6761):
``player`` ``banker`` ``tie`` (the winner), ``natural`` / ``no-natural``, ``natural-8`` /
``natural-9`` (a natural whose higher two-card total is 8 / 9), ``dragon7``, ``panda8``,
``tableau:banker=B,p3=P[,draws|,stands]`` (Player drew a third card of value P against Banker's
two-card B; the tableau decides Banker's draw, or the optional third key demands one),
``player-stands:banker=B`` (Player stands on 6-7 against Banker's two-card B), ``banker-draws``,
``banker-stands``.

Royal 9 atoms (629a Royal 9 (b), (e)): ``royal9:player|banker`` (a plain Royal 9 on that hand,
the other hand none, nobody's personal combination), ``suited-royal9:player|banker``,
``royal9-tie``, ``suited-royal9-tie``, ``major:seat=N`` (seat N's combination on the Banker,
Player no Royal 9), ``minor:seat=N``, ``mega:seat=N``, ``mega-envy`` (a mega for some seat, so
every other seat collects envy), ``combos:player=A,banker=B`` (seat A's combination on the Player
hand and seat B's on the Banker), ``no-royal9``, ``ten-not-face`` (a ten and a nine on a hand: a
ten is not a face card, so no Royal 9).  Two refinements say how a hand's Royal 9 is made:
``king-nine:player|banker`` (its face card is a king), ``nine-first:player|banker`` (the nine is
the hand's first card) and ``face-first:player|banker`` (the face card is).

Hit and Run atoms (633a.13(l)(1)): ``dealer-cards=N`` (the dealer's final hand has exactly N
cards; ``N=2`` excludes a blackjack, which is ``dealer-blackjack``), ``dealer-cards=8-plus``,
``dealer-blackjack``, ``dealer-bust-cards=N``, ``dealer-stands`` (the final hand stands on 17-21
without a blackjack: with ``dealer-cards=N`` it shows a line paid on a hand that did not bust).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from harness.cards import Card, Combo, check_against_shoe
from harness.errors import InputError
from harness.games.baccarat import RANK_VALUE, BaccaratRound, deal_round
from harness.games.blackjack import dealer_hand
from harness.games.interpretations import DEFAULT, Interpretations
from harness.games.royal9 import HandKey, Royal9Result, Royal9Table, hand_key

GAMES = ("baccarat", "ez-baccarat", "hit-and-run")
BACCARAT_GAMES = ("baccarat", "ez-baccarat")

BAC_KINDS = ("player", "banker", "tie", "natural", "natural-8", "natural-9", "no-natural", "dragon7", "panda8",
             "tableau", "player-stands", "banker-draws", "banker-stands")
R9_KINDS = ("royal9", "suited-royal9", "royal9-tie", "suited-royal9-tie", "major", "minor", "mega", "mega-envy",
            "combos", "king-nine", "nine-first", "face-first", "no-royal9", "ten-not-face")
HR_KINDS = ("dealer-cards", "dealer-blackjack", "dealer-bust-cards", "dealer-stands")

#: the vocabulary as a user writes it (for the "valid wants" error message and --help)
VOCABULARY = (
    "player", "banker", "tie", "natural", "natural-8", "natural-9", "no-natural", "dragon7", "panda8",
    "tableau:banker=B,p3=P[,draws|,stands]", "player-stands:banker=B", "banker-draws", "banker-stands",
    "royal9:player|banker", "suited-royal9:player|banker", "royal9-tie", "suited-royal9-tie",
    "major:seat=N", "minor:seat=N", "mega:seat=N", "mega-envy", "combos:player=A,banker=B",
    "king-nine:player|banker", "nine-first:player|banker", "face-first:player|banker", "no-royal9", "ten-not-face",
    "dealer-cards=N|8-plus", "dealer-blackjack", "dealer-bust-cards=N", "dealer-stands",
)


@dataclass(frozen=True)
class Atom:
    """One condition of a want: ``kind`` plus its parameters (hand, seat, banker, p3, action, n)."""

    kind: str
    hand: str | None = None
    seat: int | None = None
    banker: int | None = None
    p3: int | None = None
    action: str | None = None  # tableau: "draws" | "stands" | None (the tableau decides)
    n: int | None = None
    plus: bool = False  # dealer-cards=8-plus
    #: combos: the seat whose combination is on the Banker hand (``seat`` is the Player's)
    banker_seat: int | None = None

    @property
    def text(self) -> str:
        k = self.kind
        if k in ("royal9", "suited-royal9", "king-nine", "nine-first", "face-first"):
            return f"{k}:{self.hand}"
        if k in ("major", "minor", "mega"):
            return f"{k}:seat={self.seat}"
        if k == "combos":
            return f"combos:player={self.seat},banker={self.banker_seat}"
        if k == "tableau":
            extra = f",{self.action}" if self.action else ""
            return f"tableau:banker={self.banker},p3={self.p3}{extra}"
        if k == "player-stands":
            return f"player-stands:banker={self.banker}"
        if k == "dealer-cards":
            return "dealer-cards=8-plus" if self.plus else f"dealer-cards={self.n}"
        if k == "dealer-bust-cards":
            return f"dealer-bust-cards={self.n}"
        return k


def _bad(atom: str, why: str) -> InputError:
    return InputError(f"want {atom!r}: {why} (valid wants: {', '.join(VOCABULARY)}; combine with '+')")


def _int(atom: str, text: str, what: str, lo: int, hi: int) -> int:
    if not re.fullmatch(r"\d+", text.strip()):
        raise _bad(atom, f"{what} must be a whole number, got {text!r}")
    value = int(text)
    if not lo <= value <= hi:
        raise _bad(atom, f"{what} must be {lo} to {hi}, got {value}")
    return value


def _params(atom: str, body: str, keys: Sequence[str], flags: Sequence[str] = ()) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in (x.strip() for x in body.split(",")):
        if item in flags and "action" not in out:
            out["action"] = item
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in keys:
            raise _bad(atom, f"expected {', '.join(k + '=N' for k in keys)}, got {item!r}")
        if key in out:
            raise _bad(atom, f"{key} given twice")
        out[key] = value.strip()
    missing = [k for k in keys if k not in out]
    if missing:
        raise _bad(atom, f"missing {', '.join(missing)}")
    return out


def parse_atom(text: str) -> Atom:
    """One atom, strictly: unknown words and malformed parameters raise :class:`InputError`."""
    raw = text.strip().lower()
    if raw in BAC_KINDS or raw in ("royal9-tie", "suited-royal9-tie", "mega-envy", "no-royal9", "ten-not-face",
                                   "dealer-blackjack", "dealer-stands"):
        if raw in ("tableau", "player-stands"):
            raise _bad(text, "needs parameters")
        return Atom(raw)
    head, colon, body = raw.partition(":")
    if colon:
        if head in ("royal9", "suited-royal9", "king-nine", "nine-first", "face-first"):
            if body not in ("player", "banker"):
                raise _bad(text, "the hand is 'player' or 'banker'")
            return Atom(head, hand=body)
        if head in ("major", "minor", "mega"):
            seat = _params(text, body, ("seat",))["seat"]
            return Atom(head, seat=_int(text, seat, "seat", 1, 9))
        if head == "combos":
            p = _params(text, body, ("player", "banker"))
            a, b = _int(text, p["player"], "player", 1, 9), _int(text, p["banker"], "banker", 1, 9)
            if a == b:
                raise _bad(text, "two different seats (one seat's combination on both hands is mega:seat=N)")
            return Atom("combos", seat=a, banker_seat=b)
        if head == "tableau":
            p = _params(text, body, ("banker", "p3"), ("draws", "stands"))
            return Atom("tableau", banker=_int(text, p["banker"], "banker", 0, 9),
                        p3=_int(text, p["p3"], "p3", 0, 9), action=p.get("action"))
        if head == "player-stands":
            p = _params(text, body, ("banker",))
            return Atom("player-stands", banker=_int(text, p["banker"], "banker", 0, 9))
    head, eq, value = raw.partition("=")
    if eq and head == "dealer-cards":
        if value.strip() in ("8-plus", "8+"):
            return Atom("dealer-cards", n=8, plus=True)
        return Atom("dealer-cards", n=_int(text, value, "the number of cards", 1, 99))
    if eq and head == "dealer-bust-cards":
        return Atom("dealer-bust-cards", n=_int(text, value, "the number of cards", 1, 99))
    raise _bad(text, "unknown want")


@dataclass(frozen=True)
class Want:
    atoms: tuple[Atom, ...]

    @property
    def text(self) -> str:
        return "+".join(a.text for a in self.atoms)

    def has(self, *kinds: str) -> bool:
        return any(a.kind in kinds for a in self.atoms)


def parse_want(text: str, game: str) -> Want:
    """``"royal9:banker+banker"`` -> :class:`Want`; atoms must belong to ``game``."""
    if game not in GAMES:
        raise InputError(f"game {game!r}: expected one of {', '.join(GAMES)}")
    parts = [p for p in (x.strip() for x in text.split("+")) if p]
    if not parts:
        raise _bad(text, "empty")
    atoms: list[Atom] = []
    for part in parts:
        atom = parse_atom(part)
        hr = atom.kind in HR_KINDS
        if hr != (game == "hit-and-run"):
            where = "a Hit and Run want: use --game hit-and-run" if hr else f"not a Hit and Run want (game {game})"
            raise InputError(f"want {part!r}: {where}")
        if atom in atoms:
            raise InputError(f"want {part!r}: given twice")
        atoms.append(atom)
    return Want(tuple(atoms))


@dataclass(frozen=True)
class Setup:
    """What a stack is built for: game, shoe size, dealer rule, the table's seat combinations."""

    game: str = "baccarat"
    decks: int = 8
    hit_soft17: bool = True
    seat_combos: Mapping[int, Combo] = field(default_factory=dict)
    interpretations: Interpretations = DEFAULT

    @cached_property
    def table(self) -> Royal9Table:
        return Royal9Table(self.seat_combos, 5, interpretations=self.interpretations)

    def key(self, a: Card, b: Card) -> HandKey:
        return hand_key(a, b, order_insensitive=self.interpretations.r9_order_insensitive)

    def owner(self, key: HandKey) -> int | None:
        return self.table.owner(key)


def _two_card(a: Card, b: Card) -> int:
    return (RANK_VALUE[a.rank] + RANK_VALUE[b.rank]) % 10


def check_baccarat_atom(atom: Atom, rnd: BaccaratRound) -> str | None:
    """The part of an atom that depends only on card values; ``None`` when it holds."""
    k = atom.kind
    pt2, bt2 = _two_card(rnd.player[0], rnd.player[1]), _two_card(rnd.banker[0], rnd.banker[1])
    if k in ("player", "banker", "tie"):
        return None if rnd.winner == k else f"winner is {rnd.winner}"
    if k == "natural":
        return None if rnd.natural else "no natural"
    if k == "no-natural":
        return None if not rnd.natural else f"a natural (Player {pt2}, Banker {bt2})"
    if k in ("natural-8", "natural-9"):
        want = int(k[-1])
        return None if rnd.natural and max(pt2, bt2) == want else f"two-card totals Player {pt2}, Banker {bt2}"
    if k == "dragon7":
        return None if rnd.dragon7 else "no Dragon 7"
    if k == "panda8":
        return None if rnd.panda8 else "no Panda 8"
    if k == "banker-draws":
        return None if len(rnd.banker) == 3 else "Banker did not draw"
    if k == "banker-stands":
        return None if len(rnd.banker) == 2 and not rnd.natural else "Banker did not stand on a drawing round"
    if k == "tableau":
        if rnd.natural or len(rnd.player) != 3:
            return "Player did not draw a third card"
        p3 = RANK_VALUE[rnd.player[2].rank]
        if bt2 != atom.banker or p3 != atom.p3:
            return f"Banker two-card {bt2} against Player's third card {p3}"
        if atom.action == "draws" and len(rnd.banker) != 3:
            return "Banker stood"
        if atom.action == "stands" and len(rnd.banker) != 2:
            return "Banker drew"
        return None
    if k == "player-stands":
        if rnd.natural or len(rnd.player) != 2:
            return "Player did not stand on 6 or 7"
        return None if bt2 == atom.banker else f"Banker two-card total {bt2}"
    raise AssertionError(k)


def _categories(r9: Royal9Result) -> dict[int, str | None]:
    return {s.seat: s.category for s in r9.seats}


def check_royal9_atom(atom: Atom, setup: Setup, first_four: Sequence[Card], r9: Royal9Result) -> str | None:
    """A Royal 9 atom against the first four cards and the oracle's per-seat resolution."""
    p1, b1, p2, b2 = first_four
    pk, bk = setup.key(p1, p2), setup.key(b1, b2)
    po, bo = setup.owner(pk), setup.owner(bk)
    cats = _categories(r9)

    def suited(key: HandKey) -> bool:
        return key is not None and key[0].suit == key[1].suit

    def all_seats(cat: str) -> str | None:
        wrong = {s: c for s, c in cats.items() if c != cat}
        return None if not wrong else f"seats awarded {wrong} instead of {cat}"

    k = atom.kind
    if k in ("royal9", "suited-royal9"):
        mine, other = (pk, bk) if atom.hand == "player" else (bk, pk)
        if mine is None or other is not None:
            return f"wanted a Royal 9 on the {atom.hand} hand only"
        if suited(mine) != (k == "suited-royal9"):
            return "suited" if suited(mine) else "not suited"
        if setup.owner(mine) is not None:
            return f"seat {setup.owner(mine)}'s personal combination"
        return all_seats(k)
    if k in ("royal9-tie", "suited-royal9-tie"):
        if pk is None or bk is None:
            return "not a Royal 9 on both hands"
        if (suited(pk) and suited(bk)) != (k == "suited-royal9-tie"):
            return "wrong suitedness for the tie line"
        if po is not None or bo is not None:
            return "a personal combination is on a hand"
        return all_seats(k)
    if k in ("major", "minor", "mega"):
        on, other = (bo, pk) if k == "major" else (po, bk)
        if k == "mega":
            ok = po == atom.seat and bo == atom.seat
        else:
            ok = on == atom.seat and other is None
        if not ok:
            return f"seat {atom.seat}'s combination is not where {k} needs it"
        seat = int(atom.seat or 0)
        if cats.get(seat) != k or r9.meters_hit != (k,):
            return f"seat {seat} awarded {cats.get(seat)}, meters hit {r9.meters_hit}"
        if k == "mega":
            wrong = {s: c for s, c in cats.items() if s != atom.seat and c != "mega-envy"}
            return None if not wrong else f"other seats {wrong}, expected mega-envy"
        return None
    if k == "combos":
        if po != atom.seat or bo != atom.banker_seat:
            return f"seat {atom.seat}'s combination on the Player hand and seat {atom.banker_seat}'s on the Banker"
        return None
    if k in ("king-nine", "nine-first", "face-first"):
        key, first = (pk, p1) if atom.hand == "player" else (bk, b1)
        if key is None:
            return f"no Royal 9 on the {atom.hand} hand"
        if k == "king-nine":
            return None if key[0].rank == 13 else f"the {atom.hand} hand's face card is not a king"
        if k == "face-first":
            return None if first.rank >= 11 else f"the {atom.hand} hand's first card is not the face card"
        return None if first.rank == 9 else f"the {atom.hand} hand's first card is not the nine"
    if k == "mega-envy":
        if po is None or po != bo:
            return "no seat's combination on both hands"
        others = {s: c for s, c in cats.items() if s != po}
        if not others or any(c != "mega-envy" for c in others.values()):
            return f"other seats {others}, expected mega-envy"
        return None
    if k == "no-royal9":
        return None if pk is None and bk is None else "a Royal 9 is dealt"
    if k == "ten-not-face":
        tens = [h for h, (a, b) in (("player", (p1, p2)), ("banker", (b1, b2))) if {a.rank, b.rank} == {10, 9}]
        if not tens:
            return "no hand is a ten and a nine"
        return None if pk is None and bk is None else "a Royal 9 is dealt"
    raise AssertionError(k)


def check_hit_and_run_atom(atom: Atom, n_cards: int, bust: bool, blackjack: bool) -> str | None:
    k = atom.kind
    if k == "dealer-blackjack":
        return None if blackjack else "no blackjack"
    if k == "dealer-cards":
        if atom.plus:
            return None if n_cards >= 8 else f"{n_cards} cards"
        if blackjack:
            return "a blackjack (want dealer-blackjack for that)"
        return None if n_cards == atom.n else f"{n_cards} cards"
    if k == "dealer-stands":
        return None if not bust and not blackjack else ("a blackjack" if blackjack else "bust")
    if k == "dealer-bust-cards":
        return None if bust and n_cards == atom.n else f"{n_cards} cards, {'bust' if bust else 'no bust'}"
    raise AssertionError(k)


def verify(want: Want, cards: Sequence[Card], setup: Setup) -> list[str]:
    """Every way ``cards`` miss ``want`` (empty: the stack is right), judged by the oracles.

    The sequence must also fit the shoe and be exactly one complete round (no card left over).
    """
    problems: list[str] = []
    try:
        check_against_shoe(cards, setup.decks)
    except InputError as exc:
        problems.append(exc.message)
    if setup.game == "hit-and-run":
        try:
            hand = dealer_hand(cards, hit_soft17=setup.hit_soft17, interpretations=setup.interpretations)
        except InputError as exc:
            return [*problems, exc.message]
        if hand.n_cards != len(cards):
            problems.append(f"the dealer's hand uses {hand.n_cards} of the {len(cards)} cards")
        for atom in want.atoms:
            why = check_hit_and_run_atom(atom, hand.n_cards, hand.bust, hand.blackjack)
            if why:
                problems.append(f"{atom.text}: {why}")
        return problems
    try:
        rnd = deal_round(cards)
    except InputError as exc:
        return [*problems, exc.message]
    if rnd.cards_used != len(cards):
        problems.append(f"the round uses {rnd.cards_used} of the {len(cards)} cards")
    ff = rnd.first_four()
    r9 = setup.table.resolve(ff) if setup.seat_combos else None
    for atom in want.atoms:
        if atom.kind in R9_KINDS:
            if r9 is None:
                r9 = setup.table.resolve(ff)
            why = check_royal9_atom(atom, setup, ff, r9)
        else:
            why = check_baccarat_atom(atom, rnd)
        if why:
            problems.append(f"{atom.text}: {why}")
    return problems
