"""The act / performer seam: the profile's ``bench:`` section, who performs what, and NOT APPLICABLE."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from harness.bench.acts import ACTS, NoMoreBets, OpenRound, PressLockout, SetComm, TurnResetKey
from harness.bench.performers import Actuator, Performers
from harness.bench.settings import PerformerSpec
from harness.errors import DeviceError, DeviceTimeout, InputError
from harness.games.interpretations import Interpretations
from harness.profiles import Profile, load_profile_text
from harness.suites.load.applicability import no_performer, not_applicable
from harness.suites.load.schema import load_suite
from harness.suites.steps.registry import acts_of, steps

ROOT = Path(__file__).resolve().parents[2]

BASE = """spec: tablecert/profile/1
name: t
game: midibaccarat
devices:
  shoe: {driver: reference-shoe, port: emulator}
  sensors: {driver: reference-sensors, port: emulator}
  controller: {driver: reference-controller, port: emulator}
  power: {driver: scpi-power, resource: emulator}
capabilities: [royal9, power-control]
rules:
  denomination: 5
  seats:
    - {seat: 1, combo: [KS, 9S]}
  meters:
    mega: {rate: "1%", initial: "$50,000", reset: "$50,000"}
    major: {rate: "0.5%", initial: "$450", reset: "$450"}
    minor: {rate: "0.5%", initial: 450, reset: "450.00"}
"""

BENCH = """bench:
  performers:
    load: operator
    deal: operator
    wager: operator
    lockout-button: {actuator: relay, channel: "101", hold_ms: "20"}
    reset-key: {actuator: relay, channels: {mega: "102", major: "103"}}
    comm: {actuator: relay, channel: "110"}
    fault: none
  actuators:
    relay: {driver: scpi-switch, resource: emulator}
  operator: {name: J. Doe, console: false}
