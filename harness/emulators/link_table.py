"""A linked table's side of the link (docs/protocol.md, section 14): its connection to the link
controller, the outbox of contributions and hit claims, the common meters as last shown.

The emulated table controller (:mod:`harness.emulators.controller`) hands two things to
:class:`TableLink`: the qualifying wagers of a round once wagering closed (:meth:`contribute`) and a
seat whose cards won a common meter (:meth:`claim`).  Each becomes a numbered message in the outbox,
which is part of the controller's non-volatile storage: a message leaves the outbox only when the
link controller has answered it, and is sent again after every reconnection or power cycle, so a
contribution is never lost (the controller recognises a number it has processed and counts it once).

One thread per table does the talking: it connects to ``127.0.0.1:PORT`` (``link.join``), delivers
the outbox in order, polls ``link.status`` when idle (no answer within :data:`ANSWER_S`: the link is
down) and takes the controller's ``link.status`` events (a reset of a common meter, the final
awards of a hit).  It never holds the table's lock while it waits on the network; it takes it to
change the table's state (``link`` events, the pending payments, the payout events of a hit).

While the link is down the table refuses Royal 9 wagers (reason ``link-down``): it can no longer
show the player what the common meter would pay (461a.12(b)(1)); the base game goes on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any, Protocol

from harness.devices.link import FramedLink, NakError
from harness.devices.transcript import Entry, Transcript
from harness.devices.transport import SerialTransport
from harness.devices.vocabulary import PROTOCOL_VERSION
from harness.errors import DeviceError
from harness.games.interpretations import Interpretations
from harness.money import Cents

#: how long the table waits for the link controller's answer before it calls the link down
ANSWER_S = 0.5
#: a status poll when nothing else was said for this long
POLL_S = 0.2
RETRY_S = 0.05


class SilentTranscript(Transcript):
    """The emulator keeps no transcript of its own link (the host's drivers keep theirs)."""

    def add(self, direction: str, kind: str, *, t_ns: int, data: bytes = b"", text: str = "",
            **fields: Any) -> Entry:
        return Entry(t_ns, direction, kind)


class LinkPayoutAccounts(Protocol):
    """The payout accounts as the link books into them (:class:`harness.emulators.settle.Accounts`)."""

    #: meter -> {"seat", "amount", "category"}: attendant payouts waiting for the reset key
    pending: dict[str, dict[str, Any]]

    def paid(self, amount: Cents, by: str) -> None: ...


class Host(Protocol):
    """What the link reads and changes of its table's controller
    (:class:`harness.emulators.controller.Controller`)."""

    @property
    def powered(self) -> bool: ...
    @property
    def lock(self) -> threading.RLock: ...
    @property
    def accounts(self) -> LinkPayoutAccounts: ...
    @property
    def interp(self) -> Interpretations: ...

    def emit(self, event: str, **fields: Any) -> None: ...
    def save(self) -> None: ...


class TableLink:
    """See the module docstring.  ``settings``: ``table`` (its name on the link), ``address``
    (``127.0.0.1:PORT``), ``meters`` (the table's meter name -> the common meter's)."""

    def __init__(self, ctrl: Host, settings: Mapping[str, Any]) -> None:
        self.ctrl = ctrl
        self.table = str(settings["table"])
        self.address = str(settings.get("address") or "")
        #: the table's meter -> the common meter it is on
        self.meters: dict[str, str] = {str(k): str(v) for k, v in (settings.get("meters") or {}).items()}
        self.up = False
        #: common meter -> the amount the controller last reported
        self.shown: dict[str, Cents] = {}
        self.outbox: list[dict[str, Any]] = []
        self.next_n = 1
        #: message number -> the claim awaiting its acknowledgement or final award
        self.claims: dict[int, dict[str, Any]] = {}
        #: round trips of answered contributions (ns), for the benchmark (test.state)
        self.rtt_ns: list[int] = []
        self._link: FramedLink | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._last_talk = 0.0
        self._thread: threading.Thread | None = None

    # -- state in non-volatile storage -------------------------------------------------------
    def to_state(self) -> dict[str, Any]:
        return {"outbox": self.outbox, "next_n": self.next_n, "shown": self.shown,
                "claims": {str(n): c for n, c in self.claims.items()}}

    def restore(self, state: Mapping[str, Any] | None) -> None:
        if not state:
            return
        self.outbox = list(state.get("outbox", []))
        self.next_n = int(state.get("next_n", 1))
        self.shown = {str(k): int(v) for k, v in (state.get("shown") or {}).items()}
        self.claims = {int(n): dict(c) for n, c in (state.get("claims") or {}).items()}

    def latency(self) -> dict[str, Any]:
        """Round trips of the answered contributions: their count and 101 quantiles (q0 ... q100) in
        microseconds (test.state; a benchmark pools the tables' quantiles)."""
        rtts = sorted(self.rtt_ns)
        if not rtts:
            return {"contributions": 0, "rtt_us": []}
        qs = [rtts[min(len(rtts) - 1, (len(rtts) * q) // 100)] // 1000 for q in range(101)]
        return {"contributions": len(rtts), "rtt_us": qs}

    def amount(self, meter: str) -> Cents:
        """What the table shows for one of its linked meters (the controller's last report)."""
        return self.shown.get(self.meters[meter], 0)

    # -- what the table controller hands over (called with the table's lock held) ---------------
    def _enqueue(self, cmd: str, args: dict[str, Any]) -> int:
        n = self.next_n
        self.next_n += 1
        self.outbox.append({"cmd": cmd, "args": {"table": self.table, "n": n, **args}})
        self._wake.set()
        return n

    def contribute(self, round_no: int, wagers: list[tuple[int, Cents]]) -> None:
        if wagers and self.meters:
            self._enqueue("link.contribute", {"round": round_no,
                                               "wagers": [{"seat": s, "amount": a} for s, a in wagers]})

    def claim(self, round_no: int, seat: int, meter: str, category: str, stake: Cents, fixed: Cents) -> None:
        """A seat won the common meter behind ``meter``: paid when the controller acknowledges it."""
        n = self._enqueue("link.hit", {"round": round_no, "seat": seat, "meter": self.meters[meter],
                                       "category": category})
        self.claims[n] = {"seat": seat, "meter": meter, "category": category, "stake": stake, "fixed": fixed,
                          "acked": False, "paid": False}
        self.ctrl.accounts.pending[meter] = {"seat": seat, "amount": 0, "category": category, "linked": True}

    # -- the thread ------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None and self.address:
            self._thread = threading.Thread(target=self._run, name=f"link-{self.table}", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(2.0)
        self._close()

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self.ctrl.powered and self._link is not None:
                self._down()  # a dark table says nothing
            if self._link is not None and not self._link.alive:
                self._down()  # the controller closed the line, or went dark
            if self._link is None:
                if not self.ctrl.powered or not self._connect():
                    self._stop.wait(RETRY_S)
                continue
            try:
                busy = self._deliver()
                self._take_events()
                if not busy and time.monotonic() - self._last_talk > POLL_S:
                    self._poll()
            except DeviceError:
                self._down()
                continue
            if not busy:
                self._wake.wait(0.02)
                self._wake.clear()

    def _connect(self) -> bool:
        try:
            link = FramedLink(SerialTransport(f"socket://{self.address}", exclusive=False), name=f"link-{self.table}",
                              transcript=SilentTranscript(self.table))
        except DeviceError:
            return False
        try:
            link.call("hello", {"version": PROTOCOL_VERSION, "versions": [PROTOCOL_VERSION]}, ANSWER_S)
            joined = link.call("link.join", {"table": self.table}, ANSWER_S).payload
        except (DeviceError, NakError):
            link.close()
            return False
        self._link = link
        self._last_talk = time.monotonic()
        with self.ctrl.lock:
            self._show(joined.get("meters"))
            self._set_up(True)
        return True

    def _deliver(self) -> bool:
        with self.ctrl.lock:
            msg = dict(self.outbox[0]) if self.outbox else None
        if msg is None or self._link is None:
            return False
        t0 = time.perf_counter_ns()
        reply = self._link.call(str(msg["cmd"]), dict(msg["args"]), ANSWER_S).payload
        self._last_talk = time.monotonic()
        with self.ctrl.lock:
            if self.outbox and self.outbox[0]["args"]["n"] == msg["args"]["n"]:
                self.outbox.pop(0)
            if msg["cmd"] == "link.contribute":
                self.rtt_ns.append(time.perf_counter_ns() - t0)
                del self.rtt_ns[:-5000]
            else:
                self._acknowledged(int(msg["args"]["n"]), reply)
            self._show(reply.get("meters"))
            self.ctrl.save()
        return True

    def _poll(self) -> None:
        assert self._link is not None
        reply = self._link.call("link.status", {"table": self.table}, ANSWER_S).payload
        self._last_talk = time.monotonic()
        with self.ctrl.lock:
            self._show(reply.get("meters"))

    def _take_events(self) -> None:
        assert self._link is not None
        for ev in self._link.events(0.0):
            if ev.name != "link.status":
                continue
            with self.ctrl.lock:
                self._show(ev.payload.get("meters"))
                if ev.payload.get("reset"):
                    self._reset(str(ev.payload["reset"]), ev.payload.get("awards") or [])
                self.ctrl.save()

    def _down(self) -> None:
        self._close()
        with self.ctrl.lock:
            self._set_up(False)

    def _close(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            link.close(0.5)

    # -- state changes (the table's lock held) ------------------------------------------------------
    def _show(self, meters: Any) -> None:
        if isinstance(meters, Mapping):
            self.shown.update({str(k): int(v) for k, v in meters.items() if isinstance(v, int)})

    def _set_up(self, up: bool) -> None:
        if up != self.up:
            self.up = up
            self.ctrl.emit("link", up=up)

    def _acknowledged(self, n: int, ack: Mapping[str, Any]) -> None:
        """The hit acknowledgement: the seat is told what the meter showed; paid once the award is final."""
        claim = self.claims.get(n)
        if claim is None or claim["acked"]:
            return
        claim["acked"] = True
        meter = str(claim["meter"])
        self.ctrl.emit("hit", seat=claim["seat"], category=claim["category"], meter=meter,
                       amount=int(ack.get("amount") or 0), order=ack.get("order"), instant=ack.get("instant"))
        entry = self.ctrl.accounts.pending.get(meter)
        if entry is not None:
            award = ack.get("award")
            entry["amount"] = int(award if award is not None else ack.get("amount") or 0)
        if ack.get("final"):
            self._pay(n, int(ack["award"]))
        if not ack.get("pending"):  # the meter reset at the hit: nothing waits for the key
            self._settled(meter, n)

    def _pay(self, n: int, award: Cents) -> None:
        claim = self.claims[n]
        if claim["paid"]:
            return
        claim["paid"] = True
        stake = int(claim["stake"])
        kept = stake if self.ctrl.interp.award_returns_stake else 0
        self.ctrl.emit("payout", seat=claim["seat"], type="royal9", category=claim["category"], stake=stake,
                       returned=kept + int(claim["fixed"]) + award, paid_by="attendant")
        entry = self.ctrl.accounts.pending.get(str(claim["meter"]))
        if entry is not None:
            entry["amount"] = award

    def _settled(self, meter: str, n: int) -> None:
        claim = self.claims.pop(n, None)
        entry = self.ctrl.accounts.pending.pop(meter, None)
        if claim is not None and entry is not None:
            self.ctrl.accounts.paid(int(entry["amount"]), "attendant")
        self.ctrl.emit("reset", meter=meter, amount=self.amount(meter))

    def _reset(self, common: str, awards: list[Any]) -> None:
        """The controller's reset key on ``common``: the final awards of this table's claims are paid."""
        final = {int(a["n"]): int(a["award"]) for a in awards if isinstance(a, Mapping) and a.get("award") is not None}
        for n, award in final.items():
            if n in self.claims:
                self._pay(n, award)
        for n, claim in list(self.claims.items()):
            if self.meters.get(str(claim["meter"])) == common and claim["paid"]:
                self._settled(str(claim["meter"]), n)
