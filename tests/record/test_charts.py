"""The report pages' pictures: the lock-out latency of every timed round against the limit with the
uncertainty band, one chart per meter over the run against time, and a flat meter said in words."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from recordkit import build_run

from harness.record.charts import Latency, latencies, latency_chart, meter_pictures, run_series, thinned, uncertainty_ms
from harness.record.journal import load_record
from harness.record.model import ROUND_LATENCIES, Measurement


def test_every_round_is_a_point_against_the_limit_and_its_band() -> None:
    rounds = [Latency("c", 1, Decimal("0.3"), "counter"), Latency("c", 2, Decimal("1.7"), "counter"),
              Latency("c", 3, None, "counter")]
    svg = latency_chart(rounds, Decimal("1.0"), Decimal("0.02"))
    assert svg.count("<circle") == 2 and svg.count('class="pt hit"') == 1
    assert "c round 3: no lock-out" in svg and "×" in svg
    assert 'class="band"' in svg and "limit 1.0 ms" in svg
    assert "1 over it" not in svg and "2 over it or without a lock-out" in svg
    assert 'class="band"' not in latency_chart(rounds, Decimal("1.0"), None)
    assert latency_chart([], Decimal("1.0"), None) == ""


def test_latencies_take_each_case_s_round_series_or_its_single_readings(tmp_path: Path) -> None:
    record = load_record(build_run(tmp_path, verdicts=("PASS", "PASS")))
    record.cases[0].measurements.append(Measurement(ROUND_LATENCIES, [[1, "0.3", "counter"], [2, None, "host"]],
                                                    "ms", "<= 1.0", "FAIL"))
    record.cases[1].measurements.append(Measurement("lock-out latency after the first card (time-interval counter)",
                                                    "0.25", "ms", "<= 1.0", "PASS"))
    assert [(r.case_id, r.round, r.ms, r.by) for r in latencies(record)] == [
        ("case-0-pass", 1, Decimal("0.3"), "counter"), ("case-0-pass", 2, None, "host"),
        ("case-1-pass", 1, Decimal("0.25"), "counter")]


def test_uncertainty_as_a_profile_or_certificate_states_it() -> None:
    assert uncertainty_ms("± 0.02 ms") == Decimal("0.02")
    assert uncertainty_ms("20 µs") == Decimal("0.02")
    assert uncertainty_ms("not stated") is None


def test_meters_over_the_run_against_time_and_a_flat_meter_in_words(tmp_path: Path) -> None:
    record = load_record(build_run(tmp_path, verdicts=("PASS", "PASS")))
    record.cases[1].timelines["minor"] = [[0, 45_000], [1, 45_000], [2, 45_000]]  # reading numbers, flat
    series = run_series(record)
    assert sorted(p[1] for p in series["mega"]) == sorted([5_000_000, 5_000_005, 5_000_010, 5_000_000] * 2)
    assert all(a[0] <= b[0] for a, b in zip(series["mega"], series["mega"][1:], strict=False))
    pictures = {p["meter"]: p for p in meter_pictures(record, {"mega": 5_000_000})}
    assert pictures["minor"]["svg"] == "" and pictures["minor"]["text"] == \
        "the minor meter stayed at $450.00 over 3 readings"
    assert "<svg" in pictures["mega"]["svg"] and "reset $50,000.00" in pictures["mega"]["svg"]
    assert " s</text>" in pictures["mega"]["svg"]  # against time, in seconds from the start of the run


def test_a_long_series_is_thinned_to_its_changes_and_every_mark() -> None:
    points = [[i, 100 + i // 3] + (["hit"] if i == 500 else []) for i in range(3000)]
    kept = thinned(points, most=100)
    assert len(kept) <= 101 and kept[0] == points[0] and kept[-1] == points[-1]
    assert points[500] in kept
    assert thinned([[0, 5], [1, 5], [2, 5]]) == [[0, 5], [2, 5]]


def test_the_report_page_carries_both_pictures(tmp_path: Path) -> None:
    run = build_run(tmp_path, verdicts=("PASS",))
    html = (run / "record.html").read_text("utf-8")
    assert "Meters over the run" in html and 'aria-label="mega meter timeline"' in html


def test_a_case_s_flat_meter_is_a_sentence_in_the_appendix(tmp_path: Path) -> None:
    from harness.record.report import charts

    record = load_record(build_run(tmp_path, verdicts=("PASS",)))
    case = record.cases[0]
    case.timelines["minor"] = [["0.0", 45_000], ["12.5", 45_000]]
    shown = [str(c) for c in charts(record, case)]
    assert '<p class="flat">The minor meter stayed at $450.00 over 2 readings.</p>' in shown
    assert any("<svg" in c and "mega meter timeline" in c for c in shown)
