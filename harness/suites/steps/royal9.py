"""Suite actions for the Royal 9 progressive wager (58 Pa. Code 629a Royal 9 (a)-(g)).

The core vocabulary (:mod:`harness.suites.steps.core`) places wagers, deals and compares payouts; the
Royal 9 clauses need a few checks beyond it:

- ``expect_r9_meter_award``: a meter jackpot ((e)(6)-(8), (f)(1), (g)(1) "100% of ... jackpot")
  pays exactly what the meter showed at settlement: the round-start reading plus this round's
  contributions at the Rules Submission rate, which the meter must still show until the reset key;
- ``expect_r9_round_cards``: the shoe reported every card the round used (Royal 9 (c): the cards
  the wager is settled on are the ones dealt); it also waits for those card events, which travel
  on the shoe's own line and may arrive after the controller's ``round_end``;
- ``expect_r9_wagers_listed``: every accepted wager is known to the wagering system ((a)(2));
- ``expect_r9_combos``: the controller's personal combinations are a king and a nine each, unique
  per position, and the ones in the Rules Submission ((e)(5)).

Every check is a measurement (:meth:`CaseContext.measure`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from harness.devices.link import DeviceNak
from harness.games.baccarat import deal_round
from harness.money import Cents, fmt
from harness.suites.load.model import Step
from harness.suites.run.context import WAGER_LIST, citing_also
from harness.suites.run.oracle import meters_at_settlement, qualifying_stakes
from harness.suites.steps.core import ensure_settled, wager
from harness.suites.steps.expect import expected_round, measure_paid_once
from harness.suites.steps.payouts import settlements
from harness.suites.steps.permitted import permitted_refusal
from harness.suites.steps.registry import Action, Arg, choice, step

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext

#: the Midibaccarat wagers of 629a.7(b) that open the Royal 9 option
BASE_TYPES = ("player", "banker", "tie")





def _await_cards(runner: CaseContext, n: int) -> None:
    """The shoe's card events travel on their own line: wait until ``n`` have been read."""
    runner.wait_for(f"{n} card events from the shoe", lambda: len(runner.round.cards) >= n)


@step("expect_r9_round_cards", Action(
    doc="the shoe reported every card the round used, in the order loaded (waits for the shoe's "
    "card events, which may arrive after the controller's round_end)",
))
def expect_r9_round_cards(runner: CaseContext, step: Step) -> None:
    ensure_settled(runner, step)
    if not runner.loaded:
        raise AssertionError("expect_r9_round_cards needs a scripted deal (cards or stack)")
    used = deal_round(runner.loaded).cards_used
    _await_cards(runner, used)
    got = [c.code for c, _t in runner.round.cards[:used]]
    want = [c.code for c in runner.loaded[:used]]
    runner.measure(step, "cards reported by the shoe", " ".join(got), " ".join(want), got == want,
                 detail=f"the round uses {used} cards")


# ---------------------------------------------------------------------------- meter awards


def _meter_at_settlement(runner: CaseContext, meter: str) -> tuple[Cents, str]:
    """The round-start reading plus this round's exact contributions (residual carried)."""
    start = runner.snapshots["round-start"]
    rate = runner.rates_written.get(meter, runner.profile.rules.meters[meter].rate)
    stakes = qualifying_stakes(runner.round.wagers)
    amount = meters_at_settlement(runner.profile, start, stakes, runner.rates_written)[meter]
    return amount, (f"round start {fmt(start.meters[meter])} + {fmt(stakes)} wagered x {rate}% "
                    f"(residual {start.residual.get(meter, Decimal(0))} c carried)")


