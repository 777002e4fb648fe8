"""How the explorer's device side asks again before it calls an answer slow (no device, no process): a
removal is asked again after the wager it took is placed back, and a first identity after power-up is
judged at the next power-up."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from harness.explore import answer_times
from harness.explore.answer_times import AnswerClock
from harness.explore.device import ExploredTable
from harness.explore.judge import Observed


def table() -> ExploredTable:
    t = ExploredTable.__new__(ExploredTable)  # _restore reads only this attribute
    t.layout_before = ()
    return t


def clock() -> AnswerClock:
    return AnswerClock(lambda: [], 1.0)


def test_a_removal_is_asked_again_after_its_wager_is_placed_back() -> None:
    t = table()
    t.layout_before = ((1, "player", 1000), (1, "royal9", 500))
    obs = Observed(fields={"removed": True}, layout=((1, "player", 1000),))
    assert t._restore("wager.remove", {"seat": 1, "type": "royal9"}, obs) == (
        "wager.place", {"seat": 1, "type": "royal9", "amount": 500})
    # a removal that took more than its wager (the Royal 9 with its base) cannot be put back by one place
    both = Observed(fields={"removed": True}, layout=())
    assert t._restore("wager.remove", {"seat": 1, "type": "player"}, both) is None
    # a refused removal changed nothing: it is asked again as it is
    assert t._restore("wager.remove", {"seat": 2, "type": "player"}, Observed(code="REFUSED")) is None
    assert t._restore("round.settle", {}, obs) is None


def test_a_first_identity_after_power_up_is_slow_only_when_late_at_two_power_ups_in_a_row() -> None:
    t = clock()
    first = Observed()
    t.first_identities({"controller": Decimal("250.1"), "shoe": Decimal("3")}, first)
    assert first.slow == []  # one late answer decides nothing
    fast = Observed()
    t.first_identities({"controller": Decimal("2")}, fast)
    assert fast.slow == [] and t.first_identity_late == {}
    t.first_identities({"controller": Decimal("250.1")}, Observed())
    second = Observed()
    t.first_identities({"controller": Decimal("248.7"), "shoe": Decimal("3")}, second)
    assert second.slow == [("controller identity, the first after power-up (at two power-ups in a row)",
                            Decimal("248.7"), 2)]


def test_a_status_read_during_a_paced_deal_is_slow_only_when_late_in_two_paced_deals_in_a_row() -> None:
    t = clock()
    first = Observed()
    t.mid_deal(Decimal("150.2"), first)
    assert first.slow == [] and t.mid_deal_late == Decimal("150.2")
    t.mid_deal(Decimal("0.4"), Observed())  # in time at the next deal: the first was the host's
    assert t.mid_deal_late is None
    t.mid_deal(Decimal("149.9"), Observed())
    second = Observed()
    t.mid_deal(Decimal("151.0"), second)
    assert second.slow == [("shoe.status during a paced deal (at two paced deals in a row)", Decimal("149.9"), 2)]


def test_an_act_that_cannot_be_asked_again_is_slow_only_when_late_twice_in_a_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a void cannot be asked again harmlessly: as a first identity, it is judged at the next void
    monkeypatch.setattr(answer_times.HOST_ECHO, "delay_s", lambda: 0.0)
    t = clock()

    def acts(ms: str) -> Observed:
        monkeypatch.setattr(t, "act_times", lambda marks: [("controller", "round.settle", {}, Decimal(ms))])
        obs = Observed()
        t.judge_acts({}, obs, lambda role, cmd, args: None, lambda cmd, args: None)
        return obs

    assert acts("210.5").slow_acts == [] and t.act_late == {"round.settle": Decimal("210.5")}
    assert acts("0.8").slow_acts == [] and t.act_late == {}  # in time at the next: the first was the host's
    acts("199.0")
    assert acts("201.0").slow_acts == [("round.settle (late at two acts in a row)", Decimal("199.0"), 2)]


def test_a_read_slow_only_on_its_first_ask_after_an_operation_is_slow_when_late_at_two_such_steps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]  # a clock that moves only as long as each answer takes
    monkeypatch.setattr(answer_times.time, "perf_counter", lambda: now[0])
    monkeypatch.setattr(answer_times.time, "sleep", lambda _s: None)
    monkeypatch.setattr(answer_times.HOST_ECHO, "delay_s", lambda: 0.0)
    t = clock()

    def step(op: str) -> Observed:
        # the device's wager list is rebuilt after a settlement: its first answer takes 150 ms, the next 1 ms
        obs = Observed(op=op)
        takes = iter([0.150 if op == "settle" else 0.001] + [0.001] * 8)

        def ask() -> list[str]:
            now[0] += next(takes)
            return []

        t.timed(obs, "wager.list", ask)
        return obs

    assert step("settle").slow == []  # asked again on time: one late first ask decides nothing
    assert t.first_read_late == {("wager.list", "settle"): Decimal("150.000")}
    assert step("place").slow == [] and ("wager.list", "settle") in t.first_read_late  # another operation between
    # met again within one burst of load on the host: not yet its confirmation, the first late one stays
    assert step("settle").slow == [] and ("wager.list", "settle") in t.first_read_late
    now[0] += answer_times.LOAD_BURST_S
    assert step("settle").slow == [("wager.list, the first read after settle (late at two settle in a row)",
                                    Decimal("150.000"), 2)]
    now[0] += answer_times.LOAD_BURST_S
    assert step("settle").slow != []
    # on time at the next step of the operation: the late one before was the host's
    monkeypatch.setattr(answer_times.time, "perf_counter", lambda: now[0])
    t.first_read_late.clear()
    step("settle")
    fast = Observed(op="settle")
    t.timed(fast, "wager.list", lambda: now.__setitem__(0, now[0] + 0.001))
    assert fast.slow == [] and t.first_read_late == {}


def test_an_instrument_on_a_loopback_resource_is_served_from_this_host() -> None:
    from types import SimpleNamespace

    from harness.explore.device import served_here

    assert served_here(SimpleNamespace(resource_name="TCPIP::127.0.0.1::47314::SOCKET"))
    assert served_here(SimpleNamespace(resource_name="TCPIP::localhost::5025::SOCKET"))
    assert not served_here(SimpleNamespace(resource_name="TCPIP::192.0.2.7::5025::SOCKET"))
    assert not served_here(SimpleNamespace(resource_name="ASRL/dev/serial/by-id/usb-counter::INSTR"))
    assert not served_here(object())


def test_a_hello_on_a_line_opened_again_is_slow_only_when_late_at_two_reconnections_in_a_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answer_times.HOST_ECHO, "delay_s", lambda: 0.0)
    ticks = iter(range(0, 100, 2))  # reconnections two seconds apart: past a burst of load
    monkeypatch.setattr(answer_times.time, "perf_counter", lambda: float(next(ticks)))
    t = clock()
    first = Observed()
    t.hello_after_reconnect("sensors", Decimal("300.2"), first)
    assert first.slow == []
    t.hello_after_reconnect("shoe", Decimal("310"), Observed())  # another line: its own condition
    fast = Observed()
    t.hello_after_reconnect("sensors", Decimal("0.4"), fast)
    assert fast.slow == [] and ("sensors hello", "reconnect") not in t.first_read_late
    t.hello_after_reconnect("sensors", Decimal("299.9"), Observed())
    second = Observed()
    t.hello_after_reconnect("sensors", Decimal("301"), second)
    assert second.slow == [("sensors hello on a line opened again (late at two reconnections in a row)",
                            Decimal("299.900"), 2)]


def test_the_late_byte_and_the_stall_follow_the_devices_partial_frame_timeout() -> None:
    """docs/protocol.md section 2 leaves a device's partial-frame timeout to its maker (the profile's
    timing.frame_timeout_ms): the late byte comes well inside it, the stalled frame's silence well past it."""
    from harness.explore.device import frame_gaps

    assert frame_gaps(Decimal(500)) == (0.1, 1.0)       # the emulators' 500 ms: as before
    assert frame_gaps(Decimal(50)) == (0.01, 1.0)       # a device quick to abandon: a 10 ms gap
    assert frame_gaps(Decimal(3000)) == (0.1, 6.0)      # a patient one: six seconds of silence


