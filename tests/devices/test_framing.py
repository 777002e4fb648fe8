"""Frame encoder/decoder of the reference protocol: exact bytes, resync, limits."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.devices.crc import CRC_CHECK, crc16, crc16_reference
from harness.devices.framing import (
    EVT,
    MAX_PAYLOAD,
    NAK,
    REQ,
    RSP,
    Frame,
    FrameDecoder,
    ProtocolError,
    encode_frame,
    next_seq,
)

# Golden frames, also printed in docs/protocol.md.
HELLO_REQ = bytes.fromhex(
    "a55a 0101 0001 001b"
    "7b22636d64223a2268656c6c6f222c2276657273696f6e223a317d"  # {"cmd":"hello","version":1}
    "7a5a"
)
CARD_EVT = bytes.fromhex(
    "a55a 0104 0007 0022"
    # {"event":"card","card":"KS","n":1}
    "7b226576656e74223a2263617264222c2263617264223a224b53222c226e223a317d"
    "56d3"
)
REFUSED_NAK = bytes.fromhex(
    "a55a 0103 0003 0022"
    # {"code":"REFUSED","reason":"live"}
    "7b22636f6465223a2252454655534544222c22726561736f6e223a226c697665227d"
    "155a"
)


def test_crc_check_value_matches_catalogue() -> None:
    assert crc16(b"123456789") == 0x29B1 == CRC_CHECK
    assert crc16_reference(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


@given(st.binary(max_size=300))
def test_crc_fast_equals_reference(data: bytes) -> None:
    assert crc16(data) == crc16_reference(data)


def test_golden_frames_encode_exactly() -> None:
    assert encode_frame(REQ, 1, {"cmd": "hello", "version": 1}) == HELLO_REQ
    assert encode_frame(EVT, 7, {"event": "card", "card": "KS", "n": 1}) == CARD_EVT
    assert encode_frame(NAK, 3, {"code": "REFUSED", "reason": "live"}) == REFUSED_NAK


def test_golden_frames_decode() -> None:
    out = FrameDecoder().feed(HELLO_REQ + CARD_EVT + REFUSED_NAK)
    assert out == [
        Frame(REQ, 1, {"cmd": "hello", "version": 1}),
        Frame(EVT, 7, {"event": "card", "card": "KS", "n": 1}),
        Frame(NAK, 3, {"code": "REFUSED", "reason": "live"}),
    ]
    assert isinstance(out[0], Frame) and out[0].raw == HELLO_REQ
    assert out[0].type_name == "REQ"


def test_encoding_is_compact_utf8_not_ascii_escaped() -> None:
    raw = encode_frame(RSP, 9, {"ok": True, "location": "Salle privée"})
    assert b'{"ok":true,"location":"Salle priv\xc3\xa9e"}' in raw


def test_float_refused_with_path_in_message() -> None:
    with pytest.raises(TypeError, match=r"payload\.meters\.mega is a float"):
        encode_frame(RSP, 1, {"meters": {"mega": 5000.0}})
    with pytest.raises(TypeError, match=r"payload\.xs\[1\] is a float"):
        encode_frame(RSP, 1, {"xs": [1, 2.5]})


def test_decimal_travels_as_string() -> None:
    raw = encode_frame(RSP, 1, {"rate": Decimal("0.5")})
    assert b'"rate":"0.5"' in raw


def test_encode_rejects_bad_type_seq_and_size() -> None:
    with pytest.raises(ValueError, match="frame type"):
        encode_frame(0x09, 1, {})
    with pytest.raises(ValueError, match="seq"):
        encode_frame(REQ, 65536, {})
    with pytest.raises(ValueError, match="exceeds"):
        encode_frame(REQ, 1, {"x": "a" * MAX_PAYLOAD})
    with pytest.raises(TypeError, match="non-string key"):
        encode_frame(REQ, 1, {"x": {1: 2}})


def test_max_payload_is_accepted_exactly() -> None:
    payload = {"x": "a" * (MAX_PAYLOAD - 8)}  # {"x":"..."} = 8 bytes of overhead
    raw = encode_frame(REQ, 1, payload)
    assert len(raw) == 8 + MAX_PAYLOAD + 2
    assert FrameDecoder().feed(raw) == [Frame(REQ, 1, payload)]


def test_seq_wraps_to_one_never_zero() -> None:
    assert next_seq(1) == 2
    assert next_seq(65534) == 65535
    assert next_seq(65535) == 1


def test_byte_at_a_time() -> None:
    dec = FrameDecoder()
    got: list[Frame | ProtocolError] = []
    for b in HELLO_REQ + CARD_EVT:
        got += dec.feed(bytes([b]))
    assert [f.seq for f in got if isinstance(f, Frame)] == [1, 7]
    assert all(isinstance(f, Frame) for f in got)
    assert dec.pending == 0


def test_partial_frame_waits() -> None:
    dec = FrameDecoder()
    assert dec.feed(HELLO_REQ[:5]) == []
    assert dec.pending == 5
    assert dec.feed(HELLO_REQ[5:-1]) == []
    out = dec.feed(HELLO_REQ[-1:])
    assert len(out) == 1 and isinstance(out[0], Frame)


def test_garbage_before_frame_reported_and_skipped() -> None:
    out = FrameDecoder().feed(b"\x00\xffnoise" + HELLO_REQ)
    assert isinstance(out[0], ProtocolError)
    assert out[0].code == "BAD_FRAME" and out[0].raw == b"\x00\xffnoise" and out[0].seq is None
    assert isinstance(out[1], Frame) and out[1].seq == 1


def test_trailing_half_sof_kept() -> None:
    dec = FrameDecoder()
    out = dec.feed(b"zz" + HELLO_REQ[:1])
    assert [e.raw for e in out if isinstance(e, ProtocolError)] == [b"zz"]
    assert dec.feed(HELLO_REQ[1:]) == [Frame(REQ, 1, {"cmd": "hello", "version": 1})]


def test_bad_crc_resyncs_to_next_frame() -> None:
    bad = bytearray(HELLO_REQ)
    bad[10] ^= 0x01
    out = FrameDecoder().feed(bytes(bad) + CARD_EVT)
    assert isinstance(out[0], ProtocolError) and out[0].code == "BAD_CRC" and out[0].seq is None
    frames = [f for f in out if isinstance(f, Frame)]
    assert frames == [Frame(EVT, 7, {"event": "card", "card": "KS", "n": 1})]


def test_frame_hidden_inside_corrupt_frame_is_found() -> None:
    # A false SOF whose LEN covers the next real frame: the real frame must still decode.
    fake = b"\xa5\x5a\x01\x01\x00\x09" + len(CARD_EVT).to_bytes(2, "big")
    out = FrameDecoder().feed(fake + CARD_EVT + b"\x00\x00" + HELLO_REQ)
    frames = [f for f in out if isinstance(f, Frame)]
    assert [f.seq for f in frames] == [7, 1]
    assert any(isinstance(e, ProtocolError) and e.code == "BAD_CRC" for e in out)


def test_oversized_len_rejected_then_resync() -> None:
    head = b"\xa5\x5a\x01\x02\x00\x05\x10\x01"  # LEN 4097
    out = FrameDecoder().feed(head + HELLO_REQ)
    assert isinstance(out[0], ProtocolError) and "LEN 4097" in out[0].reason
    assert out[-1] == Frame(REQ, 1, {"cmd": "hello", "version": 1})


def _with_body(ftype: int, seq: int, body: bytes, ver: int = 1) -> bytes:
    head = bytes([0xA5, 0x5A, ver, ftype]) + seq.to_bytes(2, "big") + len(body).to_bytes(2, "big")
    return head + body + crc16(head[2:] + body).to_bytes(2, "big")


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"[1,2]", "not an object"),
        (b"{bad", "not JSON"),
        (b'{"a":1.5}', "float"),
        (b'{"a":NaN}', "non-finite"),
        (b'{"a":1,"a":2}', "duplicate key"),
        (b'{"a":"\xff"}', "not UTF-8"),
    ],
)
def test_bad_payload_is_bad_frame_with_trusted_seq(body: bytes, fragment: str) -> None:
    out = FrameDecoder().feed(_with_body(REQ, 42, body) + HELLO_REQ)
    err = out[0]
    assert isinstance(err, ProtocolError)
    assert err.code == "BAD_FRAME" and err.seq == 42 and fragment in err.reason
    assert out[1] == Frame(REQ, 1, {"cmd": "hello", "version": 1})


def test_wrong_version_and_unknown_type() -> None:
    out = FrameDecoder().feed(_with_body(REQ, 5, b"{}", ver=2) + _with_body(0x07, 6, b"{}"))
    assert isinstance(out[0], ProtocolError) and out[0].code == "VERSION" and out[0].seq == 5
    assert isinstance(out[1], ProtocolError) and out[1].code == "BAD_FRAME" and out[1].seq == 6


def test_drop_partial_unsticks_false_sof() -> None:
    dec = FrameDecoder()
    # False SOF announcing 4000 bytes, then a real frame that would be swallowed while waiting.
    out = dec.feed(b"\xa5\x5a\x01\x01\x00\x01\x0f\xa0" + HELLO_REQ)
    assert out == []
    out = dec.drop_partial()
    assert isinstance(out[0], ProtocolError)
    assert Frame(REQ, 1, {"cmd": "hello", "version": 1}) in out
    assert dec.pending == 0
    assert dec.drop_partial() == []


def test_drop_partial_lone_first_sof_byte() -> None:
    dec = FrameDecoder()
    dec.feed(b"\xa5")
    out = dec.drop_partial()
    assert len(out) == 1 and isinstance(out[0], ProtocolError) and dec.pending == 0


_payloads = st.dictionaries(
    st.text(max_size=8),
    st.one_of(st.integers(-(2**40), 2**40), st.text(max_size=20), st.booleans(), st.none()),
    max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([REQ, RSP, NAK, EVT]), st.integers(0, 65535), _payloads), max_size=6),
    st.lists(st.binary(max_size=6).filter(lambda b: b"\xa5" not in b), max_size=7),
    st.data(),
)
def test_any_split_with_clean_garbage_yields_the_same_frames(
    frames: list[tuple[int, int, dict[str, object]]], noise: list[bytes], data: st.DataObject
) -> None:
    stream = b""
    for i, (t, s, p) in enumerate(frames):
        stream += (noise[i] if i < len(noise) else b"") + encode_frame(t, s, p)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    dec = FrameDecoder()
    out: list[Frame | ProtocolError] = []
    prev = 0
    for cut in [*cuts, len(stream)]:
        out += dec.feed(stream[prev:cut])
        prev = cut
    got = [(f.type, f.seq, f.payload) for f in out if isinstance(f, Frame)]
    assert got == frames


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_raise(data: bytes) -> None:
    dec = FrameDecoder()
    for item in dec.feed(data) + dec.drop_partial():
        assert isinstance(item, Frame | ProtocolError)
