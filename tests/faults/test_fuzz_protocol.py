"""Property-based fuzzing of the frame decoder and the reference drivers (issue 6, "Fuzzing").

tests/devices/test_framing.py already checks that random bytes never raise and that clean frames
survive any split; this file adds what a hostile or broken line does: mutated and truncated frames,
CRC-valid frames with arbitrary bodies, oversized LEN fields and long floods (the decoder's buffer
stays bounded and it recovers the next good frame), and a fake device on a socketpair answering the
drivers' requests with noise, truncated, oversized, mis-numbered or ill-typed frames: every driver
call ends in a result or a clean ``DeviceError`` (a ``ProtocolError``, ``DeviceNak`` or
``DeviceTimeout`` among them) within its deadline, never another exception and never a hang.
"""

from __future__ import annotations

import contextlib
import random
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.devices.crc import crc16
from harness.devices.drivers.reference import ReferenceController, ReferenceSensors, ReferenceShoe
from harness.devices.framing import (
    CRC_LEN,
    EVT,
    HEADER,
    HEADER_LEN,
    MAX_PAYLOAD,
    NAK,
    REQ,
    RSP,
    SOF,
    VERSION,
    Frame,
    FrameDecoder,
    ProtocolError,
    encode_frame,
)
from harness.devices.link import FramedLink
from harness.errors import DeviceError

MAX_FRAME = HEADER_LEN + MAX_PAYLOAD + CRC_LEN
HANG_BOUND_S = 10.0  # a call that has not returned by then is hung (request deadlines are 0.1 s)

_json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.text(max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
_payloads = st.dictionaries(st.text(max_size=10), _json_values, max_size=6)
#: scalar fields the drivers read, so ill-typed values reach their parsers, not just unknown keys
_SCALARS = ("ok", "state", "cards_dealt", "cards_remaining", "accepted", "reason", "denomination", "locked",
            "round", "amount", "protocol", "role", "manufacturer", "model", "serial", "card", "n", "event",
            "cumulative_paid", "paid_by_table", "paid_by_attendant")
_fields = st.dictionaries(st.sampled_from(_SCALARS) | st.text(max_size=6), _json_values, max_size=10)


def _raw_frame(ver: int, ftype: int, seq: int, body: bytes) -> bytes:
    """A frame with a correct CRC around any header values and any body bytes."""
    head = HEADER.pack(SOF, ver, ftype, seq, len(body))
    return head + body + crc16(head[2:] + body).to_bytes(2, "big")


def _drain(dec: FrameDecoder, chunks: list[bytes]) -> list[Frame | ProtocolError]:
    out: list[Frame | ProtocolError] = []
    for chunk in chunks:
        out += dec.feed(chunk)
        assert dec.pending <= MAX_FRAME  # the buffer never grows past one maximal frame
    return out + dec.drop_partial()


# ------------------------------------------------------------------------------ the decoder


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 255), st.integers(0, 255), st.integers(0, 65535), st.binary(max_size=300))
def test_crc_valid_frames_with_any_header_and_body_decode_or_fail_cleanly(
    ver: int, ftype: int, seq: int, body: bytes
) -> None:
    out = _drain(FrameDecoder(), [_raw_frame(ver, ftype, seq, body)])
    assert len(out) == 1
    item = out[0]
    if isinstance(item, Frame):
        assert (ver, item.type, item.seq) == (VERSION, ftype, seq) and isinstance(item.payload, dict)
    else:
        assert isinstance(item, ProtocolError) and item.code in ("BAD_FRAME", "VERSION")
        assert item.seq == seq  # the CRC held, so the header is trusted and a NAK can echo the SEQ


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([REQ, RSP, NAK, EVT]), st.integers(1, 65535), _payloads,
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=4),
    st.integers(0, 10_000),
)
def test_mutated_or_truncated_frame_then_a_good_frame_is_recovered(
    ftype: int, seq: int, payload: dict[str, Any], flips: list[tuple[int, int]], cut: int
) -> None:
    bad = bytearray(encode_frame(ftype, seq, payload))
    for pos, value in flips:
        bad[pos % len(bad)] = value
    bad = bad[: max(1, cut % (len(bad) + 1))]
    good = encode_frame(RSP, 7, {"ok": True, "marker": "after"})
    dec = FrameDecoder()
    out = _drain(dec, [bytes(bad)])  # the damage, then the line goes quiet: the partial is given up
    out += _drain(dec, [good])
    assert all(isinstance(i, Frame | ProtocolError) for i in out)
    frames = [i for i in out if isinstance(i, Frame)]
    assert frames and frames[-1].payload == {"ok": True, "marker": "after"}
    assert dec.pending == 0


