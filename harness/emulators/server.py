"""The emulator server: one table's devices on ptys or loopback TCP, instruments on loopback TCP.

One process, one selector loop (plus the table's clock thread).  Each device (shoe, sensors,
controller) is its own line: with ``listen="pty"`` a pseudo-terminal in raw mode whose slave
path is published behind a stable symlink ``<run_dir>/<role>`` (what a profile names, like
``/dev/serial/by-id/...`` on hardware); with ``listen="tcp"`` a ``127.0.0.1`` socket
(``socket://127.0.0.1:PORT`` for pyserial; a new connection replaces the previous one).  The
counter and the power supply always listen on ``127.0.0.1`` TCP for pyvisa-py
(``TCPIP::127.0.0.1::PORT::SOCKET``).  Nothing ever binds another interface.

Frames are the reference protocol (:mod:`harness.devices.framing`): a REQ is answered by RSP or
NAK with its SEQ; a frame that cannot be parsed is answered NAK with SEQ 0 (or the frame's SEQ
when its header was sound); events are EVT with the device's own SEQ.  An unpowered device
answers nothing.  When everything listens, one JSON line of addresses goes to stdout (and to
``<run_dir>/addresses.json``); SIGTERM or SIGINT stops the loop and removes the symlinks.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import selectors
import signal
import socket
import threading
import time
import tty
from pathlib import Path
from typing import Any, Protocol

from harness.devices.crc import crc16
from harness.devices.framing import EVT, NAK, REQ, RSP, Frame, FrameDecoder, ProtocolError, encode_frame, next_seq
from harness.emulators.base import Refusal, remote_refusal
from harness.emulators.config import EmulatorConfig
from harness.emulators.faults import FaultArgs, FaultInjector, LineFaults
from harness.emulators.scpi import Deferred, EmulatedInstrument
from harness.emulators.table import INSTRUMENTS, ROLES, EmulatedTable


class LineServed(Protocol):
    """A line-oriented service: an SCPI instrument or the physical side."""

    def handle_line(self, line: str) -> str | Deferred | None: ...


def _len_in_characters(frame: bytes) -> bytes:
    """Defect len-counts-characters: LEN is the payload text's length in characters, not in bytes (the same
    for ASCII); the CRC as built over the header and the whole payload."""
    body = frame[8:-2]
    head = frame[:6] + len(body.decode("utf-8")).to_bytes(2, "big")
    return head + body + crc16(head[2:] + body).to_bytes(2, "big")


#: defect resync-slow-after-bad-crc: how long the receiver waits after a frame whose CRC failed (s)
RESYNC_SLOW_S = 0.15
#: a partial frame with no byte for this long is abandoned (the decoder resynchronises)
PARTIAL_TIMEOUT_S = 0.5
WRITE_DEADLINE_S = 0.5


class DeviceLine:
    """One device's serial line (pty master or TCP client) with its decoder and event SEQ."""

    def __init__(self, server: EmulatorServer, role: str) -> None:
        self.server = server
        self.role = role
        self.fd: int | None = None  # pty master or connected socket fd
        self.sock: socket.socket | None = None
        self.listener: socket.socket | None = None
        self.slave_fd: int | None = None
        self.decoder = FrameDecoder()
        #: defect resync-slow-after-bad-crc: no frame is taken before this time (time.monotonic())
        self.deaf_until = 0.0
        self.evt_seq = 0
        self.last_rx = 0.0
        self.wlock = threading.Lock()
        self.dropped = 0
        self.faults = LineFaults()  # armed line faults (harness.emulators.faults)
        #: requests kept through a reboot (the defect reboot-queues-requests only)
        self.queued: list[Frame] = []

    def write(self, data: bytes) -> None:
        with self.wlock:
            fd = self.fd
            if fd is None:
                self.dropped += 1
                return
            view = memoryview(data)
            deadline = time.monotonic() + WRITE_DEADLINE_S
            while view:
                try:
                    n = os.write(fd, view)
                    view = view[n:]
                except BlockingIOError:
                    left = deadline - time.monotonic()
                    if left <= 0 or not select.select([], [fd], [], left)[1]:
                        self.dropped += 1
                        return
                except OSError:
                    self.dropped += 1
                    return

    def event(self, payload: dict[str, Any]) -> None:
        with self.wlock:
            self.evt_seq = next_seq(self.evt_seq)
            if "event-seq-one-byte" in self.server.cfg.defects and self.evt_seq > 255:
                self.evt_seq = 1  # defect: the event counter held in one byte, wrapping at 255 to 1
            seq = self.evt_seq
        self.write(self.faults.outgoing(encode_frame(EVT, seq, payload), answer=False))

    def reply(self, frame: bytes) -> None:
        """Send an answer (RSP or NAK), through any armed line fault."""
        if frame[3] == NAK and "nak-crc-over-payload" in self.server.cfg.defects:
            frame = frame[:-2] + crc16(frame[8:-2]).to_bytes(2, "big")  # defect: the CRC skips the header
        if "len-counts-characters" in self.server.cfg.defects:
            frame = _len_in_characters(frame)
        garbled = self.faults.garbage > 0
        self.write(self.faults.outgoing(frame, answer=True))
        if garbled and "garbage-steps-event-seq" in self.server.cfg.defects:
            with self.wlock:  # defect: the noise sent through the event queue, which numbers what it sends
                self.evt_seq = next_seq(self.evt_seq)

    def answer_queued(self) -> None:
        """Back from a reboot: what came while the device was off, answered now (the defect
        reboot-queues-requests; a device as the contract has it kept nothing)."""
        queued, self.queued = self.queued, []
        for item in queued:
            self.answer(item)

    def restart_events(self) -> None:
        """After a power-up the device numbers its events from 1 again (docs/protocol.md, section 4)."""
        with self.wlock:
            self.evt_seq = 0

    def received(self, data: bytes) -> None:
        self.last_rx = time.monotonic()
        for item in self.decoder.feed(data):
            self.answer(item)

    def idle_check(self, now: float) -> None:
        if self.decoder.pending and now - self.last_rx > PARTIAL_TIMEOUT_S:
            for item in self.decoder.drop_partial():
                self.answer(item)

    def answer(self, item: Frame | ProtocolError) -> None:
        table = self.server.table
        if not table.devices[self.role].powered:
            if "reboot-queues-requests" in self.server.cfg.defects and isinstance(item, Frame):
                self.queued.append(item)  # defect: kept, and answered once the device is back
            return
        if isinstance(item, ProtocolError):
            self.reply(encode_frame(NAK, item.seq or 0, {"code": item.code, "reason": item.reason}))
            if item.code == "BAD_CRC" and "resync-slow-after-bad-crc" in self.server.cfg.defects:
                self.deaf_until = time.monotonic() + RESYNC_SLOW_S
            return
        if self.deaf_until > time.monotonic():  # defect: the receiver reads on only once its resync delay is over
            time.sleep(self.deaf_until - time.monotonic())
        if item.type != REQ:
            return
        if self.faults.swallow_request():  # a 'no-answer' fault: the request is lost
            if "lost-request-executed" in table.cfg.defects and item.payload.get("cmd") != "test.fault":
                with contextlib.suppress(Exception):  # defect: executed, only its answer lost
                    table.handle(self.role, item.payload)
            return
        if item.seq == 0:
            self.reply(encode_frame(NAK, 0, {"code": "BAD_FRAME", "reason": "a request SEQ is never 0"}))
            return
        refused = remote_refusal(table.cfg, item.payload.get("cmd"))
        if refused is not None:
            self.reply(encode_frame(NAK, item.seq, refused.to_payload()))
            return
        if item.payload.get("cmd") == "test.fault" and self.server.faults.handles(self.role, item.payload):
            self._line_fault(item)
            return
        try:
            result = table.handle(self.role, item.payload)
        except Exception as exc:  # a device bug must show as a NAK, never kill the table
            result = Refusal("BUSY", f"internal error: {exc!r}")
        if result is None:
            return
        if isinstance(result, Refusal):
            frame = encode_frame(NAK, item.seq, result.to_payload())
        else:
            frame = encode_frame(RSP, item.seq, {"ok": True, **result})
        latency_us = table.cfg.answer_latency_us
        cmd = item.payload.get("cmd")
        if latency_us and not (isinstance(cmd, str) and cmd.startswith("test.")):
            # a device that answers late (docs/protocol.md section 5: within 100 ms): the request took
            # effect on arrival, its answer leaves later; the events it caused are already sent
            table.clock.at(time.perf_counter_ns() + latency_us * 1000, lambda due, fired: self._late_reply(frame))
            return
        self.reply(frame)

    def _late_reply(self, frame: bytes) -> None:
        if self.server.table.devices[self.role].powered:  # an answer due after a power loss is lost with it
            self.reply(frame)

    def _line_fault(self, item: Frame) -> None:
        """``test.fault`` of a line-layer kind: answer intact first, then start the fault."""
        try:
            result, then = self.server.faults.command(self, item.payload)
        except FaultArgs as exc:
            self.write(encode_frame(NAK, item.seq, {"code": "BAD_ARGS", "reason": str(exc)}))
            return
        self.write(encode_frame(RSP, item.seq, {"ok": True, **result}))
        then()


