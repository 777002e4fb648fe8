"""Confidence, power and declared defect sizes: from the profile's ``randomness:`` section, else
from the jurisdiction.

The level each battery is judged at comes from the jurisdiction unless the profile states it:
Maryland requires an automated shuffler to meet a 95% confidence level on a chi-squared
goodness-of-fit test (COMAR 36.05.02.17.F); West Virginia asks for chi-square, runs, correlation
and serial correlation tests at 99% confidence (W. Va. Code 29-22B-909).  Pennsylvania's table
game regulations name no level; GLI-29 (Card Shufflers and Dealer Shoes), the lab standard, tests
at 99%, which is the default here.

The verdict is reached by a two-stage (confirmation) procedure unless the profile says
``randomness: {confirm: false}``: a statistical rejection of the first sample is a FAIL only when a
second, independent sample of the planned size rejects too (:mod:`harness.randomness.confirm`);
each stage is then planned for the power :attr:`RandomnessSettings.stage_power`, the square root
of the planned power rounded up, so the two stages together keep at least the planned power.

The declared defects are the smallest departures the lab commits to detect with at least the
planned power (default 99%); each is a defect of the shuffler models in
:mod:`harness.randomness.models`, so the emulator can carry it at exactly that size.

Profile section (every key optional; docs/randomness.md)::

    randomness:
      confidence: "99%"
      power: "99%"
      confirm: true           # two stages (a rejection confirmed on a second sample); false: one
      shuffler:
        cards: 416              # default: decks x 52
        bins: 10                # position bins of the card-position test
        riffles: 10             # a riffle shuffler with this many passes
        biased_cut: {riffles: 12, cut: "0.3"}
        stuck_card: {probability: "25%", span: 41}   # span default: a tenth of the pack
        period: 100             # a generator that repeats every 100 shuffles
        shuffles_per_hour: 30
      shoe: {correlation: "0.05", position_w: "0.05", shoes_per_hour: "1.5"}
      mystery:
        laws: [at-must-hit-by, reseed-plus-one, lower-half]   # the trigger laws to detect
        distance: "0.3"         # also: every law at this Kolmogorov distance (default: not declared)
        rounds_per_hour: 60
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal, localcontext
from typing import TYPE_CHECKING, Any

from harness.schema import check_decimal, check_enum

if TYPE_CHECKING:
    from harness.randomness.models import ShufflerModel

#: confidence level by jurisdiction, with its source
JURISDICTION_CONFIDENCE: dict[str, tuple[Decimal, str]] = {
    "MD": (Decimal("0.95"), "COMAR 36.05.02.17.F (automated shuffler: 95% chi-square)"),
    "WV": (Decimal("0.99"), "W. Va. Code 29-22B-909 (chi-square, runs, correlation, serial correlation at 99%)"),
}
DEFAULT_CONFIDENCE = (Decimal("0.99"), "GLI-29 lab practice (no level in the jurisdiction's text)")
DEFAULT_POWER = Decimal("0.99")
#: a stage's power is the square root of the planned power rounded up to this
STAGE_POWER_STEP = Decimal("0.0001")


@dataclass(frozen=True)
class ShufflerDefects:
    """The shuffler defects a battery must detect, each at its declared size."""

    cards: int | None = None
    bins: int = 10
    riffles: int = 10
    cut_riffles: int = 12
    cut: Decimal = Decimal("0.3")
    stuck_probability: Decimal = Decimal("0.25")
    #: bottom positions the stuck card stays in; None = a tenth of the pack
    stuck_span: int | None = None
    period: int = 100
    shuffles_per_hour: Decimal = Decimal(30)

    def pack(self, decks: int) -> int:
        return self.cards if self.cards is not None else 52 * decks

    def models(self, n: int) -> dict[str, ShufflerModel]:
        """Defect name (as the emulator names it) -> model at the declared size, for ``n`` cards."""
        from harness.randomness.models import ShufflerModel  # noqa: PLC0415 - numpy: not at `validate` start-up

        span = self.stuck_span if self.stuck_span is not None else max(1, n // self.bins)
        return {
            "shuffler-few-riffles": ShufflerModel("riffles", riffles=self.riffles),
            "shuffler-biased-cut": ShufflerModel("riffles", riffles=self.cut_riffles, cut=float(self.cut)),
            "shuffler-stuck-card": ShufflerModel("stuck", probability=float(self.stuck_probability), span=span),
            "shuffler-short-period": ShufflerModel("period", period=self.period),
        }


@dataclass(frozen=True)
class ShoeDefects:
    """Shoe sequences: a lag-1 correlation and a rank-by-position effect (Cohen's w per card)."""

    correlation: Decimal = Decimal("0.05")
    position_w: Decimal = Decimal("0.05")
    bins: int = 8
    shoes_per_hour: Decimal = Decimal("1.5")


#: trigger laws a mystery controller must not have (Royal 9 (h) "random must hit by amount"): the
#: profile's short name -> the emulator defect that carries it (harness.emulators.defects)
MYSTERY_LAWS: dict[str, str] = {
    "at-must-hit-by": "mystery-trigger-at-must-hit-by",
    "reseed-plus-one": "mystery-trigger-reseed-plus-one",
    "lower-half": "mystery-trigger-lower-half",
}


@dataclass(frozen=True)
class MysteryDefects:
    """Mystery awards: the trigger laws to detect (every award's trigger at exactly must-hit-by, at
    the reseed plus one cent, or uniform in the lower half of the range), and optionally a guarantee
    against *every* law at Kolmogorov distance ``distance`` or more from the declared one."""

    laws: tuple[str, ...] = tuple(MYSTERY_LAWS)
    distance: Decimal | None = None
    rounds_per_hour: Decimal = Decimal(60)


@dataclass(frozen=True)
class RandomnessSettings:
    """What the profile declares (None: the jurisdiction's level applies)."""

    confidence: Decimal | None = None
    power: Decimal = DEFAULT_POWER
    shuffler: ShufflerDefects = field(default_factory=ShufflerDefects)
    shoe: ShoeDefects = field(default_factory=ShoeDefects)
    mystery: MysteryDefects = field(default_factory=MysteryDefects)
    #: two stages: a statistical rejection is confirmed on a second, independent sample
    confirm: bool = True

    @property
    def stages(self) -> int:
        return 2 if self.confirm else 1

    @property
    def stage_power(self) -> Decimal:
        """The power each stage is planned for: the planned power itself with one stage; with two,
        its square root rounded up to :data:`STAGE_POWER_STEP` (0.9950 for 99%, 0.9747 for 95%), so
        that a defect is caught by both stages with probability at least ``stage_power ** 2 >= power``."""
        if not self.confirm:
            return self.power
        with localcontext() as ctx:
            ctx.prec = 28
            root = self.power.sqrt()
        return root.quantize(STAGE_POWER_STEP, rounding=ROUND_CEILING)

    def level(self, jurisdiction: str | None) -> tuple[Decimal, str]:
        """The confidence level and where it comes from."""
        if self.confidence is not None:
            return self.confidence, "the profile's randomness.confidence"
        return JURISDICTION_CONFIDENCE.get((jurisdiction or "").upper(), DEFAULT_CONFIDENCE)


def _share(f: Any, key: str, default: Decimal) -> Decimal:
    """'99%' or '0.99' -> Decimal('0.99'), strictly between 0 and 1."""
    if key not in f:
        return default
    raw = f.raw(key)
    text = str(raw).strip()
    percent = text.endswith("%")
    value = f.get_decimal(key, lo=Decimal(0), hi=Decimal(100)) if not percent else None
    if percent:
        value = check_decimal(text[:-1], f.loc(key), f.name(key), lo=Decimal(0), hi=Decimal(100)) / 100
    assert value is not None
    if not Decimal(0) < value < Decimal(1):
        raise f.error(key, f"{f.name(key)}: {raw} must lie strictly between 0 and 1 (or 0% and 100%)")
    return value


def parse_randomness(f: Any) -> RandomnessSettings:
    """The profile's ``randomness:`` section (``f``: the profile's :class:`harness.schema.Fields`)."""
    if "randomness" not in f:
        return RandomnessSettings()
    rf = f.get_map("randomness", optional=("confidence", "power", "confirm", "shuffler", "shoe", "mystery"))
    s = RandomnessSettings()
    shuffler = s.shuffler
    if "shuffler" in rf:
        sf = rf.get_map("shuffler", optional=("cards", "bins", "riffles", "biased_cut", "stuck_card", "period",
                                              "shuffles_per_hour"))
        d = ShufflerDefects()
        cut_riffles, cut = d.cut_riffles, d.cut
        if "biased_cut" in sf:
            bf = sf.get_map("biased_cut", required=("riffles", "cut"))
            cut_riffles = bf.get_int("riffles", lo=1, hi=64)
            cut = _share(bf, "cut", d.cut)
        prob, span = d.stuck_probability, d.stuck_span
        if "stuck_card" in sf:
            tf = sf.get_map("stuck_card", required=("probability",), optional=("span",))
            prob = _share(tf, "probability", d.stuck_probability)
            span = tf.get_int("span", None, lo=1)
        shuffler = ShufflerDefects(
            cards=sf.get_int("cards", None, lo=8, hi=5000), bins=sf.get_int("bins", d.bins, lo=2, hi=100),
            riffles=sf.get_int("riffles", d.riffles, lo=1, hi=64), cut_riffles=cut_riffles, cut=cut,
            stuck_probability=prob, stuck_span=span, period=sf.get_int("period", d.period, lo=1, hi=10_000_000),
            shuffles_per_hour=sf.get_decimal("shuffles_per_hour", d.shuffles_per_hour, lo=Decimal("0.001")))
    shoe = s.shoe
    if "shoe" in rf:
        hf = rf.get_map("shoe", optional=("correlation", "position_w", "bins", "shoes_per_hour"))
        d2 = ShoeDefects()
        shoe = ShoeDefects(_share(hf, "correlation", d2.correlation), _share(hf, "position_w", d2.position_w),
                           hf.get_int("bins", d2.bins, lo=2, hi=100),
                           hf.get_decimal("shoes_per_hour", d2.shoes_per_hour, lo=Decimal("0.001")))
    mystery = s.mystery
    if "mystery" in rf:
        mf = rf.get_map("mystery", optional=("laws", "distance", "rounds_per_hour"))
        d3 = MysteryDefects()
        laws = d3.laws
        if "laws" in mf:
            items = mf.get_list("laws")
            laws = tuple(dict.fromkeys(check_enum(v, loc, f"{mf.name('laws')}[{i}]", tuple(MYSTERY_LAWS))
                                       for i, v, loc in items.enumerate_locs()))
        distance = _share(mf, "distance", Decimal(0)) if "distance" in mf else None
        if not laws and distance is None:
            raise mf.error("laws", "no trigger law and no distance declared: the mystery battery would have "
                                   "nothing to detect")
        mystery = MysteryDefects(laws, distance,
                                 mf.get_decimal("rounds_per_hour", d3.rounds_per_hour, lo=Decimal("0.001")))
    confidence = _share(rf, "confidence", Decimal("0.99")) if "confidence" in rf else None
    return RandomnessSettings(confidence, _share(rf, "power", DEFAULT_POWER), shuffler, shoe, mystery,
                              rf.get_bool("confirm", True))