"""


def _load(text: str) -> Profile:
    return load_profile_text(text, "p.yaml")


def _error(text: str) -> str:
    with pytest.raises(InputError) as info:
        _load(text)
    return str(info.value)


def test_without_a_bench_section_every_act_is_the_test_channels_and_power_the_supplys() -> None:
    bench = _load(BASE).bench
    assert {a: bench.performer(a).kind for a in ACTS} == {**dict.fromkeys(ACTS, "test-channel"), "power": "supply"}
    assert all(bench.why_not(a) is None for a in ACTS)


def test_a_bench_section_names_a_performer_per_act() -> None:
    bench = _load(BASE + BENCH).bench
    assert bench.performer("load").kind == "operator"
    assert bench.performer("lockout-button") == PerformerSpec("actuator", "relay", "101", hold_ms=Decimal(20))
    assert dict(bench.performer("reset-key").channels) == {"mega": "102", "major": "103"}
    assert bench.performer("open-round").kind == "test-channel"  # not listed: the test channel
    assert bench.why_not("fault") == ("no performer on this bench can inject a device fault (a silent device, "
                                      "line noise, a reboot, a power loss) (bench.performers.fault: none)")
    assert bench.operator.name == "J. Doe" and bench.operator.console is False
    assert bench.summary()["comm"]["channel"] == "110"


def test_without_a_test_channel_unlisted_acts_have_no_performer() -> None:
    text = BASE + "emulator: {test_channel: false}\n" + BENCH
    bench = _load(text).bench
    assert bench.performer("open-round").kind == "none"
    assert "open wagering" in (bench.why_not("open-round") or "")


@pytest.mark.parametrize(("performers", "message"), [
    ("    shuffle: operator\n", "p.yaml:22:5: bench.performers: unknown act 'shuffle'"),
    ("    deal: robot\n", "bench.performers.deal: unknown performer 'robot'"),
    ("    deal: supply\n", "bench.performers.deal: the bench supply can only switch the power"),
    ("    power: test-channel\n", "no device switches its own power"),
    ("    fault: operator\n", "an operator cannot inject a device fault"),
    ("    deal: {actuator: relay, channel: \"1\"}\n", "bench.performers.deal: a relay cannot deal cards"),
    ("    comm: {actuator: hands, channel: \"1\"}\n", "no actuator 'hands' under bench.actuators"),
    ("    reset-key: {actuator: relay, channel: \"1\"}\n", "the reset key needs one channel per meter"),
    ("    comm: actuator\n", "an actuator needs its relay"),
])
def test_bad_bench_sections_say_where_and_what(performers: str, message: str) -> None:
    relay = "bench:\n  actuators:\n    relay: {driver: scpi-switch, resource: emulator}\n"
    text = BASE + relay + "  performers:\n" + performers
    assert message in _error(text)


def test_a_test_channel_performer_needs_an_emulator_with_a_test_channel() -> None:
    text = BASE + "emulator: {test_channel: false}\nbench:\n  performers:\n    load: test-channel\n"
    assert "bench.performers.load: test-channel, but the emulator has no test channel" in _error(text)


def test_a_scripted_operator_needs_an_emulator() -> None:
    ports, resources = iter(range(9, 20)), iter(range(1, 10))  # one device a port (validate refuses sharing)
    real = re.sub(r"port: emulator}", lambda _m: f"port: socket://127.0.0.1:{next(ports)}}}", BASE)
    real = re.sub(r"resource: emulator", lambda _m: f"resource: TCPIP::h::{next(resources)}::SOCKET", real)
    text = real + "bench:\n  performers: {load: operator}\n  operator: {scripted: {speed: 10}}\n"
    assert "a scripted operator acts through an emulator's physical side" in _error(text)


def test_every_step_that_acts_declares_its_acts() -> None:
    declared = {name: set(d.spec.acts) for name, d in steps().items()}
    assert declared["deal"] == {"load", "deal"}
    assert declared["wager"] == {"wager"} and declared["wagers"] == {"wager"}
    assert declared["power"] == {"power"} and declared["comm"] == {"comm"}
    assert declared["device_fault"] == {"fault"} and declared["fault"] == {"fault"}
    assert {"open-round", "wager", "load", "deal", "reset-key"} <= declared["rounds"]
    assert all(a in ACTS for acts in declared.values() for a in acts)
    assert not declared["expect_payout"] and not declared["expect_lockout"]  # expectations only observe
    # the batteries read the shuffler, deal shoes out or play rounds, unless their observations come
    # from a file (the shoe battery reads the shuffler's packs where the test channel loads the shoe)
    assert declared["expect_shuffle_random"] == {"shuffler-readout"}
    assert declared["expect_shoe_random"] == {"load", "deal"}
    assert acts_of(["expect_shoe_random"], [{"from": "shoes.json"}]) == []
    assert acts_of(["expect_shuffle_random"], [{"from": "orders.json"}]) == []
    assert acts_of(["expect_mystery_distribution"], [{}]) == ["open-round", "wager", "load", "deal", "reset-key"]
    # expect_sequence asks for its operations' acts besides its own
    ops = ["open_round", "power_cycle", "shoe_error", "lockout_button", "bad_frame role=shoe", "reboot"]
    assert acts_of(["expect_sequence"], [{"ops": ops}]) == ["load", "deal", "wager", "remove-wager", "open-round",
                                                          "power", "fault", "lockout-button"]
    assert acts_of(["expect_sequence"], [{"ops": ["open_round", "void"]}]) == [
        "load", "deal", "wager", "remove-wager", "open-round"]


def test_a_case_needing_an_act_nobody_performs_is_not_applicable() -> None:
    profile = _load(BASE + BENCH)
    suite = load_suite(ROOT / "tests" / "faults" / "suites" / next(
        p.name for p in (ROOT / "tests" / "faults" / "suites").glob("*.suite.yaml")))
    with_fault = [c for c in suite.cases if "fault" in acts_of([s.action for s in c.steps])]
    assert with_fault
    for case in with_fault:
        assert no_performer(profile, case) == profile.bench.why_not("fault")
        why = not_applicable(profile, Interpretations.from_overrides({}), case)
        assert why is not None and "no performer on this bench" in why
    plain = _load(BASE)
    assert all(no_performer(plain, c) is None for c in suite.cases)


class FakeRelay:
    def __init__(self) -> None:
        self.log: list[str] = []

    def close_channel(self, channel: str) -> None:
        self.log.append(f"close {channel}")

    def open_channel(self, channel: str) -> None:
        self.log.append(f"open {channel}")


def test_an_actuator_pulses_buttons_and_keys_and_holds_a_cable_cut() -> None:
    relay = FakeRelay()
    stage: Any = None
    Actuator(relay, PerformerSpec("actuator", "relay", "101", hold_ms=Decimal(1))).perform(PressLockout(), stage)
    Actuator(relay, PerformerSpec("actuator", "relay", "111", hold_ms=Decimal(1))).perform(OpenRound(), stage)
    keys = Actuator(relay, PerformerSpec("actuator", "relay", None, {"mega": "102"}, Decimal(1)))
    keys.perform(TurnResetKey("mega"), stage)
    cable = Actuator(relay, PerformerSpec("actuator", "relay", "110"))
    cable.perform(SetComm(False), stage)
    cable.perform(SetComm(True), stage)
    assert relay.log == ["close 101", "open 101", "close 111", "open 111", "close 102", "open 102",
                         "close 110", "open 110"]
    with pytest.raises(DeviceError, match="no relay channel turns the reset key of the major meter"):
        keys.perform(TurnResetKey("major"), stage)


def test_performers_refuse_an_act_nobody_performs() -> None:
    performers = Performers(_load(BASE + BENCH).bench, relays={"relay": FakeRelay()})
    with pytest.raises(DeviceError, match="no performer on this bench can inject"):
        performers.performer("fault")
    with pytest.raises(DeviceError, match="no prompt is attached"):
        performers.performer("deal")
    assert isinstance(performers.performer("comm"), Actuator)


def test_a_persons_time_is_not_the_devices() -> None:
    """pytest-timeout gives a case its own deadline and a grace, and none where a person acts (each
    prompt has its deadline); the time waiting for the operator's answers is counted apart."""
    from harness.bench.prompts import PromptBroker
    from harness.plugin import CASE_GRACE_S, item_timeout
    from tests.bench.test_prompts import Auto

    suite = load_suite(ROOT / "suites" / "progressive" / "mystery.suite.yaml")
    case = next(c for c in suite.cases if c.timeout_s == 240)
    assert item_timeout(case, _load(BASE)) == 240 + CASE_GRACE_S  # never below the case's own deadline
    assert item_timeout(case, _load(BASE + BENCH)) == 0
    broker = PromptBroker("J. Doe")
    performers = Performers(_load(BASE + BENCH).bench, relays={"relay": FakeRelay()}, broker=broker)
    assert performers.person_s == 0.0
    broker.attach(Auto(broker, "done"))
    broker.ask(PressLockout())
    broker.ask(PressLockout())
    assert performers.person_s >= 0.02  # each answer came 10 ms after its prompt


