"""Meter timeline charts as inline SVG, with exact integer coordinates and no script.

A progressive meter moves in steps (an increment per qualifying wager, a drop to the reset amount
after a hit), so the chart is a step line.  Coordinates are computed with ``Fraction`` and floored
to integers: the same record always renders byte-identical SVG, with no float rounding, and money
labels come from :func:`harness.money.fmt` (integer cents).
"""

from __future__ import annotations

import itertools
from decimal import Decimal
from fractions import Fraction
from html import escape
from typing import Any

from harness.money import fmt

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 96, 16, 28, 34


def _time(value: Any) -> Fraction:
    return Fraction(Decimal(str(value)))


def _ms_label(value: Fraction) -> str:
    if value.denominator == 1:
        return f"{value.numerator} ms"
    return f"{Decimal(value.numerator) / Decimal(value.denominator):.3f} ms"


def chart_points(points: list[list[Any]]) -> list[tuple[int, int]]:
    """Pixel coordinates (x, y) of each (t_ms, cents) point, in time order (ties keep their order)."""
    pts = sorted(((_time(t), int(c)) for t, c in points), key=lambda p: p[0])
    if not pts:
        return []
    t0, t1 = pts[0][0], pts[-1][0]
    c0, c1 = min(c for _, c in pts), max(c for _, c in pts)
    tspan = (t1 - t0) or Fraction(1)
    cspan = (c1 - c0) or 1
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    out = []
    for t, c in pts:
        x = LEFT + int((t - t0) * pw // tspan)
        y = TOP + ph - (c - c0) * ph // cspan
        out.append((x, y))
    return out


def meter_chart(meter: str, points: list[list[Any]]) -> str:
    """One ``<svg>`` element charting a meter's amount against time."""
    coords = chart_points(points)
    if not coords:
        return ""
    times = sorted(_time(t) for t, _ in points)
    cents = [int(c) for _, c in points]
    # step path: hold the previous amount until the next point's time, then jump
    path = [f"M{coords[0][0]},{coords[0][1]}"]
    for (_, y_prev), (x, y) in itertools.pairwise(coords):
        path.append(f"H{x}" if y == y_prev else f"H{x}V{y}")
    x_axis = HEIGHT - BOTTOM
    name = escape(meter)
    parts = [
        f'<svg class="chart" role="img" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'aria-label="{name} meter timeline">',
        f"<title>{name} meter: {len(coords)} readings</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{x_axis - TOP}" class="plot"/>',
        f'<text x="{LEFT}" y="{TOP - 10}" class="ctitle">{name}</text>',
        f'<text x="{LEFT - 6}" y="{TOP + 4}" class="ylab">{escape(fmt(max(cents)))}</text>',
        f'<text x="{LEFT - 6}" y="{x_axis}" class="ylab">{escape(fmt(min(cents)))}</text>',
        f'<text x="{LEFT}" y="{x_axis + 18}" class="xlab0">{escape(_ms_label(times[0]))}</text>',
        f'<text x="{WIDTH - RIGHT}" y="{x_axis + 18}" class="xlab1">{escape(_ms_label(times[-1]))}</text>',
        f'<path d="{"".join(path)}" class="line"/>',
    ]
    ordered = sorted(points, key=lambda p: _time(p[0]))
    for (x, y), (t, c) in zip(coords, ordered, strict=True):
        label = escape(f"{_ms_label(_time(t))}: {fmt(int(c))}")
        parts.append(f'<circle cx="{x}" cy="{y}" r="3" class="pt"><title>{label}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)
