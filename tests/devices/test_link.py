"""The framed link over real pyserial ports (pty, socket://, loop://) against scripted peers."""

from __future__ import annotations

import json
import struct
import threading
import time
from pathlib import Path

import pytest
from device_peers import PtyEnd, TcpEnd

from harness.devices.crc import crc16
from harness.devices.framing import EVT, NAK, REQ, RSP, encode_frame
from harness.devices.link import FULL_LENGTH, DeviceNak, FramedLink, NakError, Reply
from harness.devices.transcript import IN, OUT
from harness.devices.transport import SerialTransport, memory_pair
from harness.errors import DeviceError, DeviceTimeout

HELLO_REQ = bytes.fromhex("a55a01010001001b7b22636d64223a2268656c6c6f222c2276657273696f6e223a317d7a5a")


def rsp(seq: int, **body: object) -> bytes:
    return encode_frame(RSP, seq, {"ok": True, **body})


def req(seq: int, cmd: str, **args: object) -> bytes:
    return encode_frame(REQ, seq, {"cmd": cmd, **args})


def evt(seq: int, name: str, **body: object) -> bytes:
    return encode_frame(EVT, seq, {"event": name, **body})


def open_link(url: str) -> FramedLink:
    return FramedLink(SerialTransport(url), name="dut")


def test_hello_exact_bytes_over_pty(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(HELLO_REQ, rsp(1, protocol=1, role="shoe"))])
    with open_link(pty_end.path) as link:
        assert link.request("hello", version=1) == {"ok": True, "protocol": 1, "role": "shoe"}
    peer.check()
    assert link.transcript.raw(OUT) == HELLO_REQ
    assert link.transcript.raw(IN) == rsp(1, protocol=1, role="shoe")


def test_reply_carries_send_and_receive_stamps(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(1, "ping"), rsp(1))])
    with open_link(pty_end.path) as link:
        before = time.perf_counter_ns()
        reply = link.call("ping")
        after = time.perf_counter_ns()
    peer.check()
    assert before <= reply.t_sent_ns < reply.t_reply_ns <= after
    assert reply.seq == 1


def test_timeout_honours_deadline(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(1, "ping"), b"")])
    with open_link(pty_end.path) as link:
        start = time.monotonic()
        with pytest.raises(DeviceTimeout, match="no reply to ping"):
            link.request("ping", timeout_s=0.2)
        elapsed = time.monotonic() - start
        assert elapsed >= 0.2
        assert elapsed < 5.0  # bounded: the deadline, not a hang
        assert any("timeout" in line for line in link.transcript.tail(5))
    peer.check()


def test_late_reply_after_timeout_is_not_given_to_the_next_request(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(1, "ping"), b""), (req(2, "ping"), rsp(1, late=True) + rsp(2, late=False))])
    with open_link(pty_end.path) as link:
        with pytest.raises(DeviceTimeout):
            link.request("ping", timeout_s=0.1)
        assert link.request("ping", timeout_s=2.0) == {"ok": True, "late": False}
    peer.check()


def test_nak_and_refused(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([
        (req(1, "bogus"), encode_frame(NAK, 1, {"code": "UNKNOWN_CMD", "reason": "bogus"})),
        (req(2, "config.set", denomination=100), encode_frame(NAK, 2, {"code": "REFUSED", "reason": "live"})),
    ])
    with open_link(pty_end.path) as link:
        with pytest.raises(DeviceNak) as err:
            link.request("bogus")
        assert not isinstance(err.value, NakError)
        assert (err.value.code, err.value.reason, err.value.seq) == ("UNKNOWN_CMD", "bogus", 1)
        with pytest.raises(NakError) as refused:
            link.request("config.set", denomination=100)
        assert refused.value.code == "REFUSED" and refused.value.reason == "live"
        assert isinstance(refused.value, DeviceError)
    peer.check()


def test_nak_seq_zero_fails_outstanding_request_without_waiting(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(1, "ping"), encode_frame(NAK, 0, {"code": "BAD_CRC", "reason": "crc"}))])
    with open_link(pty_end.path) as link, pytest.raises(DeviceNak) as err:
        link.request("ping", timeout_s=10.0)
    assert err.value.code == "BAD_CRC"
    peer.check()


