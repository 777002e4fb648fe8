"""Fixtures shared by the tests."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest


@pytest.fixture
def sigint_delivered() -> Iterator[None]:
    """SIGINT handled (not ignored) in this process while the test starts its children, so a run the
    test interrupts with Ctrl-C hears it: a shell starts a background job with SIGINT ignored, and a
    child inherits that, where Python then never raises KeyboardInterrupt."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
