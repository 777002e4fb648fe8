"""Reference-protocol role drivers against scripted peers: exact bytes in, typed results out."""

from __future__ import annotations

from decimal import Decimal

import pytest
from device_peers import PtyEnd

from harness.cards import parse_card
from harness.devices.crc import crc16
from harness.devices.drivers.reference import HelloError, ReferenceController, ReferenceSensors, ReferenceShoe
from harness.devices.framing import EVT, NAK, REQ, RSP, encode_frame
from harness.devices.link import NakError
from harness.devices.roles import ControllerConfig, SeatCombo
from harness.errors import DeviceError, InputError
from harness.progressive.meter import MeterConfig


def req(seq: int, cmd: str, **args: object) -> bytes:
    return encode_frame(REQ, seq, {"cmd": cmd, **args})


def rsp(seq: int, **body: object) -> bytes:
    return encode_frame(RSP, seq, {"ok": True, **body})


def hello(role: str) -> tuple[bytes, bytes]:
    """The host's offer (every version it speaks, newest first) and a version-2 device's answer."""
    return req(1, "hello", version=2, versions=[2, 1]), rsp(1, protocol=2, role=role)


IDENTITY = {
    "manufacturer": "ACME", "model": "PC-9", "serial": "SN1", "software_id": "PC9-FW",
    "controller_type": "ACME Progressive", "software_name": "ProgX", "software_version": "2.1",
    "program_hash": "ab12", "location": "pit 3", "asset_number": "A-77", "game_type": "midibaccarat",
}

CONFIG = {
    "game": "midibaccarat", "denomination": 500, "decks": 8,
    "seats": [{"seat": 1, "combo": ["KS", "9S"]}, {"seat": 2, "combo": None}],
    "meters": {"mega": {"rate": "1", "initial": 5000000, "reset": 5000000, "payout_limit": 25000000,
                        "display_capacity": 99999999}},
    "mystery": None,
}


