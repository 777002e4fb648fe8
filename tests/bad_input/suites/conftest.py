"""The ``*.suite.yaml`` files here are inputs of the tests one level up, not certification suites:
collect one only when it is named on the command line (as those tests run them)."""

from pathlib import Path

import pytest


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if not collection_path.name.endswith(".suite.yaml"):
        return None
    named = {Path(str(arg).split("::")[0]).resolve() for arg in config.args}
    return None if collection_path.resolve() in named else True
