"""The report pages' pictures: every timed round's lock-out latency against the limit, and one chart
per meter over the whole run, against time, with hits and resets marked.  A meter that never moved
is said in words ("the minor meter stayed at $450.00 over 212 readings"), not drawn.

Pure: a record in, inline SVG (or a sentence) out, with exact integer coordinates (``Fraction``,
floored), so the same record renders byte-identical pages (docs/record.md, "The views").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from html import escape
from typing import Any

from harness.money import fmt
from harness.record.document import Record
from harness.record.model import ROUND_LATENCIES
from harness.record.svg import SVG_STYLE, meter_chart

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 28, 34
#: a run-wide meter series is thinned to at most this many points (every hit and reset kept)
MAX_POINTS = 400
#: single-round latency measurements (lockout-first-card and the like) start with this
LATENCY = "lock-out latency"


@dataclass(frozen=True)
class Latency:
    case_id: str
    round: int
    ms: Decimal | None  # None: the round had no lock-out
    by: str  # "counter" or "host"


def _decimal(value: Any) -> Decimal | None:
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


def latencies(record: Record) -> list[Latency]:
    """Every timed round of the run in case order: the per-round series of a case where it has one,
    else its single-round readings."""
    out: list[Latency] = []
    for case in record.cases:
        series = [m for m in case.measurements if m.name == ROUND_LATENCIES and isinstance(m.value, list)]
        if series:
            for item in series[0].value:
                if isinstance(item, list) and len(item) == 3:
                    out.append(Latency(case.case_id, int(item[0]), _decimal(item[1]) if item[1] is not None
                                       else None, str(item[2])))
            continue
        for n, m in enumerate((m for m in case.measurements if m.name.startswith(LATENCY)
                               and m.name != ROUND_LATENCIES), 1):
            ms = _decimal(m.value)
            if ms is not None:
                out.append(Latency(case.case_id, n, ms, "counter" if "counter" in m.name else "host"))
    return out


def uncertainty_ms(text: str) -> Decimal | None:
    """The number of milliseconds in an uncertainty as a profile or certificate states it
    ("± 0.02 ms", "0.02"), or None."""
    m = re.search(r"(\d+(?:\.\d+)?)\s*(ms|µs|us)?", text or "")
    if not m:
        return None
    value = Decimal(m.group(1))
    return value / 1000 if m.group(2) in ("µs", "us") else value


def _y(value: Fraction, top: Fraction) -> int:
    ph = HEIGHT - TOP - BOTTOM
    return TOP + ph - int(value * ph // top) if top else TOP + ph


def latency_chart(rounds: Sequence[Latency], limit_ms: Decimal, u_ms: Decimal | None) -> str:
    """Every timed round (x: its place in the run) against the limit (dashed), the limit's
    uncertainty band (shaded: a reading inside it is no clearer than the counter), a missing
    lock-out at the top (red cross)."""
    if not rounds:
        return ""
    limit, u = Fraction(limit_ms), Fraction(u_ms or 0)
    values = [Fraction(r.ms) for r in rounds if r.ms is not None]
    top = max([*values, limit + u]) * Fraction(6, 5)
    pw = WIDTH - LEFT - RIGHT
    n = len(rounds)
    x_axis = HEIGHT - BOTTOM
    over = sum(1 for r in rounds if r.ms is None or r.ms > limit_ms)

    def x(i: int) -> int:
        return LEFT + (pw * (2 * i + 1)) // (2 * n)

    parts = [
        f'<svg class="chart" role="img" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" aria-label="lock-out latency of every timed round">{SVG_STYLE}',
        f"<title>lock-out latency of {n} timed round(s) against the {limit_ms} ms limit: {over} over it or "
        "without a lock-out</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{x_axis - TOP}" class="plot"/>',
        f'<text x="{LEFT}" y="{TOP - 10}" class="ctitle">lock-out latency, ms ({n} timed rounds)</text>',
        f'<text x="{LEFT - 6}" y="{TOP + 4}" class="ylab">{escape(_ms(top))}</text>',
        f'<text x="{LEFT - 6}" y="{x_axis}" class="ylab">0</text>',
        f'<text x="{LEFT}" y="{x_axis + 18}" class="xlab0">round 1</text>',
        f'<text x="{WIDTH - RIGHT}" y="{x_axis + 18}" class="xlab1">round {n}</text>',
    ]
    if u:
        y_hi, y_lo = _y(limit + u, top), _y(max(limit - u, Fraction(0)), top)
        parts.append(f'<rect x="{LEFT}" y="{y_hi}" width="{pw}" height="{max(1, y_lo - y_hi)}" class="band">'
                     f"<title>the limit ± the uncertainty, {u_ms} ms</title></rect>")
    y_lim = _y(limit, top)
    parts.append(f'<line x1="{LEFT}" y1="{y_lim}" x2="{WIDTH - RIGHT}" y2="{y_lim}" class="expected">'
                 f"<title>limit {limit_ms} ms</title></line>")
    parts.append(f'<text x="{WIDTH - RIGHT - 4}" y="{y_lim - 3}" class="mlab ylab">limit {limit_ms} ms</text>')
    for i, r in enumerate(rounds):
        label = escape(f"{r.case_id} round {r.round}: " + (f"{r.ms} ms ({r.by})" if r.ms is not None
                                                           else "no lock-out"))
        if r.ms is None:
            parts.append(f'<text x="{x(i)}" y="{TOP + 10}" class="mlab miss">×<title>{label}</title></text>')
            continue
        cls = "pt hit" if r.ms > limit_ms else "pt"
        parts.append(f'<circle cx="{x(i)}" cy="{_y(Fraction(r.ms), top)}" r="2" class="{cls}">'
                     f"<title>{label}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)


def _ms(value: Fraction) -> str:
    return f"{Decimal(value.numerator) / Decimal(value.denominator):.3f}"


def _instant(stamp: str) -> datetime | None:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None


def run_series(record: Record) -> dict[str, list[list[Any]]]:
    """meter -> ``[ms since the run began, cents, mark?]`` over every case, in time order: each
    case's readings placed at its start plus their time in the case (a record whose timelines count
    readings instead of milliseconds spreads them over the case's duration)."""
    t0 = _instant(record.started_at)
    out: dict[str, list[list[Any]]] = {}
    for case in record.cases:
        start, end = _instant(case.started_at), _instant(case.finished_at)
        if t0 is None or start is None:
            continue
        base = Fraction(int((start - t0).total_seconds() * 1000))
        span = Fraction(int((end - start).total_seconds() * 1000)) if end is not None else Fraction(0)
        for meter, points in case.timelines.items():
            counted = all(isinstance(p[0], int) and p[0] == i for i, p in enumerate(points))
            for i, p in enumerate(points):
                offset = span * i / max(1, len(points) - 1) if counted else Fraction(Decimal(str(p[0])))
                out.setdefault(meter, []).append([base + offset, int(p[1]), *p[2:]])
    for series in out.values():
        series.sort(key=lambda p: p[0])
    return out