class EmulatorServer:
    """Serve one :class:`EmulatedTable`; see the module docstring."""

    def __init__(self, cfg: EmulatorConfig, listen: str, run_dir: Path) -> None:
        if listen not in ("pty", "tcp"):
            raise ValueError(f"listen {listen!r}: expected 'pty' or 'tcp'")
        self.listen = listen
        self.run_dir = run_dir
        run_dir.mkdir(parents=True, exist_ok=True)
        if cfg.nv_dir is None:
            cfg = cfg.with_changes(nv_dir=run_dir / "nv")
        self.cfg = cfg
        self.lines = {role: DeviceLine(self, role) for role in ROLES}
        self.table = EmulatedTable(cfg, self._emit)
        self.table.on_power_up.append(self._restart_events)
        self.instruments: dict[str, EmulatedInstrument] = {"counter": self.table.counter, "power": self.table.power,
                                                            "switch": self.table.switch}
        self.sel = selectors.DefaultSelector()
        self.addresses: dict[str, Any] = {}
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self.sel.register(self._wake_r, selectors.EVENT_READ, ("wake", None))
        self._inst_clients: dict[int, tuple[socket.socket, LineServed, bytearray]] = {}
        self._symlinks: list[Path] = []
        self.faults = FaultInjector(self)
        self._deferred: list[tuple[socket.socket, Deferred]] = []
        self.table.counter.wake = self.stop_waiting

    def _restart_events(self) -> None:
        for line in self.lines.values():
            line.restart_events()

    def _emit(self, role: str, payload: dict[str, Any]) -> None:
        self.lines[role].event(payload)

    # -- set-up ------------------------------------------------------------------------------
    def open(self) -> dict[str, Any]:
        for role, line in self.lines.items():
            if self.listen == "pty":
                link = self.run_dir / role
                self._open_pty(line, link)
                self._symlinks.append(link)
                self.addresses[role] = str(link)
            else:
                lsock = self._listener()
                line.listener = lsock
                self.sel.register(lsock, selectors.EVENT_READ, ("accept-line", line))
                self.addresses[role] = f"socket://127.0.0.1:{lsock.getsockname()[1]}"
        for name in INSTRUMENTS:
            lsock = self._listener()
            self.sel.register(lsock, selectors.EVENT_READ, ("accept-inst", self.instruments[name]))
            self.addresses[name] = f"TCPIP::127.0.0.1::{lsock.getsockname()[1]}::SOCKET"
        lsock = self._listener()  # the physical side: JSON lines (harness.emulators.physical)
        self.sel.register(lsock, selectors.EVENT_READ, ("accept-inst", self.table.physical))
        self.addresses["physical"] = f"127.0.0.1:{lsock.getsockname()[1]}"
        self.addresses.update(pid=os.getpid(), listen=self.listen, run_dir=str(self.run_dir),
                              nv=str(self.table.nv.path))
        (self.run_dir / "addresses.json").write_text(json.dumps(self.addresses, indent=2) + "\n")
        return self.addresses

    def _open_pty(self, line: DeviceLine, link: Path) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        with line.wlock:
            line.fd, line.slave_fd = master, slave
            line.decoder = FrameDecoder()
        tmp = link.with_name(link.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        tmp.symlink_to(os.ttyname(slave))
        os.replace(tmp, link)  # the published name never dangles
        self.sel.register(master, selectors.EVENT_READ, ("line", line))

    def drop_line(self, line: DeviceLine) -> None:
        """A 'disconnect' fault: the host's end goes away; a pty is replaced by a fresh one."""
        if self.listen == "tcp":
            self._drop_client(line)
            return
        master, slave = line.fd, line.slave_fd
        if master is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.sel.unregister(master)
        self._open_pty(line, self.run_dir / line.role)  # the symlink moves before the old pty goes
        for fd in (master, slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def stop_waiting(self) -> None:
        """Wake the selector loop (a timed fault was scheduled)."""
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"w")

    @staticmethod
    def _listener() -> socket.socket:
        lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind(("127.0.0.1", 0))
        lsock.listen(4)
        lsock.setblocking(False)
        return lsock

    # -- the loop ----------------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def serve_forever(self) -> None:
        while not self._stop.is_set():
            due = self.faults.next_due(time.monotonic())
            longest = 0.005 if self._deferred else 0.1
            for key, _ in self.sel.select(timeout=longest if due is None else min(longest, due)):
                kind, obj = key.data
                if kind == "wake":
                    with contextlib.suppress(BlockingIOError):
                        os.read(self._wake_r, 64)
                elif kind == "line":
                    self._read_line(obj, key.fd)
                elif kind == "accept-line":
                    self._accept_line(obj)
                elif kind == "accept-inst":
                    self._accept_inst(key.fileobj, obj)  # type: ignore[arg-type]
                elif kind == "inst":
                    self._read_inst(key.fd)
            if self._deferred:
                self._answer_deferred()
            now = time.monotonic()
            self.faults.tick(now)
            for line in self.lines.values():
                line.idle_check(now)

    def _read_line(self, line: DeviceLine, fd: int) -> None:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno == errno.EIO:  # pty with no slave open: nobody is connected
                return
            data = b""
        if not data:
            if line.sock is not None:  # TCP peer went away
                self._drop_client(line)
            return
        line.received(data)

    def _accept_line(self, line: DeviceLine) -> None:
        assert line.listener is not None
        try:
            conn, _ = line.listener.accept()
        except BlockingIOError:
            return
        conn.setblocking(False)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if line.sock is not None:
            self._drop_client(line)
        with line.wlock:
            line.sock, line.fd = conn, conn.fileno()
            line.decoder = FrameDecoder()
        self.sel.register(conn, selectors.EVENT_READ, ("line", line))

    def _drop_client(self, line: DeviceLine) -> None:
        with line.wlock:
            sock, line.sock, line.fd = line.sock, None, None
        if sock is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.sel.unregister(sock)
            sock.close()

    def _accept_inst(self, lsock: socket.socket, inst: LineServed) -> None:
        try:
            conn, _ = lsock.accept()
        except BlockingIOError:
            return
        conn.setblocking(False)
        _quick_ack(conn)
        self._inst_clients[conn.fileno()] = (conn, inst, bytearray())
        self.sel.register(conn, selectors.EVENT_READ, ("inst", None))

    def _read_inst(self, fd: int) -> None:
        conn, inst, buf = self._inst_clients[fd]
        try:
            data = conn.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        _quick_ack(conn)
        if not data:
            self.sel.unregister(conn)
            del self._inst_clients[fd]
            conn.close()
            return
        buf += data
        while b"\n" in buf:
            raw, _, rest = bytes(buf).partition(b"\n")
            buf[:] = rest
            answer = inst.handle_line(raw.decode("ascii", "replace").strip("\r"))
            if isinstance(answer, Deferred):
                self._deferred.append((conn, answer))
            elif answer is not None:
                self._send_line(conn, answer)

    @staticmethod
    def _send_line(conn: socket.socket, answer: str) -> None:
        conn.setblocking(True)
        conn.settimeout(WRITE_DEADLINE_S)
        with contextlib.suppress(OSError):
            conn.sendall(answer.encode("ascii") + b"\n")
        conn.setblocking(False)

    def _answer_deferred(self) -> None:
        """Answers that waited for a measurement (a counter's ``FETC?``), once they are known."""
        now = time.perf_counter_ns()
        waiting = []
        for conn, deferred in self._deferred:
            if conn.fileno() < 0:
                continue  # the client went away
            answer = deferred.poll(now)
            if answer is None:
                waiting.append((conn, deferred))
            else:
                self._send_line(conn, answer)
        self._deferred = waiting

    def close(self) -> None:
        self.table.close()
        for key in list(self.sel.get_map().values()):
            with contextlib.suppress(OSError):
                if isinstance(key.fileobj, socket.socket):
                    key.fileobj.close()
                elif key.fd not in (self._wake_r,):
                    os.close(key.fd)
        for line in self.lines.values():
            if line.slave_fd is not None:
                with contextlib.suppress(OSError):
                    os.close(line.slave_fd)
        for link in self._symlinks:
            with contextlib.suppress(FileNotFoundError):
                link.unlink()
        self.sel.close()
        os.close(self._wake_r)
        os.close(self._wake_w)


def serve(cfg: EmulatorConfig, listen: str, run_dir: Path) -> int:
    """Run until SIGTERM/SIGINT: the body of ``python -m harness.emulators``."""
    server = EmulatorServer(cfg, listen, run_dir)
    signal.signal(signal.SIGTERM, lambda *_: server.stop())
    signal.signal(signal.SIGINT, lambda *_: server.stop())
    try:
        addresses = server.open()
        print(json.dumps(addresses), flush=True)
        server.serve_forever()
    finally:
        server.close()
    return 0


def _quick_ack(conn: socket.socket) -> None:
    """Acknowledge what an instrument client sent at once.  A SCPI command with no answer (``INIT``)
    is otherwise acknowledged only by the delayed-ACK timer (about 40 ms on Linux), and the client's
    Nagle algorithm holds its next command (``FETC?``) until then: every round timed by the counter
    would wait for it.  Linux resets the option after each receive, so it is set again each time."""
    quick = getattr(socket, "TCP_QUICKACK", None)
    if quick is not None:
        with contextlib.suppress(OSError):
            conn.setsockopt(socket.IPPROTO_TCP, quick, 1)
