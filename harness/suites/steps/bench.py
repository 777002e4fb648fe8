"""Steps that hold the bench's instruments to docs/protocol.md section 9 before their figures are trusted:
the power supply acts before its ``*OPC?`` answers, and the time-interval counter's measurement timeout
(``SYST:TIM``) is seconds.

A lab owns its instruments; a vendor's fixture may serve them from the table.  Either way a power-loss
case is only as good as the supply's ``*OPC?`` (the case times its next step from it), and a lock-out
latency only as good as the counter's arm: these steps show an instrument that breaks section 9 by its
own answers, where a device case could only end as an ERROR or time nothing.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from decimal import Decimal
from typing import TYPE_CHECKING

from harness.bench.acts import Deal, InjectFault, PressLockout
from harness.devices.drivers.scpi import ScpiCounter, ScpiPowerSupply
from harness.devices.roles import Counter, PowerSupply
from harness.errors import DeviceError, DeviceTimeout
from harness.suites.load.model import Step
from harness.suites.run.context import NotApplicableHere
from harness.suites.run.timing import LATE_EVENT_S, lock_timing
from harness.suites.steps.core import answering, came_back, fed_devices, never_cut, settle_round
from harness.suites.steps.registry import Action, Arg, choice, step

#: the counter's measurement timeout (ms) while it is armed for a measurement that must time out
STOP_FIRST_TIMEOUT_MS = 1000

if TYPE_CHECKING:
    from harness.suites.run.context import CaseContext

#: how long a device fed by the supply is given to stay silent once ``*OPC?`` said the output is off
DARK_WITHIN_S = 0.1
#: how long after that a device still answering is asked again: dark by then, the supply acted after its
#: ``*OPC?``; still answering, it was never cut (the wiring's, an ERROR)
CUT_LATER_S = 1.0


def bench_supply(runner: CaseContext) -> PowerSupply:
    """The bench supply that switches the table's power; NOT APPLICABLE where none does."""
    supply = runner.rig.power
    if supply is None or runner.profile.bench.performer("power").kind != "supply":
        raise NotApplicableHere("the table's power is not switched by a bench supply")
    return supply


@step("expect_supply_acts", Action(
    doc="set the supply's voltage 0.1 V under the one it reads, then switch it off and on, each setting followed "
    "by *OPC? (docs/protocol.md section 9: the call returns once the instrument acted): VOLT? and OUTP? read "
    "back each setting at once (VOLT? the setting with the output off too; *OPC? asked again then answers 1), "
    "the voltage set is kept across OUTP "
    "OFF and ON, every device the supply feeds "
    "answers no ping within 0.1 s of OUTP OFF's *OPC?, and the controller comes back locked, cause power",
    acts=("power",)))
def expect_supply_acts(runner: CaseContext, step: Step) -> None:
    supply = bench_supply(runner)
    runner.pump()
    mark = len(runner.round.ctrl_events)
    # the voltage a step under the one read (a step no table minds), read back, and kept across OUTP OFF and ON
    volts_read = supply.voltage()
    volts = volts_read - PowerSupply.CHECK_STEP
    supply.set_voltage(volts)
    shown = supply.voltage()
    runner.measure(step, f"VOLT? once VOLT {volts:.3f}'s *OPC? answered", f"{shown:.3f}", f"{volts:.3f}",
                   shown == volts)
    try:
        supply.output(False)  # OUTP OFF, then *OPC?
    except DeviceError as exc:
        # section 9: *OPC? answers "1" once the instrument acted; one that does not answer with its output
        # off leaves every power-loss case waiting on a call that never returns
        runner.measure(step, "*OPC? answered after OUTP OFF", f"no answer ({exc})", "1", False)
        supply.output(True)
        runner.wait_back()
        return
    off = supply.output_state()
    runner.measure(step, "OUTP? once OUTP OFF's *OPC? answered", "1 (on)" if off else "0 (off)", "0 (off)", not off)
    if isinstance(supply, ScpiPowerSupply):  # *OPC? answers 1 once the settings are acted on, the output off too
        opc = supply.query("*OPC?")
        runner.measure(step, "*OPC? asked again with the output off", opc, "1", opc == "1")
    # VOLT? reads the setting (MEAS:VOLT? would measure the output), whether the output is on or off
    set_off = supply.voltage()
    runner.measure(step, "VOLT? with the output off (the voltage set)", f"{set_off:.3f}", f"{volts:.3f}",
                   set_off == volts)
    fed = fed_devices(runner)
    alive = dict(answering(fed, DARK_WITHIN_S))
    late = [role for role, answered in alive.items() if answered]
    if late:
        time.sleep(CUT_LATER_S)
        still = dict(answering([(role, dev) for role, dev in fed if role in late], DARK_WITHIN_S))
        for role in late:
            if still[role]:
                supply.output(True)
                runner.wait_back()
                raise never_cut(role)
    for role, answered in alive.items():
        runner.measure(step, f"the {role} dark once the supply's *OPC? answered OUTP OFF",
                       f"answered a ping, dark {CUT_LATER_S} s later" if answered
                       else f"no answer within {DARK_WITHIN_S} s", "no answer", not answered,
                       detail="*OPC? answered before the output went off: a power-loss case would time its "
                       "next step from a moment the table still had power" if answered else "")
    supply.output(True)  # OUTP ON, then *OPC?
    on = supply.output_state()
    runner.measure(step, "OUTP? once OUTP ON's *OPC? answered", "1 (on)" if on else "0 (off)", "1 (on)", on)
    kept = supply.voltage()
    runner.measure(step, "VOLT? after OUTP OFF and OUTP ON (the voltage set is kept)", f"{kept:.3f}", f"{volts:.3f}",
                   kept == volts)
    supply.set_voltage(volts_read)
    runner.wait_back()
    came_back(runner, step, mark)


