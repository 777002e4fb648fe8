"""The device contract's step (``expect_answer``) and where its cases apply: a refusal is judged by
its code and by the trace it leaves, a configuration write taken is written back, acts at the table
are not requests, every jurisdiction is held to the contract, and a device whose driver speaks
another protocol is not (the cases themselves run in the main job and the mutation run)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.devices.link import DeviceNak
from harness.devices.roles import MeterReading, ProgressiveController
from harness.errors import InputError
from harness.games.interpretations import Interpretations
from harness.profiles import load_profile_text
from harness.regulations.catalogue import load_catalogue
from harness.suites.load.applicability import not_applicable
from harness.suites.load.model import Step
from harness.suites.load.schema import load_suite
from harness.suites.steps.contract import expect_answer, outside_contract

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "suites" / "contract" / "contract.suite.yaml"
MIDI5 = (ROOT / "device_profiles" / "emulated-midi-5.yaml").read_text()
STEP = Step("expect_answer", {}, "<test>", 1, 1, "- expect_answer")


class Controller:
    """Answers config.set by taking it (a device outside the contract) or as the contract says."""

    def __init__(self, takes_anything: bool) -> None:
        self.takes_anything = takes_anything
        self.raw: dict[str, Any] = {"decks": 8, "seats": [{"seat": 1, "combo": None}]}
        self.writes: list[dict[str, Any]] = []

    def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        if cmd != "config.set":
            raise DeviceNak(cmd, "UNKNOWN_CMD", f"no command {cmd!r}", 1)
        if not self.takes_anything and not 1 <= args.get("decks", 8) <= 16:
            raise DeviceNak(cmd, "BAD_ARGS", "decks: expected 1 to 16", 1)
        self.set_config(**args)
        return {"ok": True, **self.raw}

    def set_config(self, **changes: Any) -> None:
        self.writes.append(changes)
        self.raw.update(changes)

    def config(self) -> Any:
        return SimpleNamespace(raw=dict(self.raw))

    def meters(self) -> MeterReading:
        return MeterReading({"mega": 5_000_000}, {"mega": Decimal(0)}, 0, 0, 0)


def _runner(ctrl: Controller) -> Any:
    measured: list[tuple[str, Any, bool]] = []

    def measure(step: Step, name: str, value: Any, limit: Any, passed: bool, *args: Any, **kw: Any) -> None:
        measured.append((name, value, passed))

    return SimpleNamespace(rig=SimpleNamespace(controller=ctrl, sensors=None, shoe=None), measure=measure,
                           measured=measured, read_meters=ctrl.meters, pump=lambda timeout_s=0.0: None)


def test_a_write_outside_the_contract_is_refused_and_leaves_nothing() -> None:
    runner = _runner(Controller(takes_anything=False))
    expect_answer(runner, STEP, cmd="config.set", args={"decks": 17}, answer=("BAD_ARGS", "REFUSED"))
    assert [(n, p) for n, _v, p in runner.measured] == [
        ("answer to controller config.set {'decks': 17}", True),
        ("controller config.set {'decks': 17} declined: configuration, meters and layout as before", True)]


def test_a_device_that_takes_it_fails_and_is_written_back_as_filed() -> None:
    ctrl = Controller(takes_anything=True)
    runner = _runner(ctrl)
    expect_answer(runner, STEP, cmd="config.set", args={"decks": 17}, answer=("BAD_ARGS", "REFUSED"))
    names = {n: (v, p) for n, v, p in runner.measured}
    assert names["answer to controller config.set {'decks': 17}"][1] is False
    assert names["configuration written back after controller config.set {'decks': 17}"] == ("as filed", True)
    assert ctrl.writes == [{"decks": 17}, {"decks": 8}] and ctrl.raw["decks"] == 8


def test_an_answer_is_held_to_the_code_and_the_fields_it_must_carry() -> None:
    runner = _runner(Controller(takes_anything=False))
    expect_answer(runner, STEP, cmd="no.such.command", answer=("UNKNOWN_CMD",))
    expect_answer(runner, STEP, cmd="config.set", args={"decks": 6}, match={"decks": 6, "seats": []})
    assert [(n, p) for n, _v, p in runner.measured] == [
        ("answer to controller no.such.command", True),
        ("controller no.such.command declined: configuration, meters and layout as before", True),
        ("answer to controller config.set {'decks': 6}", True),
        ("answer to controller config.set {'decks': 6}: fields", False),  # seats is not empty
        ("configuration written back after controller config.set {'decks': 6}", True)]


@pytest.mark.parametrize(("step", "message"), [
    ("{role: sensors, cmd: wager.place, args: {seat: 1}}", "wager.place stands for an act at the table"),
    ("{cmd: lockout.press}", "lockout.press stands for an act at the table"),
    ("{cmd: test.state}", "the emulator's test channel"),
    ("{cmd: ping, answer: [NOPE]}", "'NOPE' is not an answer of the contract"),
    ("{cmd: ping, answer: [REFUSED], match: {ok: true}}", "fields to match in an answer the step does not accept"),
])
def test_a_request_outside_what_the_step_sends_is_a_positioned_error(tmp_path: Path, step: str, message: str) -> None:
    p = tmp_path / "s.suite.yaml"
    p.write_text("spec: tablecert/suite/1\nsuite: s\ntitle: t\ncases:\n  - id: c\n    title: t\n"
                 f"    clauses: [contract-6-unknown-command]\n    steps:\n      - expect_answer: {step}\n")
    with pytest.raises(InputError) as err:
        load_suite(p)
    assert str(err.value).startswith(f"{p}:9:") and message in str(err.value), str(err.value)


def test_an_acts_command_sent_to_a_device_of_another_role_is_a_request(tmp_path: Path) -> None:
    # docs/protocol.md section 6: another role's command is answered NAK UNKNOWN_CMD: a request like any other
    p = tmp_path / "s.suite.yaml"
    p.write_text("spec: tablecert/suite/1\nsuite: s\ntitle: t\ncases:\n  - id: c\n    title: t\n"
                 "    clauses: [contract-6-unknown-command]\n    steps:\n"
                 "      - expect_answer: {role: sensors, cmd: lockout.press, answer: [UNKNOWN_CMD]}\n"
                 "      - expect_answer: {role: shoe, cmd: wager.place, answer: [UNKNOWN_CMD]}\n")
    assert len(load_suite(p).cases[0].steps) == 2


def _profile(jurisdiction: str) -> Any:
    head, _, tail = MIDI5.partition("\njurisdiction:")
    return load_profile_text(head + f"\njurisdiction: {jurisdiction}\n" + tail.split("\n", 1)[1], "p.yaml")


def test_the_contract_binds_in_every_jurisdiction() -> None:
    cat = load_catalogue()
    assert cat.applies("contract-6-unknown-command").jurisdiction == ""
    assert "" not in cat.jurisdictions()
    for jurisdiction in ("PA", "WA", "[PA, WA]"):
        profile = _profile(jurisdiction)
        interp = Interpretations.from_overrides(dict(profile.interpretations))
        case = next(c for c in load_suite(SUITE, fixtures=ROOT / "fixtures", profile=profile).cases
                    if c.id == "contract-unknown-command")
        assert not_applicable(profile, interp, case) is None, jurisdiction


def test_a_device_whose_driver_speaks_another_protocol_is_not_held_to_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.devices import registry

    class VendorController(ProgressiveController):  # a plugin: the role's interface, its own protocol
        pass

    real = registry.default_registry()

    class Registry:
        def info(self, name: str) -> Any:
            return SimpleNamespace(cls=VendorController) if name == "vendor-controller" else real.info(name)

    monkeypatch.setattr(registry, "default_registry", Registry)
    profile = _profile("PA")
    case = next(c for c in load_suite(SUITE, fixtures=ROOT / "fixtures", profile=profile).cases
                if c.id == "contract-unknown-command")
    assert outside_contract(profile, case) is None  # the reference drivers speak it
    devices = {**profile.devices, "controller": SimpleNamespace(driver="vendor-controller")}
    vendor: Any = SimpleNamespace(name="vendor", devices=devices)
    why = outside_contract(vendor, case)
    assert why is not None and "driver vendor-controller, which does not speak the reference protocol" in why