@settings(max_examples=100, deadline=None)
@given(st.integers(MAX_PAYLOAD + 1, 65535), st.binary(min_size=0, max_size=2000), st.integers(1, 9))
def test_oversized_len_is_rejected_without_buffering_the_flood(length: int, tail: bytes, parts: int) -> None:
    flood = HEADER.pack(SOF, VERSION, RSP, 5, length) + tail
    good = encode_frame(EVT, 9, {"event": "card", "card": "KS", "n": 1})
    step = max(1, len(flood) // parts)
    out = _drain(FrameDecoder(), [flood[i:i + step] for i in range(0, len(flood), step)] + [good])
    errors = [i for i in out if isinstance(i, ProtocolError)]
    assert errors and errors[0].code == "BAD_FRAME" and "exceeds" in errors[0].reason
    assert [i.payload for i in out if isinstance(i, Frame)][-1:] == [{"event": "card", "card": "KS", "n": 1}]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(20_000, 60_000), st.integers(1, 4096))
def test_long_random_flood_keeps_the_buffer_bounded(seed: int, size: int, chunk: int) -> None:
    noise = random.Random(seed).randbytes(size)
    chunks = [noise[i:i + chunk] for i in range(0, len(noise), chunk)]
    out = _drain(FrameDecoder(), chunks)
    assert all(isinstance(i, Frame | ProtocolError) for i in out)


# ------------------------------------------------------------------------------ the drivers


