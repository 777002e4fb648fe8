"""The operations the explorer plays at a table, as plain frozen data.

An operation says *what* happens (a wager placed, a card dealt, the power cut), never how: the model
(:mod:`harness.explore.model`) says what the device must answer and how every observable changes, and
the device side (:mod:`harness.explore.device`) carries it out through the profile's drivers and
performers.  Each operation serialises to one small mapping (``to_dict``/``from_dict``), the form a
shrunk sequence takes in a YAML case.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from harness.devices import vocabulary
from harness.errors import InputError


@dataclass(frozen=True)
class Op:
    name: ClassVar[str] = ""
    #: fields :func:`op_text` leaves out at their default (fields added later: earlier cases' lines stay as written)
    terse: ClassVar[tuple[str, ...]] = ()
    #: fields whose value is one of a few words, and those words
    choices: ClassVar[dict[str, tuple[str, ...]]] = {}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.name}
        for key, value in self.__dict__.items():
            out[key] = list(value) if isinstance(value, tuple) else value
        return out

    def describe(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.to_dict().items() if k != "op")
        return f"{self.name}({args})"


@dataclass(frozen=True)
class OpenRound(Op):
    name: ClassVar[str] = "open_round"


@dataclass(frozen=True)
class PlaceWager(Op):
    name: ClassVar[str] = "wager"
    seat: int = 1
    type: str = "player"
    amount: int = 500


@dataclass(frozen=True)
class RemoveWager(Op):
    name: ClassVar[str] = "remove_wager"
    seat: int = 1
    type: str = "player"


@dataclass(frozen=True)
class PressLockout(Op):
    name: ClassVar[str] = "lockout_button"


@dataclass(frozen=True)
class NoMoreBets(Op):
    name: ClassVar[str] = "no_more_bets"


@dataclass(frozen=True)
class LoadShoe(Op):
    """Cards into the shoe, top first (replacing what was left)."""

    name: ClassVar[str] = "load"
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class DealFirst(Op):
    """The round's first card out of the shoe (wagering must close on it)."""

    name: ClassVar[str] = "deal_first"


@dataclass(frozen=True)
class DealMisread(Op):
    """The round's first card out of the shoe read as ``misread`` (``test.fault`` kind ``misread`` on the
    shoe first): it is still out and counts as out for the controller (docs/protocol.md section 6.2), so
    wagering closes on it as on any first card."""

    name: ClassVar[str] = "deal_misread"


@dataclass(frozen=True)
class DealNext(Op):
    """One more card of the round being dealt, not its last: the round stays in play."""

    name: ClassVar[str] = "deal_next"


@dataclass(frozen=True)
class DealRest(Op):
    """The rest of the round's cards: the controller settles the round."""

    name: ClassVar[str] = "deal_rest"


@dataclass(frozen=True)
class ResetKey(Op):
    name: ClassVar[str] = "reset_key"
    meter: str = "mega"


@dataclass(frozen=True)
class ConfigWrite(Op):
    """``config.set`` with these fields (a meter's fields nested under ``meters``)."""

    name: ClassVar[str] = "config_write"
    changes: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.name, "changes": _plain(self.changes)}

    def __hash__(self) -> int:
        return hash(repr(_plain(self.changes)))


@dataclass(frozen=True)
class PowerCycle(Op):
    """The table's power off, then on again (volatile state lost, non-volatile kept)."""

    name: ClassVar[str] = "power_cycle"


@dataclass(frozen=True)
class PowerCutMidDeal(Op):
    """The rest of the round dealt at a slow pace, and the table's power cut as its first card is out, then
    back: one card more of the round (as ``deal_next``), then a power cycle with the shoe in the middle of
    a deal (docs/protocol.md sections 8 and 12: after power-up no deal is in progress)."""

    name: ClassVar[str] = "power_cut_mid_deal"


@dataclass(frozen=True)
class Comm(Op):
    """The controller-sensors link cut (``up: false``) or restored."""

    name: ClassVar[str] = "comm"
    up: bool = False


@dataclass(frozen=True)
class VoidRound(Op):
    """``round.settle`` with no card out: the round is voided (docs/protocol.md section 8)."""

    name: ClassVar[str] = "void"