def test_rsp_without_ok_is_an_error(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(1, "ping"), encode_frame(RSP, 1, {"pong": 1}))])
    with open_link(pty_end.path) as link, pytest.raises(DeviceError, match="ok"):
        link.request("ping")
    peer.check()


def test_events_interleaved_with_response(pty_end: PtyEnd) -> None:
    burst = evt(1, "card", card="KS", n=1) + rsp(1, state="dealing") + evt(2, "card", card="9H", n=2)
    peer = pty_end.peer([(req(1, "shoe.status"), burst)])
    with open_link(pty_end.path) as link:
        reply = link.call("shoe.status")
        assert reply.payload["state"] == "dealing"
        second = link.wait_event("card", 2.0, lambda e: e.payload["n"] == 2)
        first = link.wait_event("card", 2.0)
        assert (first.payload["card"], second.payload["card"]) == ("KS", "9H")
        assert first.t_ns <= reply.t_reply_ns <= second.t_ns
        assert first.seq == 1 and second.seq == 2
        assert link.events() == []
        assert link.event_gaps == []
    peer.check()


def test_wait_event_timeout_and_events_wait(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(1, "ping"), [rsp(1), evt(1, "lockout", locked=True, cause="button")])])
    with open_link(pty_end.path) as link:
        link.request("ping")
        got = link.events(timeout_s=2.0)
        assert [e.name for e in got] == ["lockout"]
        with pytest.raises(DeviceTimeout, match="no 'hit' event"):
            link.wait_event("hit", 0.1)
    peer.check()


def test_request_seq_wraps_to_one(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(65535, "ping"), rsp(65535)), (req(1, "ping"), rsp(1))])
    with open_link(pty_end.path) as link:
        link._seq = 65534  # as after 65534 requests
        link.request("ping")
        link.request("ping")
    peer.check()


def test_event_seq_gap_detection_across_wrap(pty_end: PtyEnd) -> None:
    events = evt(65534, "card", n=1) + evt(65535, "card", n=2) + evt(1, "card", n=3) + evt(3, "card", n=4)
    peer = pty_end.peer([(req(1, "ping"), events + rsp(1))])
    with open_link(pty_end.path) as link:
        link.request("ping")
        assert [e.seq for e in link.events()] == [65534, 65535, 1, 3]
        assert link.event_gaps == [(2, 3)]
    peer.check()


def test_garbage_and_bad_crc_are_skipped(pty_end: PtyEnd) -> None:
    corrupt = bytearray(rsp(1, wrong=True))
    corrupt[-1] ^= 0xFF
    noise = b"\x00\x13\xa5junk" + bytes(corrupt) + b"\xa5"
    peer = pty_end.peer([(req(1, "ping"), noise + rsp(1, right=True))])
    with open_link(pty_end.path) as link:
        assert link.request("ping") == {"ok": True, "right": True}
        codes = [e.code for e in link.protocol_errors]
        assert "BAD_CRC" in codes and "BAD_FRAME" in codes
    peer.check()


def test_partial_frames_across_reads(pty_end: PtyEnd) -> None:
    whole = rsp(1, part="all")
    peer = pty_end.peer([(req(1, "ping"), [whole[:3], whole[3:9], whole[9:-1], whole[-1:]])])
    with open_link(pty_end.path) as link:
        assert link.request("ping", timeout_s=3.0)["part"] == "all"
    peer.check()


def test_stale_partial_frame_is_abandoned(pty_end: PtyEnd) -> None:
    false_start = b"\xa5\x5a\x01\x02\x00\x01\x0f\xa0"  # announces 4000 bytes that never come
    peer = pty_end.peer([(req(1, "ping"), [false_start, b"", rsp(1)])])
    with open_link(pty_end.path) as link:
        link._stale_ns = 10_000_000  # 10 ms
        # Deliver the real reply only after the decoder has given up on the false start.
        assert link.request("ping", timeout_s=3.0) == {"ok": True}
    peer.check()


def test_peer_disconnect_fails_fast_not_timeout(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(req(1, "ping"), b"")], close_at_end=True)
    with open_link(pty_end.path) as link:
        with pytest.raises(DeviceError) as err:
            link.request("ping", timeout_s=30.0)
        assert not isinstance(err.value, DeviceTimeout)
        with pytest.raises(DeviceError, match="down"):
            link.request("ping")
        with pytest.raises(DeviceError):
            link.wait_event("card", 30.0)
    peer.check()


