"""Drivers for the reference protocol (docs/protocol.md): shoe, bet sensors, progressive controller.

Each driver owns one ``FramedLink``.  On open it says ``hello``, offering every contract version
tablecert speaks (docs/protocol.md, "Versions and change log"), and checks that the device answers
one of them and plays the role the profile put it in: a device that speaks no offered version, or a
shoe cabled where the controller should be, is a rig ERROR at connect time, not a confusing FAIL
later.  The negotiated version's schema judges every later message of that device, and where a field
changed shape between versions the driver reads either shape into the same model.

Profile entry keys: ``port`` (a device path, a pty symlink, ``socket://127.0.0.1:PORT``,
``rfc2217://...``), optional ``baudrate`` (default 115200), ``timeout_ms`` (per request, default
1000) and ``exclusive`` (default true).

Every message a driver receives is held to the protocol contract (``protocol.schema.json``,
:mod:`harness.devices.contract`) before anything reads it: a device that sends a field the contract
does not have, a value outside a vocabulary or a missing field is a rig ERROR naming the field.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar, Self

from harness.cards import Card, parse_card
from harness.devices.contract import Contract, OffContract, fields_of
from harness.devices.dropped import shown
from harness.devices.framing import RSP
from harness.devices.link import DeviceEvent, DeviceNak, FramedLink, Reply
from harness.devices.roles import (
    BetSensors,
    CardEvent,
    ControllerConfig,
    DeviceIdentity,
    EventPredicate,
    MeterReading,
    ProgressiveController,
    SeatCombo,
    Shoe,
    ShoeStatus,
    Wager,
    WagerResult,
)
from harness.devices.transcript import Transcript
from harness.devices.transport import DEFAULT_BAUDRATE, SerialTransport
from harness.devices.vocabulary import PROTOCOL_VERSION, PROTOCOL_VERSIONS
from harness.errors import DeviceError, DeviceTimeout, InputError
from harness.money import Cents
from harness.progressive.meter import MeterConfig

SERIAL_OPTIONS = frozenset({"port", "baudrate", "timeout_ms", "exclusive", "parity", "stopbits", "bytesize",
                            "rtscts", "xonxoff"})
#: serial settings a profile may give (harness.profiles.lineparams), passed to pyserial unchanged
LINE_SETTINGS = ("parity", "stopbits", "bytesize", "rtscts", "xonxoff")


def int_field(payload: Mapping[str, Any], key: str, where: str) -> int:
    value = payload.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise DeviceError(f"{where}: '{key}' should be an integer, got {value!r}")
    return value


def _opt_int(payload: Mapping[str, Any], key: str, where: str) -> int | None:
    return None if payload.get(key) is None else int_field(payload, key, where)


def decimal_field(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise DeviceError(f"{where}: expected a decimal string, got {value!r}")
    try:
        out = Decimal(str(value))
    except InvalidOperation:
        raise DeviceError(f"{where}: {value!r} is not a decimal") from None
    if not out.is_finite():
        raise DeviceError(f"{where}: {value!r} is not finite")
    return out


def check_options(cls_name: str, entry: Mapping[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(set(entry) - allowed - {"driver"})
    if unknown:
        raise InputError(f"{cls_name}: unknown device option(s) {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(allowed))})")


def open_serial_link(entry: Mapping[str, Any], name: str) -> tuple[FramedLink, float]:
    """A started link from a profile entry; returns it with the per-request timeout in seconds."""
    port = entry.get("port")
    if not isinstance(port, str) or not port:
        raise InputError(f"{name}: 'port' must be a device path or URL")
    if port == "emulator":
        raise InputError(f"{name}: port 'emulator' must be replaced by the emulator's address before opening")
    baudrate = entry.get("baudrate", DEFAULT_BAUDRATE)
    timeout_ms = entry.get("timeout_ms", 1000)
    if isinstance(baudrate, bool) or not isinstance(baudrate, int) or baudrate <= 0:
        raise InputError(f"{name}: baudrate must be a positive integer, got {baudrate!r}")
    try:
        timeout_s = float(Decimal(str(timeout_ms)) / 1000)
    except InvalidOperation:
        raise InputError(f"{name}: timeout_ms must be a number of milliseconds, got {timeout_ms!r}") from None
    settings = {k: (float(v) if isinstance(v, Decimal) else v) for k, v in entry.items() if k in LINE_SETTINGS}
    transport = SerialTransport(port, baudrate=baudrate, exclusive=bool(entry.get("exclusive", True)), **settings)
    return FramedLink(transport, name=name), timeout_s


class HelloError(DeviceError):
    """The device answered ``hello`` as docs/protocol.md 6.1 does not let it: with a protocol version the host
    did not offer, or as another role than the one the profile gives it."""


class ReferenceDevice:
    """Shared plumbing: link, hello, identity, ping, events, close."""

    role: ClassVar[str] = ""
    options: ClassVar[frozenset[str]] = SERIAL_OPTIONS

    def __init__(self, link: FramedLink, *, timeout_s: float = 1.0, hello: bool = True,
                 contract: Contract | None = None) -> None:
        self.link = link
        self.timeout_s = timeout_s
        #: the contract version the device speaks (negotiated by :meth:`hello`)
        self.protocol = contract.version if contract is not None else PROTOCOL_VERSION
        self._contract = contract
        link.checker = (contract or Contract.shipped()).checker(self.role, link.name)
        if hello:
            try:
                self.hello()
            except BaseException:
                link.close()
                raise

    @classmethod
    def open(cls, url: str, *, baudrate: int = DEFAULT_BAUDRATE, timeout_s: float = 1.0,
             name: str | None = None) -> Self:
        link = FramedLink(SerialTransport(url, baudrate=baudrate), name=name or cls.role)
        return cls(link, timeout_s=timeout_s)

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> Self:
        check_options(cls.__name__, entry, cls.options)
        link, timeout_s = open_serial_link(entry, cls.role)
        return cls(link, timeout_s=timeout_s)

    def call(self, cmd: str, timeout_s: float | None = None, **args: Any) -> Reply:
        return self.link.call(cmd, args, self.timeout_s if timeout_s is None else timeout_s)

    def request(self, cmd: str, timeout_s: float | None = None, **args: Any) -> dict[str, Any]:
        return self.call(cmd, timeout_s, **args).payload

    def hello(self) -> dict[str, Any]:
        """Version negotiation (docs/protocol.md section 6.1): the host offers every version it speaks,
        newest first (``version`` the newest, ``versions`` all of them); the device answers the one it
        speaks.  A device of version 1, which reads ``version`` only, answers NAK VERSION to a newer
        one (or BAD_ARGS to the unknown ``versions``), and the host offers the older versions one by
        one.  The answer is held to the schema of
        the version it names, and that schema judges every later message of the device."""
        offers = [{"version": PROTOCOL_VERSION, "versions": list(reversed(PROTOCOL_VERSIONS))},
                  *({"version": n} for n in reversed(PROTOCOL_VERSIONS[:-1]))]
        if self._contract is not None:  # a contract given by the caller: offer its version only
            offers = [{"version": self._contract.version}]
        checker, self.link.checker = self.link.checker, None  # the answer is judged by the version it names
        refusals: list[str] = []
        seen = len(self.link.protocol_errors)
        try:
            for offer in offers:
                try:
                    answer = self.request("hello", **offer)
                except DeviceTimeout:
                    dropped = [e for e in self.link.protocol_errors[seen:] if e.whole_frame]
                    if not dropped:
                        raise
                    # an answer came and was dropped for its frame (a refusal of this version, most likely):
                    # the next version is offered, and the frame is the device's (contract-2-frames-sent)
                    seen = len(self.link.protocol_errors)
                    refusals.append(f"{offer['version']}: an answer dropped, its frame failing its check "
                                    f"(docs/protocol.md section 2): {shown(dropped)}")
                    continue
                except DeviceNak as exc:
                    # VERSION: not this version; BAD_ARGS: a version-1 device that does not know `versions`
                    if exc.code not in ("VERSION", "BAD_ARGS"):
                        raise
                    refusals.append(f"{offer['version']}: {exc.code} {exc.reason}".rstrip())
                    continue
                break
            else:
                raise DeviceError(f"{self.link.name}: the device speaks none of the protocol versions tablecert "
                                  f"offers ({', '.join(map(str, reversed(PROTOCOL_VERSIONS)))}); to each "
                                  f"version: {'; '.join(refusals)}")
        finally:
            self.link.checker = checker
        spoken = answer.get("protocol")
        offered = offer.get("versions", [offer["version"]])
        if not isinstance(spoken, int) or isinstance(spoken, bool) or spoken not in offered:
            raise HelloError(f"{self.link.name}: device answers hello with protocol {spoken!r}, a version "
                             f"tablecert did not offer (offered {', '.join(map(str, offered))})")
        contract = self._contract or Contract.shipped(spoken)
        broken = contract.checker(self.role, self.link.name)(RSP, "hello", answer)
        if broken is not None:
            raise broken
        if answer.get("role") != self.role:
            raise HelloError(f"{self.link.name}: device answers as {answer.get('role')!r}, "
                             f"the profile puts it in the {self.role!r} role")
        self.protocol = spoken
        self.link.checker = contract.checker(self.role, self.link.name)
        self.link.transcript.note(f"hello: protocol version {spoken} negotiated")
        return answer

    def identity(self) -> DeviceIdentity:
        return DeviceIdentity.from_payload(self.request("identity"))

    def ping(self) -> Reply:
        return self.call("ping")

    def events(self, timeout_s: float = 0.0) -> list[DeviceEvent]:
        return self.link.events(timeout_s)

    def wait_event(self, name: str, timeout_s: float, predicate: EventPredicate | None = None) -> DeviceEvent:
        return self.link.wait_event(name, timeout_s, predicate)

    @property
    def transcript(self) -> Transcript:
        return self.link.transcript

    def close(self) -> None:
        self.link.close()


class ReferenceShoe(ReferenceDevice, Shoe):
    """Registry name ``reference-shoe``."""

    role = "shoe"

    def status(self) -> ShoeStatus:
        r = self.request("shoe.status")
        return ShoeStatus(str(r.get("state")), int_field(r, "cards_dealt", "shoe.status"),
                          int_field(r, "cards_remaining", "shoe.status"))

    def wait_card(self, timeout_s: float) -> CardEvent:
        ev = self.link.wait_event("card", timeout_s)
        try:
            card = parse_card(str(ev.payload.get("card")))
        except InputError as exc:
            raise DeviceError(f"shoe sent an unreadable card event: {exc}") from None
        return CardEvent(card, int_field(ev.payload, "n", "card event"), ev.t_ns, ev.seq)

    #: how long a load waits for a shoe still dealing the last cards of a round (NAK BUSY) to stop
    BUSY_WAIT_S = 5.0

    def load(self, cards: Sequence[Card | str], *, check_decks: bool = True) -> int:
        """Load a stack (test channel).  A shoe still dealing answers BUSY (docs/protocol.md section 3:
        "cannot take the command now"): the load waits, by ``shoe.status``, until it stops dealing,
        within :data:`BUSY_WAIT_S`, and is sent again once; any other refusal is the caller's."""
        codes = [c.code if isinstance(c, Card) else str(c) for c in cards]
        try:
            r = self.request("test.load", cards=codes, check_decks=check_decks)
        except DeviceNak as exc:
            if exc.code != "BUSY":
                raise
            deadline = time.monotonic() + self.BUSY_WAIT_S
            while self.status().state == "dealing":
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.005)
            r = self.request("test.load", cards=codes, check_decks=check_decks)
        return int_field(r, "cards_remaining", "test.load")

    def deal(self, count: int | None = None, pace_us: int | None = None) -> None:
        args: dict[str, Any] = {}
        if count is not None:
            args["count"] = count
        if pace_us is not None:
            args["pace_us"] = pace_us
        self.request("test.deal", **args)

    def fault(self, kind: str, **args: Any) -> None:
        self.request("test.fault", kind=kind, **args)

    def shuffle(self, count: int = 1) -> list[list[int]]:
        """The pack's order after each of ``count`` shuffles by the shoe's shuffler (test channel)."""
        from harness.randomness.observations import decode_order  # noqa: PLC0415 - numpy: not at `validate` start-up

        r = self.request("test.shuffle", count=count)
        return [decode_order(str(s)) for s in r.get("shuffles", [])]


