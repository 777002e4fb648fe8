"""A statistical case's histogram, observed against expected, as one inline ``<svg>`` element.

The record keeps the histogram as a measurement (:func:`histogram_data`: labels, observed counts,
expected counts as decimal strings); :func:`histogram_svg` draws it from that data alone, so the
report template can call it on any record, and the same record always renders the same bytes
(coordinates are integers computed with ``Fraction``; no script).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from html import escape
from typing import Any

from harness.randomness.stats import Histogram

WIDTH, HEIGHT = 560, 200
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 26, 40


def histogram_data(hist: Histogram) -> dict[str, Any]:
    """Exact JSON data for the record: observed counts as integers, expected as 4-decimal strings."""
    return {
        "title": hist.title,
        "labels": list(hist.labels),
        "observed": [round(v) for v in hist.observed],
        "expected": [str(Decimal(repr(float(v))).quantize(Decimal("0.0001"))) for v in hist.expected],
        "unit": hist.unit,
    }


def histogram_svg(data: Mapping[str, Any]) -> str:
    """Bars for the observed counts, a tick per bin for the expected count."""
    labels = [str(x) for x in data.get("labels", [])]
    observed = [Fraction(int(v)) for v in data.get("observed", [])]
    expected = [Fraction(Decimal(str(v))) for v in data.get("expected", [])]
    k = len(labels)
    if k == 0 or len(observed) != k or len(expected) != k:
        return ""
    top = max([*observed, *expected, Fraction(1)])
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
    for i, (label, obs, exp) in enumerate(zip(labels, observed, expected, strict=True)):
        x0 = LEFT + int(slot * i + (slot - bar) / 2)
        height = int(obs * ph / top)
        parts.append(f'<rect x="{x0}" y="{TOP + ph - height}" width="{int(bar)}" height="{height}" fill="#8fb3d9">'
                     f'<title>{escape(label)}: observed {_num(obs)}, expected {_num(exp)}</title></rect>')
        ey = TOP + ph - int(exp * ph / top)
        parts.append(f'<line x1="{x0 - 2}" y1="{ey}" x2="{x0 + int(bar) + 2}" y2="{ey}" stroke="#c0392b" '
                     'stroke-width="2"/>')
        if k <= 16:
            parts.append(f'<text x="{x0 + int(bar) // 2}" y="{TOP + ph + 14}" font-size="9" '
                         f'text-anchor="middle">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _num(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{Decimal(value.numerator) / Decimal(value.denominator):.1f}"
