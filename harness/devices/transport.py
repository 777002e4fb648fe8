"""Byte transports under the framed link: pyserial by URL, and an in-memory pair.

Why pyserial by URL: one code path serves a USB adapter (``/dev/serial/by-id/...``, a stable name,
never ``/dev/ttyUSBn`` order), a pty behind an emulator's symlink, ``socket://127.0.0.1:PORT``,
``rfc2217://`` and ``loop://``.  Ports are opened ``exclusive=True`` (pyserial takes an
``flock`` on POSIX device paths) so two test workers can never share one device; URL handlers that
have no notion of exclusivity ignore the flag.

``read`` blocks at most ``read_timeout_s`` for the first byte and then takes whatever else is
already waiting, so the caller (the link's reader thread) can stamp the chunk the moment it
returns.  A vanished peer (pty master closed, socket reset) raises ``DeviceError`` instead of
spinning or hanging.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
from typing import Any, Protocol

import serial

from harness.errors import DeviceError

DEFAULT_BAUDRATE = 115200
DEFAULT_READ_TIMEOUT_S = 0.05


def noiseless_url(url: str) -> bool:
    """A line that carries no noise: a socket to this machine (``socket://127.0.0.1:PORT``), a pty (its
    path or the symlink an emulator made to it) or ``loop://``.  A frame failing its check on such a line
    is the sender's; on a cable it may be the cable's (docs/protocol.md section 2)."""
    if url.startswith(("socket://127.0.0.1:", "socket://localhost:", "loop://")):
        return True
    if "://" in url:
        return False
    real = os.path.realpath(url)
    return real.startswith("/dev/pts/") or real == "/dev/ptmx"


class Transport(Protocol):
    """What the framed link needs from a byte pipe."""

    name: str
    #: no noise on this line (:func:`noiseless_url`): a frame that fails its check is the sender's
    noiseless: bool

    def read(self) -> bytes:
        """Bytes that arrived (``b""`` after the read timeout); ``DeviceError`` if the peer is gone."""
        ...

    def write(self, data: bytes) -> None: ...

    def cancel_read(self) -> None:
        """Wake a ``read`` blocked in another thread (best effort)."""
        ...

    def close(self) -> None: ...


class SerialTransport:
    """A pyserial port opened by URL (device path, pty, ``socket://``, ``rfc2217://``, ``loop://``)."""

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = DEFAULT_BAUDRATE,
        read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
        write_timeout_s: float = 1.0,
        exclusive: bool = True,
        **options: Any,
    ) -> None:
        self.name = url
        self.noiseless = noiseless_url(url)
        try:
            self._port = serial.serial_for_url(
                url,
                baudrate=baudrate,
                timeout=read_timeout_s,
                write_timeout=write_timeout_s,
                exclusive=exclusive,
                **options,
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise DeviceError(f"cannot open {url}: {exc}") from exc

        # POSIX device paths and ptys: read the file descriptor directly (one select, one read)
        # instead of pyserial's read(1) + in_waiting + read(n); the URL handlers keep pyserial's.
        self._fd: int | None = None
        self._abort_fd: int | None = None
        self._read_timeout_s = read_timeout_s
        if isinstance(self._port, serial.Serial) and hasattr(self._port, "fd"):
            self._fd = self._port.fd
            self._abort_fd = getattr(self._port, "pipe_abort_read_r", None)

    def _read_fd(self, fd: int) -> bytes:
        watch = [fd] if self._abort_fd is None else [fd, self._abort_fd]
        try:
            ready, _, _ = select.select(watch, [], [], self._read_timeout_s)
            if self._abort_fd is not None and self._abort_fd in ready:
                os.read(self._abort_fd, 1000)
                return b""
            if not ready:
                return b""
            data = os.read(fd, 4096)
        except BlockingIOError:
            return b""
        except (OSError, ValueError, TypeError) as exc:
            raise DeviceError(f"{self.name}: read failed: {exc}") from exc
        if not data:
            raise DeviceError(f"{self.name}: the device went away (end of file)")
        return data

    @property
    def port(self) -> Any:
        """The underlying pyserial object (for diagnostics and tests)."""
        return self._port

    def read(self) -> bytes:
        if self._fd is not None:
            return self._read_fd(self._fd)
        try:
            first = self._port.read(1)
            if not first:
                return b""
            waiting = self._port.in_waiting
            return bytes(first + self._port.read(waiting)) if waiting else bytes(first)
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            # TypeError/AttributeError: pyserial internals after a concurrent close.
            raise DeviceError(f"{self.name}: read failed: {exc}") from exc

    def write(self, data: bytes) -> None:
        try:
            self._port.write(data)
        except serial.SerialTimeoutException as exc:
            raise DeviceError(f"{self.name}: write timed out") from exc
        except (serial.SerialException, OSError) as exc:
            raise DeviceError(f"{self.name}: write failed: {exc}") from exc

    def cancel_read(self) -> None:
        cancel = getattr(self._port, "cancel_read", None)
        if cancel is not None:
            with contextlib.suppress(serial.SerialException, OSError, AttributeError, TypeError):
                cancel()

    def close(self) -> None:
        with contextlib.suppress(serial.SerialException, OSError):
            self._port.close()


_CLOSE = object()  # the peer closed its end
_WAKE = object()  # cancel_read: return b"" now


class MemoryTransport:
    """One end of an in-process byte pipe: the fast path for in-process emulators and unit tests."""

    def __init__(
        self,
        name: str,
        rx: queue.SimpleQueue[object],
        tx: queue.SimpleQueue[object],
        read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
    ) -> None:
        self.name = name
        self.noiseless = True  # an in-process pipe
        self._rx = rx
        self._tx = tx
        self._timeout = read_timeout_s
        self._closed = False
        self._peer_closed = False

    def read(self) -> bytes:
        if self._peer_closed or self._closed:
            raise DeviceError(f"{self.name}: connection closed")
        try:
            item = self._rx.get(timeout=self._timeout)
        except queue.Empty:
            return b""
        parts: list[bytes] = []
        while True:
            if item is _CLOSE:
                if parts:
                    self._rx.put(item)  # report the close on the next read, after these bytes
                    break
                self._peer_closed = True
                raise DeviceError(f"{self.name}: peer closed the connection")
            if isinstance(item, bytes):
                parts.append(item)
            try:
                item = self._rx.get_nowait()
            except queue.Empty:
                break
        return b"".join(parts)

    def write(self, data: bytes) -> None:
        if self._closed:
            raise DeviceError(f"{self.name}: write on a closed transport")
        if self._peer_closed:
            raise DeviceError(f"{self.name}: peer closed the connection")
        self._tx.put(bytes(data))

    def cancel_read(self) -> None:
        self._rx.put(_WAKE)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._tx.put(_CLOSE)
            self._rx.put(_WAKE)


def memory_pair(
    name: str = "memory", read_timeout_s: float = DEFAULT_READ_TIMEOUT_S
) -> tuple[MemoryTransport, MemoryTransport]:
    """Two connected in-memory transports: bytes written on one are read on the other."""
    a_to_b: queue.SimpleQueue[object] = queue.SimpleQueue()
    b_to_a: queue.SimpleQueue[object] = queue.SimpleQueue()
    return (
        MemoryTransport(f"{name}:host", b_to_a, a_to_b, read_timeout_s),
        MemoryTransport(f"{name}:device", a_to_b, b_to_a, read_timeout_s),
    )
