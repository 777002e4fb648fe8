"""What one emulated table is: the Rules Submission it implements and how the emulator behaves.

An :class:`EmulatorConfig` is built from a loaded device profile (the ``rules``, ``emulator`` and
``interpretations`` sections, see ``docs/device-profiles.md``) by :meth:`EmulatorConfig.from_typed`: the
profile is read and checked once, by its loader.  The emulator process reads the configuration back from
the JSON :meth:`EmulatorConfig.to_mapping` writes (:meth:`EmulatorConfig.from_mapping`, which also reads a
bare profile-shaped mapping, with the emulator's own defaults for what it leaves out).  The controller
serves the table part of it on the wire as ``config.get`` (:func:`table_to_wire`) and accepts changes
through ``config.set`` (:func:`apply_wire_changes`), which checks the floors of 58 Pa. Code 629a Royal 9
(f)(2)/(g)(2) and the limits of 461a.12 before anything is stored.

Money here is integer cents and rates are ``Decimal`` percent, as everywhere in tablecert.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness import __version__
from harness.cards import parse_card
from harness.devices import vocabulary
from harness.devices.vocabulary import PROTOCOL_VERSION, PROTOCOL_VERSIONS
from harness.emulators.defects import check_defects
from harness.emulators.personas import check_personas
from harness.errors import InputError
from harness.games.payouts import parse_pay
from harness.money import Cents, parse_amount, parse_rate
from harness.profiles import load_profile
from harness.profiles.model import Profile
from harness.progressive.floors import check_configuration
from harness.progressive.meter import MeterConfig
from harness.progressive.mystery import MysteryConfig

GAMES = tuple(vocabulary.GAMES)
BACCARAT_GAMES = tuple(g for g in GAMES if g != "blackjack-hit-and-run")

IDENTITY_FIELDS = tuple(vocabulary.IDENTITY_FIELDS)


def program_hash() -> str:
    """SHA-256 over the emulator's own source files: the program signature of 607a.2(b)."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def meter_to_wire(m: MeterConfig) -> dict[str, Any]:
    return {"rate": str(m.rate), "initial": m.initial, "reset": m.reset,
            "payout_limit": m.payout_limit, "display_capacity": m.display_capacity}