@dataclass(frozen=True)
class VoidRounds(Op):
    """``count`` rounds in a row, each opened and at once voided (``round.open``, ``round.settle`` with no card
    out): the round counter driven on fast.  Each answer and event is judged; every observable is read after
    the last round."""

    name: ClassVar[str] = "void_rounds"
    count: int = 1


@dataclass(frozen=True)
class Reconnect(Op):
    """The host closes its line to ``role`` and opens it again, ``hello`` first (docs/protocol.md section 4:
    the device keeps its event SEQ running across host reconnections; the shoe its cards' ``n``, counted
    since the load, section 6.2)."""

    name: ClassVar[str] = "reconnect"
    terse: ClassVar[tuple[str, ...]] = ("role",)
    choices: ClassVar[dict[str, tuple[str, ...]]] = {"role": ("controller", "shoe", "sensors")}
    role: str = "controller"


@dataclass(frozen=True)
class Reboot(Op):
    """The line fault ``reboot`` (``test.fault``, docs/protocol.md section 7) of ``role``: silent a moment,
    its volatile state lost, back from non-volatile storage with its event SEQ from 1 again.  The controller
    comes back locked (cause ``power``, sent once it is back, section 8); the bet sensors (rebooted between
    rounds only) come back the same device, and wagering stays as the controller has it (the controller
    decides acceptance, section 6.3); the shoe (rebooted between rounds only) comes back the same device, its
    cards kept or not (as after a power cycle), and each card it deals after is out for the controller too."""

    name: ClassVar[str] = "reboot"
    terse: ClassVar[tuple[str, ...]] = ("role",)
    choices: ClassVar[dict[str, tuple[str, ...]]] = {"role": ("controller", "sensors", "shoe")}
    role: str = "controller"


@dataclass(frozen=True)
class LostRequest(Op):
    """The controller's line fault ``no-answer`` (``test.fault``, docs/protocol.md section 7) with ``count``,
    then a ``round.open`` between rounds: "the next count requests are lost: not executed, not answered".  No
    answer may come, and no round opens: wagering stays closed and the next round.open opens the round the
    lost one would have.  With a count over one, the pings after it are lost too, and the next is answered."""

    name: ClassVar[str] = "lost_request"
    terse: ClassVar[tuple[str, ...]] = ("count",)
    #: how many requests the fault loses: the round.open, then pings
    count: int = 1


@dataclass(frozen=True)
class CorruptAnswers(Op):
    """The line fault ``bad-crc`` or ``garbage`` (``test.fault``, docs/protocol.md section 7) of ``role`` with
    ``count``, between rounds, then pings: "the next count frames it sends carry a corrupted CRC" (dropped whole
    by the host) or "the next count answers are replaced by line noise", so the first count pings have no
    answer the host can read and the next is answered; nothing on the table changes."""

    name: ClassVar[str] = "corrupt_answers"
    terse: ClassVar[tuple[str, ...]] = ("count",)
    choices: ClassVar[dict[str, tuple[str, ...]]] = {"role": ("controller", "sensors", "shoe"),
                                                     "kind": ("bad-crc", "garbage")}
    role: str = "controller"
    kind: str = "bad-crc"
    count: int = 1


@dataclass(frozen=True)
class ShoeRefusal(Op):
    """A test-channel command the shoe must not carry out as a deal or a load (docs/protocol.md section 7), of
    ``kind``: ``overfull`` a ``test.load`` with ``check_decks`` of one ace of spades more than the table's decks
    hold (NAK BAD_ARGS: "out-of-range argument", section 3); ``none`` a ``test.deal`` of ``count`` 0 (RSP
    ``dealing`` 0, or NAK BAD_ARGS).  A command refused is not carried out: the shoe, its count, its next card
    and every other observable stay as they were, and no card event comes."""

    name: ClassVar[str] = "shoe_refusal"
    terse: ClassVar[tuple[str, ...]] = ("kind",)
    choices: ClassVar[dict[str, tuple[str, ...]]] = {"kind": ("overfull", "none")}
    kind: str = "overfull"


