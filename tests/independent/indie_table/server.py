"""Transport: one 127.0.0.1 TCP server per role (docs/protocol.md section 1: a profile names it
`socket://127.0.0.1:PORT`), plus SCPI servers for a time-interval counter and a bench power supply
(section 9, `TCPIP::127.0.0.1::PORT::SOCKET`).
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from typing import Any

from . import wire
from .table import Table

NAK_REASON_OFF = "off_contract"


class DeviceLine:
    """One device's byte stream: a single host at a time; the event SEQ survives reconnections."""

    def __init__(self, role: str, port: int, table: Table) -> None:
        self.role = role
        self.table = table
        self.srv = socket.create_server(("127.0.0.1", port), reuse_port=False)
        self.port = self.srv.getsockname()[1]
        self.client: socket.socket | None = None
        self.send_lock = threading.Lock()
        self.event_seq = 0
        self.no_answer = 0
        self.bad_crc = 0
        self.garbage = 0
        self.off_contract = 0
        self.seq_from_zero = False  # fault power-up-event-seq-from-zero
        self.last_event: dict[str, Any] | None = None  # fault reconnect-resends-last-event
        self.settle_seq = 0  # fault settlement-events-own-seq
        self.restart_after_next = False  # fault power-lockout-sent-before-seq-restart
        self.silent_until = 0.0
        self.accepts = 0  # host connections taken on this line
        self.hello_slow = False  # fault sensors-hello-slow-after-reconnect
        self.echo_wagers = False  # fault wager-event-echoed-after-sensors-reconnect
        self.hello_v2 = False  # fault controller-hello-protocol-2-after-reconnect
        self.seq_zero_next = False  # fault answer-seq-zero-after-bad-crc
        self.events_sock: socket.socket | None = None  # fault controller-events-lost-after-reconnect
        self.drop_answer = False  # fault no-answer-requests-still-executed
        self.resync_hold = False  # fault resync-waits-after-bad-crc: the receiver's resync mode after a CRC error
        # fault requests-queued-through-reboot: the frames received during a warm start
        self.held_requests: list[tuple[int, int, dict[str, Any]] | wire.FrameError] = []
        self.evt_ver = wire.VER  # fault event-frames-ver-0-after-reboot: the event queue's header template's VER byte
        # fault receive-buffer-kept-across-reconnect: the device's one receive buffer, kept across connections
        self.rx: wire.Decoder | None = None
        self.peers: dict[str, DeviceLine] = {}
        self.stop = threading.Event()
        threading.Thread(target=self._accept, name=f"{role}-accept", daemon=True).start()

    # -- sending
    def _send(self, data: bytes, event: bool = False) -> None:
        with self.send_lock:
            sock = self.client
            if event and self.events_sock is not None:
                # fault controller-events-lost-after-reconnect: the event task keeps the connection it was given when
                # the line was first opened, and writes every event there
                sock = self.events_sock
            if sock is None:
                return
            if "long-answer-cut-at-1024-bytes" in self.table.faults and len(data) > 1024:
                data = data[:1024]  # fault long-answer-cut-at-1024-bytes: the transmit buffer holds 1024 bytes
            with contextlib.suppress(OSError):
                sock.sendall(data)

    def _frame(self, ftype: int, seq: int, payload: dict[str, Any]) -> bytes:
        corrupt = False
        if self.bad_crc > 0:
            if ftype == wire.EVT and "bad-crc-count-skips-events" in self.table.faults:
                # fault bad-crc-count-skips-events: the line fault's counter is stepped by the answer builder only; the
                # event builder reads the flag and corrupts its frame without counting it
                corrupt = True
            else:
                self.bad_crc -= 1
                corrupt = True
        ver = self.evt_ver if ftype == wire.EVT else wire.VER  # fault event-frames-ver-0-after-reboot
        # fault nak-crc-over-payload-only: the NAK builder computes its CRC over the payload alone
        payload_crc = ftype == wire.NAK and "nak-crc-over-payload-only" in self.table.faults
        # fault len-counts-characters-not-bytes: the frame builder takes LEN from the payload text's character count
        chars = "len-counts-characters-not-bytes" in self.table.faults
        return wire.encode(ftype, seq, payload, corrupt_crc=corrupt, ver=ver, crc_payload_only=payload_crc,
                           len_chars=chars)

    def event(self, payload: dict[str, Any]) -> None:
        if not self.table.powered or time.monotonic() < self.silent_until or self.client is None:
            return
        if "event-seq-shared-across-lines" in self.table.faults:
            self.table.shared_event_seq = self.table.shared_event_seq % 65535 + 1
            self._send(self._frame(wire.EVT, self.table.shared_event_seq, payload), event=True)
            return
        if (self.role == "controller" and "settlement-events-own-seq" in self.table.faults
                and payload.get("event") in ("hit", "payout", "round_end")):
            # the settlement task frames its events with a counter of its own
            self.settle_seq = self.settle_seq % 65535 + 1
            self._send(self._frame(wire.EVT, self.settle_seq, payload), event=True)
            return
        if self.seq_from_zero:
            # the power-up path clears the counter and sends its first event before stepping it
            self.seq_from_zero = False
            self._send(self._frame(wire.EVT, self.event_seq, payload), event=True)
            return
        if "misread-steps-seq-twice" in self.table.faults and payload.get("event") == "misread":
            self.event_seq = self.event_seq % 65535 + 1  # the misread is logged through the event counter too
        if ("reset-event-reuses-seq" in self.table.faults and payload.get("event") == "reset"
                and self.event_seq > 0):
            # the reset key's path reads the event counter without stepping it
            self._send(self._frame(wire.EVT, self.event_seq, payload), event=True)
            return
        if "event-seq-wraps-through-zero" in self.table.faults:
            self.event_seq = (self.event_seq + 1) & 0xFFFF  # fault event-seq-wraps-through-zero: a plain u16 step
        elif self.role == "shoe" and "shoe-event-seq-one-byte" in self.table.faults:
            # fault shoe-event-seq-one-byte: the shoe's reader numbers its frames in a one-byte counter that skips 0
            self.event_seq = self.event_seq % 255 + 1
        else:
            self.event_seq = self.event_seq % 65535 + 1
        self._send(self._frame(wire.EVT, self.event_seq, payload), event=True)
        self.last_event = payload
        if self.restart_after_next:
            # fault power-lockout-sent-before-seq-restart: the counter is cleared by the "first event sent" hook of
            # the power-up path, after that event was numbered on from before the power cut
            self.restart_after_next = False
            self.event_seq = 0

    def answer(self, ftype: int, seq: int, payload: dict[str, Any]) -> None:
        if self.drop_answer and ftype in (wire.RSP, wire.NAK):
            self.drop_answer = False  # fault no-answer-requests-still-executed: the answer is what is lost
            return
        if self.seq_zero_next and ftype == wire.RSP:
            self.seq_zero_next = False  # fault answer-seq-zero-after-bad-crc: the error path cleared the reply register
            seq = 0
        if "answer-seq-15-bits" in self.table.faults:
            seq &= 0x7FFF  # fault answer-seq-15-bits: the request's SEQ is kept in a signed 16-bit field
        if self.garbage > 0:
            self.garbage -= 1
            if "garbage-steps-event-seq" in self.table.faults:
                # fault garbage-steps-event-seq: the noise goes out through the event queue, which numbers every frame
                # it sends
                self.event_seq = self.event_seq % 65535 + 1
            self._send(b"\x13\x37\xa5\x5a\x01\x02\x00")  # noise with a false start of frame
            return
        if self.off_contract > 0 and ftype == wire.RSP:
            self.off_contract -= 1
            payload = dict(payload, off_contract=True)
        data = self._frame(ftype, seq, payload)
        if ftype == wire.RSP and len(data) > 10 + 255 and "long-answer-len-little-endian" in self.table.faults:
            # fault long-answer-len-little-endian: an answer longer than 255 bytes goes out through the block-transfer
            # path, which writes the LEN field from the CPU's little-endian register (the CRC is the header's as built)
            data = data[:6] + data[7:8] + data[6:7] + data[8:]
        self._send(data)
        if self.role == "controller" and "event-seq-follows-request-seq" in self.table.faults:
            # fault event-seq-follows-request-seq: the frame builder keeps one SEQ register, which an answer loads with
            # its request's SEQ and the event path steps
            self.event_seq = seq

    # -- receiving
    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                sock, _ = self.srv.accept()
            except OSError:
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.send_lock:
                old, self.client = self.client, sock
            if old is not None:
                with contextlib.suppress(OSError):
                    old.close()
            self.accepts += 1
            if (self.role == "controller" and self.events_sock is None
                    and "controller-events-lost-after-reconnect" in self.table.faults):
                self.events_sock = sock  # fault controller-events-lost-after-reconnect
            if (self.accepts > 1 and self.role == "sensors"
                    and "sensors-gate-closed-after-reconnect" in self.table.faults):
                with self.table.lock:
                    # fault sensors-gate-closed-after-reconnect: a host opening the line restarts the sensors'
                    # interface, which sets their wagering gate closed; the controller sends the gate only at round.open
                    self.table.sensors_gate_shut = True
            if (self.accepts > 1 and self.role == "sensors"
                    and "sensors-hello-slow-after-reconnect" in self.table.faults):
                # fault sensors-hello-slow-after-reconnect: a new connection makes the sensors read their whole layout
                # table back from the controller before they answer its first hello
                self.hello_slow = True
            if self.accepts > 1 and self.role == "shoe" and "card-n-restarts-on-shoe-reconnect" in self.table.faults:
                with self.table.lock:
                    # fault card-n-restarts-on-shoe-reconnect: the host opening the line resets the reader, whose
                    # frame counter starts at 0; the shoe's own count (shoe.status) goes on
                    self.table.n_base = self.table.cards_dealt
            if "event-seq-restarts-on-reconnect" in self.table.faults:
                self.event_seq = 0
            if (self.accepts > 1 and self.role == "shoe"
                    and "shoe-software-id-empty-after-reconnect" in self.table.faults):
                with self.table.lock:
                    # fault shoe-software-id-empty-after-reconnect: the host opening the line resets the shoe's
                    # interface board, whose identity block is filled from the main board at power-up only
                    self.table.shoe_ident_lost = True
            if (self.accepts > 1 and self.role == "sensors"
                    and "wager-event-echoed-after-sensors-reconnect" in self.table.faults):
                # fault wager-event-echoed-after-sensors-reconnect: a new connection switches the sensors to the
                # chips-by-hand reporting mode, which reports each wager.place as a wager event too
                self.echo_wagers = True
            if (self.accepts > 1 and self.role == "controller"
                    and "controller-hello-protocol-2-after-reconnect" in self.table.faults):
                self.hello_v2 = True  # fault controller-hello-protocol-2-after-reconnect: the version register
                # is loaded with the newest version the firmware was built for when a host opens the line again
            if (self.accepts > 1 and self.role == "sensors"
                    and "sensors-reconnect-forgets-base-flags" in self.table.faults):
                with self.table.lock:
                    # fault sensors-reconnect-forgets-base-flags: a host opening the line restarts the sensors'
                    # interface, which clears the seats' base-wager flags the Royal 9 check reads
                    self.table.base_forgotten = {s for (s, t) in self.table.layout if t in ("player", "banker", "tie")}
            if (self.accepts > 1 and self.role == "controller"
                    and "reconnect-announces-power-lockout" in self.table.faults):
                with self.table.lock:
                    # fault reconnect-announces-power-lockout: the line-open handler is the power-up path's, which
                    # announces the power lock-out to the host that opened the line
                    self.event({"event": "lockout", "locked": True, "cause": "power"})
            if (self.accepts > 1 and self.role == "sensors"
                    and "sensors-list-cleared-by-reconnect" in self.table.faults):
                with self.table.lock:
                    # fault sensors-list-cleared-by-reconnect: a host opening the line restarts the sensors' interface,
                    # whose list of the round's wagers starts empty; the controller's layout keeps them
                    self.table.list_blind |= set(self.table.layout)
            if (self.role == "controller" and "reconnect-resends-last-event" in self.table.faults
                    and self.last_event is not None):
                with self.table.lock:  # the event queue's last entry is kept for a host that missed it
                    self.event(dict(self.last_event))
            threading.Thread(target=self._read, args=(sock,), name=f"{self.role}-read", daemon=True).start()

    def _read(self, sock: socket.socket) -> None:
        dec = wire.Decoder(frozenset(self.table.faults))
        if "receive-buffer-kept-across-reconnect" in self.table.faults:
            # fault receive-buffer-kept-across-reconnect: the receive buffer is the device's, not the connection's: the
            # bytes a closed connection left in it are read with the next connection's
            if self.rx is None:
                self.rx = dec
            dec = self.rx
        # fault partial-frame-abandoned-early: the partial-frame timer is loaded with 50 in a 1 ms tick, the count meant
        # for its 10 ms tick
        sock.settimeout(0.05 if "partial-frame-abandoned-early" in self.table.faults else 0.5)
        while not self.stop.is_set():
            try:
                data = sock.recv(65536)
            except TimeoutError:
                if dec.buf and "stalled-partial-frame-kept" not in self.table.faults:
                    # (fault stalled-partial-frame-kept: the quiet-line branch only handles an empty buffer)
                    dec.abandon()
                continue
            except OSError:
                break
            if not data:
                break
            items = dec.feed(data)
            if "pipelined-second-request-dropped" in self.table.faults:
                items = items[:1]  # fault pipelined-second-request-dropped: one frame handled per read
            if "pipelined-answers-carry-last-seq" in self.table.faults:
                # fault pipelined-answers-carry-last-seq: every frame of a read is decoded before any is executed, into
                # one request register whose SEQ the last frame decoded overwrote
                reqs = [it for it in items if not isinstance(it, wire.FrameError)]
                if len(reqs) > 1:
                    last = reqs[-1][1]
                    items = [it if isinstance(it, wire.FrameError) else (it[0], last, it[2]) for it in items]
            for item in items:
                self._item(item)
        with self.send_lock:
            if self.client is sock:
                self.client = None
        with contextlib.suppress(OSError):
            sock.close()

    def _item(self, item: tuple[int, int, dict[str, Any]] | wire.FrameError) -> None:
        if (self.table.powered and time.monotonic() < self.silent_until
                and "requests-queued-through-reboot" in self.table.faults):
            # fault requests-queued-through-reboot: the receive FIFO keeps the frames that arrive during the warm start,
            # and the restarted firmware handles them
            self.held_requests.append(item)
            return
        if not self.table.powered or time.monotonic() < self.silent_until:
            return  # a dark device answers nothing
        if isinstance(item, wire.FrameError):
            if item.code == "BAD_CRC" and "resync-waits-after-bad-crc" in self.table.faults:
                self.resync_hold = True  # fault resync-waits-after-bad-crc
            if item.code == "BAD_CRC" and "answer-seq-zero-after-bad-crc" in self.table.faults:
                self.seq_zero_next = True  # fault answer-seq-zero-after-bad-crc
            if item.code == "BAD_CRC" and "bad-crc-resets-event-seq" in self.table.faults:
                # fault bad-crc-resets-event-seq: the receive-error handler re-initialises the line's counters
                self.event_seq = 0
            nak_seq = item.seq
            if item.code == "BAD_FRAME" and "bad-frame-nak-seq-zero" in self.table.faults:
                nak_seq = 0  # fault bad-frame-nak-seq-zero: the frame-error path answers every error with SEQ 0
            self.answer(wire.NAK, nak_seq, {"code": item.code, "reason": item.reason})
            return
        ftype, seq, payload = item
        if ftype != wire.REQ:
            return  # the device ignores what is not a request
        if seq == 0xFFFF and "request-seq-65535-unanswered" in self.table.faults:
            return  # fault request-seq-65535-unanswered: 0xFFFF is the request slot's "empty" marker
        if self.resync_hold:
            # fault resync-waits-after-bad-crc: after a CRC error the receiver stays in resync mode until its 150 ms
            # quiet-line timer runs out, and only then hands the next frame on
            self.resync_hold = False
            time.sleep(0.15)
        if self.hello_slow and payload.get("cmd") == "hello":
            self.hello_slow = False  # fault sensors-hello-slow-after-reconnect
            time.sleep(0.3)
        if self.no_answer > 0:
            self.no_answer -= 1
            if "no-answer-requests-still-executed" not in self.table.faults:
                return
            self.drop_answer = True  # fault no-answer-requests-still-executed: applied at the transmit side
        if (self.role == "sensors" and payload.get("cmd") == "wager.place" and not self.table.link_up
                and "comm-lost-refusal-waits-link-timeout" in self.table.faults):
            time.sleep(0.3)  # the sensors wait for the controller's decision until their link timeout
        reply = self.table.handle(self.role, payload)
        if (reply[0] == "rsp" and self.role == "shoe" and payload.get("cmd") == "test.load"
                and "shoe-seq-restarts-on-reload" in self.table.faults):
            self.event_seq = 0  # the reader restarts its event counter with its card count
        if (reply[0] == "rsp" and self.role == "controller" and payload.get("cmd") == "round.settle"
                and reply[1].get("void") and "void-answers-slowly" in self.table.faults):
            time.sleep(0.2)  # the void record is written to the audit log before the answer (the table lock is free)
        if reply[0] == "rsp" and self.hello_v2 and payload.get("cmd") == "hello":
            reply = ("rsp", {**reply[1], "protocol": 2})  # fault controller-hello-protocol-2-after-reconnect
        if (reply[0] == "rsp" and self.echo_wagers and payload.get("cmd") == "wager.place"
                and "accepted" in reply[1]):
            # fault wager-event-echoed-after-sensors-reconnect
            self.event({"event": "wager", "seat": payload.get("seat"), "type": payload.get("type"),
                        "amount": payload.get("amount"), "accepted": reply[1]["accepted"],
                        "reason": reply[1]["reason"]})
        if (reply[0] == "nak" and reply[1] == "REFUSED" and self.role == "controller"
                and payload.get("cmd") == "reset_key" and "key-refusal-sent-as-rsp" in self.table.faults):
            # fault key-refusal-sent-as-rsp: the key task answers its refusal through its own answer builder
            self.answer(wire.RSP, seq, {"ok": False, "meter": payload.get("meter"), "reason": reply[2]})
            return
        if reply[0] == "rsp":
            self.answer(wire.RSP, seq, {"ok": True, **reply[1]})
        elif reply[0] == "nak":
            if (reply[1] == "REFUSED" and self.role == "controller"
                    and "event-seq-steps-on-refusal" in self.table.faults):
                self.event_seq = self.event_seq % 65535 + 1  # the refusal is logged through the event counter
            self.answer(wire.NAK, seq, {"code": reply[1], "reason": reply[2]})
        elif reply[0] == "fault":
            self._fault(seq, reply[1])
        elif reply[0] == "deal":
            self._deal(seq, reply[1])

    # -- test channel helpers
    def _fault(self, seq: int, req: dict[str, Any]) -> None:
        kind = req.get("kind")
        count = req.get("count", 1)
        after_ms = req.get("after_ms", 0)
        duration_ms = req.get("duration_ms", 200)
        if not all(type(v) is int and v >= 0 for v in (count, after_ms, duration_ms)):
            self.answer(wire.NAK, seq, {"code": "BAD_ARGS", "reason": "count, after_ms, duration_ms: integers"})
            return
        ans: dict[str, Any] = {"ok": True, "kind": kind, "count": count, "after_ms": after_ms}
        if kind in ("misread", "error"):
            if self.role != "shoe":
                self.answer(wire.NAK, seq, {"code": "BAD_ARGS", "reason": f"{kind} is a shoe fault"})
                return
            self.answer(wire.RSP, seq, {"ok": True, "kind": kind})
            if kind == "misread":
                self.table.misread_next += 1
            else:
                code, text = req.get("code", "E1"), req.get("text", "reader error")
                if "card-n-counts-error-event" in self.table.faults:
                    with self.table.lock:
                        self.table.cards_dealt += 1  # fault card-n-counts-error-event: the reader's error frame
                        # steps the card counter like a card frame
                if "shoe-error-reports-empty" in self.table.faults:
                    with self.table.lock:
                        self.table.shoe_error_latched = True  # fault shoe-error-reports-empty
                if "card-event-swallowed-after-shoe-error" in self.table.faults:
                    with self.table.lock:
                        self.table.swallow_card = True  # fault card-event-swallowed-after-shoe-error
                if "shoe-error-sent-as-nak" in self.table.faults:
                    # fault shoe-error-sent-as-nak: the shoe's fault report goes out through the link layer's
                    # error-frame routine, as a NAK with SEQ 0
                    self.answer(wire.NAK, 0, {"code": str(code), "reason": str(text)})
                    return
                self.event({"event": "error", "code": str(code), "text": str(text)})
            return
        if kind == "no-answer":
            self.answer(wire.RSP, seq, ans)
            self.no_answer = count
        elif kind == "bad-crc":
            self.answer(wire.RSP, seq, ans)
            self.bad_crc = count
        elif kind == "garbage":
            self.answer(wire.RSP, seq, ans)
            self.garbage = count
        elif kind == "off-contract":
            self.answer(wire.RSP, seq, ans)
            self.off_contract = count
        elif kind == "disconnect":
            self.answer(wire.RSP, seq, ans)
            threading.Timer(max(after_ms, 50) / 1000, self._drop).start()
            if "disconnect-drops-every-line" in self.table.faults:
                # fault disconnect-drops-every-line: the line fault restarts the table's network interface, which the
                # three devices share: every device's connection is closed
                for peer in self.peers.values():
                    if peer is not self:
                        threading.Timer(max(after_ms, 50) / 1000, peer._drop).start()
        elif kind == "reboot":
            self.answer(wire.RSP, seq, ans)
            threading.Timer(after_ms / 1000, self._reboot, args=(duration_ms,)).start()
        elif kind == "power-loss":
            self.answer(wire.RSP, seq, ans)
            dur = req.get("duration_ms")
            threading.Timer(after_ms / 1000, self._power_loss, args=(dur,)).start()
        else:
            self.answer(wire.NAK, seq, {"code": "BAD_ARGS", "reason": f"no fault kind {kind!r}"})

    def _drop(self) -> None:
        with self.send_lock:
            sock, self.client = self.client, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            except OSError:
                pass

    def _reboot(self, duration_ms: int) -> None:
        if self.role == "shoe" and "shoe-reboot-resets-controller" in self.table.faults:
            # fault shoe-reboot-resets-controller: the shoe's warm start pulls the table's reset line, which the
            # controller shares: the controller restarts with it
            ctl = self.peers.get("controller")
            if ctl is not None:
                threading.Thread(target=ctl._reboot, args=(duration_ms,), daemon=True).start()
        self.silent_until = time.monotonic() + duration_ms / 1000
        time.sleep(duration_ms / 1000)
        if not (self.role == "shoe" and "shoe-reboot-keeps-event-seq" in self.table.faults):
            # (fault shoe-reboot-keeps-event-seq: the shoe's warm start skips the RAM clear of its frame counters)
            self.event_seq = 0
        self.settle_seq = 0
        if self.role == "controller" and "controller-reboot-restarts-shoe-seq" in self.table.faults:
            for peer in self.peers.values():  # the warm start clears the shared event-counter block
                peer.event_seq = 0
        if self.role == "controller" and "event-frames-ver-0-after-reboot" in self.table.faults:
            # fault event-frames-ver-0-after-reboot: the warm start rebuilds the event queue's frame header from a
            # cleared RAM block; the answers' header is built per frame and is right
            self.evt_ver = 0
        if self.role == "controller":
            self.table.reboot_controller()
        if self.role == "sensors" and "sensors-serial-empty-after-reboot" in self.table.faults:
            self.table.sensors_serial_lost = True  # fault sensors-serial-empty-after-reboot: a warm start
        if self.role == "sensors" and "sensors-hello-role-shoe-after-reboot" in self.table.faults:
            # fault sensors-hello-role-shoe-after-reboot: the sensors and the shoe run one firmware image; the role
            # strap is read at a cold start, and a warm start leaves the role register at its default, the shoe's
            self.table.sensors_role_lost = True
        if self.role == "sensors" and "sensors-seat-7-refused-after-reboot" in self.table.faults:
            # fault sensors-seat-7-refused-after-reboot: the controller writes the layout's seat count to the sensors at
            # its cold start; a warm start of the sensors takes their default layout of six seats
            self.table.sensors_six_seats = True
        if self.role == "shoe" and "card-out-line-off-after-shoe-reboot" in self.table.faults:
            # fault card-out-line-off-after-shoe-reboot: the warm start does not enable the card-out output again
            self.table.card_line_off = True
        if self.held_requests:
            held, self.held_requests = self.held_requests, []
            for item in held:  # fault requests-queued-through-reboot
                self._item(item)

    def _power_loss(self, duration_ms: int | None) -> None:
        self.table.power_off()
        if duration_ms is not None and "power-loss-duration-ignored" not in self.table.faults:
            # (fault power-loss-duration-ignored: the restore timer is the supply task's, which only OUTP ON starts)
            threading.Timer(duration_ms / 1000, self.table.power_on).start()

    def _deal(self, seq: int, req: dict[str, Any]) -> None:
        table = self.table
        count = req.get("count")
        pace_us = req.get("pace_us", 1000)
        if (count is not None and (type(count) is not int or count < 0)) or type(pace_us) is not int or pace_us < 0:
            self.answer(wire.NAK, seq, {"code": "BAD_ARGS", "reason": "count and pace_us: integers"})
            return
        with table.lock:
            if table.dealing:
                if "busy-nak-without-reason" in table.faults:
                    # fault busy-nak-without-reason: the deal task's busy answer is built without its text
                    self.answer(wire.NAK, seq, {"code": "BUSY"})
                    return
                if "busy-deal-still-queued" in table.faults:
                    # fault busy-deal-still-queued: the deal command is put in the deal task's queue before the busy
                    # check; the refusal does not take it out
                    table.deal_queue += len(table.shoe_cards) if count is None else count
                self.answer(wire.NAK, seq, {"code": "BUSY", "reason": "the shoe is dealing"})
                return
            n = len(table.shoe_cards) if count is None else min(count, len(table.shoe_cards))
            if count == 0 and "deal-count-zero-deals-whole-shoe" in table.faults:
                n = len(table.shoe_cards)  # fault deal-count-zero-deals-whole-shoe: a count of 0 reads as "none given"
            if pace_us == 0 and "instant-deal-answer-before-cards" in table.faults:
                # fault instant-deal-answer-before-cards: the deal command is answered as it is taken; the reader then
                # reports the cards as they go out
                self.answer(wire.RSP, seq, {"ok": True, "dealing": n, "cards_remaining": len(table.shoe_cards) - n})
                for i in range(n):
                    table.burst_pos = i
                    table.deal_one()
                table.burst_pos = None
                return
            if pace_us == 0:
                if "burst-card-events-newest-first" in table.faults:
                    table.burst_stack = []  # fault burst-card-events-newest-first: the reader's ring fills first
                for i in range(n):
                    table.burst_pos = i  # fault card-event-lost-in-burst
                    table.deal_one()
                table.burst_pos = None
                if table.burst_stack is not None:
                    # fault burst-card-events-newest-first: the transmit task pops the ring from its top, as a stack
                    stacked, table.burst_stack = table.burst_stack, None
                    for held in reversed(stacked):
                        table.emit("shoe", held)
                self.answer(wire.RSP, seq, {"ok": True, "dealing": n, "cards_remaining": len(table.shoe_cards)})
                return
            table.dealing = True
            if "card-n-restarts-each-paced-deal" in table.faults:
                # fault card-n-restarts-each-paced-deal: the paced dealer numbers its frames from the deal command
                table.n_base = table.cards_dealt
            table.deal_plan = (table.cards_dealt + n, len(table.shoe_cards) - n)
            table.deal_stop.clear()
            self.answer(wire.RSP, seq, {"ok": True, "dealing": n,
                                        "cards_remaining": len(table.shoe_cards) - n})
        epoch = table.power_epoch

        def run() -> None:
            done = 0
            try:
                for _ in range(n):
                    if table.deal_stop.wait(pace_us / 1e6) or table.power_epoch != epoch:
                        return
                    table.deal_one()
                    done += 1
                while table.deal_queue > 0:
                    # fault busy-deal-still-queued: the deal task goes on with the command queued behind the busy answer
                    table.deal_queue -= 1
                    if table.deal_stop.wait(pace_us / 1e6) or table.power_epoch != epoch:
                        return
                    table.deal_one()
            finally:
                with table.lock:
                    if table.power_epoch == epoch:
                        table.deal_plan = None
                    if ("last-card-event-repeated" in table.faults and n and done == n and table.powered
                            and table.power_epoch == epoch and table.last_card_event is not None):
                        # the deal-complete report carries the last card read again
                        table.emit("shoe", dict(table.last_card_event))
                    # fault shoe-dealing-after-shoe-dealt-out: the done flag is cleared on the card-left branch
                    stuck = "shoe-dealing-after-shoe-dealt-out" in table.faults and not table.shoe_cards
                    if table.power_epoch == epoch and not stuck:
                        table.dealing = False

        threading.Thread(target=run, name="deal", daemon=True).start()

    def close(self) -> None:
        self.stop.set()
        self.srv.close()
        self._drop()