@dataclass(frozen=True)
class EmulatorConfig:
    """Everything an emulated table needs.  ``seats`` maps seat number -> personal combination."""

    game: str = "midibaccarat"
    denomination: Cents = 500
    seats: Mapping[int, tuple[str, str] | None] = field(default_factory=lambda: {1: ("KS", "9S")})
    meters: Mapping[str, MeterConfig] = field(default_factory=dict)
    mystery: MysteryConfig | None = None
    decks: int = 8
    hit_soft17: bool = True
    commission: Decimal = Decimal(5)
    lockout_latency_us: int = 300
    deal_pace_us: int = 15_000
    #: how long after a request the devices answer it (the ``test.*`` channel excepted); 0: at once.
    #: The state changes when the request arrives: only the answer waits (docs/protocol.md section 5
    #: allows 100 ms)
    answer_latency_us: int = 0
    #: how long after the controller-sensors link goes down the controller notices: wagering closes
    #: (cause ``comm-lost``) and the ``lockout`` event is sent then; 0: at once (the profile's
    #: ``timing.comm_timeout_ms`` is the limit).  The sensors refuse wagers from the cut on.
    comm_loss_latency_us: int = 0
    identity: Mapping[str, str] = field(default_factory=dict)
    defects: frozenset[str] = frozenset()
    #: permitted behaviours other than the reference's (harness.emulators.personas)
    personas: frozenset[str] = frozenset()
    nv_dir: Path | None = None
    #: fsync every non-volatile write (off: the emulated power loss is in-process, see nvstore.py)
    nv_fsync: bool = False
    seed: int | None = None
    interpretations: Mapping[str, object] = field(default_factory=dict)
    #: the test channel (``test.*``) and the remote act commands (``wager.place``, ``lockout.press``,
    #: ``reset_key``, ``round.open``, ...) are answered; false: REFUSED "not an emulator", as on a real
    #: device, and every act happens at the physical side (harness.emulators.physical)
    test_channel: bool = True
    #: relay channel of the emulated switch unit -> what it is wired to (``lockout-button``,
    #: ``open-round``, ``no-more-bets``, ``comm``, ``reset-key:<meter>``), from the profile's bench
    wiring: Mapping[str, str] = field(default_factory=dict)
    #: a table of a link (harness.emulators.link_table): ``table`` (its name on the link), ``address``
    #: (the link controller's ``127.0.0.1:PORT``), ``meters`` (this table's meter -> the common meter)
    link: Mapping[str, Any] | None = None
    #: what a won Mini-Baccarat three-consecutive-games wager pays (``rules.streak3.pays``, e.g.
    #: ``"7 to 1"``), None when the Rules Submission does not offer it (Wash. Admin. Code
    #: 230-15-040(8)(b))
    streak3_pays: str | None = None
    #: the contract version the device speaks (docs/protocol.md, "Versions and change log"): the newest
    #: unless the profile's ``emulator.contract_version`` asks for an older one (the old shapes)
    contract_version: int = PROTOCOL_VERSION

    @property
    def streak3(self) -> bool:
        """The three-consecutive-games wager is offered: a Mini-Baccarat table whose Rules
        Submission states its pay."""
        return self.game == "minibaccarat" and self.streak3_pays is not None

    @property
    def royal9(self) -> bool:
        """Royal 9 is offered on a baccarat table whose Rules Submission sets its three meters."""
        return self.game in BACCARAT_GAMES and {"mega", "major", "minor"} <= set(self.meters)

    @property
    def hit_and_run(self) -> bool:
        return self.game == "blackjack-hit-and-run"

    def identity_for(self, role: str) -> dict[str, str]:
        """The 607a.2(b) identity a device of ``role`` reports (profile values win)."""
        base = {
            "manufacturer": "tablecert reference devices",
            "model": f"REF-{role.upper()}-1",
            "serial": f"EMU-{role[:3].upper()}-0001",
            "software_id": f"tablecert-emulator-{role}",
            "controller_type": "reference progressive table game controller",
            "software_name": "tablecert progressive emulator",
            "software_version": __version__,
            "program_hash": program_hash(),
            "location": "emulated table 1",
            "asset_number": f"EMU-ASSET-{role.upper()}",
            "game_type": self.game,
        }
        base.update({k: str(v) for k, v in self.identity.items() if k in IDENTITY_FIELDS})
        if "omits-optional-fields" in self.personas:  # docs/protocol.md 6.1: optional
            base.pop("model", None)
            base.pop("program_hash", None)
        if self.interpretations.get("id-fields-from-device") == "manufacturer-fields":
            # the operator assigns location and asset number; this device does not report them
            for key in ("location", "asset_number"):
                base.pop(key, None)
        return base

    def to_mapping(self) -> dict[str, Any]:
        """The profile-shaped mapping :meth:`from_mapping` reads back to an equal config."""
        meters = {n: {"rate": str(m.rate), "initial": _dollars(m.initial), "reset": _dollars(m.reset),
                      **({"payout_limit": _dollars(m.payout_limit)} if m.payout_limit is not None else {}),
                      **({"display_capacity": _dollars(m.display_capacity)}
                         if m.display_capacity is not None else {})}
                  for n, m in self.meters.items()}
        rules: dict[str, Any] = {
            "denomination": _dollars(self.denomination), "decks": self.decks,
            "seats": [{"seat": s, **({"combo": list(c)} if c else {})} for s, c in sorted(self.seats.items())],
            "commission": f"{self.commission}%",
        }
        if self.hit_and_run:
            hr: dict[str, Any] = {"decks": self.decks, "soft17": "hit" if self.hit_soft17 else "stand"}
            if "hit-and-run" in meters:
                hr["meter"] = meters.pop("hit-and-run")
            rules["hit_and_run"] = hr
        rules["meters"] = meters
        if self.streak3_pays is not None:
            rules["streak3"] = {"pays": self.streak3_pays}
        if self.mystery is not None:
            rules["mystery"] = {"configuration": self.mystery.configuration,
                                "distribution": self.mystery.distribution, "paid_by": self.mystery.paid_by}
        emulator: dict[str, Any] = {
            "lockout_latency_us": self.lockout_latency_us, "deal_pace_us": self.deal_pace_us,
            "answer_latency_us": self.answer_latency_us, "comm_loss_latency_us": self.comm_loss_latency_us,
            "identity": dict(self.identity), "defects": sorted(self.defects), "nv_fsync": self.nv_fsync,
            "personas": sorted(self.personas),
        }
        if self.nv_dir is not None:
            emulator["nv_dir"] = str(self.nv_dir)
        if self.seed is not None:
            emulator["seed"] = self.seed
        emulator["test_channel"] = self.test_channel
        if self.contract_version != PROTOCOL_VERSION:
            emulator["contract_version"] = self.contract_version
        out = {"game": self.game, "rules": rules, "emulator": emulator,
               "interpretations": dict(self.interpretations)}
        if self.wiring:
            out["bench"] = {"performers": _performers_of(self.wiring)}
        if self.link:
            out["link"] = dict(self.link)
        return out

    def with_changes(self, **changes: Any) -> EmulatorConfig:
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_typed(cls, profile: Profile, **overrides: Any) -> EmulatorConfig:
        """From a loaded profile (:class:`harness.profiles.model.Profile`): the table the profile's loader
        read, checked and gave its defaults, so the emulator never reads the profile's YAML a second time.
        What the profile does not state is the emulator's own (seven seats without combinations, a 5%
        commission, a $5 denomination)."""
        rules, emu = profile.rules, profile.emulator
        hr = rules.hit_and_run
        meters = {str(name): m for name, m in rules.meters.items()}
        if hr is not None:  # Hit and Run: one meter, 633a.13(l)(1)
            meters["hit-and-run"] = dataclasses.replace(hr.meter, name="hit-and-run")
        seats = {s.seat: s.combo.codes() if s.combo else None for s in rules.seats} \
            or dict.fromkeys(range(1, 8))
        mystery = rules.mystery
        personas = frozenset({emu.persona} if emu.persona else ())
        cfg = cls(
            game=profile.game,
            denomination=(rules.denomination if rules.denomination is not None else 5) * 100,
            seats=seats,
            meters=meters,
            mystery=None if mystery is None else MysteryConfig.regulation(
                mystery.configuration, mystery.distribution,
                "attendant" if mystery.paid_by == "attendant" else "table"),
            decks=hr.decks if hr is not None else rules.decks,
            hit_soft17=hr.hits_soft17 if hr is not None else True,
            commission=rules.commission if rules.commission is not None else Decimal(5),
            lockout_latency_us=_us(emu.lockout_latency_ms),
            deal_pace_us=_us(emu.deal_pace_ms),
            answer_latency_us=_us(emu.answer_latency_ms),
            comm_loss_latency_us=_us(emu.comm_loss_latency_ms),
            identity=dict(emu.identity),
            defects=frozenset({emu.defect} if emu.defect else ()),
            personas=personas,
            nv_dir=Path(emu.nv_dir) if emu.nv_dir else None,
            seed=emu.seed,
            interpretations={str(k): v for k, v in profile.interpretations.items()},
            test_channel=emu.test_channel,
            wiring=_wiring({act: spec.to_wire() for act, spec in profile.bench.performers.items()}),
            link=dict(profile.raw["link"]) if isinstance(profile.raw.get("link"), Mapping) else None,
            streak3_pays=rules.streak3.pays.describe() if rules.streak3 is not None else None,
            # the contract-version-1 persona speaks the oldest version unless the profile names one
            contract_version=PROTOCOL_VERSIONS[0] if "contract-version-1" in personas
            and emu.contract_version == PROTOCOL_VERSION else emu.contract_version,
        )
        cfg = cfg.with_changes(**overrides) if overrides else cfg
        check_defects(cfg.defects)
        check_personas(cfg.personas)
        check_table(cfg)
        return cfg

    @classmethod
    def from_profile(cls, profile: Any, **overrides: Any) -> EmulatorConfig:
        """From a loaded profile (:meth:`from_typed`), another object with ``.raw`` / ``.data`` /
        ``as_dict()``, or a profile-shaped dict (:meth:`from_mapping`)."""
        if isinstance(profile, Profile):
            return cls.from_typed(profile, **overrides)
        for attr in ("raw", "data"):
            value = getattr(profile, attr, None)
            if isinstance(value, Mapping):
                return cls.from_mapping(value, **overrides)
        if hasattr(profile, "as_dict"):
            return cls.from_mapping(profile.as_dict(), **overrides)
        if isinstance(profile, Mapping):
            return cls.from_mapping(profile, **overrides)
        raise InputError(f"profile of type {type(profile).__name__}: cannot read its rules")

    @classmethod
    def from_mapping(cls, d: Mapping[str, Any], **overrides: Any) -> EmulatorConfig:
        """From a profile's YAML shape (``game``, ``rules``, ``emulator``, ``interpretations``)."""
        game = str(d.get("game", "midibaccarat"))
        if game not in GAMES:
            raise InputError(f"game {game!r}: expected one of {', '.join(GAMES)}")
        rules = dict(d.get("rules") or {})
        emu = dict(d.get("emulator") or {})
        denomination = parse_amount(rules.get("denomination", 5))
        seats: dict[int, tuple[str, str] | None] = {}
        for entry in rules.get("seats") or [{"seat": n} for n in range(1, 8)]:
            seat = int(entry["seat"])
            seats[seat] = _combo(entry.get("combo"))
        meters = {str(name): _meter(str(name), m) for name, m in (rules.get("meters") or {}).items()}
        hr = dict(rules.get("hit_and_run") or {})
        if isinstance(hr.get("meter"), Mapping):  # Hit and Run: one meter, 633a.13(l)(1)
            meters["hit-and-run"] = _meter("hit-and-run", hr["meter"])
        decks = int(str(hr.get("decks", rules.get("decks", 6 if game == "blackjack-hit-and-run" else 8))))
        soft17 = str(hr.get("soft17", "hit")).lower()
        defects = emu.get("defect") or emu.get("defects") or ()
        if isinstance(defects, str):
            defects = (defects,)
        personas = emu.get("persona") or emu.get("personas") or ()
        if isinstance(personas, str):
            personas = (personas,)
        cfg = cls(
            game=game,
            denomination=denomination,
            seats=seats,
            meters=meters,
            mystery=_mystery(rules.get("mystery")),
            decks=decks,
            hit_soft17=soft17 in ("hit", "true", "h17"),
            commission=parse_rate(rules.get("commission", "5%")),
            lockout_latency_us=_micros(emu, "lockout_latency", 300),
            deal_pace_us=_micros(emu, "deal_pace", 15_000),
            answer_latency_us=_micros(emu, "answer_latency", 0),
            comm_loss_latency_us=_micros(emu, "comm_loss_latency", 0),
            identity=dict(emu.get("identity") or {}),
            defects=frozenset(str(x) for x in defects),
            personas=frozenset(str(x) for x in personas),
            nv_dir=Path(emu["nv_dir"]) if emu.get("nv_dir") else None,
            seed=int(emu["seed"]) if emu.get("seed") is not None else None,
            nv_fsync=bool(emu.get("nv_fsync", False)),
            interpretations={str(k): v for k, v in (d.get("interpretations") or {}).items()},
            test_channel=bool(emu.get("test_channel", True)),
            wiring=_wiring((d.get("bench") or {}).get("performers") or {}),
            link=dict(d["link"]) if isinstance(d.get("link"), Mapping) else None,
            streak3_pays=_streak3_pays(rules.get("streak3")),
            # the contract-version-1 persona speaks the oldest version unless the profile names one
            contract_version=_contract_version(emu.get("contract_version", PROTOCOL_VERSIONS[0]
                                                       if "contract-version-1" in personas else PROTOCOL_VERSION)),
        )
        cfg = cfg.with_changes(**overrides) if overrides else cfg
        check_defects(cfg.defects)
        check_personas(cfg.personas)
        check_table(cfg)
        return cfg