#: how long the table is watched after an OUTP ON sent with the output on (s)
ON_WHILE_ON_S = 0.5


@step("expect_supply_on_while_on", Action(
    doc="docs/protocol.md section 9: `OUTP ON` switches the supply's output on; sent with the output on already "
    "(with a round open and its wagers on the layout, as the case leaves them) it changes nothing: no lockout "
    "event comes within 0.5 s, wagering stays as it was, `wager.list` lists the same wagers and OUTP? reads 1",
    acts=("power",)))
def expect_supply_on_while_on(runner: CaseContext, step: Step) -> None:
    supply = bench_supply(runner)
    ctrl = runner.controller()
    runner.pump()
    mark = len(runner.round.ctrl_events)
    locked_before = ctrl.lockout_state()
    listed_before = _listed(runner)
    supply.output(True)  # OUTP ON, then *OPC?, the output on already
    end = time.monotonic() + ON_WHILE_ON_S
    while time.monotonic() < end:
        runner.pump(0.05)
    events = [dict(e.payload) for e in runner.round.ctrl_events[mark:] if e.name == "lockout"]
    runner.measure(step, f"lockout events within {ON_WHILE_ON_S} s of OUTP ON with the output on",
                   events or "none", "none", not events)
    on = supply.output_state()
    runner.measure(step, "OUTP? after OUTP ON with the output on", "1 (on)" if on else "0 (off)", "1 (on)", on)
    locked = ctrl.lockout_state()
    runner.measure(step, "lockout.get after OUTP ON with the output on", "locked" if locked else "open",
                   "locked" if locked_before else "open", locked == locked_before)
    listed = _listed(runner)
    runner.measure(step, "wager.list after OUTP ON with the output on", listed, listed_before, listed == listed_before)


def _listed(runner: CaseContext) -> list[str]:
    sensors = runner.rig.sensors
    return [] if sensors is None else sorted(f"seat {w.seat} {w.type} {w.amount}" for w in sensors.wagers())


#: how long the table is given to go dark after the power-loss line fault, and to come back after OUTP ON (s)
LOSS_DARK_S = 2.0
LOSS_BACK_S = 5.0


@step("expect_supply_restores", Action(
    doc="docs/protocol.md section 7, `power-loss`: \"the whole table is dark until the bench supply's OUTP ON\": "
    "the controller's line fault `power-loss` (no duration), then the supply's `OUTP ON` alone (its output never "
    "switched off): OUTP? reads 1 and the table comes back within 5 s, locked with cause power.  A table still "
    "dark is brought back by OUTP OFF and OUTP ON after the FAIL",
    acts=("power", "fault")))