class SocketTransport:
    """The link's transport over one end of a socketpair (the other end is the fake device)."""

    def __init__(self, sock: socket.socket) -> None:
        self.name = "fuzz"
        self.noiseless = True  # a socketpair
        self.sock = sock
        sock.settimeout(0.02)

    def read(self) -> bytes:
        try:
            data = self.sock.recv(4096)
        except TimeoutError:
            return b""
        except OSError as exc:
            raise DeviceError(f"fuzz: read failed: {exc}") from exc
        if not data:
            raise DeviceError("fuzz: the device went away")
        return data

    def write(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError as exc:
            raise DeviceError(f"fuzz: write failed: {exc}") from exc

    def cancel_read(self) -> None:
        return None

    def close(self) -> None:
        self.sock.close()


# what the fake device sends back for one request (given the request's SEQ)
Reply = Callable[[int], bytes]

_answers: st.SearchStrategy[Reply] = st.one_of(
    st.binary(max_size=64).map(lambda junk: lambda seq: junk),  # line noise
    st.tuples(_payloads, st.integers(0, 40)).map(  # a truncated answer
        lambda p: lambda seq: encode_frame(RSP, seq, {"ok": True, **p[0]})[: p[1]]),
    st.integers(MAX_PAYLOAD + 1, 65535).map(  # an oversized LEN and a flood behind it
        lambda n: lambda seq: HEADER.pack(SOF, VERSION, RSP, seq, n) + b"\x00" * 300),
    _fields.map(lambda p: lambda seq: encode_frame(RSP, seq, {"ok": True, **p})),  # ill-typed fields
    _fields.map(lambda p: lambda seq: encode_frame(RSP, seq, p)),  # maybe without "ok"
    st.tuples(st.text(max_size=10), st.text(max_size=20)).map(  # a NAK of any code
        lambda c: lambda seq: encode_frame(NAK, seq, {"code": c[0], "reason": c[1]})),
    st.just(lambda seq: encode_frame(NAK, 0, {"code": "BAD_FRAME", "reason": "x"})),  # NAK SEQ 0
    st.just(lambda seq: encode_frame(RSP, (seq % 65535) + 1, {"ok": True})),  # another request's SEQ
    st.binary(max_size=200).map(lambda body: lambda seq: _raw_frame(VERSION, RSP, seq, body)),  # CRC-valid junk
    _fields.map(lambda p: lambda seq: encode_frame(EVT, 1, {"event": "card", **p})),  # an event, no answer
)

_CALLS: dict[str, Callable[[Any], Any]] = {
    "shoe.status": lambda d: d["shoe"].status(),
    "shoe.load": lambda d: d["shoe"].load(["KS", "9H"]),
    "shoe.wait_card": lambda d: d["shoe"].wait_card(0.1),
    "sensors.place": lambda d: d["sensors"].place(1, "royal9", 500),
    "sensors.wagers": lambda d: d["sensors"].wagers(),
    "controller.config": lambda d: d["controller"].config(),
    "controller.meters": lambda d: d["controller"].meters(),
    "controller.lockout_state": lambda d: d["controller"].lockout_state(),
    "controller.open_round": lambda d: d["controller"].open_round(),
    "controller.reset_key": lambda d: d["controller"].reset_key("mega"),
    "controller.identity": lambda d: d["controller"].identity(),
    "controller.hello": lambda d: d["controller"].hello(),
}


class FakeDevice:
    """Answers each request it decodes with the next scripted reply, then stays silent."""

    def __init__(self, sock: socket.socket, replies: list[Reply]) -> None:
        self.sock = sock
        self.replies = list(replies)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        dec = FrameDecoder()
        self.sock.settimeout(0.02)
        while not self.stop.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            if not data:
                return
            for item in dec.feed(data):
                if isinstance(item, Frame) and item.type == REQ and self.replies:
                    try:
                        self.sock.sendall(self.replies.pop(0)(item.seq))
                    except OSError:
                        return


@contextmanager
def fake_rig(replies: list[Reply]) -> Iterator[dict[str, Any]]:
    """Drivers on one link to a fake device; closed (threads joined) when the example ends."""
    host, dev = socket.socketpair()
    link = FramedLink(SocketTransport(host), name="fuzz", stale_partial_s=0.05)
    fake = FakeDevice(dev, replies)
    try:
        yield {
            "shoe": ReferenceShoe(link, timeout_s=0.1, hello=False),
            "sensors": ReferenceSensors(link, timeout_s=0.1, hello=False),
            "controller": ReferenceController(link, timeout_s=0.1, hello=False),
        }
    finally:
        fake.stop.set()
        link.close()
        fake.thread.join(2)
        dev.close()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(_CALLS)), st.lists(_answers, min_size=1, max_size=3))
def test_driver_calls_end_in_a_result_or_a_clean_device_error(call: str, replies: list[Reply]) -> None:
    outcome: list[BaseException | str] = []
    with fake_rig(replies) as drivers:

        def attempt() -> None:
            try:
                _CALLS[call](drivers)
                outcome.append("result")
            except BaseException as exc:
                outcome.append(exc)

        worker = threading.Thread(target=attempt, daemon=True)
        worker.start()
        worker.join(HANG_BOUND_S)
        assert not worker.is_alive(), f"{call} hung"
    got = outcome[0]
    assert got == "result" or isinstance(got, DeviceError), f"{call}: {type(got).__name__}: {got}"


@pytest.mark.parametrize(("call", "payload"), [
    ("controller.config", {"denomination": 500, "seats": [1]}),
    ("controller.config", {"denomination": 500, "seats": 5}),
    ("controller.meters", {"meters": [1]}),
    ("sensors.wagers", {"wagers": [1]}),
], ids=["config-seat-not-object", "config-seats-not-list", "meters-not-object", "wager-not-object"])
def test_ill_typed_nested_field_is_a_device_error(call: str, payload: dict[str, Any]) -> None:
    reply = encode_frame(RSP, 1, {"ok": True, **payload})
    with fake_rig([lambda seq: reply]) as drivers, contextlib.suppress(DeviceError):
        _CALLS[call](drivers)
