"""The emulated counter follows the single-event measurement model of real time-interval counters."""

from __future__ import annotations

import time
from decimal import Decimal

from emu_helpers import PLAIN_NATURAL, bench

from harness.emulators.scpi import NAN, Deferred


def _deal(b: object, counter_setup: str) -> str | Deferred | None:
    b.ok("controller", "round.open")  # type: ignore[attr-defined]
    b.wager(1)  # type: ignore[attr-defined]
    b.ok("shoe", "test.load", cards=PLAIN_NATURAL)  # type: ignore[attr-defined]
    b.table.counter.handle_line(counter_setup)  # type: ignore[attr-defined]
    b.ok("shoe", "test.deal", pace_us=0)  # type: ignore[attr-defined]
    deadline = time.monotonic() + 2
    answer = b.table.counter.handle_line("FETC?")  # type: ignore[attr-defined]
    if not isinstance(answer, Deferred):
        return answer
    while time.monotonic() < deadline:
        got = answer.poll(time.perf_counter_ns())
        if got is not None:
            return got
        time.sleep(0.001)
    return None


def test_armed_before_the_card_it_measures_card_out_to_the_effective_lock_out() -> None:
    with bench(lockout_latency_us=300) as b:
        got = _deal(b, "CONF:TINT (@1),(@2);INP1:LEV 1.5;INP2:LEV 1.5;SYST:TIM 1;INIT")
        assert got == "3.000000000E-4"


def test_a_negative_slope_on_channel_1_starts_at_the_end_of_the_card_pulse() -> None:
    with bench(lockout_latency_us=300) as b:
        got = _deal(b, "CONF:TINT (@1),(@2);INP1:LEV 1.5;INP1:SLOP NEG;INP2:LEV 1.5;SYST:TIM 1;INIT")
        assert got == "2.500000000E-4"  # 300 us less the 50 us pulse


def test_auto_level_and_a_level_above_the_signal_never_fire() -> None:
    for setup in ("CONF:TINT (@1),(@2);SYST:TIM 0.05;INIT", "CONF:TINT (@1),(@2);INP1:LEV 7;INP2:LEV 1.5;"
                  "SYST:TIM 0.05;INIT"):
        with bench(lockout_latency_us=300) as b:
            assert _deal(b, setup) == NAN  # the measurement timed out


def test_fetch_without_init_is_an_error_and_measure_starts_afresh() -> None:
    with bench(lockout_latency_us=300) as b:
        counter = b.table.counter
        assert counter.handle_line("FETC?") is None
        assert counter.handle_line("SYST:ERR?").startswith("-230")
        got = _deal(b, "CONF:TINT (@1),(@2);INP1:LEV 1.5;INP2:LEV 1.5;INIT")
        assert Decimal(str(got)) == Decimal("0.0003")
        assert counter.handle_line("FETC?") == got  # the reading stays until the next arming
        counter.handle_line("SYST:TIM 0.01")
        later = counter.handle_line("MEAS:TINT? (@1),(@2)")  # a new measurement: nothing after the round
        assert isinstance(later, Deferred)
        time.sleep(0.02)
        assert later.poll(time.perf_counter_ns()) == NAN
        assert counter.handle_line("INP3:LEV 1") is None
        assert counter.handle_line("SYST:ERR?").startswith("-113")


def test_a_level_set_again_is_no_edge_as_on_a_real_counter() -> None:
    with bench(lockout_latency_us=300) as b:
        counter = b.table.counter
        counter.handle_line("CONF:TINT (@1),(@2);INP1:LEV 1.5;INP2:LEV 1.5;SYST:TIM 1;INIT")
        with b.table.lock:
            level = counter.inputs["2"]
            counter.edge(2, False, time.perf_counter_ns())
            counter.edge(1, True, time.perf_counter_ns())  # start
            counter.edge(1, True, time.perf_counter_ns() + 10)  # high again: no new start
            t_high = time.perf_counter_ns() + 1_000
            counter.edge(2, True, t_high)  # the line rises: stop
            first = counter.result
            counter.handle_line("INIT")
            t = time.perf_counter_ns() + 1_000
            counter.edge(1, False, t)
            counter.edge(1, True, t + 10)  # start
            assert counter.start_ns == t + 10
            counter.edge(2, True, t + 500)  # raised again, never lowered: no stop
            again = counter.result
            counter.edge(2, level, t + 600)
        assert first is not None and Decimal(first) > 0
        assert again is None


def _deal_late(b: object, counter_setup: str, after_s: float) -> str | Deferred | None:
    """As :func:`_deal`, the round's first card ``after_s`` after the arm."""
    b.ok("controller", "round.open")  # type: ignore[attr-defined]
    b.wager(1)  # type: ignore[attr-defined]
    b.ok("shoe", "test.load", cards=PLAIN_NATURAL)  # type: ignore[attr-defined]
    counter = b.table.counter  # type: ignore[attr-defined]
    counter.handle_line(counter_setup)
    time.sleep(after_s)
    b.ok("shoe", "test.deal", pace_us=0)  # type: ignore[attr-defined]
    answer = counter.handle_line("FETC?")
    deadline = time.monotonic() + 2
    while isinstance(answer, Deferred) and time.monotonic() < deadline:
        got = answer.poll(time.perf_counter_ns())
        if got is not None:
            return got
        time.sleep(0.001)
    return None if isinstance(answer, Deferred) else answer


def test_a_measurement_timed_out_before_the_card_measures_nothing_and_inf_never_times_out() -> None:
    setup = "CONF:TINT (@1),(@2);INP1:LEV 1.5;INP2:LEV 1.5;"
    with bench(lockout_latency_us=300) as b:
        assert _deal_late(b, setup + "SYST:TIM 0.01;INIT", 0.03) == NAN  # over before its start edge
    with bench(lockout_latency_us=300) as b:
        got = _deal_late(b, setup + "SYST:TIM INF;INIT", 0.03)
        assert got == "3.000000000E-4"
        assert b.table.counter.handle_line("FETC?") == got  # asked again: the same reading
    with bench(lockout_latency_us=300, defect="counter-timeout-inf-zero") as b:
        assert _deal_late(b, setup + "SYST:TIM INF;INIT", 0.03) == NAN


def test_the_fetch_erases_defect_and_the_supply_opc_defect() -> None:
    with bench(lockout_latency_us=300, defect="counter-fetch-erases") as b:
        assert _deal(b, "CONF:TINT (@1),(@2);INP1:LEV 1.5;INP2:LEV 1.5;SYST:TIM 1;INIT") == "3.000000000E-4"
        assert b.table.counter.handle_line("FETC?") is None  # erased by the first reading: nothing armed
        assert b.table.counter.handle_line("SYST:ERR?").startswith("-230")
    for defect, answer in ((None, "1"), ("supply-opc-output-state", "0")):
        with bench(defect=defect) as b:
            b.table.power.handle_line("OUTP OFF")
            assert b.table.power.handle_line("*OPC?") == answer
