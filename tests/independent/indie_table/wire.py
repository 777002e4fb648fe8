"""Framing of the reference wire protocol (docs/protocol.md, sections 2 and 3), device side.

Written from the protocol document only: SOF A5 5A, VER, TYPE, SEQ u16 BE, LEN u16 BE, JSON payload,
CRC-16/CCITT-FALSE over VER..payload.
"""

from __future__ import annotations

import json
import struct
from decimal import Decimal
from typing import Any

SOF = b"\xa5\x5a"
VER = 1
REQ, RSP, NAK, EVT = 0x01, 0x02, 0x03, 0x04
MAX_LEN = 4096


def crc16(data: bytes) -> int:
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def encode(ftype: int, seq: int, payload: dict[str, Any], corrupt_crc: bool = False, ver: int = VER,
           crc_payload_only: bool = False, len_chars: bool = False) -> bytes:
    """`ver`: the header's VER byte (fault event-frames-ver-0-after-reboot: see server.DeviceLine).
    `crc_payload_only`: fault nak-crc-over-payload-only (the NAK builder computes its CRC over the payload alone).
    `len_chars`: fault len-counts-characters-not-bytes (the header's LEN is the length of the payload text before it
    is encoded, in characters)."""
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    body = text.encode("utf-8")
    head = struct.pack(">BBHH", ver, ftype, seq & 0xFFFF, len(text) if len_chars else len(body))
    crc = crc16(body if crc_payload_only else head + body)
    if corrupt_crc:
        crc ^= 0x5A5A
    return SOF + head + body + struct.pack(">H", crc)


class DroppedPayload(Exception):
    """Fault array-payload-unanswered: the request task faulted on the payload; the frame is dropped unanswered."""


