"""The device contract: what a device speaking the reference protocol answers (docs/protocol.md).

A regulation says what a table must do; the contract says how a device tells the harness, and
the harness's verdicts lean on it: a refusal it reads as "declined" must be one, a lock-out cause
it reports must be the cause.  ``expect_answer`` sends one request of the contract and holds the
answer to it:

- the answer is one of those the step lists (``ok``, or a NAK code of section 3);
- an ``ok`` answer carries the fields of ``match`` with those values;
- a declined request leaves no trace: the configuration, the meters (their fractions of a cent and
  the payout meters included) and the layout read as before;
- a ``config.set`` the device took is written back to the configuration it replaced, so the run
  goes on at the table as filed.

Acts at the table (a wager, the dealer's buttons, the reset key) are not sent this way: they are
the bench's (section 11), and the steps for them take ``expect: refused`` where the contract says a
device refuses them.  A device reached through a plugin driver that speaks its own protocol is not
held to this one: :func:`outside_contract` makes such a case NOT APPLICABLE.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from harness.bench.acts import Deal
from harness.devices import registry, vocabulary
from harness.devices.contract import ContractError
from harness.devices.drivers.reference import ReferenceDevice
from harness.devices.link import DeviceNak
from harness.devices.roles import Wager
from harness.suites.load.model import Step
from harness.suites.run.context import NotApplicableHere
from harness.suites.steps.core import settle_round
from harness.suites.steps.games import offered_types
from harness.suites.steps.probes import trace
from harness.suites.steps.registry import Action, Arg, choice, step

if TYPE_CHECKING:
    from harness.profiles.model import Profile
    from harness.suites.load.model import Case
    from harness.suites.run.context import CaseContext

#: ``ok`` for an answer, and the NAK codes of docs/protocol.md section 3
ANSWERS = ("ok", *vocabulary.NAK_CODES)


def not_a_request(cmd: str, role: str = "controller") -> str | None:
    """Why ``cmd`` is not sent by ``expect_answer`` to ``role``, or None.  An act's command sent to a device of
    another role is a request like any other (it must be NAK UNKNOWN_CMD, docs/protocol.md section 6)."""
    if cmd in vocabulary.REMOTE_ACTS and cmd in vocabulary.COMMANDS.get(role, ()):
        return (f"{cmd} stands for an act at the table (docs/protocol.md section 11): use the step for the act "
                "(wager, remove_wager, lockout_button, reset_key, open_round, no_more_bets), which a bench's "
                "performer carries out")
    if cmd.startswith("test."):
        return f"{cmd} is the emulator's test channel, no device behaviour (docs/protocol.md section 7)"
    return None


#: how long a deal of one card may take before its card is out (the shoe says ``dealing`` until then)
DEAL_DONE_S = 2.0
#: the other steps that hold a device to the reference protocol's own promises, by the role they read
CONTRACT_READS = {"expect_card_events_counted": "shoe", "expect_wager_list_in_seat_order": "sensors",
                  "expect_no_sensor_events": "sensors", "expect_unoffered_types_refused": "sensors"}
#: the steps that ask what only ``wager.place`` can (section 11), and why such a step's case does not apply
#: on a bench whose wagers are placed by hand
WAGER_PLACE_ONLY = {
    "expect_no_sensor_events": "wagers are placed by hand on this bench, and the bet sensors send an event for "
    "each (docs/protocol.md section 11): only a wager.place raises none",
    "expect_unoffered_types_refused": "wagers are placed by hand on this bench, and no hand can place a wager "
    "type the layout has no betting area for: only a wager.place can ask for one",
}


def outside_contract(profile: Profile, case: Case) -> str | None:
    """Why the case's ``expect_answer`` steps do not apply to the profile's devices, or None: a role
    the profile does not fill, or one reached through a driver that does not speak the reference
    protocol."""
    for s in case.steps:
        if s.action in WAGER_PLACE_ONLY and profile.bench.performer("wager").kind != "test-channel":
            return WAGER_PLACE_ONLY[s.action]
        if s.action == "expect_answer":
            role = str(s.args.get("role") or "controller")
        elif s.action in CONTRACT_READS:
            role = CONTRACT_READS[s.action]
        else:
            continue
        spec = profile.devices.get(role)
        if spec is None:
            return f"the case asks the {role}, which profile {profile.name} does not have"
        try:
            cls = registry.default_registry().info(spec.driver).cls
        except Exception:  # an unknown driver is the rig's error, reported when it is opened
            continue
        if not issubclass(cls, ReferenceDevice):
            return (f"the {role} is reached through driver {spec.driver}, which does not speak the reference "
                    "protocol: the protocol contract's answers do not apply (docs/protocol.md section 10)")
    return None


def _device(runner: CaseContext, role: str) -> Any:
    dev = getattr(runner.rig, role, None)
    if dev is None:
        raise AssertionError(f"expect_answer: the profile has no {role}")
    return dev


def _layout(runner: CaseContext) -> list[str]:
    if runner.rig.sensors is None:
        return []
    return sorted(f"seat {w.seat} {w.type} {w.amount}" for w in runner.rig.sensors.wagers())


def _fields(answer: dict[str, Any], match: dict[str, Any]) -> list[str]:
    return [f"{k}: {answer.get(k, '(absent)')!r}, not {v!r}" for k, v in match.items()
            if k not in answer or answer[k] != v or isinstance(answer[k], bool) != isinstance(v, bool)]


@step("expect_answer", Action(
    {
        "role": choice("shoe", "sensors", "controller", default="controller"),
        "cmd": Arg("str", required=True),
        "args": Arg("map"),
        "answer": Arg("str-list"),
        "match": Arg("map"),
    },
    doc="docs/protocol.md: send the request `cmd` (with `args`) to `role` and hold its answer to the "
    "protocol contract: one of `answer` (`ok`, or NAK codes of section 3; default `[ok]`), an `ok` answer "
    "with the fields of `match`; a declined request leaves the configuration, meters and layout as they "
    "were, and a `config.set` taken is written back.  Acts at the table are not requests (their steps take "
    "`expect: refused`); a device whose driver speaks another protocol is NOT APPLICABLE",
))
def expect_answer(runner: CaseContext, step: Step, cmd: str, role: str = "controller",
                  args: dict[str, Any] | None = None, answer: tuple[str, ...] | None = None,
                  match: dict[str, Any] | None = None) -> None:
    wanted = tuple(answer or ("ok",))  # the answers and the command were checked with the suite
    dev = _device(runner, role)
    ctrl = runner.rig.controller
    config_before = ctrl.config().raw if ctrl is not None else None
    meters_before = runner.read_meters() if ctrl is not None else None
    layout_before = _layout(runner)
    sent = f"{role} {cmd}" + (f" {args}" if args else "")
    try:
        got: dict[str, Any] = dev.request(cmd, **dict(args or {}))
        code = "ok"
        shown = f"ok {got}"
    except DeviceNak as exc:
        got, code, shown = {}, exc.code, f"NAK {exc.code} ({exc.reason})"
    runner.measure(step, f"answer to {sent}", shown, " or ".join(wanted), code in wanted)
    if code == "ok" and match:
        wrong = _fields(got, dict(match))
        runner.measure(step, f"answer to {sent}: fields", "; ".join(wrong) or "as matched", match, not wrong)
    runner.pump(0.01)
    if ctrl is None or config_before is None or meters_before is None:
        return
    config_now = ctrl.config().raw
    if code != "ok":
        changed = sorted(k for k in set(config_before) | set(config_now) if config_before.get(k) != config_now.get(k))
        moved = trace(meters_before, runner.read_meters())
        layout = _layout(runner)
        runner.measure(step, f"{sent} declined: configuration, meters and layout as before",
                       "; ".join([f"configuration {', '.join(changed)} changed"] * bool(changed) + moved
                                 + [f"layout {layout_before} -> {layout}"] * (layout != layout_before))
                       or "unchanged", "unchanged", not changed and not moved and layout == layout_before)
    if cmd == "config.set" and config_now != config_before:
        back = {k: config_before[k] for k in dict(args or {}) if k in config_before}
        try:
            ctrl.set_config(**back)
            restored = ctrl.config().raw == config_before
            how = "as filed" if restored else "differs from before"
        except DeviceNak as exc:
            restored, how = False, f"the write back was refused: {exc.code} ({exc.reason})"
        runner.measure(step, f"configuration written back after {sent}", how, "as filed", restored)


@step("expect_card_events_counted", Action(
    doc="docs/protocol.md sections 5 and 6.2 (clause contract-5-events-as-they-happen): events are sent as soon "
    "as they happen, never batched behind a poll, and the shoe's line is one ordered stream: every card the "
    "shoe counts in its `shoe.status` answer (`cards_dealt`, since the load) has had its `card` (or "
    "`misread`) event read before that answer.  Follow a `deal` of one card (`count: 1, settle: false`); the "
    "shoe is read again while it says `dealing` (its card not out yet), for up to 2 s",
))
def expect_card_events_counted(runner: CaseContext, step: Step) -> None:
    shoe = runner.rig.shoe
    if shoe is None:
        raise AssertionError("expect_card_events_counted: the profile has no shoe")
    if not runner.loaded:
        raise RuntimeError("expect_card_events_counted follows a deal from a loaded stack")
    deadline = time.monotonic() + DEAL_DONE_S
    status = shoe.status()
    while status.state == "dealing" and time.monotonic() < deadline:  # the card asked for is not out yet
        time.sleep(0.005)
        status = shoe.status()
    reported = runner.cards_out()  # the shoe's events queued before its answer, in the order of its line
    runner.measure(step, "card events read before the shoe's answer that counts the cards", reported,
                   status.cards_dealt, reported == status.cards_dealt, unit="cards",
                   clause="contract-5-events-as-they-happen",
                   detail=f"shoe.status cards_dealt {status.cards_dealt}, state {status.state}; events: "
                   + " ".join(f"{e.payload.get('n')}:{e.payload.get('card', e.name)}"
                              for e in runner.round.shoe_events if e.name in ("card", "misread")))


@step("expect_wager_list_in_seat_order", Action(
    doc="docs/protocol.md section 6.3 (clause contract-6-3-wager-list-seat-order): `wager.list` lists every "
    "wager on the layout now, in seat order (the order of the types within one seat is the device's)",
))
def expect_wager_list_in_seat_order(runner: CaseContext, step: Step) -> None:
    sensors = runner.rig.sensors
    if sensors is None:
        raise AssertionError("expect_wager_list_in_seat_order: the profile has no bet sensors")
    listed = sensors.wagers()
    seats = [w.seat for w in listed]
    runner.measure(step, "wager.list in seat order", " ".join(f"{w.seat}:{w.type}" for w in listed) or "(empty)",
                   "seats in ascending order", bool(listed) and seats == sorted(seats),
                   clause="contract-6-3-wager-list-seat-order",
                   detail=f"{len(listed)} wager(s) listed, as seat:type in the order of the answer")


@step("expect_no_sensor_events", Action(
    doc="docs/protocol.md section 11 (clause contract-11-wager-place-raises-no-event): a wager placed with "
    "`wager.place`, or taken off with `wager.remove`, is answered in its RSP and raises no event; the bet "
    "sensors' `wager` and `wager_removed` events are for chips placed or lifted by hand.  None may have come "
    "this round (the case is NOT APPLICABLE on a bench whose wagers are placed by hand)",
))
def expect_no_sensor_events(runner: CaseContext, step: Step) -> None:
    sent = [e for e in runner.sensor_events() if e.name in ("wager", "wager_removed")]
    runner.measure(step, "bet sensors' events for wagers placed and removed with wager.place and wager.remove",
                   len(sent), 0, not sent, unit="events", clause="contract-11-wager-place-raises-no-event",
                   detail="; ".join(f"{e.name} {e.payload}" for e in sent[:6]) or "none")


@step("expect_unoffered_types_refused", Action(
    doc="docs/protocol.md sections 6.3 and 12 (clause contract-12-disabled-unoffered-type): with wagering open, "
    "a wager of every type of section 12 the table does not offer (the game's and its capabilities' types "
    "aside) is refused as a normal answer, `accepted: false` with reason `disabled`, never a NAK; a Royal 9 "
    "wager on a table without the Royal 9 may say `bad-amount` (it has no denomination) or `no-base-wager` (the "
    "seat holds no base-game wager).  Placed at the "
    "table's first seat at the profile's stake (the case is NOT APPLICABLE on a bench whose wagers are placed "
    "by hand)",
))
def expect_unoffered_types_refused(runner: CaseContext, step: Step) -> None:
    offered = offered_types(runner.profile)
    seat = min(runner.seats_of("all"))
    answers: list[str] = []
    wrong: list[str] = []
    for kind in (t for t in vocabulary.WAGER_TYPES if t not in offered):
        # a Royal 9 wager on a table without one: it has no denomination (bad-amount), and the seat holds no
        # base-game wager (no-base-wager, section 6.3); the contract fixes no order between causes that hold
        allowed = {"disabled", "bad-amount", "no-base-wager"} if kind == "royal9" else {"disabled"}
        try:
            res = runner.place_wagers((Wager(seat, kind, runner.stake_default),), probe=True)[0]
        except DeviceNak as exc:
            answers.append(f"{kind}: NAK {exc.code}")
            wrong.append(kind)
            continue
        if res.accepted:
            runner.round.wagers[(seat, kind)] = res.amount
        answers.append(f"{kind}: " + ("accepted" if res.accepted else f"refused {res.reason}"))
        if res.accepted or res.reason not in allowed:
            wrong.append(kind)
    runner.measure(step, f"wagers of the types the table does not offer, at seat {seat} with wagering open",
                   ", ".join(wrong) or "all refused disabled", "all refused disabled", not wrong,
                   clause="contract-12-disabled-unoffered-type",
                   detail=f"offered: {', '.join(offered)}; " + "; ".join(answers))


#: the pace of the deal a second test.deal is sent during (ms a card): long enough that it comes mid-deal
BUSY_PACE_MS = 300


def _not_dealt_by_test_channel(profile: Profile) -> str | None:
    """Why ``expect_deal_busy`` cannot be played on the profile's bench (known before the run)."""
    if profile.devices.get("shoe") is None or profile.bench.performer("deal").kind != "test-channel":
        return "the cards are not dealt through the shoe's test channel here: no test.deal to ask while it deals"
    return None


