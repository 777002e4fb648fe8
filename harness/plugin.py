"""pytest glue for tablecert (collection of YAML suites, options, fixtures, labels)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tablecert", "tablecert certification")
    group.addoption("--tc-profile", action="store", default=None, help="device profile YAML")
    group.addoption("--tc-report-dir", action="store", default=None, help="directory for the run record")
