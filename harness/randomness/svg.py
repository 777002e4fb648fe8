"""A statistical case's histogram as record data; the report draws it (:mod:`harness.record.statistics`).

The record keeps the histogram inside each test's measurement (:func:`histogram_data`: labels,
observed counts, expected counts as decimal strings); :func:`harness.record.statistics.histogram_svg`
draws it from that data alone as one inline ``<svg>``, so the report template can draw it from any
record, and the same record always renders the same bytes.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from harness.randomness.stats import Histogram
from harness.record.statistics import histogram_svg

__all__ = ["histogram_data", "histogram_svg"]


def histogram_data(hist: Histogram) -> dict[str, Any]:
    """Exact JSON data for the record: observed counts as integers, expected as 4-decimal strings."""
    return {
        "title": hist.title,
        "labels": list(hist.labels),
        "observed": [round(v) for v in hist.observed],
        "expected": [str(Decimal(repr(float(v))).quantize(Decimal("0.0001"))) for v in hist.expected],
        "unit": hist.unit,
    }
