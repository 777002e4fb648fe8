"""Request/response and event link over a framed byte transport (docs/protocol.md, "Sequence rules").

One reader thread per device owns the port's input.  It stamps every chunk with
``time.perf_counter_ns()`` the instant the read returns (stamps taken elsewhere
are off by the GIL switch interval), writes the bytes to the transcript, decodes frames and routes
them: RSP and NAK go to the request waiting on that SEQ, EVT frames go to an event queue with their
receive stamp.  Callers never read the port, so an unsolicited event that arrives between a request
and its response is neither lost nor mistaken for the response.

Every wait has a monotonic deadline: ``request`` raises ``DeviceTimeout`` when it passes,
``DeviceError`` when the peer disappears (the reader fails every waiter at once, no hang), a
``DeviceNak`` for a NAK and its subclass ``NakError`` for REFUSED, an application refusal that some
tests expect (e.g. a configuration write while the controller is live, 461a.12).

A ``checker`` (the reference drivers set the protocol contract's, :mod:`harness.devices.contract`)
sees every RSP, NAK and EVT in the reading thread: a message outside the contract fails the request
it answers with the checker's error, or (an event) is kept out of the queue and raised by the next
``events``/``wait_event`` call.  Either way the transcript notes it.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.devices.contract import OffContract
from harness.devices.crc import crc16
from harness.devices.framing import (
    BAD_CRC,
    BAD_FRAME,
    EVT,
    HEADER,
    NAK,
    REQ,
    RSP,
    SOF,
    TYPE_NAMES,
    VERSION,
    Frame,
    FrameDecoder,
    ProtocolError,
    encode_frame,
    next_seq,
)
from harness.devices.transcript import IN, OUT, Transcript
from harness.devices.transport import Transport
from harness.errors import DeviceError, DeviceTimeout

_TEXT_LIMIT = 240

#: (frame type, the command a RSP/NAK answers or None, payload) -> the error to raise, or None
Checker = Callable[[int, "str | None", Mapping[str, Any]], "DeviceError | None"]


#: longest the interpreter may keep one thread running before it offers the GIL to another (s)
SWITCH_INTERVAL_S = 0.0002


def prompt_thread_switching() -> None:
    """Let reading threads run promptly.  CPython hands the GIL over every 5 ms by default, so a
    byte that arrives while another thread computes is stamped up to 5 ms late; the lock-out
    latency is measured in fractions of a millisecond.  Called by every link (and by the emulator
    process), it only ever shortens the interval."""
    if sys.getswitchinterval() > SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)


class DeviceNak(DeviceError):
    """The device answered a request with a NAK; ``code`` and ``reason`` are the device's words."""

    def __init__(self, cmd: str, code: str, reason: str, seq: int) -> None:
        super().__init__(f"{cmd} refused with {code}: {reason}" if reason else f"{cmd} refused with {code}")
        self.cmd = cmd
        self.code = code
        self.reason = reason
        self.seq = seq


class NakError(DeviceNak):
    """A NAK with code REFUSED: the device declined a well-formed command on purpose."""


@dataclass(frozen=True)
class DeviceEvent:
    """An EVT frame as received: its name, payload, the device's SEQ and the host receive stamp."""

    name: str
    payload: dict[str, Any]
    seq: int
    t_ns: int


@dataclass(frozen=True)
class Reply:
    """A successful response with the host stamps of the request write and the response read."""

    payload: dict[str, Any]
    seq: int
    t_sent_ns: int
    t_reply_ns: int


@dataclass
class _Pending:
    cmd: str
    seq: int
    done: threading.Event = field(default_factory=threading.Event)
    t_sent_ns: int = 0
    reply: Reply | None = None
    error: DeviceError | None = None


def _summary(frame_type: int, seq: int, payload: dict[str, Any], body: str) -> str:
    name = TYPE_NAMES.get(frame_type, "?")
    label = ""
    if frame_type == REQ:
        label = f" {payload.get('cmd', '?')}"
    elif frame_type == EVT:
        label = f" {payload.get('event', '?')}"
    elif frame_type == NAK:
        label = f" {payload.get('code', '?')}"
    if len(body) > _TEXT_LIMIT:
        body = body[: _TEXT_LIMIT - 3] + "..."
    return f"{name} seq={seq}{label} {body}"


