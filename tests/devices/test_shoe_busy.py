"""A load sent while the shoe still deals the last cards of a round (NAK BUSY, docs/protocol.md
section 3) waits, by shoe.status, until the shoe stops dealing, and is sent again once."""

from __future__ import annotations

from typing import Any

import pytest

from harness.devices.drivers.reference import ReferenceShoe
from harness.devices.link import DeviceNak
from harness.devices.roles import ShoeStatus


class _Shoe(ReferenceShoe):
    def __init__(self, busy_loads: int, dealing_polls: int) -> None:  # no link: requests are scripted
        self.busy_loads, self.dealing_polls, self.sent = busy_loads, dealing_polls, []

    def request(self, cmd: str, timeout_s: float | None = None, **args: Any) -> dict[str, Any]:
        self.sent.append(cmd)
        if cmd == "test.load" and self.busy_loads:
            self.busy_loads -= 1
            raise DeviceNak("test.load", "BUSY", "the shoe is dealing", 1)
        return {"cards_remaining": 6}

    def status(self) -> ShoeStatus:
        self.sent.append("shoe.status")
        self.dealing_polls -= 1
        return ShoeStatus("dealing" if self.dealing_polls >= 0 else "idle", 4, 0)


def test_a_busy_shoe_is_waited_for_then_loaded() -> None:
    shoe = _Shoe(busy_loads=1, dealing_polls=2)
    assert shoe.load(["KS", "9H"], check_decks=False) == 6
    assert shoe.sent == ["test.load", "shoe.status", "shoe.status", "shoe.status", "test.load"]


def test_a_shoe_busy_past_the_deadline_is_the_caller_s_error(monkeypatch: pytest.MonkeyPatch) -> None:
    shoe = _Shoe(busy_loads=1, dealing_polls=10**9)
    monkeypatch.setattr(ReferenceShoe, "BUSY_WAIT_S", 0.05)
    with pytest.raises(DeviceNak, match="BUSY"):
        shoe.load(["KS"], check_decks=False)


def test_another_refusal_is_not_retried() -> None:
    class Refusing(_Shoe):
        def request(self, cmd: str, timeout_s: float | None = None, **args: Any) -> dict[str, Any]:
            self.sent.append(cmd)
            raise DeviceNak(cmd, "BAD_ARGS", "no such card", 1)

    shoe = Refusing(0, 0)
    with pytest.raises(DeviceNak, match="BAD_ARGS"):
        shoe.load(["ZZ"], check_decks=False)
    assert shoe.sent == ["test.load"]
