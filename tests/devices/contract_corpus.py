"""Sessions with the emulators that between them send every kind of message of the protocol, and
the frames they exchanged, read back from the drivers' transcripts.

The emulator server runs in this process (a thread, 127.0.0.1 TCP) so that a test can change what
an emulator sends and see the contract check catch it.  The drivers validate every message they
receive as they go (a violation raises); :func:`messages` gives every frame of a session afterwards
(requests included) for the tests to hold to the schema with the ``jsonschema`` library itself.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.devices.drivers.reference import ReferenceController, ReferenceSensors, ReferenceShoe
from harness.devices.link import DeviceNak, NakError
from harness.emulators.config import EmulatorConfig
from harness.emulators.server import EmulatorServer
from harness.profiles import load_profile
from harness.suites.load.stacks import find_stack

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 5.0


@dataclass(frozen=True)
class Message:
    role: str
    definition: str  # request:<cmd>, reply:<cmd>, event:<name>, nak
    payload: dict[str, Any]


@dataclass
class Table:
    server: EmulatorServer
    shoe: ReferenceShoe
    sensors: ReferenceSensors
    controller: ReferenceController

    def messages(self) -> list[Message]:
        out: list[Message] = []
        for role, dev in (("shoe", self.shoe), ("sensors", self.sensors), ("controller", self.controller)):
            out += messages(role, dev)
        return out

    def act(self, **req: Any) -> dict[str, Any]:
        """An act at the table's physical side (a person's hands)."""
        answer: dict[str, Any] = self.server.table.physical.handle(req)
        return answer


def messages(role: str, dev: Any, prefix: str = "") -> list[Message]:
    """Every frame in a driver's transcript: the REQ it sent, the RSP/NAK/EVT it received
    (``prefix``: the definitions of a role with messages of its own, e.g. ``link-controller:``)."""
    asked: dict[int, str] = {}
    out = []
    # by time: a reply can be logged by the reading thread before the request's own entry
    for e in sorted(dev.transcript.entries, key=lambda e: e.t_ns):
        if e.kind != "frame":
            continue
        kind, seq, payload = e.fields["type"], e.fields["seq"], e.fields["payload"]
        if kind == "REQ":
            asked[seq] = str(payload["cmd"])
            out.append(Message(role, f"{prefix}request:{payload['cmd']}", payload))
        elif kind == "RSP":
            out.append(Message(role, f"{prefix}reply:{asked[seq]}", payload))
        elif kind == "NAK":
            out.append(Message(role, "nak", payload))
        elif kind == "EVT":
            out.append(Message(role, f"{prefix}event:{payload.get('event')}", payload))
    return out


def profile_config(name: str, tmp: Path, **changes: Any) -> EmulatorConfig:
    cfg = EmulatorConfig.from_profile(load_profile(ROOT / "device_profiles" / f"{name}.yaml"))
    return cfg.with_changes(deal_pace_us=0, seed=7, nv_dir=tmp / "nv", **changes)


@contextlib.contextmanager
def served(cfg: EmulatorConfig, run_dir: Path) -> Iterator[Table]:
    server = EmulatorServer(cfg, "tcp", run_dir)
    addresses = server.open()
    thread = threading.Thread(target=server.serve_forever, name="contract-emulator", daemon=True)
    thread.start()
    devices: list[Any] = []
    try:
        for cls, role in ((ReferenceShoe, "shoe"), (ReferenceSensors, "sensors"), (ReferenceController, "controller")):
            devices.append(cls.open(addresses[role], timeout_s=2.0))
        yield Table(server, *devices)
    finally:
        for dev in devices:
            dev.close()
        server.stop()
        thread.join(5.0)
        server.close()


def wait_until(what: str, pred: Callable[[], bool], timeout_s: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout_s} s")
        time.sleep(0.01)


def deal_round(t: Table, cards: list[str] | str) -> None:
    codes = cards.split() if isinstance(cards, str) else cards
    t.shoe.load(codes)
    t.shoe.deal(pace_us=0)
    t.controller.wait_event("round_end", WAIT_S)


def stack(name: str) -> list[str]:
    return [c.code for c in find_stack(name).cards]


def royal9_session(t: Table) -> None:
    """Royal 9 with a mystery progressive: every command, refusal and event of the three devices."""
    shoe, sensors, ctl = t.shoe, t.sensors, t.controller
    for dev in (shoe, sensors, ctl):
        dev.identity()
        dev.ping()
    shoe.status()
    ctl.config()
    ctl.meters()
    ctl.lockout_state()
    ctl.test_state()
    with pytest.raises(DeviceNak):
        ctl.request("hello", version=99)  # NAK VERSION
    # a round: a mega hit at seat 1 and a mystery award, refusals of every kind
    ctl.open_round()
    mystery = t.server.table.controller.bank["mystery"]  # type: ignore[index]
    mystery.trigger = mystery.amount + 1  # white box: the next contribution reaches the hidden trigger
    for seat in range(1, 8):
        assert sensors.place(seat, "banker", 1000).accepted
        assert sensors.place(seat, "royal9", 500).accepted
    assert sensors.place(8, "player", 500).reason == "bad-seat"
    with pytest.raises(DeviceNak):
        sensors.place(10, "player", 500)  # NAK BAD_ARGS: outside 1..9
    assert sensors.place(1, "royal9", 100).reason == "bad-amount"
    assert sensors.place(1, "dragon7", 500).reason == "disabled"
    sensors.place(2, "tie", 500)
    sensors.remove(2, "tie")
    sensors.wagers()
    with pytest.raises(NakError):
        ctl.set_config(decks=6)  # live
    deal_round(t, "KS KS 9S 9S")
    with pytest.raises(NakError):
        sensors.remove(1, "royal9")  # settled: no wager left
    assert ctl.meters().pending
    with pytest.raises(NakError):
        ctl.open_round()  # the reset key first
    ctl.reset_key("mega")
    with pytest.raises(NakError):
        ctl.reset_key("mega")
    # no more bets, the lock-out button, a void round
    ctl.open_round()
    sensors.place(1, "player", 500)
    ctl.no_more_bets()
    assert sensors.place(2, "player", 500).reason == "no-more-bets"
    ctl.press_lockout()
    assert sensors.place(3, "player", 500).reason in ("no-more-bets", "locked-out")
    ctl.settle_round()
    # a round settled early is refused while the tableau needs a card
    ctl.open_round()
    sensors.place(1, "player", 500)
    shoe.load(["2S", "3H", "4D", "5C", "6S", "7H"])
    shoe.deal(count=2, pace_us=0)
    with pytest.raises(NakError):
        ctl.settle_round()
    shoe.deal(pace_us=0)
    ctl.wait_event("round_end", WAIT_S)
    shoe.status()
    assert sensors.place(1, "player", 500).reason == "locked-out"
    # the controller-sensors link
    ctl.set_link(False)
    assert sensors.place(1, "player", 500).reason == "comm-lost"
    ctl.set_link(True)
    # configuration writes: accepted, malformed
    meter = ctl.config().meters["major"]
    ctl.set_config(meters={"major": {"display_capacity": meter.display_capacity}})
    with pytest.raises(NakError):
        ctl.set_config(seats=[{"seat": 1, "combo": ["KS", "9S"]}, {"seat": 2, "combo": ["KS", "9S"]}])
    # the shoe: faults, a shuffle, busy
    shoe.fault("misread")
    shoe.fault("error", code="E7", text="card jam")
    shoe.shuffle(1)
    shoe.load(["2S", "3H", "4D", "5C"])
    shoe.deal(pace_us=100_000)
    with pytest.raises(DeviceNak):
        shoe.deal()  # BUSY
    wait_until("the slow deal", lambda: shoe.status().state != "dealing")
    # a line fault: the controller reboots and comes back locked out
    ctl.request("test.fault", kind="reboot", duration_ms=100)
    ctl.wait_event("lockout", WAIT_S, lambda e: e.payload.get("cause") == "power")
    ctl.ping()
    ctl.events()
    shoe.events()
    sensors.events()


def hit_and_run_session(t: Table) -> None:
    sensors, ctl = t.sensors, t.controller
    for cards in ("hr-dealer-cards-8-plus", "hr-dealer-cards-5", "hr-dealer-blackjack"):
        ctl.open_round()
        for seat in range(1, 4):
            assert sensors.place(seat, "hit-and-run", 500).accepted
            assert sensors.place(seat, "blackjack", 1000).accepted
        deal_round(t, stack(cards))
        for name in ctl.meters().pending:
            ctl.reset_key(name)
    ctl.events()


def ez_session(t: Table) -> None:
    sensors, ctl = t.sensors, t.controller
    ctl.open_round()
    for seat in (1, 2):
        for kind in ("player", "banker", "tie", "dragon7", "panda8"):
            assert sensors.place(seat, kind, 500).accepted
    deal_round(t, "6C 7S 9H 6H 7D 4D")  # Dragon 7
    ctl.events()


def bench_session(t: Table) -> None:
    """No test channel: acts at the physical side, observed as the devices' events; remote acts refused."""
    with pytest.raises(NakError):
        t.sensors.place(1, "player", 500)  # "not an emulator: wager.place is done at the table"
    with pytest.raises(NakError):
        t.shoe.load(["KS"])
    t.act(act="shoe.insert", cards=["TS", "4S", "9H", "3C"])
    t.act(act="button", name="open-round")
    t.act(act="chips.place", seat=1, type="player", amount=500)
    t.act(act="chips.place", seat=1, type="royal9", amount=100)  # refused: bad-amount
    t.act(act="chips.place", seat=2, type="tie", amount=500)
    t.act(act="chips.remove", seat=2, type="tie")
    for _ in range(4):
        t.act(act="shoe.draw")
    t.controller.wait_event("round_end", WAIT_S)
    t.act(act="chips.remove", seat=1, type="player")  # settled: removed false
    wait_until("the sensors' events", lambda: len([m for m in messages("sensors", t.sensors)
                                                    if m.definition.startswith("event:")]) >= 5)
    t.sensors.events()
    t.shoe.events()
    t.controller.events()