@dataclass(frozen=True)
class LineDrop(Op):
    """The line fault ``disconnect`` of ``role`` (``test.fault``, docs/protocol.md section 7), between rounds
    or with wagering open:
    50 ms later "the line drops", that device's line, no other (each device has a line of its own), so the
    other devices answer on; the host opens the dropped line again (``hello`` first) and finds the device as it
    was: what it holds is the device's, not the line's, and its event SEQ runs on (section 4)."""

    name: ClassVar[str] = "line_drop"
    terse: ClassVar[tuple[str, ...]] = ("role",)
    choices: ClassVar[dict[str, tuple[str, ...]]] = {"role": ("controller", "shoe", "sensors")}
    role: str = "controller"


@dataclass(frozen=True)
class SupplyOn(Op):
    """The bench supply's ``OUTP ON`` with its output on already (docs/protocol.md section 9): nothing to switch,
    so nothing on the table changes, an open round and its wagers included."""

    name: ClassVar[str] = "supply_on"


@dataclass(frozen=True)
class ShoeError(Op):
    """The shoe's fault ``error`` (``test.fault`` kind ``error``, docs/protocol.md section 7): the shoe sends
    an ``error`` event (section 6.2) and deals no card, so its count, the next card's ``n`` and every other
    observable stay as they were."""

    name: ClassVar[str] = "shoe_error"


@dataclass(frozen=True)
class BadFrame(Op):
    """A broken request frame sent by the host to ``role`` (docs/protocol.md section 2), of ``kind``:

    * ``crc``: its CRC broken; the receiver drops it (answering NAK ``BAD_CRC`` with SEQ 0, or nothing);
    * ``payload`` (a ping holding a float), ``duplicate-key``, ``not-object``, ``not-utf8``, ``unknown-type``:
      a good CRC around what is not a command; the receiver answers NAK ``BAD_FRAME`` with the frame's SEQ
      (the SEQ of a frame whose CRC was good "can be trusted", sections 2 and 3), or nothing;
    * ``version``: a good CRC and VER 2: "a VERSION error" (NAK ``VERSION``), or nothing;
    * ``stall``: a header announcing 4000 bytes, a few of them, then 1 s of silence: the receiver abandons
      the partial frame (section 2: "a false SOF in line noise must not stall the stream") and answers the
      ping after it;
    * ``type-high-bits``: a ping in a frame of TYPE 0x11 (an unknown TYPE whose low bits are REQ's): NAK
      ``BAD_FRAME`` with its SEQ, or nothing;
    * ``oversized``: a ping whose header announces 4104 payload bytes, its CRC good: "a protocol error", the
      SOF dropped and the bytes after it garbage (a NAK to them has SEQ 0), no command taken;
    * ``nested``: a false header whose frame holds a whole ping frame and then fails its CRC: the receiver
      drops "only the two SOF bytes" and finds the ping inside, which must be answered (a NAK to the false
      frame has SEQ 0);
    * ``integral-float``: a ping holding ``1000.0``, a float with no fraction, its CRC good: as ``payload``; so
      are ``nested-float`` (a float inside a nested object and array: "no floating-point numbers" anywhere) and
      ``exponent`` (``1e3``: "a number written with a fraction or an exponent ... is one");
    * ``late-byte``: a whole, good ping whose last byte comes 0.1 s after the others (inside the silence
      after which section 2 abandons a partial frame): it must be answered;
    * ``split-start``: a whole, good ping whose SOF's first byte comes alone, then the rest of its header, then
      its payload and CRC, each after the same short silence (a byte stream has no message boundaries: the
      receiver "scans for A5 5A" and "waits for the whole frame"): it must be answered;
    * ``full-length``: a good ping of exactly 4096 payload bytes, the largest LEN (section 2: "0..4096"), padded
      with JSON whitespace: it must be answered;
    * ``spaced``: a good ping with whitespace between its tokens (section 2: "receivers accept it"): answered;
    * ``after-false-header``: a header announcing 5000 bytes and, in the same write, a good ping: the receiver
      "drops the SOF and scans again from the next byte", so it finds the ping and must answer it (a NAK to the
      false header's bytes has SEQ 0);
    * ``empty``: a request with LEN 0 (no payload, so not a JSON object): NAK BAD_FRAME with its SEQ, or nothing;
    * ``crc-at-once``: a ping with its CRC broken and, at once, good pings until one is answered: the receiver
      drops the broken frame and scans on (section 2), so the first good ping is answered within the 100 ms of
      section 5 (less any NAK BAD_CRC that comes first), as any request;
    * ``nan``: a ping holding ``NaN`` (section 2: "also no NaN, Infinity"), and ``trailing``: a ping followed by a
      second object in the same payload (PAYLOAD is "one JSON object"): as ``payload``.

    Either way the device takes no command from it, and its event SEQ runs on (section 4)."""

    name: ClassVar[str] = "bad_frame"
    terse: ClassVar[tuple[str, ...]] = ("kind",)
    choices: ClassVar[dict[str, tuple[str, ...]]] = {
        "role": ("controller", "shoe", "sensors"),
        "kind": ("crc", "payload", "duplicate-key", "not-object", "not-utf8", "unknown-type", "version", "stall",
                 "type-high-bits", "oversized", "nested", "integral-float", "late-byte", "split-start",
                 "full-length", "spaced", "after-false-header", "empty", "nan", "trailing", "crc-at-once",
                 "nested-float", "exponent")}
    role: str = "controller"
    kind: str = "crc"


