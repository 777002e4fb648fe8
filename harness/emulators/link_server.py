"""The emulated link controller as a process: the host's line and every table's line on 127.0.0.1.

``python -m harness.emulators.link_server --profile CONFIG.json --run-dir D [--defect NAME]`` serves
one :class:`~harness.emulators.link_controller.EmulatedLinkController` and prints one JSON line of
addresses when it listens: ``host`` (``socket://127.0.0.1:PORT``, what the host's
``reference-link-controller`` driver opens) and ``tables`` (``127.0.0.1:PORT``, where each table
emulator connects, one connection per table).  Both speak the reference protocol's frames
(docs/protocol.md, sections 2-4 and 12): the host and the tables send REQ, the controller answers
RSP or NAK and sends EVT of its own (to the host: ``hit``, ``reset``, ``link``; to a table:
``link.status``), each line with its own event SEQ.

Test channel on the host's line (docs/protocol.md, section 14): ``test.cut`` / ``test.restore``
cut a table's link (``when: after-contribution``: the next contribution is processed and its
answer never sent, as when a cable goes between the two) and ``test.fault`` with ``kind: reboot``
takes the controller dark for ``duration_ms`` (every table connection dropped, nothing answered),
then back from non-volatile storage.  One selector loop; nothing binds another interface.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import selectors
import signal
import socket
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.devices.framing import EVT, NAK, REQ, RSP, Frame, FrameDecoder, ProtocolError, encode_frame, next_seq
from harness.devices.link import prompt_thread_switching
from harness.emulators.base import Refusal
from harness.emulators.link_config import LinkConfig
from harness.emulators.link_controller import EmulatedLinkController
from harness.errors import InputError
from harness.interrupts import die_with_parent

PARTIAL_TIMEOUT_S = 0.5
WRITE_DEADLINE_S = 0.5
MAX_BOOT_MS = 60_000


class Peer:
    """One connection: the host's, or a table's (``table`` once it joined)."""

    def __init__(self, sock: socket.socket, kind: str) -> None:
        self.sock = sock
        self.kind = kind
        self.table: str | None = None
        self.decoder = FrameDecoder()
        self.evt_seq = 0
        self.last_rx = time.monotonic()
        self.closed = False

    def write(self, data: bytes) -> None:
        if self.closed:
            return
        self.sock.settimeout(WRITE_DEADLINE_S)
        try:
            self.sock.sendall(data)
        except OSError:
            self.closed = True
        finally:
            with contextlib.suppress(OSError):
                self.sock.setblocking(False)

    def event(self, payload: dict[str, Any]) -> None:
        self.evt_seq = next_seq(self.evt_seq)
        self.write(encode_frame(EVT, self.evt_seq, payload))


class LinkServer:
    def __init__(self, cfg: LinkConfig, run_dir: Path) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)
        if cfg.nv_dir is None:
            cfg = replace(cfg, nv_dir=run_dir / "nv")
        self.cfg = cfg
        self.run_dir = run_dir
        self.sel = selectors.DefaultSelector()
        self.host: Peer | None = None
        self.tables: list[Peer] = []
        self.powered = True
        self.dark_until: float | None = None
        self.dark_at: float | None = None
        self.dark_for = 0.0
        self._stop = False
        self.ctrl = EmulatedLinkController(cfg, self._push, self._emit)

    # -- set-up ----------------------------------------------------------------------------------
    def open(self) -> dict[str, Any]:
        addresses: dict[str, Any] = {}
        for kind in ("host", "tables"):
            lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            lsock.bind(("127.0.0.1", 0))
            lsock.listen(16)
            lsock.setblocking(False)
            self.sel.register(lsock, selectors.EVENT_READ, ("accept", kind))
            port = lsock.getsockname()[1]
            addresses[kind] = f"socket://127.0.0.1:{port}" if kind == "host" else f"127.0.0.1:{port}"
        addresses.update(pid=os.getpid(), run_dir=str(self.run_dir), nv=str(self.ctrl.nv.path))
        (self.run_dir / "addresses.json").write_text(json.dumps(addresses, indent=2) + "\n")
        return addresses

    # -- events out --------------------------------------------------------------------------------
    def _push(self, table: str, payload: dict[str, Any]) -> None:
        for peer in self.tables:
            if peer.table == table and not peer.closed:
                peer.event(payload)

    def _emit(self, payload: dict[str, Any]) -> None:
        if self.host is not None and self.powered:
            self.host.event(payload)

    # -- the loop ------------------------------------------------------------------------------------
    def stop(self) -> None:
        self._stop = True

    def serve_forever(self) -> None:
        while not self._stop:
            for key, _ in self.sel.select(timeout=0.05):
                kind, obj = key.data
                if kind == "accept":
                    self._accept(key.fileobj, obj)  # type: ignore[arg-type]
                else:
                    self._read(obj)
            now = time.monotonic()
            self._power_timers(now)
            for peer in [p for p in (self.host, *self.tables) if p is not None]:
                if peer.decoder.pending and now - peer.last_rx > PARTIAL_TIMEOUT_S:
                    for item in peer.decoder.drop_partial():
                        self._answer(peer, item)
            for peer in [p for p in self.tables if p.closed]:
                self._drop(peer)

    def _accept(self, lsock: socket.socket, kind: str) -> None:
        try:
            conn, _ = lsock.accept()
        except BlockingIOError:
            return
        if not self.powered:  # a dark controller takes no connection
            conn.close()
            return
        conn.setblocking(False)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peer = Peer(conn, kind)
        if kind == "host":
            if self.host is not None:
                self._drop(self.host)
            self.host = peer
        else:
            self.tables.append(peer)
        self.sel.register(conn, selectors.EVENT_READ, ("peer", peer))

    def _read(self, peer: Peer) -> None:
        try:
            data = peer.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop(peer)
            return
        peer.last_rx = time.monotonic()
        for item in peer.decoder.feed(data):
            self._answer(peer, item)
            if peer.closed:
                self._drop(peer)
                return

    def _drop(self, peer: Peer) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.sel.unregister(peer.sock)
        with contextlib.suppress(OSError):
            peer.sock.close()
        peer.closed = True
        if peer is self.host:
            self.host = None
        if peer in self.tables:
            self.tables.remove(peer)
            if peer.table and not any(p.table == peer.table for p in self.tables):
                self.ctrl.link_changed(peer.table, False)

    # -- answering -------------------------------------------------------------------------------------
    def _answer(self, peer: Peer, item: Frame | ProtocolError) -> None:
        if not self.powered:
            return
        if isinstance(item, ProtocolError):
            peer.write(encode_frame(NAK, item.seq or 0, {"code": item.code, "reason": item.reason}))
            return
        if item.type != REQ:
            return
        if item.seq == 0:
            peer.write(encode_frame(NAK, 0, {"code": "BAD_FRAME", "reason": "a request SEQ is never 0"}))
            return
        try:
            if peer.kind == "host":
                self._host_request(peer, item)
            else:
                self._table_request(peer, item)
        except Exception as exc:  # a bug must show as a NAK, never take the link controller down
            peer.write(encode_frame(NAK, item.seq, {"code": "BUSY", "reason": f"internal error: {exc!r}"}))

    @staticmethod
    def _reply(peer: Peer, seq: int, answer: Any) -> None:
        if isinstance(answer, Refusal):
            peer.write(encode_frame(NAK, seq, answer.to_payload()))
        else:
            peer.write(encode_frame(RSP, seq, {"ok": True, **answer}))

    def _host_request(self, peer: Peer, item: Frame) -> None:
        payload = item.payload
        if payload.get("cmd") == "test.fault":
            self._reply(peer, item.seq, self._fault(payload))
            return
        self._reply(peer, item.seq, self.ctrl.from_host(payload))
        for table, when in self.ctrl.cut.items():
            if when == "now":
                for other in [p for p in self.tables if p.table == table]:
                    self._drop(other)

    def _table_request(self, peer: Peer, item: Frame) -> None:
        if peer.table is not None and self.ctrl.cut.get(peer.table) == "now":
            self._drop(peer)
            return
        cmd = item.payload.get("cmd")
        answer, joined = self.ctrl.from_table(item.payload, peer.table)
        if joined is not None and peer.table is None:
            peer.table = joined
            self.ctrl.link_changed(joined, True)
        if (cmd == "link.contribute" and peer.table is not None and not isinstance(answer, Refusal)
                and self.ctrl.cut.get(peer.table) == "after-contribution"):
            self.ctrl.cut[peer.table] = "now"  # processed; the answer never reaches the table
            peer.closed = True
            return
        self._reply(peer, item.seq, answer)
        if isinstance(answer, Refusal) and cmd == "link.join":
            peer.closed = True

    # -- power ---------------------------------------------------------------------------------------------
    def _fault(self, payload: dict[str, Any]) -> Any:
        kind = payload.get("kind")
        if kind != "reboot":
            return Refusal("BAD_ARGS", f"the link controller injects only 'reboot', not {kind!r}")
        after, duration = payload.get("after_ms", 0), payload.get("duration_ms", 500)
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_BOOT_MS
                   for v in (after, duration)):
            return Refusal("BAD_ARGS", f"after_ms and duration_ms are 0 to {MAX_BOOT_MS} ms")
        self.dark_at = time.monotonic() + after / 1000
        self.dark_for = duration / 1000
        return {"kind": "reboot", "after_ms": after, "duration_ms": duration}

    def _power_timers(self, now: float) -> None:
        if self.dark_at is not None and now >= self.dark_at:
            self.dark_at = None
            self.powered = False
            self.dark_until = now + self.dark_for
            for peer in list(self.tables):
                self._drop(peer)
        if self.dark_until is not None and now >= self.dark_until:
            self.dark_until = None
            self.ctrl.cut.clear()
            self.ctrl.connected.clear()
            self.ctrl.boot()
            self.powered = True
            if self.host is not None:
                self.host.evt_seq = 0  # events are numbered from 1 again after a power-up
                self._emit({"event": "power", "on": True})

    def close(self) -> None:
        for key in list(self.sel.get_map().values()):
            with contextlib.suppress(OSError):
                key.fileobj.close()  # type: ignore[union-attr]
        self.sel.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.emulators.link_server")
    parser.add_argument("--profile", required=True, help="the link controller's configuration (JSON)")
    parser.add_argument("--listen", choices=("pty", "tcp"), default="tcp", help="ignored: the link is TCP")
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--defect", action="append", default=[])
    args = parser.parse_args(argv)
    prompt_thread_switching()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness decides what an interruption means
    try:
        data = json.loads(Path(args.profile).read_text(encoding="utf-8"))
        data["defects"] = sorted(set(data.get("defects") or ()) | set(args.defect))
        cfg = LinkConfig.from_mapping(data)
    except (InputError, OSError, ValueError) as exc:
        print(f"link controller: {exc}", file=sys.stderr)
        return 2
    server = LinkServer(cfg, Path(args.run_dir))
    signal.signal(signal.SIGTERM, lambda *_: server.stop())
    die_with_parent(os.getppid(), signal.SIGTERM, pdeathsig=False)  # the run gone, the link goes too
    try:
        print(json.dumps(server.open()), flush=True)
        server.serve_forever()
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
