"""Hands at an emulated table: a client of the emulator's physical side (harness.emulators.physical).

One JSON line out, one JSON line back, over 127.0.0.1, each exchange on a deadline.  The scripted
operator (harness.bench.scripted) and the tests use it to do at the emulated table what a person
does at a real one.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from typing import Any

from harness.errors import DeviceError, DeviceTimeout


class TableRefused(Exception):
    """The table could not take the act (no such betting area, an empty shoe) or showed a message."""


class Hands:
    def __init__(self, address: str, timeout_s: float = 5.0) -> None:
        host, _, port = address.rpartition(":")
        if host != "127.0.0.1":
            raise DeviceError(f"the physical side listens on 127.0.0.1 only, not {address}")
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        try:
            self._sock = socket.create_connection((host, int(port)), timeout=timeout_s)
        except OSError as exc:
            raise DeviceError(f"cannot reach the emulator's physical side at {address}: {exc}") from exc
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buf = b""

    def act(self, act: str, **args: Any) -> dict[str, Any]:
        """Do ``act`` at the table; the table's answer (``TableRefused`` when it cannot)."""
        line = json.dumps({"act": act, **args}, separators=(",", ":")).encode() + b"\n"
        deadline = time.monotonic() + self.timeout_s
        with self._lock:
            try:
                self._sock.sendall(line)
                while b"\n" not in self._buf:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise DeviceTimeout(f"the emulator's physical side did not answer {act} "
                                            f"within {self.timeout_s} s")
                    self._sock.settimeout(left)
                    chunk = self._sock.recv(65536)
                    if not chunk:
                        raise DeviceError("the emulator's physical side closed the connection")
                    self._buf += chunk
            except TimeoutError:
                raise DeviceTimeout(f"the emulator's physical side did not answer {act}") from None
            except OSError as exc:
                raise DeviceError(f"the emulator's physical side: {exc}") from exc
            raw, _, self._buf = self._buf.partition(b"\n")
        answer: dict[str, Any] = json.loads(raw)
        if not answer.get("ok"):
            raise TableRefused(str(answer.get("error", "the table refused")))
        return answer

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()