def streak_session(t: Table) -> None:
    """Mini-Baccarat's three-games wager (section 6, "Wagers that ride over several games"): it rides
    (wager_rides, listed with its games, removal refused) and is decided."""
    sensors, ctl = t.sensors, t.controller
    for game in range(3):
        ctl.open_round()
        if game == 0:
            assert sensors.place(1, "streak3-player", 500).accepted
        else:
            assert sensors.place(1, "streak3-player", 1000).reason == "riding"
            with pytest.raises(NakError):
                sensors.remove(1, "streak3-player")
        assert sensors.place(1, "player", 500).accepted
        sensors.wagers()
        deal_round(t, "9S KD KH 3C")  # a Player natural 9 against the Banker's 3
    ctl.events()


SESSIONS: dict[str, tuple[str, dict[str, Any], Callable[[Table], None]]] = {
    "royal9-mystery": ("emulated-midi-5-mystery", {}, royal9_session),
    "hit-and-run": ("emulated-hit-and-run", {}, hit_and_run_session),
    "ez-baccarat": ("emulated-ez-baccarat", {}, ez_session),
    "bench": ("emulated-midi-5", {"test_channel": False}, bench_session),
    "streak3": ("emulated-mini-baccarat", {}, streak_session),
}


LINK_PROFILE = """spec: tablecert/profile/1
name: contract-link
game: midibaccarat
capabilities: [royal9, link, reset-key]
interpretations: {r9-requires-base-wager: false}
link:
  controller: {driver: reference-link-controller, port: emulator}
  meters:
    mega: {initial: "$50,000"}
  tables:
""" + "".join(f"""    - name: {name}
      devices:
        shoe: {{driver: reference-shoe, port: emulator}}
        sensors: {{driver: reference-sensors, port: emulator}}
        controller: {{driver: reference-controller, port: emulator}}
      rules:
        denomination: 5
        seats: [{{seat: 1, combo: [{combo}]}}]
        meters:
          mega: {{link: mega, rate: "1.25%"}}
          major: {{rate: "1%", initial: "$450"}}
          minor: {{rate: "1%", initial: "$450"}}
""" for name, combo in (("a", "KS, 9S"), ("b", "KH, 9H"))) + """emulator: {deal_pace_ms: "0"}
"""


