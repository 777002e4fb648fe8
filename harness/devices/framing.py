"""Frame encoder and incremental decoder of the reference protocol, version 1 (docs/protocol.md).

Wire format (all integers big-endian)::

    SOF 0xA5 0x5A | VER u8 (=1) | TYPE u8 | SEQ u16 | LEN u16 | PAYLOAD (LEN bytes) | CRC u16

The CRC is CRC-16/CCITT-FALSE over VER..PAYLOAD.  PAYLOAD is a compact UTF-8 JSON object.

Why an own framer: pyserial's ``read_until`` returns partial data on timeout and
``inter_byte_timeout`` does nothing on Linux, so a reader that trusts either can split or glue
frames.  The decoder here is pure (no I/O, no clock): the link feeds it whatever bytes arrived and
gets back complete frames and protocol errors, in wire order.  After anything bad it resynchronises
by scanning for the next SOF *inside* the rejected bytes, so one corrupted byte costs one frame,
never the stream.

Money never travels as a float (integer cents; rates are decimal strings of percent), so the
encoder refuses floats outright and the decoder rejects a payload that contains one.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from harness.devices.crc import crc16
from harness.devices.vocabulary import NAK_CODES as _NAK_CODES
from harness.errors import DeviceError
from harness.jsontree import distinct_keys, json_tree

SOF = b"\xa5\x5a"
VERSION = 1
REQ = 0x01
RSP = 0x02
NAK = 0x03
EVT = 0x04
TYPE_NAMES = {REQ: "REQ", RSP: "RSP", NAK: "NAK", EVT: "EVT"}
MAX_PAYLOAD = 4096
MAX_SEQ = 0xFFFF
HEADER = struct.Struct(">2sBBHH")  # SOF, VER, TYPE, SEQ, LEN
HEADER_LEN = HEADER.size  # 8
CRC_LEN = 2
MIN_FRAME = HEADER_LEN + CRC_LEN

# NAK codes (docs/protocol.md, "NAK codes").  The decoder produces the first three.
BAD_CRC = "BAD_CRC"
BAD_FRAME = "BAD_FRAME"
VERSION_ERROR = "VERSION"
NAK_CODES = tuple(_NAK_CODES)


class ProtocolError(DeviceError):
    """Bytes on the line that are not a valid frame.

    ``code`` is the NAK code a receiver would answer with (``BAD_CRC``, ``BAD_FRAME``,
    ``VERSION``); ``seq`` is the frame's SEQ when its header could be trusted (the CRC was good),
    else ``None`` (a NAK then carries SEQ 0); ``raw`` holds the rejected bytes for the transcript.
    """

    def __init__(self, code: str, reason: str, *, seq: int | None = None, raw: bytes = b"",
                 oversized: bool = False) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason
        self.seq = seq
        self.raw = raw
        #: a header announcing more than the largest LEN (section 2: "a protocol error")
        self.oversized = oversized

    @property
    def whole_frame(self) -> bool:
        """A frame the sender got wrong: its CRC failed (all LEN bytes and the CRC arrived), its CRC was
        good around a bad VER, an unknown TYPE or a payload that is not a JSON object without floats, or
        its header announced more than 4096 bytes ("a protocol error", section 2).  Not bytes outside any
        frame or an incomplete frame abandoned, which a sender cut off by its power may leave."""
        return self.code == BAD_CRC or self.seq is not None or self.oversized

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProtocolError):
            return NotImplemented
        mine = (self.code, self.reason, self.seq, self.raw)
        return mine == (other.code, other.reason, other.seq, other.raw)

    def __hash__(self) -> int:
        return hash((self.code, self.reason, self.seq, self.raw))

    def __repr__(self) -> str:
        return f"ProtocolError({self.code!r}, {self.reason!r}, seq={self.seq!r}, raw={self.raw.hex()!r})"


@dataclass(frozen=True)
class Frame:
    """One decoded frame.  ``raw`` is the exact bytes from SOF to CRC, for the transcript."""

    type: int
    seq: int
    payload: dict[str, Any]
    raw: bytes = field(default=b"", repr=False, compare=False)

    @property
    def type_name(self) -> str:
        return TYPE_NAMES.get(self.type, f"0x{self.type:02X}")


def _scalar(value: Any, where: str) -> Any:
    """A JSON-ready payload scalar; floats are refused (docs/protocol.md, section 2)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        raise TypeError(
            f"{where} is a float ({value!r}); the protocol carries money as integer cents and "
            "rates as decimal strings, never floats"
        )
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"{where} has a value of type {type(value).__name__} that JSON cannot carry")