@step("expect_r9_meter_award", Action(
    {"seat": Arg("seat", required=True), "meter": choice("mega", "major", "minor", required=True)},
    doc="a meter jackpot pays what the meter showed at settlement (round-start reading plus this "
    "round's contributions at the profile's rate); the meter shows that amount until the reset key",
))
def expect_r9_meter_award(runner: CaseContext, step: Step, seat: int, meter: str) -> None:
    """The seat is paid 100% of the meter as it stood at settlement, with whatever else the oracle
    awards the wager under the interpretations in force (the stake, envy for the mega winner when
    lines add up); the hit is for that amount and the meter shows it until the reset key."""
    ensure_settled(runner, step)
    runner.pump(0.02)
    if "round-start" not in runner.snapshots or meter not in runner.profile.rules.meters:
        raise AssertionError(f"expect_r9_meter_award needs open_round first and a '{meter}' meter in the profile")
    want_meter, how = _meter_at_settlement(runner, meter)
    expected = expected_round(runner).payouts.get((seat, "royal9"))
    if expected is None or meter not in expected.meters:
        raise AssertionError(f"the round dealt does not give seat {seat} the {meter} jackpot under the "
                             f"interpretations in force (oracle: {expected.category if expected else 'no wager'})")
    want_ret = expected.returned
    payout = settlements(runner.round.ctrl_events).get((seat, "royal9"))
    got_ret = payout.returned if payout else None
    twice = f"; {payout.describe()}" if payout is not None and payout.times > 1 else ""
    runner.measure(step, f"seat {seat} Royal 9 returned: 100% of the {meter} jackpot", got_ret, want_ret,
                   got_ret == want_ret, unit="cents", detail=f"{how}; oracle: {expected.category}{twice}")
    measure_paid_once(runner, step, (seat, "royal9"), payout)
    got_cat = payout.category if payout else None
    runner.measure(step, f"seat {seat} Royal 9 category", got_cat, expected.category, got_cat == expected.category)
    hit = next((e.payload for e in runner.round.ctrl_events
                if e.name == "hit" and e.payload.get("meter") == meter), None)
    got_hit = int(hit["amount"]) if hit and hit.get("amount") is not None else None
    runner.measure(step, f"{meter} hit amount", got_hit, want_meter, got_hit == want_meter, unit="cents",
                   detail=f"hit event {hit}" if hit else "no hit event for this meter")
    shown = runner.read_meters().meters.get(meter)
    if runner.interpretation("meter-reset-timing") == "at-hit":
        reset = runner.profile.rules.meters[meter].reset
        runner.measure(step, f"{meter} meter back at its reset amount at the hit (meter-reset-timing at-hit)",
                       shown, reset, shown is not None and shown >= reset, unit="cents")
    else:
        runner.measure(step, f"{meter} meter shows the amount won until the reset key", shown, want_meter,
                       shown == want_meter, unit="cents")


# ---------------------------------------------------------------------------- wagering system


@step("expect_r9_wagers_listed", Action(
    doc="the wagering system lists exactly the wagers accepted in this round (Royal 9 (a)(2))",
))
def expect_r9_wagers_listed(runner: CaseContext, step: Step) -> None:
    if runner.rig.sensors is None:
        raise AssertionError("this case needs bet sensors")
    listed = {(w.seat, w.type): w.amount for w in runner.rig.sensors.wagers()}
    accepted = dict(runner.round.wagers)

    def show(d: dict[tuple[int, str], Cents]) -> str:
        return ", ".join(f"{s}/{k} {fmt(a)}" for (s, k), a in sorted(d.items())) or "none"

    runner.measure(step, "wagers listed by the wagering system", show(listed), show(accepted), listed == accepted,
                 detail="every accepted wager, and nothing else", clause=citing_also(runner, step, WAGER_LIST))


@step("expect_r9_combos", Action(
    doc="every seat's personal combination read back from the controller is a king and a nine, "
    "unique, and the one in the profile's Rules Submission (Royal 9 (e)(5))",
))
def expect_r9_combos(runner: CaseContext, step: Step) -> None:
    cfg = runner.controller().config()
    got = {s.seat: tuple(s.combo) if s.combo else None for s in cfg.seats}
    want = {s.seat: s.combo.codes() if s.combo else None for s in runner.profile.rules.seats}
    runner.measure(step, "personal combinations equal the Rules Submission", got, want, got == want)
    combos = [c for c in got.values() if c]
    bad = [" ".join(c) for c in combos
           if len(c) != 2 or sorted(x[0] for x in c) != ["9", "K"]]
    runner.measure(step, "each personal combination is a king and a nine", ", ".join(bad) or "all", "all",
                 not bad and bool(combos))
    keys = [frozenset(c) for c in combos]
    dupes = sorted({" ".join(c) for c, k in zip(combos, keys, strict=True) if keys.count(k) > 1})
    runner.measure(step, "personal combinations unique per position", ", ".join(dupes) or "unique", "unique",
                 not dupes)


