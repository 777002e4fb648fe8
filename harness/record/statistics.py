"""The report's statistical section: each statistical test of a case, with its histogram as inline SVG.

A statistical case (the shuffler, shoe and mystery batteries, :mod:`harness.randomness.evidence`)
records, per test, a measurement of unit :data:`TEST_UNIT` whose value is plain, exact data: the
test's name and null hypothesis, its statistic, p-value and the level Holm's procedure held it to,
the sample size against the planned one, the power that sample has against the declared defects,
and a histogram (labels, observed counts, expected counts as decimal strings).  The report reads
those alone (:func:`statistical_tests`), so any record renders, and :func:`histogram_svg` draws the
histogram: bars for what was observed, a line per bin for what the null hypothesis expects.
A battery judged by the two-stage procedure records each test once per stage (``stage`` 1 or 2)
and the procedure itself (unit :data:`PROCEDURE_UNIT`: each stage's size and what it found, the
false-alarm bound and the power), which :func:`statistical_procedures` reads.
Coordinates are integers computed with ``Fraction``, every text is escaped and there is no
script: the same record always renders the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from html import escape
from typing import Any

from markupsafe import Markup

from harness.record.model import CaseResult

#: the unit of a statistical test's measurement
TEST_UNIT = "statistical-test"
#: the unit of a two-stage procedure's measurement (harness.randomness.confirm): its stages and verdict
PROCEDURE_UNIT = "statistical-procedure"
WIDTH, HEIGHT = 560, 200
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 26, 40


def _fraction(value: Any) -> Fraction | None:
    try:
        return Fraction(Decimal(str(value)))
    except (InvalidOperation, ValueError, TypeError):
        return None


def histogram_svg(data: Mapping[str, Any]) -> str:
    """One ``<svg>``: bars for the observed counts, a tick per bin for the expected count ("" when the
    data is not a histogram)."""
    labels = [str(x) for x in data.get("labels", [])]
    observed = [_fraction(v) for v in data.get("observed", [])]
    expected = [_fraction(v) for v in data.get("expected", [])]
    k = len(labels)
    if k == 0 or len(observed) != k or len(expected) != k:
        return ""
    obs = [v for v in observed if v is not None]
    exp = [v for v in expected if v is not None]
    if len(obs) != k or len(exp) != k:
        return ""
    top = max([*obs, *exp, Fraction(1)])
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = Fraction(pw, k)
    bar = slot * 3 / 4
    title = escape(str(data.get("title", "")))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="histogram" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{title}">',
             f'<text x="{LEFT}" y="16" font-size="12">{title}: observed (bars) against expected (lines)</text>',
             f'<line x1="{LEFT}" y1="{TOP + ph}" x2="{LEFT + pw}" y2="{TOP + ph}" stroke="#333"/>',
             f'<text x="{LEFT - 4}" y="{TOP + 4}" font-size="10" text-anchor="end">{_num(top)}</text>',
             f'<text x="{LEFT - 4}" y="{TOP + ph}" font-size="10" text-anchor="end">0</text>']
    for i, (label, o, e) in enumerate(zip(labels, obs, exp, strict=True)):
        x0 = LEFT + int(slot * i + (slot - bar) / 2)
        height = int(o * ph / top)
        parts.append(f'<rect class="observed" x="{x0}" y="{TOP + ph - height}" width="{int(bar)}" height="{height}" '
                     f'fill="#8fb3d9"><title>{escape(label)}: observed {_num(o)}, expected {_num(e)}</title></rect>')
        ey = TOP + ph - int(e * ph / top)
        parts.append(f'<line class="expected" x1="{x0 - 2}" y1="{ey}" x2="{x0 + int(bar) + 2}" y2="{ey}" '
                     'stroke="#c0392b" stroke-width="2"/>')
        if k <= 16:
            parts.append(f'<text x="{x0 + int(bar) // 2}" y="{TOP + ph + 14}" font-size="9" '
                         f'text-anchor="middle">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _num(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{Decimal(value.numerator) / Decimal(value.denominator):.1f}"


def summary(value: Mapping[str, Any]) -> str:
    """A statistical test's measurement in one line (the measurement tables' "actual" column)."""
    power = value.get("power")
    return (f"statistic {value.get('statistic')}, p {value.get('p_value')} (level {value.get('level')}), "
            f"n {value.get('n')} {value.get('unit', '')} of {value.get('planned')} planned, power "
            f"{power if power is not None else 'not planned'}")


def procedure_summary(value: Mapping[str, Any]) -> str:
    """A two-stage procedure's measurement in one line."""
    stages = value.get("stages") or []
    parts = "; ".join(f"stage {st.get('stage')}: {st.get('n')} of {st.get('planned')} {value.get('unit', '')}, "
                      f"{st.get('found')}" for st in stages if isinstance(st, Mapping))
    return (f"{value.get('outcome')}: {parts}; false alarms at most {value.get('procedure_alpha')} "
            f"(alpha {value.get('alpha')} per stage), power at least {value.get('power')} "
            f"({value.get('stage_power')} per stage)")


def statistical_procedures(case: CaseResult) -> list[dict[str, Any]]:
    """The case's two-stage procedures: battery, verdict and the one-line summary."""
    return [{"battery": str(m.value.get("battery", m.name)), "outcome": m.outcome,
             "summary": procedure_summary(m.value), "message": str(m.value.get("message", ""))}
            for m in case.measurements if m.unit == PROCEDURE_UNIT and isinstance(m.value, Mapping)]


def statistical_tests(case: CaseResult) -> list[dict[str, Any]]:
    """The case's statistical tests, in the order recorded, each with its histogram as ``Markup``."""
    out = []
    for m in case.measurements:
        if m.unit != TEST_UNIT or not isinstance(m.value, Mapping):
            continue
        v = m.value
        hist = v.get("histogram")
        svg = histogram_svg(hist) if isinstance(hist, Mapping) else ""
        out.append({
            "test": str(v.get("test", m.name)), "null": str(v.get("null", "")),
            "stage": "" if v.get("stage") is None else str(v.get("stage")),
            "statistic": str(v.get("statistic", "")), "df": "" if v.get("df") is None else str(v.get("df")),
            "side": str(v.get("side", "")), "p_value": str(v.get("p_value", "")), "level": str(v.get("level", "")),
            "n": str(v.get("n", "")), "unit": str(v.get("unit", "")), "planned": str(v.get("planned", "")),
            "power": "not planned" if v.get("power") is None else str(v.get("power")),
            "planned_for": ", ".join(str(d) for d in v.get("planned_for", []) or []),
            "outcome": m.outcome, "detail": str(v.get("detail", "")),
            "svg": Markup(svg),  # built from escaped text and integers (histogram_svg)
        })
    return out
