"""The table: dealing shoe, bet sensors and Royal 9 progressive controller, one state machine.

Every command handler runs under one lock and returns ("rsp", payload) / ("nak", code, reason).
Events go out through `emit(role, payload)` at the moment they happen (docs/protocol.md section 5).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from . import game

WAGER_TYPES = ("royal9", "player", "banker", "tie", "dragon7", "panda8", "hit-and-run", "blackjack",
               "streak3-player", "streak3-banker")
OFFERED = ("player", "banker", "tie", "royal9")
METERS = ("mega", "major", "minor")

# Permitted choices this vendor made (docs/protocol.md section 6.4 lets a device refuse writes).
REFUSE_SEATS = "personal combinations are printed on the layout (629a Royal 9 (e)(5)); order a new layout"
REFUSE_DECKS = "the shoe's deck count is fixed while a meter shows an amount (461a.12(i))"

Reply = tuple[Any, ...]


class Refused(Exception):
    pass


class BadArgs(Exception):
    pass


def dec_str(d: Decimal) -> str:
    if d == 0:
        return "0"
    text = format(d.normalize(), "f")
    return text


def parse_rate(text: object) -> Decimal:
    if not isinstance(text, str):
        raise BadArgs("rate must be a decimal string")
    try:
        rate = Decimal(text)
    except InvalidOperation as exc:
        raise BadArgs(f"rate {text!r} is not a decimal") from exc
    if not rate.is_finite() or rate < 0:
        raise BadArgs(f"rate {text!r} out of range")
    return rate


PRESETS: dict[str, dict[str, Any]] = {
    "midi-5": {
        "game": "midibaccarat", "denomination": 500, "decks": 8, "commission": "5",
        "seats": [{"seat": 1, "combo": ["KS", "9S"]}, {"seat": 2, "combo": ["KH", "9H"]},
                  {"seat": 3, "combo": ["KD", "9D"]}, {"seat": 4, "combo": ["KC", "9C"]},
                  {"seat": 5, "combo": ["KS", "9H"]}, {"seat": 6, "combo": ["KH", "9D"]},
                  {"seat": 7, "combo": ["KD", "9C"]}],
        "meters": {
            "mega": {"rate": "1.25", "initial": 5000000, "reset": 5000000, "payout_limit": 25000000,
                     "display_capacity": 99999999},
            "major": {"rate": "0.5", "initial": 45000, "reset": 45000, "payout_limit": 1000000,
                      "display_capacity": 9999999},
            "minor": {"rate": "0.35", "initial": 45000, "reset": 45000, "payout_limit": 1000000,
                      "display_capacity": 9999999},
        },
        "mystery": None,
    },
}
PRESETS["midi-1"] = json.loads(json.dumps(PRESETS["midi-5"]))
PRESETS["midi-1"].update({"denomination": 100, "meters": {
    "mega": {"rate": "1.25", "initial": 1000000, "reset": 1000000, "payout_limit": 10000000,
             "display_capacity": 99999999},
    "major": {"rate": "0.5", "initial": 9000, "reset": 9000, "payout_limit": 200000, "display_capacity": 9999999},
    "minor": {"rate": "0.35", "initial": 9000, "reset": 9000, "payout_limit": 200000, "display_capacity": 9999999},
}})


class Table:
    def __init__(self, state_dir: Path, preset: str, faults: set[str],
                 identity: dict[str, str] | None = None) -> None:
        self.lock = threading.RLock()
        self.faults = faults
        self.state_dir = state_dir
        self.nv_path = state_dir / "nv.json"
        self.emit: Callable[[str, dict[str, Any]], None] = lambda role, payload: None
        self.on_lock_line: Callable[[bool], None] = lambda level: None
        self.on_card_line: Callable[[], None] = lambda: None
        #: called as the power goes off: each device line forgets its event numbering (protocol section 4:
        #: "The device numbers its events from 1 after power-up"; section 8: "its event SEQ restarted at 1")
        self.on_power_off: Callable[[], None] = lambda: None
        self.preset = preset
        self.identity_base = identity or {}
        self.powered = True
        self.boots = 0
        self.power_epoch = 0
        self.link_up = True
        self.shoe_cards: list[str] = []
        self.cards_dealt = 0
        self.dealing = False
        self.deal_stop = threading.Event()
        self.misread_next = 0
        self.shared_event_seq = 0  # fault event-seq-shared-across-lines
        self.lock_at_power_off: tuple[bool, str | None] | None = None  # fault lock-state-restored-at-power-up
        self.held_card_event: dict[str, Any] | None = None  # fault card-events-sent-in-pairs
        self.last_out_misread = False  # fault misread-first-card-locks-late
        self.misreads_uncounted = 0  # fault shoe-status-dealt-excludes-misread
        self.misreads_left = 0  # fault cards-remaining-keeps-misread
        self.deal_plan: tuple[int, int] | None = None  # fault shoe-status-counts-ahead-in-paced-deal
        self.empty_latched = False  # fault empty-flag-kept-after-reload
        self.last_card_event: dict[str, Any] | None = None  # fault last-card-event-repeated
        self.warm_started = False  # fault software-id-empty-after-reboot
        self.n_base = 0  # fault card-n-restarts-each-round: the reader's count at the last round.open
        self.dealing_stale = False  # fault shoe-dealing-after-power-cut-mid-deal
        self.sensors_block_resent = False  # fault sensors-software-id-empty-after-link-restore
        self.power_event_held = False  # fault power-lockout-held-until-first-request
        self.paytable_cold = False  # fault one-dollar-paytable-lost-at-power-up
        self.burst_pos: int | None = None  # fault card-event-lost-in-burst: the card's place in a deal at once
        self.after_link_restore = False  # fault lockout-late-after-link-restore
        self.power_cycles = 0  # fault sensors-location-lost-at-power-up: power-ups after the first
        self.sensors_link_stale = False  # fault comm-lost-refusal-kept-after-restore
        self.round_at_power_up: int | None = None  # fault round-end-number-read-at-power-up
        self.shoe_error_latched = False  # fault shoe-error-reports-empty
        self.lost_round: int | None = None  # fault settle-voids-round-lost-to-power: the round open at the power cut
        self.link_lost_in_round = False  # fault open-taken-when-link-lost-between-rounds
        self.sensors_serial_lost = False  # fault sensors-serial-empty-after-reboot
        self.last_read: str | None = None  # fault same-rank-card-reported-with-last-suit: the reader's last pattern
        self.status_count_stale: int | None = None  # fault shoe-status-count-refreshed-by-card: the status register
        self.rates_cold = False  # fault first-round-after-power-contributes-nothing: the rate registers are cleared
        self.swallow_card = False  # fault card-event-swallowed-after-shoe-error: the reader's recovery flag
        self.open_block_nv = False  # fault open-blocked-after-key-following-power-cycle: the block bit from storage
        self.live_nv = False  # fault live-flag-kept-across-power-cut: the live flag in the round record
        self.nv_write_protected = False  # fault storage-write-protected-after-reboot: the flash write-enable latch
        self.status_zero_base = 0  # fault shoe-status-count-zeroed-at-power-up: the status counter's offset
        self.shoe_ident_lost = False  # fault shoe-software-id-empty-after-reconnect
        self.last_stakes: dict[tuple[int, str], int] = {}  # fault push-returns-last-rounds-stake: the seat slips
        self.card_line_off = False  # fault card-out-line-off-after-shoe-reboot: the shoe's card-out output disabled
        self.sensors_role_lost = False  # fault sensors-hello-role-shoe-after-reboot: the sensors' role register
        self.sensors_six_seats = False  # fault sensors-seat-7-refused-after-reboot: the sensors' default layout
        self.sensors_gate_shut = False  # fault sensors-gate-closed-after-reconnect: the sensors' gate, set closed
        self.last_refusal: str | None = None  # fault accepted-answer-carries-last-refusal-reason: the reason register
        # fault lost-round-contributions-booked-again: the open round's contribution journal (kept in storage)
        self.contrib_journal: dict[tuple[int, str], int] = {}
        # fault second-jackpot-of-meter-not-pending: the hit routine's per-meter "slip open" flags, cleared at power-up
        self.slip_open: set[str] = set()
        # fault sensors-link-flag-down-until-first-open: the sensors' copy of the link state, "down" from power-up until
        # the controller's first round-open message
        self.sensors_link_unknown = "sensors-link-flag-down-until-first-open" in faults
        self.deal_queue = 0  # fault busy-deal-still-queued: cards the deal task still owes to refused deal commands
        # fault settings-ring-wrap-loads-older-write: the settings records written, one slot each in a ring of eight
        self.settings_ring: list[dict[str, Any]] = []
        # fault game-type-from-paytable-after-denomination-write: the paytable record's name (a denomination write)
        self.game_type_text: str | None = None
        self._load_nv()
        self.round_cold = self.round  # fault reboot-round-number-from-cold-start: the boot record's round counter
        self._power_up_volatile()
        # fault reset-key-refused-after-reboot: the key task's list of payments, filled at a cold start
        self.key_known: set[str] = {p["meter"] for p in self.pending}

    # ------------------------------------------------------------------ non-volatile storage
    def _load_nv(self) -> None:
        older = self.nv_path.with_suffix(".prev")
        if "power-up-reads-older-record" in self.faults and self.boots > 0 and older.exists():
            # fault power-up-reads-older-record: of the two storage records the loader takes the one with the
            # lower write count (the comparison is the wrong way round)
            nv = json.loads(older.read_text())
        elif self.nv_path.exists():
            nv = json.loads(self.nv_path.read_text())
        else:
            cfg = json.loads(json.dumps(PRESETS[self.preset]))
            nv = {"config": cfg,
                  "meters": {m: cfg["meters"][m]["initial"] for m in cfg["meters"]},
                  "residual": {m: "0" for m in cfg["meters"]},
                  "diverted": {m: 0 for m in cfg["meters"]},
                  "cumulative_paid": 0, "paid_by_table": 0, "paid_by_attendant": 0,
                  "pending": [], "round": 0, "paid_denomination": cfg["denomination"]}
        self.config: dict[str, Any] = nv["config"]
        ring = self.settings_ring
        if "settings-ring-wrap-loads-older-write" in self.faults and self.boots > 0 and len(ring) > 8 and len(ring) % 8:
            # fault settings-ring-wrap-loads-older-write: the settings are written to a ring of eight slots, and the
            # loader takes the slot whose sequence number has the highest low three bits: once the ring has wrapped,
            # the last record of the round before
            self.config = json.loads(json.dumps(ring[max(i for i in range(len(ring)) if i % 8 == 7)]))
        if "mystery-field-lost-at-power-up" in self.faults and self.boots > 0:
            # fault mystery-field-lost-at-power-up: the settings loader skips a field whose value is null
            self.config = {k: v for k, v in self.config.items() if v is not None}
        if "combos-read-back-as-strings-at-power-up" in self.faults and self.boots > 0:
            # fault combos-read-back-as-strings-at-power-up: the settings loader reads each personal combination as the
            # four-character field it is stored in and does not split it into its two cards again
            for entry in self.config["seats"]:
                if isinstance(entry.get("combo"), list):
                    entry["combo"] = "".join(entry["combo"])
        if "combos-loaded-one-seat-on-after-power-cycle" in self.faults and self.boots > 0:
            # fault combos-loaded-one-seat-on-after-power-cycle: the loader skips the combination table's first slot
            # (taken for its header), so each seat reads the next seat's pair
            pairs = [entry.get("combo") for entry in self.config["seats"]]
            for i, entry in enumerate(self.config["seats"]):
                entry["combo"] = pairs[i + 1] if i + 1 < len(pairs) else None
        if "null-limit-reloaded-as-zero" in self.faults and self.boots > 0:
            # fault null-limit-reloaded-as-zero: the settings record keeps "no limit" as 0, and the loader does not read
            # 0 back as "no limit"
            for mcfg in self.config["meters"].values():
                for fkey in ("payout_limit", "display_capacity"):
                    if fkey in mcfg and mcfg[fkey] is None:
                        mcfg[fkey] = 0
        if "rates-reloaded-as-numbers" in self.faults and self.boots > 0:
            # fault rates-reloaded-as-numbers: the loader parses each rate into a floating-point register and keeps it
            # in the settings as that number
            for mcfg in self.config["meters"].values():
                mcfg["rate"] = float(mcfg["rate"])
        if "meter-initial-restored-from-reset" in self.faults and self.boots > 0:
            # fault meter-initial-restored-from-reset: the loader fills each meter's initial amount from the settings
            # record's reset field (the two were one field before initial amounts could be written apart)
            for mcfg in self.config["meters"].values():
                mcfg["initial"] = mcfg["reset"]
        self.meters: dict[str, int] = nv["meters"]
        self.residual: dict[str, Decimal] = {m: Decimal(v) for m, v in nv["residual"].items()}
        self.diverted: dict[str, int] = nv["diverted"]
        if "diverted-lost-at-power-up" in self.faults and self.boots > 0:
            # fault diverted-lost-at-power-up: the diverted counters are kept in RAM beside the display, not in the
            # meter record
            self.diverted = {m: 0 for m in self.diverted}
        if "denomination-write-lost-at-power-up" in self.faults and self.boots > 0:
            # fault denomination-write-lost-at-power-up: the power-up path loads the denomination from the factory
            # settings block, written when the table was commissioned
            self.config["denomination"] = PRESETS[self.preset]["denomination"]
        if "meter-limit-write-lost-at-power-up" in self.faults and self.boots > 0:
            # fault meter-limit-write-lost-at-power-up: the power-up path fills the limits from the factory block
            for name, mcfg in self.config["meters"].items():
                if name in PRESETS[self.preset]["meters"]:
                    mcfg["payout_limit"] = PRESETS[self.preset]["meters"][name]["payout_limit"]
        if ("commission-fraction-lost-at-power-up" in self.faults and self.boots > 0
                and self.config.get("commission") is not None):
            # fault commission-fraction-lost-at-power-up: the loader parses the stored commission as an integer
            self.config["commission"] = str(int(Decimal(self.config["commission"])))
        self.cumulative_paid: int = nv["cumulative_paid"]
        self.paid_by_table: int = nv["paid_by_table"]
        self.paid_by_attendant: int = nv["paid_by_attendant"]
        self.pending: list[dict[str, Any]] = nv["pending"]
        for p in self.pending:
            # fault pending-seat-lost-at-power-up: the payment record in storage has no seat field; the loader fills
            # in the table's first seat
            p.setdefault("seat", min(s["seat"] for s in self.config["seats"]))
        self.round: int = nv["round"]
        # the paytable in force: follows the denomination (fault: stays at the first one)
        self.paid_denomination: int = nv.get("paid_denomination", self.config["denomination"])
        if "pending-forgotten-at-power-up" in self.faults and self.boots > 0:
            self.pending = []
        if "round-counter-restarts" in self.faults and self.boots > 0:
            self.round = 0
        if "residual-lost-at-power-up" in self.faults and self.boots > 0:
            self.residual = {m: Decimal(0) for m in self.residual}
        if "pending-meter-turned-back-at-power-up" in self.faults and self.boots > 0:
            for p in self.pending:  # the power-up meter check rebuilds a meter with a hit record from its reset
                if p["meter"] in self.meters:
                    self.meters[p["meter"]] = self.config["meters"][p["meter"]]["reset"]
        # fault old-denomination-accepted: the wager check keeps the denomination read at power-up
        self.denomination_at_boot: int = self.config["denomination"]
        # fault commission-write-not-persisted: storage keeps the commission read at power-up
        self.commission_at_boot = self.config.get("commission")
        # fault rate-cached-at-power-up: the contribution uses the rates read at power-up
        self.rates_at_boot: dict[str, str] = {m: c["rate"] for m, c in self.config["meters"].items()}
        # fault paid-by-attendant-not-saved: storage keeps the attendant meter read at power-up
        self.paid_by_attendant_at_boot = self.paid_by_attendant
        # fault round-number-not-saved-in-open-round: the round number written is the last settled one
        self.round_settled: int = self.round
        # fault reset-amount-cached-at-power-up: the reset-key task keeps the reset amounts read at power-up
        self.resets_at_boot: dict[str, int] = {m: c["reset"] for m, c in self.config["meters"].items()}
        # fault cap-cached-at-power-up: the contribution routine keeps the caps read at power-up
        self.caps_at_boot: dict[str, tuple[Any, Any]] = {
            m: (c.get("payout_limit"), c.get("display_capacity")) for m, c in self.config["meters"].items()}
        # fault config-get-stale-after-write: config.get reads a copy taken at power-up
        self.config_at_boot: dict[str, Any] = json.loads(json.dumps(self.config))
        # fault sub-cent-growth-not-saved: each meter's record (amount and residual) is written only when the meter's
        # whole cents change
        self.residual_nv: dict[str, Decimal] = dict(self.residual)
        self._save_nv()

    def _save_nv(self) -> None:
        if self.nv_write_protected:
            return  # fault storage-write-protected-after-reboot: the write-enable latch is set only at a cold start
        config: dict[str, Any] = self.config
        meters: dict[str, Any] = self.meters
        residual: dict[str, Any] = {m: dec_str(v) for m, v in self.residual.items()}
        if "sub-cent-growth-not-saved" in self.faults:
            residual = {m: dec_str(self.residual_nv.get(m, v)) for m, v in self.residual.items()}
        if "residual-saved-to-one-decimal" in self.faults:
            # the meter record's residual field holds tenths of a cent
            residual = {m: dec_str(v.quantize(Decimal("0.1"), rounding=ROUND_FLOOR)) for m, v in self.residual.items()}
        if "commission-write-not-persisted" in self.faults and "commission" in config:
            config = dict(config, commission=self.commission_at_boot)
        if ("meters-saved-every-tenth-round" in self.faults and self.round % 10 != 0
                and self.nv_path.exists()):
            old = json.loads(self.nv_path.read_text())
            meters, residual = old["meters"], old["residual"]
        by_attendant = self.paid_by_attendant
        if "paid-by-attendant-not-saved" in self.faults:
            by_attendant = self.paid_by_attendant_at_boot
        round_nv = self.round
        if "round-number-not-saved-in-open-round" in self.faults:
            round_nv = self.round_settled  # the round record is written with the settlement
        pending = self.pending
        if "pending-seat-lost-at-power-up" in self.faults:
            # fault pending-seat-lost-at-power-up: the payment record written to storage has meter, amount and
            # category only
            pending = [{k: v for k, v in p.items() if k != "seat"} for p in self.pending]
        nv = {"config": config, "meters": meters,
              "residual": residual,
              "diverted": self.diverted, "cumulative_paid": self.cumulative_paid,
              "paid_by_table": self.paid_by_table, "paid_by_attendant": by_attendant,
              "pending": pending, "round": round_nv, "paid_denomination": self.paid_denomination}
        if "power-up-reads-older-record" in self.faults and self.nv_path.exists():
            # fault power-up-reads-older-record: the record written before this one is kept as the second slot
            shutil.copyfile(self.nv_path, self.nv_path.with_suffix(".prev"))
        tmp = self.nv_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(nv))
        os.replace(tmp, self.nv_path)

    def _power_up_volatile(self) -> None:
        kept_cards: list[str] = []
        if "round-cards-kept-across-power-cut" in self.faults and getattr(self, "phase", "idle") in ("open", "dealing"):
            # fault round-cards-kept-across-power-cut: the tableau buffer of a round in play is kept in battery-backed
            # RAM, and the round-open routine clears it only when it closes a settled round
            kept_cards = list(self.round_cards)
        self.phase = "idle"  # idle, open, dealing, settled
        self.locked = True
        self.cause: str | None = "power"
        # fault layout-survives-power-loss: the sensors' layout table is not cleared at power-up
        kept = getattr(self, "layout", {}) if "layout-survives-power-loss" in self.faults else {}
        self.layout: dict[tuple[int, str], int] = dict(kept)
        self.first_stake: dict[tuple[int, str], int] = {}
        self.round_cards: list[str] = list(kept_cards)
        self.first_round_after_power = True
        self.after_void = False  # fault lockout-late-after-void
        self.unlocked_before_comm_loss = False  # fault link-restore-reopens-wagering
        self.card_masked_in_round: int | None = None  # fault card-lock-disarmed-after-button
        self.removed_royal9 = 0  # fault removed-royal9-still-contributes
        self.round_start_meters: dict[str, int] = dict(self.meters)  # fault jackpot-pays-round-start-amount
        self.key_wait = False  # fault pending-does-not-block-after-power-up
        self.last_round_void = False  # fault void-round-number-reused
        self.refused_royal9 = 0  # fault refused-royal9-contributes
        self.last_key_paid: dict[str, int] = {}  # fault reset-key-second-turn-books-again
        self.identity_page_rewritten = False  # fault controller-type-lost-after-config-write
        self.comm_alarm = False  # fault comm-lost-latched-after-restore
        self.stale_listed: dict[tuple[int, str], int] = {}  # fault wager-list-stale-after-remove
        self.lock_line_stuck = False  # fault lock-line-stuck-after-reboot
        self.after_key = False  # fault lockout-late-after-reset-key
        self.skip_unlock = False  # fault first-unlock-after-power-not-sent
        self.prev_void = False  # fault void-flag-carried-to-next-round
        self.open_refused_pending = False  # fault second-round-open-taken-with-pending
        self.contribution_due = False  # fault contribution-booked-at-settlement
        self.quiet_reset = False  # fault reset-event-missing-after-reboot
        self.identity_slow: set[str] = set()  # fault identity-slow-after-power-up
        self.after_config_write = False  # fault lockout-late-after-config-write
        self.round_misreads = 0  # fault void-taken-after-misread-card
        self.withdrawn: dict[tuple[int, str], int] = {}  # faults replace-after-remove-refused, removed-wager-settled
        self.opened_at = 0.0  # fault card-out-masked-after-open
        self.void_live = False  # fault config-live-after-void
        self.paid_ram: dict[str, int] = {}  # fault key-after-power-books-nothing
        self.replaced_royal9 = 0  # fault royal9-placed-again-contributes-twice
        self.listed_after_settle: dict[tuple[int, str], int] = {}  # fault wager-list-kept-after-settlement
        self.round_start_residual: dict[str, Decimal] = dict(self.residual)  # fault void-takes-back-contributions
        self.nmb_disabled = False  # fault nmb-refused-in-second-round: the dealer input's enable bit, set at power-up
        # fault commission-write-takes-effect-round-late: the settlement's commission register, loaded at power-up and
        # after each settlement
        self.commission_reg = str(self.config.get("commission", "5"))
        self.meters_display = None  # (fault meters-get-refreshed-at-settlement: the display is rebuilt at power-up)
        self.pending_shown: list[dict[str, Any]] | None = None  # fault pending-stale-after-key
        self.r9_refused_seats: set[int] = set()  # fault no-base-refusal-latched
        self.key_unblocked = False  # fault open-block-cleared-by-first-key
        self.held_round_end: dict[str, Any] | None = None  # fault round-end-held-until-key
        self.comm_event_sent = False  # fault comm-lost-event-once-per-power-up
        self.slow_open = False  # fault round-open-slow-after-key
        self.r9_removed_seats: set[int] = set()  # fault base-remove-refused-after-royal9-removed
        self.ghost_listed: dict[tuple[int, str], int] = {}  # fault refused-royal9-listed
        self.nmb_void_latched = False  # fault open-refused-after-nmb-void
        self.removed_in_round = False  # fault lockout-late-after-removal
        self.sensors_gate_open = False  # fault sensors-gate-open-after-reboot
        self.settle_due = False  # fault settlement-held-while-link-down
        self.placed_before: dict[tuple[int, str], list[int]] = {}  # fault wager-list-lists-each-placement
        self.button_latched = False  # fault button-press-latched-into-next-round: the button's edge register
        self.refused_in_round = False  # fault lockout-late-after-refused-wager
        self.void_requested = False  # fault refused-settle-leaves-void-flag
        self.list_slow_after_settle = False  # fault wager-list-slow-after-settlement
        self.readded: list[tuple[int, str]] = []  # fault wager-list-readded-wager-last: the list's appended entries
        self.base_placed_again: set[int] = set()  # fault royal9-refused-after-base-placed-again: flags cleared
        self.cap_latch: dict[str, int] = {}  # fault cap-latched-after-limit-raised: the "at cap" latch and its amount
        self.floor_row: int | None = None  # fault floors-stay-one-dollar-after-write-back: the floor table pointer
        self.config_read_slow = False  # fault config-get-slow-after-write
        self.nmb_latch = False  # fault nmb-refusal-latched-after-void: the sensors' no-more-bets refusal code
        self.nmb_round_zero = False  # fault nmb-event-round-zero-after-reboot
        self.void_blocked = False  # fault void-refused-in-first-round-after-reboot
        self.meters_slow = False  # fault meters-get-slow-after-reboot
        self.contributed = False  # fault denomination-locked-after-contribution
        self.stray_cards: list[str] = []  # fault burn-card-kept-in-next-hand: cards read with no round open
        self.base_flag_seats: set[int] = set()  # fault base-flag-kept-after-removal: the seats' base-wager flags
        self.replaced_keys: set[tuple[int, str]] = set()  # fault replaced-wager-cannot-be-removed: areas placed again
        self.key_shadow: dict[str, int] = {}  # fault contribution-from-meter-before-key: the contribution's meter copy
        self.paytable_pointer: int | None = None  # fault refused-denomination-moves-paytable: the paytable pointer
        self.staged_write: dict[str, Any] = {}  # fault refused-write-applied-by-next-write: the settings staging block
        # faults refused-remove-drops-listing, sensors-list-cleared-by-reconnect: areas the sensors' list has dropped
        self.list_blind: set[tuple[int, str]] = set()
        self.void_r9 = 0  # fault void-leaves-contribution-list: the voided round's Royal 9 wagers, left in the list
        self.misread_base = 0  # fault misread-restarts-card-n: the reader's count at its last misread recovery
        self.burst_stack: list[dict[str, Any]] | None = None  # fault burst-card-events-newest-first: the reader's ring
        self.base_forgotten: set[int] = set()  # fault sensors-reconnect-forgets-base-flags: seats whose flag was lost
        self.placed_sum: dict[tuple[int, str], int] = {}  # fault replaced-base-wager-settled-at-sum: the chip counters
        # fault meters-get-refreshed-at-settlement: the display copy of the meters (amounts, residuals), frozen at the
        # round's wagering close until its settlement
        self.meters_display: tuple[dict[str, int], dict[str, Decimal]] | None = None
        self.key_replay: set[str] = set()  # fault key-after-reboot-books-payment-twice: the replayed hit journal
        self.key_open_refusal = False  # fault open-refused-once-after-key: the block bit the key leaves set
        self.rate_text: set[str] = set()  # fault written-rate-kept-as-display-text: meters whose rate was written
        self.hello_refused: set[str] = set()  # fault hello-refusal-latched: the lines whose negotiation was refused
        self.layout_final = False  # fault final-flag-kept-after-void: the layout's "wagers final" flag
        self.replay_wagers: dict[tuple[int, str], int] = {}  # fault refused-wager-replayed-at-round-open
        self.power_unlock = False  # fault first-unlock-after-power-cause-power: see power_on
        self.attendant_mode = False  # fault attendant-mode-left-on-after-key: the slip printer's attendant flag
        self.r9_list_total = 0  # fault contribution-list-rebuilt-on-first-royal9: the last contribution list's sum
        self.pending_reported: set[int] = set()  # fault pending-read-as-new-slips-only: the slips already read
        self.floor_key: int | None = None  # fault refused-denomination-clears-floor-check: the floor table's index
        self.sensors_nine_seats = False  # fault seat-8-accepted-after-config-write: the sensors' seat table rewritten

    # ------------------------------------------------------------------ power
    def power_off(self) -> None:
        with self.lock:
            if self.powered:
                self.lock_at_power_off = (self.locked, self.cause)
                # fault settle-voids-round-lost-to-power: the round record in storage still says "open"
                self.lost_round = self.round if self.phase in ("open", "dealing") else None
                if "live-flag-kept-across-power-cut" in self.faults and self.phase in ("open", "dealing"):
                    # fault live-flag-kept-across-power-cut: the live flag is part of the round record in storage and
                    # is cleared only when a round ends
                    self.live_nv = True
                if "shoe-dealing-after-power-cut-mid-deal" in self.faults and self.dealing:
                    self.dealing_stale = True  # the shoe's state byte is kept in its battery-backed RAM
            self.powered = False
            self.on_power_off()
            self.power_epoch += 1
            self.deal_stop.set()
            self.dealing = False

    def power_on(self) -> None:
        with self.lock:
            if self.powered:
                return
            self.powered = True
            self.boots += 1
            self.link_up = True
            self.nv_write_protected = False  # a cold start sets the flash write-enable latch
            self.card_line_off = False  # fault card-out-line-off-after-shoe-reboot: a cold start enables the output
            self.sensors_role_lost = False  # fault sensors-hello-role-shoe-after-reboot: the strap is read again
            self.sensors_six_seats = False  # fault sensors-seat-7-refused-after-reboot: the controller writes the count
            self.sensors_gate_shut = False
            self.last_refusal = None
            self.hello_refused = set()  # (fault hello-refusal-latched: a cold start resets the negotiation)
            self.slip_open = set()  # fault second-jackpot-of-meter-not-pending: a cold start clears the flags
            # fault sensors-link-flag-down-until-first-open: the sensors start with the link flag down
            self.sensors_link_unknown = "sensors-link-flag-down-until-first-open" in self.faults
            if "shoe-status-count-zeroed-at-power-up" in self.faults:
                # fault shoe-status-count-zeroed-at-power-up: the status counter is RAM and starts at 0; the reader's
                # count (the card events' n) is kept with the cards in the shoe
                self.status_zero_base = self.cards_dealt
            self._load_nv()
            if ("lost-round-contributions-booked-again" in self.faults and self.contrib_journal
                    and self.lost_round is not None):
                # fault lost-round-contributions-booked-again: the power-up replays the journal of the round lost to the
                # power cut on top of the meter record, which already holds its contributions
                self.layout = dict(self.contrib_journal)
                self._contribute()
            self.contrib_journal = {}
            self.round_cold = self.round
            if "open-blocked-after-key-following-power-cycle" in self.faults:
                # fault open-blocked-after-key-following-power-cycle: the open-block bit is read back from storage at
                # power-up; only the key task's list of this power-up's hits clears it
                self.open_block_nv = bool(self.pending)
            self._power_up_volatile()
            # fault first-unlock-after-power-cause-power: the power-fail handler writes "power" into the event
            # template's cause field, which the first round.open after it sends unchanged
            self.power_unlock = "first-unlock-after-power-cause-power" in self.faults
            self.warm_started = False
            self.sensors_block_resent = False
            self.key_known = {p["meter"] for p in self.pending}
            self.power_cycles += 1
            self.sensors_serial_lost = False  # a cold start reads the sensors' serial from their EEPROM again
            if "first-round-after-power-contributes-nothing" in self.faults:
                # fault first-round-after-power-contributes-nothing: the power-fail handler clears the rate registers;
                # the settlement routine loads them again from the settings block
                self.rates_cold = True
            if "round-number-skips-after-power-cycle" in self.faults:
                # fault round-number-skips-after-power-cycle: the power-up path closes "the interrupted round" by
                # stepping the round counter, without looking whether the last round was settled
                self.round += 1
                self._save_nv()
            if "card-n-restarts-after-power-cycle" in self.faults:
                # fault card-n-restarts-after-power-cycle: the reader's frame counter is RAM and starts at 0;
                # the status count is the shoe's, kept across the power cut with the cards in it
                self.n_base = self.cards_dealt
            if "lockout-get-cause-null-after-power" in self.faults:
                # fault lockout-get-cause-null-after-power: the power-fail handler clears the cause register; the
                # power-up path sets the locked flag only
                self.cause = None
            if "round-end-number-read-at-power-up" in self.faults:
                # fault round-end-number-read-at-power-up: the settlement's copy of the round record is taken at
                # power-up and refreshed only after a settlement
                self.round_at_power_up = self.round
            if "first-unlock-after-power-not-sent" in self.faults:
                self.skip_unlock = True  # the display task that sends the unlock starts after the first round.open
            if "identity-slow-after-power-up" in self.faults:
                self.identity_slow = {"shoe", "sensors", "controller"}  # identity block read from flash at first ask
            self.on_lock_line(True)
            if "one-dollar-paytable-lost-at-power-up" in self.faults:
                self.paytable_cold = True  # the paytable pointer starts at the $5 table; a denomination write moves it
            if "power-lockout-held-until-first-request" in self.faults:
                self.power_event_held = True  # the controller's event queue starts with its first request
            else:
                cause = "power"
                held = self.lock_at_power_off
                if "power-lockout-event-old-cause" in self.faults and held is not None and held[0] and held[1]:
                    cause = held[1]  # the power-up event is built from the lock record kept in battery-backed RAM
                self.emit("controller", {"event": "lockout", "locked": True, "cause": cause})
                if "power-lockout-sent-on-every-line" in self.faults:
                    # fault power-lockout-sent-on-every-line: the power-up message is broadcast on the table's bus
                    for role in ("shoe", "sensors"):
                        self.emit(role, {"event": "lockout", "locked": True, "cause": cause})
            if ("lock-state-restored-at-power-up" in self.faults and self.lock_at_power_off is not None
                    and not self.lock_at_power_off[0]):
                # the lock flag is kept in battery-backed memory and read back after the power-up lock
                self.locked, self.cause = self.lock_at_power_off

    def reboot_controller(self) -> None:
        with self.lock:
            self.boots += 1
            if "link-loss-forgotten-at-reboot" in self.faults:
                self.link_up = True  # the link state starts as "up" and is only changed by a new loss
            self._load_nv()
            if "reboot-loads-round-open-checkpoint" in self.faults and self.phase in ("open", "dealing"):
                # fault reboot-loads-round-open-checkpoint: the warm start finds the round-open checkpoint record in RAM
                # and restores the meters from it, as if the round had never closed its wagering
                self.meters.update(self.round_start_meters)
                self.residual.update(self.round_start_residual)
            if "reboot-round-number-from-cold-start" in self.faults:
                # fault reboot-round-number-from-cold-start: the warm start takes the round counter from the boot
                # record kept in RAM since the last power-up, not from storage
                self.round = self.round_cold
            if "storage-write-protected-after-reboot" in self.faults:
                # fault storage-write-protected-after-reboot: the warm start leaves the flash write-enable latch off
                self.nv_write_protected = True
            if "payout-meters-zeroed-by-reboot" in self.faults:
                # the warm start initialises the payout meters' RAM copy instead of reading it from storage
                self.cumulative_paid = self.paid_by_table = self.paid_by_attendant = 0
            if "pending-doubled-after-reboot" in self.faults and self.pending:
                # the warm restart replays the hit journal on top of the pending list it has just read
                self.pending = self.pending + [dict(p) for p in self.pending]
            kept_phase = self.phase
            gate_open = self.phase == "open" and not self.locked
            self._power_up_volatile()
            if "sensors-gate-open-after-reboot" in self.faults and gate_open:
                # fault sensors-gate-open-after-reboot: the sensors keep the "wagering open" gate they were last sent;
                # the controller's warm start does not send them the closed gate
                self.sensors_gate_open = True
            if "reboot-keeps-round-phase" in self.faults and kept_phase in ("open", "dealing"):
                self.phase = kept_phase  # the warm start keeps the round record it finds in RAM
            self.warm_started = True
            self.key_known = {p["meter"] for p in self.pending}
            if "key-after-reboot-books-payment-twice" in self.faults:
                # fault key-after-reboot-books-payment-twice: the warm start replays the hit journal into the key's
                # booking table, which already holds the payments read from storage
                self.key_replay = {p["meter"] for p in self.pending}
            if "residuals-zeroed-by-reboot" in self.faults:
                # fault residuals-zeroed-by-reboot: the warm start initialises the residual registers instead of
                # reading them from the meter record
                self.residual = {m: Decimal(0) for m in self.residual}
            if "payout-meters-swapped-by-reboot" in self.faults:
                # fault payout-meters-swapped-by-reboot: the warm start reads the two payout meters in the wrong order
                self.paid_by_table, self.paid_by_attendant = self.paid_by_attendant, self.paid_by_table
            if "pending-amount-reset-after-reboot" in self.faults:
                # fault pending-amount-reset-after-reboot: the warm start rebuilds each payment slip from its meter's
                # settings record
                for p in self.pending:
                    p["amount"] = self.config["meters"][p["meter"]]["reset"]
            self.nmb_round_zero = "nmb-event-round-zero-after-reboot" in self.faults
            self.void_blocked = "void-refused-in-first-round-after-reboot" in self.faults
            self.meters_slow = "meters-get-slow-after-reboot" in self.faults
            if "reset-key-refused-after-reboot" in self.faults:
                self.key_known = set()  # the key task's list is filled from storage at a cold start only
            if "lock-line-stuck-after-reboot" in self.faults:
                self.lock_line_stuck = True  # the warm start leaves the output latch set; round.open skips it
            if "reset-event-missing-after-reboot" in self.faults:
                self.quiet_reset = True  # the event queue of the key task is registered only at a cold start
            self.on_lock_line(True)
            if "reboot-no-power-lockout" not in self.faults:
                self.emit("controller", {"event": "lockout", "locked": True, "cause": "power"})

    # ------------------------------------------------------------------ helpers
    @property
    def seats(self) -> dict[int, list[str] | None]:
        return {s["seat"]: s["combo"] for s in self.config["seats"]}

    def _live(self) -> bool:
        if self.live_nv:
            return True  # fault live-flag-kept-across-power-cut
        if "config-write-open-round-accepted" in self.faults:
            return bool(self.layout)
        if self.void_live:
            return True  # fault config-live-after-void: the live flag is cleared by the settlement routine only
        if "config-write-taken-mid-deal" in self.faults:
            # fault config-write-taken-mid-deal: the live test compares the round state with "open" only
            return self.phase == "open" or bool(self.layout)
        return self.phase in ("open", "dealing") or bool(self.layout)

    def _cap(self, meter: str) -> int | None:
        m = self.config["meters"][meter]
        if "minor-capped-at-major-limit" in self.faults and meter == "minor" and "major" in self.config["meters"]:
            m = self.config["meters"]["major"]  # fault minor-capped-at-major-limit: the cap is read one record early
        if ("null-capacity-taken-as-full" in self.faults and "display_capacity" in m
                and m["display_capacity"] is None):
            # fault null-capacity-taken-as-full: an empty capacity field reads back as the display register, i.e. the
            # meter as it stands
            return self.meters[meter]
        limits = (m.get("payout_limit"), m.get("display_capacity"))
        if "cap-cached-at-power-up" in self.faults and meter in self.caps_at_boot:
            limits = self.caps_at_boot[meter]
        if "major-payout-limit-ignored" in self.faults and meter == "major":
            limits = (None, m.get("display_capacity"))
        if "capacity-ignored-without-limit" in self.faults and m.get("payout_limit") is None:
            return None  # the cap is taken as "the payout limit, clipped to the display", none without a limit
        caps = [c for c in limits if c is not None]
        return min(caps) if caps else None

    def _close_wagering(self, cause: str, quiet: bool = False, contribute: bool = True) -> None:
        """Wagering closes: the lock-out event, then the Royal 9 wagers contribute (section 8).

        `quiet`: fault void-closes-without-lockout-event (the void path closes wagering without the event).
        `contribute`: False for fault misread-close-skips-contribution (the contribution is the good read's)."""
        if not self.locked:
            self.locked = True
            self.cause = cause
            self.on_lock_line(True)
            event = {"event": "lockout", "locked": True, "cause": cause}
            if quiet or (cause == "comm-lost" and self.comm_event_sent
                         and "comm-lost-event-once-per-power-up" in self.faults):
                pass
            elif "lockout-event-sent-late" in self.faults and cause == "card":
                # the card-out interrupt only flags the event; the 50 ms housekeeping tick sends it
                threading.Timer(0.05, self._emit_late, args=("controller", event)).start()
            else:
                self.emit(self._lock_event_line(cause), event)
            if "contribution-booked-at-settlement" in self.faults:
                self.contribution_due = True  # the settlement task books the round's contributions
            elif cause == "comm-lost" and "comm-lost-close-skips-contribution" in self.faults:
                pass  # the link-loss path locks the line and the flag; the contribution task is the sensors'
            elif not contribute:
                pass  # fault misread-close-skips-contribution
            else:
                self._contribute()
        elif cause == "comm-lost":
            if "comm-lost-cause-not-stored-when-locked" not in self.faults:
                # (fault comm-lost-cause-not-stored-when-locked: the already-locked branch only sends the event)
                self.cause = cause
            if "comm-lost-after-close-contributes-again" in self.faults and self.phase in ("open", "dealing"):
                self._contribute()  # the link-loss path runs the whole close routine again
            once = "comm-lost-event-once-per-power-up" in self.faults and self.comm_event_sent
            if "comm-lost-no-event-when-locked" not in self.faults and not once:
                self.emit(self._lock_event_line(cause), {"event": "lockout", "locked": True, "cause": cause})
        if cause == "comm-lost":
            self.comm_event_sent = True  # fault comm-lost-event-once-per-power-up: the alarm-sent flag

    def _lock_event_line(self, cause: str) -> str:
        """The line a lockout event goes out on (fault comm-lost-event-on-sensors-line: the link supervision runs in the
        sensors' task, which queues its comm-lost event on the bet sensors' own line)."""
        if cause == "comm-lost" and "comm-lost-event-on-sensors-line" in self.faults:
            return "sensors"
        return "controller"

    def _late_comm_loss(self, epoch: int) -> None:
        """Fault comm-loss-noticed-after-800-ms: the supervision's fourth missed poll closes wagering."""
        with self.lock:
            if self.powered and self.power_epoch == epoch and not self.link_up:
                self._close_wagering("comm-lost")

    def _emit_late(self, role: str, payload: dict[str, Any]) -> None:
        with self.lock:
            if self.powered:
                self.emit(role, payload)

    def _emit_late_all(self, role: str, payloads: list[dict[str, Any]]) -> None:
        with self.lock:
            if self.powered:
                for payload in payloads:
                    self.emit(role, payload)

    def _contribute(self) -> None:
        if self.rates_cold:
            return  # fault first-round-after-power-contributes-nothing: every rate reads 0 until the settlement
        total = sum(amount for (seat, wtype), amount in self.layout.items() if wtype == "royal9")
        if "contribution-walk-stops-at-empty-seat" in self.faults:
            # fault contribution-walk-stops-at-empty-seat: the seat walk ends at the first empty Royal 9 area after the
            # list began (an empty area reads as the list's terminator)
            walked, last = 0, None
            for s in sorted(s for (s, t) in self.layout if t == "royal9"):
                if last is not None and s != last + 1:
                    break
                walked, last = walked + self.layout[(s, "royal9")], s
            total = walked
        if "contribution-list-rebuilt-on-first-royal9" in self.faults:
            # fault contribution-list-rebuilt-on-first-royal9: the contribution list is rebuilt when a round's first
            # Royal 9 wager is placed, not at round.open: a round without one books the last round's list again
            if total:
                self.r9_list_total = total
            else:
                total = self.r9_list_total
        if "contribution-uses-five-dollar-stake" in self.faults:
            # the contribution counts the Royal 9 wagers and multiplies by the $5 unit
            total = 500 * sum(1 for (_s, wtype) in self.layout if wtype == "royal9")
        if "refused-royal9-contributes" in self.faults:
            total += self.refused_royal9
        if "removed-royal9-still-contributes" in self.faults:
            total += self.removed_royal9
        if "royal9-placed-again-contributes-twice" in self.faults:
            total += self.replaced_royal9  # the contribution journal has one entry per placement
        if "last-seat-contributes-twice" in self.faults:
            total += self.layout.get((max(self.seats), "royal9"), 0)
        if "royal9-contributes-per-base-wager" in self.faults:
            # the contribution walks the base wagers and adds the Royal 9 wager of each one's seat
            total = sum(self.layout.get((seat, "royal9"), 0) for (seat, wtype) in self.layout
                        if wtype in ("player", "banker", "tie"))
        if "royal9-on-tie-base-not-contributing" in self.faults:
            # fault royal9-on-tie-base-not-contributing: the contribution walks the Player and Banker areas only
            total -= sum(a for (s, t), a in self.layout.items() if t == "royal9"
                         and not any((s, b) in self.layout for b in ("player", "banker")))
        if "first-seat-royal9-not-contributing" in self.faults:
            total -= self.layout.get((min(self.seats), "royal9"), 0)  # the seat loop starts at index 1
        if "contribution-counts-last-royal9-only" in self.faults:
            # fault contribution-counts-last-royal9-only: the total is assigned, not added, in the seat loop
            each = [a for (_s, t), a in sorted(self.layout.items()) if t == "royal9"]
            total = each[-1] if each else 0
        if "tie-wager-contributes" in self.faults:
            # the qualifying-wager test checks the area's contribution flag, which the Tie area also has set
            total += sum(amount for (_s, wtype), amount in self.layout.items() if wtype == "tie")
        if self.void_r9:
            # fault void-leaves-contribution-list: the voided round's Royal 9 wagers are still in the contribution list
            total += self.void_r9
            self.void_r9 = 0
        if not total:
            return
        self.contributed = True  # fault denomination-locked-after-contribution
        if "meters-get-refreshed-at-settlement" in self.faults and self.meters_display is None:
            # fault meters-get-refreshed-at-settlement: the meter read serves the display copy, refreshed by the
            # settlement task
            self.meters_display = (dict(self.meters), dict(self.residual))
        if "lost-round-contributions-booked-again" in self.faults:
            # fault lost-round-contributions-booked-again: the round's contributions are journalled until it ends
            self.contrib_journal = {k: a for k, a in self.layout.items() if k[1] == "royal9"}
        if self.key_shadow:
            # fault contribution-from-meter-before-key: the contribution routine adds to its own copy of each meter, the
            # record it last wrote; the reset key wrote the display's record and storage only
            self.meters.update(self.key_shadow)
            self.key_shadow = {}
        if "zero-rate-stops-every-meter" in self.faults and any(
                Decimal(c["rate"]) == 0 for c in self.config["meters"].values()):
            return  # fault zero-rate-stops-every-meter: a zero rate is read as "progressives switched off"
        shown_before = dict(self.meters)  # fault sub-cent-growth-not-saved: the display's whole cents before
        carry = Decimal(0)  # fault carry-passed-between-meters: the fraction accumulator outlives each meter
        for meter, mcfg in self.config["meters"].items():
            rate = mcfg["rate"]
            if "minor-rate-from-major" in self.faults and meter == "minor" and "major" in self.config["meters"]:
                rate = self.config["meters"]["major"]["rate"]
            if "rate-cached-at-power-up" in self.faults:
                rate = self.rates_at_boot.get(meter, rate)
            growth = Decimal(total) * Decimal(rate) / 100
            if "sub-cent-contribution-skipped" in self.faults and growth < 1:
                continue  # "nothing to add": a contribution under one cent is taken for none
            if "residual-from-first-wager-only" in self.faults:
                # each wager is added on its own; the fraction is kept from the first only
                each = [a for (_s, t), a in sorted(self.layout.items()) if t == "royal9"]
                if len(each) > 1:
                    growth = Decimal(each[0]) * Decimal(rate) / 100 + sum(
                        (Decimal(a) * Decimal(rate) / 100).to_integral_value(rounding=ROUND_FLOOR)
                        for a in each[1:])
            if "residual-rounded-away" in self.faults:
                growth = growth.to_integral_value(rounding=ROUND_FLOOR)
            amount = Decimal(self.meters[meter]) + self.residual[meter] + growth
            cap = self._cap(meter)
            if meter in self.cap_latch:
                cap = self.cap_latch[meter]  # fault cap-latched-after-limit-raised: the latched cap is used
            if "cap-one-cent-short" in self.faults and cap is not None:
                cap -= 1  # the limit is kept as "the largest amount below the limit"
            if (cap is not None and amount > cap and self.meters[meter] < cap
                    and "cap-crossing-contribution-diverted-whole" in self.faults):
                # fault cap-crossing-contribution-diverted-whole: a contribution that would cross the cap is sent to
                # the diverted account whole instead of being split at the cap
                frac = self.residual[meter] + growth
                whole = int(frac.to_integral_value(rounding=ROUND_FLOOR))
                self.diverted[meter] += whole
                self.residual[meter] = frac - whole
                continue
            if cap is not None and amount > cap:
                excess = amount - cap
                whole = int(excess.to_integral_value(rounding=ROUND_FLOOR))
                if "diverted-from-growth" in self.faults:
                    # fault diverted-from-growth: the diverted account is booked from the contribution's whole cents
                    # (the loop's growth variable), not from the part past the cap
                    whole = int(growth.to_integral_value(rounding=ROUND_FLOOR))
                if "diverted-rounds-up" in self.faults:
                    whole = int(excess.to_integral_value(rounding=ROUND_CEILING))
                if "excess-dropped" not in self.faults:
                    # fault diverted-booked-to-mega: the diverted account is indexed by the first meter
                    self.diverted["mega" if "diverted-booked-to-mega" in self.faults else meter] += whole
                self.meters[meter] = cap
                if "cap-latched-after-limit-raised" in self.faults:
                    # fault cap-latched-after-limit-raised: the "meter at cap" latch is cleared by the reset key only,
                    # and while it is set the meter is held at the amount it latched at
                    self.cap_latch[meter] = cap
                # (fault diverted-from-growth: the residual is still the fraction past the cap)
                past = int(excess.to_integral_value(rounding=ROUND_FLOOR))
                self.residual[meter] = max(excess - (past if "diverted-from-growth" in self.faults else whole),
                                           Decimal(0))
                if "cap-stops-later-meters" in self.faults:
                    break  # the loop leaves at the capped meter: the meters after it get nothing
            elif "residual-never-carried-into-meter" in self.faults:
                # the whole cents of this contribution go to the meter, the fraction is added to the residual
                grown = int(growth.to_integral_value(rounding=ROUND_FLOOR))
                self.meters[meter] += grown
                self.residual[meter] += growth - grown
            else:
                if "carry-passed-between-meters" in self.faults:
                    amount += carry
                whole = int(amount.to_integral_value(rounding=ROUND_FLOOR))
                grown = int(growth.to_integral_value(rounding=ROUND_FLOOR))
                if ("residual-whole-cent-kept" in self.faults
                        and self.residual[meter] + growth - grown == 1):
                    # the carry test is "fraction > 1": a fraction of exactly one cent stays in the residual
                    self.meters[meter] += grown
                    self.residual[meter] = Decimal(1)
                    continue
                if "meter-rounds-half-up" in self.faults:
                    whole = int(amount.to_integral_value(rounding=ROUND_HALF_UP))  # the display rounds to the cent
                self.meters[meter] = whole
                self.residual[meter] = amount - whole
                carry = self.residual[meter]
        for meter in self.meters:
            if self.meters[meter] != shown_before.get(meter):
                self.residual_nv[meter] = self.residual[meter]  # fault sub-cent-growth-not-saved: the record written
        if "contribution-not-saved-until-settlement" in self.faults:
            return  # the meter record is written with the round's settlement
        self._save_nv()

    # ------------------------------------------------------------------ card out (the shoe's line)
    def card_out(self, card: str) -> None:
        """The shoe's card-out line: the controller sees a card leave the shoe."""
        self.on_card_line()
        blind = "card-256-missed" in self.faults and self.cards_dealt % 256 == 0
        if (self.phase == "open" and self.card_masked_in_round is not None
                and self.card_masked_in_round < self.round):
            # fault card-lock-disarmed-after-button: the button masked the card-out input; the mask is
            # lifted by the next round's first card, which therefore does not lock
            blind = True
            self.card_masked_in_round = None
        if self.phase in ("idle", "settled") and "burn-card-kept-in-next-hand" in self.faults:
            # fault burn-card-kept-in-next-hand: the hand buffer takes every card read; round.open does not clear it
            # (the settlement does, after the round it settles), so a card out between rounds is the next hand's first
            self.stray_cards.append(card)
        if self.phase == "open":
            if self.locked and self.cause == "button" and "card-relocks-after-button" in self.faults:
                # fault card-relocks-after-button: the card-out path tests the lock-out line's "card" latch, which the
                # button does not set, and closes wagering's event and cause once more
                self.cause = "card"
                self.emit("controller", {"event": "lockout", "locked": True, "cause": "card"})
            if (self.locked and self.cause == "no-more-bets"
                    and "card-after-nmb-contributes-again" in self.faults):
                self._contribute()  # the card-out path books the contributions without asking who did
            masked = 0.3 - (time.monotonic() - self.opened_at)
            if not self.locked and not blind and "card-out-masked-after-open" in self.faults and masked > 0:
                # the card-out input is masked while the lock-out line's relay settles after round.open
                threading.Timer(masked, self._masked_card_lock, args=(self.round, self.power_epoch)).start()
                blind = True
            if not self.locked and not blind:
                if "lockout-late-first-round" in self.faults and self.first_round_after_power:
                    time.sleep(0.005)
                if "misread-first-card-locks-late" in self.faults and self.last_out_misread:
                    time.sleep(0.004)  # the reader retries the unreadable card before raising card-out
                if "lockout-late-after-void" in self.faults and self.after_void:
                    time.sleep(0.003)
                if "lockout-late-after-reset-key" in self.faults and self.after_key:
                    time.sleep(0.0025)  # the reset key's audit record is still being written
                if "lockout-late-after-config-write" in self.faults and self.after_config_write:
                    time.sleep(0.003)  # the settings block is still being verified in flash
                if "lockout-slow-with-many-wagers" in self.faults and len(self.layout) > 4:
                    # the lock-out task walks the layout's contributions before raising the line
                    time.sleep(0.0006 * (len(self.layout) - 4))
                if "lockout-late-after-link-restore" in self.faults and self.after_link_restore:
                    time.sleep(0.0035)  # the sensors' wager table is read back over the restored link first
                if "lockout-late-every-tenth-round" in self.faults and self.round % 10 == 0:
                    time.sleep(0.003)  # the ten-round audit block is written to flash before the line is raised
                if "one-dollar-lockout-late-on-fractional-contribution" in self.faults and self._sub_cent_share():
                    time.sleep(0.003)  # a share under a cent goes through the software decimal routine first
                if "lockout-late-after-removal" in self.faults and self.removed_in_round:
                    time.sleep(0.003)  # fault lockout-late-after-removal: the layout table is compacted first
                if "lockout-late-after-refused-wager" in self.faults and self.refused_in_round:
                    time.sleep(0.003)  # fault lockout-late-after-refused-wager: the refusal log is flushed first
                if "lockout-late-on-face-first-card" in self.faults and card[0] in "JQK":
                    time.sleep(0.003)  # fault lockout-late-on-face-first-card: the Royal 9 pre-check runs first
                if "lockout-late-when-meter-at-cap" in self.faults and any(
                        (cap := self._cap(m)) is not None and self.meters[m] >= cap for m in self.meters):
                    time.sleep(0.004)  # the diverted-account record is written before the line is raised
                quiet = "card-lockout-event-skipped-with-empty-layout" in self.faults and not self.layout
                cause = "card"
                if "misread-first-card-lockout-cause-misread" in self.faults and self.last_out_misread:
                    cause = "misread"  # fault misread-first-card-lockout-cause-misread: the cause is the reader's code
                # fault misread-close-skips-contribution: the contribution is booked from the card reader's good-read
                # path; the card-out line of an unreadable card closes wagering only
                booked = not ("misread-close-skips-contribution" in self.faults and self.last_out_misread)
                # (fault card-lockout-event-skipped-with-empty-layout: the event is queued by the contribution task)
                self._close_wagering(cause, quiet=quiet, contribute=booked)
            self.phase = "dealing"
            self.first_round_after_power = False
            self.after_void = False
            self.after_key = False
            self.after_config_write = False
            self.after_link_restore = False
        if self.phase == "dealing":
            if not (self.last_out_misread and "misread-card-left-out-of-tableau" in self.faults):
                # (fault misread-card-left-out-of-tableau: the hand buffer is filled by the reader's good reads only)
                self.round_cards.append(card)
            if self.last_out_misread:
                self.round_misreads += 1
            slip = "tableau-banker-3-draws-on-8" in self.faults
            nat9 = "player-natural-8-not-natural" in self.faults
            b6 = "banker-6-draws-player-stood" in self.faults
            b5 = "banker-5-stands-on-4" in self.faults
            b4 = "banker-4-draws-on-ace" in self.faults
            p6 = "player-draws-on-6" in self.faults
            b6only7 = "banker-6-stands-on-third-6" in self.faults
            blate = "banker-natural-checked-after-player-draw" in self.faults
            b2as3 = "banker-2-stands-on-third-8" in self.faults
            b5stood = "banker-5-stands-when-player-stood" in self.faults
            b3on9 = "banker-3-stands-on-third-9" in self.faults  # fault banker-3-stands-on-third-9: see game.py
            b4on8 = "banker-4-draws-on-third-8" in self.faults  # fault banker-4-draws-on-third-8: see game.py
            p5 = "player-stands-on-5" in self.faults  # fault player-stands-on-5: see game.py
            b7 = "banker-7-draws-on-third-6-or-7" in self.faults  # fault banker-7-draws-on-third-6-or-7: see game.py
            raw = "natural-tested-before-mod-10" in self.faults  # fault natural-tested-before-mod-10: see game.py
            tot = "banker-draw-reads-player-total" in self.faults  # fault banker-draw-reads-player-total: see game.py
            ten0 = "third-card-ten-read-as-player-stood" in self.faults  # fault third-card-ten-read-as-player-stood
            if len(self.round_cards) >= game.cards_needed(self.round_cards, slip, nat9, b6, b5, b4, p6, b6only7, blate,
                                                          b2as3, b5stood, banker3_stands_on_9=b3on9,
                                                          banker4_draws_on_8=b4on8, player_stands_on_5=p5,
                                                          banker7_draws_on_6_7=b7, natural_before_mod=raw,
                                                          banker_reads_total=tot, ten_as_stood=ten0):
                if "settlement-held-while-link-down" in self.faults and not self.link_up:
                    # fault settlement-held-while-link-down: the settlement waits for the sensors to clear the layout
                    self.settle_due = True
                    self.phase = "dealing"
                    return
                self._settle()

    def _sub_cent_share(self) -> bool:
        """Fault one-dollar-lockout-late-on-fractional-contribution: a meter's share of the wagers is under a cent."""
        total = sum(a for (_s, t), a in self.layout.items() if t == "royal9")
        return bool(total) and any(Decimal(total) * Decimal(c["rate"]) / 100 < 1
                                   for c in self.config["meters"].values())

    def _masked_card_lock(self, round_no: int, epoch: int) -> None:
        """Fault card-out-masked-after-open: the card seen in the mask locks wagering when the mask ends."""
        with self.lock:
            if (self.powered and self.power_epoch == epoch and self.round == round_no and self.phase == "dealing"
                    and not self.locked):
                self._close_wagering("card")

    def _settle(self) -> None:
        cards = self.round_cards
        hands = game.hands(cards, "tableau-banker-3-draws-on-8" in self.faults,
                           "player-natural-8-not-natural" in self.faults,
                           "banker-6-draws-player-stood" in self.faults,
                           "banker-5-stands-on-4" in self.faults,
                           "banker-4-draws-on-ace" in self.faults,
                           "player-draws-on-6" in self.faults,
                           "banker-6-stands-on-third-6" in self.faults,
                           "banker-natural-checked-after-player-draw" in self.faults,
                           "banker-2-stands-on-third-8" in self.faults,
                           "banker-5-stands-when-player-stood" in self.faults,
                           banker3_stands_on_9="banker-3-stands-on-third-9" in self.faults,
                           third_no_mod="third-card-total-not-mod-10" in self.faults,
                           banker4_draws_on_8="banker-4-draws-on-third-8" in self.faults,
                           player_stands_on_5="player-stands-on-5" in self.faults,
                           banker7_draws_on_6_7="banker-7-draws-on-third-6-or-7" in self.faults,
                           natural_before_mod="natural-tested-before-mod-10" in self.faults,
                           fifth_to_player="banker-third-card-added-to-player" in self.faults,
                           banker_reads_total="banker-draw-reads-player-total" in self.faults,
                           naturals_tie="two-naturals-settled-as-tie" in self.faults,
                           tie_two_cards="tie-check-reads-two-card-points" in self.faults,
                           ten_as_stood="third-card-ten-read-as-player-stood" in self.faults)
        winner = hands.winner
        if self.contribution_due:
            self.contribution_due = False
            self._contribute()
        commission = Decimal(self.config.get("commission", "5"))
        if "commission-write-takes-effect-round-late" in self.faults:
            commission = Decimal(self.commission_reg)  # the register loaded after the settlement before this one
        if "zero-commission-charged-five" in self.faults and commission == 0:
            commission = Decimal(5)  # fault zero-commission-charged-five: a zero register reads as "not set": 5 %
        if "commission-write-ignored-in-settlement" in self.faults and self.commission_at_boot is not None:
            commission = Decimal(self.commission_at_boot)
        if "commission-decimal-truncated" in self.faults:
            commission = Decimal(int(commission))  # the percentage register holds whole percent
        base_events: list[dict[str, Any]] = []  # fault royal9-settled-before-base
        stakes = dict(self.layout)
        if self.placed_sum:
            stakes.update({k: v for k, v in self.placed_sum.items() if k in stakes})  # fault replaced-base-wager-...
        if "replace-wager-settles-first" in self.faults:
            stakes.update({k: v for k, v in self.first_stake.items() if k in stakes})
        if "removed-wager-settled" in self.faults:
            for k, v in self.withdrawn.items():  # the settlement walks the round's wager journal, not the layout
                stakes.setdefault(k, v)
        base_lost: dict[int, bool] = {}  # fault losing-royal9-payout-skipped
        base_pushed: set[int] = set()  # fault losing-royal9-returned-on-push
        # fault payouts-in-placement-order: the base wagers in the order the sensors reported them
        base_order = stakes.items() if "payouts-in-placement-order" in self.faults else sorted(stakes.items())
        if "base-payouts-grouped-by-type" in self.faults:
            # fault base-payouts-grouped-by-type: the base-game pass walks one wager type after the other
            base_order = sorted(stakes.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        vig_sum = 0  # fault commission-accumulated-across-seats: the vigorish total of the settlement pass
        for (seat, wtype), stake in base_order:
            if wtype == "royal9":
                continue
            category, returned = game.base_payout(wtype, stake, winner, commission)
            if ("banker-six-pays-half" in self.faults and wtype == "banker" and category == "win"
                    and hands.b_total == 6):
                # fault banker-six-pays-half: the payout table shared with the no-commission game variant is loaded,
                # whose Banker win with a 6 pays 1 to 2 and carries no commission
                returned = stake + stake // 2
            if ("tie-wager-wins-only-on-two-card-tie" in self.faults and wtype == "tie" and category == "win"
                    and len(cards) > 4):
                category, returned = "lose", 0  # fault tie-wager-wins-only-on-two-card-tie: the Tie area reads the
                # natural-check's "tie" flag, set on the first four cards only
            if "commission-accumulated-across-seats" in self.faults and wtype == "banker" and category == "win":
                # the vigorish register is cleared once per settlement, not per wager: each winning Banker wager is
                # charged the vigorish of the ones before it too
                vig_sum += 2 * stake - returned
                returned = 2 * stake - vig_sum
            if ("player-loses-beside-winning-tie" in self.faults and winner == "tie"
                    and wtype in ("player", "banker") and (seat, "tie") in stakes):
                category, returned = "lose", 0  # the seat's base area settled as one: the Tie took it
            if "banker-commission-on-whole-return" in self.faults and wtype == "banker" and category == "win":
                vig = (Decimal(2 * stake) * commission / 100).to_integral_value(rounding=ROUND_FLOOR)
                returned = 2 * stake - int(vig)
            if ("banker-commission-skipped-past-fourth-seat" in self.faults and wtype == "banker"
                    and category == "win" and seat > 4):
                returned = 2 * stake  # fault banker-commission-skipped-past-fourth-seat: a four-entry vigorish table
            if "commission-product-overflows-16-bits" in self.faults and wtype == "banker" and category == "win":
                # fault commission-product-overflows-16-bits: the stake x percent product is kept in a 16-bit register
                product = int(Decimal(stake) * commission) & 0xFFFF
                returned = 2 * stake - product // 100
            if ("push-returns-last-rounds-stake" in self.faults and category == "push"
                    and (seat, wtype) in self.last_stakes):
                returned = self.last_stakes[(seat, wtype)]  # fault push-returns-last-rounds-stake: the seat's slip
            base_lost[seat] = base_lost.get(seat, True) and category == "lose"
            if category == "push":
                base_pushed.add(seat)
            if "push-category-win" in self.faults and category == "push":
                category = "win"  # the category is "not lost": win
            if "tie-win-category-push" in self.faults and wtype == "tie" and category == "win":
                category = "push"  # the Tie's category is taken from the hands' result: a tie
            if "tie-pays-8-for-1" in self.faults and wtype == "tie" and category == "win":
                returned = stake * 8
            if "tie-win-charged-commission" in self.faults and wtype == "tie" and category == "win":
                # the vigorish routine is called for every winning wager that is not on the Player
                vig = (Decimal(returned - stake) * commission / 100).to_integral_value(rounding=ROUND_FLOOR)
                returned -= int(vig)
            if "banker-commission-on-push" in self.faults and wtype == "banker" and category == "push":
                returned = stake - int((Decimal(stake) * commission / 100).to_integral_value(rounding=ROUND_FLOOR))
            if "commission-rounded-up" in self.faults and wtype == "banker" and category == "win":
                vig = (Decimal(stake) * commission / 100).to_integral_value(rounding=ROUND_CEILING)
                returned = 2 * stake - int(vig)
            if "commission-on-whole-dollars" in self.faults and wtype == "banker" and category == "win":
                vig = (Decimal(stake // 100 * 100) * commission / 100).to_integral_value(rounding=ROUND_FLOOR)
                returned = 2 * stake - int(vig)
            if ("banker-commission-on-seat-first-stake" in self.faults and wtype == "banker" and category == "win"
                    and (seat, "player") in stakes):
                # the vigorish is taken on the seat's first base area's chips (the Player area)
                vig = (Decimal(stakes[(seat, "player")]) * commission / 100).to_integral_value(rounding=ROUND_FLOOR)
                returned = 2 * stake - int(vig)
            if ("banker-three-card-win-no-commission" in self.faults and wtype == "banker" and category == "win"
                    and len(hands.banker) == 3):
                returned = 2 * stake  # the vigorish is marked on the two-card path only
            if "losing-tie-payout-skipped" in self.faults and wtype == "tie" and category == "lose":
                continue  # the Tie area's slip is printed only when the hand is a tie
            base_payout: dict[str, Any] = {"event": "payout", "seat": seat, "type": wtype, "category": category,
                                           "stake": stake, "returned": returned, "paid_by": "table"}
            if "losing-base-payout-stake-zero" in self.faults and category == "lose":
                base_payout["stake"] = 0  # fault losing-base-payout-stake-zero: the stake field is filled on the paying
                # path only
            if "losing-tie-category-null" in self.faults and wtype == "tie" and category == "lose":
                # fault losing-tie-category-null: the Tie area (8 to 1) is settled by the side-wager slip builder,
                # whose losing slip has no category
                base_payout["category"] = None
            if "lose-payout-omits-paid-by" in self.faults and category == "lose":
                del base_payout["paid_by"]  # fault lose-payout-omits-paid-by: the losing slip has no payer line
            if "tie-win-sends-hit" in self.faults and wtype == "tie" and category == "win":
                # fault tie-win-sends-hit: the Tie's 8 to 1 is entered in the award table beside the Royal 9 lines, and
                # the award routine sends a hit record for it
                self.emit("controller", {"event": "hit", "seat": seat, "category": "win", "meter": None,
                                         "amount": returned - stake})
            if "royal9-settled-before-base" in self.faults:
                base_events.append(base_payout)  # the Royal 9 task runs first and the base queue after it
            else:
                self.emit("controller", base_payout)
        denom = self.paid_denomination if "denomination-old-paytable" in self.faults else self.config["denomination"]
        if self.paytable_cold:
            denom = 500  # fault one-dollar-paytable-lost-at-power-up
        if self.paytable_pointer is not None:
            denom = self.paytable_pointer  # fault refused-denomination-moves-paytable
        fixed = game.FIXED.get(denom, game.FIXED[500])
        if "one-dollar-tie-and-suited-swapped" in self.faults and denom == 100:
            # the $1 paytable's rows were entered with the tie and the suited lines transposed
            fixed = dict(fixed, **{"royal9-tie": fixed["suited-royal9"], "suited-royal9": fixed["royal9-tie"]})
        seats = self.seats
        slips = frozenset(self.faults & {"royal9-jack-not-face", "suited-tie-paid-as-tie",
                                         "tie-with-one-suited-paid-suited-tie", "royal9-counts-third-card",
                                         "banker-suited-royal9-paid-unsuited", "suited-tie-requires-same-suit",
                                         "suited-minor-paid-as-suited-royal9", "nine-first-not-royal9-on-banker",
                                         "combination-matched-on-king-suit", "ten-nine-counted-royal9",
                                         "royal9-tie-paid-as-royal9", "personal-hands-swapped",
                                         "royal9-read-from-first-two-cards", "mega-checked-after-major",
                                         "tie-rows-checked-before-personal", "unsuited-combination-paid-as-royal9",
                                         "envy-needs-same-card-order", "envy-paid-for-unassigned-combination",
                                         "envy-checks-lower-seats-only", "envy-skips-two-suit-combinations",
                                         "suited-check-compares-colour", "identical-royal9-pair-tie-unpaid"})
        meter_hits = 0
        after_round_end: list[dict[str, Any]] = []  # fault attendant-payout-after-round-end
        envy_paid = False  # fault envy-paid-to-first-seat-only
        slip_paid_by = "table"  # fault paid-by-attendant-carried-to-next-seat: the slip's field, set by a jackpot
        deferred: list[dict[str, Any]] = []  # fault hits-sent-before-payouts: the payout pass after the hit pass
        attendant_slips: list[dict[str, Any]] = []  # fault jackpot-payouts-after-fixed-lines
        first_slip_category: str | None = None  # fault second-pending-category-from-first: the round's slip buffer

        def r9_payout(event: dict[str, Any]) -> None:
            if self.attendant_mode and event["paid_by"] == "table":
                event["paid_by"] = "attendant"  # fault attendant-mode-left-on-after-key: the key's flag, never cleared
            if "paid-by-attendant-carried-to-next-seat" in self.faults and event["paid_by"] == "table":
                event["paid_by"] = slip_paid_by
            if ("one-dollar-royal9-payout-stake-500" in self.faults and self.config["denomination"] == 100
                    and event["stake"]):
                event["stake"] = 500  # the slip's stake field is the paytable's unit constant, the $5 table's
            if "hits-sent-before-payouts" in self.faults:
                deferred.append(event)
            else:
                self.emit("controller", event)

        # fault royal9-payouts-last-seat-first: the Royal 9 task walks the seats from the last one
        r9_order = sorted(stakes.items(), reverse="royal9-payouts-last-seat-first" in self.faults)
        for (seat, wtype), stake in r9_order:
            if wtype != "royal9":
                continue
            combos = seats
            if "combinations-indexed-by-king" in self.faults and seats.get(seat):
                # fault combinations-indexed-by-king: the seat's combination is found through a table indexed by its
                # king, which holds the first seat with that king (seats 5, 6, 7 share the kings of seats 1, 2, 3)
                king = next((c for c in seats[seat] if c[0] == "K"), None)
                first = min((s for s, c in seats.items() if c is not None and king in c), default=seat)
                combos = {**seats, seat: seats[first]}
            if ("last-seat-combination-off-by-one" in self.faults and seat == max(seats)
                    and seat - 1 in seats):
                combos = {s: c for s, c in seats.items()}
                combos[seat] = seats[seat - 1]  # the combination table is indexed from 0 at the last seat
            res = game.royal9_category(cards, seat, combos, slips)
            cat = res.category
            if cat == "mega-envy" and "envy-paid-to-first-seat-only" in self.faults:
                if envy_paid:
                    cat = None  # the envy flag, set by the first award, reads as "envy already paid"
                envy_paid = True
            if cat == "mega-envy" and "mega-envy-needs-occupied-position" in self.faults:
                p2, b2 = sorted([cards[0], cards[2]]), sorted([cards[1], cards[3]])
                owners = {s for s, c in seats.items() if c is not None and sorted(c) == p2 == b2}
                if not any(s in owners for (s, _t) in stakes):
                    cat = None  # envy only when the position whose combination hit is occupied
            if cat is None:
                if "losing-royal9-payout-skipped" in self.faults and base_lost.get(seat, False):
                    continue
                lost = "lose" if "losing-royal9-category-lose" in self.faults else None
                lost_stake = stake
                if "losing-royal9-stake-from-base" in self.faults:
                    # the losing slip is filled from the seat's first area, the base wager
                    lost_stake = next((stakes[(seat, t)] for t in ("player", "banker", "tie")
                                       if (seat, t) in stakes), stake)
                back = 0
                if "losing-royal9-returned-on-push" in self.faults and seat in base_pushed:
                    back = lost_stake  # fault losing-royal9-returned-on-push: the seat's push flag is read for it
                r9_payout({"event": "payout", "seat": seat, "type": "royal9", "category": lost,
                           "stake": lost_stake, "returned": back, "paid_by": "table"})
                continue
            if cat in METERS and cat in self.meters:
                amount = self.meters[cat]
                if "jackpot-pays-round-start-amount" in self.faults:
                    amount = self.round_start_meters.get(cat, amount)
                if "minor-hit-shows-major-amount" in self.faults and cat == "minor" and "major" in self.meters:
                    amount = self.meters["major"]
                if "jackpot-pays-diverted-too" in self.faults:
                    amount += self.diverted.get(cat, 0)  # fault jackpot-pays-diverted-too: the award is taken from
                    # the meter's uncapped total (what it shows plus what was diverted past the cap)
                if "jackpot-rounds-residual-up" in self.faults and self.residual[cat] > 0:
                    amount += 1  # the award is taken from the exact meter value, rounded up to the cent
                meter_field = None if "minor-hit-meter-field-null" in self.faults and cat == "minor" else cat
                hit_event = {"event": "hit", "seat": seat, "category": cat, "meter": meter_field, "amount": amount}
                if "meter-payout-before-hit" not in self.faults:
                    self.emit("controller", hit_event)
                if "mega-reset-at-hit" in self.faults and cat == "mega":
                    # fault mega-reset-at-hit: the mega's hit path is the table-paid one, which resets the meter right
                    # after its hit, although an attendant pays it and the payment waits for the reset key
                    self.meters["mega"] = self.config["meters"]["mega"]["reset"]
                    self.emit("controller", {"event": "reset", "meter": "mega", "amount": self.meters["mega"]})
                meter_hits += 1
                slip_seat = min(seats) if "pending-seat-is-first-seat" in self.faults else seat
                if "pending-seat-from-last-royal9-wager" in self.faults:
                    # fault pending-seat-from-last-royal9-wager: the slip's seat is the Royal 9 loop's last index
                    slip_seat = max(s for (s, t) in stakes if t == "royal9")
                # fault second-jackpot-of-meter-not-pending: the meter's "slip open" flag, set by its first jackpot, is
                # cleared at power-up only; a slip is made only when the flag is clear
                latched = "second-jackpot-of-meter-not-pending" in self.faults and cat in self.slip_open
                if ("second-meter-hit-not-pending" not in self.faults or meter_hits == 1) and not latched:
                    self.slip_open.add(cat)
                    owed = amount + stake if "pending-amount-includes-stake" in self.faults else amount
                    if "pending-amount-from-round-start" in self.faults:
                        # fault pending-amount-from-round-start: the slip is filled from the round-open meter record
                        owed = self.round_start_meters.get(cat, owed)
                    slip_category = cat
                    if "second-pending-category-from-first" in self.faults and first_slip_category is not None:
                        # fault second-pending-category-from-first: the second slip of the round is built on the first
                        # one, and only its meter, seat and amount are filled in
                        slip_category = first_slip_category
                    first_slip_category = first_slip_category or cat
                    self.pending.append({"meter": cat, "seat": slip_seat, "amount": owed, "category": slip_category})
                    self.key_wait = True
                    self.key_known.add(cat)
                    self.paid_ram[cat] = self.paid_ram.get(cat, 0) + owed
                if "cumulative-booked-at-hit" in self.faults:
                    self.cumulative_paid += amount  # booked with the hit record, not with the key
                self._save_nv()
                handed = amount if "jackpot-returned-without-stake" in self.faults else stake + amount  # the slip's sum
                payout = {"event": "payout", "seat": seat, "type": "royal9", "category": cat,
                          "stake": stake, "returned": handed, "paid_by": "attendant"}
                if "attendant-payout-after-round-end" in self.faults:
                    after_round_end.append(payout)  # queued for the attendant's display, sent after the round
                elif "jackpot-payouts-after-fixed-lines" in self.faults:
                    # fault jackpot-payouts-after-fixed-lines: the attendant's slips are printed after the table's own
                    # Royal 9 lines
                    attendant_slips.append(payout)
                else:
                    r9_payout(payout)
                if "paid-by-attendant-carried-to-next-seat" in self.faults:
                    slip_paid_by = "attendant"  # the slip's paid-by field is not set back for the next seat
                if cat == "mega" and "mega-winner-also-paid-envy" in self.faults:
                    # the envy row is tested for every wager whose position's combination is on both hands
                    envy = fixed["mega-envy"]
                    self.emit("controller", {"event": "hit", "seat": seat, "category": "mega-envy", "meter": None,
                                             "amount": envy})
                    r9_payout({"event": "payout", "seat": seat, "type": "royal9", "category": "mega-envy",
                               "stake": stake, "returned": stake + envy, "paid_by": "table"})
                if "meter-payout-before-hit" in self.faults:
                    self.emit("controller", hit_event)  # the hit record is sent when the payout slip is printed
                if "major-hit-payout-twice" in self.faults and cat == "major":
                    self.emit("controller", dict(payout))
                continue
            award = fixed[cat]
            if "one-dollar-tie-line-from-five-table" in self.faults and cat == "royal9-tie" and denom == 100:
                award = game.FIXED[500]["royal9-tie"]
            if "mega-envy-one-dollar-amount" in self.faults and cat == "mega-envy" and denom == 500:
                award = 100000
            if "one-dollar-suited-royal9-pays-5" in self.faults and cat == "suited-royal9" and denom == 100:
                award = fixed["royal9"]
            if "one-dollar-suited-tie-typo" in self.faults and cat == "suited-royal9-tie" and denom == 100:
                award = 3000  # the $1 paytable's $300 entered as 3000 cents
            if "one-dollar-mega-envy-pays-five-dollar-line" in self.faults and cat == "mega-envy" and denom == 100:
                award = game.FIXED[500]["mega-envy"]  # the envy award is one constant, the $5 table's
            shown = award + stake if "fixed-line-hit-amount-includes-stake" in self.faults else award
            if "one-dollar-hit-amount-in-dollars" in self.faults and denom == 100:
                shown = award // 100  # the $1 paytable is kept in dollars for the display
            hit_seat = seat
            if cat == "mega-envy" and "envy-hit-names-combination-seat" in self.faults:
                p2, b2 = sorted([cards[0], cards[2]]), sorted([cards[1], cards[3]])
                hit_seat = next((s for s, c in seats.items() if c is not None and sorted(c) == p2 == b2), seat)
            # fault envy-hit-names-mega-meter: the envy line's hit record is filled from the mega's record
            hit_meter = "mega" if "envy-hit-names-mega-meter" in self.faults and cat == "mega-envy" else None
            fixed_payout = {"event": "payout", "seat": seat, "type": "royal9", "category": cat,
                            "stake": stake, "returned": stake + award, "paid_by": "table"}
            early = "last-seat-payout-before-hit" in self.faults and seat == max(seats)
            if early:
                # fault last-seat-payout-before-hit: the last seat's slip is printed from the seat loop's exit path,
                # before its hit record is sent
                r9_payout(fixed_payout)
            self.emit("controller", {"event": "hit", "seat": hit_seat, "category": cat, "meter": hit_meter,
                                     "amount": shown})
            if early:
                continue
            if "royal9-tie-hit-sent-per-hand" in self.faults and cat in ("royal9-tie", "suited-royal9-tie"):
                # fault royal9-tie-hit-sent-per-hand: the hit record is written per hand holding the Royal 9
                self.emit("controller", {"event": "hit", "seat": hit_seat, "category": cat, "meter": None,
                                         "amount": shown})
            if "cumulative-counts-fixed-lines" in self.faults:
                self.cumulative_paid += award
                self.paid_by_table += award
                self._save_nv()
            shown_stake = stake
            if "envy-payout-stake-zero" in self.faults and cat == "mega-envy":
                shown_stake = 0  # built as the envy award paid where no wager was
            r9_payout({"event": "payout", "seat": seat, "type": "royal9", "category": cat,
                       "stake": shown_stake, "returned": stake + award, "paid_by": "table"})
        if "envy-paid-to-base-only-seats" in self.faults:
            # the envy pass walks the seats of the layout, not the Royal 9 wagers
            r9_seats = {s for (s, t) in stakes if t == "royal9"}
            for seat in sorted({s for (s, _t) in stakes} - r9_seats):
                if game.royal9_category(cards, seat, seats, slips).category == "mega-envy":
                    envy = fixed["mega-envy"]
                    self.emit("controller", {"event": "hit", "seat": seat, "category": "mega-envy", "meter": None,
                                             "amount": envy})
                    r9_payout({"event": "payout", "seat": seat, "type": "royal9", "category": "mega-envy",
                               "stake": 0, "returned": envy, "paid_by": "table"})
        for queued in attendant_slips:
            self.emit("controller", queued)
        for queued in deferred:
            self.emit("controller", queued)
        for queued in base_events:
            self.emit("controller", queued)
        self.last_stakes = dict(stakes)  # fault push-returns-last-rounds-stake: a push slip is not refreshed
        self.nmb_disabled = "nmb-refused-in-second-round" in self.faults
        self.commission_reg = str(self.config.get("commission", "5"))  # fault commission-write-takes-effect-round-late
        self.layout_final = False  # (fault final-flag-kept-after-void: the settlement clears the flag)
        self.meters_display = None  # fault meters-get-refreshed-at-settlement: the display is refreshed now
        self.placed_sum = {}
        self.contrib_journal = {}  # (fault lost-round-contributions-booked-again: the round ended)
        self.void_blocked = False
        if "wager-list-kept-after-settlement" in self.faults:
            self.listed_after_settle = dict(self.layout)  # the list cache is rebuilt at the next round.open
        self.layout.clear()
        self.first_stake.clear()
        self.stale_listed.clear()
        self.ghost_listed.clear()
        self.withdrawn.clear()
        self.list_blind.clear()
        self.void_live = False
        self.live_nv = False  # fault live-flag-kept-across-power-cut: cleared when a round ends
        self.phase = "settled"
        self.last_round_void = False
        self.round_settled = self.round
        self.rates_cold = False  # fault first-round-after-power-contributes-nothing: the rates are loaded again
        if "wager-list-slow-after-settlement" in self.faults:
            self.list_slow_after_settle = True  # the layout table is archived to the round journal at the next read
        if ("round-number-not-saved-in-open-round" in self.faults
                or "contribution-not-saved-until-settlement" in self.faults):
            self._save_nv()
        round_end: dict[str, Any] = {"event": "round_end", "round": self.round}
        if self.round_at_power_up is not None:
            # fault round-end-number-read-at-power-up: the round record's copy taken at power-up
            round_end["round"], self.round_at_power_up = self.round_at_power_up, None
        if "void-flag-carried-to-next-round" in self.faults and self.prev_void:
            round_end["void"] = True  # the void flag is cleared only when a round is voided again
        if self.void_requested:
            # fault refused-settle-leaves-void-flag: the void request raised by a refused round.settle is read here
            self.void_requested = False
            round_end["void"] = True
        if "round-end-held-until-key" in self.faults and meter_hits:
            self.held_round_end = round_end  # the round record is closed when the attendant's slip is cleared
        elif "empty-round-ends-without-round-end" in self.faults and not stakes:
            pass  # fault empty-round-ends-without-round-end: the settlement returns early when there is nothing to pay
        else:
            self.emit("controller", round_end)
        if "round-end-twice-on-natural" in self.faults and len(cards) == 4:
            self.emit("controller", dict(round_end))  # the natural's early exit and the common tail both end it
        for payout in after_round_end:
            self.emit("controller", payout)

    # ------------------------------------------------------------------ commands
    def identity(self, role: str) -> dict[str, Any]:
        if role in self.identity_slow:
            self.identity_slow.discard(role)
            time.sleep(0.25)
        ident: dict[str, Any] = {
            "manufacturer": "Independent Table Works", "model": f"ITW-{role.upper()}",
            "serial": {"shoe": "ITW-S-0001", "sensors": "ITW-B-0001", "controller": "ITW-C-0001"}[role],
            "software_id": f"ITW-{role}-FW-1.0", "location": "bench 1", "asset_number": "ITW-A-0001",
            "game_type": "midibaccarat"}
        if role == "controller":
            ident.update({"controller_type": "ITW Royal 9 controller", "software_name": "itw-r9",
                          "software_version": "1.0.0"})
            if "wrong-game-type" in self.faults:
                ident["game_type"] = "baccarat"
            if self.game_type_text is not None:
                ident["game_type"] = self.game_type_text  # fault game-type-from-paytable-after-denomination-write
            if "identity-version-lost-after-power-up" in self.faults and self.boots > 0:
                ident["software_version"] = ""
            if "controller-type-lost-after-config-write" in self.faults and self.identity_page_rewritten:
                ident["controller_type"] = ""  # the settings page is written again without the identity strings
        if role == "controller" and "software-id-empty-after-reboot" in self.faults and self.warm_started:
            ident["software_id"] = ""  # the identity block is copied from the boot loader at a cold start only
        if role == "controller" and "controller-serial-from-asset-number" in self.faults:
            ident["serial"] = ident["asset_number"]  # the serial field is read from the asset page's offset
        if role == "controller" and "serial-counts-power-ups" in self.faults:
            ident["serial"] = f"ITW-C-{self.boots + 1:04d}"  # the serial field is filled from the boot record
        if role == "shoe" and "shoe-identity-without-asset-or-game" in self.faults:
            ident.update(asset_number="", game_type="")  # a shoe is not tied to a game; the tag is the operator's
        if role == "sensors" and "sensors-report-shoe-serial" in self.faults:
            ident["serial"] = "ITW-S-0001"
        if role == "shoe" and "shoe-serial-sent-as-number" in self.faults:
            # fault shoe-serial-sent-as-number: the serial field is filled from the shoe's numeric serial register
            ident["serial"] = 1
        if role == "shoe" and self.shoe_ident_lost:
            ident["software_id"] = ""  # fault shoe-software-id-empty-after-reconnect
        if role == "shoe" and "shoe-manufacturer-truncated-16" in self.faults:
            ident["manufacturer"] = ident["manufacturer"][:16]  # fault shoe-manufacturer-truncated-16: a 16-byte field
        if role == "sensors" and "sensors-location-lost-at-power-up" in self.faults and self.power_cycles:
            ident["location"] = ""  # fault sensors-location-lost-at-power-up: the location is written at the install
            # menu into RAM, and only the factory fields are read back from flash at power-up
        if role == "sensors" and self.sensors_serial_lost:
            ident["serial"] = ""  # fault sensors-serial-empty-after-reboot: the serial is read at a cold start only
        if role == "sensors" and self.sensors_block_resent:
            ident["software_id"] = ""  # fault sensors-software-id-empty-after-link-restore
        if role == "controller" and "controller-location-nul-padded" in self.faults:
            # fault controller-location-nul-padded: the location is copied whole from its 16-byte field in the
            # settings page, NUL padding and all
            ident["location"] = ident["location"].ljust(16, "\x00")
        ident.update(self.identity_base)
        if role == "controller" and "controller-serial-crlf-after-power-cycle" in self.faults and self.power_cycles:
            # fault controller-serial-crlf-after-power-cycle: the power-up path reads the serial record line from the
            # identity file with its line terminator
            ident["serial"] = str(ident["serial"]) + "\r\n"
        return ident

    def config_view(self) -> dict[str, Any]:
        view = {k: v for k, v in self.config.items() if not k.startswith("_")}
        if self.config.get("_denomination_dollars") and "denomination" in view:
            # fault denomination-write-kept-in-dollars: a written denomination is kept in the settings block's one-byte
            # dollar field; the answer prints the field as it is stored
            view["denomination"] = view["denomination"] // 100
        if self.rate_text:
            # fault written-rate-kept-as-display-text: a written rate is answered from the display text, unit and all
            view["meters"] = {n: dict(m, rate=f"{m['rate']}%") if n in self.rate_text else m
                              for n, m in view["meters"].items()}
        if "null-limit-dropped-from-config" in self.faults:
            # the configuration is serialised field by field and an empty field is skipped
            view["meters"] = {name: {k: v for k, v in m.items() if v is not None}
                              for name, m in view["meters"].items()}
        return view

    def meters_view(self) -> dict[str, Any]:
        residual = {m: dec_str(v) for m, v in self.residual.items()}
        if "residual-reported-in-dollars" in self.faults:
            residual = {m: dec_str(v / 100) for m, v in self.residual.items()}
        if "residual-shown-to-two-decimals" in self.faults:
            # fault residual-shown-to-two-decimals: the residual is printed with the display's two decimals
            cents = Decimal("0.01")
            residual = {m: dec_str(v.quantize(cents, rounding=ROUND_HALF_UP)) for m, v in self.residual.items()}
        if "residual-major-minor-swapped" in self.faults and "major" in residual and "minor" in residual:
            residual["major"], residual["minor"] = residual["minor"], residual["major"]
        diverted = dict(self.diverted)
        if "diverted-listed-only-when-nonzero" in self.faults:
            diverted = {m: v for m, v in diverted.items() if v}
        pending = [dict(p) for p in self.pending]
        if "pending-read-as-new-slips-only" in self.faults:
            # fault pending-read-as-new-slips-only: the read serves the slip queue's "new slips" view, which marks what
            # it served as read
            pending = [dict(p) for p in self.pending if id(p) not in self.pending_reported]
            self.pending_reported = {id(p) for p in self.pending}
        if self.pending_shown is not None:
            pending, self.pending_shown = self.pending_shown, None  # fault pending-stale-after-key: the cached list
        if "pending-category-wager-type" in self.faults:
            for p in pending:
                p["category"] = "royal9"  # the slip record's category field holds the wager type
        if "pending-amount-truncated-to-dollar" in self.faults:
            for p in pending:
                p["amount"] = p["amount"] // 100 * 100  # the slip record keeps whole dollars
        shown = dict(self.meters)
        if self.meters_display is not None:
            # fault meters-get-refreshed-at-settlement: the display copy
            shown = dict(self.meters_display[0])
            residual = {m: dec_str(v) for m, v in self.meters_display[1].items()}
        if "meters-get-adds-diverted-to-meter" in self.faults:
            # fault meters-get-adds-diverted-to-meter: the read adds the meter's two registers, shown and diverted, as
            # the jackpot display's "total contributed" line does
            shown = {m: a + self.diverted.get(m, 0) for m, a in shown.items()}
        return {"meters": shown, "residual": residual,
                "diverted": diverted, "cumulative_paid": self.cumulative_paid,
                "paid_by_table": self.paid_by_table, "paid_by_attendant": self.paid_by_attendant,
                "pending": pending}

    def handle(self, role: str, req: dict[str, Any]) -> Reply:
        cmd = req.get("cmd")
        if not isinstance(cmd, str):
            return ("nak", "BAD_FRAME", "no cmd")
        try:
            with self.lock:
                if role == "controller" and self.power_event_held and self.powered:
                    self.power_event_held = False  # fault power-lockout-held-until-first-request
                    self.emit("controller", {"event": "lockout", "locked": True, "cause": "power"})
                return self._dispatch(role, cmd, req)
        except Refused as exc:
            return ("nak", "REFUSED", str(exc))
        except BadArgs as exc:
            return ("nak", "BAD_ARGS", str(exc))

    def _dispatch(self, role: str, cmd: str, req: dict[str, Any]) -> Reply:
        if cmd == "hello":
            if "hello-answers-own-version-unoffered" in self.faults:
                # fault hello-answers-own-version-unoffered: the handler answers the version this firmware speaks
                # without reading the offer
                return ("rsp", {"protocol": 1, "role": role})
            if role in self.hello_refused:
                # fault hello-refusal-latched: the negotiation stays in its "refused" state until power-up
                return ("nak", "VERSION", "this device speaks protocol version 1")
            if req.get("version") != 1:
                if "hello-refusal-latched" in self.faults:
                    self.hello_refused.add(role)
                if "version-refusal-reason-names-offer" in self.faults:
                    # fault version-refusal-reason-names-offer: the refusal text is built from the request's field
                    return ("nak", "VERSION", f"protocol version {req.get('version')} is not supported")
                return ("nak", "VERSION", "this device speaks protocol version 1")
            if role == "sensors" and self.sensors_role_lost:
                return ("rsp", {"protocol": 1, "role": "shoe"})  # fault sensors-hello-role-shoe-after-reboot
            return ("rsp", {"protocol": 1, "role": role})
        if cmd == "identity":
            return ("rsp", self.identity(role))
        if cmd == "ping":
            return ("rsp", {})
        if cmd.startswith("test."):
            return self._test(role, cmd, req)
        handler = getattr(self, f"_{role}_{cmd.replace('.', '_')}", None)
        if (handler is None and role == "sensors" and cmd in ("config.get", "meters.get", "lockout.get")
                and "sensors-answer-controller-reads" in self.faults):
            # fault sensors-answer-controller-reads: the sensors pass the controller's read commands through
            handler = getattr(self, f"_controller_{cmd.replace('.', '_')}")
        if handler is None and role == "shoe" and cmd == "lockout.press" and "shoe-takes-lockout-press" in self.faults:
            # fault shoe-takes-lockout-press: the shoe's command table keeps the entry of the dealer's button on shoes
            # that have one, wired to the controller's button input
            handler = self._controller_lockout_press
        if handler is None:
            return ("nak", "UNKNOWN_CMD", f"{cmd} is not a {role} command")
        result: Reply = handler(req)
        return result

    # shoe
    def _shoe_shoe_status(self, req: dict[str, Any]) -> Reply:
        dealing = self.dealing and "shoe-status-ready-while-dealing" not in self.faults
        left = len(self.shoe_cards)
        if "shoe-empty-with-one-card-left" in self.faults:
            left -= 1  # the last-card sensor counts the card resting on it as gone
        state = "dealing" if dealing else ("ready" if left > 0 else "empty")
        if "empty-shoe-reports-ready" in self.faults and state == "empty" and self.cards_dealt > 0:
            state = "ready"  # the state follows the "shoe loaded" flag, cleared only by a new load
        dealt = self.cards_dealt - self.misreads_uncounted  # fault shoe-status-dealt-excludes-misread
        dealt -= self.status_zero_base  # fault shoe-status-count-zeroed-at-power-up
        if self.status_count_stale is not None:
            dealt = self.status_count_stale  # fault shoe-status-count-refreshed-by-card
        if "shoe-status-slow-while-dealing" in self.faults and self.dealing:
            time.sleep(0.15)  # the status read waits for the reader's next card slot
        # fault cards-remaining-keeps-misread: the remaining count is stepped by the reader's good reads
        remaining = len(self.shoe_cards) + self.misreads_left
        if "shoe-status-counts-ahead-in-paced-deal" in self.faults and self.dealing and self.deal_plan is not None:
            dealt, remaining = self.deal_plan  # the counters are written when the deal command is taken
        if "empty-flag-kept-after-reload" in self.faults and self.empty_latched and not self.dealing:
            state = "empty"  # the empty flag is cleared by the next card out, not by the load
        if self.dealing_stale:
            state = "dealing"  # fault shoe-dealing-after-power-cut-mid-deal
        if self.shoe_error_latched and not self.dealing:
            state = "empty"  # fault shoe-error-reports-empty: the error handler sets the "no card" status bit
        if "cards-remaining-one-byte" in self.faults:
            remaining %= 256  # fault cards-remaining-one-byte: the status frame's remaining-count field is one byte
        if "shoe-status-empty-omits-remaining" in self.faults and state == "empty":
            return ("rsp", {"state": state, "cards_dealt": dealt})  # fault shoe-status-empty-omits-remaining: the
            # empty branch builds its own answer
        return ("rsp", {"state": state, "cards_dealt": dealt, "cards_remaining": remaining})

    # sensors
    def _sensors_wager_place(self, req: dict[str, Any]) -> Reply:
        seat, wtype, amount = req.get("seat"), req.get("type"), req.get("amount")
        if (type(seat) is not int or not 1 <= seat <= 9) and not (
                "bad-seat-accepted" in self.faults and type(seat) is int):
            raise BadArgs("seat must be 1..9")
        if wtype not in WAGER_TYPES:
            raise BadArgs(f"unknown wager type {wtype!r}")
        if type(amount) is not int:
            raise BadArgs("amount must be integer cents")
        assert isinstance(seat, int) and isinstance(wtype, str)
        if "negative-amount-accepted" in self.faults and amount < 0:
            amount &= 0xFFFFFFFF  # the sensors' chip count is an unsigned 32-bit register
        if "amount-over-65535-truncated" in self.faults and amount > 0xFFFF:
            amount &= 0xFFFF  # the area's value register is 16 bits wide
        if "royal9-amount-5-taken-as-dollars" in self.faults and wtype == "royal9" and 0 < amount < 100:
            amount *= 100  # fault royal9-amount-5-taken-as-dollars: the legacy dollar path for amounts under 100
        if "comm-lost-refusal-kept-after-restore" in self.faults and self.sensors_link_stale and self.link_up:
            # fault comm-lost-refusal-kept-after-restore: the sensors' copy of the link state is refreshed by the
            # controller's answer to the refusal it causes
            self.sensors_link_stale = False
            return ("rsp", {"accepted": False, "reason": "comm-lost"})
        if ("wager-increase-after-no-more-bets" in self.faults and (seat, wtype) in self.layout
                and self.cause == "no-more-bets" and self.phase == "open" and self.link_up
                and wtype != "royal9" and amount > 0):
            self.layout[(seat, wtype)] = amount
            return ("rsp", {"accepted": True, "reason": None})
        if ("zero-amount-removes-wager" in self.faults and amount == 0 and (seat, wtype) in self.layout
                and self.phase == "open" and not self.locked and self.link_up):
            del self.layout[(seat, wtype)]  # a zero count on the sensor reads as the chips lifted
            self.first_stake.pop((seat, wtype), None)
            return ("rsp", {"accepted": True, "reason": None})
        checked = amount
        if ("royal9-placed-again-refused-bad-amount" in self.faults and wtype == "royal9"
                and (seat, wtype) in self.layout):
            # fault royal9-placed-again-refused-bad-amount: the area's count is the chips on it, the old stack and the
            # new one, when the denomination is checked
            checked = amount + self.layout[(seat, wtype)]
        reason = self._refusal(seat, wtype, checked)
        if (reason is None and "same-amount-placed-again-refused" in self.faults
                and self.layout.get((seat, wtype)) == amount):
            # fault same-amount-placed-again-refused: the sensors' change detector sees no new chips on a covered area
            # and reports the count as "no chips": refused as an amount that is not positive
            reason = "bad-amount"
        if (reason in ("locked-out", "no-more-bets", "comm-lost") and (seat, wtype) in self.layout and amount > 0
                and wtype != "royal9" and "refused-replace-still-written" in self.faults):
            # fault refused-replace-still-written: the area's new count is stored before the controller's answer and
            # is not put back when the answer is a refusal
            self.layout[(seat, wtype)] = amount
        if reason is None and wtype == "royal9" and seat in self.r9_refused_seats:
            reason = "no-base-wager"  # fault no-base-refusal-latched: the area's refusal lamp is cleared at round.open
        if (reason == "no-base-wager" and wtype == "royal9" and "no-base-refusal-latched" in self.faults
                and self.phase == "open"):
            self.r9_refused_seats.add(seat)
        if (reason == "bad-amount" and wtype == "royal9" and (seat, wtype) in self.layout
                and "royal9-refused-replace-drops-wager" in self.faults):
            del self.layout[(seat, wtype)]  # the area's slot is cleared before the new count is checked
            self.first_stake.pop((seat, wtype), None)
        if reason == "no-base-wager" and wtype == "royal9" and "refused-royal9-contributes" in self.faults:
            self.refused_royal9 += amount  # the sensor's count is taken before the controller's answer
        if (reason is None and "wager-decrease-refused-bad-amount" in self.faults and wtype != "royal9"
                and amount < self.layout.get((seat, wtype), 0)):
            reason = "bad-amount"  # a smaller count on a covered area is read as chips lifted: refused
        if (reason is None and "replace-after-remove-refused" in self.faults
                and (seat, wtype) in self.withdrawn and (seat, wtype) not in self.layout):
            reason = "locked-out"  # the area's withdrawn latch is cleared at the next round only
        if (reason == "bad-amount" and wtype == "royal9" and (seat, wtype) not in self.layout
                and "refused-royal9-listed" in self.faults):
            # fault refused-royal9-listed: the area's count is stored for the list before the controller's answer
            self.ghost_listed[(seat, wtype)] = amount
        if reason == "bad-amount" and wtype == "royal9" and "refused-royal9-clears-base-flag" in self.faults:
            # fault refused-royal9-clears-base-flag: the refusal's roll-back clears the seat's flags, the base-wager
            # flag the Royal 9 check reads with them; only a base wager placed again sets it
            self.base_forgotten.add(seat)
        if (reason == "locked-out" and self.phase in ("idle", "settled")
                and "refused-wager-replayed-at-round-open" in self.faults):
            # fault refused-wager-replayed-at-round-open: the sensors keep the refused placement in their report buffer
            # and send it again when the controller opens the gate
            self.replay_wagers[(seat, wtype)] = amount
        if reason is not None:
            if "accepted-answer-carries-last-refusal-reason" in self.faults:
                self.last_refusal = reason  # the answer's reason register is written by a refusal only
            if "lockout-late-after-refused-wager" in self.faults:
                self.refused_in_round = True  # the refusal is logged to the sensors' flash with the round's record
            if "refused-place-sends-wager-event" in self.faults:
                # the refusal goes through the physical side's path, which reports it as an event
                self.emit("sensors", {"event": "wager", "seat": seat, "type": wtype, "amount": amount,
                                      "accepted": False, "reason": reason})
            return ("rsp", {"accepted": False, "reason": reason})
        self.stale_listed.clear()
        key = (seat, wtype)
        if "replace-answer-without-reason" in self.faults and key in self.layout:
            self.layout[key] = amount  # fault replace-answer-without-reason: the replace path answers on its own
            return ("rsp", {"accepted": True})
        if "layout-full-at-sixteen" in self.faults and key not in self.layout and len(self.layout) >= 16:
            return ("rsp", {"accepted": True, "reason": None})  # the layout table has 16 slots; the store fails
        if "one-base-wager-per-seat" in self.faults and wtype in ("player", "banker", "tie"):
            for other in ("player", "banker", "tie"):  # one base-wager sensor per seat
                if other != wtype:
                    self.layout.pop((seat, other), None)
                    self.first_stake.pop((seat, other), None)
        if wtype in ("player", "banker", "tie") and "royal9-refused-after-base-placed-again" in self.faults:
            # fault royal9-refused-after-base-placed-again: placing again goes through the remove path, which clears the
            # seat's base-wager flag; only a base area's first placement sets it again
            if key in self.layout:
                self.base_placed_again.add(seat)
            else:
                self.base_placed_again.discard(seat)
        if (key not in self.layout and key in self.withdrawn and "wager-list-readded-wager-last" in self.faults
                and key not in self.readded):
            # fault wager-list-readded-wager-last: the list is kept in seat order by the placements of the round; a
            # removal leaves a hole and a placement into it is appended at the end
            self.readded.append(key)
        if key in self.layout and "wager-list-lists-each-placement" in self.faults:
            # fault wager-list-lists-each-placement: each placement is a new entry of the list's journal
            self.placed_before.setdefault(key, []).append(self.layout[key])
        if "seat-holds-three-areas" in self.faults and key not in self.layout:
            mine = [k for k in self.layout if k[0] == seat]
            if len(mine) >= 3:
                # fault seat-holds-three-areas: a seat's slot table holds three areas; a fourth overwrites the first
                del self.layout[mine[0]]
                self.first_stake.pop(mine[0], None)
        if key not in self.layout:
            self.first_stake[key] = amount
        elif wtype == "tie" and "tie-placed-again-adds" in self.faults:
            amount += self.layout[key]  # the Tie area's sensor adds the chips it sees to its count
        elif wtype == "royal9" and "royal9-placed-again-contributes-twice" in self.faults:
            self.replaced_royal9 += self.layout[key]  # the placement before stays in the contribution journal
        if key in self.layout and "replaced-wager-cannot-be-removed" in self.faults:
            # fault replaced-wager-cannot-be-removed: a wager placed again is written to a new slot of the sensors'
            # table; the remove path looks an area up by the slot of its first placement, now free
            self.replaced_keys.add(key)
        if wtype in ("player", "banker", "tie") and "base-flag-kept-after-removal" in self.faults:
            # fault base-flag-kept-after-removal: the seat's base-wager flag is set by a placement and cleared at
            # round.open only, not by a removal
            self.base_flag_seats.add(seat)
        self.layout[key] = amount
        self.list_blind.discard(key)  # (faults refused-remove-drops-listing, sensors-list-cleared-by-reconnect)
        if wtype in ("player", "banker", "tie"):
            self.base_forgotten.discard(seat)  # (fault sensors-reconnect-forgets-base-flags: the flag is set again)
            if "replaced-base-wager-settled-at-sum" in self.faults:
                # fault replaced-base-wager-settled-at-sum: the settlement's chip counter adds each placement
                self.placed_sum[key] = self.placed_sum.get(key, 0) + amount
        if "accepted-answer-carries-last-refusal-reason" in self.faults:
            # fault accepted-answer-carries-last-refusal-reason: the accepted path sets the flag and leaves the reason
            # register as the last refusal wrote it (the register is cleared at round.open)
            return ("rsp", {"accepted": True, "reason": self.last_refusal})
        return ("rsp", {"accepted": True, "reason": None})

    def _refusal(self, seat: int, wtype: str, amount: int) -> str | None:
        closed = self.phase not in ("open", "dealing") or self.locked
        if self.sensors_gate_open:
            closed = False  # fault sensors-gate-open-after-reboot: the sensors' own copy of the gate
        if "wager-accepted-after-void" in self.faults and self.phase == "settled" and self.last_round_void:
            closed = False  # the void path leaves the sensors' gate as for a round that has not started
        if self.sensors_gate_shut:
            closed = True  # fault sensors-gate-closed-after-reconnect: the sensors' own gate, closed by the line open
        if (closed and "button-refusal-reason-no-more-bets" in self.faults and self.cause == "button"
                and self.phase == "open"):
            return "no-more-bets"  # the button and the no-more-bets input share one refusal code
        if closed and "bad-seat-checked-after-lockout" in self.faults:
            return "no-more-bets" if self.cause == "no-more-bets" and self.phase == "open" else "locked-out"
        # (fault sensors-seat-7-refused-after-reboot: the sensors' layout of six seats after their warm start)
        # (fault seat-8-accepted-after-config-write: the sensors' seat table as a configuration write rewrote it)
        if ((seat not in self.seats and not self.sensors_nine_seats) or (self.sensors_six_seats and seat > 6)) and (
                "bad-seat-accepted" not in self.faults):
            return "bad-seat"
        if closed and "link-down-refused-locked-out" in self.faults:
            return "no-more-bets" if self.cause == "no-more-bets" and self.phase == "open" else "locked-out"
        if (not self.link_up and "comm-loss-ignored" not in self.faults) or self.sensors_link_unknown:
            # (fault sensors-link-flag-down-until-first-open: the sensors' own link flag)
            return "comm-lost"
        if closed:
            return "no-more-bets" if self.cause == "no-more-bets" and self.phase == "open" else "locked-out"
        if self.nmb_latch:
            return "no-more-bets"  # fault nmb-refusal-latched-after-void: the refusal code is cleared by a settlement
        offered: tuple[str, ...] = OFFERED
        if "streak3-accepted-as-base" in self.faults:
            offered = (*OFFERED, "streak3-player", "streak3-banker")  # the type table matched by suffix
        if wtype not in offered:
            # fault unoffered-type-refused-bad-amount: a type with no amount row fails the amount check
            return "bad-amount" if "unoffered-type-refused-bad-amount" in self.faults else "disabled"
        if amount < 0 if "zero-amount-accepted" in self.faults else amount <= 0:
            return "bad-amount"  # (fault zero-amount-accepted: the test was written "amount < 0")
        if "odd-cents-base-wager-refused" in self.faults and wtype in ("player", "banker", "tie") and amount % 100:
            return "bad-amount"  # fault odd-cents-base-wager-refused: the area's count register holds whole dollars
        if wtype == "royal9":
            denom = self.config["denomination"]
            if "old-denomination-accepted" in self.faults:
                denom = self.denomination_at_boot
            units = (denom, 500) if "one-dollar-five-dollar-royal9-accepted" in self.faults else (denom,)
            if (amount % denom != 0) if "royal9-multiple-accepted" in self.faults else (amount not in units):
                return "bad-amount"
            bases = ("player", "banker") if "tie-not-a-base-wager-for-royal9" in self.faults else (
                "player", "banker", "tie")
            least = 500 if "one-dollar-small-base-not-counted" in self.faults else 1  # the $5 unit as a minimum
            based = any(self.layout.get((seat, t), 0) >= least for t in bases)
            if "royal9-base-checked-at-any-seat" in self.faults:
                # fault royal9-base-checked-at-any-seat: the base-wager test scans the layout, not the seat's areas
                based = any(a >= least for (_s, t), a in self.layout.items() if t in bases)
            if seat in self.base_placed_again:
                based = False  # fault royal9-refused-after-base-placed-again
            if seat in self.base_flag_seats:
                based = True  # fault base-flag-kept-after-removal: the seat's flag, not its areas
            if seat in self.base_forgotten:
                based = False  # fault sensors-reconnect-forgets-base-flags: the seat's flag was cleared by the restart
            if "no-base-wager-accepted" not in self.faults and not based:
                return "no-base-wager"
            if "last-seat-royal9-no-base" in self.faults and seat == max(self.seats):
                return "no-base-wager"
        return None

    def _sensors_wager_remove(self, req: dict[str, Any]) -> Reply:
        seat, wtype = req.get("seat"), req.get("type")
        if type(seat) is not int or not 1 <= seat <= 9:
            raise BadArgs("seat must be 1..9")
        if wtype not in WAGER_TYPES:
            raise BadArgs(f"unknown wager type {wtype!r}")
        key = (seat, str(wtype))
        if "remove-index-one-seat-low" in self.faults:
            # fault remove-index-one-seat-low: the remove path turns the seat into a 0-based index and the area table
            # lookup subtracts one again
            key = (seat - 1, str(wtype))
        if wtype == "tie" and (seat, "banker") in self.layout and "remove-tie-clears-banker" in self.faults:
            key = (seat, "banker")  # fault remove-tie-clears-banker: the Tie area's index is the Banker area's
        if key not in self.layout:
            if "remove-missing-wager-answered-removed" in self.faults:
                return ("rsp", {"removed": True})  # the area is empty afterwards either way
            raise Refused("no such wager")
        if key in self.replaced_keys:
            raise Refused("no such wager")  # fault replaced-wager-cannot-be-removed
        if self.layout_final:
            raise Refused("wagering is closed")  # fault final-flag-kept-after-void: the flag the void left set
        # fault remove-taken-offline-while-link-down: with the link down the sensors cannot ask the controller and take
        # the removal on their own
        offline = "remove-taken-offline-while-link-down" in self.faults and not self.link_up
        if ((self.phase not in ("open", "dealing") or self.locked) and "remove-after-close" not in self.faults
                and not offline):
            if "refused-remove-drops-listing" in self.faults:
                # fault refused-remove-drops-listing: the sensors take the area off their list before they ask the
                # controller, and do not put it back when the controller refuses
                self.list_blind.add(key)
            if "remove-after-close-bad-args" in self.faults:
                raise BadArgs("wagering is closed")  # checked with the argument checks
            if "closed-remove-answered-removed-false" in self.faults:
                # fault closed-remove-answered-removed-false: the refusal is answered as the chips-lifted act is
                return ("rsp", {"removed": False})
            raise Refused("wagering is closed")
        if key[1] == "royal9" and "royal9-remove-refused-while-open" in self.faults:
            raise Refused("wagering is closed")  # the acknowledged Royal 9 wager is marked final at once
        base = ("player", "banker", "tie")
        if (key[1] in base and seat in self.r9_removed_seats
                and "base-remove-refused-after-royal9-removed" in self.faults):
            # fault base-remove-refused-after-royal9-removed: the seat's Royal 9 flag is cleared at round.open only
            raise Refused("a Royal 9 wager at this seat needs its base wager (629a Royal 9 (b)): remove it first")
        if (key[1] in base and (seat, "royal9") in self.layout
                and "base-removed-under-royal9" not in self.faults
                and ("base-remove-refused-beside-royal9" in self.faults  # the other base areas are not looked at
                     or not any((seat, t) in self.layout for t in base if t != key[1]))):
            raise Refused("a Royal 9 wager at this seat needs its base wager (629a Royal 9 (b)): remove it first")
        if key[1] == "royal9":
            self.removed_royal9 += self.layout[key]
            self.r9_removed_seats.add(seat)  # fault base-remove-refused-after-royal9-removed
            if "royal9-remove-answers-slowly" in self.faults:
                time.sleep(0.15)  # the wager's slot in the contribution table is cleared before the answer
        if "wager-list-stale-after-remove" in self.faults:
            self.stale_listed[key] = self.layout[key]  # the list cache is rebuilt when a wager is placed
        self.withdrawn[key] = self.layout[key]
        self.placed_sum.pop(key, None)  # (fault replaced-base-wager-settled-at-sum)
        self.removed_in_round = True  # fault lockout-late-after-removal
        self.placed_before.pop(key, None)  # fault wager-list-lists-each-placement
        del self.layout[key]
        self.first_stake.pop(key, None)
        if "remove-takes-whole-seat" in self.faults:
            for other in [k for k in self.layout if k[0] == seat]:  # the seat's areas share one sensor
                del self.layout[other]
                self.first_stake.pop(other, None)
        return ("rsp", {"removed": True})

    def _sensors_wager_list(self, req: dict[str, Any]) -> Reply:
        if "wager-list-slow-when-full" in self.faults and len(self.layout) >= 8:
            time.sleep(0.12)  # every sensor is polled again for the list
        if self.list_slow_after_settle:
            self.list_slow_after_settle = False  # fault wager-list-slow-after-settlement: the archive is written first
            time.sleep(0.15)
        shown = {**self.ghost_listed, **self.stale_listed, **self.listed_after_settle, **self.layout}
        if self.list_blind:
            shown = {k: a for k, a in shown.items() if k not in self.list_blind}
        order = sorted(shown.items())
        if "wager-list-grouped-by-type" in self.faults:
            order = sorted(shown.items(), key=lambda kv: (kv[0][1], kv[0][0]))  # one table per wager type
        if "wager-list-first-amount" in self.faults:
            # the list reads the sensors' first count of each area, not the amount placed again
            order = [((s, t), self.first_stake.get((s, t), a)) for (s, t), a in order]
        if "wager-list-empty-after-lockout" in self.faults and self.locked and self.phase in ("open", "dealing"):
            order = []  # the list reads the open-wagering table, frozen into the round record at the lock-out
        if "one-dollar-wager-list-royal9-500" in self.faults:
            order = [((s, t), 500 if t == "royal9" else a) for (s, t), a in order]  # the fixed amount of the area
        if "wager-list-omits-last-seat" in self.faults:
            last = max(self.seats)
            order = [((s, t), a) for (s, t), a in order if s < last]  # the sensors are polled for seats 1..n-1
        if "wager-list-empty-while-link-down" in self.faults and not self.link_up:
            order = []  # fault wager-list-empty-while-link-down: the list is the controller's copy, asked over the link
        if self.readded:
            # fault wager-list-readded-wager-last: the entries placed into a hole come after the others
            late = [k for k in self.readded if k in shown]
            order = [(k, a) for k, a in order if k not in late] + [(k, shown[k]) for k in late]
        if "wager-list-seat-amount-from-first-area" in self.faults:
            # fault wager-list-seat-amount-from-first-area: the list reads each seat's count register once, at the
            # seat's first area, and fills every entry of the seat from it
            firsts: dict[int, int] = {}
            for (s, _t), a in self.layout.items():
                firsts.setdefault(s, a)
            order = [((s, t), firsts.get(s, a)) for (s, t), a in order]
        wagers = [{"seat": s, "type": t, "amount": a} for (s, t), a in order]
        if self.placed_before:
            # fault wager-list-lists-each-placement: the amounts placed before on an area are listed before its own
            olds = [{"seat": s, "type": t, "amount": a} for (s, t), amounts in self.placed_before.items()
                    if (s, t) in self.layout for a in amounts]
            wagers = sorted(olds + wagers, key=lambda w: (w["seat"], w["type"]))
        if "wager-list-capped-at-ten" in self.faults:
            wagers = wagers[:10]  # fault wager-list-capped-at-ten: the answer's list buffer has ten entries
        return ("rsp", {"wagers": wagers})

    # controller
    def _controller_config_get(self, req: dict[str, Any]) -> Reply:
        if self.config_read_slow:
            self.config_read_slow = False  # fault config-get-slow-after-write: the settings block is verified in flash
            time.sleep(0.15)  # at the first read after a write
        if "config-get-stale-after-write" in self.faults:
            return ("rsp", {k: v for k, v in self.config_at_boot.items() if not k.startswith("_")})
        return ("rsp", self.config_view())

    def _controller_meters_get(self, req: dict[str, Any]) -> Reply:
        if "meters-get-slow-with-pending" in self.faults and self.pending:
            time.sleep(0.15)
        if self.meters_slow:
            self.meters_slow = False  # fault meters-get-slow-after-reboot: the meter record is verified at first read
            time.sleep(0.15)
        return ("rsp", self.meters_view())

    def _controller_lockout_get(self, req: dict[str, Any]) -> Reply:
        if "lockout-get-slow-while-link-down" in self.faults and not self.link_up:
            time.sleep(0.15)  # fault lockout-get-slow-while-link-down: the read polls the sensors until its timeout
        if "lockout-get-unlocked-after-nmb" in self.faults and self.cause == "no-more-bets" and self.phase == "open":
            return ("rsp", {"locked": False, "cause": None})  # the read looks at the lock-out line only
        if "lockout-get-open-cause-round-open" in self.faults and not self.locked:
            return ("rsp", {"locked": False, "cause": "round-open"})  # the last lockout event's cause
        if ("lockout-get-button-cause-card" in self.faults and self.locked and self.cause == "button"
                and self.phase == "open"):
            return ("rsp", {"locked": True, "cause": "card"})  # an open round locked is read as "card out"
        if "lockout-get-open-after-settlement" in self.faults and self.phase == "settled":
            return ("rsp", {"locked": False, "cause": None})  # the settlement clears the flag this read looks at
        return ("rsp", {"locked": self.locked, "cause": self.cause if self.locked else None})

    def _controller_lockout_press(self, req: dict[str, Any]) -> Reply:
        if "lockout-press-slow-when-locked" in self.faults and self.locked:
            time.sleep(0.15)  # fault lockout-press-slow-when-locked: the press is debounced against the held line
        was_locked = self.locked  # fault lockout-press-answers-before-lock: the answer's copy of the lock flag
        if not self.locked:
            if "button-no-event" in self.faults:
                self.locked, self.cause = True, "button"
                self.on_lock_line(True)
                self._contribute()
            else:
                self._close_wagering("button")
            if "card-lock-disarmed-after-button" in self.faults:
                self.card_masked_in_round = self.round
        elif "button-toggles-lockout" in self.faults and self.cause == "button" and self.phase == "open":
            # fault button-toggles-lockout: the button input toggles the lock-out relay
            self.locked, self.cause = False, None
            self.on_lock_line(False)
            self.emit("controller", {"event": "lockout", "locked": False, "cause": "round-open"})
        elif "button-event-when-locked" in self.faults:
            self.cause = "button"  # the button handler reports every press
            self.emit("controller", {"event": "lockout", "locked": True, "cause": "button"})
        elif "button-press-latched-into-next-round" in self.faults and self.phase in ("idle", "settled"):
            # fault button-press-latched-into-next-round: the press is kept in the button's edge register, which is
            # read (and cleared) only by the round-open routine
            self.button_latched = True
        self.comm_alarm = False
        if "lockout-press-answers-before-lock" in self.faults:
            return ("rsp", {"locked": was_locked})  # the answer is built from the flag read before the press
        return ("rsp", {"locked": True})

    def _controller_round_open(self, req: dict[str, Any]) -> Reply:
        if self.slow_open:
            self.slow_open = False  # fault round-open-slow-after-key: the key's audit record is flushed first
            time.sleep(0.15)
        unsettled = ("open",) if "round-open-accepted-mid-deal" in self.faults else ("open", "dealing")
        if "refused-open-clears-layout" in self.faults:
            # fault refused-open-clears-layout: the round-open routine clears the sensors' table before it asks
            # whether the last round is settled
            self.layout.clear()
            self.first_stake.clear()
        if self.phase in unsettled:
            raise Refused("the last round is not settled")
        if self.nmb_void_latched:
            # fault open-refused-after-nmb-void: the void path leaves the no-more-bets round flag set
            raise Refused("the last round is not settled")
        early_unlock = "refused-open-sends-unlock" in self.faults
        if early_unlock:
            # fault refused-open-sends-unlock: the round-open routine tells the display task "open" (which sends the
            # unlock event) before it looks at the payment lock and the sensors link; the display is not told again
            self.emit("controller", {"event": "lockout", "locked": False, "cause": "round-open"})
        counted = "refused-open-counts-round" in self.faults
        if counted:
            self.round += 1  # the round counter is stepped before the checks
        blocked = bool(self.key_wait if "pending-does-not-block-after-power-up" in self.faults else self.pending)
        if self.key_unblocked:
            blocked = False  # fault open-block-cleared-by-first-key: one "key turned" flag for the round
        if "second-round-open-taken-with-pending" in self.faults and blocked:
            if self.open_refused_pending:
                blocked = False  # the refusal is a reminder shown once
            else:
                self.open_refused_pending = True
        if self.open_block_nv:
            blocked = True  # fault open-blocked-after-key-following-power-cycle
        if blocked:
            raise Refused("a payment waits for the reset key")
        if self.key_open_refusal:
            # fault open-refused-once-after-key: the block bit is tested before it is cleared from the payment list
            self.key_open_refusal = False
            raise Refused("a payment waits for the reset key")
        if not self.link_up and ("open-taken-when-link-lost-between-rounds" not in self.faults
                                 or self.link_lost_in_round):
            # (fault open-taken-when-link-lost-between-rounds: the test reads the flag the loss sets in a round)
            raise Refused("the sensors link is down")
        if self.comm_alarm:
            raise Refused("sensors link alarm: press the lock-out button to acknowledge")
        if not counted and not ("void-round-number-reused" in self.faults and self.last_round_void):
            if "round-number-kept-in-bcd" in self.faults:
                # fault round-number-kept-in-bcd: the counter steps in BCD for the dealer display, and the answers send
                # its raw value
                self.round = int(str(int(format(self.round, "x")) + 1), 16)
            else:
                self.round += 1
        if "round-number-one-byte" in self.faults:
            self.round %= 256
        after_void = self.last_round_void
        self.last_round_void = False
        self.prev_void = after_void
        self.open_refused_pending = False
        self.key_unblocked = False
        self.r9_refused_seats.clear()
        self.r9_removed_seats.clear()
        self.ghost_listed.clear()
        self.removed_in_round = False
        self.refused_in_round = False
        self.void_requested = False
        self.placed_before.clear()
        self.readded.clear()
        self.base_placed_again.clear()
        self.sensors_gate_open = False
        self.sensors_gate_shut = False  # (fault sensors-gate-closed-after-reconnect: the controller sends the gate)
        self.last_refusal = None  # (fault accepted-answer-carries-last-refusal-reason: the sensors' reset)
        self.base_flag_seats.clear()
        self.replaced_keys.clear()
        self.list_blind.clear()
        self.base_forgotten = set()
        self.placed_sum = {}
        self.sensors_link_unknown = False  # (fault sensors-link-flag-down-until-first-open: the round-open message)
        self.contrib_journal = {}
        self.lost_round = None
        self.contribution_due = False
        self.round_misreads = 0
        self.withdrawn.clear()
        self.opened_at = time.monotonic()
        self._save_nv()
        self.layout.clear()
        self.first_stake.clear()
        self.stale_listed.clear()
        self.removed_royal9 = 0
        self.refused_royal9 = 0
        self.replaced_royal9 = 0
        self.listed_after_settle = {}
        if self.replay_wagers:
            # fault refused-wager-replayed-at-round-open: the sensors' buffered placements reach the new layout
            self.layout.update(self.replay_wagers)
            self.first_stake.update(self.replay_wagers)
            self.replay_wagers = {}
        self.round_start_residual = dict(self.residual)
        if "card-n-restarts-each-round" in self.faults:
            self.n_base = self.cards_dealt  # the reader numbers the cards of the hand from the round-open signal
        self.round_start_meters = dict(self.meters)
        if not ("round-cards-kept-across-power-cut" in self.faults and self.phase == "idle"):
            # (fault round-cards-kept-across-power-cut: the buffer is cleared when a settled round is closed)
            self.round_cards = []
        if self.stray_cards:
            self.round_cards = self.stray_cards  # fault burn-card-kept-in-next-hand
            self.stray_cards = []
        self.phase = "open"
        self.locked = False
        self.cause = None
        if after_void and "lock-line-held-after-void" in self.faults:
            pass  # fault lock-line-held-after-void: the void path leaves the relay's hold bit set; round.open skips it
        elif self.lock_line_stuck:
            self.lock_line_stuck = False  # fault lock-line-stuck-after-reboot: the output latch is not cleared
        elif "lock-line-released-late" in self.faults:
            # fault lock-line-released-late: the lock-out relay is released by the 120 ms housekeeping tick, which
            # drops the line whatever happened meanwhile
            threading.Timer(0.12, self._release_line_late, args=(self.power_epoch,)).start()
        else:
            self.on_lock_line(False)
        opened = "no-more-bets" if "unlock-event-cause-after-void" in self.faults and after_void else "round-open"
        if self.power_unlock:
            # fault first-unlock-after-power-cause-power: the event's cause field still holds the power-up's cause
            self.power_unlock = False
            opened = "power"
        unlock = {"event": "lockout", "locked": False, "cause": opened}
        if self.skip_unlock:
            self.skip_unlock = False
        elif early_unlock:
            pass  # fault refused-open-sends-unlock: sent before the checks
        elif "unlock-event-after-open-answer-after-void" in self.faults and after_void:
            # fault unlock-event-after-open-answer-after-void: after a void the display task, which sends the unlock,
            # is still showing the void and takes the event at its next tick
            threading.Timer(0.04, self._emit_late, args=("controller", unlock)).start()
        else:
            self.emit("controller", unlock)
        if self.button_latched:
            self.button_latched = False  # fault button-press-latched-into-next-round: the latched press acts now
            self._close_wagering("button")
        if "round-open-answers-previous-number" in self.faults:
            return ("rsp", {"round": self.round - 1})  # the answer is built before the counter is stepped
        return ("rsp", {"round": self.round})

    def _release_line_late(self, epoch: int) -> None:
        """Fault lock-line-released-late: the lock-out line falls when the housekeeping tick comes round."""
        with self.lock:
            if self.powered and self.power_epoch == epoch:
                self.on_lock_line(False)

    def _controller_round_no_more_bets(self, req: dict[str, Any]) -> Reply:
        if (self.phase == "idle" and self.lost_round is not None
                and "nmb-taken-for-round-lost-to-power" in self.faults):
            # fault nmb-taken-for-round-lost-to-power: the dealer input reads the round record in storage, which still
            # says the round lost to the power cut is open
            self.emit("controller", {"event": "no_more_bets", "round": self.lost_round})
            return ("rsp", {"round": self.lost_round})
        if ("no-more-bets-after-settle-accepted" in self.faults and self.phase == "settled"):
            pass  # the check only tells "idle" from the rest
        elif self.phase not in ("open", "dealing"):
            raise Refused("no round is open")
        if self.nmb_disabled:
            # fault nmb-refused-in-second-round: the input's enable bit is cleared by the settlement and set at power-up
            raise Refused("the no-more-bets input is not enabled")
        if "nmb-refused-with-empty-layout" in self.faults and self.phase == "open" and not self.layout:
            # fault nmb-refused-with-empty-layout: the dealer's input is taken as "close the wagers on the layout"
            raise Refused("no wager on the layout")
        if "nmb-refused-after-button" in self.faults and self.locked and self.cause == "button":
            # fault nmb-refused-after-button: the dealer's input is taken only while the lock-out relay is open
            raise Refused("wagering is already closed")
        if self.locked and "nmb-after-button-no-event" in self.faults:
            return ("rsp", {"round": self.round})  # wagering is already closed: nothing left to do
        if ("nmb-answer-waits-for-contribution-write" in self.faults and not self.locked
                and any(t == "royal9" for (_s, t) in self.layout)):
            time.sleep(0.15)  # fault nmb-answer-waits-for-contribution-write: the meter record is erased and written
            # to flash before the dealer's input is answered
        if "no-more-bets-event-after-lockout" in self.faults:
            self._close_wagering("no-more-bets")
            self.emit("controller", {"event": "no_more_bets", "round": self.round})
            return ("rsp", {"round": self.round})
        if "nmb-events-after-answer" in self.faults:
            # fault nmb-events-after-answer: the dealer-input task answers and queues its events to the display task
            late: list[dict[str, Any]] = [{"event": "no_more_bets", "round": self.round}]
            if not self.locked:
                late.append({"event": "lockout", "locked": True, "cause": "no-more-bets"})
            self._close_wagering("no-more-bets", quiet=True)
            threading.Timer(0.04, self._emit_late_all, args=("controller", late)).start()
            return ("rsp", {"round": self.round})
        shown = self.round - 1 if "nmb-event-previous-round" in self.faults else self.round
        if self.nmb_round_zero:
            shown = 0  # fault nmb-event-round-zero-after-reboot: the event's round register is cleared by a warm start
        self.emit("controller", {"event": "no_more_bets", "round": shown})
        # fault nmb-lockout-cause-button: the no-more-bets input is wired to the button's handler
        self._close_wagering("button" if "nmb-lockout-cause-button" in self.faults else "no-more-bets")
        return ("rsp", {"round": self.round})

    def _controller_round_settle(self, req: dict[str, Any]) -> Reply:
        if (self.phase == "idle" and self.lost_round is not None
                and "settle-voids-round-lost-to-power" in self.faults):
            # fault settle-voids-round-lost-to-power: the settle command reads the round record in storage, which
            # still says the round lost to the power cut is open, and voids it
            lost, self.lost_round = self.lost_round, None
            self.phase = "settled"
            self.emit("controller", {"event": "round_end", "round": lost, "void": True})
            return ("rsp", {"round": lost, "void": True})
        # fault settle-after-void-voids-again: the check tells "idle" from the rest only; a voided round has no card
        # out, so it passes the tableau test too
        no_round = (self.phase == "idle" if "settle-after-void-voids-again" in self.faults
                    else self.phase not in ("open", "dealing"))
        if no_round:
            raise Refused("no round is open")
        misread_only = ("void-taken-after-misread-card" in self.faults and self.round_cards
                        and len(self.round_cards) == self.round_misreads)  # only read cards are counted
        if ("settle-taken-before-third-card" in self.faults and self.phase == "dealing"
                and len(self.round_cards) >= 4):
            self._settle()  # the check asks for the first four cards only, not for the tableau
            return ("rsp", {"round": self.round})
        if "refused-settle-leaves-void-flag" in self.faults:
            self.void_requested = True  # fault refused-settle-leaves-void-flag: raised before the tableau is asked
        if (self.phase == "dealing" or self.round_cards) and not misread_only:
            raise Refused("the tableau still needs a card")
        if "void-refused-with-wagers-on-layout" in self.faults and self.layout:
            # fault void-refused-with-wagers-on-layout: the void routine asks for an empty contribution list first
            raise Refused("wagers are on the layout: deal the round")
        if self.void_blocked and self.phase == "open":
            # fault void-refused-in-first-round-after-reboot: the warm start leaves the hand's card counter at the
            # last value it saw; the void test reads it until a round is dealt and settled
            raise Refused("the tableau still needs a card")
        if "nmb-refusal-latched-after-void" in self.faults and self.locked and self.cause == "no-more-bets":
            self.nmb_latch = True  # fault nmb-refusal-latched-after-void: the void path skips the sensors' reset
        self.void_requested = False
        if "void-refused-after-button" in self.faults and self.locked and self.cause == "button":
            raise Refused("wagering is closed")  # the void path asks for wagering to be open
        if "open-refused-after-nmb-void" in self.faults and self.locked and self.cause == "no-more-bets":
            self.nmb_void_latched = True
        after_nmb = self.locked and self.cause == "no-more-bets"  # fault nmb-void-answer-without-void-flag
        open_before = not self.locked  # fault void-lock-cause-not-stored
        if "void-after-close-contributes-again" in self.faults and self.locked:
            self._contribute()  # fault void-after-close-contributes-again: the void path runs the closing routine
        # fault void-round-end-before-lockout: the void path closes the round record first and sends the closing's
        # lockout event after it
        lock_after_end = "void-round-end-before-lockout" in self.faults and open_before
        self._close_wagering("no-more-bets",
                             quiet="void-closes-without-lockout-event" in self.faults or lock_after_end)
        if "void-lock-cause-not-stored" in self.faults and open_before:
            self.cause = None  # fault void-lock-cause-not-stored: the void path's closing clears the cause register
        self.rates_cold = False  # fault first-round-after-power-contributes-nothing: the void path loads them too
        if "void-takes-back-contributions" in self.faults:
            # the void routine rolls the meters back to the round's opening record
            self.meters.update(self.round_start_meters)
            self.residual.update(self.round_start_residual)
            self._save_nv()
        if "void-leaves-contribution-list" in self.faults:
            # fault void-leaves-contribution-list: the void path clears the sensors' layout, not the controller's list
            # of the round's Royal 9 wagers, which the next closing books again
            self.void_r9 += sum(a for (_s, t), a in self.layout.items() if t == "royal9")
        if "void-keeps-layout" not in self.faults:
            self.layout.clear()
            self.first_stake.clear()
        self.list_blind.clear()
        self.ghost_listed.clear()
        self.withdrawn.clear()
        self.contrib_journal = {}  # (fault lost-round-contributions-booked-again: the round ended)
        self.nmb_disabled = "nmb-refused-in-second-round" in self.faults
        self.meters_display = None  # (fault meters-get-refreshed-at-settlement)
        if "final-flag-kept-after-void" in self.faults:
            # fault final-flag-kept-after-void: the void path marks the layout's wagers final, as the closing does; the
            # settlement clears the flag, a void does not
            self.layout_final = True
        self.placed_sum = {}
        if "config-live-after-void" in self.faults:
            self.void_live = True
        self.live_nv = False  # fault live-flag-kept-across-power-cut: cleared when a round ends
        self.phase = "settled"
        self.after_void = True
        self.last_round_void = True
        self.round_settled = self.round
        if "round-number-not-saved-in-open-round" in self.faults:
            self._save_nv()
        end: dict[str, Any] = {"event": "round_end", "round": self.round, "void": True}
        if self.round_at_power_up is not None:
            # fault round-end-number-read-at-power-up: the round record's copy taken at power-up
            end["round"], self.round_at_power_up = self.round_at_power_up, None
        if "void-round-end-without-void-flag" in self.faults:
            del end["void"]  # the round_end builder is shared with settlement
        if "void-round-end-late" in self.faults:
            threading.Timer(0.3, self._emit_late, args=("controller", end)).start()  # queued to the display task
        else:
            self.emit("controller", end)
        if lock_after_end:
            self.emit("controller", {"event": "lockout", "locked": True, "cause": "no-more-bets"})
        if "nmb-void-answer-without-void-flag" in self.faults and after_nmb:
            return ("rsp", {"round": self.round})  # the no-more-bets path's answer is the settle answer's
        if "void-answer-without-round" in self.faults:
            return ("rsp", {"void": True})  # fault void-answer-without-round: the void path's own answer
        return ("rsp", {"round": self.round, "void": True})

    def _controller_reset_key(self, req: dict[str, Any]) -> Reply:
        meter = req.get("meter")
        if not isinstance(meter, str):
            raise BadArgs("meter must be a meter name")
        if meter not in self.meters:
            if meter == "mystery" and "mystery-key-answered-without-mystery" in self.faults:
                # fault mystery-key-answered-without-mystery: the key routine's meter table has the mystery slot of the
                # controller model with a mystery progressive; its key path is the reseed, which asks for no payment
                self.emit("controller", {"event": "reset", "meter": "mystery", "amount": 0})
                return ("rsp", {"meter": "mystery", "amount": 0})
            raise Refused(f"no meter {meter}")
        asked = meter  # the key's meter, as the answer names it
        if "reset-key-pops-first-pending" in self.faults and self.pending:
            # fault reset-key-pops-first-pending: the key routine takes the head of the payment queue, whatever meter
            # the key is for
            meter = self.pending[0]["meter"]
        mine = [p for p in self.pending if p["meter"] == meter]
        listed_before = [dict(p) for p in self.pending]  # fault pending-stale-after-key
        if mine and "reset-key-only-oldest-pending" in self.faults and self.pending[0]["meter"] != meter:
            raise Refused(f"the {self.pending[0]['meter']} payment is first in the queue")
        again = not mine and "reset-key-second-turn-books-again" in self.faults and meter in self.last_key_paid
        # fault reset-key-checks-any-pending: the key's test asks whether any payment waits, not one of its meter
        nothing = not (self.pending if "reset-key-checks-any-pending" in self.faults else mine)
        if nothing and "reset-key-without-hit" not in self.faults and not again:
            if "reset-key-nothing-pending-bad-args" in self.faults:
                raise BadArgs(f"no payment pending for {meter}")  # checked with the argument checks
            if "refused-key-sends-reset-event" in self.faults:
                # fault refused-key-sends-reset-event: the display's reset message is queued before the payment check
                self.emit("controller", {"event": "reset", "meter": meter,
                                         "amount": self.config["meters"][meter]["reset"]})
            raise Refused("nothing to reset")
        if mine and "reset-key-refused-after-reboot" in self.faults and meter not in self.key_known:
            raise Refused("nothing to reset")
        paid = sum(p["amount"] for p in mine)
        if "reset-key-books-every-pending" in self.faults:
            paid = sum(p["amount"] for p in self.pending)  # fault reset-key-books-every-pending: the sum runs over the
            # whole payment list before it is filtered by meter
        if "key-after-power-books-nothing" in self.faults and mine:
            paid = self.paid_ram.get(meter, 0)  # booked from the hit record in RAM, empty after a power-up
        self.paid_ram.pop(meter, None)
        self.key_known.discard(meter)
        self.cap_latch.pop(meter, None)  # fault cap-latched-after-limit-raised: the key clears the latch
        if "reset-key-books-after-reset" in self.faults and mine:
            paid = len(mine) * self.config["meters"][meter]["reset"]  # booked from the meter after it is reset
        if again:
            paid = self.last_key_paid[meter]  # the key routine books the last payment slip it holds
        if "key-books-growth-over-reset" in self.faults and mine:
            # fault key-books-growth-over-reset: the booking is taken from the meter's growth counter (its amount less
            # the reset amount), as the progressive's "increment paid" line counts it
            paid -= len(mine) * self.config["meters"][meter]["reset"]
        if mine and meter in self.key_replay:
            self.key_replay.discard(meter)
            paid *= 2  # fault key-after-reboot-books-payment-twice: the slip is in the booking table twice
        self.last_key_paid[meter] = paid
        if "paid-meters-include-stake" in self.faults:
            paid += len(mine) * self.config["denomination"]  # the payout's `returned` booked, stake and all
        if "reset-key-clears-every-pending" in self.faults:
            self.pending = []
        else:
            self.pending = [p for p in self.pending if p["meter"] != meter]
        self.key_wait = bool(self.pending)
        late_cumulative = "cumulative-booked-after-save" in self.faults
        if "cumulative-paid-overwritten" in self.faults:
            self.cumulative_paid = paid  # fault cumulative-paid-overwritten: the booking stores, not adds
        elif "cumulative-paid-omits-mega" in self.faults and meter == "mega":
            pass  # fault cumulative-paid-omits-mega: the cumulative meter is summed from the major and minor keys only
        elif "cumulative-booked-at-hit" not in self.faults and not late_cumulative:
            self.cumulative_paid += paid
        if "attendant-payment-booked-as-table" in self.faults:
            self.paid_by_table += paid  # the booking routine is the table's, called with the wrong meter
        elif "paid-by-attendant-not-booked" not in self.faults:
            # fault attendant-meter-kept-in-dollars: the attendant meter's register counts whole dollars
            self.paid_by_attendant += paid // 100 if "attendant-meter-kept-in-dollars" in self.faults else paid
            if "paid-by-attendant-wraps-at-24-bits" in self.faults:
                self.paid_by_attendant %= 1 << 24  # the attendant meter's register is 24 bits wide
        if "diverted-cleared-by-reset-key" in self.faults:
            self.diverted[meter] = 0  # the meter's counters are cleared with it
        if "lockout-late-after-reset-key" in self.faults:
            self.after_key = True
        back_to = "initial" if "reset-key-restores-initial" in self.faults else "reset"
        won = self.meters[meter]  # fault key-reset-meter-not-saved: the amount the record in storage keeps
        self.meters[meter] = self.config["meters"][meter][back_to]
        if "key-rounds-residual-into-meter" in self.faults and mine:
            # fault key-rounds-residual-into-meter: the reset routine loads the meter from its exact value, the reset
            # amount plus the residual, rounded half up to the cent
            self.meters[meter] += int(self.residual[meter].to_integral_value(rounding=ROUND_HALF_UP))
            self.residual[meter] = Decimal(0)
        if "contribution-from-meter-before-key" in self.faults and mine:
            self.key_shadow[meter] = won  # fault contribution-from-meter-before-key: the contribution's copy stays
        if "reset-key-steps-round-number" in self.faults and mine:
            # fault reset-key-steps-round-number: the key routine closes "the jackpot round" by stepping the round
            # counter, as the settlement routine it was copied from does
            self.round += 1
        if "reset-amount-cached-at-power-up" in self.faults and meter in self.resets_at_boot:
            self.meters[meter] = self.resets_at_boot[meter]  # fault reset-amount-cached-at-power-up
        if "reset-key-resets-later-meters" in self.faults:
            # fault reset-key-resets-later-meters: the reset loop runs from the key's meter to the end of the table
            names = list(self.meters)
            for later in names[names.index(meter) + 1:]:
                self.meters[later] = self.config["meters"][later]["reset"]
        if "one-dollar-reset-key-clamps-to-five-dollar-floor" in self.faults and meter in game.FLOORS[500]:
            # the reset routine clamps the meter to the floor table, which has one row: the $5 paytable's
            self.meters[meter] = max(self.meters[meter], game.FLOORS[500][meter])
        if "pending-stale-after-key" in self.faults and mine:
            self.pending_shown = listed_before  # the list read before the key is served once more
        if "reset-key-zeroes-residual" in self.faults:
            self.residual[meter] = Decimal(0)  # the meter record is initialised afresh
        if "reset-key-zeroes-other-residuals" in self.faults and mine:
            for other in self.residual:  # fault reset-key-zeroes-other-residuals: the residual block is cleared whole
                if other != meter:
                    self.residual[other] = Decimal(0)
        before_key = [dict(p) for p in self.pending] + [dict(p) for p in mine]
        self._save_nv()
        if late_cumulative:
            self.cumulative_paid += paid  # added in RAM after the record was written
        if "open-block-cleared-by-first-key" in self.faults and mine:
            self.key_unblocked = True
        if "round-open-slow-after-key" in self.faults and mine:
            self.slow_open = True
        if "key-clears-lock-flag" in self.faults and mine:
            # fault key-clears-lock-flag: the key's lamp and the lock flag share one port register, which the key's
            # "payment done" write clears
            self.locked, self.cause = False, None
        if "attendant-mode-left-on-after-key" in self.faults and mine:
            self.attendant_mode = True  # fault attendant-mode-left-on-after-key: the slip printer's attendant flag
        if "open-refused-once-after-key" in self.faults and mine:
            self.key_open_refusal = True  # the key sets the open-block bit that round.open clears after its test
        if "key-reset-meter-not-saved" in self.faults and mine:
            # fault key-reset-meter-not-saved: the key writes the payment record (the pending list, the payout meters);
            # the meter's own amount reaches storage with the next full record (a round.open, a contribution)
            nv = json.loads(self.nv_path.read_text())
            nv["meters"][meter] = won
            self.nv_path.write_text(json.dumps(nv))
        if "key-clear-not-saved" in self.faults and mine:
            # the key writes the meter record; the payment list in storage is left as it was
            nv = json.loads(self.nv_path.read_text())
            nv["pending"] = before_key
            self.nv_path.write_text(json.dumps(nv))
        if "reset-key-answers-slowly" in self.faults:
            time.sleep(0.18)  # the payment record is written to the audit log before the answer
        if "reset-key-resends-hit" in self.faults:
            for p in mine:  # fault reset-key-resends-hit: the attendant display replays the hit record it clears
                self.emit("controller", {"event": "hit", "seat": p["seat"], "category": p["category"],
                                         "meter": p["meter"], "amount": p["amount"]})
        reset_event = {"event": "reset", "meter": meter, "amount": self.meters[meter]}
        if "reset-event-amount-from-initial" in self.faults:
            reset_event["amount"] = self.config["meters"][meter]["initial"]  # fault reset-event-amount-from-initial:
            # the event is filled from the meter's settings record, the wrong field of it
        if self.quiet_reset:
            pass
        elif "reset-event-sent-after-key-answer" in self.faults:
            # fault reset-event-sent-after-key-answer: the event is queued to the display task, which runs later
            threading.Timer(0.05, self._emit_late, args=("controller", reset_event)).start()
        else:
            self.emit("controller", reset_event)
        if self.held_round_end is not None:
            held, self.held_round_end = self.held_round_end, None  # fault round-end-held-until-key
            self.emit("controller", held)
        if "reset-key-answers-paid-amount" in self.faults and paid:
            return ("rsp", {"meter": meter, "amount": paid})
        return ("rsp", {"meter": asked, "amount": self.meters[asked]})

    def _controller_config_set(self, req: dict[str, Any]) -> Reply:
        fields = {k: v for k, v in req.items() if k != "cmd"}
        if "game-write-ignored" in self.faults:
            fields.pop("game", None)  # fault game-write-ignored: the parser skips the answer-only field
        allowed = {"denomination", "decks", "seats", "meters", "mystery", "commission"}
        for key in fields:
            if key not in allowed:
                raise BadArgs(f"{key} is not configurable")
        if self._live():
            if "refused-write-reaches-storage" in self.faults:
                self._store_refused_write(fields)
            if "refused-write-applied-by-next-write" in self.faults:
                # fault refused-write-applied-by-next-write: the request is copied into the settings staging block
                # before the live check, and a refusal leaves it there
                self.staged_write = dict(fields)
            raise Refused("live: a round is open or a wager is on the layout")
        if self.staged_write:
            # fault refused-write-applied-by-next-write: the next write taken applies the whole staging block
            fields = {**self.staged_write, **fields}
            self.staged_write = {}
        if "config-refused-while-link-down" in self.faults and not self.link_up:
            raise Refused("the sensors link is down")  # fault config-refused-while-link-down: the live test reads
            # the link alarm too
        if "config-refused-while-payment-pending" in self.faults and self.pending:
            raise Refused("a payment waits for the reset key")  # the settings lock is the jackpot lock
        old_meters = json.loads(json.dumps(self.config["meters"]))  # fault config-set-answers-old-meters
        new = json.loads(json.dumps(self.config))
        partial = "config-partial-apply" in self.faults
        for key in ("denomination", "decks", "commission", "meters", "seats", "mystery"):
            if key not in fields:
                continue
            try:
                self._set_field(new, key, fields[key])
            except Refused:
                if partial:
                    self.config = new
                    self._save_nv()
                raise
        if "commission-dropped-beside-meter-write" in self.faults and "meters" in fields and "commission" in fields:
            # fault commission-dropped-beside-meter-write: the meter block's write reloads the table block it shares
            new["commission"] = self.config.get("commission")
        if "meter-write-reverts-other-meters" in self.faults and isinstance(fields.get("meters"), dict):
            # fault meter-write-reverts-other-meters: the meter block is rebuilt from the power-up copy, with the
            # written meters only taken from the request
            for name in new["meters"]:
                if name not in fields["meters"] and name in self.config_at_boot.get("meters", {}):
                    new["meters"][name] = json.loads(json.dumps(self.config_at_boot["meters"][name]))
        self.config = new
        if "denomination-write-loads-floors" in self.faults and "denomination" in fields:
            for name, floor in game.FLOORS[new["denomination"]].items():  # the denomination's meter set is loaded
                if name in self.meters:
                    self.meters[name] = floor
                    self.residual[name] = Decimal(0)
        self.identity_page_rewritten = True
        if "seat-8-accepted-after-config-write" in self.faults:
            # fault seat-8-accepted-after-config-write: a write sends the sensors the whole settings block, whose seat
            # table they take as nine seats (the block's slot count), not the seats configured
            self.sensors_nine_seats = True
        if "game-type-from-paytable-after-denomination-write" in self.faults and "denomination" in fields:
            # fault game-type-from-paytable-after-denomination-write: the identity's game type is read from the paytable
            # record's name, which a denomination write replaces
            self.game_type_text = f"midibaccarat-r9-{new['denomination'] // 100}"
        if "config-get-slow-after-write" in self.faults:
            self.config_read_slow = True
        if "lockout-late-after-config-write" in self.faults:
            self.after_config_write = True
        if isinstance(fields.get("meters"), dict):
            for name, sub in fields["meters"].items():
                if ("limit-raise-pours-diverted-back" in self.faults and "payout_limit" in sub
                        and self.diverted.get(name)):
                    # fault limit-raise-pours-diverted-back: the limit's write runs the cap routine again, which takes
                    # the meter's overflow account for cents held back and moves them onto the meter
                    cap = self._cap(name)
                    poured = self.diverted[name] if cap is None else min(self.diverted[name],
                                                                          max(cap - self.meters[name], 0))
                    self.meters[name] += poured
                    self.diverted[name] -= poured
                if "limit-write-clears-diverted" in self.faults and "payout_limit" in sub:
                    # fault limit-write-clears-diverted: the limit's write rebuilds the meter's cap record, its diverted
                    # count with it
                    self.diverted[name] = 0
                if "rate-write-drops-residual" in self.faults and "rate" in sub:
                    self.residual[name] = Decimal(0)  # the meter's record is rebuilt for the new rate
                if ("initial-write-sets-meter" in self.faults and "initial" in sub
                        and sub["initial"] > self.meters[name]):
                    self.meters[name] = sub["initial"]
        if "meter-write-drops-pending" in self.faults and isinstance(fields.get("meters"), dict):
            # the written meter's record is rebuilt from its settings, its pending payment with it
            self.pending = [p for p in self.pending if p["meter"] not in fields["meters"]]
            self.key_wait = bool(self.pending)
        if "reset-write-turns-meter-back" in self.faults and isinstance(fields.get("meters"), dict):
            for name, sub in fields["meters"].items():
                if "reset" in sub:
                    self.meters[name] = new["meters"][name]["reset"]
                    self.residual[name] = Decimal(0)
        if "denomination-write-zeroes-residuals" in self.faults and "denomination" in fields:
            # fault denomination-write-zeroes-residuals: the denomination's meter records are initialised afresh
            self.residual = {m: Decimal(0) for m in self.residual}
        if "denomination" in fields:
            self.paytable_cold = False  # fault one-dollar-paytable-lost-at-power-up: a denomination write moves it
        if "config-write-saved-at-next-round" not in self.faults:
            self._save_nv()  # (the fault: the settings stay in RAM until the next round record is written)
        if "settings-ring-wrap-loads-older-write" in self.faults:
            self.settings_ring.append(json.loads(json.dumps(self.config)))  # the write's slot in the settings ring
        view = self.config_view()
        if "config-set-answers-written-fields-only" in self.faults:
            # the answer is built from the request's fields, read back one by one
            view = {k: v for k, v in view.items() if k == "game" or k in fields}
        if "meters" in fields:
            if "config-set-answers-old-meters" in self.faults:
                view = dict(view, meters=old_meters)
            if "meter-write-answers-slowly" in self.faults:
                time.sleep(0.25)  # the meter block is erased and written again before the answer
        if "commission-answered-as-number" in self.faults and "commission" in fields:
            rate = Decimal(str(view.get("commission")))
            if rate == rate.to_integral_value():
                view = dict(view, commission=int(rate))  # the answer is built from the parsed register
        return ("rsp", view)

    def _store_refused_write(self, fields: dict[str, Any]) -> None:
        """Fault refused-write-reaches-storage: the write goes to the storage copy before the live check."""
        shadow = json.loads(json.dumps(self.config))
        for key in ("denomination", "decks", "commission", "meters", "seats", "mystery"):
            if key in fields:
                try:
                    self._set_field(shadow, key, fields[key])
                except (Refused, BadArgs):
                    return
        live = self.config
        self.config = shadow
        try:
            self._save_nv()
        finally:
            self.config = live

    def _set_field(self, new: dict[str, Any], key: str, val: Any) -> None:
        if key == "denomination":
            if type(val) is not int or val <= 0:
                raise BadArgs("denomination must be positive integer cents")
            if "refused-denomination-clears-floor-check" in self.faults:
                # fault refused-denomination-clears-floor-check: the floor table's index is set to the written
                # denomination before the paytable check, and a refusal does not set it back
                self.floor_key = val
            if val not in game.FLOORS:
                raise Refused("629a Royal 9 has paytables for $5 and $1 only")
            if "floors-stay-one-dollar-after-write-back" in self.faults and val == 100:
                # fault floors-stay-one-dollar-after-write-back: a $1 write moves the floor table pointer to the $1 row;
                # only the power-up sets it back to the $5 row
                self.floor_row = 100
            if ("denomination-locked-after-contribution" in self.faults and self.contributed
                    and val != new["denomination"]):
                # fault denomination-locked-after-contribution: the paytable lock set by the first contribution is
                # cleared only at power-up
                raise Refused("the denomination is fixed while the meters have taken contributions")
            if "refused-denomination-moves-paytable" in self.faults:
                # fault refused-denomination-moves-paytable: the paytable pointer is moved to the written denomination
                # before the write is checked, and a refused write does not move it back
                self.paytable_pointer = val
            if "denomination-write-skips-floors" not in self.faults:
                self._check_floors(val, new["meters"])
            if "denomination-write-rescales-rates" in self.faults and val != new["denomination"]:
                # fault denomination-write-rescales-rates: the rates are kept "per wager unit": a new denomination
                # scales them so that a wager feeds the meters as many cents as before
                for mcfg in new["meters"].values():
                    mcfg["rate"] = dec_str(Decimal(mcfg["rate"]) * new["denomination"] / val)
            new["denomination"] = val
            if "denomination-write-reloads-commission" in self.faults:
                # fault denomination-write-reloads-commission: the denomination's paytable block is loaded whole, and
                # it carries the commission's factory value
                new["commission"] = PRESETS[self.preset]["commission"]
            if "denomination-write-kept-in-dollars" in self.faults:
                new["_denomination_dollars"] = True  # fault denomination-write-kept-in-dollars: see config_view
        elif key == "decks":
            if type(val) is not int or not 1 <= val <= 16:
                raise BadArgs("decks must be 1..16")
            if val != new["decks"]:
                if "decks-write-taken-at-initial-amounts" in self.faults and all(
                        self.meters[m] == self.config["meters"][m]["initial"] for m in self.meters):
                    # fault decks-write-taken-at-initial-amounts: "a meter shows an amount" is read as "a meter has
                    # grown past its initial amount"
                    new["decks"] = val
                    return
                if "decks-write-bad-args" in self.faults:
                    raise BadArgs("decks cannot be written")  # the fixed field is rejected by the parser
                raise Refused(REFUSE_DECKS)
        elif key == "commission":
            rate = parse_rate(val)
            if "commission-decimal-bad-args" in self.faults and "." in str(val):
                raise BadArgs("commission must be whole percent")  # fault commission-decimal-bad-args: digits only
            if rate > 100:
                raise BadArgs("commission out of range")
            new["commission"] = val
        elif key == "seats":
            if not isinstance(val, list) or not 1 <= len(val) <= 9:
                raise BadArgs("seats must be a list of one to nine seats")
            for entry in val:
                if not isinstance(entry, dict) or set(entry) != {"seat", "combo"}:
                    raise BadArgs("each seat is {seat, combo}")
                seat, combo = entry["seat"], entry["combo"]
                if type(seat) is not int or not 1 <= seat <= 9:
                    raise BadArgs("seat must be 1..9")
                if combo is not None and (not isinstance(combo, list) or len(combo) != 2
                                          or not all(game.valid_card(c) for c in combo)):
                    raise BadArgs("combo must be a pair of cards or null")
            if val != new["seats"]:
                raise Refused(REFUSE_SEATS)
            if "seats-rewrite-drops-seventh-combination" in self.faults:
                # fault seats-rewrite-drops-seventh-combination: the seats block is written again through a buffer of
                # six combinations; the seventh seat's comes back empty
                new["seats"] = [dict(entry, combo=entry["combo"] if i < 6 else None)
                                for i, entry in enumerate(new["seats"])]
        elif key == "mystery":
            if val is not None:
                raise Refused("this controller has no mystery progressive")
        elif key == "meters":
            if not isinstance(val, dict):
                raise BadArgs("meters must be an object")
            for name, sub in val.items():
                if name not in new["meters"]:
                    raise BadArgs(f"no meter {name}")
                if not isinstance(sub, dict):
                    raise BadArgs(f"meters.{name} must be an object")
                m = new["meters"][name]
                live = self.config["meters"][name]  # fault meter-write-bad-args-keeps-earlier-keys
                for fkey, fval in sub.items():
                    if fkey == "rate":
                        parse_rate(fval)
                        m["rate"] = fval
                        if "written-rate-kept-as-display-text" in self.faults:
                            self.rate_text.add(name)  # the write stores the operator's display text beside the rate
                        if "rate-written-to-two-decimals" in self.faults:
                            # fault rate-written-to-two-decimals: the rate register holds hundredths of a percent
                            m["rate"] = dec_str(Decimal(fval).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
                    elif fkey in ("initial", "reset"):
                        if type(fval) is not int or fval < 0:
                            raise BadArgs(f"{fkey} must be cents")
                        m[fkey] = fval
                        if ("minor-initial-written-to-major-too" in self.faults and name == "minor"
                                and fkey == "initial" and "major" in new["meters"]):
                            new["meters"]["major"]["initial"] = fval  # the two share one initial-amount record
                    elif fkey in ("payout_limit", "display_capacity"):
                        if fval is not None and (type(fval) is not int or fval <= 0):
                            raise BadArgs(f"{fkey} must be cents or null")
                        if fval is None and fkey == "payout_limit" and "null-payout-limit-bad-args" in self.faults:
                            raise BadArgs(f"{fkey} must be cents")  # the check was copied from initial/reset
                        m[fkey] = fval
                        if (fkey == "payout_limit" and name == "major" and "minor" in new["meters"]
                                and "major-limit-write-sets-minor-limit" in self.faults):
                            new["meters"]["minor"]["payout_limit"] = fval  # the two share one limit record
                        if (fkey == "payout_limit" and "display_capacity" not in sub
                                and "limit-write-clears-capacity" in self.faults):
                            m["display_capacity"] = None  # the limit record is written with an empty capacity
                    else:
                        raise BadArgs(f"meters.{name}.{fkey} is not configurable")
                    if "meter-write-bad-args-keeps-earlier-keys" in self.faults:
                        live[fkey] = m[fkey]  # each key parsed is written to the live meter record at once
                    if "meter-keys-checked-in-request-order" in self.faults:
                        # fault meter-keys-checked-in-request-order: each key is checked as it is parsed, against the
                        # meter record as written so far
                        self._check_meter(name, m, {fkey: fval})
                self._check_meter(name, m, sub)
                if "reset-write-copies-to-initial" in self.faults and "reset" in sub and "initial" not in sub:
                    m["initial"] = sub["reset"]  # fault reset-write-copies-to-initial: the write routine's default
                if "initial-write-copies-to-reset" in self.faults and "initial" in sub and "reset" not in sub:
                    m["reset"] = sub["initial"]  # the reset amount defaults to the initial one in the write routine
                if ("payout-limit-stored-in-24-bits" in self.faults and "payout_limit" in sub
                        and m["payout_limit"] is not None):
                    m["payout_limit"] &= 0xFFFFFF  # fault payout-limit-stored-in-24-bits: the limit's field is 24 bits
                if "meter-write-applies-first-meter-only" in self.faults:
                    break  # fault meter-write-applies-first-meter-only: the meter loop leaves after its first entry
            # fault meter-floors-from-old-denomination: the meter block's floor check reads the denomination in force,
            # not the one this write sets
            held = self.config["denomination"] if "meter-floors-from-old-denomination" in self.faults else None
            self._check_floors(held or new["denomination"], new["meters"])

    def _check_meter(self, name: str, m: dict[str, Any], written: dict[str, Any]) -> None:
        now = self.meters[name]
        limit, cap = m.get("payout_limit"), m.get("display_capacity")
        # fault capacity-under-limit-accepted: the two are compared only when both are written together
        both = ("capacity-under-limit-accepted" not in self.faults
                or {"payout_limit", "display_capacity"} <= set(written))
        if limit is not None and cap is not None and limit > cap and both:
            raise Refused(f"{name}: payout limit above the display capacity (461a.12(j))")
        if limit is not None and limit == cap and "limit-equal-to-capacity-refused" in self.faults:
            # fault limit-equal-to-capacity-refused: the check is "limit < capacity"
            raise Refused(f"{name}: payout limit must be below the display capacity (461a.12(j))")
        held_to = now
        if "limit-held-to-round-start-amount" in self.faults:
            # fault limit-held-to-round-start-amount: the settings task reads the meters from the round-open record
            held_to = self.round_start_meters.get(name, now)
        if "limit-checked-against-mega-amount" in self.faults:
            held_to = self.meters[next(iter(self.meters))]  # fault limit-checked-against-mega-amount: meter index 0
        at_most = limit is not None and (limit < held_to if "payout-limit-equal-current-accepted" in self.faults
                                          else limit <= held_to)
        if at_most and "payout-limit-unchecked" not in self.faults:
            raise Refused(f"{name}: payout limit must be greater than the current amount (461a.12(k)(1))")
        if cap is not None and cap < now:
            raise Refused(f"{name}: display capacity below the current amount (461a.12(j))")
        skip_reset = "minor-reset-above-current-accepted" in self.faults and name == list(self.meters)[-1]
        # fault reset-checked-against-initial: the record's initial field is read for the meter's amount
        reset_to = m["initial"] if "reset-checked-against-initial" in self.faults else now
        if (m["reset"] > reset_to and not skip_reset) or ("reset-equal-current-refused" in self.faults
                                                          and "reset" in written and m["reset"] == now):
            raise Refused(f"{name}: reset above the current amount")
        checked = ("reset",) if "initial-above-limit-accepted" in self.faults else ("initial", "reset")
        for fkey in checked:
            for c in (limit, cap):
                if c is not None and m[fkey] > c:
                    raise Refused(f"{name}: {fkey} above the meter's limit")

    def _check_floors(self, denom: int, meters: dict[str, Any]) -> None:
        floors = game.FLOORS.get(denom, {})
        if self.floor_key is not None:
            floors = game.FLOORS.get(self.floor_key, {})  # fault refused-denomination-clears-floor-check
        if self.floor_row is not None:
            floors = game.FLOORS[self.floor_row]  # fault floors-stay-one-dollar-after-write-back
        if "one-dollar-minor-floor-typo" in self.faults and denom == 100:
            floors = dict(floors, minor=90000)  # fault one-dollar-minor-floor-typo: the $1 row's minor entered as $900
        if "one-dollar-writes-held-to-five-floors" in self.faults:
            floors = game.FLOORS[500]  # the floor table has one row, the $5 paytable's
        for name, floor in floors.items():
            if name in meters:
                for fkey in ("initial",) if "reset-below-floor-accepted" in self.faults else ("initial", "reset"):
                    below = (meters[name][fkey] <= floor if "floor-itself-refused" in self.faults
                             else meters[name][fkey] < floor)
                    if below:
                        raise Refused(f"{name} {fkey} below the floor of 629a Royal 9 for this denomination")

    # ------------------------------------------------------------------ test channel
    def _test(self, role: str, cmd: str, req: dict[str, Any]) -> Reply:
        if cmd == "test.fault":
            return ("fault", req)  # the transport carries out line faults
        if cmd == "test.state" and role == "controller":
            return ("rsp", {"phase": self.phase, "locked": self.locked, "cause": self.cause, "round": self.round,
                            "cards": list(self.round_cards), "link_up": self.link_up, "boots": self.boots})
        if cmd == "test.link" and role == "controller":
            up = req.get("up")
            if not isinstance(up, bool):
                raise BadArgs("up must be true or false")
            was_up = self.link_up
            self.link_up = up
            if not up and was_up:
                self.link_lost_in_round = self.phase in ("open", "dealing")
            if not up and was_up:
                self.unlocked_before_comm_loss = not self.locked
            if not up and was_up and "comm-lost-refusal-kept-after-restore" in self.faults:
                self.sensors_link_stale = True
            if not up and was_up and "pending-cleared-by-link-loss" in self.faults and self.pending:
                # fault pending-cleared-by-link-loss: the link-loss path clears the slip queue with the sensors'
                # buffers
                self.pending = []
                self.key_wait = False
                self._save_nv()
            if (not up and was_up and "link-loss-announces-no-more-bets" in self.faults and self.phase == "open"
                    and not self.locked):
                # fault link-loss-announces-no-more-bets: the link-loss path calls the dealer's close routine
                self.emit("controller", {"event": "no_more_bets", "round": self.round})
            if not up and "comm-lost-latched-after-restore" in self.faults:
                self.comm_alarm = True  # the alarm stays latched until acknowledged at the button
            if not up and was_up and "comm-loss-noticed-after-800-ms" in self.faults:
                # fault comm-loss-noticed-after-800-ms: the link supervision counts four missed 200 ms polls before it
                # closes wagering
                threading.Timer(0.8, self._late_comm_loss, args=(self.power_epoch,)).start()
            elif not up and "comm-loss-ignored" not in self.faults:
                self._close_wagering("comm-lost")
                if "link-loss-mid-deal-voids-round" in self.faults and self.phase == "dealing":
                    # fault link-loss-mid-deal-voids-round: the link-loss handler calls the void routine ("nothing to
                    # settle without the sensors"), which ends the round being dealt
                    self.layout.clear()
                    self.first_stake.clear()
                    self.round_cards = []
                    self.phase = "settled"
                    self.last_round_void = True
                    self.round_settled = self.round
                    self.emit("controller", {"event": "round_end", "round": self.round, "void": True})
                if "link-loss-clears-layout" in self.faults:
                    self.layout.clear()  # the controller's copy of the layout is dropped with the link
                    self.first_stake.clear()
            if (up and not was_up and "link-restore-resend-adds-stakes" in self.faults
                    and self.phase in ("open", "dealing")):
                # fault link-restore-resend-adds-stakes: the sensors send every area's count again once the link is
                # back, and the controller's resync adds each count to the one it holds
                for key in self.layout:
                    self.layout[key] += self.layout[key]
            if up and not was_up and self.settle_due:
                self.settle_due = False  # fault settlement-held-while-link-down: the held settlement goes now
                self._settle()
            if (up and not was_up and "lockout-get-cause-cleared-by-link-restore" in self.faults
                    and self.phase in ("open", "dealing")):
                # fault lockout-get-cause-cleared-by-link-restore: the restore path clears the cause register with the
                # link alarm; the lock flag stays
                self.cause = None
            if up and not was_up and "lockout-late-after-link-restore" in self.faults:
                self.after_link_restore = True
            if up and not was_up and "sensors-software-id-empty-after-link-restore" in self.faults:
                self.sensors_block_resent = True  # the controller re-sends the sensors' settings block without it
            if (up and not was_up and "link-restore-sends-stale-unlock" in self.faults
                    and self.unlocked_before_comm_loss and self.phase == "open"):
                # the link task sends the lock state it held before the loss; the controller stays locked
                self.emit("controller", {"event": "lockout", "locked": False, "cause": "round-open"})
            if (up and not was_up and "link-restore-reopens-wagering" in self.faults
                    and self.unlocked_before_comm_loss and self.phase == "open"):
                # the lock state from before the loss is restored
                self.locked, self.cause = False, None
                self.on_lock_line(False)
                self.emit("controller", {"event": "lockout", "locked": False, "cause": "round-open"})
            return ("rsp", {"up": up})
        if role == "shoe" and cmd == "test.load":
            cards = req.get("cards")
            if not isinstance(cards, list) or not all(game.valid_card(c) for c in cards):
                raise BadArgs("cards must be a list of cards like KS")
            if self.dealing:
                return ("nak", "BUSY", "the shoe is dealing")
            if req.get("check_decks") and "refused-load-empties-shoe" in self.faults:
                # fault refused-load-empties-shoe: the load routine empties the shoe's buffer and clears its count
                # before the deck check, which may still refuse the load
                self.shoe_cards = []
                self.cards_dealt = 0
            if req.get("check_decks"):
                for c in set(cards):
                    if cards.count(c) > self.config["decks"]:
                        raise BadArgs(f"{c} appears more often than {self.config['decks']} decks hold")
            left = bool(self.shoe_cards)
            self.shoe_error_latched = False
            if "shoe-load-clears-round-cards" in self.faults:
                # fault shoe-load-clears-round-cards: the shoe's load signal clears the controller's hand buffer (a new
                # shoe is taken for a new hand)
                self.round_cards = []
            if "shoe-status-count-refreshed-by-card" in self.faults:
                # fault shoe-status-count-refreshed-by-card: the status register's count is copied from the reader's
                # counter when a card goes out; a load clears the counter only
                self.status_count_stale = self.cards_dealt
            if "reload-appends-to-shoe" in self.faults:
                self.shoe_cards = self.shoe_cards + list(cards)  # the shoe's buffer is appended to
            else:
                self.shoe_cards = list(cards)
            if "card-n-not-reset-on-reload" not in self.faults and not (
                    left and "card-n-reset-only-by-empty-shoe" in self.faults):
                # (fault card-n-reset-only-by-empty-shoe: the count is cleared by the shoe-empty handler only)
                self.cards_dealt = 0
            self.n_base = 0
            self.misread_base = 0
            self.status_zero_base = 0
            self.dealing_stale = False
            self.misreads_uncounted = 0
            self.misreads_left = 0
            return ("rsp", {"cards_remaining": len(self.shoe_cards)})
        if role == "shoe" and cmd == "test.deal":
            return ("deal", req)
        if role == "shoe" and cmd == "test.shuffle":
            raise Refused("this shoe has no shuffler")
        return ("nak", "UNKNOWN_CMD", f"{cmd} is not a {role} test command")

    def deal_one(self) -> bool:
        """One card leaves the shoe: the card-out line, then the read card on the shoe's line."""
        with self.lock:
            if not self.shoe_cards or not self.powered:
                return False
            card = self.shoe_cards.pop(0)
            self.cards_dealt += 1
            self.status_count_stale = None  # fault shoe-status-count-refreshed-by-card: refreshed by the card out
            n = self.cards_dealt
            if ("card-n-restarts-each-round" in self.faults or "card-n-restarts-after-power-cycle" in self.faults
                    or "card-n-restarts-on-shoe-reconnect" in self.faults
                    or "card-n-restarts-each-paced-deal" in self.faults):
                n -= self.n_base  # (fault card-n-restarts-after-power-cycle: n_base is the count at power-up)
            self.dealing_stale = False
            n -= self.misread_base  # fault misread-restarts-card-n (0 unless the fault's recovery ran)
            if "card-n-one-byte" in self.faults:
                n %= 256  # the reader's frame carries the card count in one byte
            self.empty_latched = not self.shoe_cards
            self.last_out_misread = False
            # fault last-card-in-shoe-misread: the empty-shoe sensor closes the reader's window as the last card leaves
            last_unread = "last-card-in-shoe-misread" in self.faults and not self.shoe_cards and not self.misread_next
            if self.misread_next or last_unread:
                if self.misread_next:
                    self.misread_next -= 1
                self.last_out_misread = True
                # fault misread-n-one-behind: the misread frame is built before the reader steps its count
                shown_n = n - 1 if "misread-n-one-behind" in self.faults else n
                self.emit("shoe", {"event": "misread", "n": shown_n, "raw": "??"})
                if "misread-restarts-card-n" in self.faults:
                    # fault misread-restarts-card-n: the reader's recovery after an unreadable card re-initialises its
                    # frame counter; the shoe's own count (shoe.status) goes on
                    self.misread_base = self.cards_dealt
                if "misread-followed-by-card-event" in self.faults:
                    # fault misread-followed-by-card-event: the reader's second read of the same card succeeds
                    # and its frame is sent too
                    self.emit("shoe", {"event": "card", "card": card, "n": n})
                if "misread-not-counted" in self.faults:
                    self.cards_dealt -= 1  # only cards read are counted
                if "shoe-status-dealt-excludes-misread" in self.faults:
                    self.misreads_uncounted += 1  # the status counter is stepped by the reader's good reads
                if "cards-remaining-keeps-misread" in self.faults:
                    self.misreads_left += 1
                if "misread-card-not-out" in self.faults:
                    return True  # the card-out line is raised only for a card read
            else:
                read = card
                if "card-event-hearts-as-diamonds" in self.faults and card[1] == "H":
                    read = card[0] + "D"  # the reader's suit table maps the heart pattern to D
                if "card-event-ten-as-10" in self.faults and card[0] == "T":
                    read = "10" + card[1]  # the reader's rank table prints the ten as on the card
                if ("same-rank-card-reported-with-last-suit" in self.faults and self.last_read is not None
                        and self.last_read[0] == card[0]):
                    # fault same-rank-card-reported-with-last-suit: the reader decodes the rank first and, when it is
                    # the last card's, reuses that card's decoded pattern
                    read = self.last_read
                self.last_read = read
                self.last_card_event = {"event": "card", "card": read, "n": n}
                dropped = ("card-event-lost-in-burst" in self.faults and self.burst_pos is not None
                           and self.burst_pos >= 5)  # the reader's transmit ring holds five frames
                if self.swallow_card:
                    # fault card-event-swallowed-after-shoe-error: the reader's error recovery flushes the next frame
                    # it builds
                    self.swallow_card = False
                    dropped = True
                if not dropped:
                    self._card_event({"event": "card", "card": read, "n": n})
            if self.card_line_off:
                return True  # fault card-out-line-off-after-shoe-reboot: the controller never sees the card
            if self.last_out_misread and "misread-card-out-pulsed-twice" in self.faults:
                # fault misread-card-out-pulsed-twice: the reader's retry draws the unreadable card back over the
                # card-out sensor and out again: the line pulses twice
                self.card_out(card)
            self.card_out(card)
            return True

    def _card_event(self, event: dict[str, Any]) -> None:
        """The shoe's `card` event (fault card-events-sent-in-pairs: the reader's buffer goes out two at a time)."""
        if self.burst_stack is not None:
            self.burst_stack.append(event)  # fault burst-card-events-newest-first: held in the reader's ring
            return
        if self.dealing and "paced-card-event-queued-behind-count" in self.faults:
            # fault paced-card-event-queued-behind-count: in a paced deal the reader's frame waits in the transmit queue
            # behind the deal task's next tick (100 ms); the card is counted as it goes out
            threading.Timer(0.1, self._emit_late, args=("shoe", event)).start()
            return
        if "card-events-sent-in-pairs" not in self.faults:
            self.emit("shoe", event)
            return
        if self.held_card_event is not None:
            held, self.held_card_event = self.held_card_event, None
            self.emit("shoe", held)
            self.emit("shoe", event)
            return
        self.held_card_event = event
        epoch = self.power_epoch
        threading.Timer(0.4, self._flush_card_event, args=(event, epoch)).start()

    def _flush_card_event(self, event: dict[str, Any], epoch: int) -> None:
        with self.lock:
            if self.held_card_event is event and self.powered and self.power_epoch == epoch:
                self.held_card_event = None
                self.emit("shoe", event)
