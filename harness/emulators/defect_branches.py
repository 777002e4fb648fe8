"""The emulator branches of the defects a sampling suite misses (harness.emulators.defects, the block
"defects of the shapes a sampling suite misses").

Each function here is called from one place in the state machines (controller.py, settle.py,
sensors.py) and does nothing unless its defect is switched on, so the clean device keeps its one
line per branch.  The defects: a seat or a side wager left out of the lock-out, a refused wager
still counted, a one-cent leniency in one limit check, a rate written but not used until the next
power-up, a reset key that resets a meter with nothing pending, a mystery trigger re-armed past
must-hit-by, a lock-out late one round in twenty.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from harness.emulators import defects
from harness.emulators.config import EmulatorConfig
from harness.emulators.controller_state import ControllerState
from harness.money import Cents
from harness.progressive.meter import Hit, Meter, MeterBank, MeterConfig
from harness.progressive.mystery import MysteryMeter

#: the wagers ``side-wagers-open`` leaves out of the lock-out
SIDE_WAGERS = ("dragon7", "panda8")
_LIVE = ("open", "dealing")
#: how the controller books a mystery award (:func:`harness.emulators.settle.mystery_hits`)
MysteryHits = Callable[[ControllerState, int, Sequence[Hit]], None]
#: how the controller builds a meter from its configuration (:func:`harness.emulators.settle.new_meter`)
NewMeter = Callable[[ControllerState, MeterConfig], Meter]


def left_open(ctrl: ControllerState, seat: int, kind: str) -> bool:
    """Wagering is closed (lock-out or no more bets) but this wagering device still accepts."""
    bent = ctrl.cfg.defects
    if ctrl.phase not in _LIVE:
        return False
    if "lockout-seat-open" in bent:
        seats = sorted(ctrl.cfg.seats)
        if len(seats) > 1 and seat == seats[1]:
            return True
    if "royal9-open-after-lockout" in bent and kind == "royal9" and ctrl.lock_cause in ("card", "button"):
        return True
    return "side-wagers-open" in bent and kind in SIDE_WAGERS


def count_refused(ctrl: ControllerState, seat: int, kind: str, amount: Cents, mystery_hits: MysteryHits) -> None:
    """``refused-wager-counted``: a qualifying wager refused after the lock-out (the first card or the
    button) contributes to the meters anyway (a mystery award it triggers booked by ``mystery_hits``)."""
    if "refused-wager-counted" not in ctrl.cfg.defects or ctrl.bank is None or ctrl.phase not in _LIVE:
        return
    if ctrl.lock_cause not in ("card", "button"):  # refused after no more bets: not counted
        return
    if kind != ("hit-and-run" if ctrl.cfg.hit_and_run else "royal9"):
        return
    hits = ctrl.bank.contribute(amount)
    if hits:
        mystery_hits(ctrl, seat, hits)
    ctrl.save()


def lenient(cfg: EmulatorConfig) -> EmulatorConfig:
    """``cfg`` as a defective configuration check sees it: the minor display capacity one cent
    larger (``display-limit-one-cent-over``), the major initial amount taken for its reset amount
    (``floor-major-initial-unchecked``)."""
    bent = cfg.defects
    meters = dict(cfg.meters)
    minor = meters.get("minor")
    if "display-limit-one-cent-over" in bent and minor is not None and minor.display_capacity is not None:
        meters["minor"] = dataclasses.replace(minor, display_capacity=minor.display_capacity + 1)
    major = meters.get("major")
    if "floor-major-initial-unchecked" in bent and major is not None:
        meters["major"] = dataclasses.replace(major, initial=max(major.initial, major.reset))
    return cfg.with_changes(meters=meters) if meters != dict(cfg.meters) else cfg


def rate_in_use(ctrl: ControllerState, mc: MeterConfig) -> MeterConfig:
    """``rate-write-deferred``: a rewritten meter keeps accumulating at its power-up rate."""
    if "rate-write-deferred" not in ctrl.cfg.defects or mc.name not in ctrl.boot_rates:
        return mc
    return dataclasses.replace(mc, rate=ctrl.boot_rates[mc.name])


def adopt_written_rates(ctrl: ControllerState, new_meter: NewMeter) -> None:
    """``rate-write-deferred``: at power-up the meters take up the rates written before it (each
    written configuration as ``new_meter`` builds it)."""
    if "rate-write-deferred" not in ctrl.cfg.defects or ctrl.bank is None:
        return
    meters: list[Meter] = []
    for name, meter in ctrl.bank.meters.items():
        mc = ctrl.cfg.meters.get(name)
        written = new_meter(ctrl, mc).config if mc is not None else None
        if written is None or isinstance(meter, MysteryMeter) or meter.config.rate == written.rate:
            meters.append(meter)
            continue
        state = meter.to_state()
        state["config"] = written.to_dict()
        meters.append(Meter.from_state(state, ctrl.options))
    ctrl.bank = MeterBank(meters)


def idle_key(ctrl: ControllerState, name: str) -> dict[str, Any] | None:
    """``reset-key-idle-resets``: the key turned with no hit pending resets the meter anyway (the
    answer the controller then gives), else ``None``."""
    if "reset-key-idle-resets" not in ctrl.cfg.defects or ctrl.bank is None or name not in ctrl.bank.meters:
        return None
    meter = ctrl.bank[name]
    if meter.pending is not None:
        return None
    meter.amount = meter.config.reset
    ctrl.emit("reset", meter=name, amount=meter.amount)
    ctrl.save()
    return {"meter": name, "amount": meter.amount}


def unmetered(ctrl: ControllerState, meter: str) -> bool:
    """``mega-hit-unmetered``: this award is left off the payout meters."""
    return "mega-hit-unmetered" in ctrl.cfg.defects and meter == "mega"


def note_rewrite(ctrl: ControllerState, request: dict[str, Any] | Any, new: EmulatorConfig) -> None:
    """``mystery-rewrite-disarms``: the configuration in force written again after play."""
    if "mystery-rewrite-disarms" not in ctrl.cfg.defects or "mystery" not in request or ctrl.bank is None:
        return
    meter = ctrl.bank.meters.get("mystery")
    if new.mystery == ctrl.cfg.mystery and isinstance(meter, MysteryMeter) and meter.amount > meter.config.reset:
        ctrl.mystery_disarmed = True


def mystery_late(ctrl: ControllerState) -> bool:
    """The mystery trigger is past must-hit-by for the next contribution: after a first award
    (``mystery-second-award-late``) or after a rewrite (``mystery-rewrite-disarms``, until it awards)."""
    bent = ctrl.cfg.defects
    if ctrl.bank is None or not isinstance(meter := ctrl.bank.meters.get("mystery"), MysteryMeter):
        return False
    if "mystery-rewrite-disarms" in bent and ctrl.mystery_disarmed:
        return True
    return "mystery-second-award-late" in bent and meter.paid > 0


def late_round(ctrl: ControllerState) -> bool:
    """``lockout-late-intermittent``: this round's lock-out is late."""
    return "lockout-late-intermittent" in ctrl.cfg.defects and ctrl.round_no % defects.INTERMITTENT_EVERY == 0