def link_session(tmp: Path) -> list[Message]:
    """A link of two tables, each and the link controller a process of its own: a common-meter hit
    claimed, acknowledged, paid and reset by the link's key; a table cut off and back; the link
    controller rebooted; every host command of the link controller.  Then the table <-> link
    controller messages, from the link controller's state machine in this process (the tables'
    own lines to it keep no transcript)."""
    from harness.link.rig import open_link_rig, wait_joined
    from harness.profiles import load_profile_text

    rig = open_link_rig(load_profile_text(LINK_PROFILE, "contract-link.yaml"))
    out: list[Message] = []
    try:
        link, a, b = rig.link, rig.tables["a"].rig, rig.tables["b"].rig
        assert link is not None and a.controller and a.sensors and a.shoe and b.controller and b.sensors
        a.controller.open_round()
        assert a.sensors.place(1, "royal9", 500).accepted
        a.shoe.load(["KS", "KS", "9S", "9S"])
        a.shoe.deal(pace_us=0)
        a.controller.wait_event("payout", WAIT_S, lambda e: e.payload.get("category") == "mega")
        for ask in (link.identity, link.config, link.meters, link.hits, link.links_up):
            ask()
        link.request("ping")
        link.request("test.state")
        link.reset_key("mega")
        wait_until("the reset on the table", lambda: not a.controller.meters().pending)  # type: ignore[union-attr]
        link.cut("b")
        wait_until("table b off the link",
                   lambda: not (b.controller.meters().raw.get("link") or {}).get("up"))  # type: ignore[union-attr]
        b.controller.open_round()
        assert b.sensors.place(1, "royal9", 500).reason == "link-down"
        link.restore("b")
        wait_joined(rig)
        link.reboot(200)
        link.wait_event("power", WAIT_S)
        wait_joined(rig)
        for name, t in rig.tables.items():
            for role in ("shoe", "sensors", "controller"):
                out += messages(role, getattr(t.rig, role))
            del name
        out += messages("link-controller", link, "link-controller:")
    finally:
        rig.close()
    return out + link_table_messages(tmp)