def thinned(points: Sequence[list[Any]], most: int = MAX_POINTS) -> list[list[Any]]:
    """The points where the amount changed or the controller announced a hit or reset, the first and
    the last; at most ``most`` of them (every marked point kept, the others evenly)."""
    kept = [p for i, p in enumerate(points)
            if i in (0, len(points) - 1) or len(p) > 2 or p[1] != points[i - 1][1]]
    if len(kept) <= most:
        return kept
    plain = [p for p in kept if len(p) <= 2]
    room = max(2, most - (len(kept) - len(plain)))
    step = Fraction(len(plain), room)
    chosen = {id(plain[int(step * k)]) for k in range(room)} | {id(plain[-1])}
    return [p for p in kept if len(p) > 2 or id(p) in chosen]


def meter_pictures(record: Record, expected: Mapping[str, int] | None = None) -> list[dict[str, str]]:
    """One entry per meter, in name order: ``meter``, ``svg`` (a chart over the run) or ``text`` (a
    meter that never moved, said in words)."""
    out = []
    for meter, points in sorted(run_series(record).items()):
        amounts = {p[1] for p in points}
        if len(amounts) == 1:
            marks = sum(1 for p in points if len(p) > 2)
            out.append({"meter": meter, "svg": "", "text": f"the {meter} meter stayed at {fmt(points[0][1])} over "
                        f"{len(points)} readings" + (f" ({marks} marked hit or reset)" if marks else "")})
            continue
        shown = [[_seconds(p[0]), *p[1:]] for p in thinned(points)]
        reset = (expected or {}).get(meter)
        chart = meter_chart(meter, shown, [("reset", reset)] if reset is not None else [], unit="s")
        out.append({"meter": meter, "svg": chart, "text": f"{len(points)} readings from {fmt(min(amounts))} to "
                    f"{fmt(max(amounts))}; {sum(1 for p in points if len(p) > 2)} marked hit or reset"})
    return out


def _seconds(ms: Fraction) -> str:
    return f"{Decimal(ms.numerator) / Decimal(ms.denominator) / 1000:.3f}"