@step("expect_deal_busy", Action(
    doc="docs/protocol.md sections 3 and 7: deal the round's loaded cards through the test channel, one every "
    "300 ms, and while the shoe deals them ask it for one card more (`test.deal`): the answer is NAK BUSY (with "
    "its reason, as every NAK), the deal goes on and the round settles, and the shoe counts the round's cards "
    "alone.  NOT APPLICABLE where the cards are dealt by hand",
    acts=("load", "deal"),
    unfit=_not_dealt_by_test_channel,
))
def expect_deal_busy(runner: CaseContext, step: Step) -> None:
    shoe = runner.rig.shoe
    why = _not_dealt_by_test_channel(runner.profile)
    if shoe is None or why is not None:  # known before the run too (the step's unfit)
        raise NotApplicableHere(why or "the profile has no shoe")
    count = len(runner.round_cards(list(runner.loaded)))
    dealt_before = shoe.status().cards_dealt
    runner.dealer_closes_wagering()
    runner.arm_counter()
    runner.perform(Deal(count, BUSY_PACE_MS * 1000))
    try:
        _device(runner, "shoe").request("test.deal", count=1, pace_us=0)
        answer = "RSP (taken)"
    except DeviceNak as exc:
        answer = f"NAK {exc.code}"
    except ContractError as exc:  # the answer itself is what the case holds to the contract: the device's
        answer = f"outside the contract at '{exc.path}': {exc.problem}"
    out = runner.cards_out()
    if out < count:  # answered while the shoe was still dealing (its card events come as the cards leave)
        runner.measure(step, f"the answer to test.deal with {out} of the round's {count} cards out", answer,
                       "NAK BUSY", answer == "NAK BUSY", clause="contract-7-deal-busy")
    settle_round(runner, step)
    dealt = shoe.status().cards_dealt - dealt_before
    runner.measure(step, "cards the shoe counts dealt in the round", dealt, count, dealt == count,
                   clause="contract-7-deal-busy",
                   detail="" if dealt == count else "a card dealt for the request the shoe should have refused")