def test_exclusive_open_of_pty(pty_end: PtyEnd) -> None:
    first = SerialTransport(pty_end.path)
    try:
        with pytest.raises(DeviceError, match="cannot open"):
            SerialTransport(pty_end.path)
    finally:
        first.close()
    SerialTransport(pty_end.path).close()  # free again once closed


def test_missing_port_is_device_error() -> None:
    with pytest.raises(DeviceError, match="cannot open"):
        SerialTransport("/dev/serial/by-id/no-such-device")


def test_socket_url_and_disconnect(tcp_end: TcpEnd) -> None:
    peer = tcp_end.peer([(req(1, "ping"), rsp(1, via="tcp")), (req(2, "ping"), b"")], close_at_end=True)
    with open_link(tcp_end.url) as link:
        assert link.request("ping")["via"] == "tcp"
        with pytest.raises(DeviceError) as err:
            link.request("ping", timeout_s=30.0)
        assert not isinstance(err.value, DeviceTimeout)
    peer.check()


def test_loop_url_transport_round_trip() -> None:
    port = SerialTransport("loop://")
    try:
        port.write(HELLO_REQ)
        got = b""
        deadline = time.monotonic() + 2.0
        while len(got) < len(HELLO_REQ) and time.monotonic() < deadline:
            got += port.read()
        assert got == HELLO_REQ
    finally:
        port.close()


def test_close_fails_outstanding_request_and_stops_reader(pty_end: PtyEnd) -> None:
    link = open_link(pty_end.path)
    errors: list[Exception] = []

    def ask() -> None:
        try:
            link.request("ping", timeout_s=30.0)
        except DeviceError as exc:
            errors.append(exc)

    asker = threading.Thread(target=ask)
    asker.start()
    deadline = time.monotonic() + 2.0
    while not link.transcript.raw(OUT) and time.monotonic() < deadline:
        time.sleep(0.005)
    link.close()
    asker.join(5.0)
    assert not asker.is_alive()
    assert len(errors) == 1 and "closed" in str(errors[0])
    assert not link._thread.is_alive()
    with pytest.raises(DeviceError, match="closed"):
        link.request("ping")
    link.close()  # idempotent


def test_memory_pair_and_transcript_files(tmp_path: Path) -> None:
    host, device = memory_pair("ctl")
    link = FramedLink(host, name="ctl")
    try:
        reader = threading.Thread(target=lambda: device.write(rsp(1, n=7)) if device.read() or True else None)
        reader.start()
        assert link.request("meters.get", timeout_s=2.0) == {"ok": True, "n": 7}
        reader.join(2.0)
    finally:
        link.close()
        device.close()
    lines = link.transcript.tail(10)
    assert lines[0].endswith('> REQ seq=1 meters.get {"cmd":"meters.get"}')
    assert " ms < RSP seq=1 " in lines[1]
    assert lines[0].startswith("+")
    path = link.transcript.write(tmp_path / "ctl.jsonl")
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    assert rows[0]["device"] == "ctl"
    want = {"t_ns": rows[1]["t_ns"], "dir": ">", "kind": "bytes", "hex": req(1, "meters.get").hex()}
    assert rows[1] == want
    assert rows[2]["kind"] == "frame" and rows[2]["payload"] == {"cmd": "meters.get"}
    assert all(row["t_ns"] >= rows[0]["t0_ns"] for row in rows[1:])


def test_call_many_sends_back_to_back_and_matches_answers_by_seq() -> None:
    """Three requests go out before any answer; answers arriving in reverse order still land on
    their own request, and a NAK is returned as that request's error, not raised for all."""
    host, device = memory_pair("sensors")
    link = FramedLink(host, name="sensors")
    got: list[bytes] = []

    def peer() -> None:
        want = b"".join(req(n, "wager.place", seat=n) for n in (1, 2, 3))
        deadline = time.monotonic() + 2.0
        buf = b""
        while len(buf) < len(want) and time.monotonic() < deadline:
            buf += device.read()
        got.append(buf)
        device.write(rsp(3, accepted=False) + encode_frame(NAK, 2, {"code": "BAD_ARGS", "reason": "seat"})
                     + rsp(1, accepted=True))

    t = threading.Thread(target=peer)
    t.start()
    try:
        out = link.call_many([("wager.place", {"seat": n}) for n in (1, 2, 3)], timeout_s=2.0)
    finally:
        t.join(3.0)
        link.close()
        device.close()
    assert got == [b"".join(req(n, "wager.place", seat=n) for n in (1, 2, 3))]
    assert isinstance(out[0], Reply) and out[0].payload == {"ok": True, "accepted": True}
    assert isinstance(out[1], DeviceNak) and out[1].code == "BAD_ARGS"
    assert isinstance(out[2], Reply) and out[2].payload == {"ok": True, "accepted": False}


