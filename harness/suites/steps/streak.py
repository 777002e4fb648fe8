"""The Mini-Baccarat three-consecutive-games wager, Wash. Admin. Code 230-15-040(8)(b).

(8) requires a player's win or loss to be determined in a single deal; (8)(b) excepts "an optional
wager on the player hand winning the next three consecutive games, or the banker hand winning the
next three consecutive games".  Such a wager (``streak3-player``, ``streak3-banker``) is placed
before the deal of its first game, rides on the layout through its games and is decided by the
oracle (:func:`harness.games.streak.settle_streak3`: the Rules Submission's pay, the tie rule
``wa-streak3-tie``) in the first game its hand does not win, or paid after its third win.  It never
takes part in a fourth game.

* ``streak3`` plays a streak over several rounds from a list of wanted winners; each round's cards
  are built for the table by the stack builder when the case is collected (the ``winners``
  argument), and each game is measured: the wager's state against the oracle (riding with its games
  and wins, or decided with its category), the amount returned to the cent, that it is listed on
  the layout while riding and gone after, that withdrawing or changing it while riding is refused
  and leaves it as it was, that it survives a power cycle between games, and that no game after the
  deciding one involves it.
* :class:`StreakBook` follows the streak wagers a step placed over its rounds; ``single_deal_rounds``
  uses it so a riding streak wager is the (8)(b) exception and not a wager left riding, and
  :func:`riding_exception` tells ``expect_layout_clear`` which wagers left on the layout are that
  exception (within their three games) and which are not (one past its third game).

The device says a wager rides with a ``wager_rides`` event (``{seat, type, games, wins}``) where
it would otherwise report a payout, and lists a riding wager in ``wager.list`` with ``games``
(docs/protocol.md, "Wagers that ride over several games").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.bench.acts import Removal, RemoveWager
from harness.cards import Card
from harness.devices.link import DeviceNak
from harness.devices.roles import Wager
from harness.games.payouts import Pay
from harness.games.streak import STREAK_LENGTH, STREAK_WAGERS, StreakResolution, settle_streak3, tie_rule_of
from harness.money import Cents, fmt
from harness.suites.load.model import Step
from harness.suites.steps.core import deal, open_round, power
from harness.suites.steps.expect import expected_round
from harness.suites.steps.registry import Action, Arg, choice, step

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext

Key = tuple[int, str]


def streak_pay(runner: CaseContext) -> Pay:
    """What the Rules Submission pays for a won streak (``rules.streak3.pays``)."""
    settings = runner.profile.rules.streak3
    if settings is None:
        raise AssertionError(f"profile {runner.profile.name} states no rules.streak3 pay (capability streak3)")
    return settings.pays


def _events(runner: CaseContext, name: str) -> dict[Key, Mapping[str, Any]]:
    runner.pump(0.01)
    return {(int(e.payload["seat"]), str(e.payload["type"])): e.payload
            for e in runner.round.ctrl_events if e.name == name and e.payload.get("type") in STREAK_WAGERS}


def _reported(payout: Mapping[str, Any] | None, rides: Mapping[str, Any] | None) -> str:
    """What the device reported for a streak wager in one game, as text."""
    shown = []
    if payout is not None:
        shown.append(f"{payout.get('category')}: returned {fmt(int(payout.get('returned', 0)))}")
    if rides is not None:
        shown.append(f"riding: {rides.get('games')} game(s), {rides.get('wins')} win(s)")
    return " and ".join(shown) or "no payout, not riding"


def _expected(res: StreakResolution, returned: Cents | None) -> str:
    if res.result == "open":
        return f"riding: {res.rounds} game(s), {res.wins} win(s)"
    return f"{res.result}: returned {fmt(returned or 0)}"


@dataclass
class Followed:
    """One streak wager the step placed: its stake, the winners of the games it took part in, and
    where the oracle has it after them."""

    seat: int
    kind: str
    stake: Cents
    winners: list[str] = field(default_factory=list)
    res: StreakResolution | None = None
    returned: Cents | None = None

    @property
    def open(self) -> bool:
        return self.res is None or self.res.result == "open"


@dataclass(frozen=True)
class Judged:
    """One streak wager after one deal: what the oracle expects and what the device reported."""

    wager: Followed
    want: str
    got: str
    #: the device's returned amount (None: no payout event) and the oracle's (None: still riding)
    returned: Cents | None
    want_returned: Cents | None

    @property
    def ok(self) -> bool:
        return self.want == self.got


class StreakBook:
    """The streak wagers a step follows over its rounds, judged by the oracle after each deal."""

    def __init__(self, runner: CaseContext) -> None:
        self.pay = streak_pay(runner)
        self.tie_rule = tie_rule_of(runner.oracle.interp.as_dict())
        self.open: dict[Key, Followed] = {}
        #: decided wagers: key -> the game (1-based, of the book) that decided it
        self.decided: dict[Key, tuple[Followed, int]] = {}
        self.games = 0

    def placed(self, seat: int, kind: str, stake: Cents) -> None:
        """A new streak wager at that seat and type (an earlier one there was decided)."""
        self.decided.pop((seat, kind), None)
        self.open[(seat, kind)] = Followed(seat, kind, stake)

    def after_deal(self, runner: CaseContext, winner: str) -> tuple[list[Judged], dict[Key, str]]:
        """Judge every followed wager on the deal just settled (``winner``: the oracle's on the cards
        read); returns the judgments of the wagers in play, and what the device reported in this game
        for each wager decided in an earlier one (nothing, if it kept it out of play)."""
        self.games += 1
        payouts, rides = _events(runner, "payout"), _events(runner, "wager_rides")
        earlier = {key: _reported(payouts.get(key), rides.get(key)) if key in payouts or key in rides else ""
                   for key in self.decided}
        judged = []
        for key, w in list(self.open.items()):
            w.winners.append(winner)
            w.res, st = settle_streak3(w.kind, w.winners, w.stake, self.pay, tie_rule=self.tie_rule)
            w.returned = st.returned if st is not None else None
            got_pay = payouts.get(key)
            judged.append(Judged(w, _expected(w.res, w.returned), _reported(got_pay, rides.get(key)),
                                 int(got_pay["returned"]) if got_pay is not None else None, w.returned))
            if not w.open:
                del self.open[key]
                self.decided[key] = (w, self.games)
        return judged, earlier

    def deal_problems(self, runner: CaseContext, winner: str, where: str) -> tuple[int, list[tuple[bool, str]]]:
        """:meth:`after_deal` as problem lines: the wagers decided in this deal, and each mismatch
        (``(riding, text)``: a wager the oracle has still riding counts as no settled wager)."""
        judged, earlier = self.after_deal(runner, winner)
        wrong = [(j.wager.open, f"{where} ({winner} wins): seat {j.wager.seat} {j.wager.kind} {j.got}, "
                                f"expected {j.want}") for j in judged if not j.ok]
        wrong += [(True, f"{where}: seat {key[0]} {key[1]} decided earlier, yet {got}")
                  for key, got in earlier.items() if got]
        return sum(1 for j in judged if not j.wager.open), wrong


def riding_exception(listed: Iterable[Wager]) -> tuple[list[Wager], list[str]]:
    """Wagers left on the layout after a deal: the streak wagers riding within their three games
    (the (8)(b) exception, they have taken part in one or two games), and what is wrong with the
    others (any other wager; a streak wager past its third game, or one the device does not say
    how many games it has taken part in)."""
    allowed, wrong = [], []
    for w in listed:
        what = f"seat {w.seat} {w.type} {fmt(w.amount)}"
        if w.type not in STREAK_WAGERS:
            wrong.append(what)
        elif w.games is None:
            wrong.append(f"{what} (riding, games taken part in not reported)")
        elif not 1 <= w.games < STREAK_LENGTH:
            past = "past its third game" if w.games >= STREAK_LENGTH else "in no game yet"
            wrong.append(f"{what} riding after {w.games} game(s): {past}")
        else:
            allowed.append(w)
    return allowed, wrong


def _listed(runner: CaseContext) -> dict[Key, Wager]:
    assert runner.rig.sensors is not None
    return {(w.seat, w.type): w for w in runner.rig.sensors.wagers()}


def _layout(listed: Mapping[Key, Wager], key: Key) -> str:
    w = listed.get(key)
    if w is None:
        return "not on the layout"
    return f"on the layout, {fmt(w.amount)}, {w.games if w.games is not None else '?'} game(s)"


@step("streak3", Action(
    {
        "seat": Arg("seat"),
        "seats": Arg("seats"),
        "hand": choice("player", "banker", required=True),
        "games": Arg("winners", required=True),
        "amount": Arg("amount"),
        "remove": Arg("bool", default=False),
        "replace": Arg("bool", default=False),
        "power_cycle": Arg("bool", default=False),
    },
    one_of=("seat", "seats"),
    doc="WAC 230-15-040(8)(b): place a three-consecutive-games wager on `hand` at `seat` (or at each of "
    "`seats`; `amount` defaults to the profile's) and play one round per wanted winner of `games` "
    "(cards built for the table when the case is collected); each game measures the wager against the "
    "oracle (riding, or paid to the cent at the Rules Submission's odds and tie rule), that it is listed "
    "while riding and gone after, and that a game after the deciding one does not involve it; while it "
    "rides `remove` tries to withdraw it, `replace` to place it again at twice the amount (both must be "
    "refused and leave it as it was), `power_cycle` switches the table off and on (it must still be there)",
    acts=("open-round", "wager", "remove-wager", "load", "deal", "power"),
))
def streak3(runner: CaseContext, step: Step, hand: str, games: tuple[tuple[str, tuple[Card, ...]], ...],
            remove: bool, replace: bool, power_cycle: bool, seat: int | None = None, seats: Any = None,
            amount: Cents | None = None) -> None:
    kind = f"streak3-{hand}"
    stake = amount if amount is not None else runner.stake_default
    book = StreakBook(runner)
    seat_list = [seat] if seat is not None else runner.seats_of(seats)
    for n, (wanted, cards) in enumerate(games, start=1):
        if not cards:  # a suite run is always bound to its profile's table, which builds them
            raise AssertionError("streak3: the rounds of `games` were not built for this table")
        if n > 1 and book.open and power_cycle:
            _power_cycle(runner, step, book, n)
        open_round(runner, step)
        if n == 1:
            for s in seat_list:
                res = runner.place(s, kind, stake)
                runner.measure(step, f"seat {s} {kind} wager placed before its first game",
                               "accepted" if res.accepted else f"refused ({res.reason})", "accepted", res.accepted)
                if res.accepted:
                    book.placed(s, kind, stake)
        elif book.open:
            _while_riding(runner, step, book, n, remove=remove, replace=replace)
        deal(runner, step, settle=True, cards=cards)
        _judge_game(runner, step, book, n, wanted)


def _riding_layout(w: Followed, games: int) -> str:
    return f"on the layout, {fmt(w.stake)}, {games} game(s)"


def _power_cycle(runner: CaseContext, step: Step, book: StreakBook, n: int) -> None:
    """Between games ``n - 1`` and ``n``: the table's power off and on; every riding wager is kept."""
    power(runner, step, "off")
    power(runner, step, "on")
    listed = _listed(runner)
    for key, w in book.open.items():
        want = _riding_layout(w, n - 1)
        runner.measure(step, f"seat {key[0]} {key[1]} after a power cycle between games {n - 1} and {n}",
                       _layout(listed, key), want, _layout(listed, key) == want,
                       detail="a riding wager is kept in non-volatile storage like the meters")