@step("configure_combos", Action(
    {"order": choice("rotated", "profile", required=True)},
    shorthand="order",
    doc="629a Royal 9 (e)(5), 461a.12(i): with no round open, write every seat's personal combination: "
    "`rotated` gives each seat with a combination in the Rules Submission the combination of the seat "
    "before it (the first seat the last one's), `profile` the combinations as filed; the write must be "
    "accepted and `config.get` must read back exactly what was written.  A refusal the profile's "
    "`config_writes: {combinations: ...}` permits (never, no-amount-shown) is recorded and the case is "
    "NOT APPLICABLE",
))
def configure_combos(runner: CaseContext, step: Step, order: str) -> None:
    rules = runner.profile.rules
    owners = [s for s in rules.seats if s.combo]
    filed = [s.combo for s in owners if s.combo]
    if order == "rotated" and filed:
        filed = filed[-1:] + filed[:-1]
    combos = [combo.codes() for combo in filed]
    given = {s.seat: c for s, c in zip(owners, combos, strict=True)}
    want = {s.seat: given.get(s.seat) for s in rules.seats}
    written = [{"seat": seat, "combo": list(combo)} if combo else {"seat": seat} for seat, combo in want.items()]
    ctrl = runner.controller()
    try:
        ctrl.set_config(seats=written)
        got, why = "accepted", ""
    except DeviceNak as exc:
        got, why = "refused", f"{exc.code}: {exc.reason}"
        permitted_refusal(runner, step, "combinations", f"{got} ({why})",
                          "play under written combinations, which this case checks, does not apply")
    runner.measure(step, f"personal combinations write ({order}: {len(owners)} seat(s))",
                   got + (f" ({why})" if why else ""), "accepted", got == "accepted")
    if got != "accepted":
        return
    cfg = ctrl.config()
    have = {s.seat: tuple(s.combo) if s.combo else None for s in cfg.seats}
    runner.measure(step, "seats and personal combinations read back as written", have, want, have == want,
                   detail="" if len(owners) > 1 else "one seat has a combination: the rotation is the filing")
    # play from now on is judged against the combinations written (the filed ones for `profile`)
    runner.oracle = runner.oracle.with_combos({s.seat: c for s, c in zip(owners, filed, strict=True)})


@step("expect_placing_again_at_zero", Action(
    doc="docs/protocol.md sections 6.3 and 12 (`bad-amount`: amount not positive): every wager on the layout "
    "is placed again at amount 0, and where the test channel places wagers at its amount negated too (a NAK "
    "BAD_ARGS for that is the refusal): each must be refused `bad-amount`, and the wagering system then lists "
    "exactly the wagers accepted before, at their amounts (placing again replaces an amount only when it "
    "is accepted)",
    acts=("wager",),
))
def expect_placing_again_at_zero(runner: CaseContext, step: Step) -> None:
    standing = sorted(runner.round.wagers.items())
    if not standing:
        raise AssertionError("expect_placing_again_at_zero: no wager is on the layout to place again")
    # chips cannot be placed below nothing: a negative amount is sent only where no hand places wagers
    negated = runner.profile.bench.performer("wager").kind == "test-channel"
    for (seat, kind), amount in standing:
        for again in (Cents(0), Cents(-amount)) if negated else (Cents(0),):
            wager(runner, step, seat, kind, "rejected", amount=again, reason="bad-amount")
    expect_r9_wagers_listed(runner, step)
