"""``tablecert validate PATH...``: check profiles, suites and stack files without running anything.

Each file is recognised by its ``spec:`` (``tablecert/profile/...``, ``tablecert/suite/...`` or
``tablecert/stacks/...``); a directory is walked for ``*.yaml`` (symlinked folders are followed
once; a folder that cannot be read is an error, never skipped in silence; a tablecert file named
``.yml``, which every command would skip, is an error too).  In a walk, a YAML file
of another tool (a ``spec:`` that is not ``tablecert/...``, such as a pyvisa-sim definition) is
listed as skipped; named on the command line it is an error.

A valid file prints ``ok  path``; a bad one prints every problem as ``file:line:col: message``
followed by the offending lines, indented, so an editor can jump to each.  With ``--profile P``
suites are also checked against that profile (seats on its table).  Exit status 0 when every file
is valid, 2 otherwise (bad input, never a traceback), also when the output is cut short by a
closed pipe (``tablecert validate suites/ | head``); 3 when every file was valid but the output was
cut short (the reader never saw it all: no success).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import exitcodes
from harness.cli.output import Out
from harness.errors import InputError, render

if TYPE_CHECKING:
    from harness.yamlload import YMap

HELP = "check device profiles, suites and stack files for errors without running anything"
EXAMPLE = """
tablecert validate device_profiles/ suites/ fixtures/
tablecert validate device_profiles/emulated-midi-5.yaml
tablecert validate suites/royal9 --profile device_profiles/emulated-midi-1.yaml
"""
SUITE_PREFIX = "tablecert/suite/"
STACKS_PREFIX = "tablecert/stacks/"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="YAML files or directories (walked for *.yaml)")
    parser.add_argument("--profile", default=None, metavar="P",
                        help="also check suites against this device profile (seats on its table)")


class Foreign(Exception):
    """A YAML file of another tool, met while walking a directory."""


def walk_yaml(paths: list[str], errors: list[InputError]) -> Iterator[tuple[Path, bool]]:
    """``(file, named)`` for each path: files as given, directories walked for ``*.yaml``.

    Symlinked folders are followed (each real folder once, so a link loop ends); a folder that
    cannot be listed is added to ``errors``.
    """
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            yield path, True
            continue
        seen: set[str] = set()

        def failed(exc: OSError, top: Path = path) -> None:
            errors.append(InputError(f"cannot read this folder: {exc.strerror or exc}",
                                     path=str(exc.filename or top)))

        for top, dirs, files in os.walk(path, onerror=failed, followlinks=True):
            real = os.path.realpath(top)
            if real in seen:
                dirs[:] = []
                continue
            seen.add(real)
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".yaml"):
                    yield Path(top) / name, False
                elif name.endswith(".yml") and _looks_like_ours(Path(top) / name):
                    errors.append(InputError(
                        f"named .yml: tablecert reads *.yaml files only (every command would skip this one, and "
                        f"`tablecert run` would not collect it): rename it {name.removesuffix('.yml')}.yaml",
                        path=str(Path(top) / name)))


def _looks_like_ours(path: Path) -> bool:
    """A ``.yml`` file that is meant for tablecert: named ``*.suite.yml`` / ``*.profile.yml`` /
    ``*.stacks.yml``, or starting with a ``spec: tablecert/...`` line."""
    if path.name.endswith((".suite.yml", ".profile.yml", ".stacks.yml")):
        return True
    try:
        with path.open("rb") as fh:
            head = fh.read(4096) if path.is_file() else b""
    except OSError:
        return False
    return b"spec: tablecert/" in head


def _suite_validator() -> Callable[..., Any] | None:
    try:
        module = importlib.import_module("harness.suites.load.schema")
    except ModuleNotFoundError as exc:
        if exc.name is not None and "harness.suites.load.schema".startswith(exc.name):
            return None
        raise
    validator = getattr(module, "validate_suite_file", None)
    return validator if callable(validator) else None


def _kind_without_spec(path: Path, node: YMap) -> str | None:
    """The spec prefix a file without ``spec:`` looks like it wants (by its name and keys), so the
    message names the right spec: a suite is told to start with the suite spec."""
    if path.name.endswith((".suite.yaml", ".suite.yml")) or ("cases" in node and "suite" in node):
        return SUITE_PREFIX
    if "stacks" in node and "devices" not in node:
        return STACKS_PREFIX
    return None


def validate_file(path: Path, *, named: bool = True, profile: Any = None) -> Any:
    """Raise :class:`InputError` if ``path`` is not a valid profile, suite or stack file
    (:class:`Foreign` for another tool's YAML met in a directory walk)."""
    # imported here, not above: `tablecert --help` builds this command's parser without them
    from harness.profiles import SPEC_PREFIX as PROFILE_PREFIX
    from harness.profiles import profile_from_node
    from harness.yamlload import YMap, load_yaml

    name = str(path)
    node = load_yaml(path)
    spec = node.get("spec") if isinstance(node, YMap) else None
    if spec is None and isinstance(node, YMap) and "spec" not in node:
        spec = _kind_without_spec(path, node)
    if isinstance(spec, str) and spec.startswith(SUITE_PREFIX):
        validator = _suite_validator()
        if validator is None:
            raise node.loc("spec").error("suite validation not available in this installation")
        return validator(name, profile=profile, node=node)
    if isinstance(spec, str) and spec.startswith(STACKS_PREFIX):
        from harness.suites.load.stacks import validate_stack_file

        validate_stack_file(path)
        return
    if isinstance(spec, str) and not spec.startswith(PROFILE_PREFIX):
        if not named and not spec.startswith("tablecert/"):
            raise Foreign(f"spec '{spec}' is not a tablecert file")
        raise node.loc("spec").error(
            f"spec '{spec}': expected {PROFILE_PREFIX}<version>, {SUITE_PREFIX}<version> "
            f"or {STACKS_PREFIX}<version>"
        )
    profile_from_node(node, name)


def same_case_ids(suite: Any, seen: dict[str, tuple[str, int]]) -> None:
    """Case ids are unique across every suite of a run (the record keys its cases by id): raise
    naming both places when ``suite`` repeats one of ``seen`` (``id -> (file, line)``), else add its."""
    errors = []
    for case in suite.cases:
        first = seen.get(case.name)
        if first is not None and first[0] != suite.path:
            errors.append(InputError(
                f"case id '{case.name}' is also in {first[0]}:{first[1]}: case ids are unique across the suites of "
                "a run (the record keys its cases by id); rename one", path=suite.path, line=case.line, col=case.col))
    for case in suite.cases:
        seen.setdefault(case.name, (suite.path, case.line))
    if errors:
        from harness.errors import InputErrors

        raise InputErrors(errors)


def run(args: argparse.Namespace) -> int:
    out = Out()
    walk_errors: list[InputError] = []
    files = list(walk_yaml(args.paths, walk_errors))
    for err in walk_errors:
        print(str(err), file=sys.stderr)
    if not files:
        print("tablecert validate: no *.yaml files under " + ", ".join(args.paths), file=sys.stderr)
        return exitcodes.BAD_INPUT
    profile = None
    if args.profile:
        from harness.profiles import load_profile

        profile = load_profile(args.profile)
    bad = skipped = 0
    case_ids: dict[str, tuple[str, int]] = {}
    for path, named in files:
        try:
            checked = validate_file(path, named=named, profile=profile)
            if checked is not None and hasattr(checked, "cases"):
                same_case_ids(checked, case_ids)
        except Foreign as why:
            skipped += 1
            out.print(f"skip {path} ({why})")
        except InputError as exc:
            bad += 1
            if exc.path is None:
                exc = exc.located(str(path))
            print(render(exc), file=sys.stderr, flush=True)
        else:
            out.print(f"ok  {path}")
    checked = len(files) - skipped
    if len(files) > 1 or walk_errors:
        summary = (f"{checked - bad} valid, {bad} invalid" + (f", {skipped} skipped" if skipped else "")
                   + (f", {len(walk_errors)} not read" if walk_errors else ""))
        if bad or walk_errors:
            print(summary, file=sys.stderr)
        else:
            out.print(summary)
    return out.status(exitcodes.BAD_INPUT if bad or walk_errors or checked == 0 else exitcodes.PASS)
