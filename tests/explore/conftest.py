"""The explorer's model tests share one model: the shipped emulated-midi-5 table's (pure, built once)."""

from __future__ import annotations

import pytest

from harness.explore.model import TableModel
from harness.profiles.load import load_profile

MIDI5 = load_profile("device_profiles/emulated-midi-5.yaml")


@pytest.fixture(scope="session")
def model() -> TableModel:
    return TableModel(MIDI5)