def test_sensors_place_exact_bytes_and_result(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([
        hello("sensors"),
        (req(2, "wager.place", seat=3, type="royal9", amount=500), rsp(2, accepted=True, reason=None)),
        (req(3, "wager.place", seat=3, type="tie", amount=500), rsp(3, accepted=False, reason="locked-out")),
        (req(4, "wager.list"), rsp(4, wagers=[{"seat": 3, "type": "royal9", "amount": 500}])),
        (req(5, "wager.remove", seat=3, type="royal9"), rsp(5, removed=True)),
    ])
    with ReferenceSensors.open(pty_end.path) as sensors:
        ok = sensors.place(3, "royal9", 500)
        assert (ok.accepted, ok.reason, ok.seat, ok.type, ok.amount) == (True, None, 3, "royal9", 500)
        assert ok.t_sent_ns < ok.t_reply_ns
        refused = sensors.place(3, "tie", 500)
        assert (refused.accepted, refused.reason) == (False, "locked-out")
        assert [(w.seat, w.type, w.amount) for w in sensors.wagers()] == [(3, "royal9", 500)]
        sensors.remove(3, "royal9")
    peer.check()


def test_sensors_riding_streak_wager_listed_with_its_games_and_not_removable(pty_end: PtyEnd) -> None:
    """Wash. Admin. Code 230-15-040(8)(b): a riding three-games wager is listed with ``games``;
    withdrawing it is refused (NAK REFUSED, reason ``riding``)."""
    riding = {"seat": 2, "type": "streak3-player", "amount": 500, "games": 1}
    peer = pty_end.peer([
        hello("sensors"),
        (req(2, "wager.list"), rsp(2, wagers=[{"seat": 1, "type": "player", "amount": 500}, riding])),
        (req(3, "wager.remove", seat=2, type="streak3-player"),
         encode_frame(NAK, 3, {"code": "REFUSED", "reason": "riding"})),
        (req(4, "wager.place", seat=2, type="streak3-player", amount=500), rsp(4, accepted=False, reason="riding")),
    ])
    with ReferenceSensors.open(pty_end.path) as sensors:
        listed = sensors.wagers()
        assert [(w.seat, w.type, w.amount, w.games) for w in listed] == [(1, "player", 500, None),
                                                                         (2, "streak3-player", 500, 1)]
        with pytest.raises(NakError) as refused:
            sensors.remove(2, "streak3-player")
        assert (refused.value.code, refused.value.reason) == ("REFUSED", "riding")
        assert sensors.place(2, "streak3-player", 500).reason == "riding"
    peer.check()


def test_controller_identity_config_meters(pty_end: PtyEnd) -> None:
    meters = {"meters": {"mega": 5000012, "major": 45000}, "residual": {"mega": "0.25", "major": "0"},
              "cumulative_paid": 0, "paid_by_table": 0, "paid_by_attendant": 0, "pending": []}
    peer = pty_end.peer([
        hello("controller"),
        (req(2, "identity"), rsp(2, **IDENTITY)),
        (req(3, "config.get"), rsp(3, **CONFIG)),
        (req(4, "meters.get"), rsp(4, **meters)),
        (req(5, "lockout.get"), rsp(5, locked=True, cause="power")),
    ])
    with ReferenceController.open(pty_end.path) as ctl:
        ident = ctl.identity()
        assert ident.manufacturer == "ACME" and ident.program_hash == "ab12"
        assert ident.missing(progressive=True) == []
        cfg = ctl.config()
        assert cfg == ControllerConfig(
            500, (SeatCombo(1, ("KS", "9S")), SeatCombo(2, None)),
            {"mega": MeterConfig("mega", Decimal("1"), 5000000, 5000000, 25000000, 99999999)}, None)
        assert cfg.raw["decks"] == 8
        reading = ctl.meters()
        assert reading.meters == {"mega": 5000012, "major": 45000}
        assert reading.residual == {"mega": Decimal("0.25"), "major": Decimal(0)}
        assert isinstance(reading.residual["mega"], Decimal)
        assert reading.t_ns > 0
        assert ctl.lockout_state() is True
    peer.check()


def test_identity_reports_missing_fields(pty_end: PtyEnd) -> None:
    partial = {k: v for k, v in IDENTITY.items() if k not in ("software_version", "serial")}
    peer = pty_end.peer([hello("controller"), (req(2, "identity"), rsp(2, **{**partial, "location": ""}))])
    with ReferenceController.open(pty_end.path) as ctl:
        assert ctl.identity().missing(progressive=True) == ["location", "serial", "software_version"]
    peer.check()


def test_identity_reports_a_field_with_a_control_character(pty_end: PtyEnd) -> None:
    padded = {**IDENTITY, "location": "bench 1\u0000\u0000\u0000", "serial": "SN000123   "}
    peer = pty_end.peer([hello("controller"), (req(2, "identity"), rsp(2, **padded))])
    with ReferenceController.open(pty_end.path) as ctl:
        ident = ctl.identity()
        assert ident.missing(progressive=True) == [] and ident.not_text() == ["serial", "location"]
    peer.check()


def test_controller_round_commands_and_refusal(pty_end: PtyEnd) -> None:
    refusal = encode_frame(NAK, 6, {"code": "REFUSED", "reason": "live: a round is open"})
    peer = pty_end.peer([
        hello("controller"),
        (req(2, "round.open"), rsp(2, round=7) + encode_frame(EVT, 1, {"event": "lockout", "locked": False,
                                                                        "cause": "round-open"})),
        (req(3, "lockout.press"), rsp(3, locked=True)),
        (req(4, "round.no_more_bets"), rsp(4, round=7)),
        (req(5, "reset_key", meter="mega"), rsp(5, meter="mega", amount=5000000)),
        (req(6, "config.set", meters={"mega": {"rate": "1.5"}}), refusal),
    ])
    with ReferenceController.open(pty_end.path) as ctl:
        assert ctl.open_round() == 7
        ev = ctl.wait_event("lockout", 2.0)
        assert ev.payload["locked"] is False
        ctl.press_lockout()
        ctl.no_more_bets()
        assert ctl.reset_key("mega") == 5000000
        with pytest.raises(NakError, match="live"):
            ctl.set_config(meters={"mega": {"rate": Decimal("1.5")}})
    peer.check()


def test_shoe_test_channel_and_card_events(pty_end: PtyEnd) -> None:
    cards = encode_frame(EVT, 1, {"event": "card", "card": "KS", "n": 1}) + encode_frame(
        EVT, 2, {"event": "misread", "n": 2, "raw": "??"})
    peer = pty_end.peer([
        hello("shoe"),
        (req(2, "test.load", cards=["KS", "9H"], check_decks=True), rsp(2, cards_remaining=2)),
        (req(3, "test.deal", count=2, pace_us=1000), [rsp(3, dealing=2, cards_remaining=2), cards]),
        (req(4, "shoe.status"), rsp(4, state="ready", cards_dealt=2, cards_remaining=0)),
        (req(5, "test.fault", kind="error", code="E7", text="jam"),
         rsp(5, kind="error") + encode_frame(EVT, 3, {"event": "error", "code": "E7", "text": "jam"})),
    ])
    with ReferenceShoe.open(pty_end.path) as shoe:
        assert shoe.load([parse_card("KS"), "9H"]) == 2
        shoe.deal(2, pace_us=1000)
        first = shoe.wait_card(2.0)
        assert (first.card, first.n, first.seq) == (parse_card("KS"), 1, 1)
        assert shoe.wait_event("misread", 2.0).payload["raw"] == "??"
        status = shoe.status()
        assert (status.state, status.cards_dealt, status.cards_remaining) == ("ready", 2, 0)
        shoe.fault("error", code="E7", text="jam")
        assert shoe.wait_event("error", 2.0).payload["code"] == "E7"
        assert first.t_ns < shoe.transcript.entries[-1].t_ns
    peer.check()


def test_wrong_role_is_a_rig_error_and_closes_the_port(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(1, "hello", version=2, versions=[2, 1]), rsp(1, protocol=2, role="sensors"))])
    # a HelloError (a DeviceError: the rig's at a run's start; the explorer's finding on a line opened again)
    with pytest.raises(HelloError, match="answers as 'sensors'"):
        ReferenceShoe.open(pty_end.path)
    peer.check()
    # The port was released: it can be opened again (exclusive lock gone).
    peer2 = pty_end.peer([hello("shoe")])
    ReferenceShoe.open(pty_end.path).close()
    peer2.check()


