"""The soak's result: counters, the frequency tests, memory samples, and the printed summary.

Only aggregates are kept (counts by violation kind, the first few messages, per-bin tallies,
first/last/max RSS), so the result is the same size after ten rounds or a million.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from harness.soak.stats import ALPHA, FrequencyTest, RssTrack
from harness.verdict import Verdict

#: violation messages kept (every violation is counted)
KEEP_MESSAGES = 200


@dataclass
class SoakResult:
    profile: str
    seed: int
    listen: str
    seats: tuple[int, ...]
    rounds_requested: int
    rounds: int = 0
    elapsed_s: float = 0.0
    violations: dict[str, int] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)
    tests: list[FrequencyTest] = field(default_factory=list)
    payouts_checked: int = 0
    meter_readings: int = 0
    meter_hits: dict[str, int] = field(default_factory=dict)
    base_wagers: bool = False
    rss: RssTrack = field(default_factory=RssTrack)
    emulator_rss: RssTrack = field(default_factory=RssTrack)
    peak_rss_kib: int = 0
    error: str | None = None
    evidence: list[str] = field(default_factory=list)
    interrupted: bool = False
    #: every mystery award, cents, in order (a few per thousand rounds)
    mystery_awards: list[int] = field(default_factory=list)
    #: the mystery battery over those awards (harness.randomness.evidence.mystery_check), or None
    mystery: dict[str, Any] | None = None
    #: ``test-channel`` (rounds loaded and dealt by the emulator) or ``observe`` (dealt at the table, read)
    mode: str = "test-channel"
    hours: str | None = None
    #: observe: shoes shuffled and loaded, cards read, operator prompts answered
    shoes: int = 0
    cards_read: int = 0
    prompts: int = 0

    def flag(self, kind: str, message: str) -> None:
        self.violations[kind] = self.violations.get(kind, 0) + 1
        if len(self.messages) < KEEP_MESSAGES:
            self.messages.append(f"[{kind}] {message}")

    @property
    def total_violations(self) -> int:
        return sum(self.violations.values())

    @property
    def rate(self) -> float:
        return self.rounds / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def ok(self) -> bool:
        return (self.rounds > 0 and self.error is None and not self.interrupted and self.total_violations == 0
                and not any(t.failed for t in self.tests)
                and (self.mystery is None or self.mystery["outcome"] != Verdict.FAIL))

    def to_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile, "seed": self.seed, "listen": self.listen, "seats": list(self.seats),
            "rounds_requested": self.rounds_requested, "rounds": self.rounds,
            "elapsed_s": round(self.elapsed_s, 3), "rounds_per_s": round(self.rate, 2),
            "violations": self.total_violations, "violations_by_kind": dict(sorted(self.violations.items())),
            "messages": self.messages, "frequency_tests": [t.to_dict() for t in self.tests],
            "payouts_checked": self.payouts_checked, "meter_readings": self.meter_readings,
            "meter_hits": dict(sorted(self.meter_hits.items())), "base_wagers": self.base_wagers,
            "rss": self.rss.to_dict(), "emulator_rss": self.emulator_rss.to_dict(),
            "peak_rss_kib": self.peak_rss_kib, "error": self.error, "evidence": self.evidence,
            "interrupted": self.interrupted, "mystery_awards": len(self.mystery_awards),
            "mystery_distribution": self.mystery, "ok": self.ok, "mode": self.mode, "hours": self.hours,
            "shoes": self.shoes, "cards_read": self.cards_read, "prompts": self.prompts,
        }


def iter_summary(res: SoakResult) -> Iterator[str]:
    """The human summary, line by line."""
    seats = ",".join(map(str, res.seats))
    if res.mode == "observe":
        yield (f"soak (observe only): {res.profile}, seats {seats}: {res.shoes} shoe(s) shuffled and dealt at the "
               f"table, {res.cards_read:,} cards read, {res.prompts:,} operator prompts")
    else:
        yield f"soak: {res.profile} over {res.listen}, seed {res.seed}, seats {seats}"
    of = f"{res.rounds_requested:,}" if res.rounds_requested else "no limit"
    within = f" (within {res.hours} h)" if res.hours else ""
    yield f"rounds: {res.rounds:,} of {of}{within} in {res.elapsed_s:.1f} s = {res.rate:.1f} rounds/s"
    hits = ", ".join(f"{k} {v}" for k, v in sorted(res.meter_hits.items())) or "none"
    yield (f"checked: {res.payouts_checked:,} payouts against the oracle, {res.meter_readings:,} meter readings; "
           f"meter hits: {hits}" + ("; base wagers placed (r9-requires-base-wager)" if res.base_wagers else ""))
    yield f"violations: {res.total_violations}"
    for kind, count in sorted(res.violations.items()):
        first = next((m for m in res.messages if m.startswith(f"[{kind}]")), "")
        yield f"  {kind}: {count}" + (f"  first: {first[len(kind) + 3:]}" if first else "")
    yield f"hit frequencies (chi-square against the exact math; fails below p = {ALPHA}):"
    for t in res.tests:
        if t.chi is None:
            yield f"  {t.name}: not tested ({t.note})"
            continue
        mark = "  FAIL" if t.failed else ""
        yield (f"  {t.name}: chi2 = {t.chi.statistic:.2f}, dof {t.chi.dof}, p = {t.chi.p_value:.4g} over "
               f"{t.rounds:,} rounds; bins {', '.join(t.bins)}{mark}" + (f" ({t.note})" if t.note else ""))
    if res.mystery is not None:
        m = res.mystery
        yield (f"mystery trigger distribution (Royal 9 (h)): {m['outcome']}: {m['awards']} awards, "
               f"{m['planned']} planned; {m['message']}")
    for label, track in (("harness", res.rss), ("emulator", res.emulator_rss)):
        if track.first is not None:
            steady = "" if track.steady_growth is None else f", {track.steady_growth:+,} KiB after the first sample"
            yield (f"memory ({label}): RSS first {track.first:,} KiB, last {track.last:,} KiB, max {track.max:,} KiB "
                   f"({track.samples} samples, growth {track.growth:+,} KiB{steady})")
    yield f"memory (harness): peak RSS {res.peak_rss_kib:,} KiB (getrusage)"
    if res.error:
        yield f"error: {res.error}"
        yield from (f"  {line}" for line in res.evidence)
    if res.interrupted:
        yield "interrupted"
    yield "result: " + (Verdict.PASS if res.ok else Verdict.FAIL)