def test_a_request_answered_late_before_the_ping_is_not_skipped() -> None:
    """A request timed out on a loaded host, and its answer came in before the ping's (one line: in order):
    a slow answer, not a skipped request (docs/protocol.md section 3); one still unanswered when the ping
    is answered is skipped."""
    from types import SimpleNamespace

    def frame(kind: str, seq: int, cmd: str | None = None) -> Any:
        return SimpleNamespace(kind="frame", fields={"type": kind, "seq": seq, "payload": {"cmd": cmd} if cmd else {}})

    def line(late: bool) -> Any:
        transcript = [frame("REQ", 7, "config.get")]

        def call(cmd: str, args: Any, timeout_s: float) -> None:
            if late:
                transcript.append(frame("RSP", 7))
            transcript.extend([frame("REQ", 8, "ping"), frame("RSP", 8)])

        return SimpleNamespace(link=SimpleNamespace(call=call, transcript=SimpleNamespace(
            since=lambda mark: transcript[mark:])))

    for late, found in ((True, []), (False, ["the controller left config.get (request SEQ 7) unanswered, and "
                                             "answered the ping sent after it"])):
        table = SimpleNamespace(_lines=lambda late=late: [("controller", line(late))])
        assert ExploredTable._requests_skipped(table, {"controller": 0}) == found  # type: ignore[arg-type]
