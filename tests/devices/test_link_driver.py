"""The reference-link-controller driver against a scripted peer: exact bytes in, typed results out."""

from __future__ import annotations

from decimal import Decimal

import pytest
from device_peers import PtyEnd

from harness.devices.drivers.link import ReferenceLinkController
from harness.devices.framing import NAK, REQ, RSP, encode_frame
from harness.devices.link import NakError
from harness.devices.roles import LinkedTable, LinkHit
from harness.errors import DeviceError


def req(seq: int, cmd: str, **args: object) -> bytes:
    return encode_frame(REQ, seq, {"cmd": cmd, **args})


def rsp(seq: int, **body: object) -> bytes:
    return encode_frame(RSP, seq, {"ok": True, **body})


HELLO = (req(1, "hello", version=2, versions=[2, 1]), rsp(1, protocol=2, role="link-controller"))


def test_contribution_golden_frame_of_the_protocol_document() -> None:
    frame = req(5, "link.contribute", table="t1", n=7, round=3, wagers=[{"seat": 1, "amount": 500}])
    assert len(frame) == 8 + 89 + 2 and frame[-2:] == bytes.fromhex("e902")  # docs/protocol.md, section 12


def test_tables_meters_hits_and_the_reset_key(pty_end: PtyEnd) -> None:
    config = {"meters": {"mega-5": {"initial": 5000000, "reset": 5000000}},
              "tables": [{"table": "t1", "denomination": 500, "decks": 8, "rates": {"mega-5": "1.25"}}],
              "simultaneous_hits": "each-paid-meter"}
    meters = {"meters": {"mega-5": 5000012}, "residual": {"mega-5": "0.5"}, "held": {"mega-5": 0},
              "pending": [{"meter": "mega-5", "amount": 5000012, "instant": 1, "claims": 2}],
              "counted": {"t1": {"wagers": 2, "amount": 1000}}, "cumulative_paid": 0, "paid_by_table": 0,
              "paid_by_attendant": 0}
    hit = {"order": 1, "instant": 1, "table": "t1", "n": 2, "seat": 3, "meter": "mega-5", "amount": 5000012,
           "award": None}
    peer = pty_end.peer([
        HELLO,
        (req(2, "config.get"), rsp(2, **config)),
        (req(3, "meters.get"), rsp(3, **meters)),
        (req(4, "hits.get", since=0), rsp(4, hits=[hit], more=True)),
        (req(5, "hits.get", since=1), rsp(5, hits=[], more=False)),
        (req(6, "tables.get"), rsp(6, tables=[{"table": "t1", "up": False, "last": 2, "cut": "now"}])),
        (req(7, "reset_key", meter="mega-5"), rsp(7, meter="mega-5", amount=5000000)),
        (req(8, "reset_key", meter="mega-5"),
         encode_frame(NAK, 8, {"code": "REFUSED", "reason": "no hit is waiting for the reset key on 'mega-5'"})),
        (req(9, "test.cut", table="t1", when="after-contribution"), rsp(9, table="t1", when="after-contribution")),
    ])
    with ReferenceLinkController.open(pty_end.path) as link:
        assert link.tables() == (LinkedTable("t1", 500, 8, {"mega-5": Decimal("1.25")}),)
        reading = link.meters()
        assert reading.meters == {"mega-5": 5000012} and reading.residual == {"mega-5": Decimal("0.5")}
        assert reading.pending == ("mega-5",) and reading.raw["counted"]["t1"]["amount"] == 1000
        assert link.hits() == [LinkHit(1, 1, "t1", 2, 3, "mega-5", 5000012, None)]
        assert link.links_up() == {"t1": False}
        assert link.reset_key("mega-5") == 5000000
        with pytest.raises(NakError):
            link.reset_key("mega-5")
        link.cut("t1", "after-contribution")
    peer.check()


def test_a_device_in_another_role_is_refused(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(1, "hello", version=2, versions=[2, 1]), rsp(1, protocol=2, role="controller"))])
    with pytest.raises(DeviceError, match="link-controller"):
        ReferenceLinkController.open(pty_end.path)
    peer.check()
