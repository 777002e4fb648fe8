"""The variant matrix: compliant Rules Submissions other than ours, each certified against the
built-in emulator configured the same way.

A suite tuned to the shipped emulator's own configuration gives a false FAIL on a compliant device
whose Rules Submission differs.  :func:`generate` draws ``count`` compliant profiles from a seed:
one to nine seats (numbers not necessarily consecutive), every personal king-9 combination across
the set, rates of progression from 0.1% to 5%, initial and reset amounts above the floors of
Royal 9 (f)(2), (g)(2), both denominations, payout limits and display capacities, one to eight
decks, the dealer's soft-17 rule, every choice of every interpretation the harness reads
(:data:`LIVE_CHOICES`), an automatic or a button-only lock-out, and with or without the optional
capabilities (the mystery progressive among them).  Each variant's ``emulator:`` section configures
the built-in emulators to implement that Rules Submission, so every variant must PASS: a FAIL is a
defect of the harness, and :func:`run_variants` prints the seed and the command that reproduces it.

The choice of variant ``i`` depends only on ``(seed, i)`` and the coverage plan of the whole set,
so ``--only I`` reproduces one variant of a run exactly.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from harness import exitcodes
from harness.emulators.personas import PERSONAS, apply_persona, check_personas
from harness.money import Cents, fmt
from harness.record.document import Record
from harness.record.replay import load_record
from harness.selfcheck.draws import COMBOS, FLOORS, RATES
from harness.selfcheck.jobs import child_env, run_job
from harness.selfcheck.link_variants import link_profile, summary
from harness.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("royal9", "royal9-mystery", "ez-baccarat", "hit-and-run", "baccarat", "link", "mini-streak3")
#: what a won Mini-Baccarat three-consecutive-games wager pays (WAC 230-15-040(8)(b) states no odds)
STREAK3_PAYS = ("5 to 1", "6 to 1", "7 to 1", "8 to 1", "7 for 1", "9 for 1")
OPTIONAL = ("power-control", "comm-loss", "latency-counter", "config-write", "misread-report")

@dataclass(frozen=True)
class Live:
    """An interpretation the harness reads: its choices (default first), the kinds of table it
    matters on, and where it is read (the oracle, the emulators, the cases)."""

    choices: tuple[Any, ...]
    kinds: tuple[str, ...]
    read_by: str


_R9 = ("royal9", "royal9-mystery")
_BAC = ("royal9", "royal9-mystery", "ez-baccarat", "baccarat")
_ALL = tuple(k for k in KINDS if k != "link")  # a link's tables keep these at their defaults
#: every interpretation of the catalogue, with where it is read; a variant set covers every choice
LIVE_CHOICES: dict[str, Live] = {
    "r9-envy-for-mega-winner": Live((False, True), _R9, "oracle and emulator (Royal9Table); r9-5-mega and the "
                                    "oracle's payouts"),
    "r9-envy-requires-wager": Live((True, False), _R9, "oracle and emulator (Royal9Table); mega envy cases"),
    "r9-personal-combo-suited": Live((True, False), _R9, "profile validation (one seat when false), oracle and "
                                     "emulator (Royal9Table), the stack builder"),
    "r9-one-award-per-wager": Live((True, False), _R9, "oracle and emulator; the fixed-line cases say when"),
    "r9-order-insensitive": Live((True, False), _R9, "oracle and emulator; the stack builder; nine-first cases"),
    "r9-mega-excludes-major-minor": Live((True, False), _R9, "oracle and emulator; expect_meter_hits"),
    "r9-rank-by-amount": Live((False, True), _R9, "oracle and emulator; the two-jackpot case says when"),
    "r9-requires-base-wager": Live((True, False), _R9, "emulated sensors; the rounds step; wagering cases"),
    "award-returns-stake": Live((True, False), (*_R9, "hit-and-run"), "oracle and emulator; expect_payout award:"),
    "hr-bust-counts": Live((True, False), ("hit-and-run",), "oracle and emulator (settle_hit_and_run)"),
    "hr-dealer-completes": Live((True, False), ("hit-and-run",), "oracle (dealer_hand), emulator (round.settle "
                                "on an incomplete hand), end_round cases"),
    "hr-simultaneous-meter-winners": Live(("each-paid-meter", "shared"), ("hit-and-run",),
                                          "oracle and emulator (meter_shares)"),
    "lockout-automatic": Live((True, False), _BAC, "emulator (no lock on the first card), the deal steps (the "
                              "dealer presses the button), expect_lockout, lock-out cases"),
    "lockout-latency-limit-ms": Live(("1.0", "0.5", "2.0", "5.0", "10.0"), _ALL, "expect_lockout's deadline"),
    "nmb-announcement": Live(("controller-input", "first-card"), _BAC, "emulator (no no-more-bets input), "
                             "the no-more-bets cases"),
    "meter-residual-on-reset": Live(("carry", "discard"), (*_R9, "hit-and-run"), "emulator (Meter), mystery_play"),
    "meter-payout-limit-check": Live(("set-and-reset", "current-only"), _R9,
                                     "expect_meter_bounds, configure_meter, the explorer's model (the emulator "
                                     "refuses under both)"),
    "mystery-award-amount": Live(("meter-at-trigger", "trigger-amount"), ("royal9-mystery",),
                                 "emulator (MysteryMeter); mystery_play holds for both"),
    "ez-dragon7-definition": Live(("banker-three-card-7-wins", "banker-three-card-7"), ("ez-baccarat",),
                                  "oracle, emulator and tablecert deal (wager_options); Dragon 7 tie cases"),
    "ez-player-wager-on-panda8": Live(("wins-even-money", "push"), ("ez-baccarat",),
                                      "oracle, emulator and tablecert deal (wager_options); Panda 8 cases"),
    "bac-commission-rounding": Live(("down", "up"), ("baccarat", *_R9), "oracle, emulator and tablecert deal "
                                    "(wager_options); banker-commission-rounded"),
    "wa-wagering-area-is-seat": Live((True, False), _ALL, "expect_areas (seats, or seats x wager types)"),
    "wa-identical-areas-personal-combos": Live((True, False), _ALL, "expect_identical_area_returns"),
    "wa-envy-is-bonus-feature": Live((True, False), _ALL, "the mega envy bonus-feature case says when"),
    "wa-carryover-excludes-progressive": Live((True, False), ("ez-baccarat", "baccarat"),
                                              "progressive-meter-is-a-carryover-pot says when"),
    "meter-461a12-applies-to-tables": Live((True, False), (*_R9, "hit-and-run"), "case applicability: a case "
                                           "citing only 461a.12 clauses does not apply when false"),
    "meter-reset-timing": Live(("after-payment", "at-hit"), (*_R9, "hit-and-run"), "emulator (Meter: pending or "
                               "not), hits_to_pay, expect_r9_meter_award, the hit-and-reset cases"),
    "id-fields-from-device": Live(("all", "manufacturer-fields"), _ALL, "emulator (identity), expect_identity, "
                                  "identity-location-from-device"),
    "link-wager-measure": Live(("money", "denomination-units"), ("link",), "the link profile loader and "
                               "expect_link_chances (harness.math.link_exact); a variant's pools follow it"),
    "link-simultaneous-hits": Live(("each-paid-meter", "shared"), ("link",), "the emulated link controller, "
                                   "link_simultaneous_hit and expect_link_meters"),
    "wa-streak3-tie": Live(("loses", "push"), ("mini-streak3",), "oracle (harness.games.streak), emulator "
                           "(settle: a riding wager), the streak3 and single_deal_rounds steps; the tie cases "
                           "say when"),
}
#: the wager types each kind of table offers per seat (WAC 230-15-040(2): spots per seat)
TYPES_PER_SEAT = {"royal9": 4, "royal9-mystery": 4, "ez-baccarat": 5, "baccarat": 3, "hit-and-run": 2, "link": 4,
                  "mini-streak3": 5}


def _compatible(kind: str, interp: dict[str, Any], interp_id: str, choice: Any) -> bool:
    """Whether one more choice keeps the variant a table a compliant device can be."""
    trial = {**interp, interp_id: choice}
    # without a no-more-bets input the first card is the announcement: it locks, so it is automatic
    return not (trial.get("lockout-automatic") is False and trial.get("nmb-announcement") == "first-card")


@dataclass(frozen=True)
class Variant:
    seed: int
    index: int
    kind: str
    profile: dict[str, Any]
    #: what this variant stands for in the coverage plan, as short labels
    covers: tuple[str, ...] = ()
    #: the permitted behaviour its emulator takes (harness.emulators.personas); None: the reference's
    persona: str | None = None

    @property
    def name(self) -> str:
        return str(self.profile["name"])

    def yaml(self) -> str:
        head = (f"# Variant {self.index} of seed {self.seed} ({self.kind}, persona {self.persona or 'reference'}): "
                "a compliant Rules Submission drawn by\n"
                f"# tablecert variants; the built-in emulators implement it.  Covers: {', '.join(self.covers)}\n")
        return head + yaml.safe_dump(self.profile, sort_keys=False, width=110)

    def summary(self) -> str:
        """The persona and the Rules Submission, one line."""
        return f"persona {self.persona or 'reference'}; {self.rules_summary()}"

    def rules_summary(self) -> str:
        """The Rules Submission alone, one line."""
        if "link" in self.profile:
            return summary(self.profile)
        rules = self.profile["rules"]
        seats = [s["seat"] for s in rules["seats"]]
        place = self.profile.get("jurisdiction")
        bits = [self.profile["game"], "+".join(place) if isinstance(place, list) else str(place),
                f"seats {','.join(map(str, seats))}"]
        if "denomination" in rules:
            bits.append(f"${rules['denomination']}")
        bits.append(f"{rules.get('decks', rules.get('hit_and_run', {}).get('decks'))} deck(s)")
        if "streak3" in rules:
            bits.append(f"streak3 pays {rules['streak3']['pays']}")
        interp = self.profile.get("interpretations") or {}
        bits += [f"{k}={_show(v)}" for k, v in interp.items()]
        return "; ".join(bits)


def _show(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


# -------------------------------------------------------------------------------- the plan


@dataclass
class _Plan:
    """Which variant carries which requirement, so the whole set covers each at least once."""

    kind: list[str] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    denomination: list[int] = field(default_factory=list)
    interp: list[dict[str, Any]] = field(default_factory=list)
    extremes: list[str | None] = field(default_factory=list)
    persona: list[str | None] = field(default_factory=list)


def _personas(seed: int, kinds: Sequence[str], allowed: Sequence[str | None]) -> list[str | None]:
    """A persona for each variant: every allowed persona on some variant of a kind it means something
    on, the reference behaviour (None) among them, the rest drawn (a persona marked ``once``, slow to
    certify, only where nothing else is allowed)."""
    rng = random.Random(f"personas:{seed}")
    out: list[str | None] = [None] * len(kinds)
    free = list(range(len(kinds)))
    rng.shuffle(free)
    for name in allowed:
        fits = [i for i in free if name is None or kinds[i] in PERSONAS[name].kinds]
        if fits:
            out[fits[0]] = name
            free.remove(fits[0])
    for i in free:
        fits_i = [n for n in allowed if n is None or kinds[i] in PERSONAS[n].kinds]
        # a slow persona (every answer late) keeps to its one variant when others may be drawn
        fits_i = [n for n in fits_i if n is None or not PERSONAS[n].once] or fits_i
        out[i] = rng.choice(fits_i) if fits_i else None
    return out


def _plan(seed: int, count: int, personas: Sequence[str | None] = ()) -> _Plan:
    rng = random.Random(f"plan:{seed}")
    plan = _Plan()
    base = ["royal9", "royal9-mystery", "royal9", "ez-baccarat", "hit-and-run", "royal9", "baccarat",
            "royal9-mystery", "link", "mini-streak3"]
    plan.kind = [base[i % len(base)] for i in range(count)]
    rng.shuffle(plan.kind)
    seat_counts = list(range(1, 10))
    rng.shuffle(seat_counts)
    # one to nine seats over the single tables (a link draws its tables' seats itself)
    plan.seats = [0] * count
    for j, i in enumerate(i for i in range(count) if plan.kind[i] != "link"):
        plan.seats[i] = seat_counts[j % 9]
    plan.denomination = [5 if i % 2 == 0 else 1 for i in range(count)]
    rng.shuffle(plan.denomination)
    plan.interp = [{} for _ in range(count)]
    plan.extremes = [None] * count
    # every non-default choice of every live interpretation, on a variant of a kind it matters on
    for interp_id, live in LIVE_CHOICES.items():
        for choice in live.choices[1:]:
            fits = [i for i in range(count) if plan.kind[i] in live.kinds and interp_id not in plan.interp[i]
                    and _compatible(plan.kind[i], plan.interp[i], interp_id, choice)]
            if not fits:
                continue
            fits.sort(key=lambda i: (len(plan.interp[i]), rng.random()))
            plan.interp[fits[0]][interp_id] = choice
    r9 = [i for i in range(count) if plan.kind[i] in _R9]
    rng.shuffle(r9)
    for i, which in zip(r9, ("0.1", "5"), strict=False):
        plan.extremes[i] = which
    plan.persona = _personas(seed, plan.kind, personas) if personas else [None] * count
    return plan


# -------------------------------------------------------------------------------- one variant


def generate(seed: int, count: int, personas: Sequence[str | None] | None = None) -> list[Variant]:
    """``count`` compliant Rules Submissions drawn from ``seed`` (see the module docstring), each
    played by the emulators with one of ``personas`` (permitted behaviours; None the reference one;
    default every persona and the reference)."""
    if count < 1:
        raise ValueError("count must be at least 1")
    if personas is None:
        personas = (None, *PERSONAS)
    plan = _plan(seed, count, personas)
    return [_variant(seed, i, plan) for i in range(count)]


def _variant(seed: int, i: int, plan: _Plan, *, matrix: bool = False) -> Variant:
    rng = random.Random(f"{'matrix' if matrix else 'variant'}:{seed}:{i}")
    kind = plan.kind[i]
    interp = dict(plan.interp[i])
    if kind == "link":  # several tables on the common meters of a link (harness.selfcheck.link_variants)
        drawn = link_profile(seed, i, interp, matrix=matrix)
        return Variant(seed, i, kind, drawn,
                       ("link", *(f"{k}={_show(v)}" for k, v in sorted(drawn["interpretations"].items()))))
    covers = [kind]
    n = plan.seats[i]
    if interp.get("r9-personal-combo-suited") is False:
        n = 1  # "unique" leaves room for one combination when any king with any nine is the same one
    covers.append(f"{n} seat(s)")
    caps = {c for c in OPTIONAL if matrix or rng.random() < 0.6}
    button_only = interp.get("lockout-automatic") is False
    if button_only:
        covers.append("button lock-out")
    if button_only or matrix or rng.random() < 0.7:
        caps.add("lockout-button")
    if interp.get("wa-wagering-area-is-seat") is False:
        n = min(n, 9 // TYPES_PER_SEAT[kind])  # every wager spot is an area: at most nine of them
    seats = sorted(rng.sample(range(1, 10), n))
    rules: dict[str, Any] = {}
    profile: dict[str, Any] = {
        "spec": "tablecert/profile/1",
        "name": f"{'matrix' if matrix else 'variant'}-{seed}-{i:02d}",
        "description": f"Variant {i} of seed {seed}: {kind}",
        "game": "midibaccarat",
        # mostly both jurisdictions (the Washington cases run too), now and then Pennsylvania alone
        "jurisdiction": ["PA", "WA"] if matrix or random.Random(f"jurisdiction:{seed}:{i}").random() < 0.75 else "PA",
        "devices": {
            "shoe": {"driver": "reference-shoe", "port": "emulator"},
            "sensors": {"driver": "reference-sensors", "port": "emulator"},
            "controller": {"driver": "reference-controller", "port": "emulator"},
            "counter": {"driver": "scpi-counter", "resource": "emulator"},
            "power": {"driver": "scpi-power", "resource": "emulator"},
        },
    }
    if kind in _R9:
        caps |= {"royal9", "reset-key"}
        denomination = plan.denomination[i]
        rules["denomination"] = denomination
        rules["decks"] = rng.choice((2, 4, 6, 8) if matrix else (1, 2, 4, 6, 8, 8))
        rules["commission"] = rng.choice(("5%", "5%", "4%", "2.5%"))
        pool = COMBOS
        if interp.get("wa-identical-areas-personal-combos") is False:  # every area the same return
            pool = tuple(c for c in COMBOS if c[0][1] != c[1][1])
        combos = rng.sample(pool, n)
        rules["seats"] = [{"seat": s, "combo": list(c)} for s, c in zip(seats, combos, strict=True)]
        rules["meters"] = {m: _meter(rng, FLOORS[denomination][m], plan.extremes[i], m, matrix)
                           for m in ("mega", "major", "minor")}
        covers.append(f"${denomination}")
        if kind == "royal9-mystery":
            caps.add("mystery")
            rules["mystery"] = {"configuration": rng.choice((1, 2, 3)),
                                "paid_by": "table" if matrix else rng.choice(("table", "table", "attendant"))}
            covers.append(f"mystery configuration {rules['mystery']['configuration']} paid by "
                          f"{rules['mystery']['paid_by']}")
    elif kind == "ez-baccarat":
        profile["game"] = "ez-baccarat"
        caps |= {"dragon7", "panda8"}
        rules["decks"] = rng.choice((2, 6, 8) if matrix else (1, 2, 6, 8))
        rules["commission"] = "0%"
        rules["seats"] = [{"seat": s} for s in seats]
    elif kind == "mini-streak3":
        # WAC 230-15-040(8)(b): the wager exists in Mini-Baccarat, in Washington (Pennsylvania's texts have
        # no such wager, so the table is certified for Washington alone)
        profile["game"] = "minibaccarat"
        profile["jurisdiction"] = "WA"
        caps.add("streak3")
        rules["decks"] = rng.choice((2, 6, 8) if matrix else (1, 2, 6, 8))
        rules["commission"] = rng.choice(("5%", "4%", "2.5%"))
        rules["seats"] = [{"seat": s} for s in seats]
        rules["streak3"] = {"pays": rng.choice(STREAK3_PAYS)}
        covers.append(f"streak3 pays {rules['streak3']['pays']}")
    elif kind == "baccarat":
        profile["game"] = rng.choice(("baccarat", "minibaccarat", "midibaccarat"))
        rules["decks"] = rng.choice((2, 6, 8))
        rules["commission"] = rng.choice(("5%", "4%", "2.5%"))
        rules["seats"] = [{"seat": s} for s in seats]
    else:
        profile["game"] = "blackjack-hit-and-run"
        caps |= {"hit-and-run", "reset-key"}
        rules["seats"] = [{"seat": s} for s in seats]
        meter = _meter(rng, rng.choice((50_000, 100_000, 250_000)), None, "hit-and-run", matrix)
        rules["hit_and_run"] = {"decks": rng.choice((1, 2, 4, 6, 8)), "soft17": rng.choice(("hit", "stand")),
                                "meter": meter}
        covers.append(f"soft 17 {rules['hit_and_run']['soft17']}")
    profile["capabilities"] = sorted(caps)
    profile["rules"] = rules
    limit = rng.choice(("1.0", "2.0") if matrix else ("0.5", "1.0", "2.0", "5.0"))
    if "lockout-latency-limit-ms" in interp:
        limit = str(interp["lockout-latency-limit-ms"])
    if Decimal(limit) < 5 and "lockout-latency-limit-ms" in interp:
        caps.add("latency-counter")
    if "latency-counter" not in caps:
        limit = "5.0" if "lockout-latency-limit-ms" not in interp else limit
    latency = (Decimal(limit) * Decimal("0.3")).quantize(Decimal("0.01"))
    profile["timing"] = {"lockout_deadline_ms": limit, "comm_timeout_ms": "500"}
    profile["interpretations"] = {k: interp[k] for k in sorted(interp)}
    covers += [f"{k}={_show(v)}" for k, v in sorted(interp.items())]
    profile["emulator"] = {"lockout_latency_ms": str(latency), "deal_pace_ms": "15", "defect": None,
                           "seed": rng.randrange(1, 2**31)}
    persona = plan.persona[i] if plan.persona else None
    if persona is not None:
        profile = apply_persona(profile, persona)
        covers.append(f"persona {persona}")
    return Variant(seed, i, kind, profile, tuple(covers), persona)


def _meter(rng: random.Random, floor: Cents, extreme: str | None, name: str, matrix: bool = False) -> dict[str, str]:
    rate = extreme if extreme is not None else rng.choice(RATES)
    above = rng.choice((0, 0, 1, 5, 50, 1234))
    reset = floor + above * rng.choice((1, 100))
    initial = reset + rng.choice((0, 0, 100, 2500))
    limit = max(initial, reset) * rng.choice((2, 3, 5)) + rng.choice((1, 99, 0))
    capacity = max(limit, rng.choice((99_999_99, 999_999_99)))
    out = {"rate": f"{rate}%", "initial": fmt(initial), "reset": fmt(reset), "payout_limit": fmt(limit)}
    if matrix or rng.random() < 0.85 or name == "mega":
        out["display_capacity"] = fmt(capacity)
    return out


# -------------------------------------------------------------------------------- the kill matrix

#: the kinds of table (harness.emulators.defects.TABLES) each matrix variant stands for
MATRIX_KINDS = {"royal9-mystery": ("royal9", "mystery"), "ez-baccarat": ("baccarat", "ez-baccarat"),
                "hit-and-run": ("hit-and-run",), "link": ("link",), "mini-streak3": ("streak3",)}


#: the personas the kill matrix draws for one of its variants when none is chosen: those under which
#: the whole matrix has been run and every defect caught (reordered-events, seed 534287208, and
#: contract-version-1, seed 16933410: 69/69 each; benchmarks/README.md).
#: Not drawn: fixed-configuration and no-rewrite-while-amounts, which refuse writes through which
#: the configuration defects show (reset-below-floor, payout-limit-below-current, meter-wraps,
#: rate-write-deferred, ...: a device that refuses a write never applies it wrongly, so on such a
#: variant those defects may leave nothing to catch), at-every-limit, whose 80 ms answers lengthen
#: every run of its variant several times over, and the personas no full matrix has been run on.
MATRIX_PERSONAS = ("reordered-events", "contract-version-1")


def matrix_variants(seed: int, persona: str | None = None) -> list[Variant]:
    """Five variants for the kill matrix: a $5 Royal 9 table with a mystery progressive, an EZ
    Baccarat table, a Hit and Run table, a link of tables (harness.selfcheck.link_variants) and a Washington
    Mini-Baccarat table with the three-consecutive-games wager, each with other seats, combinations,
    rates, amounts, pays and decks than the shipped profiles, every optional capability, and the
    default interpretations (the named defects are defects under those readings).  Enough seats for
    every defect to show: mystery play to an award needs five $5 Royal 9 wagers a round, a mega hand
    two decks.

    ``persona``: every variant of a kind it means something on is played by that persona
    (``"reference"``: none is).  None: one variant, drawn from the seed, is played by a persona drawn
    from :data:`MATRIX_PERSONAS`, so every matrix run proves the defects caught on a device that
    behaves otherwise than the reference emulator somewhere."""
    n = len(MATRIX_KINDS)
    plan = _Plan(kind=list(MATRIX_KINDS), seats=[0] * n, denomination=[5] * n, interp=[{} for _ in range(n)],
                 extremes=[None] * n)
    rng = random.Random(f"matrix:{seed}")
    plan.seats = [rng.randint(5, 9), rng.randint(2, 9), rng.randint(2, 9), 0, rng.randint(2, 9)]
    plan.persona = [None] * n
    if persona is None:
        pick = random.Random(f"matrix-persona:{seed}")
        drawn = pick.choice(MATRIX_PERSONAS)
        fits = [i for i, kind in enumerate(plan.kind) if kind in PERSONAS[drawn].kinds]
        plan.persona[pick.choice(fits)] = drawn
    elif persona != "reference":
        check_personas((persona,))
        plan.persona = [persona if kind in PERSONAS[persona].kinds else None for kind in plan.kind]
    out = []
    for i in range(n):
        v = _variant(seed, i, plan, matrix=True)
        out.append(v)
    return out


def matrix_tables(variants: Sequence[Variant], paths: Sequence[Path]) -> dict[str, str]:
    """Kind of table -> the matrix variant's profile path."""
    tables: dict[str, str] = {}
    for v, path in zip(variants, paths, strict=True):
        for table in MATRIX_KINDS.get(v.kind, ()):
            tables[table] = str(path)
    return tables