def link_table_messages(tmp: Path) -> list[Message]:
    """What a table sends the link controller and what it answers and pushes (section 14)."""
    from harness.emulators.base import Refusal
    from harness.emulators.link_config import LinkConfig
    from harness.emulators.link_controller import EmulatedLinkController

    pushed: list[tuple[str, dict[str, Any]]] = []
    cfg = {"name": "L", "nv_dir": str(tmp / "link-nv"),
           "meters": {"mega-5": {"initial": 5_000_000, "reset": 5_000_000}},
           "tables": [{"name": n, "denomination": 500, "decks": 8, "rates": {"mega-5": "1.25"}} for n in ("t1", "t2")]}
    ctrl = EmulatedLinkController(LinkConfig.from_mapping(cfg), lambda t, p: pushed.append((t, p)), lambda p: None)
    out: list[Message] = []

    def send(peer: str, cmd: str, **args: Any) -> None:
        req = {"cmd": cmd, **args}
        answer, _ = ctrl.from_table(req, None if cmd in ("hello", "link.join") else peer)
        assert not isinstance(answer, Refusal), (cmd, answer)
        out.extend((Message("link-table", f"link-table:request:{cmd}", req),
                    Message("link-table", f"link-table:reply:{cmd}", {"ok": True, **answer})))

    for t in ("t1", "t2"):
        send(t, "hello", version=2, versions=[2])
        send(t, "link.join", table=t)
    send("t1", "link.contribute", table="t1", n=1, round=1, wagers=[{"seat": 1, "amount": 500}])
    send("t1", "link.hit", table="t1", n=2, round=1, seat=1, meter="mega-5", category="mega")
    send("t2", "link.hit", table="t2", n=1, round=1, seat=3, meter="mega-5", category="mega")
    send("t1", "link.status", table="t1")
    send("t1", "ping")
    ctrl.reset_key({"meter": "mega-5"})
    out += [Message("link-table", f"link-table:event:{p['event']}", p) for _t, p in pushed]
    return out


def record(tmp: Path) -> list[Message]:
    """Run every session; every frame exchanged."""
    out: list[Message] = []
    for name, (profile, changes, session) in SESSIONS.items():
        with served(profile_config(profile, tmp / name, **changes), tmp / name / "run") as table:
            session(table)
            out += table.messages()
    return out + link_session(tmp)