#: the broken-frame kinds whose frame is whole and good once read: a ping that must be answered (at once, so no
#: wait for a NAK that may not come)
ANSWERED_FRAME_KINDS = ("late-byte", "split-start", "full-length", "nested", "spaced", "after-false-header")


@dataclass(frozen=True)
class Pipelined(Op):
    """``count`` pings to ``role`` in one write (docs/protocol.md section 4: the host "may pipeline requests;
    the device must answer each with its SEQ, in any order")."""

    name: ClassVar[str] = "pipelined"
    choices: ClassVar[dict[str, tuple[str, ...]]] = {"role": ("controller", "shoe", "sensors")}
    role: str = "controller"
    count: int = 2


@dataclass(frozen=True)
class SeqFrom(Op):
    """The host's requests to ``role`` numbered on from ``seq`` (docs/protocol.md section 4: "1, 2, ... 65535,
    1, ... (never 0)"; section 3: an RSP's "SEQ echoes the REQ"), a ping the first of them: every later
    request of the sequence is numbered on from there, across 65535 where it comes."""

    name: ClassVar[str] = "seq_from"
    choices: ClassVar[dict[str, tuple[str, ...]]] = {"role": ("controller", "shoe", "sensors")}
    role: str = "controller"
    seq: int = 32768


#: commands of one role a device of another role is sent (:class:`ForeignCommand`): those that read, and those
#: that would close wagering or open a round had the device taken them (no arguments needed)
#: the commands of another device's role, and one no device has whose name is not ASCII ("PAYLOAD is one JSON
#: object, UTF-8", docs/protocol.md section 2): its NAK UNKNOWN_CMD may echo the name, and LEN counts the bytes
FOREIGN_COMMANDS = ("shoe.status", "wager.list", "config.get", "meters.get", "lockout.get", "lockout.press",
                    "round.open", "round.no_more_bets", "r\u00e9sum\u00e9")


@dataclass(frozen=True)
class ForeignCommand(Op):
    """A command of another device's role sent to ``role`` (docs/protocol.md section 6: each device answers
    the commands of its role and of all devices, any other NAK ``UNKNOWN_CMD``, and changes nothing)."""

    name: ClassVar[str] = "foreign"
    choices: ClassVar[dict[str, tuple[str, ...]]] = {"role": ("controller", "shoe", "sensors"),
                                                    "cmd": FOREIGN_COMMANDS}
    role: str = "sensors"
    cmd: str = "meters.get"


OPS: dict[str, type[Op]] = {c.name: c for c in (OpenRound, PlaceWager, RemoveWager, PressLockout, NoMoreBets,
                                                  LoadShoe, DealFirst, DealMisread, DealNext, DealRest, ResetKey,
                                                  ConfigWrite, PowerCycle, PowerCutMidDeal, Comm, VoidRound,
                                                  VoidRounds, Reconnect, Reboot, LostRequest, CorruptAnswers, LineDrop,
                                                  ShoeRefusal,
                                                  SupplyOn,
                                                  ShoeError, BadFrame, ForeignCommand, Pipelined, SeqFrom)}


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _op_class(name: Any, where: str) -> type[Op]:
    """The operation registered as ``name`` (``InputError`` naming ``where`` otherwise)."""
    cls = OPS.get(str(name))
    if cls is None:
        raise InputError(f"{where}: unknown operation {name!r} (known: {', '.join(OPS)})")
    return cls