class ScpiServer:
    """Newline-terminated SCPI over a 127.0.0.1 socket."""

    def __init__(self, port: int, idn: str) -> None:
        self.srv = socket.create_server(("127.0.0.1", port))
        self.port = self.srv.getsockname()[1]
        self.idn = idn
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.srv.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        buf = b""
        with sock:
            while True:
                try:
                    data = sock.recv(4096)
                except OSError:
                    return
                if not data:
                    return
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    for part in line.decode("ascii", "replace").strip().split(";"):
                        cmd = part.strip()
                        if not cmd:
                            continue
                        ans = self.command(cmd)
                        if ans is not None:
                            try:
                                sock.sendall(ans.encode() + b"\n")
                            except OSError:
                                return

    def command(self, cmd: str) -> str | None:
        up = cmd.upper()
        if up == "*IDN?":
            return self.idn
        if up == "*OPC?":
            return "1"
        return None


class PowerSupply(ScpiServer):
    def __init__(self, port: int, table: Table) -> None:
        self.table = table
        self.volt = "12.000"
        self.outp_reg = "1"  # fault supply-outp-query-one-behind: the output readback register
        self.output_set = "1"  # fault supply-on-ignored-after-power-loss-fault: the output setting the supply keeps
        self.off_at = 0.0  # fault supply-on-ignored-within-restart-delay: when the output was last switched off
        super().__init__(port, "Independent Table Works,PSU-1,ITW-P-0001,1.0")

    def command(self, cmd: str) -> str | None:
        up = cmd.upper()
        if up == "*OPC?" and not self.table.powered and "supply-opc-reads-output-ready" in self.table.faults:
            return "0"  # fault supply-opc-reads-output-ready: *OPC? answers the output's "ready" bit
        if up.endswith("?") and not self.table.powered and "supply-silent-while-output-off" in self.table.faults:
            # fault supply-silent-while-output-off: the supply's query responder is fed from the output side; settings
            # are still taken by the front-panel controller
            return None
        if up in ("OUTP ON", "OUTP 1", "OUTPUT ON"):
            if self.table.powered and "supply-on-while-on-cycles-output" in self.table.faults:
                # fault supply-on-while-on-cycles-output: OUTP ON always starts the output's soft-start ramp from 0 V,
                # also when the output is on already: the table behind it loses its power for 50 ms
                self.output_set = "1"
                self.table.power_off()
                time.sleep(0.05)
                self.table.power_on()
                return None
            if ("supply-on-ignored-within-restart-delay" in self.table.faults
                    and time.monotonic() - self.off_at < 0.3):
                # fault supply-on-ignored-within-restart-delay: the output's restart inhibit (300 ms after an OUTP OFF)
                # drops an OUTP ON instead of holding it until the inhibit ends
                return None
            if self.output_set == "1" and "supply-on-ignored-after-power-loss-fault" in self.table.faults:
                # fault supply-on-ignored-after-power-loss-fault: OUTP ON is a no-op when the supply's own setting says
                # the output is on, whatever happened to the table behind it
                return None
            self.output_set = "1"
            self.table.power_on()
            return None
        if up in ("OUTP?", "OUTPUT?") and "supply-on-ignored-after-power-loss-fault" in self.table.faults:
            return self.output_set  # fault supply-on-ignored-after-power-loss-fault: the setting, not the output
        if up in ("OUTP?", "OUTPUT?") and "supply-outp-query-one-behind" in self.table.faults:
            # fault supply-outp-query-one-behind: the query answers the readback register, which the query itself
            # then refreshes from the output relay
            shown, self.outp_reg = self.outp_reg, "1" if self.table.powered else "0"
            return shown
        if up in ("OUTP OFF", "OUTP 0", "OUTPUT OFF"):
            self.output_set = "0"
            self.off_at = time.monotonic()
            if "supply-opc-before-output-off" in self.table.faults:
                # fault supply-opc-before-output-off: the output relay is opened by the supply's ramp task 150 ms
                # later; the command parser has already marked the setting done for *OPC?
                threading.Timer(0.15, self.table.power_off).start()
                return None
            self.table.power_off()
            if "supply-voltage-setting-lost-on-output-off" in self.table.faults:
                self.volt = "12.000"  # fault supply-voltage-setting-lost-on-output-off: the set point is the output's
            return None
        if up in ("OUTP?", "OUTPUT?"):
            return "1" if self.table.powered else "0"
        if up.startswith("VOLT "):
            self.volt = f"{float(cmd.split()[1]):.3f}"  # SCPI text, not money
            return None
        if up == "VOLT?":
            if "supply-volt-query-reads-output" in self.table.faults and not self.table.powered:
                return "0.000"  # fault supply-volt-query-reads-output: the query reads the output's measured voltage
            return self.volt
        return super().command(cmd)