def expect_supply_restores(runner: CaseContext, step: Step) -> None:
    supply = bench_supply(runner)
    runner.pump()
    mark = len(runner.round.ctrl_events)
    runner.perform(InjectFault("controller", "power-loss", (("after_ms", 0),)))
    fed = fed_devices(runner)
    deadline = time.monotonic() + LOSS_DARK_S
    while any(answered for _role, answered in answering(fed, DARK_WITHIN_S)):
        if time.monotonic() > deadline:
            raise DeviceError(f"the table still answers {LOSS_DARK_S} s after the power-loss line fault: no "
                              "power-loss to restore from")
    supply.output(True)  # OUTP ON, then *OPC?
    on = supply.output_state()
    runner.measure(step, "OUTP? after the power-loss line fault and OUTP ON", "1 (on)" if on else "0 (off)",
                   "1 (on)", on)
    back = time.monotonic() + LOSS_BACK_S
    while not all(answered for _role, answered in answering(fed, DARK_WITHIN_S)) and time.monotonic() < back:
        time.sleep(0.05)
    up = all(answered for _role, answered in answering(fed, 1.0))
    runner.measure(step, f"the table within {LOSS_BACK_S:g} s of OUTP ON after the power-loss line fault",
                   "back (answers a ping)" if up else "dark (no answer to a ping)", "back (answers a ping)", up)
    if not up:
        supply.output(False)
        time.sleep(0.05)
        supply.output(True)
    runner.wait_back()
    came_back(runner, step, mark)


@step("expect_counter_waits", Action(
    {"ahead_ms": Arg("decimal", positive=True, why="the counter is armed before the first card"),
     "fetch": choice("after", "before", default="after"),
     "slopes": choice("written", "conf", default="written"),
     "timeout": choice("profile", "inf", default="profile")},
    doc="arm the time-interval counter `ahead_ms` (default 300) before the round's first card, deal the round "
    "and read the interval (`fetch: before`: FETC? sent right after the arm, its answer waited for while the "
    "round is dealt): the counter's timeout (SYST:TIM, seconds: docs/protocol.md section 9) had not run out, so "
    "FETC? answers the card-to-lock-out interval, not 9.91E+37.  `slopes: conf`: the counter set up by "
    "`CONF:TINT` and the levels alone, its slopes as CONF sets them (\"slopes positive\"), on a SCPI counter "
    "whose profile keeps both `POS`; `timeout: inf`: `SYST:TIM INF` (\"`INF`: none\"), so a card past the "
    "profile's timeout is timed too, on a SCPI counter.  A SCPI counter's FETC? asked again after the reading "
    "answers the same reading (nothing armed since).  The counter is set up as the profile says again after",
    acts=("deal",)))
def expect_counter_waits(runner: CaseContext, step: Step, fetch: str, slopes: str, timeout: str,
                         ahead_ms: Decimal | None = None) -> None:
    counter = runner.rig.counter
    if counter is None:
        raise NotApplicableHere("the bench has no time-interval counter")
    if timeout == "inf":
        if not isinstance(counter, ScpiCounter):
            raise NotApplicableHere("the counter is not a SCPI counter: SYST:TIM INF is section 9's")
        counter.configure(no_timeout=True)
        try:
            _counter_waits(runner, step, counter, fetch, ahead_ms, "SYST:TIM INF, ", no_timeout=True)
        finally:
            counter.configure()
        return
    if slopes == "conf":
        if not isinstance(counter, ScpiCounter) or any(v != "POS" for v in counter.slopes.values()):
            raise NotApplicableHere("the counter is not a SCPI counter whose profile keeps the slopes POS")
        counter.configure(slopes=False)
        try:
            _counter_waits(runner, step, counter, fetch, ahead_ms, "CONF:TINT and the levels alone, ")
        finally:
            counter.configure()
        return
    _counter_waits(runner, step, counter, fetch, ahead_ms, "")


def _counter_waits(runner: CaseContext, step: Step, counter: Counter, fetch: str, ahead_ms: Decimal | None,
                   setup: str, *, no_timeout: bool = False) -> None:
    if runner.interpretation("lockout-automatic") is False:
        raise NotApplicableHere("the first card does not close wagering here: no card-to-lock-out interval")
    ahead = ahead_ms if ahead_ms is not None else Decimal(300)
    timeout_ms = Decimal(getattr(counter, "measure_timeout_ms", 2000))
    if ahead >= timeout_ms and not no_timeout:
        raise NotApplicableHere(f"the counter's timeout ({timeout_ms} ms) runs out before a card {ahead} ms "
                                "after the arm")
    if runner.round.cards:
        raise DeviceError("expect_counter_waits deals the round's first card: a card of this round is out already")
    runner.dealer_closes_wagering()
    runner.arm_counter()  # INIT, and a query answered after it: the arm is taken
    early: Future[Decimal | None] | None = None
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="fetch-early") as pool:
        if fetch == "before":
            # the counter is the waiting thread's alone until its answer: nothing else asks it meanwhile
            runner.counter_armed = False
            early = pool.submit(counter.fetch_interval_s)
        time.sleep(float(ahead) / 1000)
        runner.perform(Deal(None, None))
        settle_round(runner, step)
        measured_s = early.result(timeout=float(timeout_ms) / 1000 + 5) if early is not None else None
    timing = lock_timing(runner, LATE_EVENT_S)
    if timing is None:
        raise DeviceError("no lockout event after the first card: the counter had nothing to time")
    measured = timing.counter_ms if early is None else (
        (measured_s * 1000).quantize(Decimal("0.001")) if measured_s is not None else None)
    # the interval runs from the first start edge after the arm (the card), not from the arm: armed
    # ``ahead`` before the card, an interval of ``ahead`` or more was timed from the arm
    runner.measure(step, f"the counter's interval, {setup}armed {ahead} ms before the first card, FETC? sent {fetch} "
                   "it",
                   measured if measured is not None else "none (FETC?: the measurement timed out)",
                   f"an interval < {ahead}", measured is not None and measured < ahead,
                   unit="ms" if measured is not None else "",
                   detail=f"SYST:TIM {'INF' if no_timeout else f'{timeout_ms / 1000} s'} set; the host's stamps gave "
                   f"{timing.host_ms} ms card to lock-out (cause {timing.cause})")
    if isinstance(counter, ScpiCounter) and early is None:
        _fetched_again(runner, step, counter, measured)


