"""CRC-16/CCITT-FALSE, the frame check of the reference protocol (docs/protocol.md, "CRC").

Parameters: width 16, poly 0x1021, init 0xFFFF, no input or output reflection, xorout 0x0000.
Check value: ``crc16(b"123456789") == 0x29B1``.

``binascii.crc_hqx`` implements exactly this non-reflected 0x1021 polynomial in C with a caller
chosen initial value, so the framer does not pay for a Python loop per byte.  A table-driven pure
Python version is kept as ``crc16_reference`` so the tests check the C routine against the
textbook definition rather than against itself.
"""

from __future__ import annotations

import binascii

CRC_INIT = 0xFFFF
CRC_POLY = 0x1021
CRC_CHECK = 0x29B1  # crc16(b"123456789")


def crc16(data: bytes | bytearray | memoryview, init: int = CRC_INIT) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (poly 0x1021, init 0xFFFF, no reflection, xorout 0)."""
    return binascii.crc_hqx(data, init)


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ CRC_POLY) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
        table.append(crc)
    return tuple(table)


_TABLE = _make_table()


def crc16_reference(data: bytes | bytearray | memoryview, init: int = CRC_INIT) -> int:
    """Bit-for-bit textbook CRC-16/CCITT-FALSE, for cross-checking ``crc16`` in tests."""
    crc = init
    for byte in bytes(data):
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc
