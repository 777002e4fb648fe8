"""``tablecert validate PATH...``: check profiles and suites without running anything.

Each file is recognised by its ``spec:`` (``tablecert/profile/...`` or ``tablecert/suite/...``);
a directory is walked for ``*.yaml``.  A valid file prints ``ok  path``; a bad one prints one line
``file:line:col: message`` followed by the offending lines, indented, so an editor can jump to
it.  Exit status 0 when every file is valid, 2 otherwise (bad input, never a traceback).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from harness.errors import InputError
from harness.profiles import SPEC_PREFIX as PROFILE_PREFIX
from harness.profiles import profile_from_node
from harness.yamlload import YMap, load_yaml

HELP = "check device profiles and suites for errors without running anything"
EXAMPLE = """
tablecert validate device_profiles/ suites/
tablecert validate device_profiles/emulated-midi-5.yaml
"""
SUITE_PREFIX = "tablecert/suite/"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="YAML files or directories (walked for *.yaml)")


def _files(paths: list[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.yaml") if p.is_file())
        else:
            yield path


def _suite_validator() -> Callable[[str], Any] | None:
    try:
        module = importlib.import_module("harness.suites.schema")
    except ModuleNotFoundError as exc:
        if exc.name is not None and "harness.suites.schema".startswith(exc.name):
            return None
        raise
    validator = getattr(module, "validate_suite_file", None)
    return validator if callable(validator) else None


def validate_file(path: Path) -> None:
    """Raise :class:`InputError` if ``path`` is not a valid profile or suite."""
    name = str(path)
    node = load_yaml(path)
    spec = node.get("spec") if isinstance(node, YMap) else None
    if isinstance(spec, str) and spec.startswith(SUITE_PREFIX):
        validator = _suite_validator()
        if validator is None:
            raise node.loc("spec").error("suite validation not available in this installation")
        validator(name)
        return
    if isinstance(spec, str) and not spec.startswith(PROFILE_PREFIX):
        raise node.loc("spec").error(
            f"spec '{spec}': expected {PROFILE_PREFIX}<version> or {SUITE_PREFIX}<version>"
        )
    profile_from_node(node, name)


def _report(exc: InputError) -> str:
    text = str(exc)
    if exc.context:
        text += "\n" + "\n".join("    " + line for line in exc.context.splitlines())
    return text


def run(args: argparse.Namespace) -> int:
    files = list(_files(args.paths))
    if not files:
        print("tablecert validate: no *.yaml files under " + ", ".join(args.paths), file=sys.stderr)
        return 2
    bad = 0
    for path in files:
        try:
            validate_file(path)
        except InputError as exc:
            bad += 1
            if exc.path is None:
                exc = exc.located(str(path))
            print(_report(exc), file=sys.stderr)
        else:
            print(f"ok  {path}")
    if len(files) > 1:
        print(f"{len(files) - bad} valid, {bad} invalid", file=sys.stderr if bad else sys.stdout)
    return 2 if bad else 0