def corrupted(frame: bytes) -> bytes:
    return frame[:-1] + bytes([frame[-1] ^ 0xFF])


NAK_CRC = encode_frame(NAK, 0, {"code": "BAD_CRC", "reason": "crc"})
NAK_NOISE = encode_frame(NAK, 0, {"code": "BAD_FRAME", "reason": "31 byte(s) outside any frame"})


def test_a_corrupted_request_goes_out_with_its_crc_broken_and_its_nak_fails_nothing(pty_end: PtyEnd) -> None:
    # docs/protocol.md section 2: the receiver drops a frame whose CRC fails and may answer NAK BAD_CRC, SEQ 0;
    # a ping brings the line back in step, and the request after it is answered as any other
    peer = pty_end.peer([(corrupted(req(1, "lockout.press")), NAK_CRC), (req(2, "ping"), rsp(2)),
                         (req(3, "meters.get"), rsp(3, after=True))])
    with open_link(pty_end.path) as link:
        assert link.send_corrupted("lockout.press", timeout_s=2.0) == [("BAD_CRC", 0)]
        assert link.request("meters.get", timeout_s=2.0) == {"ok": True, "after": True}
    peer.check()
    assert link.transcript.raw(OUT) == corrupted(req(1, "lockout.press")) + req(2, "ping") + req(3, "meters.get")


def test_the_rest_of_a_corrupted_frame_reported_as_noise_is_taken_by_a_ping(pty_end: PtyEnd) -> None:
    # the bytes after the dropped SOF are garbage to the receiver, reported (NAK BAD_FRAME, SEQ 0) as the next
    # frame comes: that NAK fails the ping, which is asked again
    peer = pty_end.peer([(corrupted(req(1, "lockout.press")), NAK_CRC), (req(2, "ping"), NAK_NOISE),
                         (req(3, "ping"), rsp(3))])
    with open_link(pty_end.path) as link:
        assert link.send_corrupted("lockout.press", timeout_s=2.0) == [("BAD_CRC", 0), ("BAD_FRAME", None)]
    peer.check()


def test_a_corrupted_request_no_device_answers_waits_only_its_deadline(pty_end: PtyEnd) -> None:
    peer = pty_end.peer([(corrupted(req(1, "shoe.status")), b""), (req(2, "ping"), rsp(2))])
    with open_link(pty_end.path) as link:
        start = time.monotonic()
        assert link.send_corrupted("shoe.status", timeout_s=0.2) == []
        assert 0.2 <= time.monotonic() - start < 5.0
    peer.check()


def malformed(seq: int, body: bytes = b'{"cmd":"ping","x":1.5}', type_: int = REQ, ver: int = 1) -> bytes:
    """A frame with a good CRC around ``body`` as it stands (docs/protocol.md section 2: BAD_FRAME or VERSION)."""
    head = struct.pack(">2sBBHH", b"\xa5\x5a", ver, type_, seq, len(body))
    return head + body + crc16(head[2:] + body).to_bytes(2, "big")


