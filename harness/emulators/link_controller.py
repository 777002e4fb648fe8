"""The emulated link progressive controller: common meters fed by several tables (461a.12(c), (d)).

One controller keeps the common meters of a link.  Every linked table reaches it over its own
connection with the reference protocol's frames (docs/protocol.md, section 14) and sends, each
numbered by the table (1, 2, ... per table, kept across reconnections and power cycles):

* ``link.contribute``: the qualifying wagers of a round once wagering closed; every common meter the
  table is on grows by each wager times the rate that table files for it (exact, the fraction of a
  cent carried: :meth:`harness.progressive.meter.Meter.contribute_at`);
* ``link.hit``: a hit claim, a seat whose cards won a common meter; the controller puts claims in
  the order they reach it and answers with the hit acknowledgement (the amount, the order, the
  *instant*);
* ``link.status``: the link is alive (the answer carries the common meters as they stand).

Delivery is at least once: a table keeps every message in its non-volatile outbox until it is
answered and sends it again after a reconnection; the controller processes each number once (a
number it has seen is answered ``duplicate: true`` and changes nothing).  So a contribution is
never lost and never counted twice, whatever drops in between.

Hits are the same *instant* when a claim reaches the controller while the meter still shows the
amount of an earlier hit that waits for its payment and the reset key (461a.12(h)(1), interpretation
``meter-reset-timing``).  What each winner of an instant is paid is the named interpretation
``link-simultaneous-hits``: every winner the amount the meter showed (``each-paid-meter``), or the
amount shared among them (``shared``, final when the key is turned).  The meter resets once per
instant, at the reset key, and the contributions held meanwhile go on top of the reset amount.

Meters, the numbers seen per table, the counted wagers, the pending hits and the payout accounts
are in non-volatile storage; :meth:`EmulatedLinkController.boot` reloads them after a power cycle.  The
link defects (``harness.emulators.defects``, the link block) each bend one step here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from decimal import ROUND_DOWN, Decimal
from typing import Any

from harness import __version__
from harness.devices.vocabulary import PROTOCOL_VERSION
from harness.emulators.base import Answer, BadArgs, Refusal, arg, hello
from harness.emulators.config import IDENTITY_FIELDS, program_hash
from harness.emulators.defects import LINK_RATE_OFF
from harness.emulators.link_config import LinkConfig, LinkTableConfig
from harness.emulators.nvstore import NVStore
from harness.money import Cents
from harness.progressive.floors import ProgressiveOptions
from harness.progressive.meter import Meter
from harness.progressive.meter import residual_text as _residual_text

ROLE = "link-controller"
HISTORY = 500
#: the most a page of ``hits.get`` takes, in bytes of JSON (the frame's limit is 4096)
PAGE_BYTES = 3500

Push = Callable[[str, dict[str, Any]], None]
Emit = Callable[[dict[str, Any]], None]


class EmulatedLinkController:
    """The state machine of the link controller (see the module docstring).  Single-threaded: the
    server calls it from its one loop.  ``push(table, payload)`` sends an event to a table,
    ``emit(payload)`` one to the host."""

    def __init__(self, cfg: LinkConfig, push: Push, emit: Emit) -> None:
        self.cfg = cfg
        self._push = push
        self._emit = emit
        self.options = ProgressiveOptions.from_overrides(dict(cfg.interpretations))
        self.nv = NVStore(cfg.nv_dir / "link-controller-nv.json" if cfg.nv_dir else None)
        #: tables whose link the test channel cut: "now", or "after-contribution"
        self.cut: dict[str, str] = {}
        self.connected: set[str] = set()
        self.boots = 0
        self.boot()

    # -- non-volatile storage ------------------------------------------------------------------
    def boot(self) -> None:
        """Power-up: everything from non-volatile storage (a fresh link starts at the initial amounts)."""
        doc = self.nv.load()
        self.meters: dict[str, Meter] = {}
        for name, mc in self.cfg.meters.items():
            state = (doc or {}).get("meters", {}).get(name)
            self.meters[name] = Meter.from_state(state, self.options) if state else Meter(mc, self.options)
        doc = doc or {}
        self.last: dict[str, int] = {t.name: 0 for t in self.cfg.tables} | dict(doc.get("last", {}))
        self.counted: dict[str, dict[str, int]] = {t.name: {"wagers": 0, "amount": 0} for t in self.cfg.tables}
        self.counted.update(doc.get("counted", {}))
        self.hits: list[dict[str, Any]] = list(doc.get("hits", []))
        self.pending: dict[str, dict[str, Any]] = dict(doc.get("pending", {}))
        self.accounts: dict[str, int] = dict(doc.get("accounts", {"cumulative_paid": 0, "paid_by_table": 0,
                                                                   "paid_by_attendant": 0}))
        self.order = int(doc.get("order", 0))
        self.instant = int(doc.get("instant", 0))
        self.boots += 1
        if not doc:
            self.save()

    def save(self) -> None:
        self.nv.save({"meters": {n: m.to_state() for n, m in self.meters.items()}, "last": self.last,
                      "counted": self.counted, "hits": self.hits[-HISTORY:], "pending": self.pending,
                      "accounts": self.accounts, "order": self.order, "instant": self.instant})

    # -- what tables send ------------------------------------------------------------------------
    def from_table(self, req: Mapping[str, Any], peer: str | None) -> tuple[Answer, str | None]:
        """One request from a table's connection (``peer``: the table it joined as, if any).
        Returns the answer and the table this connection now speaks for."""
        cmd = req.get("cmd")
        try:
            if cmd == "hello":
                return self.hello(req), peer
            if cmd == "link.join":
                return self._join(req)
            if peer is None:
                return Refusal("REFUSED", "join first: link.join with the table's name"), None
            if cmd == "link.contribute":
                return self._contribute(peer, req), peer
            if cmd == "link.hit":
                return self._claim(peer, req), peer
            if cmd == "link.status":
                return self.status(peer), peer
            if cmd == "ping":
                return {}, peer
        except BadArgs as exc:
            return Refusal("BAD_ARGS", str(exc)), peer
        return Refusal("UNKNOWN_CMD", f"a link controller takes no {cmd!r} from a table"), peer

    def hello(self, req: Mapping[str, Any]) -> Answer:
        return hello(req, PROTOCOL_VERSION, ROLE)

    def _join(self, req: Mapping[str, Any]) -> tuple[Answer, str | None]:
        name = arg(req, "table", str)
        table = self.cfg.table(name)
        if table is None:
            return Refusal("REFUSED", f"no table {name!r} on this link"), None
        if name in self.cut:
            return Refusal("REFUSED", "the link to this table is cut (test channel)"), None
        return {"table": name, "meters": self._shown(table), "last": self.last.get(name, 0)}, name

    def _shown(self, table: LinkTableConfig) -> dict[str, Cents]:
        return {m: self.meters[m].amount for m in table.rates if m in self.meters}

    def _number(self, table: str, req: Mapping[str, Any]) -> tuple[int, bool]:
        """The message's number and whether it was processed before."""
        n = arg(req, "n", int)
        if n < 1:
            raise BadArgs("'n' numbers a table's link messages from 1")
        return n, n <= self.last.get(table, 0)

    def _contribute(self, name: str, req: Mapping[str, Any]) -> Answer:
        table = self.cfg.table(name)
        assert table is not None
        n, seen = self._number(name, req)
        wagers = arg(req, "wagers", list)
        amounts = []
        for w in wagers:
            if not isinstance(w, Mapping):
                raise BadArgs("each wager is {seat, amount}")
            amounts.append(arg(w, "amount", int))
        if seen and "link-contribution-recounted" not in self.cfg.defects:
            return {"n": n, "duplicate": True, "meters": self._shown(table)}
        self.last[name] = max(n, self.last.get(name, 0))
        off = LINK_RATE_OFF if "link-table-rate-off" in self.cfg.defects and name == self.cfg.tables[-1].name \
            else Decimal(0)
        for meter_name, rate in table.rates.items():
            meter = self.meters[meter_name]
            for amount in amounts:
                meter.contribute_at(amount, rate + off)
        counted = self.counted.setdefault(name, {"wagers": 0, "amount": 0})
        counted["wagers"] += len(amounts)
        counted["amount"] += sum(amounts)
        self.save()
        return {"n": n, "duplicate": False, "meters": self._shown(table)}

    def _claim(self, name: str, req: Mapping[str, Any]) -> Answer:
        table = self.cfg.table(name)
        assert table is not None
        n, seen = self._number(name, req)
        meter_name = arg(req, "meter", str)
        if meter_name not in table.rates:
            raise BadArgs(f"table {name} is on no common meter {meter_name!r}")
        seat = arg(req, "seat", int)
        if seen:
            ack = next((h for h in reversed(self.hits) if h["table"] == name and h["n"] == n), None)
            if ack is not None:
                return {**self._ack(ack), "duplicate": True}
            return {"n": n, "duplicate": True}
        self.last[name] = n
        meter = self.meters[meter_name]
        entry = self.pending.get(meter_name)
        if entry is None:  # a new instant: the meter is hit
            self.instant += 1
            hit = meter.hit(paid_by="attendant")
            entry = {"meter": meter_name, "instant": self.instant, "amount": hit.paid, "claims": []}
            if hit.pending:
                self.pending[meter_name] = entry
        elif "link-hit-reset-twice" in self.cfg.defects:  # resets again: what was held is gone
            meter.held = 0
            self._emit({"event": "reset", "meter": meter_name, "amount": meter.config.reset})
        self.order += 1
        claim = {"order": self.order, "instant": entry["instant"], "table": name, "n": n, "seat": seat,
                 "meter": meter_name, "category": str(req.get("category") or ""), "round": req.get("round"),
                 "amount": entry["amount"], "award": None}
        entry["claims"].append(claim)
        self.hits.append(claim)
        if "link-hit-paid-twice" in self.cfg.defects and len(entry["claims"]) > 1:
            twice = {**claim, "order": self.order + 1}
            self.order += 1
            entry["claims"].append(twice)
            self.hits.append(twice)
        if self.cfg.simultaneous == "each-paid-meter":
            for c in entry["claims"]:
                c["award"] = entry["amount"]
        if meter_name not in self.pending:  # reset at the hit (meter-reset-timing at-hit): paid now
            self._close(entry)
        self._emit({"event": "hit", "table": name, "seat": seat, "meter": meter_name, "amount": entry["amount"],
                    "order": claim["order"], "instant": claim["instant"]})
        self.save()
        return self._ack(claim)

    def _ack(self, claim: Mapping[str, Any]) -> dict[str, Any]:
        """The hit acknowledgement: the amount the meter showed, the controller's order and instant,
        the award when it is final, and whether the meter waits for the reset key."""
        waiting = self.pending.get(str(claim["meter"]))
        return {"n": claim["n"], "duplicate": False, "meter": claim["meter"], "seat": claim["seat"],
                "amount": claim["amount"], "order": claim["order"], "instant": claim["instant"],
                "award": claim["award"], "final": claim["award"] is not None, "paid_by": "attendant",
                "pending": waiting is not None and waiting["instant"] == claim["instant"]}

    def status(self, name: str) -> Answer:
        table = self.cfg.table(name)
        assert table is not None
        return {"up": True, "meters": self._shown(table),
                "pending": sorted(m for m in self.pending if m in table.rates)}

    # -- the reset key and the instant's awards ---------------------------------------------------
    def _close(self, entry: dict[str, Any]) -> None:
        """The instant's awards are final and paid: each winner the amount shown, or the shares."""
        claims = entry["claims"]
        if self.cfg.simultaneous == "shared":
            share = (Decimal(entry["amount"]) / len(claims)).to_integral_value(ROUND_DOWN)
            left = entry["amount"] - int(share) * len(claims)
            for i, c in enumerate(claims):
                c["award"] = int(share) + (left if i == 0 else 0)
        by_key = {(h["table"], h["n"], h["order"]): h for h in self.hits}
        for c in claims:  # the history holds its own copies after a power cycle
            if (c["table"], c["n"], c["order"]) in by_key:
                by_key[(c["table"], c["n"], c["order"])]["award"] = c["award"]
        total = sum(int(c["award"]) for c in claims)
        self.accounts["cumulative_paid"] += total
        self.accounts["paid_by_attendant"] += total
        for t in self.cfg.tables:
            if t.name in {c["table"] for c in claims}:
                self._push(t.name, {"event": "link.status", "meters": self._shown(t), "reset": entry["meter"],
                                    "awards": [{"n": c["n"], "seat": c["seat"], "award": c["award"]}
                                               for c in claims if c["table"] == t.name]})

    def reset_key(self, req: Mapping[str, Any]) -> Answer:
        name = arg(req, "meter", str)
        entry = self.pending.get(name)
        if entry is None:
            return Refusal("REFUSED", f"no hit is waiting for the reset key on {name!r}")
        self.meters[name].reset_key()
        del self.pending[name]
        self._close(entry)
        self._emit({"event": "reset", "meter": name, "amount": self.meters[name].amount})
        for t in self.cfg.tables:
            if name in t.rates and t.name not in {c["table"] for c in entry["claims"]}:
                self._push(t.name, {"event": "link.status", "meters": self._shown(t)})
        self.save()
        return {"meter": name, "amount": self.meters[name].amount}

    # -- what the host asks ------------------------------------------------------------------------
    def from_host(self, req: Mapping[str, Any]) -> Answer:
        cmd = req.get("cmd")
        handlers: dict[str, Callable[[Mapping[str, Any]], Answer]] = {
            "hello": self.hello, "identity": lambda r: self.identity(), "ping": lambda r: {},
            "config.get": lambda r: self.config_get(), "meters.get": lambda r: self.meters_get(),
            "hits.get": self.hits_get, "tables.get": lambda r: self.tables_get(),
            "reset_key": self.reset_key, "test.cut": self._test_cut, "test.restore": self._test_restore,
            "test.state": lambda r: {"boots": self.boots, "last": dict(self.last), "cut": dict(self.cut),
                                     "defects": sorted(self.cfg.defects)},
        }
        handler = handlers.get(str(cmd))
        if handler is None:
            return Refusal("UNKNOWN_CMD", f"{ROLE} has no command {cmd!r}")
        try:
            return handler(req)
        except BadArgs as exc:
            return Refusal("BAD_ARGS", str(exc))

    def identity(self) -> dict[str, str]:
        base = {"manufacturer": "tablecert reference devices", "model": "REF-LINK-1", "serial": "EMU-LNK-0001",
                "software_id": "tablecert-emulator-link-controller",
                "controller_type": "reference linked progressive controller",
                "software_name": "tablecert progressive emulator", "software_version": __version__,
                "program_hash": program_hash(), "location": f"emulated link {self.cfg.name}",
                "asset_number": "EMU-ASSET-LINK", "game_type": "midibaccarat"}
        base.update({k: v for k, v in self.cfg.identity.items() if k in IDENTITY_FIELDS})
        return base

    def config_get(self) -> dict[str, Any]:
        return {"meters": {n: {k: v for k, v in m.to_dict().items() if k not in ("name", "rate")}
                           for n, m in self.cfg.meters.items()},
                "tables": [{"table": t.name, "denomination": t.denomination, "decks": t.decks,
                            "rates": {m: str(r) for m, r in t.rates.items()}} for t in self.cfg.tables],
                "simultaneous_hits": self.cfg.simultaneous}

    def meters_get(self) -> dict[str, Any]:
        return {"meters": {n: m.amount for n, m in self.meters.items()},
                "residual": {n: _residual_text(m.residual_num, m.den) for n, m in self.meters.items()},
                "held": {n: m.held for n, m in self.meters.items()},
                "diverted": {n: m.diverted for n, m in self.meters.items()},
                "pending": [{"meter": n, "amount": e["amount"], "instant": e["instant"],
                             "claims": len(e["claims"])} for n, e in sorted(self.pending.items())],
                "counted": self.counted, **self.accounts}

    def hits_get(self, req: Mapping[str, Any]) -> Answer:
        """The hits after order ``since`` (default 0), oldest first, as many as fit in one frame;
        ``more`` says another page follows (a frame's payload is at most 4096 bytes)."""
        since = arg(req, "since", int, 0)
        page: list[dict[str, Any]] = []
        size = 40
        for h in self.hits[-HISTORY:]:
            if h["order"] <= since:
                continue
            size += len(json.dumps(h, separators=(",", ":"))) + 1
            if size > PAGE_BYTES:
                return {"hits": page, "more": True}
            page.append(h)
        return {"hits": page, "more": False}

    def tables_get(self) -> dict[str, Any]:
        return {"tables": [{"table": t.name, "up": t.name in self.connected, "last": self.last.get(t.name, 0),
                            "cut": self.cut.get(t.name)} for t in self.cfg.tables]}

    def _test_cut(self, req: Mapping[str, Any]) -> Answer:
        name = arg(req, "table", str)
        when = arg(req, "when", str, "now")
        if self.cfg.table(name) is None:
            raise BadArgs(f"no table {name!r} on this link")
        if when not in ("now", "after-contribution"):
            raise BadArgs("'when' is 'now' or 'after-contribution'")
        self.cut[name] = when
        return {"table": name, "when": when}

    def _test_restore(self, req: Mapping[str, Any]) -> Answer:
        name = arg(req, "table", str)
        self.cut.pop(name, None)
        return {"table": name}

    def link_changed(self, table: str, up: bool) -> None:
        """A table's connection came up or went down (the server tells)."""
        if up == (table in self.connected):
            return
        (self.connected.add if up else self.connected.discard)(table)
        self._emit({"event": "link", "table": table, "up": up})
