"""Named personas: behaviours the rules PERMIT, each one a choice a compliant device may make
otherwise than the reference emulator does.

A defect (harness.emulators.defects) breaks a clause and must be caught; a persona breaks none and
must PASS.  A persona is switched on by name (the profile's ``emulator.persona``, ``tablecert
emulate --persona NAME``) and read by the state machine at one place with an
``if "name" in self.cfg.personas`` branch.  ``tablecert variants`` draws personas with the Rules
Submissions; every variant must pass under each.

Each persona says what a lab would write in the profile for such a device (``config_writes``):
the declaration is what makes a refusal a permitted choice and not a FAIL.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from harness.devices.vocabulary import ANSWER_LIMIT_MS, PROTOCOL_VERSIONS
from harness.errors import InputError
from harness.profiles.configwrites import ALL_BETWEEN_ROUNDS, NONE_WRITABLE
from harness.profiles.model import Timing

#: the configuration fields a ``no-rewrite-while-amounts`` controller keeps while a meter shows an amount
PLAY_FIELDS = ("denomination", "combinations", "decks")
#: the share of the lock-out deadline a ``lockout-at-the-limit`` controller takes (the rest is the
#: host-stamp jitter a bench without a counter allows; docs/device-profiles.md)
LIMIT_SHARE = Decimal("0.8")


def _frozen(d: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class Persona:
    name: str
    description: str
    #: what the rules leave to the device here, cited
    permitted_by: str
    #: the profile's ``config_writes`` for a device with this persona (None: the capability's default)
    config_writes: Mapping[str, str] | None = None
    #: the variant kinds (harness.selfcheck.variants.KINDS) it means something on
    kinds: tuple[str, ...] = ("royal9", "royal9-mystery", "ez-baccarat", "hit-and-run", "baccarat", "mini-streak3")
    extra: Mapping[str, str] = field(default_factory=dict)
    #: slow to certify (every answer late): ``tablecert variants`` gives it one variant of a set, not
    #: the random draws of the rest, unless it is the only persona asked for
    once: bool = False


PERSONAS: dict[str, Persona] = {p.name: p for p in (
    Persona("fixed-configuration",
            "refuses every configuration write (REFUSED: the configuration is fixed by the Rules Submission)",
            "no clause of 629a Royal 9 or 461a.12 requires a controller to take a configuration write",
            config_writes=NONE_WRITABLE),
    Persona("no-rewrite-while-amounts",
            "refuses a change of the denomination, a personal combination or the decks while a progressive "
            "meter shows an amount; takes the other writes between rounds",
            "461a.12(i): once an amount appears on a progressive meter the probability of hitting may not be "
            "decreased; refusing every such change is the safest reading",
            config_writes=_frozen({**ALL_BETWEEN_ROUNDS, **dict.fromkeys(PLAY_FIELDS, "no-amount-shown")}),
            kinds=("royal9", "royal9-mystery", "hit-and-run")),
    Persona("lockout-at-the-limit",
            f"locks out {LIMIT_SHARE:%} of the profile's lock-out deadline after the first card, not at once",
            "629a Royal 9 (a)(2) and the profile's timing.lockout_deadline_ms: any latency within the limit"),
    Persona("at-every-limit",
            f"takes {LIMIT_SHARE:%} of every timing limit the contract and the profile state: locks out that share "
            "of timing.lockout_deadline_ms after the first card, answers every request that share of the "
            "100 ms (or timing.response_timeout_ms, if shorter) after it arrives, notices a lost sensors link that "
            "share of timing.comm_timeout_ms after the cut",
            "629a Royal 9 (a)(2) and timing.lockout_deadline_ms, docs/protocol.md section 5 (an answer within "
            "100 ms) and timing.comm_timeout_ms (the silence after which the link must be treated as lost): any "
            "latency within its limit", once=True),
    Persona("contract-version-1",
            f"speaks the oldest contract version tablecert supports ({PROTOCOL_VERSIONS[0]}): answers hello "
            "reading `version` only, and sends that version's shapes (meters.get pending keyed by meter)",
            "docs/protocol.md, \"Versions and change log\": a device built to an older version is certified "
            "against that version's contract, never failed for a shape a later version chose"),
    Persona("omits-optional-fields",
            "leaves out every field docs/protocol.md marks optional: identity model and program_hash, a "
            "misread card's raw reading, meters.get diverted for a meter below its cap",
            "docs/protocol.md sections 6.1, 6.2 and 8: model, program_hash and raw are optional, diverted is "
            "required only for a meter standing at its cap"),
    Persona("reordered-events",
            "the shoe reports each card after the controller has acted on it: the events of the round's last "
            "card (payouts, hits, round_end) come before that card's own card event",
            "docs/protocol.md section 8: the shoe's card events travel on the shoe's own line and may arrive "
            "after round_end; the regulations fix no order between two devices' reports"),
    Persona("other-refusal-reasons",
            "gives the other refusal where the contract lets it choose: NAK REFUSED rather than BAD_ARGS for a "
            "wager at a seat outside 1..9 and a deck count outside 1..16, and no-base-wager before any other "
            "cause for a Royal 9 wager at a seat with no base-game wager",
            "docs/protocol.md sections 6.3 and 8: either NAK is a refusal; the contract fixes no order between "
            "two refusal causes that both hold (629a Royal 9 (b) and the closed layout, a seat the table lacks)"),
)}


def _share(limit: Any) -> str:
    """LIMIT_SHARE of a limit in milliseconds (the profile's text or number), as the profile writes it."""
    return str((Decimal(str(limit)) * LIMIT_SHARE).quantize(Decimal("0.01")))


def check_personas(names: Iterable[str]) -> None:
    """Refuse an unknown persona name (a typo must not silently run the reference behaviour)."""
    for name in names:
        if name not in PERSONAS:
            raise InputError(f"persona {name!r}: unknown (known: {', '.join(sorted(PERSONAS))})")


def kept_fields(ctrl: Any, new: Any) -> str | None:
    """Why a controller with a persona keeps its configuration against the change to ``new`` (the
    REFUSED reason), or None: ``fixed-configuration`` refuses any change, ``no-rewrite-while-amounts``
    a change of the denomination, a personal combination or the decks while a meter shows an amount.
    A write of the values in force changes nothing and is taken."""
    cfg = ctrl.cfg
    if "fixed-configuration" in cfg.personas and new != cfg:
        return "the configuration is fixed by the Rules Submission"
    if "no-rewrite-while-amounts" in cfg.personas:
        moved = [name for name, attr in (("denomination", "denomination"), ("combinations", "seats"),
                                         ("decks", "decks")) if getattr(new, attr) != getattr(cfg, attr)]
        shown = ctrl.bank.amounts() if ctrl.bank else {}
        if moved and any(amount > 0 for amount in shown.values()):
            return (f"{' and '.join(moved)} cannot change while the progressive meters show amounts "
                    "(461a.12(i))")
    return None


def apply_persona(profile: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A profile (its YAML shape) of the same table played by a device with persona ``name``: the
    emulator switched to it and the profile declaring what a lab knows of such a device (its
    ``config_writes``; for ``lockout-at-the-limit`` and ``at-every-limit`` the latencies the emulator
    takes, for ``contract-version-1`` the contract version it speaks)."""
    check_personas((name,))
    persona = PERSONAS[name]
    out = copy.deepcopy(dict(profile))
    emulator = dict(out.get("emulator") or {})
    emulator["persona"] = name
    # the profile's limits, else their defaults (docs/device-profiles.md, "timing")
    timing = {**{k: str(v) for k, v in vars(Timing()).items() if v is not None}, **(out.get("timing") or {})}
    if name in ("lockout-at-the-limit", "at-every-limit"):
        emulator["lockout_latency_ms"] = _share(timing["lockout_deadline_ms"])
    if name == "at-every-limit":
        answer = min(Decimal(ANSWER_LIMIT_MS), Decimal(str(timing["response_timeout_ms"])))
        emulator["answer_latency_ms"] = _share(answer)
        emulator["comm_loss_latency_ms"] = _share(timing["comm_timeout_ms"])
    if name == "contract-version-1":
        emulator["contract_version"] = PROTOCOL_VERSIONS[0]
    out["emulator"] = emulator
    if persona.config_writes is not None:
        caps = [c for c in out.get("capabilities") or () if c != "config-write"]
        out["capabilities"] = caps
        out["config_writes"] = dict(persona.config_writes)
    return out