def test_a_device_that_speaks_no_offered_version_is_a_clear_rig_error(pty_end: PtyEnd) -> None:
    """Every version offered, newest first, each answered NAK VERSION: an ERROR naming the offers and
    the device's words, at connect time."""
    peer = pty_end.peer([
        (req(1, "hello", version=2, versions=[2, 1]), encode_frame(NAK, 1, {"code": "VERSION", "reason": "3 only"})),
        (req(2, "hello", version=1), encode_frame(NAK, 2, {"code": "VERSION", "reason": "3 only"})),
    ])
    with pytest.raises(DeviceError, match=r"speaks none of the protocol versions tablecert offers \(2, 1\).*"
                                          r"to each version: 2: VERSION 3 only; 1: VERSION 3 only"):
        ReferenceController.open(pty_end.path)
    peer.check()


def test_a_refusal_dropped_for_its_crc_is_said_and_the_next_version_offered(pty_end: PtyEnd) -> None:
    """A version-1 device whose NAKs carry a CRC over the payload alone: its refusal of version 2 is dropped
    (the host cannot read it), so the host says so and offers version 1, which the device answers; a device
    whose every answer is dropped is a rig ERROR naming the dropped frames, not a silent device."""
    nak = encode_frame(NAK, 1, {"code": "VERSION", "reason": "1 only"})
    bad_nak = nak[:-2] + crc16(nak[8:-2]).to_bytes(2, "big")
    peer = pty_end.peer([(req(1, "hello", version=2, versions=[2, 1]), bad_nak),
                         (req(2, "hello", version=1), rsp(2, protocol=1, role="controller"))])
    with ReferenceController.open(pty_end.path) as ctl:
        assert ctl.protocol == 1
        assert any("BAD_CRC" in e.text for e in ctl.link.transcript.entries)
    peer.check()
    peer = pty_end.peer([(req(1, "hello", version=2, versions=[2, 1]), bad_nak),
                         (req(2, "hello", version=1), bad_nak[:4] + b"\x00\x02" + bad_nak[6:])])
    with pytest.raises(DeviceError, match=r"to each version: 2: an answer dropped, its frame failing its check "
                                          r"\(docs/protocol.md section 2\): BAD_CRC"):
        ReferenceController.open(pty_end.path)
    peer.check()