class Counter(ScpiServer):
    """Time interval from the first card-out edge after INIT to the next rising edge of the lock-out line."""

    def __init__(self, port: int, table: Table) -> None:
        self.cv = threading.Condition()
        self.armed = False
        self.start_ns: int | None = None
        self.stop_ns: int | None = None
        self.lock_level = True
        self.timeout_s = 2.0
        self.stop_falling = False  # fault counter-conf-sets-stop-slope-negative: the stop channel's slope
        self.last_reading: str | None = None  # fault counter-timeout-answers-last-interval: the result register
        self.fetched = False  # fault counter-fetch-clears-result: the result register was read since INIT
        self.conf_at = time.monotonic()  # fault counter-timeout-timer-started-by-conf: the timeout timer's start
        self.faults = frozenset(table.faults)
        table.on_card_line = self.card_edge
        table.on_lock_line = self.lock_line
        super().__init__(port, "Independent Table Works,TIC-1,ITW-T-0001,1.0")

    def _timed_out_since_conf(self) -> bool:
        """Fault counter-timeout-timer-started-by-conf: the measurement timeout timer is started by CONF:TINT and
        SYST:TIM; INIT arms the channels without starting it again, so a measurement armed after it ran out is over."""
        return ("counter-timeout-timer-started-by-conf" in self.faults
                and time.monotonic() > self.conf_at + self.timeout_s)

    def card_edge(self) -> None:
        now = time.perf_counter_ns()
        if self._timed_out_since_conf():
            return
        with self.cv:
            if self.armed and self.start_ns is None:
                self.start_ns = now
            elif self.armed and self.stop_ns is None and "counter-start-retriggered-by-each-card" in self.faults:
                self.start_ns = now  # fault counter-start-retriggered-by-each-card: the start input is not latched

    def lock_line(self, level: bool) -> None:
        now = time.perf_counter_ns()
        if self._timed_out_since_conf():
            self.lock_level = level
            return
        with self.cv:
            rising = level and not self.lock_level
            if level and "counter-level-rewrite-taken-as-edge" in self.faults:
                rising = True  # fault counter-level-rewrite-taken-as-edge: the stop input latches on level, not edge
            if self.stop_falling:
                rising = not level and self.lock_level  # fault counter-conf-sets-stop-slope-negative
            self.lock_level = level
            # fault counter-stop-armed-before-start: INIT arms the stop channel with the start channel, not after the
            # start edge
            started = self.start_ns is not None or "counter-stop-armed-before-start" in self.faults
            if rising and self.armed and started and self.stop_ns is None:
                self.stop_ns = now
                self.cv.notify_all()

    def command(self, cmd: str) -> str | None:
        up = cmd.upper()
        if up == "INIT":
            with self.cv:
                if "counter-init-keeps-start-edge" in self.faults:
                    # fault counter-init-keeps-start-edge: INIT clears the stop latch and arms; the start latch is
                    # cleared only at power-up
                    self.armed, self.stop_ns = True, None
                else:
                    self.armed, self.start_ns, self.stop_ns = True, None, None
                self.fetched = False
                if "counter-start-at-init" in self.faults:
                    # fault counter-start-at-init: INIT opens the interval's gate itself; the start channel's edge
                    # finds the gate open and is not used
                    self.start_ns = time.perf_counter_ns()
            return None
        if up.startswith(("CONF:TINT", "SYST:TIM")):
            self.conf_at = time.monotonic()  # (fault counter-timeout-timer-started-by-conf)
        if up.startswith("CONF:TINT") and "counter-conf-sets-stop-slope-negative" in self.faults:
            # fault counter-conf-sets-stop-slope-negative: the configure routine's defaults table has the stop channel's
            # slope entered as NEG
            self.stop_falling = True
            return None
        if up.startswith("INP2:SLOP") and "counter-conf-sets-stop-slope-negative" in self.faults:
            self.stop_falling = up.endswith("NEG")
            return None
        if up.startswith("SYST:TIM"):
            arg = cmd.split()[1] if len(cmd.split()) > 1 else "2"
            self.timeout_s = 3600.0 if arg.upper() == "INF" else float(arg)
            if arg.upper() == "INF" and "counter-timeout-inf-read-as-zero" in self.faults:
                self.timeout_s = 0.0  # fault counter-timeout-inf-read-as-zero: the number parser reads INF as 0
            if "counter-timeout-read-as-ms" in self.faults and arg.upper() != "INF":
                self.timeout_s /= 1000  # fault counter-timeout-read-as-ms: the timeout register counts milliseconds
            return None
        if up == "*OPC?" and "counter-opc-waits-for-measurement" in self.faults:
            with self.cv:
                if self.armed and self.stop_ns is None:
                    # fault counter-opc-waits-for-measurement: *OPC? waits for the operation in progress, the armed
                    # measurement, to complete
                    self.cv.wait_for(lambda: self.stop_ns is not None, timeout=self.timeout_s)
            return "1"
        if up == "FETC?":
            with self.cv:
                if not self.armed:
                    if "counter-fetch-unarmed-answers-timeout" in self.faults:
                        # fault counter-fetch-unarmed-answers-timeout: FETC? answers the result register, which starts
                        # at the timed-out value, without asking whether an INIT armed a measurement
                        return "9.91E+37"
                    return None
                if self.timeout_s == 0 and "counter-timeout-inf-read-as-zero" in self.faults:
                    return "9.91E+37"  # fault counter-timeout-inf-read-as-zero: a 0 s timeout ends every measurement
                if self._timed_out_since_conf():
                    return "9.91E+37"  # fault counter-timeout-timer-started-by-conf: the measurement timed out
                if self.start_ns is None and "counter-fetch-waits-only-after-start" in self.faults:
                    # fault counter-fetch-waits-only-after-start: FETC? waits for a measurement in progress only; with
                    # no start edge yet it finds none and answers the timed-out value at once
                    return "9.91E+37"
                if self.fetched and "counter-fetch-clears-result" in self.faults:
                    # fault counter-fetch-clears-result: FETC? reads the result register destructively; a second read
                    # finds it cleared, as a timed-out measurement leaves it
                    return "9.91E+37"
                self.cv.wait_for(lambda: self.stop_ns is not None, timeout=self.timeout_s)
                self.fetched = True
                if self.stop_ns is None or self.start_ns is None:
                    if "counter-timeout-answers-last-interval" in self.faults and self.last_reading is not None:
                        # fault counter-timeout-answers-last-interval: a timed-out measurement leaves the result
                        # register as the last measurement wrote it, and FETC? answers the register
                        return self.last_reading
                    return "9.91E+37"
                seconds = (self.stop_ns - self.start_ns) / 1e9
                if "counter-fetch-in-milliseconds" in self.faults:
                    seconds *= 1000  # fault counter-fetch-in-milliseconds: the result is formatted in the display unit
                self.last_reading = f"{seconds:.9E}"
                return self.last_reading
        return super().command(cmd)