class ReferenceSensors(ReferenceDevice, BetSensors):
    """Registry name ``reference-sensors``."""

    role = "sensors"

    def place(self, seat: int, type: str, amount: Cents) -> WagerResult:
        return _wager_result(self.call("wager.place", seat=seat, type=type, amount=amount), seat, type, amount)

    def place_many(self, wagers: Sequence[Wager]) -> list[WagerResult]:
        """Every placement sent back to back, answers collected after (one round trip, not N);
        the device decides each in the order it receives them, as it would one by one."""
        calls = [("wager.place", {"seat": w.seat, "type": w.type, "amount": w.amount}) for w in wagers]
        out = []
        for w, reply in zip(wagers, self.link.call_many(calls, self.timeout_s), strict=True):
            if isinstance(reply, DeviceError):
                raise reply
            out.append(_wager_result(reply, w.seat, w.type, w.amount))
        return out

    def remove(self, seat: int, type: str) -> None:
        self.request("wager.remove", seat=seat, type=type)

    def wagers(self) -> list[Wager]:
        items = self.request("wager.list").get("wagers")
        if not isinstance(items, list):
            raise DeviceError("wager.list: 'wagers' should be a list")
        with reply_shape("wager.list"):
            return [Wager(int_field(w, "seat", "wager"), str(w.get("type")), int_field(w, "amount", "wager"),
                          _opt_int(w, "games", "wager")) for w in items]