def encode_payload(payload: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON of a payload object (Decimal becomes its string; floats are refused)."""
    if not isinstance(payload, dict):
        raise TypeError(f"payload must be a JSON object (dict), not {type(payload).__name__}")
    clean = json_tree(payload, "payload", _scalar, lambda at, key: f"{at} has a non-string key {key!r}")
    return json.dumps(clean, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def encode_frame(type: int, seq: int, payload: dict[str, Any]) -> bytes:
    """Encode one frame.  Raises ``ValueError`` for a bad type/seq/size, ``TypeError`` for floats."""
    if type not in TYPE_NAMES:
        raise ValueError(f"unknown frame type 0x{type:02X}")
    if not 0 <= seq <= MAX_SEQ:
        raise ValueError(f"seq {seq} outside 0..65535")
    body = encode_payload(payload)
    if len(body) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(body)} bytes exceeds the {MAX_PAYLOAD}-byte limit")
    head = HEADER.pack(SOF, VERSION, type, seq, len(body))
    crc = crc16(head[2:] + body)
    return head + body + crc.to_bytes(2, "big")


def next_seq(seq: int) -> int:
    """The SEQ after ``seq``: 1..65535 then back to 1 (0 is never used by a sender)."""
    return 1 if seq >= MAX_SEQ else seq + 1


def _reject_float(text: str) -> Any:
    raise ValueError(f"float {text} in payload (money is integer cents, rates are strings)")


def _reject_constant(text: str) -> Any:
    raise ValueError(f"non-finite number {text} in payload")


#: a key given twice makes the payload a BAD_FRAME (docs/protocol.md, section 2)
_no_duplicates = distinct_keys(lambda key: f"duplicate key {key!r} in payload")


def decode_payload(body: bytes) -> dict[str, Any]:
    """Parse a payload; ``ValueError`` if it is not a float-free JSON object without duplicate keys."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"payload is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        value = json.loads(
            text,
            parse_float=_reject_float,
            parse_constant=_reject_constant,
            object_pairs_hook=_no_duplicates,
        )
    except json.JSONDecodeError as exc:
        raise ValueError(f"payload is not JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(value, dict):
        raise ValueError(f"payload is a JSON {type(value).__name__}, not an object")
    return value


class FrameDecoder:
    """Incremental decoder: ``feed`` bytes as they arrive, get frames and errors in wire order.

    A byte sequence that looks like a frame start but never completes (a false SOF in line noise
    announcing a long LEN) would otherwise stall the stream; the link calls ``drop_partial`` when
    no byte has arrived for a while and a partial frame is pending.
    """

    def __init__(self, max_payload: int = MAX_PAYLOAD) -> None:
        self._buf = bytearray()
        self._max_payload = max_payload

    @property
    def pending(self) -> int:
        """Bytes buffered that do not yet form a complete frame."""
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame | ProtocolError]:
        self._buf += data
        return self._drain()

    def drop_partial(self) -> list[ProtocolError | Frame]:
        """Give up on the buffered partial frame: report it and rescan after its first byte."""
        if not self._buf:
            return []
        out: list[Frame | ProtocolError] = []
        if self._buf.startswith(SOF):
            out.append(ProtocolError(BAD_FRAME, "incomplete frame abandoned", raw=bytes(self._buf[:2])))
            del self._buf[:2]
        out.extend(self._drain())
        if self._buf and not self._buf.startswith(SOF):
            # Only a lone trailing 0xA5 can remain here.
            out.append(ProtocolError(BAD_FRAME, "incomplete frame abandoned", raw=bytes(self._buf)))
            self._buf.clear()
        return out

    def _skip_garbage(self, out: list[Frame | ProtocolError]) -> bool:
        """Drop bytes before the next SOF; True if a SOF now starts the buffer."""
        buf = self._buf
        idx = buf.find(SOF)
        if idx == 0:
            return True
        if idx < 0:
            # Keep a trailing first SOF byte: the second may be in the next read.
            keep = 1 if buf[-1:] == SOF[:1] else 0
            cut = len(buf) - keep
            if cut:
                out.append(ProtocolError(BAD_FRAME, f"{cut} byte(s) outside any frame", raw=bytes(buf[:cut])))
                del buf[:cut]
            return False
        out.append(ProtocolError(BAD_FRAME, f"{idx} byte(s) outside any frame", raw=bytes(buf[:idx])))
        del buf[:idx]
        return True

    def _drain(self) -> list[Frame | ProtocolError]:
        out: list[Frame | ProtocolError] = []
        buf = self._buf
        while buf:
            if not self._skip_garbage(out):
                break
            if len(buf) < HEADER_LEN:
                break
            _, ver, ftype, seq, length = HEADER.unpack_from(buf)
            if length > self._max_payload:
                reason = f"LEN {length} exceeds {self._max_payload}"
                out.append(ProtocolError(BAD_FRAME, reason, raw=bytes(buf[:HEADER_LEN]), oversized=True))
                del buf[:2]  # rescan from just after this SOF
                continue
            total = HEADER_LEN + length + CRC_LEN
            if len(buf) < total:
                break
            raw = bytes(buf[:total])
            got = int.from_bytes(raw[-2:], "big")
            want = crc16(raw[2:-2])
            if got != want:
                out.append(ProtocolError(BAD_CRC, f"CRC 0x{got:04X} != 0x{want:04X}", raw=raw))
                del buf[:2]  # a real frame may start inside the bytes we just rejected
                continue
            del buf[:total]
            if ver != VERSION:
                reason = f"frame version {ver}, expected {VERSION}"
                out.append(ProtocolError(VERSION_ERROR, reason, seq=seq, raw=raw))
                continue
            if ftype not in TYPE_NAMES:
                out.append(ProtocolError(BAD_FRAME, f"unknown frame type 0x{ftype:02X}", seq=seq, raw=raw))
                continue
            try:
                payload = decode_payload(raw[HEADER_LEN:-2])
            except ValueError as exc:
                out.append(ProtocolError(BAD_FRAME, str(exc), seq=seq, raw=raw))
                continue
            out.append(Frame(ftype, seq, payload, raw))
        return out