@pytest.mark.parametrize(("kind", "frame", "code"), [
    ("duplicate-key", malformed(1, b'{"cmd":"ping","cmd":"ping"}'), "BAD_FRAME"),
    ("not-object", malformed(1, b'["ping"]'), "BAD_FRAME"),
    ("not-utf8", malformed(1, b'{"cmd":"ping","x":"\xff\xfe"}'), "BAD_FRAME"),
    ("unknown-type", malformed(1, b'{"cmd":"ping"}', type_=0x09), "BAD_FRAME"),
    ("version", malformed(1, b'{"cmd":"ping"}', ver=2), "VERSION"),
    ("integral-float", malformed(1, b'{"cmd":"ping","x":1000.0}'), "BAD_FRAME"),
])
def test_each_kind_of_malformed_frame_goes_out_as_section_2_names_it(pty_end: PtyEnd, kind: str, frame: bytes,
                                                                      code: str) -> None:
    # docs/protocol.md section 2: "A frame with a good CRC and a bad VER is a VERSION error; an unknown TYPE, a
    # payload that is not UTF-8 JSON, not an object, contains a float or a duplicate key is a BAD_FRAME error"
    peer = pty_end.peer([(frame, encode_frame(NAK, 1, {"code": code, "reason": kind})), (req(2, "ping"), rsp(2))])
    with open_link(pty_end.path) as link:
        assert link.send_malformed(timeout_s=2.0, kind=kind) == (1, [(code, 1)])
    peer.check()
    assert link.transcript.raw(OUT) == frame + req(2, "ping")


def test_a_ping_inside_a_false_frame_goes_out_whole_and_its_answer_is_kept(pty_end: PtyEnd) -> None:
    # docs/protocol.md section 2: on a CRC mismatch the receiver drops only the two SOF bytes, so the ping inside
    # the false frame is read and answered with its SEQ (an answer no outstanding request waits for)
    inner = req(1, "ping")
    head = struct.pack(">2sBBHH", b"\xa5\x5a", 1, REQ, 0, len(inner))
    false = head + inner + (crc16(head[2:] + inner) ^ 0xFFFF).to_bytes(2, "big")
    peer = pty_end.peer([(false, NAK_CRC + rsp(1)), (req(2, "ping"), rsp(2))])
    with open_link(pty_end.path) as link:
        assert link.send_nested(timeout_s=2.0, settle_s=0.2) == (1, [("BAD_CRC", 0), ("ok", 1)])
    peer.check()
    assert link.transcript.raw(OUT) == false + req(2, "ping")


def test_a_ping_whose_last_byte_comes_late_goes_out_whole_and_its_answer_is_kept(pty_end: PtyEnd) -> None:
    # docs/protocol.md section 2: a partial frame is abandoned only after a silence of 250 ms (host) / 500 ms
    # (emulator); a ping whose last byte comes 0.1 s after the others is a whole frame, answered with its SEQ
    peer = pty_end.peer([(req(1, "ping"), rsp(1)), (req(2, "ping"), rsp(2))])
    with open_link(pty_end.path) as link:
        assert link.send_late_byte(0.1, timeout_s=2.0) == (1, [("ok", 1)])
    peer.check()
    assert link.transcript.raw(OUT) == req(1, "ping") + req(2, "ping")


def test_a_ping_sent_in_pieces_goes_out_whole_and_a_full_length_one_too(pty_end: PtyEnd) -> None:
    # docs/protocol.md section 2: a byte stream has no message boundaries; the receiver "scans for A5 5A" and
    # "waits for the whole frame", and LEN is 0..4096: each is a whole frame, answered with its SEQ
    full = b'{"cmd":"ping"' + b" " * 4082 + b"}"
    head = struct.pack(">2sBBHH", b"\xa5\x5a", 1, REQ, 3, len(full))
    full_frame = head + full + crc16(head[2:] + full).to_bytes(2, "big")
    peer = pty_end.peer([(req(1, "ping"), rsp(1)), (req(2, "ping"), rsp(2)), (full_frame, rsp(3)),
                         (req(4, "ping"), rsp(4))])
    with open_link(pty_end.path) as link:
        start = time.monotonic()
        assert link.send_in_pieces(0.05, (1, 5), timeout_s=2.0) == (1, [("ok", 1)])
        assert time.monotonic() - start >= 0.1  # two silences, one at each cut
        assert link.send_in_pieces(0.0, (), body=FULL_LENGTH, timeout_s=2.0) == (3, [("ok", 3)])
    peer.check()
    assert len(FULL_LENGTH) == 4096
    assert link.transcript.raw(OUT) == req(1, "ping") + req(2, "ping") + full_frame + req(4, "ping")