def _while_riding(runner: CaseContext, step: Step, book: StreakBook, n: int, *, remove: bool,
                  replace: bool) -> None:
    """Game ``n``'s round is open and the wager rides: it is on the layout as it was; withdrawing it
    and placing it again (at twice the amount) are refused and leave it so."""
    for key, w in book.open.items():
        want = _riding_layout(w, n - 1)
        now = _layout(_listed(runner), key)
        runner.measure(step, f"game {n}: seat {key[0]} {key[1]} riding on the layout as the round opens", now,
                       want, now == want, detail="opening the next round does not clear a riding wager")
        if remove:
            try:
                removal: Removal = runner.perform(RemoveWager(*key))
                got = "withdrawn" if removal.removed else f"refused ({removal.reason})"
            except DeviceNak as exc:
                got = f"refused ({exc.reason})"
            after = _layout(_listed(runner), key)
            runner.measure(step, f"game {n}: seat {key[0]} {key[1]} withdrawal while riding", f"{got}; {after}",
                           f"refused; {want}", got.startswith("refused") and after == want)
        if replace:
            res = runner.place(key[0], key[1], 2 * w.stake)
            runner.round.wagers.pop(key, None)
            after = _layout(_listed(runner), key)
            got = "accepted" if res.accepted else f"refused ({res.reason})"
            runner.measure(step, f"game {n}: seat {key[0]} {key[1]} placed again at {fmt(2 * w.stake)} while riding",
                           f"{got}; {after}", f"refused; {want}", not res.accepted and after == want)


