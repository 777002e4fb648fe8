"""Scripted peers for driver tests: the exact byte exchange, no hardware (pymeasure's
``expected_protocol`` style).  A peer reads exactly the bytes the script expects from the host,
records any mismatch, then writes the scripted reply."""

from __future__ import annotations

import os
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

# One scripted step: bytes the host must write (b"" = expect nothing), then bytes to answer with.
# A reply may be a list of chunks, written with a short pause in between (partial frames).
Step = tuple[bytes, bytes | list[bytes]]


@dataclass
class ScriptedPeer:
    read: Callable[[float], bytes]
    write: Callable[[bytes], None]
    close: Callable[[], None]
    script: list[Step]
    close_at_end: bool = False
    mismatches: list[str] = field(default_factory=list)
    received: bytearray = field(default_factory=bytearray)
    finished: threading.Event = field(default_factory=threading.Event)

    def start(self) -> ScriptedPeer:
        threading.Thread(target=self._run, daemon=True).start()
        return self

    def _read_exact(self, n: int, timeout_s: float) -> bytes:
        deadline = time.monotonic() + timeout_s
        buf = b""
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            buf += self.read(min(left, 0.05))
        return buf

    def _run(self) -> None:
        try:
            for i, (expected, reply) in enumerate(self.script):
                if expected:
                    got = self._read_exact(len(expected), 3.0)
                    self.received += got
                    if got != expected:
                        self.mismatches.append(f"step {i}: expected {expected.hex(' ')}, got {got.hex(' ')}")
                        return
                chunks = reply if isinstance(reply, list) else [reply]
                for j, chunk in enumerate(chunks):
                    if j:
                        time.sleep(0.02)
                    if chunk:
                        self.write(chunk)
            if self.close_at_end:
                self.close()
        except OSError as exc:
            self.mismatches.append(f"peer I/O error: {exc}")
        finally:
            self.finished.set()

    def check(self, timeout_s: float = 5.0) -> None:
        assert self.finished.wait(timeout_s), "scripted peer did not finish"
        assert self.mismatches == []


@dataclass
class PtyEnd:
    master: int
    path: str
    closed: bool = False

    def read(self, timeout_s: float) -> bytes:
        ready, _, _ = select.select([self.master], [], [], timeout_s)
        if not ready:
            return b""
        try:
            return os.read(self.master, 4096)
        except OSError:  # EIO once the host closed the slave
            return b""

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self.master)

    def peer(self, script: list[Step], *, close_at_end: bool = False) -> ScriptedPeer:
        return ScriptedPeer(self.read, self.write, self.close, script, close_at_end).start()


@dataclass
class TcpEnd:
    listener: socket.socket
    conn: socket.socket | None = None

    @property
    def url(self) -> str:
        host, port = self.listener.getsockname()
        return f"socket://{host}:{port}"

    def _accept(self) -> socket.socket:
        if self.conn is None:
            self.listener.settimeout(3.0)
            self.conn, _ = self.listener.accept()
        return self.conn

    def read(self, timeout_s: float) -> bytes:
        conn = self._accept()
        ready, _, _ = select.select([conn], [], [], timeout_s)
        return conn.recv(4096) if ready else b""

    def write(self, data: bytes) -> None:
        self._accept().sendall(data)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    def peer(self, script: list[Step], *, close_at_end: bool = False) -> ScriptedPeer:
        return ScriptedPeer(self.read, self.write, self.close, script, close_at_end).start()
