"""``round.open`` REFUSED where a case opens a round (docs/protocol.md section 8): a FAIL of the contract only
where the case can tell none of the section's reasons holds; otherwise nothing is judged (the case ends
as before, on the device's refusal)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from harness.devices.link import DeviceEvent, NakError
from harness.suites.steps.core import open_refused


def _runner(*, pending: tuple[str, ...] = (), cause: str | None = None, link: Any = None,
            performer: str = "test-channel", call: bool = True, lost: bool = False) -> Any:
    measured: list[tuple[str, Any, bool, str | None]] = []

    class Controller:
        def call(self, cmd: str) -> Any:
            assert cmd == "lockout.get"
            return SimpleNamespace(payload={"locked": True, "cause": cause})

    runner = SimpleNamespace(
        controller=lambda: Controller() if call else object(),
        round=SimpleNamespace(ctrl_events=[]),
        profile=SimpleNamespace(link=link, bench=SimpleNamespace(
            performer=lambda act: SimpleNamespace(kind=performer))),
        read_meters=lambda: SimpleNamespace(pending=pending), link_lost_seen=lost,
        measure=lambda step, name, value, limit, ok, **kw: measured.append((name, value, ok, kw.get("clause"))))
    runner.measured = measured
    return runner


def _last(ended: bool = True, opened: bool = True) -> Any:
    events = [DeviceEvent("round_end", {"round": 7}, 9, 0)] if ended else []
    return SimpleNamespace(opened=opened, number=7, ctrl_events=events)


REFUSED = NakError("round.open", "REFUSED", "no reason", 3)


def test_a_refusal_with_no_reason_of_section_8_is_a_fail() -> None:
    runner = _runner(cause="round-end")
    open_refused(runner, None, _last(), REFUSED)  # type: ignore[arg-type]
    [(_name, value, ok, clause)] = runner.measured
    assert not ok and value == "refused (no reason)" and clause == "contract-8-round-open-refused"


def test_a_refusal_for_a_reason_of_section_8_passes() -> None:
    for runner in (_runner(pending=("major",)), _runner(cause="comm-lost")):
        open_refused(runner, None, _last(), REFUSED)  # type: ignore[arg-type]
        assert [m[2] for m in runner.measured] == [True]


def test_nothing_is_judged_where_the_case_cannot_tell() -> None:
    for runner, last in ((_runner(), _last(ended=False)),         # the last round's end not seen
                         (_runner(), _last(opened=False)),        # the case's first round
                         (_runner(link=object()), _last()),       # a table on a link
                         (_runner(performer="person"), _last()),  # a person opens rounds at the bench
                         (_runner(call=False), _last()),          # a driver of another protocol
                         (_runner(lost=True), _last())):          # the link was lost in the case
        open_refused(runner, None, last, REFUSED)  # type: ignore[arg-type]
        assert runner.measured == []
