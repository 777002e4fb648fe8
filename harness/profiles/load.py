"""Loading and validating a device profile (``spec: tablecert/profile/1``).

A profile says which device plays each role and how to reach it, what the table can do
(capabilities the suites require), the certificate holder's Rules Submission, the timing limits
and any interpretation overrides.  A typo must never silently restore a default (a lesson from
peer tools' trackers), so every key is checked and every error reads ``file:line:col: message``;
every error of a file is reported (each device, seat, meter and section is checked on its own).
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

from harness.bench.settings import BenchSettings, parse_bench
from harness.devices.vocabulary import ANSWER_LIMIT_MS, PROTOCOL_VERSION, PROTOCOL_VERSIONS
from harness.errors import InputError
from harness.profiles import known_values
from harness.profiles.configwrites import NONE_WRITABLE, parse_config_writes
from harness.profiles.lineparams import COUNTER_KEYS, SERIAL_KEYS, line_options
from harness.profiles.linked import parse_link
from harness.profiles.model import EMULATOR, DeviceSpec, EmulatorSettings, Profile, RulesSubmission, Timing
from harness.profiles.rules import BACCARAT_GAMES, parse_rules
from harness.randomness.settings import RandomnessSettings, parse_randomness
from harness.schema import (
    Fields,
    attempt,
    check_bool,
    check_enum,
    check_map,
    check_str,
    collecting,
    fold_lookalikes,
    guard,
    report,
    shown,
    suggest,
)
from harness.yamlload import Loc, YList, YMap, error_at, load_yaml, load_yaml_text, to_plain

SPEC_PREFIX = "tablecert/profile/"
SPEC = SPEC_PREFIX + "1"
GAMES = (*BACCARAT_GAMES, "blackjack-hit-and-run")
ROLES = ("shoe", "sensors", "controller", "counter", "power")
REQUIRED_ROLES = ("shoe", "sensors", "controller")
CAPABILITIES = (
    "royal9", "lockout-button", "reset-key", "mystery", "power-control", "comm-loss", "latency-counter",
    "config-write", "dragon7", "panda8", "hit-and-run", "misread-report", "shuffler", "carryover-pot",
    "streak3", "link",
)
#: identity fields a ``match:`` may pin (the protocol's ``identity`` answer, or a VISA ``*IDN?``)
MATCH_FIELDS = ("manufacturer", "model", "serial", "software_id", "software_version", "program_hash",
                "asset_number", "usb_serial")
_TOP_KEYS = ("spec", "name", "description", "game", "jurisdiction", "devices", "capabilities", "rules",
             "timing", "interpretations", "emulator", "report", "bench",
             "randomness", "link", "config_writes")
_DEVICE_KEYS = ("driver", "port", "resource", "baudrate", "backend", "match", "calibration", "feeds", *SERIAL_KEYS,
                *COUNTER_KEYS)
#: the roles a bench supply may feed (``devices.power.feeds``)
FED_ROLES = ("controller", "shoe", "sensors")
#: the lab report's fields a profile may fill (docs/device-profiles.md, docs/report.md)
REPORT_KEYS = ("submitting_party", "lab", "accreditation", "tested_by", "reviewed_by", "approved_by")
_CALIBRATION_KEYS = ("due", "certificate", "uncertainty")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_UNSTABLE_PORT = re.compile(r"^/dev/tty(USB|ACM)\d+$")
_PORT = re.compile(r"^(/|[A-Za-z][A-Za-z0-9+]*://|COM\d+$)")
#: a VISA resource name: ``TCPIP0::...``, ``USB0::...``, and serial ``ASRL1::INSTR`` or ``ASRL/dev/ttyS0::INSTR``
_VISA = re.compile(r"^(?:(?:TCPIP|USB|GPIB|VXI|PXI)\d*|ASRL(?:\d+|COM\d+|/[^:]+))::.+", re.IGNORECASE)


def _device(role: str, f: Fields) -> DeviceSpec:
    drivers = known_values.driver_names()
    driver = f.get_str("driver")
    if driver not in drivers:
        raise f.error("driver", f"unknown driver {shown(driver)}{suggest(driver, drivers)} "
                                f"(known: {', '.join(sorted(drivers))})")
    plays = drivers[driver]
    if plays is not None and plays != role:
        raise f.error("driver", f"{driver} drives the {plays}, not the {role}")
    if "port" in f and "resource" in f:
        raise f.error("resource", "give either port (serial) or resource (VISA), not both")
    if "port" not in f and "resource" not in f:
        kind = "resource" if driver in known_values.VISA_DRIVERS else "port"
        raise f.node.where.error(f"{f.what}: missing key '{kind}' (where to reach the {role}; "
                                 f"'{kind}: emulator' for the built-in emulator)")
    if driver in known_values.VISA_DRIVERS and "port" in f:
        raise f.error("port", f"{driver} is a VISA instrument: write resource: instead of port:")
    if driver not in known_values.VISA_DRIVERS and "resource" in f:
        raise f.error("resource", f"{driver} talks over a serial port or a socket, not VISA: write port: (e.g. "
                                  "/dev/serial/by-id/..., socket://127.0.0.1:7001, or emulator) instead of resource:")
    port = f.get_str("port", None)
    resource = f.get_str("resource", None)
    if port is not None and port != EMULATOR:
        if not _PORT.match(port):
            raise f.error("port", f"'{port}' is not a serial device path or URL (e.g. "
                                  "/dev/serial/by-id/..., socket://127.0.0.1:7001, or emulator)")
        url_problem = _url_problem(port)
        if url_problem:
            raise f.error("port", url_problem)
        if _UNSTABLE_PORT.match(port) and "match" not in f:
            raise f.error("port", f"{port} is not a stable identity (the number follows plug-in order): "
                                  "use /dev/serial/by-id/... or add match: {serial: ...}")
    if resource is not None and resource != EMULATOR and not _VISA.match(resource):
        raise f.error("resource", f"'{resource}' is not a VISA resource name (e.g. "
                                  "TCPIP::192.0.2.10::5025::SOCKET, ASRL/dev/ttyS0::INSTR, or emulator)")
    if "baudrate" in f and port is None:
        raise f.error("baudrate", "only a serial port has a baud rate")
    if "backend" in f and resource is None:
        raise f.error("backend", "only a VISA resource has a backend")
    match: dict[str, str] = {}
    if "match" in f:
        mf = f.get_map("match", optional=MATCH_FIELDS)
        match = {str(k): mf.get_str(str(k)) for k in mf}
        for key, value in match.items():
            if not value.strip():
                raise mf.error(key, f"an empty {key} pins nothing: give the value the device reports, or leave "
                                    f"{key} out")
    calibration: dict[str, str] = {}
    if "calibration" in f:
        cf = f.get_map("calibration", required=("due",), optional=_CALIBRATION_KEYS)
        calibration = {str(k): cf.get_str(str(k)) for k in cf}
        due = calibration["due"]
        try:
            if not _DATE.match(due):
                raise ValueError(due)
            date.fromisoformat(due)
        except ValueError:
            raise cf.error("due", f"calibration due date '{due}' is not a date YYYY-MM-DD") from None
    feeds: tuple[str, ...] = ()
    if "feeds" in f:
        if role != "power":
            raise f.error("feeds", "only the power supply feeds devices (feeds: the roles its output powers)")
        node = f.get_list("feeds")
        feeds = tuple(check_enum(v, loc, f"{f.name('feeds')}[{i}]", FED_ROLES) for i, v, loc in node.enumerate_locs())
        if "controller" not in feeds:
            raise f.error("feeds", "the supply of the power-loss cases feeds the controller: list controller")
        if len(set(feeds)) != len(feeds):
            raise f.error("feeds", "each role once")
    return DeviceSpec(
        feeds=feeds,
        role=role,
        driver=driver,
        port=port,
        resource=resource,
        baudrate=f.get_int("baudrate", None, lo=50, hi=4_000_000),
        backend=f.get_enum("backend", ["@py", "@sim"], "@py"),
        match=MappingProxyType(match),
        calibration=MappingProxyType(calibration),
        options=MappingProxyType(line_options(f, driver, port)),
    )


def _devices(f: Fields) -> dict[str, DeviceSpec]:
    df = f.get_map("devices", required=REQUIRED_ROLES, optional=ROLES)
    out: dict[str, DeviceSpec] = {}
    claimed: dict[tuple[str, str], str] = {}
    for role in df:
        if role in ROLES:
            with guard():
                fields = df.get_map(role, required=("driver",), optional=_DEVICE_KEYS)
                spec = _device(role, fields)
                out[role] = spec
                for key, address in (("port", spec.port), ("resource", spec.resource)):
                    if address is None or address == EMULATOR:
                        continue
                    first = claimed.setdefault((key, _same_address(address)), role)
                    if first != role:
                        raise fields.error(key, f"{address} is also the {first}'s {key}: one {key} reaches one "
                                                "device (two roles on it would read each other's answers)")
    return out


def _same_address(address: str) -> str:
    """One spelling of an address (VISA names are case-blind; a URL's scheme and host too)."""
    if "::" in address:
        return address.upper()
    scheme, sep, rest = address.partition("://")
    return f"{scheme.lower()}{sep}{rest.lower()}" if sep else address


def _url_problem(port: str) -> str | None:
    """Why a ``socket://`` or ``rfc2217://`` port cannot be reached, or None (a device path: None)."""
    scheme, sep, rest = port.partition("://")
    if not sep or scheme.lower() not in ("socket", "rfc2217"):
        return None
    hostport = rest.split("/", 1)[0].split("?", 1)[0]
    host, colon, number = hostport.rpartition(":")
    if not colon or not host or not number:
        return f"'{port}' has no port number: write {scheme}://HOST:PORT (e.g. {scheme}://192.0.2.10:7001)"
    if not number.isdigit() or not 1 <= int(number) <= 65535:
        return f"'{port}': port {number} is not a TCP port (1 to 65535)"
    return None


def _capabilities(f: Fields) -> frozenset[str]:
    if "capabilities" not in f:
        return frozenset()
    node = f.get_list("capabilities")
    seen: dict[str, int] = {}
    for _i, item, loc in node.enumerate_locs():
        cap: str | None = None
        with guard():
            cap = check_enum(item, loc, "capabilities", CAPABILITIES)
        if cap is None:
            continue
        if cap in seen:
            report(loc.error(f"capabilities: '{cap}' is listed twice (first at line {seen[cap]})"))
        seen.setdefault(cap, loc.pos.line)
    return frozenset(seen)


def _check_capabilities(f: Fields, game: str, caps: frozenset[str], devices: dict[str, DeviceSpec]) -> None:
    """A capability the table cannot have would make the suites run cases that cannot pass."""
    where = f.loc("capabilities")
    needs_game = {"royal9": ("midibaccarat",), "mystery": ("midibaccarat",),
                  "hit-and-run": ("blackjack-hit-and-run",), "dragon7": BACCARAT_GAMES,
                  "panda8": BACCARAT_GAMES,
                  # Wash. Admin. Code 230-15-040(8)(b): "In the game of Mini-Baccarat" only
                  "streak3": ("minibaccarat",)}
    for cap, games in needs_game.items():
        if cap in caps and game not in games:
            report(where.error(f"capabilities: {cap} needs game {' or '.join(games)}, not {game}"))
    for cap, role in (("latency-counter", "counter"), ("power-control", "power")):
        if cap in caps and role not in devices:
            report(where.error(f"capabilities: {cap} needs a {role} device under devices:"))
    if game == "blackjack-hit-and-run" and "hit-and-run" not in caps:
        report(where.error("capabilities: game blackjack-hit-and-run needs the hit-and-run capability"))
    if ("link" in caps) != ("link" in f):
        report(where.error("capabilities: link and a link: section go together (a link profile files its "
                           "tables under link.tables)"))
    elif "link" in caps and "royal9" not in caps:
        report(where.error("capabilities: a link of Royal 9 tables needs royal9"))


def _interpretations(f: Fields) -> dict[str, Any]:
    if "interpretations" not in f:
        return {}
    node = check_map(f.raw("interpretations"), f.loc("interpretations"), "interpretations")
    known = known_values.interpretation_choices()
    out: dict[str, Any] = {}
    for key, value in node.items():
        with guard():
            out[key] = interpretation_value(key, value, node, known, "interpretations")
    return out


def interpretation_value(key: Any, value: Any, node: YMap, known: dict[str, tuple[Any, ...]], where: str) -> Any:
    """One ``interpretation: value`` entry checked against the catalogue's choices (profiles'
    ``interpretations:`` and suites' ``when: {interpretations: ...}`` read the same way)."""
    if not isinstance(key, str) or key not in known:
        raise node.key_loc(key).error(
            f"{where}: unknown interpretation id {shown(key)}{suggest(str(key), known)}")
    choices = known[key]
    what = f"{where}.{key}"
    if all(isinstance(c, bool) for c in choices):
        flag = check_bool(value, node.loc(key), what)
        if flag not in choices:
            raise node.loc(key).error(f"{what}: {str(flag).lower()} is not one of its choices "
                                      f"({', '.join(str(c).lower() for c in choices)})")
        return flag
    return check_enum(value, node.loc(key), what, [str(c) for c in choices])


def _timing(f: Fields) -> Timing:
    if "timing" not in f:
        return Timing()
    tf = f.get_map("timing", optional=("lockout_deadline_ms", "comm_timeout_ms", "response_timeout_ms",
                                       "lockout_uncertainty_ms", "frame_timeout_ms"))
    d = Timing()
    lo, hi = Decimal("0.001"), Decimal(60_000)
    return Timing(
        lockout_deadline_ms=tf.get_decimal("lockout_deadline_ms", d.lockout_deadline_ms, lo=lo, hi=hi),
        comm_timeout_ms=tf.get_decimal("comm_timeout_ms", d.comm_timeout_ms, lo=lo, hi=hi),
        response_timeout_ms=tf.get_decimal("response_timeout_ms", d.response_timeout_ms, lo=lo, hi=hi),
        lockout_uncertainty_ms=tf.get_decimal("lockout_uncertainty_ms", None, lo=Decimal(0), hi=hi),
        frame_timeout_ms=tf.get_decimal("frame_timeout_ms", d.frame_timeout_ms, lo=Decimal(1), hi=hi),
    )


def _report(f: Fields) -> dict[str, str]:
    """The lab report's fields (submitting party, lab, accreditation, signatories), all optional."""
    if "report" not in f:
        return {}
    rf = f.get_map("report", optional=REPORT_KEYS)
    return {str(k): rf.get_str(str(k)) for k in rf}


def _emulator(f: Fields, timing: Timing) -> EmulatorSettings:
    if "emulator" not in f:
        return EmulatorSettings()
    ef = f.get_map("emulator", optional=("lockout_latency_ms", "deal_pace_ms", "defect", "identity", "seed",
                                         "nv_dir", "test_channel", "contract_version", "persona",
                                         "answer_latency_ms", "comm_loss_latency_ms"))
    d = EmulatorSettings()
    latency = ef.get_decimal("lockout_latency_ms", d.lockout_latency_ms, lo=Decimal(0), hi=Decimal(60_000))
    defect = ef.raw("defect")
    if defect is not None:
        defect = check_str(defect, ef.loc("defect"), "emulator.defect")
        names = known_values.defect_names()
        if names is not None and defect not in names:
            raise ef.error("defect", f"unknown defect {shown(defect)}{suggest(defect, names)} "
                                     "(tablecert defects lists them)")
    if defect is None and "lockout_latency_ms" in ef and latency >= timing.lockout_deadline_ms:
        raise ef.error("lockout_latency_ms", f"{latency} ms is not below timing.lockout_deadline_ms "
                                             f"{timing.lockout_deadline_ms}: a clean emulator would fail its "
                                             "own lock-out cases")
    # an answer or a noticed link loss at or past its limit would fail the clean emulator's own cases
    answer = ef.get_decimal("answer_latency_ms", d.answer_latency_ms, lo=Decimal(0), hi=Decimal(60_000))
    answer_limit = min(ANSWER_LIMIT_MS, timing.response_timeout_ms)
    if defect is None and answer >= answer_limit:
        raise ef.error("answer_latency_ms", f"{answer} ms is not below {answer_limit} ms (docs/protocol.md section "
                                            "5: a device answers within 100 ms; timing.response_timeout_ms "
                                            f"{timing.response_timeout_ms})")
    comm_loss = ef.get_decimal("comm_loss_latency_ms", d.comm_loss_latency_ms, lo=Decimal(0), hi=Decimal(60_000))
    if defect is None and comm_loss >= timing.comm_timeout_ms:
        raise ef.error("comm_loss_latency_ms", f"{comm_loss} ms is not below timing.comm_timeout_ms "
                                               f"{timing.comm_timeout_ms}")
    persona = ef.raw("persona")
    if persona is not None:
        from harness.emulators.personas import PERSONAS  # noqa: PLC0415 - the emulators: not at `validate` start-up

        persona = check_str(persona, ef.loc("persona"), "emulator.persona")
        if persona not in PERSONAS:
            raise ef.error("persona", f"unknown persona {shown(persona)}{suggest(persona, PERSONAS)} "
                                      "(tablecert variants --personas lists them)")
    identity: dict[str, str] = {}
    if "identity" in ef:
        idf = ef.get_map("identity", optional=[m for m in MATCH_FIELDS if m != "usb_serial"]
                         + ["controller_type", "software_name", "location", "game_type"])
        identity = {str(k): idf.get_str(str(k)) for k in idf}
    return EmulatorSettings(
        lockout_latency_ms=latency,
        answer_latency_ms=answer,
        comm_loss_latency_ms=comm_loss,
        deal_pace_ms=ef.get_decimal("deal_pace_ms", d.deal_pace_ms, lo=Decimal(0), hi=Decimal(60_000)),
        defect=defect,
        persona=persona,
        identity=MappingProxyType(identity),
        seed=ef.get_int("seed", None, lo=0),
        nv_dir=ef.get_str("nv_dir", None),
        test_channel=ef.get_bool("test_channel", True),
        contract_version=ef.get_int("contract_version", PROTOCOL_VERSION, lo=PROTOCOL_VERSIONS[0],
                                    hi=PROTOCOL_VERSIONS[-1]),
    )


def _spec(root: YMap, loc: Loc) -> str:
    if "spec" not in root:
        if any(isinstance(k, str) and fold_lookalikes(k) == "spec" for k in root):
            return SPEC  # a 'spec' key with a hidden character: reported once, as an unknown key
        raise loc.error(f"missing key 'spec' (a profile starts with spec: {SPEC})")
    spec = check_str(root["spec"], root.loc("spec"), "spec")
    if spec != SPEC:
        hint = "this tablecert reads" if spec.startswith(SPEC_PREFIX) else "expected"
        raise root.loc("spec").error(f"spec '{spec}': {hint} {SPEC}")
    first = next(iter(root))
    if first != "spec":
        report(root.key_loc("spec").error(
            f"spec: must be the first key of a profile (it says what the file is); '{first}' at line "
            f"{root.key_loc(first).pos.line} comes before it"))
    return spec


def profile_from_node(root: Any, path: str) -> Profile:
    """Validate a loaded YAML node as a profile."""
    if not isinstance(root, YMap):
        kind = "an empty file" if root is None else "not a mapping"
        raise InputError(f"{kind}: a profile is a mapping starting with spec: {SPEC}",
                         path=path, line=1, col=1)
    with collecting():
        spec = _spec(root, root.where)
        linked = "link" in root
        f = Fields(root, root.where, "", required=("spec", "name", "game") if linked else ("spec", "name", "game",
                                                                                           "devices"),
                   optional=_TOP_KEYS)
        name = attempt(lambda: f.get_str("name", pattern=r"[A-Za-z0-9][A-Za-z0-9._-]*"), "")
        game = attempt(lambda: f.get_enum("game", GAMES))
        devices = {} if linked else attempt(lambda: _devices(f), {})
        for key in ("devices", "rules") if linked else ():
            if key in f:
                report(f.error(key, f"a link profile files {key} per table, under link.tables"))
        caps = attempt(lambda: _capabilities(f), frozenset())
        config_writes, caps, unstated_writes = attempt(lambda: parse_config_writes(f, caps),
                                                       (NONE_WRITABLE, caps, frozenset()))
        if game is not None:
            _check_capabilities(f, game, caps, devices)
        interpretations = attempt(lambda: _interpretations(f), {})
        suited = bool(interpretations.get("r9-personal-combo-suited", True))
        rules = None
        link = None
        if linked and game is not None:
            rules = RulesSubmission()
            link = attempt(lambda: parse_link(f, game=game, capabilities=caps, interpretations=interpretations,
                                              device=_device, devices=_devices))
        elif "rules" not in f:
            report(f.node.where.error("missing key 'rules' (the Rules Submission: seats, and for the Royal 9 "
                                      "its denomination and meters)"))
        elif game is not None:
            rules = attempt(lambda: parse_rules(f.raw("rules"), f.loc("rules"), game=game, capabilities=caps,
                                                suited=suited))
        timing = attempt(lambda: _timing(f), Timing())
        emulator = attempt(lambda: _emulator(f, timing), EmulatorSettings())
        description = attempt(lambda: f.get_str("description", ""), "")
        jurisdictions = attempt(lambda: _jurisdictions(f), ())
        if "streak3" in caps and jurisdictions and "WA" not in jurisdictions:
            report(f.loc("jurisdiction").error(
                f"jurisdiction: capability streak3 is the Washington Mini-Baccarat wager (Wash. Admin. Code "
                f"230-15-040(8)(b)); a table certified for {', '.join(jurisdictions)} alone does not offer it "
                "(add WA, or remove streak3)"))
        report_fields = attempt(lambda: _report(f), {})
        emulated = any(d.is_emulated for d in devices.values())
        bench = attempt(lambda: parse_bench(f, emulated=emulated, test_channel=emulator.test_channel or not emulated,
                                            has_power="power" in devices), BenchSettings())
        randomness = attempt(lambda: parse_randomness(f), RandomnessSettings())
    assert game is not None and rules is not None  # otherwise collecting() raised the errors
    return Profile(
        spec=spec,
        name=name,
        description=description,
        game=game,
        jurisdiction=", ".join(jurisdictions) or None,
        jurisdictions=jurisdictions,
        devices=MappingProxyType(devices),
        capabilities=caps,
        rules=rules,
        timing=timing,
        interpretations=MappingProxyType(interpretations),
        emulator=emulator,
        source_path=path,
        raw=MappingProxyType(to_plain(root)),
        report=MappingProxyType(report_fields),
        bench=bench,
        randomness=randomness,
        link=link,
        config_writes=config_writes,
        unstated_writes=unstated_writes,
    )


def _jurisdictions(f: Fields) -> tuple[str, ...]:
    """``jurisdiction: PA`` or ``jurisdiction: [PA, WA]``: where the table is certified.  Cases whose
    clauses all belong to another jurisdiction do not apply (NOT APPLICABLE, with that reason), and
    the report cites only these jurisdictions' standards.  Absent: every jurisdiction of the
    catalogue."""
    if "jurisdiction" not in f:
        return ()
    known = known_values.jurisdictions()
    value = f.raw("jurisdiction")
    if isinstance(value, YList):
        if not value:
            raise f.error("jurisdiction", "an empty list: name at least one jurisdiction "
                                          f"({', '.join(known)}), or leave the key out for all")
        out: list[str] = []
        for i, item, loc in value.enumerate_locs():
            code = check_enum(item, loc, f"jurisdiction[{i}]", known)
            if code in out:
                raise error_at(loc, f"jurisdiction[{i}]: {code} is listed twice")
            out.append(code)
        return tuple(out)
    return (check_enum(value, f.loc("jurisdiction"), "jurisdiction", known),)


def load_profile(path: str | Path) -> Profile:
    """Load and validate ``path``; :class:`InputError` (``file:line:col: message``) if it is bad."""
    return profile_from_node(load_yaml(path), str(path))


def load_profile_text(text: str, path: str = "<string>") -> Profile:
    return profile_from_node(load_yaml_text(text, path), path)


