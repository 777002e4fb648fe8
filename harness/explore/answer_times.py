"""The answer times the explorer judges (docs/protocol.md section 5: a device answers a request within
100 ms unless the command says otherwise), measured so that a loaded host is never taken for a slow
device.

* A read is asked again when late, a little apart, and judged by its fastest answer, less the host's own
  delay measured by a loopback echo (:class:`HostEcho`).
* An act's request is asked again in a form that changes nothing (the device side says which, and what
  puts back what the act took away), and judged by the fastest answer.
* An answer that cannot be asked again (the first identity after power-up, ``shoe.status`` during a
  paced deal) is judged by its condition met again: late at two in a row, it is slow.

:class:`AnswerClock` keeps what the last conditions showed; it reads the host's stamps of each line's
transcript and sends nothing but the repetitions it is given.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from harness.errors import DeviceError
from harness.explore.judge import ANSWER_DEADLINE_MS, Observed

_MS = Decimal("0.001")
#: a read answered past the deadline is asked again this many more times before it is judged slow
ANSWER_RETRIES = 5
#: the first gap before asking again; each later gap twice the one before (0.05 to 0.8 s, 1.55 s in all), so
#: that a burst of load on the host is waited out
ANSWER_RETRY_GAP_S = 0.05
#: the asks again of a late read wait out this much of a burst of load (s); a condition met again sooner than
#: this after it was met late is not its confirmation (the same burst may have made both late)
LOAD_BURST_S = ANSWER_RETRY_GAP_S * (2 ** ANSWER_RETRIES - 1)
#: the requests of the acts whose answer time is judged (docs/protocol.md section 5); the test channel's
#: own commands (``test.*``) and the shoe's deal are not among them
ACT_REQUESTS = frozenset({"config.set", "wager.place", "wager.remove", "round.open", "round.no_more_bets",
                          "round.settle", "lockout.press", "reset_key"})

#: the acts whose answer, once taken, cannot be asked for again (a round voided, settled or opened, wagering
#: closed by no more bets or the button: asked again, another path answers); an on-time one clears a late one
#: waiting for confirmation
ONCE_ONLY_ACTS = frozenset({"round.settle", "round.open", "round.no_more_bets", "lockout.press"})

#: (role, command, arguments) -> the same request in a form that changes nothing, or None
Probe = Callable[[str, str, Mapping[str, Any]], Mapping[str, Any] | None]
#: (command, arguments) -> the request that puts back what the act took away, or None
Restore = Callable[[str, Mapping[str, Any]], tuple[str, dict[str, Any]] | None]


class HostEcho:
    """A loopback echo inside this process: the time a byte takes there and back is the host's own delay at
    that moment (its scheduler and this process's threads), none of it a device's.  A late answer is judged
    less that delay, measured right after it: on a host under load, the host's wait is not the device's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._near: socket.socket | None = None

    def _start(self) -> socket.socket:
        near, far = socket.socketpair()
        near.settimeout(2.0)

        def echo() -> None:
            with far:
                while True:
                    try:
                        data = far.recv(1)
                    except OSError:
                        return
                    if not data:
                        return
                    far.sendall(data)

        threading.Thread(target=echo, name="explore-host-echo", daemon=True).start()
        return near

    def delay_s(self) -> float:
        """One round trip through the echo (s); 0 where it cannot be measured."""
        with self._lock:
            try:
                if self._near is None:
                    self._near = self._start()
                t0 = time.perf_counter()
                self._near.sendall(b"x")
                self._near.recv(1)
                return time.perf_counter() - t0
            except OSError:
                return 0.0


HOST_ECHO = HostEcho()


def device_ms(started: float) -> Decimal:
    """The time since ``started`` (``time.perf_counter()``) in ms, the host's own delay taken off."""
    return (Decimal(str(time.perf_counter() - started - HOST_ECHO.delay_s())) * 1000).quantize(_MS)


class AnswerClock:
    """The answer times of one table's lines.  ``lines``: the (role, device) pairs whose driver keeps a
    transcript with the host's stamps; ``timeout_s``: how long a repetition is waited for."""

    def __init__(self, lines: Callable[[], list[tuple[str, Any]]], timeout_s: float) -> None:
        self.lines = lines
        self.timeout_s = timeout_s
        #: each device's first identity after the last power-up was answered late (ms), to be confirmed by the
        #: next power-up: the first ask of a condition cannot be asked again, the condition can
        self.first_identity_late: dict[str, Decimal] = {}
        #: the last paced deal's shoe.status was answered late (ms), to be confirmed at the next one
        self.mid_deal_late: Decimal | None = None
        #: by command, an act that cannot be asked again harmlessly (a void, a round opened) answered late
        #: at its last ask (ms), to be confirmed at the next ask of that command
        self.act_late: dict[str, Decimal] = {}
        #: by (read, the step's operation), a read whose first ask after that operation came late and whose
        #: asks again came on time (ms): a device slow only on its first answer after an act (a list rebuilt
        #: after a settlement) is judged at the next step of the same operation, late at both it is slow
        self.first_read_late: dict[tuple[str, str], Decimal] = {}
        #: when each of those came (``time.perf_counter()``)
        self.first_read_at: dict[tuple[str, str], float] = {}

    def marks(self) -> dict[str, int]:
        """Where each line's transcript stands now (the acts sent after it are timed)."""
        return {role: len(dev.link.transcript) for role, dev in self.lines()}

    def act_times(self, marks: Mapping[str, int]) -> list[tuple[str, str, Mapping[str, Any], Decimal]]:
        """The act requests sent since ``marks`` and their answer times from the host's stamps (the
        request written to its answer read): (role, command, arguments, ms)."""
        out = []
        for role, dev in self.lines():
            sent: dict[int, tuple[str, Mapping[str, Any], int]] = {}
            for e in dev.link.transcript.since(marks.get(role, 0)):
                if e.kind != "frame":
                    continue
                kind, seq = e.fields.get("type"), e.fields.get("seq")
                payload = e.fields.get("payload") or {}
                if kind == "REQ" and payload.get("cmd") in ACT_REQUESTS:
                    sent[seq] = (str(payload["cmd"]), {k: v for k, v in payload.items() if k != "cmd"}, e.t_ns)
                elif kind in ("RSP", "NAK") and seq in sent:
                    cmd, args, t0 = sent.pop(seq)
                    out.append((role, cmd, args, (Decimal(e.t_ns - t0) / Decimal(1_000_000)).quantize(_MS)))
        return out

    def judge_acts(self, marks: Mapping[str, int], obs: Observed, probe: Probe, restore: Restore) -> None:
        """Each act request's answer time since ``marks``.  One late answer on a loaded host decides
        nothing: a late act is asked again in a form that changes nothing (``probe``; after ``restore`` puts
        back what it took away), up to :data:`ANSWER_RETRIES` times a little apart, and judged by the
        fastest answer; a late act that cannot be asked again harmlessly is only counted."""
        devices = dict(self.lines())
        #: by command, the fastest answer of this step's acts that cannot be asked again (one host stall may
        #: hold several back-to-back acts of one step: the step counts once)
        unasked: dict[str, Decimal] = {}
        for role, cmd, args, ms in self.act_times(marks):
            if ms <= ANSWER_DEADLINE_MS:
                if cmd in ONCE_ONLY_ACTS and probe(role, cmd, args) is None:
                    unasked[cmd] = min(ms, unasked.get(cmd, ms))  # on time where it could not be asked again
                continue
            again_as = probe(role, cmd, args)
            if again_as is None:
                device = (ms - Decimal(str(HOST_ECHO.delay_s())) * 1000).quantize(_MS)
                unasked[cmd] = min(device, unasked.get(cmd, device))
                obs.late_unconfirmed.append((cmd, device))
                continue
            put_back = restore(cmd, args)
            fastest, tries = ms, 1
            link = devices[role].link
            while fastest > ANSWER_DEADLINE_MS and tries <= ANSWER_RETRIES:
                time.sleep(ANSWER_RETRY_GAP_S * 2 ** (tries - 1))
                if put_back is not None:
                    with contextlib.suppress(DeviceError):
                        link.call(put_back[0], put_back[1], self.timeout_s)
                mark = len(link.transcript)
                with contextlib.suppress(DeviceError):
                    link.call(cmd, dict(again_as), self.timeout_s)
                host = Decimal(str(HOST_ECHO.delay_s())) * 1000  # the host's own delay, just after the ask
                for _r, _c, _a, again in self.act_times({role: mark, **{r: 1 << 62 for r in devices if r != role}}):
                    fastest = min(fastest, (again - host).quantize(_MS))
                tries += 1
            if fastest > ANSWER_DEADLINE_MS:
                obs.slow_acts.append((cmd, fastest, tries))
        for cmd, fastest in unasked.items():
            # as a first identity after power-up: late at two steps' asks of the command in a row (the host's
            # own delay taken off each), it is slow
            if fastest > ANSWER_DEADLINE_MS and cmd in self.act_late:
                obs.slow_acts.append((f"{cmd} (late at two acts in a row)", min(fastest, self.act_late[cmd]), 2))
            if fastest > ANSWER_DEADLINE_MS:
                self.act_late[cmd] = fastest
            else:
                self.act_late.pop(cmd, None)

    def timed(self, obs: Observed, request: str, ask: Callable[[], Any]) -> Any:
        """``ask`` (a read: asking again changes nothing) and its answer time.  An answer past the deadline
        is asked again (up to :data:`ANSWER_RETRIES` more times, a little apart) and only a read whose every
        answer came late, judged by its fastest less the host's own delay, goes into ``obs.slow``."""
        t0 = time.perf_counter()
        got = ask()
        fastest = time.perf_counter() - t0
        first = fastest
        tries = 1
        while fastest * 1000 > float(ANSWER_DEADLINE_MS) and tries <= ANSWER_RETRIES:
            fastest = min(fastest, fastest - HOST_ECHO.delay_s())  # the host's own delay is not the device's
            if fastest * 1000 <= float(ANSWER_DEADLINE_MS):
                break
            time.sleep(ANSWER_RETRY_GAP_S * 2 ** (tries - 1))
            t0 = time.perf_counter()
            ask()
            fastest = min(fastest, time.perf_counter() - t0 - HOST_ECHO.delay_s())
            tries += 1
        if fastest * 1000 > float(ANSWER_DEADLINE_MS):
            obs.slow.append((request, (Decimal(str(fastest)) * 1000).quantize(_MS), tries))
        elif tries > 1:  # the first ask late, an ask again on time: judged by the condition met again
            self.first_read(obs, request, (Decimal(str(first - HOST_ECHO.delay_s())) * 1000).quantize(_MS))
        else:
            self.first_read_late.pop((request, obs.op or ""), None)
            self.first_read_at.pop((request, obs.op or ""), None)
        return got

    def first_read(self, obs: Observed, request: str, ms: Decimal) -> None:
        """A read whose first ask after ``obs.op`` took ``ms`` (the host's own delay taken off) and whose
        ask again came on time.  A device may be slow only on its first answer after an act, so, as a first
        identity after power-up, the condition is met again: late at two steps of that operation in a row,
        the first read is slow."""
        self._late_again((request, obs.op or ""), ms, obs,
                         f"{request}, the first read after {obs.op} (late at two {obs.op} in a row)")

    def _late_again(self, key: tuple[str, str], ms: Decimal, obs: Observed, what: str) -> None:
        """A first answer under condition ``key`` took ``ms``: on time, the condition is cleared; late, it is
        slow (``what``) only when it was late the last time the condition was met too, at least
        :data:`LOAD_BURST_S` before (a condition met again within one burst of load on the host, as the
        pipelined requests of consecutive steps are, leaves the first late one to be confirmed later)."""
        if ms <= ANSWER_DEADLINE_MS:
            self.first_read_late.pop(key, None)
            self.first_read_at.pop(key, None)
            return
        now = time.perf_counter()
        before = self.first_read_late.get(key)
        if before is not None:
            if now - self.first_read_at.get(key, now) < LOAD_BURST_S:
                return
            obs.slow.append((what, min(ms, before), 2))
        self.first_read_late[key] = ms
        self.first_read_at[key] = now

    def mid_deal(self, ms: Decimal, obs: Observed) -> None:
        """``shoe.status`` read during a paced deal.  The deal is over before it could be asked again, so,
        as a first identity after power-up, a late answer is judged at the next paced deal: late at both, it
        is slow."""
        late = ms > ANSWER_DEADLINE_MS
        if late and self.mid_deal_late is not None:
            obs.slow.append(("shoe.status during a paced deal (at two paced deals in a row)",
                             min(ms, self.mid_deal_late), 2))
        self.mid_deal_late = ms if late else None

    def hello_after_reconnect(self, role: str, ms: Decimal | None, obs: Observed) -> None:
        """The ``hello`` on a line the host opened again (``ms``, host stamps less the host's own delay).  A
        first answer on a new line cannot be asked again, its condition can: late at two reconnections of
        that line in a row, it is slow."""
        if ms is None:
            return
        ms = (ms - Decimal(str(HOST_ECHO.delay_s())) * 1000).quantize(_MS)
        self._late_again((f"{role} hello", "reconnect"), ms, obs,
                         f"{role} hello on a line opened again (late at two reconnections in a row)")

    def first_identities(self, times: Mapping[str, Decimal], obs: Observed) -> None:
        """Each device's first identity after power-up (``times``: ms by role).  A first answer cannot be
        asked for again, but its condition can: a device late at one power-up is judged at the next, and
        only late at both is it slow."""
        late = {role: ms for role, ms in times.items() if ms > ANSWER_DEADLINE_MS}
        for role, ms in sorted(late.items()):
            before = self.first_identity_late.get(role)
            if before is not None:
                obs.slow.append((f"{role} identity, the first after power-up (at two power-ups in a row)",
                                 min(ms, before), 2))
        self.first_identity_late = late