def test_a_device_answering_a_version_not_offered_is_a_clear_rig_error(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(1, "hello", version=2, versions=[2, 1]), rsp(1, protocol=3, role="controller"))])
    with pytest.raises(DeviceError, match=r"answers hello with protocol 3, a version tablecert did not offer"):
        ReferenceController.open(pty_end.path)
    peer.check()


def test_a_version_1_device_is_judged_by_version_1_and_read_into_the_same_model(pty_end: PtyEnd) -> None:
    """A device of contract version 1 reads ``version`` only: it refuses the offer (here BAD_ARGS for
    the ``versions`` it does not know; NAK VERSION to 2 does the same), answers 1.  From then on
    version 1's schema judges it: ``pending`` keyed by meter (version 1 gave it no shape) and a field
    the host does not know (version 1: hosts ignore it) pass, and the reading is the model a version-2
    device's list gives."""
    payment = {"seat": 1, "amount": 5000043, "category": "mega"}
    reading = {"meters": {"mega": 5000043}, "residual": {"mega": "0.5"}, "cumulative_paid": 0,
               "paid_by_table": 0, "paid_by_attendant": 0}
    peer = pty_end.peer([
        (req(1, "hello", version=2, versions=[2, 1]), encode_frame(NAK, 1, {"code": "BAD_ARGS", "reason": "what?"})),
        (req(2, "hello", version=1), rsp(2, protocol=1, role="controller")),
        (req(3, "meters.get"), rsp(3, **reading, pending={"mega": payment}, vendor_note="v1")),
    ])
    with ReferenceController.open(pty_end.path) as ctl:
        assert ctl.protocol == 1
        got = ctl.meters()
        assert got.pending == ("mega",)
        assert got.raw["pending"] == [{"meter": "mega", **payment}]
        assert got.meters == {"mega": 5000043}
    peer.check()


def test_a_version_2_device_is_judged_by_version_2(pty_end: PtyEnd) -> None:
    """The same keyed ``pending`` from a device that negotiated version 2 is outside its contract,
    named by field."""
    reading = {"meters": {"mega": 5000043}, "residual": {"mega": "0.5"}, "cumulative_paid": 0,
               "paid_by_table": 0, "paid_by_attendant": 0}
    peer = pty_end.peer([
        hello("controller"),
        (req(2, "meters.get"), rsp(2, **reading, pending={"mega": {"seat": 1, "amount": 5000043}})),
    ])
    with ReferenceController.open(pty_end.path) as ctl:
        assert ctl.protocol == 2
        reading = ctl.meters()
        assert reading.meters == {"mega": 5000043}
        with pytest.raises(DeviceError, match=r"reply to meters.get is outside the protocol contract at 'pending'.*"
                                              r"docs/protocol.md version 2"):
            reading.pending  # noqa: B018 - the read is the point
    peer.check()


def test_malformed_answers_are_device_errors(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([
        hello("sensors"),
        (req(2, "wager.place", seat=1, type="tie", amount=100), rsp(2, accepted="yes")),
    ])
    with ReferenceSensors.open(pty_end.path) as sensors, pytest.raises(DeviceError, match="accepted"):
        sensors.place(1, "tie", 100)
    peer.check()


def test_from_entry_validates_options() -> None:
    with pytest.raises(InputError, match="unknown device option"):
        ReferenceShoe.from_entry({"driver": "reference-shoe", "port": "/dev/null", "baud": 9600})
    with pytest.raises(InputError, match="emulator"):
        ReferenceShoe.from_entry({"driver": "reference-shoe", "port": "emulator"})
    with pytest.raises(InputError, match="baudrate"):
        ReferenceShoe.from_entry({"driver": "reference-shoe", "port": "/dev/null", "baudrate": "fast"})


def test_from_entry_opens_the_port(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([hello("shoe"), (req(2, "ping"), rsp(2))])
    shoe = ReferenceShoe.from_entry({"driver": "reference-shoe", "port": pty_end.path, "baudrate": 9600,
                                     "timeout_ms": 500})
    try:
        assert shoe.timeout_s == 0.5
        shoe.ping()
    finally:
        shoe.close()
    peer.check()