@dataclass(frozen=True)
class LostPings:
    """What :meth:`FramedLink.pings_lost` saw: the SEQs of the pings sent to be lost, those answered all the
    same (their number from 1, SEQ, the answer), and whether the ping after them was answered."""

    seqs: tuple[int, ...]
    answered: tuple[tuple[int, int, str], ...]
    next_answered: bool

    def late(self, link: FramedLink) -> list[int]:
        """The SEQs of the lost pings answered since (``link.unmatched``: an answer past its wait)."""
        return [seq for _code, seq in link.unmatched if seq in self.seqs]


class FramedLink:
    """A reference-protocol connection to one device."""

    def __init__(
        self,
        transport: Transport,
        *,
        name: str | None = None,
        transcript: Transcript | None = None,
        stale_partial_s: float = 0.25,
        max_events: int = 100_000,
    ) -> None:
        prompt_thread_switching()
        self.name = name or transport.name
        self.transport = transport
        self.transcript = transcript if transcript is not None else Transcript(self.name)
        self.event_gaps: list[tuple[int, int]] = []  # (expected seq, received seq)
        self.protocol_errors: list[ProtocolError] = []
        self.events_dropped = 0
        #: checks every message received (set by the driver before its first request); None: none
        self.checker: Checker | None = None
        #: every message held to the contract whole: a field outside it fails the request or the event at once,
        #: read or not (an explorer compares every field; a case is cost only by the fields it reads)
        self.strict = False
        #: events the checker rejected whole, raised one by one by the next event read
        self._rejected: deque[DeviceError] = deque()
        #: (message definition, field path) -> [the first violation there, how many messages had it]
        self.contract_seen: dict[tuple[str, str], list[Any]] = {}
        self._decoder = FrameDecoder()
        self._stale_ns = int(stale_partial_s * 1e9)
        self._max_events = max_events
        self._seq = 0
        self._pending: dict[int, _Pending] = {}
        self._lock = threading.Lock()  # guards _seq, _pending, writes
        self._events: deque[DeviceEvent] = deque()
        self._cond = threading.Condition()
        self._last_event_seq: int | None = None
        #: the NAKs (code, SEQ) and RSPs ("ok", SEQ) that matched no request (the answers to frames nobody
        #: waits on), in order
        self._unmatched: list[tuple[str, int]] = []
        self._error: DeviceError | None = None
        self._stop = threading.Event()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"tablecert-link-{self.name}", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ requests

    @property
    def alive(self) -> bool:
        return self._error is None and not self._closed

    def call(self, cmd: str, args: dict[str, Any] | None = None, timeout_s: float = 1.0) -> Reply:
        """Send REQ ``cmd`` and wait for its RSP; the deadline is ``timeout_s`` from now (monotonic)."""
        deadline = time.monotonic() + timeout_s
        return self._wait(self._send(cmd, args), deadline, timeout_s)

    def call_seq(self, cmd: str, args: dict[str, Any] | None = None,
                 timeout_s: float = 1.0) -> tuple[int, Reply | DeviceError | None]:
        """Send REQ ``cmd`` and wait up to ``timeout_s``: its SEQ and what came (an answer, the error it
        raised, or None for nothing), for a request the device should lose; an answer coming later is one of
        :attr:`unmatched`, by this SEQ."""
        pending = self._send(cmd, args)
        try:
            return pending.seq, self._wait(pending, time.monotonic() + timeout_s, timeout_s)
        except DeviceTimeout:
            return pending.seq, None
        except DeviceError as exc:
            return pending.seq, exc

    def pings_lost(self, count: int, wait_s: float, next_s: float) -> LostPings:
        """``count`` pings a line fault should leave with no readable answer, each waited for ``wait_s``, then
        one that must be answered within ``next_s`` (docs/protocol.md section 7: a fault of count N takes the
        next N requests or answers, no more)."""
        seqs, answered = [], []
        for n in range(1, count + 1):
            seq, got = self.call_seq("ping", None, wait_s)
            seqs.append(seq)
            if got is not None:
                answered.append((n, seq, str(got.payload) if isinstance(got, Reply) else str(got)))
        try:
            self.call("ping", None, next_s)
            next_answered = True
        except DeviceTimeout:
            next_answered = False
        return LostPings(tuple(seqs), tuple(answered), next_answered)

    def call_many(self, calls: list[tuple[str, dict[str, Any]]], timeout_s: float = 1.0, *,
                  one_write: bool = False) -> list[Reply | DeviceError]:
        """Send several requests back to back, then collect every answer (in request order).

        The device answers each by its SEQ, so nothing waits for a round trip between requests: a
        table's seven wager placements cost about one round trip instead of seven.  Each answer is
        a :class:`Reply` or the :class:`DeviceError` it raised (a NAK, a timeout); one deadline,
        ``timeout_s`` from now, covers them all.  ``one_write``: every frame goes out in a single write,
        so the device reads them together (docs/protocol.md section 4: the host "may pipeline requests")."""
        deadline = time.monotonic() + timeout_s
        if one_write:
            with self._lock:
                prepared = [self._prepare(cmd, args) for cmd, args in calls]
                self._write([raw for _p, raw in prepared], [p for p, _raw in prepared])
            pendings = [p for p, _raw in prepared]
        else:
            pendings = [self._send(cmd, args) for cmd, args in calls]
        out: list[Reply | DeviceError] = []
        for pending in pendings:
            try:
                out.append(self._wait(pending, deadline, timeout_s))
            except DeviceError as exc:
                out.append(exc)
        return out

    def _send(self, cmd: str, args: dict[str, Any] | None) -> _Pending:
        with self._lock:
            pending, raw = self._prepare(cmd, args)
            self._write([raw], [pending])
        return pending

    def _prepare(self, cmd: str, args: dict[str, Any] | None) -> tuple[_Pending, bytes]:
        """A request numbered, registered and in the transcript, not yet written (called holding ``_lock``):
        the reading thread may log the answer as soon as the bytes are out, and the evidence must show a
        request before its answer."""
        payload = {"cmd": cmd, **(args or {})}
        self._raise_if_dead()
        seq = self._alloc_seq()
        raw = encode_frame(REQ, seq, payload)
        pending = _Pending(cmd, seq)
        self._pending[seq] = pending
        pending.t_sent_ns = t_ns = time.perf_counter_ns()
        self.transcript.bytes_out(raw, t_ns)
        self.transcript.add(OUT, "frame", t_ns=t_ns, text=_summary(REQ, seq, payload, raw[8:-2].decode()),
                            type="REQ", seq=seq, payload=payload)
        return pending, raw

    def _write(self, raws: list[bytes], pendings: list[_Pending]) -> None:
        """The prepared requests' bytes in one write (called holding ``_lock``)."""
        try:
            self.transport.write(b"".join(raws))
        except DeviceError as exc:
            for pending in pendings:
                self._pending.pop(pending.seq, None)
                self.transcript.note(f"the request seq={pending.seq} could not be written: {exc}")
            raise

    def _wait(self, pending: _Pending, deadline: float, timeout_s: float) -> Reply:
        remaining = deadline - time.monotonic()
        if not pending.done.wait(max(0.0, remaining)):
            with self._lock:
                self._pending.pop(pending.seq, None)
            if not pending.done.is_set():
                self.transcript.note(f"timeout: no reply to {pending.cmd} seq={pending.seq} within {timeout_s} s")
                raise DeviceTimeout(f"{self.name}: no reply to {pending.cmd} (seq {pending.seq}) within {timeout_s} s")
        if pending.error is not None:
            raise pending.error
        assert pending.reply is not None
        return pending.reply

    def send_corrupted(self, cmd: str, args: dict[str, Any] | None = None,
                       timeout_s: float = 1.0) -> list[tuple[str, int | None]]:
        """Send REQ ``cmd`` with its CRC broken, with nothing else outstanding, and bring the line back in step.

        docs/protocol.md section 2: the receiver drops the frame (answering NAK ``BAD_CRC`` with SEQ 0, or
        nothing; this waits up to ``timeout_s`` for that answer), then scans the bytes after its SOF for the
        next frame: those bytes are garbage to it, which it may report with NAK ``BAD_FRAME`` (SEQ 0) once the
        next frame comes.  A ``ping`` takes that report (asked up to three times).  Returns the NAKs (code,
        SEQ) that answered the broken frame, then the codes of those that failed a ping (SEQ None: a NAK with
        SEQ 0 fails whatever is outstanding)."""
        raw = bytearray(encode_frame(REQ, 0, {"cmd": cmd, **(args or {})}))
        return self._send_broken(lambda seq: _reseq(raw, seq, corrupt=True),
                                 f"sent {cmd} with a corrupted CRC (a test of the device's receiver)", timeout_s)[1]

    def send_corrupted_at_once(self, timeout_s: float = 1.0) -> tuple[list[tuple[str, int | None]], float]:
        """A ping with its CRC broken and, at once (no wait for a NAK that may not come), good pings until one is
        answered, as :meth:`send_corrupted`.  Returns the answers, and the seconds from the broken frame's write
        to the good ping's answer: a receiver that drops the broken frame and scans on (docs/protocol.md section
        2) answers it as fast as any request (section 5)."""
        raw = bytearray(encode_frame(REQ, 0, {"cmd": "ping"}))
        t0 = time.perf_counter()
        answers = self._send_broken(lambda seq: _reseq(raw, seq, corrupt=True),
                                    "sent ping with a corrupted CRC, a good ping at once after it (a test of the "
                                    "device's receiver)", 0.0, ping_s=timeout_s)[1]
        return answers, time.perf_counter() - t0

    def send_malformed(self, timeout_s: float = 1.0, kind: str = "float") -> tuple[int, list[tuple[str, int | None]]]:
        """Send a REQ frame with a good CRC that is not a command, of ``kind`` (:data:`MALFORMED`: a ``ping``
        holding a float, a key given twice, a payload that is not an object, bytes that are not UTF-8, an
        unknown TYPE, VER 2), with nothing else outstanding, then bring the line back in step with a ``ping``.

        docs/protocol.md section 2: "A frame with a good CRC and a bad VER is a VERSION error; an unknown
        TYPE, a payload that is not UTF-8 JSON, not an object, contains a float or a duplicate key is a
        BAD_FRAME error whose SEQ can be trusted"; section 3: the NAK carries the "SEQ of the frame if its
        CRC was good".  Returns the SEQ the frame was sent with, and the answers (code, SEQ; ``ok`` for an
        RSP) that came to it within ``timeout_s`` and to the pings after it (SEQ None), as
        :meth:`send_corrupted`."""
        type_, ver, body, what = MALFORMED[kind]
        return self._send_broken(lambda seq: _frame_of(type_, seq, body, ver),
                                 f"sent {what} (a test of the device's receiver)", timeout_s)

    def send_oversized(self, timeout_s: float = 1.0) -> list[tuple[str, int | None]]:
        """Send a ping whose header announces more than 4096 payload bytes (its CRC good), then bring the line
        back in step with a ``ping``.  docs/protocol.md section 2: "A header announcing more is a protocol
        error"; the receiver "drops the SOF and scans again from the next byte", so no command is taken from it
        (its bytes are garbage: a NAK to them has SEQ 0).  Returns the answers as :meth:`send_corrupted`."""
        return self._send_broken(lambda seq: _frame_of(REQ, seq, OVERSIZED),
                                 f"sent a ping whose header announces {len(OVERSIZED)} bytes (a test of the device's "
                                 "receiver)", timeout_s)[1]

    def send_nested(self, timeout_s: float = 1.0, settle_s: float = 0.3) -> tuple[int, list[tuple[str, int | None]]]:
        """Send a false header announcing a payload as long as the ``ping`` frame that follows it, then two bytes
        that fail its CRC, then bring the line back in step with a ``ping``.  docs/protocol.md section 2: "on a
        mismatch it drops only the two SOF bytes and scans again, because a genuine frame may begin inside the
        bytes it just rejected": the ping inside must be answered (an RSP with its SEQ, among the answers that
        matched no request).  Returns that ping's SEQ and the answers as :meth:`send_malformed`, waited for at
        least ``settle_s``."""
        def nested(seq: int) -> bytes:
            inner = _frame_of(REQ, seq, b'{"cmd":"ping"}')
            head = HEADER.pack(SOF, VERSION, REQ, 0, len(inner))
            return head + inner + (crc16(head[2:] + inner) ^ 0xFFFF).to_bytes(2, "big")
        return self._send_broken(nested, "sent a ping inside a false frame whose CRC fails (a test of the device's "
                                 "receiver)", timeout_s, settle_s=settle_s)

    def send_late_byte(self, gap_s: float, timeout_s: float = 1.0) -> tuple[int, list[tuple[str, int | None]]]:
        """Send a ``ping`` whose last byte follows the others after ``gap_s`` (well inside the silence after
        which section 2 abandons a partial frame), then bring the line back in step with a ``ping``.  The frame
        is whole and good: it must be answered, an RSP with its SEQ among the answers that matched no request.
        Returns its SEQ and the answers as :meth:`send_malformed`."""
        return self.send_in_pieces(gap_s, (-1,), timeout_s=timeout_s,
                                   what=f"a ping whose last byte comes {gap_s:g} s after the others")

    def send_in_pieces(self, gap_s: float, cuts: tuple[int, ...], *, body: bytes = b'{"cmd":"ping"}',
                       lead: bytes = b"", timeout_s: float = 1.0,
                       what: str = "") -> tuple[int, list[tuple[str, int | None]]]:
        """Send a good request frame around ``body`` (a ping), after the bytes ``lead`` (in the same write), in
        pieces cut before each byte offset of ``cuts`` (negative: from the end) with ``gap_s`` of silence at
        each cut (well inside the silence after which section 2 abandons a partial frame), then bring the line
        back in step with a ``ping``.  Section 2: the receiver "scans for A5 5A" and "waits for the whole
        frame": a byte stream has no message boundaries, so the frame is whole and must be answered, an RSP with
        its SEQ among the answers that matched no request.  Returns its SEQ and the answers as
        :meth:`send_malformed`."""
        cut_at = ", ".join(map(str, cuts))
        what = what or f"a ping of {len(body)} payload bytes cut at bytes {cut_at}, {gap_s:g} s apart"
        return self._send_broken(lambda seq: lead + _frame_of(REQ, seq, body),
                                 f"sent {what} (a test of the device's receiver)", timeout_s,
                                 settle_s=gap_s * max(1, len(cuts)), cuts=cuts, gap_s=gap_s, until_ok=True)

    def send_stalled(self, silence_s: float, timeout_s: float = 1.0) -> list[tuple[str, int | None]]:
        """Send the header of a request announcing 4000 payload bytes and a few of them, then nothing for
        ``silence_s``, then bring the line back in step with a ``ping`` (docs/protocol.md section 2: "A partial
        frame that receives no byte for 250 ms (host) / 500 ms (emulator) is abandoned the same way (a false
        SOF in line noise must not stall the stream)").  Returns the answers as :meth:`send_corrupted`; a
        ping not answered within ``timeout_s`` raises :class:`DeviceTimeout` (the line stayed stalled)."""
        def partial(seq: int) -> bytes:
            return HEADER.pack(SOF, VERSION, REQ, seq, 4000) + b'{"cmd":"ping","x":"'
        return self._send_broken(partial, f"sent a partial frame, then {silence_s:g} s of silence (a test of the "
                                 "device's receiver)", silence_s, settle_s=silence_s, ping_s=timeout_s)[1]

    @property
    def unmatched(self) -> list[tuple[str, int]]:
        """The answers (code or ``ok``, SEQ) that matched no outstanding request, oldest first."""
        with self._cond:
            return list(self._unmatched)

    def number_from(self, seq: int) -> None:
        """The next request is numbered ``seq`` (1..65535), the ones after it on from there (docs/protocol.md
        section 4: the host numbers its requests 1, 2, ... 65535, 1, ...)."""
        if not 1 <= seq <= 0xFFFF:
            raise ValueError(f"a request SEQ is 1..65535, not {seq}")
        with self._lock:
            self._seq = seq - 1 if seq > 1 else 0xFFFF

    def _send_broken(self, frame: Callable[[int], bytes], note: str, timeout_s: float, *, settle_s: float = 0.0,
                     ping_s: float | None = None, cuts: tuple[int, ...] = (), gap_s: float = 0.0,
                     until_ok: bool = False) -> tuple[int, list[tuple[str, int | None]]]:
        """``frame`` (given its SEQ) written alone (in pieces cut before the byte offsets ``cuts``, ``gap_s``
        apart); its answers waited for up to ``timeout_s`` (and at least ``settle_s``): the first of them, or
        with ``until_ok`` the RSP with its SEQ (a NAK to other bytes of the write may come first); then pings
        until one is answered."""
        deadline = time.monotonic() + timeout_s
        settled = time.monotonic() + settle_s
        with self._lock:
            self._raise_if_dead()
            if self._pending:
                raise DeviceError(f"{self.name}: a broken frame is sent only with no request outstanding")
            seq = self._alloc_seq()
            raw = frame(seq)
            seen = len(self._unmatched)
            t_ns = time.perf_counter_ns()
            self.transcript.bytes_out(raw, t_ns)
            self.transcript.note(note, t_ns)
            start = 0
            for cut in sorted(c % len(raw) for c in cuts):
                if cut > start:
                    self.transport.write(raw[start:cut])
                    time.sleep(gap_s)
                    start = cut
            self.transport.write(raw[start:])
        deadline = max(deadline, time.monotonic() + timeout_s)
        def waiting() -> bool:
            if until_ok:
                return ("ok", seq) not in self._unmatched[seen:]
            return len(self._unmatched) == seen

        with self._cond:
            while waiting() and self._error is None and not self._closed:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
        time.sleep(max(0.0, settled - time.monotonic()))
        answers: list[tuple[str, int | None]] = list(self._unmatched[seen:])
        for _ in range(3):
            try:
                self.call("ping", None, timeout_s if ping_s is None else ping_s)
                break
            except DeviceNak as exc:
                if exc.code not in (BAD_FRAME, BAD_CRC):
                    raise
                answers.append((exc.code, None))
        return seq, answers

    def request(self, cmd: str, timeout_s: float = 1.0, **args: Any) -> dict[str, Any]:
        """``call`` returning just the response payload."""
        return self.call(cmd, args, timeout_s).payload

    def _alloc_seq(self) -> int:
        seq = next_seq(self._seq)
        while seq in self._pending:  # only after 65535 outstanding requests; never in practice
            seq = next_seq(seq)
        self._seq = seq
        return seq

    def _raise_if_dead(self) -> None:
        if self._closed:
            raise DeviceError(f"{self.name}: link is closed")
        if self._error is not None:
            raise DeviceError(f"{self.name}: link is down ({self._error})")

    # ------------------------------------------------------------------ events

    def events(self, timeout_s: float = 0.0) -> list[DeviceEvent]:
        """Take every queued event; if none is queued, wait up to ``timeout_s`` for the first."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            self._raise_rejected()
            while not self._events:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._error is not None or self._closed:
                    break
                self._cond.wait(remaining)
                self._raise_rejected()
            out = list(self._events)
            self._events.clear()
        return out

    def wait_event(
        self,
        name: str,
        timeout_s: float,
        predicate: Callable[[DeviceEvent], bool] | None = None,
    ) -> DeviceEvent:
        """Take the first queued event called ``name`` that satisfies ``predicate``; others stay queued."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                self._raise_rejected()
                for i, ev in enumerate(self._events):
                    try:
                        taken = ev.name == name and (predicate is None or predicate(ev))
                    except DeviceError:  # the predicate read a field outside the contract: not left for later
                        del self._events[i]
                        raise
                    if taken:
                        del self._events[i]
                        return ev
                if self._error is not None:
                    raise DeviceError(f"{self.name}: link is down while waiting for '{name}' ({self._error})")
                if self._closed:
                    raise DeviceError(f"{self.name}: link closed while waiting for '{name}'")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise DeviceTimeout(f"{self.name}: no '{name}' event within {timeout_s} s")
                self._cond.wait(remaining)

    def _raise_rejected(self) -> None:
        """Raise the oldest event the checker rejected (called holding ``_cond``)."""
        if self._rejected:
            raise self._rejected.popleft()

    def pending_events(self) -> list[DeviceEvent]:
        """A snapshot of the queue without consuming it."""
        with self._cond:
            return list(self._events)

    def clear_events(self) -> None:
        with self._cond:
            self._events.clear()

    # ------------------------------------------------------------------ reader thread

    def _run(self) -> None:
        decoder = self._decoder
        last_rx = time.perf_counter_ns()
        try:
            while not self._stop.is_set():
                data = self.transport.read()
                t_ns = time.perf_counter_ns()  # stamped here, in the thread that read the bytes
                if data:
                    last_rx = t_ns
                    self.transcript.bytes_in(data, t_ns)
                    self._dispatch(decoder.feed(data), t_ns)
                elif decoder.pending and t_ns - last_rx > self._stale_ns:
                    self._dispatch(decoder.drop_partial(), t_ns)
        except DeviceError as exc:
            if not self._stop.is_set():
                self._fail(exc)
        except Exception as exc:  # a bug in dispatch must not leave waiters hanging
            self._fail(DeviceError(f"{self.name}: reader stopped: {exc!r}"))

    def _dispatch(self, items: list[Frame | ProtocolError], t_ns: int) -> None:
        for item in items:
            if isinstance(item, ProtocolError):
                self.protocol_errors.append(item)
                self.transcript.add(IN, "error", t_ns=t_ns, text=f"{item.code}: {item.reason}",
                                    code=item.code, seq=item.seq)
                continue
            body = item.raw[8:-2].decode() if item.raw else ""
            text = _summary(item.type, item.seq, item.payload, body)
            self.transcript.add(IN, "frame", t_ns=t_ns, text=text, type=item.type_name, seq=item.seq,
                                payload=item.payload)
            if item.type in (RSP, NAK):
                self._complete(item, t_ns)
            elif item.type == EVT:
                self._queue_event(item, t_ns)
            else:
                self.transcript.note(f"ignored a REQ from the device (seq={item.seq})", t_ns)

    def _complete(self, frame: Frame, t_ns: int) -> None:
        with self._lock:
            if frame.type == NAK and frame.seq == 0:
                # The device could not parse some request: fail everything outstanding now
                # rather than let each wait for its deadline.
                targets = list(self._pending.values())
                self._pending.clear()
            else:
                found = self._pending.pop(frame.seq, None)
                targets = [found] if found is not None else []
        if not targets:
            self.transcript.note(f"{frame.type_name} seq={frame.seq} matches no outstanding request", t_ns)
            with self._cond:
                self._unmatched.append((str(frame.payload.get("code", "?")) if frame.type == NAK else "ok",
                                        frame.seq))
                self._cond.notify_all()
            return
        for pending in targets:
            broken = self._check(frame, pending.cmd, t_ns)
            if broken is not None and (frame.type != RSP or self.strict or getattr(broken, "whole", True)):
                pending.error = broken
            elif frame.type == RSP:
                if frame.payload.get("ok") is not True:
                    pending.error = DeviceError(f"{self.name}: RSP to {pending.cmd} lacks \"ok\": true")
                else:  # a field outside the contract costs only the reader of that field
                    payload = frame.payload if broken is None else OffContract(frame.payload, broken.parts)  # type: ignore[attr-defined]
                    pending.reply = Reply(payload, frame.seq, pending.t_sent_ns, t_ns)
            else:
                code = str(frame.payload.get("code", "?"))
                reason = str(frame.payload.get("reason", "") or "")
                cls = NakError if code == "REFUSED" else DeviceNak
                pending.error = cls(pending.cmd, code, reason, pending.seq)
            pending.done.set()

    def _queue_event(self, frame: Frame, t_ns: int) -> None:
        last = self._last_event_seq
        if last is not None and frame.seq != next_seq(last):
            expected = next_seq(last)
            self.event_gaps.append((expected, frame.seq))
            self.transcript.note(f"event seq gap: expected {expected}, got {frame.seq}", t_ns,
                                 expected=expected, got=frame.seq)
        self._last_event_seq = frame.seq
        broken = self._check(frame, None, t_ns)
        if broken is not None and (self.strict or getattr(broken, "whole", True)):
            with self._cond:
                self._rejected.append(broken)
                self._cond.notify_all()
            return
        payload = frame.payload if broken is None else OffContract(frame.payload, broken.parts)  # type: ignore[attr-defined]
        event = DeviceEvent(str(frame.payload.get("event", "")), payload, frame.seq, t_ns)
        with self._cond:
            if len(self._events) >= self._max_events:
                self._events.popleft()
                self.events_dropped += 1
            self._events.append(event)
            self._cond.notify_all()

    def _check(self, frame: Frame, cmd: str | None, t_ns: int) -> DeviceError | None:
        checker = self.checker
        if checker is None:
            return None
        broken = checker(frame.type, cmd, frame.payload)
        if broken is not None:
            self.transcript.note(f"contract: {broken}", t_ns)
            with self._lock:
                for part in (getattr(broken, "parts", None) or {"": broken}).values():
                    key = (str(getattr(part, "definition", "")), str(getattr(part, "path", "")))
                    seen = self.contract_seen.setdefault(key, [part, 0])
                    seen[1] += 1
        return broken

    def _fail(self, exc: DeviceError) -> None:
        self._error = exc
        self.transcript.note(f"link down: {exc}")
        self._fail_pending(lambda cmd: f"{self.name}: connection lost awaiting {cmd}: {exc}")

    def _fail_pending(self, message: Callable[[str], str]) -> None:
        """End every request still waiting for its reply with a ``DeviceError`` (``message`` of its
        command), and wake whoever waits on the link."""
        with self._lock:
            targets = list(self._pending.values())
            self._pending.clear()
        for pending in targets:
            pending.error = DeviceError(message(pending.cmd))
            pending.done.set()
        with self._cond:
            self._cond.notify_all()

    # ------------------------------------------------------------------ lifecycle

    def close(self, timeout_s: float = 1.0) -> None:
        """Stop the reader (bounded by ``timeout_s``) and close the port, whatever happens."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        try:
            self.transport.cancel_read()
            self._thread.join(timeout_s)
        finally:
            with self._lock:  # never close under a write in flight
                self.transport.close()
            with contextlib.suppress(RuntimeError):
                self._thread.join(0.2)
            self._fail_pending(lambda cmd: f"{self.name}: link closed before the reply to {cmd}")

    def __enter__(self) -> FramedLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: the malformed requests of :meth:`FramedLink.send_malformed`: kind -> (TYPE, VER, payload, what it is)
MALFORMED: dict[str, tuple[int, int, bytes, str]] = {
    "float": (REQ, VERSION, b'{"cmd":"ping","x":1.5}', "a ping whose payload holds a float"),
    "integral-float": (REQ, VERSION, b'{"cmd":"ping","x":1000.0}', "a ping whose payload holds a float with no "
                       "fraction"),
    "nested-float": (REQ, VERSION, b'{"cmd":"ping","x":{"y":[1,{"z":1000.0}]}}', "a ping whose payload holds a "
                     "float inside a nested object"),
    "exponent": (REQ, VERSION, b'{"cmd":"ping","x":1e3}', "a ping whose payload holds a number with an exponent "
                 "(\"1e3 included\")"),
    "duplicate-key": (REQ, VERSION, b'{"cmd":"ping","cmd":"ping"}', "a ping whose payload gives a key twice"),
    "not-object": (REQ, VERSION, b'["ping"]', "a payload that is not an object"),
    "not-utf8": (REQ, VERSION, b'{"cmd":"ping","x":"\xff\xfe"}', "a ping whose payload is not UTF-8"),
    "unknown-type": (0x09, VERSION, b'{"cmd":"ping"}', "a ping in a frame of unknown TYPE 0x09"),
    "version": (REQ, 2, b'{"cmd":"ping"}', "a ping in a frame of VER 2"),
    "type-high-bits": (0x11, VERSION, b'{"cmd":"ping"}', "a ping in a frame of TYPE 0x11 (REQ's low bits)"),
    "empty": (REQ, VERSION, b"", "a request with an empty payload (LEN 0)"),
    "nan": (REQ, VERSION, b'{"cmd":"ping","x":NaN}', "a ping whose payload holds NaN (\"also no NaN, Infinity\")"),
    "trailing": (REQ, VERSION, b'{"cmd":"ping"}{"cmd":"ping"}', "a payload of two objects (PAYLOAD is \"one JSON "
                 "object\")"),
}
#: a ping with the whitespace between tokens JSON allows (docs/protocol.md section 2: "no insignificant whitespace
#: is required, but receivers accept it")
SPACED = b'{ "cmd" : "ping" }'
#: a header announcing more than 4096 payload bytes, with nothing of its own after it: what follows in the same
#: write is scanned again from the byte after its SOF (docs/protocol.md section 2)
FALSE_HEADER = HEADER.pack(SOF, VERSION, REQ, 0, 5000)
#: a ping padded with spaces past the 4096 bytes a header may announce (docs/protocol.md section 2)
OVERSIZED = b'{"cmd":"ping"' + b" " * 4090 + b"}"
#: a ping of exactly the largest payload section 2 allows (LEN 4096: "0..4096"), padded with JSON whitespace
FULL_LENGTH = b'{"cmd":"ping"' + b" " * 4082 + b"}"


def _frame_of(type: int, seq: int, body: bytes, ver: int = VERSION) -> bytes:
    """A frame around ``body`` as it stands (a payload :func:`encode_frame` would refuse), its CRC good."""
    head = HEADER.pack(SOF, ver, type, seq, len(body))
    return head + body + crc16(head[2:] + body).to_bytes(2, "big")


def _reseq(raw: bytearray, seq: int, *, corrupt: bool) -> bytes:
    """``raw`` (a frame encoded with SEQ 0) with ``seq`` put in, its CRC computed again, then broken if ``corrupt``."""
    out = bytearray(_frame_of(raw[3], seq, bytes(raw[8:-2])))
    if corrupt:
        out[-1] ^= 0xFF
    return bytes(out)