# -------------------------------------------------------------------------------- running


@dataclass
class VariantOutcome:
    variant: Variant
    exit_code: int
    seconds: Decimal
    profile_path: Path
    tally: str = ""
    failures: list[str] = field(default_factory=list)
    #: INCONCLUSIVE cases played again alone (:func:`play_again`), each with what it gave then
    played_again: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.exit_code in (exitcodes.PASS, exitcodes.PARTIAL)  # a chosen subset of suites is PARTIAL


def write(variants: Iterable[Variant], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for v in variants:
        path = directory / f"{v.name}.yaml"
        path.write_text(v.yaml())
        paths.append(path)
    return paths


#: emulator instances a wait-bound variant's run is split over (``tablecert run -n``, whole suite files
#: to each, one record): its time is the device's deliberate latencies, not the host's work, so its
#: suite files waiting side by side shorten the matrix's longest run (360 s alone in CI) without a core
WAIT_BOUND_SPLIT = 4


def run_command(profile: Path, report_dir: Path, suites: Sequence[str] = (), split: int = 0) -> list[str]:
    return [sys.executable, "-m", "harness", "run", *suites, "--profile", str(profile), "--report-dir",
            str(report_dir), "-q", *(["-n", str(split)] if split > 1 else [])]


def run_one(variant: Variant, profile: Path, report_dir: Path, deadline_s: float,
            suites: Sequence[str] = ()) -> VariantOutcome:
    """Certify one variant in its own ``tablecert run`` process (its own emulators and record)."""
    t0 = time.monotonic()
    log = report_dir / f"{variant.name}.log"
    report_dir.mkdir(parents=True, exist_ok=True)
    split = WAIT_BOUND_SPLIT if wait_bound(variant) else 0
    ended = run_job(run_command(profile, report_dir / variant.name, suites, split), ROOT, log, child_env(), deadline_s)
    code = 3 if ended.past_deadline or ended.returncode is None else ended.returncode
    tally, failures = read_tally(report_dir / variant.name)
    undecided = inconclusive_only(report_dir / variant.name)
    again: list[str] = []
    if code == exitcodes.RIG_ERROR and not failures and undecided is not None:
        code, again = play_again(variant, profile, report_dir, undecided, deadline_s)
    outcome = VariantOutcome(variant, code, Decimal(str(round(time.monotonic() - t0, 1))), profile)
    outcome.tally, outcome.failures, outcome.played_again = tally, failures, again
    if code not in (exitcodes.PASS, exitcodes.PARTIAL) and not outcome.failures:
        tail = log.read_text(errors="replace").strip().splitlines()[-5:]
        outcome.failures = [f"run exit {code}: {' / '.join(tail)}"]
    return outcome


def _records(report_dir: Path) -> tuple[dict[Path, Record], list[str]]:
    """The run's records under ``report_dir`` but those merged into another (a split run leaves its
    workers' records beside the merged one), and the folders that hold no readable record."""
    runs = sorted(p for p in report_dir.iterdir() if p.is_dir()) if report_dir.is_dir() else []
    records: dict[Path, Record] = {}
    bad: list[str] = []
    for run in runs:
        try:
            records[run] = load_record(run)
        except Exception as exc:  # an unreadable record is reported, not a crash of the matrix
            bad.append(f"{run.name}: no readable record ({exc})")
    merged = {str(m.get("run_id")) for record in records.values() for m in record.merged_from}
    return {run: r for run, r in records.items() if r.run_id not in merged}, bad


def inconclusive_only(report_dir: Path) -> tuple[Path, list[str]] | None:
    """The record and its INCONCLUSIVE cases when those are all that kept a finished run from PASS
    (every other case PASSED or was NOT APPLICABLE), else None."""
    records, bad = _records(report_dir)
    if bad or len(records) != 1:
        return None
    (run, record), = records.items()
    if not record.complete:
        return None
    undecided = [c.case_id for c in record.cases if c.verdict == Verdict.INCONCLUSIVE]
    others = {c.verdict for c in record.cases} - {Verdict.PASS, Verdict.NOT_APPLICABLE, Verdict.INCONCLUSIVE}
    return (run, undecided) if undecided and not others else None


def play_again(variant: Variant, profile: Path, report_dir: Path, undecided: tuple[Path, list[str]],
               deadline_s: float) -> tuple[int, list[str]]:
    """Play a run's INCONCLUSIVE cases again, once, alone (``tablecert run --rerun-failed``).

    A case is INCONCLUSIVE when one sample over a limit is within the host's own jitter (a persona
    answering at the very limit, on a loaded CI host): that decides nothing about the harness, and
    neither does counting it as a failure.  Played again alone it must PASS: the variant then passes,
    and the replay is listed beside it; anything else keeps the variant failed (exit 3)."""
    run, cases = undecided
    again_dir = report_dir / f"{variant.name}-again"
    log = report_dir / f"{variant.name}-again.log"
    command = [sys.executable, "-m", "harness", "run", "--rerun-failed", str(run), "--profile", str(profile),
               "--report-dir", str(again_dir), "-q"]
    ended = run_job(command, ROOT, log, child_env(), deadline_s)
    passed = not ended.past_deadline and ended.returncode in (exitcodes.PASS, exitcodes.PARTIAL)
    word = "PASS" if passed else f"not PASS (exit {ended.returncode})"
    return (exitcodes.PASS if passed else exitcodes.RIG_ERROR,
            [f"{case} INCONCLUSIVE, played again alone: {word}" for case in cases])


def read_tally(report_dir: Path) -> tuple[str, list[str]]:
    """``pass/fail/error/n-a`` and the cases that did not pass, from the run's record.

    A split run (``tablecert run -n N``) leaves its workers' records beside the one merged from them:
    only the merged one counts, so no case is counted twice."""
    records, bad = _records(report_dir)
    counts: dict[str, int] = {}
    for record in records.values():
        for c in record.cases:
            counts[c.verdict] = counts.get(c.verdict, 0) + 1
            if c.verdict in (Verdict.FAIL, Verdict.ERROR, Verdict.TIMEOUT, Verdict.INTERRUPTED):
                bad.append(f"{c.case_id} {c.verdict}")
    tally = "/".join(str(counts.get(v, 0)) for v in (Verdict.PASS, Verdict.FAIL, Verdict.ERROR, Verdict.NOT_APPLICABLE))
    return tally, bad


#: a kind's run against the reference's, roughly (main-job times of the shipped profiles: midi-5 with the
#: mystery ~50 s, midi-5 ~25 s, midi-1 ~20 s, baccarat tables ~10 s, Hit and Run and a link ~6 to 12 s)
KIND_COST = {"royal9-mystery": 5.0, "royal9": 2.5, "baccarat": 1.2, "ez-baccarat": 1.0, "mini-streak3": 1.0,
             "link": 1.0, "hit-and-run": 0.6}
#: a persona's run against the reference's: at-every-limit answers every request at the limit (80 ms)
PERSONA_COST = {"at-every-limit": 5.0}


#: personas whose runs mostly wait on the device's own deliberate latencies (at-every-limit: some
#: 3,000 answers 80 ms late, 258 s of a run whose work takes ~20 s of CPU): such a run gets a worker
#: of its own beside the ``jobs`` ones rather than holding one of them for minutes
WAIT_BOUND_PERSONAS = frozenset({"at-every-limit"})


def expected_cost(v: Variant) -> float:
    """A variant's run time relative to the others' (only the order of the runs uses it)."""
    return KIND_COST.get(v.kind, 1.0) * PERSONA_COST.get(v.persona or "", 1.0)


def wait_bound(v: Variant) -> bool:
    """Whether the variant's run mostly waits (:data:`WAIT_BOUND_PERSONAS`) rather than computes."""
    return (v.persona or "") in WAIT_BOUND_PERSONAS


def run_variants(variants: Sequence[Variant], *, jobs: int, work_dir: Path, deadline_s: float,
                 suites: Sequence[str] = (),
                 progress: Callable[[VariantOutcome], None] | None = None) -> list[VariantOutcome]:
    """Run every variant, ``jobs`` at a time, the longest expected first (a long run started last
    would be left running alone), each run that mostly waits (:func:`wait_bound`) at once beside them;
    the outcomes come back in the variants' order."""
    paths = write(variants, work_dir / "profiles")

    def one(pair: tuple[Variant, Path]) -> VariantOutcome:
        outcome = run_one(pair[0], pair[1], work_dir / "records", deadline_s, suites)
        if progress:
            progress(outcome)
        return outcome

    pairs = list(zip(variants, paths, strict=True))
    order = sorted(range(len(pairs)), key=lambda i: -expected_cost(pairs[i][0]))
    waiting = [i for i in order if wait_bound(pairs[i][0])]
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="variants") as pool, \
            ThreadPoolExecutor(max_workers=max(1, len(waiting)), thread_name_prefix="variants-waiting") as beside:
        futures = {i: (beside if i in waiting else pool).submit(one, pairs[i]) for i in order}
        return [futures[i].result() for i in range(len(pairs))]


def choices_covered(variants: Iterable[Variant]) -> dict[str, set[str]]:
    """Interpretation id -> the choices some variant takes (defaults count for variants of a kind
    the interpretation matters on and that do not override it)."""
    out: dict[str, set[str]] = {k: set() for k in LIVE_CHOICES}
    for v in variants:
        interp = v.profile.get("interpretations") or {}
        for k, live in LIVE_CHOICES.items():
            if k in interp:
                out[k].add(_show(interp[k]))
            elif v.kind in live.kinds:
                out[k].add(_show(live.choices[0]))
    return out