def test_an_actuator_probing_a_round_the_controller_must_refuse_sees_whether_wagering_opened() -> None:
    """The button is pressed; with no 'lockout' event unlocking wagering the round was refused (a
    REFUSED NAK, as the test channel answers); with one, the round opened (the case judges it)."""
    from harness.devices.link import DeviceEvent, DeviceNak

    class Stage:
        def __init__(self, opens: bool) -> None:
            self.opens = opens
            self.events: list[DeviceEvent] = []
            self.waited = 0.0

        def controller_events(self) -> list[DeviceEvent]:
            return self.events

        def wait_for(self, what: str, pred: Any, timeout_s: float = 0.0) -> None:
            self.waited = timeout_s
            if self.opens:
                self.events.append(DeviceEvent("lockout", {"event": "lockout", "locked": False,
                                                           "cause": "round-open"}, 1, 0))
            if not pred():
                raise DeviceTimeout(f"no {what} within {timeout_s} s")

    relay = FakeRelay()
    button = Actuator(relay, PerformerSpec("actuator", "relay", "111", hold_ms=Decimal(1)))
    refused = Stage(opens=False)
    with pytest.raises(DeviceNak, match=r"REFUSED: no round opened within 5\.0 s of the button"):
        button.perform(OpenRound(probe=True), refused)
    assert refused.waited == 5.0
    assert button.perform(OpenRound(probe=True), Stage(opens=True)) is None
    assert relay.log == ["close 111", "open 111", "close 111", "open 111"]


def test_an_actuator_probing_a_no_more_bets_call_the_controller_must_refuse_sees_whether_it_was_called() -> None:
    """The no-more-bets button is pressed; with no 'no_more_bets' event after it the call was refused
    (a REFUSED NAK, as the test channel answers); with one, the call was taken (the case judges it)."""
    from harness.devices.link import DeviceEvent, DeviceNak

    class Stage:
        def __init__(self, called: bool) -> None:
            self.called = called
            self.events = [DeviceEvent("no_more_bets", {"event": "no_more_bets", "round": 1}, 1, 0)]  # an old call

        def controller_events(self) -> list[DeviceEvent]:
            return self.events

        def wait_for(self, what: str, pred: Any, timeout_s: float = 0.0) -> None:
            if self.called:
                self.events.append(DeviceEvent("no_more_bets", {"event": "no_more_bets", "round": 2}, 2, 0))
            if not pred():
                raise DeviceTimeout(f"no {what} within {timeout_s} s")

    relay = FakeRelay()
    button = Actuator(relay, PerformerSpec("actuator", "relay", "112", hold_ms=Decimal(1)))
    with pytest.raises(DeviceNak, match=r"REFUSED: no 'no_more_bets' event within 5\.0 s of the button"):
        button.perform(NoMoreBets(probe=True), Stage(called=False))
    assert button.perform(NoMoreBets(probe=True), Stage(called=True)) is None
    assert button.perform(NoMoreBets(), None) is None  # a call, not a probe: nothing observed
    assert relay.log == ["close 112", "open 112"] * 3