class FrameError(Exception):
    def __init__(self, code: str, seq: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.seq = seq
        self.reason = reason


def _no_dupes(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_float(text: str) -> Any:
    raise ValueError("floating-point number")


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not allowed")


def _whole_float(text: str) -> Any:
    """Fault integral-float-accepted: every number goes into an integer register; only a fraction is refused."""
    number = Decimal(text)
    if number != number.to_integral_value():
        raise ValueError("floating-point number")
    return int(number)


class _Float(float):
    """Fault nested-float-accepted: a number with a fraction or an exponent, as the token reader marks it."""


def _nested_ints(value: Any) -> Any:
    """Fault nested-float-accepted: the nested-object reader stores every number in an integer register when it has
    no fraction; the float check runs on the top-level tokens only."""
    if isinstance(value, dict):
        return {k: _nested_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nested_ints(v) for v in value]
    if isinstance(value, _Float):
        return int(value) if value == int(value) else float(value)
    return value


def _blank_outside_strings(raw: bytes) -> bool:
    """Fault spaced-payload-refused: whether the payload has whitespace between its tokens."""
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in b" \t\r\n":
            return True
    return False


def parse_payload(raw: bytes, duplicates: bool = False, whole_floats: bool = False,
                  latin1: bool = False, compact_only: bool = False, constants: bool = False,
                  trailing: bool = False, arrays_dropped: bool = False, nested_floats: bool = False) -> dict[str, Any]:
    """`duplicates`: fault duplicate-key-accepted (the parser keeps the last value of a repeated key).
    `whole_floats`: fault integral-float-accepted (a number with a decimal point and no fraction is read as an integer).
    `latin1`: fault non-utf8-payload-accepted (the payload is decoded as 8-bit text).
    `compact_only`: fault spaced-payload-refused (the firmware's token reader knows compact JSON only: whitespace
    between tokens is an unexpected character).
    `constants`: fault nan-constant-accepted (the reader's hook for NaN and Infinity is not installed: they are read as
    numbers).
    `trailing`: fault trailing-bytes-after-object-ignored (the reader stops at the object's closing brace).
    `arrays_dropped`: fault array-payload-unanswered (a payload that is not an object faults the request task, which
    drops the frame).
    `nested_floats`: fault nested-float-accepted (see _nested_ints)."""
    if compact_only and _blank_outside_strings(raw):
        raise ValueError("unexpected character")
    text = raw.decode("latin-1" if latin1 else "utf-8")
    pairs = dict if duplicates else _no_dupes
    floats = _whole_float if whole_floats else _no_float
    if nested_floats:
        floats = _Float
    if constants or trailing:
        reader = json.JSONDecoder(object_pairs_hook=pairs, parse_float=floats,
                                  parse_constant=None if constants else _no_constant)
        obj = reader.raw_decode(text)[0] if trailing else reader.decode(text)
    else:
        obj = json.loads(text, object_pairs_hook=pairs, parse_float=floats, parse_constant=_no_constant)
    if not isinstance(obj, dict):
        if arrays_dropped:
            raise DroppedPayload("payload.get: not an object")
        raise ValueError("payload is not an object")
    if nested_floats:
        if any(isinstance(v, _Float) for v in obj.values()):
            raise ValueError("floating-point number")
        obj = _nested_ints(obj)
    return obj


class Decoder:
    """Incremental receiver: feed bytes, get (type, seq, payload) or FrameError items."""

    def __init__(self, faults: frozenset[str] = frozenset()) -> None:
        self.buf = bytearray()
        # fault duplicate-key-accepted: the payload parser's duplicate-key hook is not installed
        self.duplicates = "duplicate-key-accepted" in faults
        # fault frame-version-ignored: the header's VER byte is not compared
        self.any_version = "frame-version-ignored" in faults
        # fault bad-crc-nak-carries-header-seq: the CRC error is reported with the SEQ read from the header
        self.crc_seq = "bad-crc-nak-carries-header-seq" in faults
        # fault oversized-frame-accepted: the LEN check compares with the field's own range, not with 4096
        self.max_len = 0xFFFF if "oversized-frame-accepted" in faults else MAX_LEN
        # fault bad-crc-drops-whole-frame: a frame failing its CRC is skipped as the header announced it
        self.drop_whole = "bad-crc-drops-whole-frame" in faults
        # fault frame-type-high-bits-ignored: the TYPE byte is masked to its low four bits
        self.type_nibble = "frame-type-high-bits-ignored" in faults
        # fault integral-float-accepted / non-utf8-payload-accepted: see parse_payload
        self.whole_floats = "integral-float-accepted" in faults
        self.latin1 = "non-utf8-payload-accepted" in faults
        # fault frame-complete-one-byte-early: the completeness test counts the CRC as one byte
        self.short = 1 if "frame-complete-one-byte-early" in faults else 0
        # fault frame-after-garbage-dropped: the resync skips the SOF it found after garbage with the garbage
        self.garbage_eats_sof = "frame-after-garbage-dropped" in faults
        # fault sof-split-across-reads-lost: a read with no SOF in it is dropped whole, a trailing A5 with it
        self.no_tail = "sof-split-across-reads-lost" in faults
        # fault frame-len-4096-dropped: the LEN check is "LEN < 4096"
        if "frame-len-4096-dropped" in faults:
            self.max_len = MAX_LEN - 1
        # fault spaced-payload-refused: see parse_payload
        self.compact_only = "spaced-payload-refused" in faults
        # fault empty-payload-kills-line: the payload check reads the payload's first byte for "{" before it looks at
        # LEN; with LEN 0 that read faults and takes the receive task down with it
        self.empty_kills = "empty-payload-kills-line" in faults
        # fault oversized-header-flushes-buffer: the "LEN above 4096" branch empties the receive buffer instead of
        # dropping the two SOF bytes
        self.oversized_flush = "oversized-header-flushes-buffer" in faults
        # fault crc-check-covers-255-bytes: the CRC loop counts the payload bytes in one byte
        self.crc_u8 = "crc-check-covers-255-bytes" in faults
        # faults nan-constant-accepted, trailing-bytes-after-object-ignored, array-payload-unanswered: see parse_payload
        self.constants = "nan-constant-accepted" in faults
        self.trailing = "trailing-bytes-after-object-ignored" in faults
        self.arrays_dropped = "array-payload-unanswered" in faults
        # fault nested-float-accepted: see parse_payload
        self.nested_floats = "nested-float-accepted" in faults

    def feed(self, data: bytes) -> list[tuple[int, int, dict[str, Any]] | FrameError]:
        self.buf += data
        out: list[tuple[int, int, dict[str, Any]] | FrameError] = []
        while True:
            start = self.buf.find(SOF)
            if start < 0:
                # keep a trailing A5 that may begin a SOF
                self.buf = self.buf[-1:] if self.buf[-1:] == b"\xa5" and not self.no_tail else bytearray()
                return out
            if start and self.garbage_eats_sof:
                del self.buf[:start + 2]
                continue
            if start:
                del self.buf[:start]
            if len(self.buf) < 8:
                return out
            ver, ftype, seq, length = struct.unpack(">BBHH", bytes(self.buf[2:8]))
            if length > self.max_len:
                if self.oversized_flush:
                    self.buf.clear()
                    return out
                del self.buf[:2]
                continue
            total = 8 + length + 2
            if len(self.buf) < total - self.short:
                return out
            frame = bytes(self.buf[:total])
            (crc,) = struct.unpack(">H", frame[-2:])
            checked = frame[2:-2]
            if self.crc_u8:
                checked = frame[2:8] + frame[8:8 + (length & 0xFF)]  # fault crc-check-covers-255-bytes
            if crc16(checked) != crc:
                del self.buf[:total if self.drop_whole else 2]
                out.append(FrameError("BAD_CRC", seq if self.crc_seq else 0, "bad CRC"))
                continue
            del self.buf[:total]
            if ver != VER and not self.any_version:
                out.append(FrameError("VERSION", seq, f"frame version {ver}; this device speaks 1"))
                continue
            if self.type_nibble:
                ftype &= 0x0F
            if ftype not in (REQ, RSP, NAK, EVT):
                out.append(FrameError("BAD_FRAME", seq, f"unknown frame type {ftype}"))
                continue
            if self.empty_kills and length == 0:
                raise IndexError("payload[0]: the payload is empty")
            try:
                payload = parse_payload(frame[8:-2], self.duplicates, self.whole_floats, self.latin1,
                                        self.compact_only, self.constants, self.trailing, self.arrays_dropped,
                                        self.nested_floats)
            except DroppedPayload:
                continue  # fault array-payload-unanswered: the frame is dropped, nothing is answered
            except (ValueError, UnicodeDecodeError) as exc:
                out.append(FrameError("BAD_FRAME", seq, f"bad payload: {exc}"))
                continue
            out.append((ftype, seq, payload))

    def abandon(self) -> None:
        """A partial frame that went quiet: drop its SOF and rescan (section 2)."""
        if self.buf.startswith(SOF):
            del self.buf[:2]
        self.feed(b"")