@contextlib.contextmanager
def reply_shape(where: str) -> Iterator[None]:
    """A reply whose fields have the wrong shape is a protocol error of the device, not a crash."""
    try:
        yield
    except (AttributeError, TypeError, ValueError, KeyError) as exc:
        raise DeviceError(f"{where}: malformed reply ({type(exc).__name__}: {exc})") from None


def _wager_result(reply: Reply, seat: int, type: str, amount: Cents) -> WagerResult:
    r = reply.payload
    accepted = r.get("accepted")
    if not isinstance(accepted, bool):
        raise DeviceError(f"wager.place: 'accepted' should be a boolean, got {accepted!r}")
    reason = r.get("reason")
    return WagerResult(accepted, None if reason is None else str(reason), reply.t_sent_ns, reply.t_reply_ns,
                       seat, type, amount)


def parse_config(r: Mapping[str, Any]) -> ControllerConfig:
    with reply_shape("config.get"):
        return _parse_config(r)


def _parse_config(r: Mapping[str, Any]) -> ControllerConfig:
    where = "config.get"
    seats = []
    for entry in r.get("seats") or []:
        combo = entry.get("combo")
        seats.append(SeatCombo(int_field(entry, "seat", where), None if combo is None else tuple(map(str, combo))))
    meters = {}
    for name, m in (r.get("meters") or {}).items():
        meters[str(name)] = MeterConfig(
            name=str(name),
            rate=decimal_field(m.get("rate"), f"{where} meters.{name}.rate"),
            initial=int_field(m, "initial", f"{where} meters.{name}"),
            reset=int_field(m, "reset", f"{where} meters.{name}"),
            payout_limit=_opt_int(m, "payout_limit", f"{where} meters.{name}"),
            display_capacity=_opt_int(m, "display_capacity", f"{where} meters.{name}"),
        )
    raw = fields_of(r, "ok")
    return ControllerConfig(int_field(r, "denomination", where), tuple(seats), meters, r.get("mystery"), raw)