def _judge_game(runner: CaseContext, step: Step, book: StreakBook, n: int, wanted: str) -> None:
    exp = expected_round(runner)
    assert exp.baccarat is not None
    winner = exp.baccarat.winner
    dealt = runner.cards_read()
    if runner.loaded:
        runner.measure(step, f"game {n}: cards reported by the shoe", " ".join(c.code for c in dealt),
                       " ".join(c.code for c in runner.loaded), [c.code for c in dealt] ==
                       [c.code for c in runner.loaded], detail=f"built for a {wanted} win")
    judged, earlier = book.after_deal(runner, winner)
    listed = _listed(runner)
    for j in judged:
        w, key = j.wager, (j.wager.seat, j.wager.kind)
        assert w.res is not None
        runner.measure(step, f"game {n} ({winner} wins): seat {w.seat} {w.kind}", j.got, j.want, j.ok,
                       detail=f"oracle after {', '.join(w.winners)}: pays {book.pay.describe()}, "
                              f"wa-streak3-tie {book.tie_rule}")
        if not w.open:
            runner.measure(step, f"game {n}: seat {w.seat} {w.kind} returned ({w.res.result} after "
                           f"{w.res.rounds} game(s))", j.returned, j.want_returned, j.returned == j.want_returned,
                           unit="cents")
        want_layout = _riding_layout(w, w.res.rounds) if w.open else "not on the layout"
        runner.measure(step, f"game {n}: seat {w.seat} {w.kind} after the deal", _layout(listed, key),
                       want_layout, _layout(listed, key) == want_layout,
                       detail="riding on the layout until decided" if w.open else "decided: off the layout")
    for key, reported in earlier.items():
        _w, at = book.decided[key]
        got = _layout(listed, key) + (f"; {reported}" if reported else "")
        runner.measure(step, f"game {n}: seat {key[0]} {key[1]} (decided in game {at}) not in play", got,
                       "not on the layout", got == "not on the layout",
                       detail=f"a streak wager takes part in at most {STREAK_LENGTH} games")