def _fetched_again(runner: CaseContext, step: Step, counter: ScpiCounter, measured: Decimal | None) -> None:
    """FETC? asked again, nothing armed since: the same reading (a measurement's result is not erased by
    reading it)."""
    try:
        again = counter.fetch_again()
    except DeviceTimeout:
        shown = "no answer"
    else:
        shown = f"{(again * 1000).quantize(Decimal('0.001'))}" if again is not None else "9.91E+37"
    want = f"{measured}" if measured is not None else "9.91E+37"
    runner.measure(step, "the counter's FETC? asked again, nothing armed since its reading", shown, want,
                   shown == want, unit="ms" if measured is not None else "")


@step("expect_counter_stop_first", Action(
    doc="with wagering open and the round's cards not yet out, arm the time-interval counter (a 1 s measurement "
    "timeout on a SCPI counter), press the lock-out button (the lock-out line rises: a stop edge before any "
    "start edge), deal the round: FETC? measures \"from the first start edge after arming to the next stop "
    "edge\" (docs/protocol.md section 9), and the line stays up after the card, so the measurement times out "
    "(9.91E+37); an interval (a negative one: the stop taken before the start) is a FAIL",
    acts=("lockout-button", "deal")))
def expect_counter_stop_first(runner: CaseContext, step: Step) -> None:
    counter = runner.rig.counter
    if counter is None:
        raise NotApplicableHere("the bench has no time-interval counter")
    if runner.round.cards:
        raise DeviceError("expect_counter_stop_first deals the round's first card: a card of this round is out")
    scpi = counter if isinstance(counter, ScpiCounter) else None
    if scpi is not None:
        scpi.configure(measure_timeout_ms=STOP_FIRST_TIMEOUT_MS)
    try:
        counter.arm()
        counter.idn()  # answered after the arm: the arm is taken before the press
        runner.perform(PressLockout())
        runner.round.closed_by_dealer = True
        runner.perform(Deal(None, None))
        settle_round(runner, step)
        measured = counter.fetch_interval_s()
    finally:
        if scpi is not None:
            scpi.configure()
    runner.measure(step, "the counter's FETC?, armed before the lock-out line rose and then the round's first card",
                   "9.91E+37 (no interval)" if measured is None else f"{measured} s",
                   "9.91E+37 (no stop edge after the start edge)", measured is None)


@step("expect_instrument_identity", Action(
    doc="each of the bench's SCPI instruments (the supply, the counter) answers *IDN? with "
    "`maker,model,serial,firmware` (docs/protocol.md section 9): four fields, none empty, the same when asked "
    "again"))
def expect_instrument_identity(runner: CaseContext, step: Step) -> None:
    asked = [(role, dev) for role in ("power", "counter")
             if (dev := getattr(runner.rig, role, None)) is not None and hasattr(dev, "idn")]
    if not asked:
        raise NotApplicableHere("the bench has no SCPI instrument")
    for role, dev in asked:
        first, again = str(dev.idn()), str(dev.idn())
        fields = [f.strip() for f in first.split(",")]
        well_formed = len(fields) == 4 and all(fields)
        runner.measure(step, f"the {role}'s *IDN?: maker, model, serial, firmware", first,
                       "four fields, none empty", well_formed)
        runner.measure(step, f"the {role}'s *IDN? asked again", again, first, again == first)
