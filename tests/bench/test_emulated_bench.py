"""The emulator with no test channel, its physical side and its switch unit (in process)."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest

from harness.emulators.base import Refusal
from harness.emulators.config import EmulatorConfig
from harness.emulators.scpi import channel_list
from harness.emulators.table import EmulatedTable
from tests.emulators.emu_helpers import PROFILE

WIRED = {"lockout-button": {"actuator": "relay", "channel": "101"},
         "open-round": {"actuator": "relay", "channel": "111"},
         "reset-key": {"actuator": "relay", "channels": {"mega": "102"}},
         "comm": {"actuator": "relay", "channel": "110"}}


def bench_table(test_channel: bool = False) -> tuple[EmulatedTable, list[tuple[str, dict[str, Any]]]]:
    data = copy.deepcopy(PROFILE)
    data["emulator"]["test_channel"] = test_channel
    data["bench"] = {"performers": WIRED}
    events: list[tuple[str, dict[str, Any]]] = []
    table = EmulatedTable(EmulatorConfig.from_mapping(data), lambda role, ev: events.append((role, ev)))
    return table, events


def act(table: EmulatedTable, **req: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(table.physical.handle_line(json.dumps(req)))
    return answer


@pytest.mark.parametrize(("role", "cmd"), [
    ("shoe", "test.load"), ("shoe", "test.deal"), ("controller", "test.link"), ("controller", "test.state"),
    ("sensors", "wager.place"), ("sensors", "wager.remove"), ("controller", "lockout.press"),
    ("controller", "reset_key"), ("controller", "round.open"), ("controller", "round.no_more_bets"),
])
def test_without_a_test_channel_the_emulator_refuses_like_a_real_device(role: str, cmd: str) -> None:
    table, _ = bench_table()
    answer = table.handle(role, {"cmd": cmd})
    assert isinstance(answer, Refusal) and answer.code == "REFUSED"
    assert answer.reason.startswith("not an emulator")
    assert table.handle("controller", {"cmd": "meters.get"}) is not None  # observation still works
    assert not isinstance(table.handle("controller", {"cmd": "lockout.get"}), Refusal)


def test_with_its_test_channel_the_same_commands_work() -> None:
    table, _ = bench_table(test_channel=True)
    assert not isinstance(table.handle("controller", {"cmd": "round.open"}), Refusal)


def test_the_shuffle_button_shuffles_the_loaded_pack_with_the_generator_the_readout_uses() -> None:
    """A bench loads new-deck order and presses the shuffle button: the shoe deals the pack the
    built-in shuffler made of it, the same shuffle ``test.shuffle`` reads out (so a shuffler defect
    is in what a bench deals); a part pack is refused."""
    from harness.randomness.models import compose
    from harness.randomness.observations import id_card

    table, _ = bench_table()
    n = table.shoe.shuffler.n
    pack = [id_card(i) for i in range(n)]
    twin, _ = bench_table()
    expected = [id_card(int(i)) for i in compose(np.arange(n), twin.shoe.shuffler.positions())]
    assert act(table, act="shoe.insert", cards=pack) == {"ok": True, "in_shoe": n}
    assert act(table, act="shoe.shuffle") == {"ok": True, "in_shoe": n}
    dealt = [c.code for c in table.shoe.cards]
    assert dealt == expected and dealt != pack and sorted(dealt) == sorted(pack)
    assert act(table, act="shoe.insert", cards=pack[:52])["in_shoe"] == 52
    answer = act(table, act="shoe.shuffle")
    assert answer["ok"] is False and f"whole pack of {n} cards" in answer["error"]


def test_a_round_played_by_hand_is_reported_on_the_devices_own_lines() -> None:
    table, events = bench_table()
    assert act(table, act="button", name="open-round") == {"ok": True}
    assert act(table, act="chips.place", seat=1, type="royal9", amount=500) == {"ok": True}
    assert act(table, act="chips.place", seat=1, type="royal9", amount=100) == {"ok": True}
    wagers = [ev for role, ev in events if role == "sensors" and ev["event"] == "wager"]
    assert wagers == [
        {"event": "wager", "seat": 1, "type": "royal9", "amount": 500, "accepted": True, "reason": None},
        {"event": "wager", "seat": 1, "type": "royal9", "amount": 100, "accepted": False, "reason": "bad-amount"},
    ]
    assert act(table, act="chips.place", seat=1, type="bonus", amount=500) == {
        "ok": False, "error": "the layout has no 'bonus' area"}
    assert act(table, act="shoe.insert", cards=["KS", "KS", "9S", "9S"]) == {"ok": True, "in_shoe": 4}
    drawn = [act(table, act="shoe.draw")["card"] for _ in range(4)]
    assert drawn == ["KS", "KS", "9S", "9S"]
    cards = [ev["card"] for role, ev in events if role == "shoe" and ev["event"] == "card"]
    assert cards == drawn
    names = [ev["event"] for role, ev in events if role == "controller"]
    assert "lockout" in names and "round_end" in names and "hit" in names
    assert act(table, act="shoe.draw") == {"ok": False, "error": "the shoe is empty"}
    act(table, act="chips.remove", seat=1, type="royal9")
    removed = [ev for role, ev in events if role == "sensors" and ev["event"] == "wager_removed"]
    assert removed[-1]["removed"] is False and removed[-1]["reason"]


def test_a_button_the_controller_does_not_act_on_shows_its_message() -> None:
    table, _ = bench_table()
    assert act(table, act="key", meter="mega")["display"].startswith("no hit is waiting")
    act(table, act="button", name="open-round")
    assert "display" in act(table, act="button", name="open-round")
    assert act(table, act="button", name="doorbell")["ok"] is False


def test_the_switch_unit_presses_buttons_and_breaks_the_cable_through_its_wiring() -> None:
    table, _ = bench_table()
    switch = table.switch
    assert switch.handle_line("ROUT:CLOS (@111)") is None  # the dealer's open button
    assert table.controller.phase == "open"
    switch.handle_line("ROUT:OPEN (@111)")
    switch.handle_line("ROUT:CLOS (@101)")  # the lock-out button
    assert table.controller.locked and table.controller.lock_cause == "button"
    switch.handle_line("ROUT:CLOS (@110)")  # the cable relay: the link is broken while it is closed
    assert table.controller.link_up is False
    assert switch.handle_line("ROUT:CLOS? (@110,111)") == "1,0"
    switch.handle_line("ROUT:OPEN (@110)")
    assert table.controller.link_up is True
    assert switch.handle_line("ROUT:CLOS banana") is None
    assert switch.handle_line("SYST:ERR?") == '-224,"Illegal parameter value"'
    switch.handle_line("ROUT:OPEN:ALL")
    assert switch.closed == set()


def test_channel_lists() -> None:
    assert channel_list("(@101,102,105:107)") == ["101", "102", "105", "106", "107"]
    assert channel_list("(@1:)") is None and channel_list("101") is None


def test_the_wiring_round_trips_through_the_configuration_mapping() -> None:
    table, _ = bench_table()
    cfg = table.cfg
    assert dict(cfg.wiring) == {"101": "lockout-button", "111": "open-round", "102": "reset-key:mega", "110": "comm"}
    again = EmulatorConfig.from_mapping(cfg.to_mapping())
    assert again.wiring == cfg.wiring and again.test_channel is False
