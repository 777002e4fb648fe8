"""The report's statistical section: each statistical test of a case with its statistic, p-value,
sample size, power and an inline SVG histogram of observed against expected, drawn from the record."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np

from harness.randomness import battery
from harness.randomness.evidence import measurements
from harness.randomness.models import ShufflerModel
from harness.randomness.settings import RandomnessSettings
from harness.record import RunMeta, RunRecorder, load_record
from harness.record.statistics import TEST_UNIT, histogram_svg

CLAUSE = "pa-607a2-a3-shuffle-random"


class Sections(HTMLParser):
    """The text of each case section, and the histogram SVGs inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.case: str | None = None
        self.svgs: dict[str, list[str]] = {}
        self.rects: dict[str, int] = {}
        self.text: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section" and "case" in (a.get("class") or ""):
            self.case = a.get("id")
        elif self.case and tag == "svg" and a.get("class") == "histogram":
            self.svgs.setdefault(self.case, []).append(a.get("aria-label") or "")
        elif self.case and tag == "rect" and a.get("class") == "observed":
            self.rects[self.case] = self.rects.get(self.case, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self.case = None

    def handle_data(self, data: str) -> None:
        if self.case:
            self.text.setdefault(self.case, []).append(data)


def _run(tmp_path: Path) -> tuple[Path, dict[str, battery.BatteryVerdict]]:
    settings = RandomnessSettings()
    plan = battery.plan_shuffler(settings, 1, "PA")
    verdicts = {
        "fair": battery.run_shuffler(plan, ShufflerModel().shuffle(np.random.default_rng(1), plan.required, 52)),
        "riffled": battery.run_shuffler(plan, ShufflerModel("riffles", riffles=3).shuffle(
            np.random.default_rng(2), plan.required, 52)),
    }
    rec = RunRecorder.create(tmp_path / "reports", RunMeta(profile_name="p", jurisdiction="PA", game="midibaccarat"))
    for name, verdict in verdicts.items():
        case = rec.begin_case(f"shuffler-{name}", f"Shuffler ({name})", [CLAUSE], "suites/randomness/x.suite.yaml", {})
        for m in measurements(verdict, CLAUSE):
            case.measure(m)
        rec.end_case(case, verdict.outcome, None if verdict.outcome == "PASS" else verdict.message, None)
    rec.finish()
    return rec.run_dir, verdicts


def test_each_statistical_test_is_shown_with_its_numbers_and_histogram(tmp_path: Path) -> None:
    run_dir, verdicts = _run(tmp_path)
    record = load_record(run_dir)
    page = (run_dir / "record-appendix.html").read_text("utf-8")
    assert "<script" not in page
    parsed = Sections()
    parsed.feed(page)
    for case in record.cases:
        verdict = verdicts[case.case_id.removeprefix("shuffler-")]
        section = next(k for k in parsed.text if k.endswith(case.case_id))
        text = " ".join(" ".join(parsed.text[section]).split())
        assert "Statistical tests" in text
        tests = [m for m in case.measurements if m.unit == TEST_UNIT]
        assert [m.value["test"] for m in tests] == [r.name for r in verdict.results]
        for m in tests:  # every number the record holds is on the page
            v = m.value
            for shown in (v["statistic"], v["p_value"], v["level"], f"{v['n']} shuffles"):
                assert shown in text, (case.case_id, v["test"], shown)
            assert (v["power"] or "not planned") in text
        with_hist = [m for m in tests if m.value["histogram"]]
        assert len(parsed.svgs[section]) == len(with_hist)  # one inline SVG per histogram
        assert parsed.rects[section] == sum(len(m.value["histogram"]["labels"]) for m in with_hist)
        for m in with_hist:  # the page's SVG is the record's histogram, drawn from it alone
            assert histogram_svg(m.value["histogram"]) in page
    fair = next(c for c in record.cases if c.case_id == "shuffler-fair")
    riffled = next(c for c in record.cases if c.case_id == "shuffler-riffled")
    assert fair.verdict == "PASS" and riffled.verdict == "FAIL"
    rising = next(m for m in riffled.measurements if m.name == "rising-sequences test")
    assert rising.outcome == "FAIL" and float(rising.value["p_value"]) <= float(rising.value["level"])


def test_histogram_svg_is_exact_and_refuses_what_is_not_a_histogram() -> None:
    data = {"title": "t <b>", "labels": ["a", "b"], "observed": [3, 1], "expected": ["2.0000", "2.0000"]}
    svg = histogram_svg(data)
    assert svg.count('class="observed"') == 2 and svg.count('class="expected"') == 2
    assert "<b>" not in svg and "t &lt;b&gt;" in svg
    assert all(float(x).is_integer() for x in re.findall(r'(?:x|y|width|height)="([-0-9.]+)"', svg))
    assert histogram_svg({**data, "observed": [1]}) == ""
    assert histogram_svg({**data, "expected": ["x", "1"]}) == ""


def test_a_two_stage_procedure_shows_both_stages_and_its_line(tmp_path: Path) -> None:
    from harness.randomness import confirm

    plan = battery.plan_shuffler(RandomnessSettings(), 1, "PA")
    riffled = [battery.run_shuffler(plan, ShufflerModel("riffles", riffles=3).shuffle(
        np.random.default_rng(seed), plan.required, 52)) for seed in (4, 5)]
    proc = confirm.run(plan, lambda k: riffled[k - 1])
    rec = RunRecorder.create(tmp_path / "reports", RunMeta(profile_name="p", jurisdiction="PA", game="midibaccarat"))
    case = rec.begin_case("shuffler-confirmed", "Shuffler (confirmed)", [CLAUSE], "suites/randomness/x.suite.yaml", {})
    for m in measurements(proc, CLAUSE):
        case.measure(m)
    rec.end_case(case, proc.outcome, proc.message, None)
    rec.finish()
    page = (rec.run_dir / "record-appendix.html").read_text("utf-8")
    parsed = Sections()
    parsed.feed(page)
    section = next(k for k in parsed.text if k.endswith("shuffler-confirmed"))
    text = " ".join(" ".join(parsed.text[section]).split())
    assert "Two-stage procedure" in text and "Stage" in text
    assert f"stage 1: {plan.required} of {plan.required} shuffles, rejects" in text
    assert f"stage 2: {plan.required} of {plan.required} shuffles, rejects" in text
    assert "false alarms at most 0.0001" in text
    assert "(stage 2)" in text  # the second stage's histograms are captioned as such
    assert len(parsed.svgs[section]) == 2 * sum(1 for r in riffled[0].results if r.histogram is not None)