def parse_meters(reply: Reply) -> MeterReading:
    with reply_shape("meters.get"):
        return _parse_meters(reply)


def payments(pending: Any) -> list[dict[str, Any]]:
    """``pending`` in the version-2 shape, a list of payments with their ``meter``, read from either
    shape: version 1 gave none, so a device may key the payments by meter (``{"mega": {"seat": 1,
    "amount": 5000043, "category": "mega"}}``); the list comes out in meter order."""
    if isinstance(pending, Mapping):
        return [{"meter": str(name), **(dict(p) if isinstance(p, Mapping) else {})}
                for name, p in sorted(pending.items())]
    return [dict(p) for p in pending or () if isinstance(p, Mapping)]


def _parse_meters(reply: Reply) -> MeterReading:
    r: Mapping[str, Any] = reply.payload
    # a field outside the contract is left unread: the reading raises its error where it is read
    broken = {k: e for k, e in r.broken.items() if k in _READING} if isinstance(r, OffContract) else {}
    if isinstance(r, OffContract):
        r = OffContract({k: v for k, v in dict.items(r) if k not in broken}, r.broken)
    if "pending" not in broken and isinstance(r.get("pending"), Mapping):
        r = _replaced(r, "pending", payments(r["pending"]))  # version 1's keyed shape, read as version 2's list
    where = "meters.get"

    def read(name: str, parse: Any, empty: Any) -> Any:
        return empty if name in broken else parse()

    amounts = read("meters", lambda: r.get("meters") or {}, {})
    residual = read("residual", lambda: r.get("residual") or {}, {})
    return MeterReading(
        meters={str(k): int_field(amounts, k, f"{where} meters") for k in amounts},
        residual={str(k): decimal_field(v, f"{where} residual.{k}") for k, v in residual.items()},
        cumulative_paid=read("cumulative_paid", lambda: int_field(r, "cumulative_paid", where), 0),
        paid_by_table=read("paid_by_table", lambda: int_field(r, "paid_by_table", where), 0),
        paid_by_attendant=read("paid_by_attendant", lambda: int_field(r, "paid_by_attendant", where), 0),
        t_ns=reply.t_reply_ns,
        raw=fields_of(r, "ok"),
        pending=read("pending", lambda: tuple(sorted(str(p["meter"]) for p in payments(r.get("pending"))
                                                      if "meter" in p)), ()),
        broken=broken,
    )


