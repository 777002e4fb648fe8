"""Fixtures for the CLI tests: recorded runs built the way the plugin records them."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "record"))

from recordkit import build_run, identity


@pytest.fixture
def make_identity_run(tmp_path: Path) -> Callable[[], Path]:
    """A passing run whose controller software changed between the start and the end."""
    return lambda: build_run(tmp_path / "w", verdicts=("PASS",), end_identity=identity(software_version="2.4.2"))
