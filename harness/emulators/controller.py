"""The emulated progressive table game controller (58 Pa. Code 629a Royal 9 (a); 461a.12).

States of a round (``phase``): ``idle`` (after power-up; wagering closed) -> ``round.open`` ->
``open`` (wagering open) -> first card out of the shoe -> ``dealing`` -> the round's last card
(the baccarat tableau, or the dealer's completed Hit and Run hand) -> settled (``settled``) ->
``round.open`` ...  ``round.settle`` settles early (REFUSED while the tableau still needs a card;
with no card dealt it voids the round).

Wagering closes (``locked``) on the first card out of the round, after the configured lock-out
latency (``lockout_latency_us``, timed by :class:`~harness.emulators.clock.Scheduler`); at once on
the lock-out button, on ``round.no_more_bets`` and on loss of the sensors link.  The latency runs
from the round's first card, never a later one (the counter's ``MEAS:TINT?`` and ``test.state``
report that interval).  A round dealt faster than the latency is settled when its lock-out falls
due, not before: wagering closes at card + latency as configured, and the settlement follows.
Wagers contribute to the meters when wagering closes, the moment they become final (a wager
removed before never contributed).  The table is *live* while a round is open or dealing or any
wager is on the layout; ``config.set`` is REFUSED then, and below the floors / outside the limits
always.

Meters, accounts, configuration changes, the hidden mystery trigger and the Mini-Baccarat streak
wagers still riding (Wash. Admin. Code 230-15-040(8)(b): placed for three consecutive games, kept
on the layout between them) are in non-volatile storage (:class:`~harness.emulators.nvstore.NVStore`)
and are reloaded on power-up.

Emulator-only test channel: ``test.link {"up": bool}`` (the controller↔sensors link),
``test.state`` (hidden state for white-box emulator tests: phase, lock timing, mystery trigger,
NV path; never used by suites, which must see only what a real controller shows).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from harness.cards import Card, Combo
from harness.emulators import defect_branches, defects, personas, settle
from harness.emulators.base import Answer, BadArgs, Emit, EmulatedDevice, Refusal, arg
from harness.emulators.clock import Scheduler
from harness.emulators.config import EmulatorConfig, apply_wire_changes, check_table, table_to_wire
from harness.emulators.defects import RankOnlyCombos, baccarat_round, unchecked_display, unchecked_resets
from harness.emulators.link_table import TableLink
from harness.emulators.nvstore import NVStore
from harness.emulators.sensors import STREAK_TYPES, Sensors
from harness.errors import InputError
from harness.games.baccarat import BaccaratRound
from harness.games.interpretations import Interpretations
from harness.games.royal9 import Royal9Table
from harness.money import Cents
from harness.progressive.floors import ProgressiveOptions
from harness.progressive.meter import MeterBank
from harness.progressive.mystery import MysteryMeter

BACCARAT_TYPES = {"player", "banker", "tie"}
EZ_TYPES = {"dragon7", "panda8"}


class Controller(EmulatedDevice):
    role = "controller"

    def __init__(self, cfg: EmulatorConfig, emit: Emit, lock: threading.RLock, clock: Scheduler,
                 sensors: Sensors, nv: NVStore) -> None:
        if "seat-without-combo" in cfg.defects and sum(1 for c in cfg.seats.values() if c) > 1:
            last = max(s for s, c in cfg.seats.items() if c)  # that area has no personal combination
            cfg = cfg.with_changes(seats={**cfg.seats, last: None})
        if "link-table-decks-off" in cfg.defects and cfg.link:  # this table of the link deals another shoe
            cfg = cfg.with_changes(decks=cfg.decks - 2 if cfg.decks > 2 else cfg.decks + 2)
        super().__init__(cfg, emit, lock)
        self.clock = clock
        self.sensors = sensors
        self.nv = nv
        # every interpretation the Rules Submission chooses: the game ones and the catalogue's others
        # (EZ Baccarat, commission, lock-out, meters) on one object, the progressive ones as options
        self.interp = Interpretations.from_overrides(dict(cfg.interpretations))
        self.options = ProgressiveOptions.from_overrides(dict(cfg.interpretations))
        self.rng: random.Random = random.Random(cfg.seed) if cfg.seed is not None else random.SystemRandom()
        #: the lock-out line's receiver (the emulated counter's channel 2): (high, perf_counter_ns)
        self.on_line: Callable[[bool, int], None] | None = None
        self.bank: MeterBank | None = None
        self.r9: Royal9Table | None = None
        self.accounts = settle.Accounts()
        self.link_up = True
        #: the link to a link controller, on a linked table (harness.emulators.link_table)
        self.link = TableLink(self, cfg.link) if cfg.link else None
        self.round_no = 0
        #: the meters' rates at the last power-up (``rate-write-deferred``)
        self.boot_rates: dict[str, Decimal] = {}
        #: ``mystery-rewrite-disarms``: a rewrite after play disarmed the trigger until the next award
        self.mystery_disarmed = False
        self._volatile()
        self.boots = 0
        self.commands.update({
            "config.get": lambda req: table_to_wire(self.cfg),
            "config.set": self._config_set,
            "meters.get": lambda req: settle.meters_get(self, req),
            "lockout.get": self._lockout_get,
            "lockout.press": self._lockout_press,
            "round.open": self._round_open,
            "round.no_more_bets": self._no_more_bets,
            "round.settle": self._round_settle,
            "reset_key": lambda req: settle.reset_key(self, req),
            "test.link": self._test_link,
            "test.state": self._test_state,
        })
        self.boot()
        if self.link is not None:
            self.link.start()

    # -- power and non-volatile storage ----------------------------------------------------
    def _volatile(self) -> None:
        self.phase = "idle"
        self.locked = True
        self.lock_cause: str | None = "power"
        self.cards: list[Card] = []
        self.contributed = False
        self.lock_timer: int | None = None
        #: the controller has not yet noticed the sensors link is down (comm_loss_latency_us)
        self.comm_timer: int | None = None
        self.lock_due_ns: int | None = None
        #: the round's first card out of the shoe (the lock-out latency runs from it)
        self.card_ns: int | None = None
        #: the round is complete but its card-caused lock-out is not due yet (a fast deal)
        self.settle_pending = False
        #: the last card-caused lock-out: (card out ns, lock ns, due ns)
        self.last_card_lock: tuple[int, int, int] | None = None
        self.lateness_ns: list[int] = []

    def boot(self) -> None:
        """Power-up: reload configuration, meters, accounts and the mystery trigger from NV."""
        doc = self.nv.load()
        first = doc is None
        if doc is not None:
            self.cfg = apply_wire_changes(self.cfg, doc["config"])
        self._build_tables()
        if doc is not None and not ("power-loses-meters" in self.cfg.defects and self.boots):
            self.bank = MeterBank.from_state(doc["bank"], self.options, self.rng) if doc["bank"] else None
            self.accounts = settle.Accounts.from_state(doc["accounts"])
            self.round_no = int(doc.get("round", 0))
            if self.link is not None:
                self.link.restore(doc.get("link"))
            if not ("streak3-lost-at-power-off" in self.cfg.defects and self.boots):
                self.sensors.restore([(int(s), str(t), int(a), [str(w) for w in g])
                                      for s, t, a, g in doc.get("riding", [])])
        else:
            self.bank = settle.fresh_bank(self)
            self.accounts = settle.Accounts()
        mystery = self.cfg.mystery
        for meter in self.bank.meters.values() if self.bank is not None else ():
            if isinstance(meter, MysteryMeter):  # the device's own trigger law, restored with it
                meter.law = defects.trigger_law(meter.law, self.cfg.defects)
        if "mystery-redrawn" in self.cfg.defects and self.boots and self.bank is not None and mystery:
            self.bank = MeterBank([settle.new_mystery(self, mystery) if isinstance(m, MysteryMeter) else m
                                   for m in self.bank.meters.values()])
        self.boot_rates = {n: m.rate for n, m in self.cfg.meters.items()}
        if self.cfg.defects:
            defect_branches.adopt_written_rates(self, settle.new_meter)
        self.boots += 1
        if first or {"power-loses-meters", "mystery-redrawn"} & self.cfg.defects:
            self.save()

    def _build_tables(self) -> None:
        self.r9 = None
        if self.cfg.royal9:
            combos = {s: Combo.of_codes(c) for s, c in self.cfg.seats.items() if c}
            table = RankOnlyCombos if "r9-combo-ignores-suits" in self.cfg.defects else Royal9Table
            self.r9 = table(combos, self.cfg.denomination // 100, interpretations=self.interp)
        self.hr_meter = next(iter(self.cfg.meters), None) if self.cfg.hit_and_run else None

    def save(self) -> None:
        self.nv.save({
            "config": {k: v for k, v in table_to_wire(self.cfg).items() if k != "game"},
            "bank": self.bank.to_state() if self.bank is not None else None,
            "accounts": self.accounts.to_state(),
            "round": self.round_no,
            **({"link": self.link.to_state()} if self.link is not None else {}),
            "riding": [[seat, kind, self.sensors.wagers.get((seat, kind), 0), games]
                       for (seat, kind), games in sorted(self.sensors.riding.items())],
        })

    def line(self, high: bool, t_ns: int) -> None:
        """The lock-out line (high while wagering is locked out), wired to the counter's channel 2."""
        if self.on_line is not None:
            self.on_line(high, t_ns)

    def power_off(self) -> None:
        self.line(False, time.perf_counter_ns())
        super().power_off()
        if self.lock_timer is not None:
            self.clock.cancel(self.lock_timer)
        if self.comm_timer is not None:
            self.clock.cancel(self.comm_timer)
        self._volatile()
        self.phase = "off"

    def power_on(self) -> None:
        super().power_on()
        self._volatile()
        self.boot()
        self.line(True, time.perf_counter_ns())
        self.emit("lockout", locked=True, cause="power")

    # -- the lock-out ----------------------------------------------------------------------
    def card_out(self, card: Card, t_ns: int) -> None:
        """The shoe's wired card-out line (called with the table lock held)."""
        if not self.powered:
            return
        if self.phase == "open":
            self.phase = "dealing"
            self.card_ns = t_ns
            # lockout-automatic false: the dealer's lock-out button is the mechanism, the first card is not
            if not self.locked and "lockout-missing" not in self.cfg.defects and self.automatic_lockout:
                latency_ns = self.cfg.lockout_latency_us * 1000
                if "lockout-late" in self.cfg.defects or defect_branches.late_round(self):
                    latency_ns += 5_000_000
                self.lock_due_ns = t_ns + latency_ns
                if latency_ns == 0:
                    self._lock("card", t_ns)
                else:
                    self.lock_timer = self.clock.at(self.lock_due_ns, self._lock_timer_fired)
        if self.phase != "dealing":
            return  # a burn card or a card with no round open
        self.cards.append(card)
        if settle.round_complete(self, self.cards):
            if "four-card-round-unsettled" in self.cfg.defects and len(self.cards) == 4:
                return  # defect: a round complete at four cards waits for a fifth card
            if self.lock_timer is not None and not self.locked:
                self.settle_pending = True  # settled by _lock when the lock-out falls due
            else:
                self._settle()

    def _lock_timer_fired(self, due_ns: int, fired_ns: int) -> None:
        with self.lock:
            if self.powered and self.lock_due_ns == due_ns and not self.locked:
                self.lateness_ns.append(fired_ns - due_ns)
                del self.lateness_ns[:-1000]
                self._lock("card", fired_ns)

    def _apply_due_lock(self, now: int) -> None:
        """A lock whose time has come is in force even if its timer thread has not run yet."""
        if not self.locked and self.lock_due_ns is not None and now >= self.lock_due_ns:
            self._lock("card", self.lock_due_ns)

    def _lock(self, cause: str, t_ns: int) -> None:
        if self.locked:
            return
        self.locked = True
        self.lock_cause = cause
        if self.lock_timer is not None:
            self.clock.cancel(self.lock_timer)
            self.lock_timer = None
        edge_ns = t_ns
        if cause == "card" and self.card_ns is not None and self.lock_due_ns is not None:
            self.last_card_lock = (self.card_ns, t_ns, self.lock_due_ns)
            edge_ns = min(t_ns, self.lock_due_ns)  # the line changes when the lock takes effect
        self.line(True, edge_ns)
        self.emit("lockout", locked=True, cause=cause)
        self._contribute()
        if self.settle_pending:
            self.settle_pending = False
            self._settle()

    def _contribute(self) -> None:
        """Wagering closed: every final qualifying wager contributes to the meters."""
        if self.contributed or self.phase not in ("open", "dealing"):
            return
        self.contributed = True
        if self.bank is None:
            return
        kind = "hit-and-run" if self.cfg.hit_and_run else "royal9"
        mystery = self.bank.meters.get("mystery")
        for (seat, wtype), amount in sorted(self.sensors.wagers.items()):
            if wtype != kind:
                continue
            if isinstance(mystery, MysteryMeter) and ("mystery-past-must-hit-by" in self.cfg.defects
                                                      or defect_branches.mystery_late(self)):
                drawn, mystery.trigger = mystery.trigger, mystery.mystery.must_hit_by + defects.MYSTERY_PAST_CENTS
                hits = self.bank.contribute(amount)
                if mystery.trigger > mystery.mystery.must_hit_by:  # no award: the stored trigger stays drawn
                    mystery.trigger = drawn
                else:
                    self.mystery_disarmed = False
            else:
                hits = self.bank.contribute(amount)
            if "residual-dropped" in self.cfg.defects:
                for meter in self.bank.meters.values():
                    meter.residual_num = 0
            if hits:
                settle.mystery_hits(self, seat, hits)
        if self.link is not None:  # the common meters' share goes to the link controller
            self.link.contribute(self.round_no, [(s, a) for (s, k), a in sorted(self.sensors.wagers.items())
                                                 if k == kind])
        self.save()

    def wager_refusal(self, seat: int, kind: str, amount: Cents) -> str | None:
        """The controller's answer to a sensor: ``None`` accepts, else the reason."""
        if not self.link_up and "wager-after-comm-loss" not in self.cfg.defects:
            return "comm-lost"
        if seat not in self.cfg.seats:
            return "bad-seat"
        if not self._offered(kind):
            return "disabled"
        if kind == "royal9" and self.link is not None and not self.link.up \
                and "link-table-playable-offline" not in self.cfg.defects:
            return "link-down"  # the table cannot show what the common meter would pay
        if amount <= 0 or (kind == "royal9" and amount != self.cfg.denomination):
            return "bad-amount"
        self._apply_due_lock(time.perf_counter_ns())
        if self.locked or self.phase not in ("open", "dealing"):
            if self.lock_cause == "no-more-bets" and "wager-after-no-more-bets" in self.cfg.defects:
                return None
            if self.cfg.defects and defect_branches.left_open(self, seat, kind):
                return None
            if self.cfg.defects:
                defect_branches.count_refused(self, seat, kind, amount, settle.mystery_hits)
            return "no-more-bets" if self.lock_cause == "no-more-bets" else "locked-out"
        if "lockout-early" in self.cfg.defects:
            return "locked-out"
        return None

    def removal_refusal(self) -> str | None:
        self._apply_due_lock(time.perf_counter_ns())
        return None if self.phase in ("open", "dealing") and not self.locked else "wagering is closed"

    def _offered(self, kind: str) -> bool:
        if self.cfg.hit_and_run:
            return kind in ("hit-and-run", "blackjack")
        if kind == "royal9":
            return self.cfg.royal9
        if kind in EZ_TYPES and "extra-wager-type" in self.cfg.defects:
            return True
        if kind in STREAK_TYPES:  # Wash. Admin. Code 230-15-040(8)(b): Mini-Baccarat, when submitted
            return self.cfg.streak3
        return kind in BACCARAT_TYPES or (kind in EZ_TYPES and self.cfg.game == "ez-baccarat")

    @property
    def automatic_lockout(self) -> bool:
        """Interpretation ``lockout-automatic``: the first card out locks the sensors by itself."""
        return self.interp.as_dict().get("lockout-automatic", True) is not False

    # -- rounds ----------------------------------------------------------------------------
    def deal_round(self, cards: Sequence[Card]) -> BaccaratRound:
        """The baccarat tableau this controller applies (the oracle's; a defect may bend it)."""
        return baccarat_round(cards, self.cfg.defects)

    def r9_cards(self, rnd: BaccaratRound) -> Sequence[Card]:
        """The four cards Royal 9 reads (P, B, P, B)."""
        if "r9-ten-is-face" in self.cfg.defects:  # a ten read as a face card (a jack of its suit)
            return tuple(Card(11, c.suit) if c.rank == 10 else c for c in rnd.first_four())
        return rnd.first_four()

    def _settle(self) -> None:
        """Settle the complete round in ``self.cards``.  Its lock-out is in force by now (card_out
        defers a round completed within the latency); only a controller that never scheduled one
        (the ``lockout-missing`` defect) closes wagering here, at settlement."""
        self._apply_due_lock(time.perf_counter_ns())
        self._lock("card", time.perf_counter_ns())
        settle.settle_round(self)
        self.sensors.clear()
        self.phase = "settled"
        self.save()
        self.emit("round_end", round=self.round_no)

    def _round_open(self, req: Mapping[str, Any]) -> Answer:
        if self.phase in ("open", "dealing"):
            return Refusal("REFUSED", f"round {self.round_no} is not settled")
        if self.accounts.pending:
            return Refusal("REFUSED", f"awaiting the reset key for {', '.join(sorted(self.accounts.pending))}")
        if not self.link_up:
            return Refusal("REFUSED", "comm-lost: the sensors link is down")
        self.round_no += 1
        self.phase = "open"
        self.locked = False
        self.lock_cause = None
        self.cards = []
        self.contributed = False
        self.lock_due_ns = None
        if "streak3-cleared-at-round-open" in self.cfg.defects:
            self.sensors.riding.clear()
        self.sensors.clear()  # the wagers of the round before leave the layout; riding streak wagers stay
        self.save()  # the round number is non-volatile (docs/protocol.md section 8, Power): N given is N kept
        self.line(False, time.perf_counter_ns())
        self.emit("lockout", locked=False, cause="round-open")
        return {"round": self.round_no}

    def _no_more_bets(self, req: Mapping[str, Any]) -> Answer:
        if self.interp.as_dict().get("nmb-announcement") == "first-card":
            return Refusal("REFUSED", "this table has no no-more-bets input: the first card out is the announcement")
        if self.phase not in ("open", "dealing"):
            return Refusal("REFUSED", "no round is open")
        self.emit("no_more_bets", round=self.round_no)
        self._lock("no-more-bets", time.perf_counter_ns())
        return {"round": self.round_no}

    def _round_settle(self, req: Mapping[str, Any]) -> Answer:
        if self.phase not in ("open", "dealing"):
            return Refusal("REFUSED", "no round is open")
        if not self.cards:
            self._lock("no-more-bets", time.perf_counter_ns())
            self.sensors.clear()
            self.phase = "settled"
            self.save()  # the voided round's number is spent: the next round after a power cycle is the one after it
            self.emit("round_end", round=self.round_no, void=True)
            return {"round": self.round_no, "void": True}
        if not settle.round_complete(self, self.cards):
            if self.cfg.hit_and_run and not self.interp.hr_dealer_completes:
                # hr-dealer-completes false: with no player hand standing the dealer stops, and the
                # Hit and Run wagers are settled on the dealer's cards as they are
                self._settle()
                return {"round": self.round_no, "dealer_stopped": True}
            return Refusal("REFUSED", f"round incomplete after {len(self.cards)} card(s)")
        return {"round": self.round_no}

    # -- lock-out queries (meters and the reset key: settle.meters_get, settle.reset_key) ----
    def _lockout_get(self, req: Mapping[str, Any]) -> Answer:
        self._apply_due_lock(time.perf_counter_ns())
        return {"locked": self.locked, "cause": self.lock_cause}

    def _lockout_press(self, req: Mapping[str, Any]) -> Answer:
        self._lock("button", time.perf_counter_ns())
        return {"locked": True}

    # -- configuration -----------------------------------------------------------------------
    def live(self) -> bool:
        return self.phase in ("open", "dealing") or bool(self.sensors.wagers)

    def _config_set(self, req: Mapping[str, Any]) -> Answer:
        if self.live() and "config-while-live" not in self.cfg.defects:
            return Refusal("REFUSED", "live: a round is open or wagers are on the layout")
        decks = req.get("decks")
        if "other-refusal-reasons" in self.cfg.personas and isinstance(decks, int) and not isinstance(decks, bool) \
                and not 1 <= decks <= 16:  # a value outside the range: REFUSED is a refusal as BAD_ARGS is
            return Refusal("REFUSED", f"decks {decks}: this table takes 1 to 16 decks")
        try:
            new = apply_wire_changes(self.cfg, req)
        except (InputError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadArgs(f"config.set: {exc}") from None
        kept = personas.kept_fields(self, new)
        if kept:
            return Refusal("REFUSED", kept)
        changed = {n for n, m in new.meters.items() if self.cfg.meters.get(n) != m}
        current = {n: a for n, a in (self.bank.amounts() if self.bank else {}).items() if n in changed}
        lowered = settle.mystery_lowered(self, new)
        if lowered:
            return Refusal("REFUSED", lowered)
        checked = unchecked_resets(new) if "reset-below-floor" in self.cfg.defects else new
        checked = unchecked_display(checked) if "meter-wraps" in self.cfg.defects else checked
        checked = defect_branches.lenient(checked) if self.cfg.defects else checked
        try:
            check_table(checked, current, limit_above_current="payout-limit-below-current" not in self.cfg.defects)
            bank = settle.rebuilt_bank(self, new, changed)
        except InputError as exc:
            return Refusal("REFUSED", exc.message)
        if self.cfg.defects:
            defect_branches.note_rewrite(self, req, new)
        self.cfg = new
        self.bank = bank
        self._build_tables()
        self.save()
        return table_to_wire(self.cfg)

    # -- emulator-only test channel -----------------------------------------------------------
    def _test_link(self, req: Mapping[str, Any]) -> Answer:
        return self.cable(arg(req, "up", bool))

    def cable(self, up: bool) -> Answer:
        """The controller-sensors link (``test.link``, or the cable at the physical side).  A wager
        cannot cross a cut link, so the sensors refuse it (``comm-lost``) from the cut on; the
        controller notices the loss ``comm_loss_latency_us`` later (at once by default; the profile's
        ``timing.comm_timeout_ms`` is the limit), and only then closes wagering and reports it."""
        self.link_up = up
        if self.comm_timer is not None:  # the link came back before the controller noticed it was gone
            self.clock.cancel(self.comm_timer)
            self.comm_timer = None
        if not up and "wager-after-comm-loss" not in self.cfg.defects:
            if self.cfg.comm_loss_latency_us:
                self.comm_timer = self.clock.at(time.perf_counter_ns() + self.cfg.comm_loss_latency_us * 1000,
                                                self._comm_loss_noticed)
            else:
                self._comm_lost(time.perf_counter_ns())
        return {"up": up}

    def _comm_loss_noticed(self, due_ns: int, fired_ns: int) -> None:
        with self.lock:
            self.comm_timer = None
            if self.powered and not self.link_up:
                self._comm_lost(fired_ns)

    def _comm_lost(self, t_ns: int) -> None:
        was = self.locked
        self._lock("comm-lost", t_ns)
        if was:
            self.emit("lockout", locked=True, cause="comm-lost")

    def _test_state(self, req: Mapping[str, Any]) -> Answer:
        mystery = None
        if self.bank is not None and "mystery" in self.bank.meters:
            m = self.bank["mystery"]
            mystery = {"trigger": getattr(m, "trigger", None), "amount": m.amount}
        lock = self.last_card_lock
        return {
            "phase": self.phase, "locked": self.locked, "cause": self.lock_cause, "round": self.round_no,
            "cards": [c.code for c in self.cards], "link_up": self.link_up, "mystery": mystery,
            "nv_path": str(self.nv.path) if self.nv.path else None, "nv_writes": self.nv.writes,
            "last_card_lock": None if lock is None else
            {"card_ns": lock[0], "lock_ns": lock[1], "due_ns": lock[2]},
            "lateness_ns": self.lateness_ns[-100:], "boots": self.boots,
            "defects": sorted(self.cfg.defects),
            **({"link": self.link.latency()} if self.link is not None else {}),
        }

    def interval_ns(self) -> int | None:
        """Card out -> lock-out of the last card-caused lock (what the counter measures).

        The lock-out takes effect at its due time: a wager that arrives after it is refused even if
        the clock thread that announces the lock runs late (``_apply_due_lock``).  The emulated
        lock-out line therefore changes state at the due time, and that is what the counter sees;
        the clock thread's own lateness is the emulator's, not the emulated device's."""
        lock = self.last_card_lock
        return None if lock is None else min(lock[1], lock[2]) - lock[0]