def _contract_version(value: Any) -> int:
    if isinstance(value, bool) or value not in PROTOCOL_VERSIONS:
        spoken = ", ".join(map(str, PROTOCOL_VERSIONS))
        raise InputError(f"emulator.contract_version {value!r}: expected one of {spoken}")
    return int(value)


def _streak3_pays(streak3: Any) -> str | None:
    """``rules.streak3.pays`` checked as odds (``"7 to 1"``, ``"8 for 1"``), or None."""
    if not streak3:
        return None
    if not isinstance(streak3, Mapping) or "pays" not in streak3:
        raise InputError("rules.streak3: expected {pays: 'X to 1'}")
    text = str(streak3["pays"])
    if parse_pay(text).kind not in ("to", "for"):
        raise InputError(f"rules.streak3.pays {text!r}: expected odds, 'X to 1' or 'X for 1'")
    return text


def _wiring(performers: Mapping[str, Any]) -> dict[str, str]:
    """Relay channel -> what it is wired to, from ``bench.performers`` entries with an actuator."""
    out: dict[str, str] = {}
    for act, spec in performers.items():
        if not isinstance(spec, Mapping) or "actuator" not in spec:
            continue
        if spec.get("channel") is not None:
            out[str(spec["channel"])] = str(act)
        for meter, channel in (spec.get("channels") or {}).items():
            out[str(channel)] = f"{act}:{meter}"
    return out


