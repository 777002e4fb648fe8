"""The lock-out latency of every round that deals (629a Royal 9 (a)(2)), kept for the whole case.

A lock-out late one round in twenty passes a suite that times two rounds.  So every round a case
deals is timed, the bulk ``rounds`` included: from the round's first card out of the shoe to the
controller's lock-out, by the time-interval counter armed before the deal, or else by the host's
receive stamps.  :func:`lock_timing` measures one round once (``expect_lockout`` reads the same
figure); :func:`record_round` keeps it on the case's list when the round settles, and
``expect_lockout_rounds`` judges the list: the worst round, and the count of rounds over the limit.

A round is not timed where nothing runs from its first card: the lock-out is the dealer's button
(``lockout-automatic`` false), the dealer closed wagering by hand (the button, "no more bets"), or
wagering was locked before the first card (a link loss).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from harness.errors import DeviceTimeout
from harness.suites.run.context import CaseContext, LockTiming, RoundLock

#: after the round settled, how long a lock-out event still missing is waited for (s)
LATE_EVENT_S = 0.5
_MS = Decimal("0.001")


def lockout_limit(runner: CaseContext) -> Decimal:
    """The lock-out deadline in force: the profile's ``lockout-latency-limit-ms`` interpretation where
    it chooses one, else its ``timing.lockout_deadline_ms``."""
    if "lockout-latency-limit-ms" in runner.profile.interpretations:
        return Decimal(str(runner.profile.interpretations["lockout-latency-limit-ms"]))
    return runner.profile.timing.lockout_deadline_ms


def _locked(e: Any) -> bool:
    return bool(e.name == "lockout" and e.payload.get("locked"))


def lock_timing(runner: CaseContext, wait_s: float = 0.0) -> LockTiming | None:
    """This round's lock-out latency, measured once (the counter is read once per armed round);
    ``None`` when no card was dealt or no lock-out event came within ``wait_s``."""
    cached = runner.round.lock_timing
    if cached is not None:
        return cached
    runner.pump()
    if not runner.round.cards:
        return None
    if not any(_locked(e) for e in runner.round.ctrl_events):
        try:
            runner.wait_for("'lockout' event", lambda: any(_locked(e) for e in runner.round.ctrl_events),
                             timeout_s=wait_s)
        except DeviceTimeout:
            return None
    t_card = runner.round.cards[0][1]
    ev = next(e for e in runner.round.ctrl_events if _locked(e))
    host = (Decimal(ev.t_ns - t_card) / Decimal(1_000_000)).quantize(_MS)
    armed = runner.counter_armed
    # closed before the first card by something else (the button, no more bets, a link loss); a
    # card-caused lock-out stamped before its card is the two lines' receive order, not a cause
    before = ev.t_ns < t_card and ev.payload.get("cause") not in (None, "card")
    seen = runner.counter_intervals()
    tint = runner.fetch_counter() if not before else None
    counter = (tint * 1000).quantize(_MS) if tint is not None else None
    timing = LockTiming(host, counter, armed, ev.payload.get("cause"), before, counter_seen=seen > 0)
    runner.round.lock_timing = timing
    return timing


def record_round(runner: CaseContext) -> None:
    """The round just settled goes on the case's list of timed rounds (once), where it is timed."""
    if runner.round.lock_recorded or not runner.round.cards:
        return
    runner.round.lock_recorded = True
    if runner.interpretation("lockout-automatic") is False or runner.round.closed_by_dealer:
        return
    timing = lock_timing(runner, LATE_EVENT_S)
    if timing is not None and timing.before_card:
        return
    runner.lock_rounds.append(RoundLock(len(runner.lock_rounds) + 1, timing))


def decided(ms: Decimal, limit: Decimal, jitter: Decimal | None, by_counter: bool) -> bool:
    """Whether a host-stamped latency decides against ``limit`` (farther from it than the bench's
    jitter); a counter's always does."""
    if by_counter or jitter is None:
        return True
    return ms + jitter <= limit or ms - jitter > limit