#: the reply fields a meter reading reads (each the reading's field of the same name)
_READING = frozenset({"meters", "residual", "cumulative_paid", "paid_by_table", "paid_by_attendant", "pending"})


def _replaced(r: Mapping[str, Any], key: str, value: Any) -> Mapping[str, Any]:
    """``r`` with ``key`` replaced, keeping the faults of an off-contract payload."""
    if isinstance(r, OffContract):
        return OffContract({**dict(dict.items(r)), key: value}, r.broken)
    return {**r, key: value}


class ReferenceController(ReferenceDevice, ProgressiveController):
    """Registry name ``reference-controller``."""

    role = "controller"

    def config(self) -> ControllerConfig:
        return parse_config(self.request("config.get"))

    def set_config(self, **changes: Any) -> ControllerConfig:
        """``config.set``; a refusal (live round, below floor) raises ``NakError``."""
        return parse_config(self.request("config.set", **changes))

    def meters(self) -> MeterReading:
        return parse_meters(self.call("meters.get"))

    def lockout_state(self) -> bool:
        locked = self.request("lockout.get").get("locked")
        if not isinstance(locked, bool):
            raise DeviceError(f"lockout.get: 'locked' should be a boolean, got {locked!r}")
        return locked

    def press_lockout(self) -> None:
        self.request("lockout.press")

    def open_round(self) -> int:
        return int_field(self.request("round.open"), "round", "round.open")

    def no_more_bets(self) -> None:
        self.request("round.no_more_bets")

    def settle_round(self) -> dict[str, Any]:
        """``round.settle`` (extension, see docs/protocol.md): close the round after the deal."""
        return self.request("round.settle")

    def reset_key(self, meter: str) -> Cents:
        """The attendant's reset key after paying ``meter``; returns the meter's new amount."""
        return int_field(self.request("reset_key", meter=meter), "amount", "reset_key")

    def set_link(self, up: bool) -> None:
        """Emulator-only ``test.link``: cut or restore the controller-sensors link."""
        self.request("test.link", up=up)

    def test_state(self) -> dict[str, Any]:
        """Emulator-only ``test.state``: internal state for emulator self-tests."""
        return self.request("test.state")
