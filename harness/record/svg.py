"""Meter timeline charts as inline SVG, with exact integer coordinates and no script.

A progressive meter moves in steps (an increment per qualifying wager, a drop to the reset amount
after a hit), so the chart is a step line through the readings.  It shows what the meter was
expected to show (dashed lines: the reset amount, and any amount a case required it to equal) and
marks every hit and reset the controller announced (vertical markers labelled "hit" / "reset"), so
a drop with no mark stands out.  A chart with fewer than two readings is not drawn: one point says
nothing a table does not.

Coordinates are computed with ``Fraction`` and floored to integers: the same record always renders
byte-identical SVG, with no float rounding, and money labels come from :func:`harness.money.fmt`
(integer cents).  A point is ``[t, cents]`` or ``[t, cents, mark]``; ``t`` is the reading number
(the runner's timelines) or milliseconds.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from html import escape
from typing import Any

from harness.money import fmt

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 96, 16, 28, 34
#: fewer readings than this and there is no chart
MIN_READINGS = 2
#: the charts' own style, inside each ``<svg>``: a PDF printer that draws inline SVG by itself
#: (WeasyPrint) does not apply the page's stylesheet to it, and a chart is then black boxes
SVG_STYLE = (
    "<style>.plot{fill:#fbfcfd;stroke:#d0d7de}.line{fill:none;stroke:#0969da;stroke-width:2}"
    ".pt{fill:#0969da}.pt.hit{fill:#cf222e}.expected{stroke:#1a7f37;stroke-dasharray:6 4;stroke-width:1.5}"
    ".mark{stroke:#cf222e;stroke-width:1}.band{fill:#fff8c5;stroke:none}"
    "text{font-size:11px;fill:#424a53;font-family:sans-serif}.ctitle{font-size:13px;font-weight:700}"
    ".ylab,.xlab1,.elab{text-anchor:end}.elab{fill:#1a7f37}.mlab{fill:#cf222e}.miss{font-size:13px;font-weight:700}"
    "</style>"
)


def _time(value: Any) -> Fraction:
    return Fraction(Decimal(str(value)))


def _is_reading_numbers(points: Sequence[Sequence[Any]]) -> bool:
    return all(isinstance(p[0], int) and not isinstance(p[0], bool) and p[0] == i for i, p in enumerate(points))


def _x_label(value: Fraction, readings: bool, unit: str = "ms") -> str:
    if readings:
        return f"reading {value.numerator + 1}"
    if value.denominator == 1:
        return f"{value.numerator} {unit}"
    return f"{Decimal(value.numerator) / Decimal(value.denominator):.3f} {unit}"


def _ordered(points: Sequence[Sequence[Any]]) -> list[tuple[Fraction, int, str]]:
    return sorted(((_time(p[0]), int(p[1]), str(p[2]) if len(p) > 2 else "") for p in points),
                  key=lambda p: p[0])


def chart_points(points: Sequence[Sequence[Any]], expected: Sequence[int] = ()) -> list[tuple[int, int]]:
    """Pixel coordinates (x, y) of each point, in time order (ties keep their order); the amount
    axis spans the readings and the ``expected`` amounts."""
    pts = _ordered(points)
    if not pts:
        return []
    t0, t1 = pts[0][0], pts[-1][0]
    amounts = [c for _, c, _ in pts] + list(expected)
    c0, c1 = min(amounts), max(amounts)
    tspan = (t1 - t0) or Fraction(1)
    cspan = (c1 - c0) or 1
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    return [(LEFT + int((t - t0) * pw // tspan), TOP + ph - (c - c0) * ph // cspan) for t, c, _ in pts]


def _y(cents: int, lo: int, hi: int) -> int:
    ph = HEIGHT - TOP - BOTTOM
    return TOP + ph - (cents - lo) * ph // ((hi - lo) or 1)


def meter_chart(meter: str, points: Sequence[Sequence[Any]], expected: Sequence[tuple[str, int]] = (),
                unit: str = "ms") -> str:
    """One ``<svg>`` element charting a meter's amount over its readings ("" under two readings).

    ``expected``: (label, cents) amounts the meter was expected to show, drawn as dashed lines;
    ``unit``: what the points' times count (ms in a case, s over a whole run)."""
    if len(points) < MIN_READINGS:
        return ""
    pts = _ordered(points)
    coords = chart_points(points, [c for _, c in expected])
    readings = _is_reading_numbers(points)
    amounts = [c for _, c, _ in pts] + [c for _, c in expected]
    lo, hi = min(amounts), max(amounts)
    # step path: hold the previous amount until the next point's time, then jump
    path = [f"M{coords[0][0]},{coords[0][1]}"]
    for (_, y_prev), (x, y) in itertools.pairwise(coords):
        path.append(f"H{x}" if y == y_prev else f"H{x}V{y}")
    x_axis = HEIGHT - BOTTOM
    name = escape(meter)
    marks = sum(1 for *_, m in pts if m)
    parts = [
        f'<svg class="chart" role="img" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" aria-label="{name} meter timeline">{SVG_STYLE}',
        f"<title>{name} meter: {len(coords)} readings, {marks} marked hit/reset</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{x_axis - TOP}" class="plot"/>',
        f'<text x="{LEFT}" y="{TOP - 10}" class="ctitle">{name}</text>',
        f'<text x="{LEFT - 6}" y="{TOP + 4}" class="ylab">{escape(fmt(hi))}</text>',
        f'<text x="{LEFT - 6}" y="{x_axis}" class="ylab">{escape(fmt(lo))}</text>',
        f'<text x="{LEFT}" y="{x_axis + 18}" class="xlab0">{escape(_x_label(pts[0][0], readings, unit))}</text>',
        f'<text x="{WIDTH - RIGHT}" y="{x_axis + 18}" class="xlab1">'
        f'{escape(_x_label(pts[-1][0], readings, unit))}</text>',
    ]
    for label, cents in expected:
        y = _y(cents, lo, hi)
        text = escape(f"{label} {fmt(cents)}")
        parts.append(f'<line x1="{LEFT}" y1="{y}" x2="{WIDTH - RIGHT}" y2="{y}" class="expected">'
                     f"<title>expected: {text}</title></line>")
        parts.append(f'<text x="{WIDTH - RIGHT - 4}" y="{y - 3}" class="elab">{text}</text>')
    for (x, _), (_, _, mark) in zip(coords, pts, strict=True):
        if mark:
            parts.append(f'<line x1="{x}" y1="{TOP}" x2="{x}" y2="{x_axis}" class="mark"/>'
                         f'<text x="{x + 3}" y="{TOP + 12}" class="mlab">{escape(mark)}</text>')
    parts.append(f'<path d="{"".join(path)}" class="line"/>')
    for (x, y), (t, c, mark) in zip(coords, pts, strict=True):
        label = escape(f"{_x_label(t, readings, unit)}: {fmt(c)}" + (f" ({mark})" if mark else ""))
        parts.append(f'<circle cx="{x}" cy="{y}" r="3" class="pt{" hit" if mark else ""}">'
                     f"<title>{label}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)