def _performers_of(wiring: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for channel, target in sorted(wiring.items()):
        act, _, meter = target.partition(":")
        if meter:
            out.setdefault(act, {"actuator": "relay", "channels": {}})["channels"][meter] = channel
        else:
            out[act] = {"actuator": "relay", "channel": channel}
    return out


def _dollars(cents: Cents) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def _us(ms: Decimal) -> int:
    """Milliseconds as whole microseconds."""
    return int(ms * 1000)


def _micros(emu: Mapping[str, Any], stem: str, default: int) -> int:
    if f"{stem}_us" in emu:
        return int(emu[f"{stem}_us"])
    if f"{stem}_ms" in emu:
        value = Decimal(str(emu[f"{stem}_ms"])) * 1000
        if value < 0:
            raise InputError(f"emulator.{stem}_ms: must not be negative")
        return int(value)
    return default


def _meter(name: str, m: Mapping[str, Any]) -> MeterConfig:
    try:
        initial = parse_amount(m["initial"])
        return MeterConfig(
            name=name,
            rate=parse_rate(m["rate"]),
            initial=initial,
            reset=parse_amount(m.get("reset", m["initial"])),
            payout_limit=parse_amount(m["payout_limit"]) if "payout_limit" in m else None,
            display_capacity=parse_amount(m["display_capacity"]) if "display_capacity" in m else None,
        )
    except KeyError as exc:
        raise InputError(f"meter {name}: missing {exc.args[0]!r}") from None


def _mystery(m: Mapping[str, Any] | None) -> MysteryConfig | None:
    if not m:
        return None
    number, dist = int(m.get("configuration", 1)), str(m.get("distribution", "uniform"))
    if m.get("paid_by") == "attendant":
        return MysteryConfig.regulation(number, dist, "attendant")
    return MysteryConfig.regulation(number, dist, "table")


def check_table(cfg: EmulatorConfig, current: Mapping[str, Cents] | None = None, *,
                limit_above_current: bool = True) -> None:
    """Refuse a table the device must not run: floors, limits, seats, unique combinations.

    Floors and limits are :func:`harness.progressive.floors.check_configuration` (Royal 9 (f)(2),
    (g)(2); 461a.12(j), (k)(1)).  ``current`` (meter amounts now) adds the checks that need the
    live meters: a payout limit not above the amount on the meter (461a.12(k)(1); skipped with
    ``limit_above_current`` false, the ``payout-limit-below-current`` defect) or a reset above it
    (the meter would show less than its reset amount) are refused.
    """
    if not 1 <= len(cfg.seats) <= 9 or any(not 1 <= s <= 9 for s in cfg.seats):
        raise InputError("seats: a table has one to nine seats numbered 1-9 (WAC 230-15-040(2))")
    for seat, combo in sorted(cfg.seats.items()):
        if combo and (combo[0][:1] != "K" or combo[1][:1] != "9"):
            raise InputError(f"seat {seat} combination {''.join(combo)}: a personal combination is a king and a "
                             "nine (629a Royal 9 (e)(5))")
    combos = [c for c in cfg.seats.values() if c]
    if len(set(combos)) != len(combos):
        raise InputError("seats: personal king-9 combinations must be unique (629a Royal 9 (e)(5))")
    if cfg.denomination <= 0:
        raise InputError("denomination: must be positive")
    if cfg.royal9 and cfg.denomination % 100 == 0:
        check_configuration(cfg.meters.values(), cfg.denomination // 100)
    else:
        check_configuration(cfg.meters.values(), None, game=cfg.game)
    for name, m in cfg.meters.items():
        if current is not None and name in current:
            if limit_above_current and m.payout_limit is not None and m.payout_limit <= current[name]:
                raise InputError(f"{name} payout limit {m.payout_limit} cents must be greater than the "
                                 f"current amount {current[name]} cents (461a.12(k)(1))")
            if m.reset > current[name]:
                raise InputError(f"{name} reset {m.reset} cents above the meter's current "
                                 f"{current[name]} cents")


def table_to_wire(cfg: EmulatorConfig) -> dict[str, Any]:
    """The configuration read-back of ``config.get`` (money in cents, rates as strings)."""
    return {
        "game": cfg.game,
        "denomination": cfg.denomination,
        "decks": cfg.decks,
        "seats": [{"seat": s, "combo": list(c) if c else None} for s, c in sorted(cfg.seats.items())],
        "meters": {name: meter_to_wire(m) for name, m in cfg.meters.items()},
        "mystery": cfg.mystery.to_dict() if cfg.mystery else None,
        "commission": str(cfg.commission),
        "hit_soft17": cfg.hit_soft17,
        **({"link": {"table": cfg.link.get("table"), "meters": dict(cfg.link.get("meters") or {})}}
           if cfg.link else {}),
    }


def apply_wire_changes(cfg: EmulatorConfig, changes: Mapping[str, Any]) -> EmulatorConfig:
    """``config.set`` arguments (the ``config.get`` shape, any subset) applied to ``cfg``.

    Raises :class:`InputError` (answered as BAD_ARGS) for a malformed change; the floor and limit
    checks are the caller's (:func:`check_table`).
    """
    new: dict[str, Any] = {}
    for key, value in changes.items():
        if key == "denomination":
            new["denomination"] = _cents(key, value)
        elif key == "seats":
            new["seats"] = {int(e["seat"]): _combo(e.get("combo")) for e in value}
        elif key == "meters":
            meters = dict(cfg.meters)
            for name, fields_ in value.items():
                if name not in meters:
                    raise InputError(f"meters.{name}: no such meter")
                base = meter_to_wire(meters[name])
                unknown = set(fields_) - set(base)
                if unknown:
                    raise InputError(f"meters.{name}: unknown field(s) {', '.join(sorted(unknown))}")
                base.update(fields_)
                meters[name] = MeterConfig(
                    name=name,
                    rate=parse_rate(str(base["rate"])),
                    initial=_cents(f"meters.{name}.initial", base["initial"]),
                    reset=_cents(f"meters.{name}.reset", base["reset"]),
                    payout_limit=_opt_cents(f"meters.{name}.payout_limit", base["payout_limit"]),
                    display_capacity=_opt_cents(f"meters.{name}.display_capacity", base["display_capacity"]),
                )
            new["meters"] = meters
        elif key == "mystery":
            new["mystery"] = _mystery(value)
        elif key == "commission":
            new["commission"] = parse_rate(str(value))
        elif key == "decks":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 16:
                raise InputError(f"decks: expected 1 to 16, got {value!r}")
            new["decks"] = value
        elif key == "hit_soft17":
            new["hit_soft17"] = bool(value)
        elif key not in ("cmd", "link"):
            raise InputError(f"{key}: not a configurable parameter")
    return cfg.with_changes(**new)


def _cents(where: str, value: Any) -> Cents:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where}: expected a non-negative amount in integer cents, got {value!r}")
    return value


def _opt_cents(where: str, value: Any) -> Cents | None:
    return None if value is None else _cents(where, value)


def _combo(combo: Any) -> tuple[str, str] | None:
    if not combo:
        return None
    if not isinstance(combo, list | tuple) or len(combo) != 2:
        raise InputError(f"combo {combo!r}: expected two cards, e.g. ['KS', '9S']")
    return (parse_card(str(combo[0])).code, parse_card(str(combo[1])).code)


def load_config(path: str | Path, defects: Iterable[str] = ()) -> EmulatorConfig:
    """An :class:`EmulatorConfig` from a profile file: YAML through the profile loader (positioned
    errors), or the ``.json`` mapping :func:`harness.emulators.process.start_emulator` writes."""
    p = Path(path)
    if p.suffix == ".json":
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"{p}: {exc}") from None
        cfg = EmulatorConfig.from_mapping(data)
    else:
        cfg = EmulatorConfig.from_profile(load_profile(p))
    extra = frozenset(defects)
    check_defects(extra)
    return cfg.with_changes(defects=cfg.defects | extra) if extra else cfg