def test_a_stalled_partial_frame_is_followed_by_silence_then_a_ping(pty_end: PtyEnd) -> None:
    # docs/protocol.md section 2: a partial frame that receives no byte for 500 ms is abandoned; the device's NAK
    # for it (SEQ 0) is kept, and the ping after the silence must be answered
    partial = struct.pack(">2sBBHH", b"\xa5\x5a", 1, REQ, 1, 4000) + b'{"cmd":"ping","x":"'
    peer = pty_end.peer([(partial, encode_frame(NAK, 0, {"code": "BAD_FRAME", "reason": "abandoned"})),
                         (req(2, "ping"), rsp(2))])
    with open_link(pty_end.path) as link:
        start = time.monotonic()
        assert link.send_stalled(0.3, timeout_s=2.0) == [("BAD_FRAME", 0)]
        assert time.monotonic() - start >= 0.3  # the silence is kept even when the NAK comes sooner
    peer.check()
    assert link.transcript.raw(OUT) == partial + req(2, "ping")


def test_a_stalled_line_raises_a_timeout_for_the_ping(pty_end: PtyEnd) -> None:
    partial = struct.pack(">2sBBHH", b"\xa5\x5a", 1, REQ, 1, 4000) + b'{"cmd":"ping","x":"'
    peer = pty_end.peer([(partial, b""), (req(2, "ping"), b"")])
    with open_link(pty_end.path) as link, pytest.raises(DeviceTimeout):
        link.send_stalled(0.1, timeout_s=0.3)
    peer.check()


def test_pipelined_requests_go_out_in_one_write_and_a_dropped_one_times_out_alone() -> None:
    host, device = memory_pair("shoe")
    link = FramedLink(host, name="shoe")
    writes: list[bytes] = []
    host_write = host.write
    host.write = lambda data: (writes.append(bytes(data)), host_write(data))[1]  # type: ignore[method-assign]

    def peer() -> None:
        want = req(1, "ping") + req(2, "ping")
        buf, deadline = b"", time.monotonic() + 2.0
        while len(buf) < len(want) and time.monotonic() < deadline:
            buf += device.read()
        device.write(rsp(1))  # the second is never answered

    t = threading.Thread(target=peer)
    t.start()
    try:
        out = link.call_many([("ping", {}), ("ping", {})], timeout_s=0.5, one_write=True)
    finally:
        t.join(3.0)
        link.close()
        device.close()
    assert writes == [req(1, "ping") + req(2, "ping")]
    assert isinstance(out[0], Reply) and isinstance(out[1], DeviceTimeout)


def test_requests_numbered_from_a_given_seq_wrap_to_one(pty_end: PtyEnd) -> None:
    # docs/protocol.md section 4: the host numbers its requests 1, 2, ... 65535, 1, ... (never 0); an answer with
    # a SEQ no request had is kept as unmatched
    peer = pty_end.peer([(req(65535, "ping"), rsp(65535)), (req(1, "ping"), rsp(0)), (req(2, "ping"), rsp(2))])
    with open_link(pty_end.path) as link:
        link.number_from(65535)
        link.call("ping", None, 2.0)
        with pytest.raises(DeviceTimeout):
            link.call("ping", None, 0.3)
        link.call("ping", None, 2.0)
        assert link.unmatched == [("ok", 0)]
        with pytest.raises(ValueError):
            link.number_from(0)
    peer.check()


@pytest.mark.parametrize("nak_seq", [1, 0])
def test_a_malformed_payload_goes_out_with_a_good_crc_and_its_nak_is_kept_with_its_seq(pty_end: PtyEnd,
                                                                                      nak_seq: int) -> None:
    # docs/protocol.md sections 2 and 3: a payload holding a float is a BAD_FRAME error whose SEQ can be trusted;
    # the NAK is returned with the SEQ it came with (the frame's, or 0 from a device that does not trust it: the
    # explorer judges which), and a ping brings the line back in step
    peer = pty_end.peer([(malformed(1), encode_frame(NAK, nak_seq, {"code": "BAD_FRAME", "reason": "float"})),
                         (req(2, "ping"), rsp(2))])
    with open_link(pty_end.path) as link:
        assert link.send_malformed(timeout_s=2.0) == (1, [("BAD_FRAME", nak_seq)])
    peer.check()
    assert link.transcript.raw(OUT) == malformed(1) + req(2, "ping")
