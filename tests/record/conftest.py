"""Fixtures for the record tests (the builders live in recordkit.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from recordkit import build_run


@pytest.fixture
def make_run(tmp_path: Path) -> Callable[..., Path]:
    counter = iter(range(1000))

    def make(**kwargs: Any) -> Path:
        return build_run(tmp_path / f"w{next(counter)}", **kwargs)

    return make