def serve(table: Table, ports: dict[str, int], ready_file: str | None) -> dict[str, Any]:
    lines = {role: DeviceLine(role, ports.get(role, 0), table) for role in ("shoe", "sensors", "controller")}
    for line in lines.values():
        line.peers = lines
    power = PowerSupply(ports.get("power", 0), table)
    counter = Counter(ports.get("counter", 0), table)

    def emit(role: str, payload: dict[str, Any]) -> None:
        lines[role].event(payload)

    def power_off() -> None:
        for line in lines.values():
            line.evt_ver = wire.VER  # (fault event-frames-ver-0-after-reboot: a cold start builds the header again)
        if "event-seq-survives-power-cycle" in table.faults:
            return  # the event counters live in battery-backed memory beside the meters
        if "power-lockout-sent-before-seq-restart" in table.faults:
            for line in lines.values():
                line.restart_after_next = True  # the counters are cleared after each line's first event
            return
        for line in lines.values():
            line.event_seq = 0
            line.settle_seq = 0
            line.seq_from_zero = "power-up-event-seq-from-zero" in table.faults
        table.shared_event_seq = 0

    table.emit = emit
    table.on_power_off = power_off
    bound = {role: line.port for role, line in lines.items()}
    bound["power"] = power.port
    bound["counter"] = counter.port
    if ready_file:
        tmp = ready_file + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(" ".join(f"{k}={v}" for k, v in bound.items()) + "\n")
        os.replace(tmp, ready_file)
    return {"lines": lines, "power": power, "counter": counter, "ports": bound}