def op_from_dict(data: Mapping[str, Any], where: str = "op") -> Op:
    """The operation a mapping written by :meth:`Op.to_dict` stands for (``InputError`` otherwise)."""
    name = data.get("op")
    cls = _op_class(name, where)
    args = {k: v for k, v in data.items() if k != "op"}
    known = set(cls.__dataclass_fields__)
    extra = sorted(set(args) - known)
    if extra:
        raise InputError(f"{where}: operation {name} takes no {', '.join(extra)}")
    if cls is LoadShoe:
        cards = args.get("cards", [])
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise InputError(f"{where}: load cards must be a list of card codes")
        return LoadShoe(tuple(cards))
    if cls is ConfigWrite:
        changes = args.get("changes")
        if not isinstance(changes, Mapping):
            raise InputError(f"{where}: config_write changes must be a mapping")
        return ConfigWrite(dict(changes))
    for key, value in args.items():
        want = type(cls.__dataclass_fields__[key].default)
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            raise InputError(f"{where}: {name} {key} must be {want.__name__}, got {value!r}")
        if key in cls.choices and value not in cls.choices[key]:
            raise InputError(f"{where}: {name} {key} must be one of {', '.join(cls.choices[key])}, got {value!r}")
    op = cls(**args)
    if isinstance(op, SeqFrom) and not 1 <= op.seq <= 0xFFFF:
        raise InputError(f"{where}: seq_from seq must be 1..65535, got {op.seq}")
    if isinstance(op, LostRequest | CorruptAnswers) and not 1 <= op.count <= 8:
        raise InputError(f"{where}: {op.name} count must be 1..8, got {op.count}")
    if isinstance(op, Pipelined) and not 2 <= op.count <= 16:
        raise InputError(f"{where}: pipelined count must be 2..16, got {op.count}")
    if isinstance(op, ForeignCommand) and op.cmd in vocabulary.COMMANDS[op.role]:
        raise InputError(f"{where}: foreign cmd {op.cmd} is the {op.role}'s own command (give another role's)")
    return op


def op_text(op: Op) -> str:
    """One line a person reads and a YAML case holds: ``wager seat=3 type=player amount=500``,
    ``load KS 9H ...``, ``config_write {"meters": {"major": {"reset": 44999}}}``, ``comm down``."""
    if isinstance(op, LoadShoe):
        return " ".join(("load", *op.cards))
    if isinstance(op, ConfigWrite):
        return "config_write " + json.dumps(_plain(op.changes), sort_keys=True)
    if isinstance(op, Comm):
        return "comm up" if op.up else "comm down"
    if isinstance(op, ResetKey):
        return f"reset_key {op.meter}"
    fields = type(op).__dataclass_fields__
    args = " ".join(f"{k}={v}" for k, v in op.to_dict().items()
                    if k != "op" and not (k in op.terse and v == fields[k].default))
    return f"{op.name} {args}".strip()


def parse_op(text: str, where: str = "op") -> Op:
    """The operation :func:`op_text` wrote (``InputError`` naming ``where`` otherwise)."""
    name, _sep, rest = text.strip().partition(" ")
    rest = rest.strip()
    cls = _op_class(name, where)
    if cls is LoadShoe:
        return LoadShoe(tuple(rest.split()))
    if cls is ConfigWrite:
        try:
            changes = json.loads(rest)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: config_write takes a JSON object: {exc.msg}") from None
        return op_from_dict({"op": name, "changes": changes}, where)
    if cls is Comm:
        if rest not in ("up", "down"):
            raise InputError(f"{where}: comm takes up or down, not {rest!r}")
        return Comm(rest == "up")
    if cls is ResetKey:
        return ResetKey(rest or "mega")
    args: dict[str, Any] = {}
    for item in rest.split():
        key, eq, value = item.partition("=")
        if not eq:
            raise InputError(f"{where}: {item!r} is not key=value")
        args[key] = int(value) if value.lstrip("-").isdigit() else value
    return op_from_dict({"op": name, **args}, where)
