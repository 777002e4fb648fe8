"""Builds the JSON Schemas (Draft 2020-12) of every frame payload of the reference protocol, one per
contract version (``protocol.schema.json`` the newest, ``protocol-<n>.schema.json`` each older one
a device may still speak), from the vocabularies of :mod:`harness.devices.vocabulary`.

The schema files are shipped as package data and are what the drivers validate against
(:mod:`harness.devices.contract`: the version ``hello`` negotiated judges every message of that
device); this module is how they are written, so an enumeration is typed once and a version differs
from the next only where :data:`CHANGES` says.  Regenerate after a change (a test fails while a
shipped file differs)::

    .venv/bin/python -m harness.devices.schema_build

Layout: ``$defs`` holds one schema per message kind, named ``request:<cmd>``, ``reply:<cmd>``,
``event:<name>`` and ``nak``, plus the shared value types; ``x-messages`` lists them by direction
and role.  Every device-to-host object is closed: a field the contract does not name is a
violation, except vendor fields whose names begin with ``x-``, which hosts ignore.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from harness.devices import vocabulary as v

SCHEMA_PATH = Path(__file__).with_name("protocol.schema.json")
DRAFT = "https://json-schema.org/draft/2020-12/schema"
VENDOR: dict[str, Any] = {"^x-": {}}

#: the change log: version -> each change that made a device conforming to the version before it
#: non-conforming (docs/protocol.md, "Versions and change log" says the same in prose)
CHANGES: dict[int, tuple[str, ...]] = {
    2: (
        "closed objects: a field a device-to-host message does not name is outside the contract (only "
        "vendor fields `x-...` are ignored); version 1 said hosts ignore fields they do not know",
        "meters.get `pending` is required and is a list of payments `{meter, seat, amount, category}`; "
        "version 1 named it among the additions without a shape or a requirement (a device may send it "
        "keyed by meter: `{\"mega\": {seat, amount, category}}`)",
        "meters.get `diverted` is required for every meter standing at its cap (docs/protocol.md section "
        "6.4); version 1 made `diverted` an optional addition",
        "hello offers every version the host speaks (`versions`) and the device answers the one it speaks; "
        "version 1 offered one version",
    ),
}
#: the version this module is building (set by :func:`build`)
_building = max(CHANGES)


def path_of(version: int) -> Path:
    """Where the schema of ``version`` is shipped: the newest as ``protocol.schema.json``."""
    return SCHEMA_PATH if version == v.PROTOCOL_VERSION else SCHEMA_PATH.with_name(f"protocol-{version}.schema.json")


def ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def enum(values: Any, desc: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"enum": list(values)}
    if desc:
        out["description"] = desc
    return out


def obj(props: dict[str, Any], required: tuple[str, ...] = (), desc: str = "", *, vendor: bool = True,
        **more: Any) -> dict[str, Any]:
    """A closed object: ``props`` only (and ``x-`` vendor fields where ``vendor``)."""
    out: dict[str, Any] = {"type": "object"}
    if desc:
        out["description"] = desc
    out["properties"] = props
    if required:
        out["required"] = list(required)
    if vendor:
        out["patternProperties"] = VENDOR
    if not vendor or _building >= 2:  # version 1: hosts ignore the fields of a device they do not know
        out["additionalProperties"] = False
    out.update(more)
    return out


def request(cmd: str, desc: str, props: dict[str, Any] | None = None, required: tuple[str, ...] = ()
            ) -> dict[str, Any]:
    return obj({"cmd": {"const": cmd}, **(props or {})}, ("cmd", *required), desc, vendor=False)


def reply(desc: str, props: dict[str, Any] | None = None, required: tuple[str, ...] = (), **more: Any
          ) -> dict[str, Any]:
    return obj({"ok": {"const": True}, **(props or {})}, ("ok", *required), desc, **more)


def event(name: str, desc: str, props: dict[str, Any], required: tuple[str, ...], **more: Any) -> dict[str, Any]:
    device_time = {"type": "integer", "minimum": 0, "description": "the device's own timestamp, µs (optional)"}
    return obj({"event": {"const": name}, **props, "t_us": device_time}, ("event", *required), desc, **more)


def _types() -> dict[str, Any]:
    cents = {"type": "integer", "minimum": 0, "description": "money: integer cents"}
    decimal = {"type": "string", "pattern": r"^[0-9]+(\.[0-9]+)?$"}
    return {
        "cents": cents,
        "count": {"type": "integer", "minimum": 0},
        "round": {"type": "integer", "minimum": 0, "description": "the controller's round number"},
        "seat": {"type": "integer", "minimum": v.SEAT_MIN, "maximum": v.SEAT_MAX,
                 "description": "a seat (wagering area), 1..9"},
        "seat-asked": {"type": "integer", "minimum": v.SEAT_MIN,
                       "description": "a seat a host asks about; one the table does not have (10 included) is "
                                      "refused: reason bad-seat, or NAK BAD_ARGS / REFUSED"},
        "card": {"type": "string", "pattern": "^(A|[2-9]|T|J|Q|K)[SHDC]$",
                 "description": "rank A 2-9 T J Q K, suit S H D C"},
        "decimal": {**decimal, "description": "a non-negative decimal string, e.g. \"0.25\""},
        "rate": {**decimal, "description": "percent of each qualifying wager as a decimal string (\"0.5\" = 0.5 %)"},
        "text": {"type": "string"},
        "wager-type": enum(v.WAGER_TYPES),
        "meter": enum(v.METERS),
        "refusal": enum(v.WAGER_REFUSALS, "why a wager was refused"),
        "lockout-cause": enum(v.LOCKOUT_CAUSES),
        "paid-by": enum(v.PAID_BY),
        "game": enum(v.GAMES),
        "hit-category": enum(v.HIT_CATEGORIES),
        "payout-category": nullable(enum(v.PAYOUT_CATEGORIES)),
        "identity-text": {"type": "string", "description": "\"\" when not applicable"},
        "combo": nullable({"type": "array", "items": ref("card"), "minItems": 2, "maxItems": 2}),
        "seat-config": obj({"seat": ref("seat"), "combo": ref("combo")}, ("seat", "combo")),
        "meter-config": obj({"rate": ref("rate"), "initial": ref("cents"), "reset": ref("cents"),
                             "payout_limit": nullable(ref("cents")), "display_capacity": nullable(ref("cents"))},
                            ("rate", "initial", "reset")),
        "mystery-config": obj({"configuration": enum(v.MYSTERY_CONFIGURATIONS), "reseed": ref("cents"),
                               "must_hit_by": ref("cents"), "rate": ref("rate"),
                               "distribution": enum(v.MYSTERY_DISTRIBUTIONS), "paid_by": ref("paid-by")},
                              ("reseed", "must_hit_by", "rate", "distribution", "paid_by")),
        "configuration": {
            "game": ref("game"), "denomination": ref("cents"),
            "decks": {"type": "integer", "minimum": 1, "maximum": 16},
            "seats": {"type": "array", "items": ref("seat-config"), "maxItems": v.SEAT_MAX},
            "meters": {"type": "object", "propertyNames": enum([m for m in v.METERS if m != "mystery"]),
                       "additionalProperties": ref("meter-config")},
            "mystery": nullable(ref("mystery-config")),
            "commission": ref("rate"), "hit_soft17": {"type": "boolean"},
            "link": obj({"table": ref("link-name"), "meters": ref("link-meters")}, ("table", "meters"),
                        "on a linked table: its name on the link and its common meters (section 14)"),
        },
        "wager": obj({"seat": ref("seat"), "type": ref("wager-type"), "amount": ref("cents"),
                      "games": {"type": "integer", "minimum": 0,
                                "description": "a streak wager: the games it has taken part in (section 6; "
                                               "riding past three is judged by the suites, not refused here)"}},
                     ("seat", "type", "amount")),
        "link-name": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$",
                      "description": "a table or common meter of a link (section 14)"},
        "link-meters": {"type": "object", "propertyNames": ref("meter"), "additionalProperties": ref("link-name"),
                        "description": "the table's meter -> the common meter it is on"},
        "common-cents": {"type": "object", "propertyNames": ref("link-name"), "additionalProperties": ref("cents"),
                         "description": "common meter -> cents"},
    }


def _accepted_reason() -> dict[str, Any]:
    """``accepted`` true carries ``reason`` null; false carries a refusal reason."""
    return {"if": {"properties": {"accepted": {"const": True}}},
            "then": {"properties": {"reason": {"type": "null"}}},
            "else": {"properties": {"reason": ref("refusal")}}}


def _offer() -> dict[str, Any]:
    """What ``hello`` offers: the highest version (and, from version 2, every version) the host speaks."""
    out: dict[str, Any] = {"version": {"type": "integer", "minimum": 1}}
    if _building >= 2:
        out["versions"] = {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1}
    return out


def _pending(payment: dict[str, Any]) -> dict[str, Any]:
    """meters.get ``pending``: a list of payments; version 1 gave no shape, so a device may also key
    them by meter (the payment without its ``meter``)."""
    listed = {"type": "array", "items": payment}
    if _building >= 2:
        return listed
    keyed = obj({k: s for k, s in payment["properties"].items() if k != "meter"},
                tuple(k for k in payment["required"] if k != "meter"))
    return {"anyOf": [listed, {"type": "object", "propertyNames": ref("meter"), "additionalProperties": keyed}]}


def _requests() -> dict[str, dict[str, Any]]:
    count = ref("count")
    cfg = _types()["configuration"]
    partial_meter = obj({k: s for k, s in _types()["meter-config"]["properties"].items()}, vendor=False)
    set_props = {k: s for k, s in cfg.items() if k not in ("game", "link")}
    set_props["meters"] = {"type": "object", "propertyNames": cfg["meters"]["propertyNames"],
                           "additionalProperties": partial_meter}
    set_props["mystery"] = nullable(obj({"configuration": enum(v.MYSTERY_CONFIGURATIONS),
                                         "distribution": enum(v.MYSTERY_DISTRIBUTIONS),
                                         "paid_by": ref("paid-by")}, ("configuration",), vendor=False))
    set_props["seats"] = {"type": "array", "items": obj({"seat": ref("seat"), "combo": ref("combo")}, ("seat",),
                                                         vendor=False)}
    faults = [*v.LINE_FAULTS, *v.SHOE_FAULTS]
    return {
        "hello": request("hello", "version negotiation", _offer(), ("version",)),
        "identity": request("identity", "the 607a.2(b) identity"),
        "ping": request("ping", "liveness"),
        "shoe.status": request("shoe.status", "the shoe's state"),
        "test.load": request("test.load", "test channel: replace the shoe's contents, top card first",
                             {"cards": {"type": "array", "items": ref("card")},
                              "check_decks": {"type": "boolean"}}, ("cards",)),
        "test.deal": request("test.deal", "test channel: deal `count` cards (default all), one every `pace_us`",
                             {"count": count, "pace_us": count}),
        "test.fault": request("test.fault", "test channel: inject a fault",
                              {"kind": enum(faults), "count": {"type": "integer", "minimum": 1},
                               "after_ms": count, "duration_ms": count, "code": ref("text"), "text": ref("text")},
                              ("kind",)),
        "test.shuffle": request("test.shuffle", "test channel: reshuffle the shoe's pack `count` times",
                                {"count": {"type": "integer", "minimum": 1}}),
        "wager.place": request("wager.place", "a wager at a seat",
                               {"seat": ref("seat-asked"), "type": ref("wager-type"), "amount": ref("cents")},
                               ("seat", "type", "amount")),
        "wager.remove": request("wager.remove", "withdraw a wager", {"seat": ref("seat-asked"),
                                                                     "type": ref("wager-type")}, ("seat", "type")),
        "wager.list": request("wager.list", "the wagers on the layout"),
        "config.get": request("config.get", "the configuration"),
        "config.set": request("config.set", "change any subset of the configuration (not `game`)", set_props),
        "meters.get": request("meters.get", "meters and payout meters"),
        "lockout.get": request("lockout.get", "the lock-out state"),
        "lockout.press": request("lockout.press", "the lock-out button"),
        "round.open": request("round.open", "the dealer opens wagering"),
        "round.no_more_bets": request("round.no_more_bets", "the dealer calls no more bets"),
        "round.settle": request("round.settle", "close the round on the cards dealt"),
        "reset_key": request("reset_key", "the attendant's reset key after paying a meter award",
                             {"meter": ref("meter")}, ("meter",)),
        "test.link": request("test.link", "test channel: cut or restore the controller-sensors link",
                             {"up": {"type": "boolean"}}, ("up",)),
        "test.state": request("test.state", "test channel: the emulator's internal state"),
    }


def _replies() -> dict[str, dict[str, Any]]:
    ident = {name: ref("identity-text") for name in v.IDENTITY_FIELDS}
    cfg = _types()["configuration"]
    config = reply("the configuration", cfg, ("game", "denomination", "seats", "meters", "mystery"))
    named_cents = {"type": "object", "propertyNames": ref("meter"), "additionalProperties": ref("cents")}
    pending = obj({"meter": ref("meter"), "seat": ref("seat"), "amount": ref("cents"),
                   "category": ref("hit-category"),
                   "linked": {"type": "boolean", "description": "a common meter of the link: its reset key is the "
                                                                "link controller's (section 14)"}},
                  ("meter", "seat", "amount"))
    order = {"type": "string", "pattern": "^[A-Za-z0-9+/]*={0,2}$",
             "description": "card ids (rank-1)*4 + suit index, little-endian u16, base64"}
    state_phase = enum(("idle", "open", "dealing", "settled", "off"))
    lock = nullable(obj({"card_ns": {"type": "integer"}, "lock_ns": {"type": "integer"},
                         "due_ns": {"type": "integer"}}, ("card_ns", "lock_ns", "due_ns")))
    round_no = ref("round")
    return {
        "hello": reply("protocol spoken and role played",
                       {"protocol": {"const": _building}, "role": enum(v.DEVICE_ROLES)},
                       ("protocol", "role")),
        "identity": reply("607a.2(b)(2) identity; which fields are required depends on the role", ident),
        "ping": reply("alive"),
        "shoe.status": reply("the shoe's state", {"state": enum(v.SHOE_STATES), "cards_dealt": ref("count"),
                                                  "cards_remaining": ref("count")},
                             ("state", "cards_dealt", "cards_remaining")),
        "test.load": reply("cards now in the shoe", {"cards_remaining": ref("count")}, ("cards_remaining",)),
        "test.deal": reply("cards still to deal and left in the shoe",
                           {"dealing": ref("count"), "cards_remaining": ref("count")}, ("dealing", "cards_remaining")),
        "test.fault": reply("the fault armed", {"kind": enum([*v.LINE_FAULTS, *v.SHOE_FAULTS]), "count": ref("count"),
                                                "after_ms": ref("count")}, ("kind",)),
        "test.shuffle": reply("the pack's order after each shuffle",
                              {"cards": ref("count"), "shuffles": {"type": "array", "items": order}},
                              ("cards", "shuffles")),
        "wager.place": reply("accepted, or refused with a reason (a refusal is an answer, not a NAK)",
                             {"accepted": {"type": "boolean"}, "reason": nullable(ref("refusal"))},
                             ("accepted", "reason"), **_accepted_reason()),
        "wager.remove": reply("the wager is gone", {"removed": {"const": True}}, ("removed",)),
        "wager.list": reply("the wagers on the layout", {"wagers": {"type": "array", "items": ref("wager")}},
                            ("wagers",)),
        "config.get": config,
        "config.set": config,
        "meters.get": reply("meters, residuals and the payout meters", {
            "meters": named_cents,
            "residual": {"type": "object", "propertyNames": ref("meter"), "additionalProperties": ref("decimal")},
            "diverted": named_cents,
            "cumulative_paid": ref("cents"), "paid_by_table": ref("cents"), "paid_by_attendant": ref("cents"),
            "pending": _pending(pending),
            "link": obj({"table": ref("link-name"), "up": {"type": "boolean"}, "outbox": ref("count"),
                         "meters": ref("link-meters")}, ("table", "up", "outbox", "meters"),
                        "on a linked table: the link's state (section 14)"),
        }, ("meters", "residual", "cumulative_paid", "paid_by_table", "paid_by_attendant",
            *(("pending",) if _building >= 2 else ()))),
        "lockout.get": reply("locked or open, and why", {"locked": {"type": "boolean"},
                                                         "cause": nullable(ref("lockout-cause"))}, ("locked", "cause")),
        "lockout.press": reply("locked", {"locked": {"const": True}}, ("locked",)),
        "round.open": reply("the round opened", {"round": {"type": "integer", "minimum": 1}}, ("round",)),
        "round.no_more_bets": reply("the round closed to wagers", {"round": round_no}, ("round",)),
        "round.settle": reply("the round closed", {"round": round_no, "void": {"type": "boolean"},
                                                   "dealer_stopped": {"type": "boolean"}}, ("round",)),
        "reset_key": reply("the meter's amount after the reset", {"meter": ref("meter"), "amount": ref("cents")},
                           ("meter", "amount")),
        "test.link": reply("the link's state", {"up": {"type": "boolean"}}, ("up",)),
        "test.state": reply("the emulator's internal state (self-tests only; suites never read it)", {
            "phase": state_phase, "locked": {"type": "boolean"}, "cause": nullable(ref("lockout-cause")),
            "round": round_no, "cards": {"type": "array", "items": ref("card")}, "link_up": {"type": "boolean"},
            "mystery": nullable(obj({"trigger": nullable({"type": "integer"}), "amount": ref("cents")},
                                    ("trigger", "amount"))),
            "nv_path": nullable(ref("text")), "nv_writes": ref("count"), "last_card_lock": lock,
            "lateness_ns": {"type": "array", "items": {"type": "integer"}}, "boots": ref("count"),
            "defects": {"type": "array", "items": ref("text")},
            "link": obj({"contributions": ref("count"), "rtt_us": {"type": "array", "items": ref("count")}},
                        ("contributions", "rtt_us")),
        }, ("phase", "locked", "cause", "round")),
    }


def _events() -> dict[str, dict[str, Any]]:
    locked_cause = enum([c for c in v.LOCKOUT_CAUSES if c != "round-open"])
    return {
        "card": event("card", "a card out of the shoe; `n` counts cards dealt since the shoe was loaded",
                      {"card": ref("card"), "n": {"type": "integer", "minimum": 1}}, ("card", "n")),
        "misread": event("misread", "a card out of the shoe that could not be read",
                         {"n": {"type": "integer", "minimum": 1}, "raw": ref("text")}, ("n",)),
        "error": event("error", "a shoe fault", {"code": ref("text"), "text": ref("text")}, ("code", "text")),
        "wager": event("wager", "chips the sensors detected on a betting area (placed by hand)",
                       {"seat": ref("seat"), "type": ref("wager-type"), "amount": ref("cents"),
                        "accepted": {"type": "boolean"}, "reason": nullable(ref("refusal"))},
                       ("seat", "type", "amount", "accepted", "reason"), **_accepted_reason()),
        "wager_removed": event("wager_removed", "chips taken off a betting area by hand",
                               {"seat": ref("seat"), "type": ref("wager-type"), "removed": {"type": "boolean"},
                                "reason": nullable(ref("text"))}, ("seat", "type", "removed", "reason")),
        "lockout": event("lockout", "wagering closed (locked) or opened (round-open)",
                         {"locked": {"type": "boolean"}, "cause": ref("lockout-cause")}, ("locked", "cause"),
                         **{"if": {"properties": {"locked": {"const": True}}},
                            "then": {"properties": {"cause": locked_cause}},
                            "else": {"properties": {"cause": {"const": "round-open"}}}}),
        "no_more_bets": event("no_more_bets", "the dealer called no more bets", {"round": ref("round")}, ("round",)),
        "hit": event("hit", "an award: a meter jackpot (`meter` named) or a fixed paytable line (`meter` null); on "
                     "a linked meter also the link controller's `order` and `instant` (section 14)",
                     {"seat": ref("seat"), "category": ref("hit-category"), "meter": nullable(ref("meter")),
                      "amount": nullable(ref("cents")), "order": {"type": "integer", "minimum": 1},
                      "instant": {"type": "integer", "minimum": 1}}, ("seat", "category", "meter", "amount")),
        "payout": event("payout", "what one wager returns (stake included); or a mystery award (category "
                        "mystery, stake 0)",
                        {"seat": ref("seat"), "type": ref("wager-type"), "category": ref("payout-category"),
                         "stake": ref("cents"), "returned": ref("cents"), "paid_by": ref("paid-by")},
                        ("seat", "type", "category", "stake", "returned", "paid_by")),
        "round_end": event("round_end", "the round is settled (every payout sent) or void",
                           {"round": ref("round"), "void": {"type": "boolean"}}, ("round",)),
        "reset": event("reset", "a meter went back to its reset amount", {"meter": ref("meter"),
                                                                          "amount": ref("cents")},
                       ("meter", "amount")),
        "link": event("link", "a linked table's link to its link controller went down or came back (section 14)",
                      {"up": {"type": "boolean"}}, ("up",)),
        "wager_rides": event("wager_rides", "a Mini-Baccarat three-games wager still undecided after this game "
                             "(instead of a payout; section 6)",
                             {"seat": ref("seat"), "type": enum(("streak3-player", "streak3-banker")),
                              # no maximum: a wager riding past its three games is the device's own
                              # report of a breach of WAC 230-15-040(8)(b), judged by the suites (a FAIL)
                              "games": {"type": "integer", "minimum": 1},
                              "wins": {"type": "integer", "minimum": 0}},
                             ("seat", "type", "games", "wins")),
    }


# -- the link controller (docs/protocol.md, section 14) ------------------------------------------------

def _link() -> dict[str, dict[str, Any]]:
    """``link-controller:`` definitions (what the host asks and hears) and ``link-table:`` ones (what a
    table and the link controller say to each other)."""
    name, cents, count = ref("link-name"), ref("cents"), ref("count")
    number = {"type": "integer", "minimum": 1, "description": "the table's link message number"}
    positive = {"type": "integer", "minimum": 1}
    common_cents = ref("common-cents")
    ident = {k: ref("identity-text") for k in v.IDENTITY_FIELDS}
    hello = reply("protocol spoken and role played", {"protocol": {"const": _building},
                                                      "role": {"const": v.LINK_ROLE}}, ("protocol", "role"))
    common = obj({"initial": cents, "reset": cents, "payout_limit": nullable(cents),
                  "display_capacity": nullable(cents)}, ("initial", "reset"))
    table = obj({"table": name, "denomination": cents, "decks": {"type": "integer", "minimum": 1, "maximum": 16},
                 "rates": {"type": "object", "propertyNames": name, "additionalProperties": ref("rate")}},
                ("table", "denomination", "decks", "rates"))
    hit = obj({"order": positive, "instant": positive, "table": name, "n": number, "seat": ref("seat"),
               "meter": name, "category": ref("text"), "round": nullable({"type": "integer", "minimum": 0}),
               "amount": cents, "award": nullable(cents)},
              ("order", "instant", "table", "n", "seat", "meter", "amount", "award"))
    pending = obj({"meter": name, "amount": cents, "instant": positive, "claims": positive},
                  ("meter", "amount", "instant", "claims"))
    counted = obj({"wagers": count, "amount": cents}, ("wagers", "amount"))
    ack = {"n": number, "duplicate": {"type": "boolean"}, "meter": name, "seat": ref("seat"), "amount": cents,
           "order": positive, "instant": positive, "award": nullable(cents), "final": {"type": "boolean"},
           "paid_by": ref("paid-by"), "pending": {"type": "boolean"}}
    host_replies = {
        "hello": hello,
        "identity": reply("607a.2(b)(2) identity of the link controller", ident),
        "ping": reply("alive"),
        "config.get": reply("the common meters, the tables and the simultaneous-hit policy", {
            "meters": {"type": "object", "propertyNames": name, "additionalProperties": common},
            "tables": {"type": "array", "items": table},
            "simultaneous_hits": enum(v.LINK_SIMULTANEOUS)}, ("meters", "tables", "simultaneous_hits")),
        "meters.get": reply("common meters, residuals, what waits for a key, and the payout meters", {
            "meters": common_cents,
            "residual": {"type": "object", "propertyNames": name, "additionalProperties": ref("decimal")},
            "held": common_cents, "diverted": common_cents,
            "pending": {"type": "array", "items": pending},
            "counted": {"type": "object", "propertyNames": name, "additionalProperties": counted},
            "cumulative_paid": cents, "paid_by_table": cents, "paid_by_attendant": cents},
            ("meters", "residual", "held", "pending", "counted", "cumulative_paid", "paid_by_table",
             "paid_by_attendant")),
        "hits.get": reply("the hits after order `since`, oldest first", {
            "hits": {"type": "array", "items": hit}, "more": {"type": "boolean"}}, ("hits", "more")),
        "tables.get": reply("every table's link", {"tables": {"type": "array", "items": obj(
            {"table": name, "up": {"type": "boolean"}, "last": count, "cut": nullable(enum(v.LINK_CUTS))},
            ("table", "up", "last", "cut"))}}, ("tables",)),
        "reset_key": reply("the common meter after its reset", {"meter": name, "amount": cents}, ("meter", "amount")),
        "test.cut": reply("the cut armed", {"table": name, "when": enum(v.LINK_CUTS)}, ("table", "when")),
        "test.restore": reply("the table may join again", {"table": name}, ("table",)),
        "test.fault": reply("the fault armed", {"kind": {"const": "reboot"}, "duration_ms": count,
                                                "after_ms": count}, ("kind",)),
        "test.state": reply("the emulator's internal state (self-tests only)", {
            "boots": count, "last": {"type": "object", "propertyNames": name, "additionalProperties": count},
            "cut": {"type": "object", "propertyNames": name, "additionalProperties": enum(v.LINK_CUTS)},
            "defects": {"type": "array", "items": ref("text")}}, ("boots", "last", "cut")),
    }
    host_requests = {
        "hello": request("hello", "version negotiation", _offer(), ("version",)),
        "identity": request("identity", "the 607a.2(b) identity"),
        "ping": request("ping", "liveness"),
        "config.get": request("config.get", "the common meters and the tables"),
        "meters.get": request("meters.get", "the common meters"),
        "hits.get": request("hits.get", "the hits after order `since` (default 0)", {"since": count}),
        "tables.get": request("tables.get", "every table's link"),
        "reset_key": request("reset_key", "the reset key of a common meter", {"meter": name}, ("meter",)),
        "test.cut": request("test.cut", "test channel: cut a table's link", {"table": name,
                                                                            "when": enum(v.LINK_CUTS)}, ("table",)),
        "test.restore": request("test.restore", "test channel: let a table join again", {"table": name}, ("table",)),
        "test.fault": request("test.fault", "test channel: the link controller goes dark and comes back",
                              {"kind": {"const": "reboot"}, "duration_ms": count, "after_ms": count}, ("kind",)),
        "test.state": request("test.state", "test channel: the emulator's internal state"),
    }
    host_events = {
        "hit": event("hit", "a claim on a common meter, in the link controller's order",
                     {"table": name, "seat": ref("seat"), "meter": name, "amount": cents, "order": positive,
                      "instant": positive}, ("table", "seat", "meter", "amount", "order", "instant")),
        "reset": event("reset", "a common meter went back to its reset amount", {"meter": name, "amount": cents},
                       ("meter", "amount")),
        "link": event("link", "a table's link came up or went down", {"table": name, "up": {"type": "boolean"}},
                      ("table", "up")),
        "power": event("power", "the link controller powered up (the event SEQ starts at 1 again)",
                       {"on": {"const": True}}, ("on",)),
    }
    table_requests = {
        "hello": request("hello", "version negotiation", _offer(), ("version",)),
        "ping": request("ping", "liveness"),
        "link.join": request("link.join", "a table joins the link by its name", {"table": name}, ("table",)),
        "link.contribute": request("link.contribute", "a contribution: the round's accepted Royal 9 wagers", {
            "table": name, "n": number, "round": {"type": "integer", "minimum": 0},
            "wagers": {"type": "array", "items": obj({"seat": ref("seat"), "amount": cents}, ("seat", "amount"),
                                                     vendor=False)}}, ("table", "n", "wagers")),
        "link.hit": request("link.hit", "a hit claim: the round's cards win a common meter for a seat", {
            "table": name, "n": number, "round": {"type": "integer", "minimum": 0}, "seat": ref("seat"),
            "meter": name, "category": ref("hit-category")}, ("table", "n", "seat", "meter")),
        "link.status": request("link.status", "the link status", {"table": name}),
    }
    table_replies = {
        "hello": hello,
        "ping": reply("alive"),
        "link.join": reply("joined: the common meters as shown, the last number processed",
                           {"table": name, "meters": common_cents, "last": count}, ("table", "meters", "last")),
        "link.contribute": reply("the contribution is counted (once)", {
            "n": number, "duplicate": {"type": "boolean"}, "meters": common_cents}, ("n", "duplicate", "meters")),
        "link.hit": reply("the hit acknowledgement (a duplicate of an unknown claim carries n only)", ack,
                          ("n", "duplicate")),
        "link.status": reply("the link status", {"up": {"const": True}, "meters": common_cents,
                                                 "pending": {"type": "array", "items": name}},
                             ("up", "meters", "pending")),
    }
    table_events = {
        "link.status": event("link.status", "the common meters as they stand; after a reset key, this table's "
                             "final awards", {
                                 "meters": common_cents, "reset": name,
                                 "awards": {"type": "array", "items": obj(
                                     {"n": number, "seat": ref("seat"), "award": cents}, ("n", "seat", "award"))}},
                             ("meters",)),
    }
    out: dict[str, dict[str, Any]] = {}
    out.update({f"link-controller:request:{k}": d for k, d in host_requests.items()})
    out.update({f"link-controller:reply:{k}": d for k, d in host_replies.items()})
    out.update({f"link-controller:event:{k}": d for k, d in host_events.items()})
    out.update({f"link-table:request:{k}": d for k, d in table_requests.items()})
    out.update({f"link-table:reply:{k}": d for k, d in table_replies.items()})
    out.update({f"link-table:event:{k}": d for k, d in table_events.items()})
    return out


def build(version: int = v.PROTOCOL_VERSION) -> dict[str, Any]:
    """The schema document of contract ``version`` (deterministic: the same vocabularies give the
    same bytes)."""
    global _building
    if version not in v.PROTOCOL_VERSIONS:
        spoken = ", ".join(map(str, v.PROTOCOL_VERSIONS))
        raise ValueError(f"protocol version {version}: this tablecert speaks {spoken}")
    before, _building = _building, version
    try:
        return _build(version)
    finally:
        _building = before


def _build(version: int) -> dict[str, Any]:
    defs: dict[str, Any] = {k: s for k, s in _types().items() if k != "configuration"}
    requests, replies, events = _requests(), _replies(), _events()
    defs.update({f"request:{k}": s for k, s in requests.items()})
    defs.update({f"reply:{k}": s for k, s in replies.items()})
    defs["nak"] = obj({"code": enum(v.NAK_CODES), "reason": ref("text")}, ("code", "reason"),
                      "a negative answer: a NAK code and the device's words")
    defs.update({f"event:{k}": s for k, s in events.items()})
    defs.update(_link())
    messages = {
        "requests": {cmd: f"#/$defs/request:{cmd}" for cmd in requests},
        "replies": {cmd: f"#/$defs/reply:{cmd}" for cmd in replies},
        "nak": "#/$defs/nak",
        "events": {role: {name: f"#/$defs/event:{name}" for name in names} for role, names in v.EVENTS.items()},
        "commands": {role: list(cmds) for role, cmds in v.COMMANDS.items()},
        # section 14: a link controller's answers and events to the host, and the table <-> link
        # controller messages, under their own names (the same command names carry other payloads)
        "roles": {
            v.LINK_ROLE: {
                "requests": {cmd: f"#/$defs/link-controller:request:{cmd}" for cmd in v.LINK_COMMANDS["host"]},
                "replies": {cmd: f"#/$defs/link-controller:reply:{cmd}" for cmd in v.LINK_COMMANDS["host"]},
                "events": {name: f"#/$defs/link-controller:event:{name}" for name in v.LINK_EVENTS["host"]},
            },
            "link-table": {
                "requests": {cmd: f"#/$defs/link-table:request:{cmd}" for cmd in v.LINK_COMMANDS["table"]},
                "replies": {cmd: f"#/$defs/link-table:reply:{cmd}" for cmd in v.LINK_COMMANDS["table"]},
                "events": {name: f"#/$defs/link-table:event:{name}" for name in v.LINK_EVENTS["table"]},
            },
        },
    }
    return {
        "$schema": DRAFT,
        "$id": f"urn:tablecert:protocol:{version}",
        "title": f"tablecert reference protocol, version {version}: frame payloads",
        "description": "One schema per message kind in $defs (request:<cmd>, reply:<cmd>, event:<name>, nak); "
                       "x-messages lists them by direction and role. See docs/protocol.md.",
        "x-version": version,
        # what changed from each earlier version: every change made a conforming device non-conforming
        "x-changes": {str(n): list(CHANGES[n]) for n in sorted(CHANGES) if n <= version},
        "x-messages": messages,
        "anyOf": [ref(f"request:{k}") for k in requests] + [ref(f"event:{k}") for k in events] + [ref("nak")],
        "$defs": defs,
    }


def render(version: int = v.PROTOCOL_VERSION) -> str:
    return json.dumps(build(version), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    status = 0
    for version in v.PROTOCOL_VERSIONS:
        path, text = path_of(version), render(version)
        if args == ["--check"]:
            same = path.exists() and path.read_text(encoding="utf-8") == text
            print(f"{path}: {'up to date' if same else 'differs from the vocabularies: regenerate it'}")
            status = status or (0 if same else 1)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
