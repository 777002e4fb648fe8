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


#: the longest tests of the slow tier, longest first (seconds each in a full slow-tier run with
#: ``--durations`` on a loaded 2-core machine, 2026-12-05): started first, the two workers finish
#: together instead of one running the longest alone at the end
TWINS = "tests/bench/test_twin_verdicts.py::test_a_bench_twin_gives_the_test_channels_verdicts"
LONGEST_FIRST = (
    "tests/killmatrix/test_kill_matrix.py::test_the_kill_matrix_on_bench_twins_catches_one_defect_of_each_kind",  # 228
    f"{TWINS}[emulated-midi-5-mystery]",  # 196
    "tests/record/test_record_chromium.py::test_passing_run_of_one_profile_prints_to_at_most_40_a4_pages",  # 158
    "tests/independent/test_independent_device.py::test_clean_table_passes_every_suite",  # 146, 104
    "tests/mutation/test_operators.py::test_every_mutant_of_the_emulators_compiles_and_differs",  # 121
    f"{TWINS}[emulated-midi-5]",  # 110
    "tests/record/test_resume.py::test_a_killed_then_interrupted_bench_run_resumes_to_the_uninterrupted_verdicts",  # 78
    TWINS,  # 67, 65, 27, 26
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first (:data:`LONGEST_FIRST`), the rest in their order (a stable sort)."""
    def rank(item: pytest.Item) -> int:
        return next((i for i, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)),
                    len(LONGEST_FIRST))

    items.sort(key=rank)
