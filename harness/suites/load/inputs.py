"""What a run is given, as its record pins it: the suites the plugin collected, the stack files their
cases name, and (``--tc-resume``) the run a new sitting continues, whose inputs must be as it began.

The plugin (:mod:`harness.plugin`) fills :data:`SUITES_USED` as it collects; the session
(:mod:`harness.suites.run.session`) hashes every input into the record, and a resumed run
(:mod:`harness.suites.run.resuming`) checks them against its journal.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from harness.errors import InputError
from harness.profiles.model import Profile
from harness.record.resume import Resumption
from harness.suites.load.stacks import find_stack, project_root

#: every suite file collected in this session, by path (the record hashes each, and its stacks)
SUITES_USED = pytest.StashKey[dict[str, Any]]()
_RESUMPTION = pytest.StashKey["Resumption | None"]()


def suites_used(config: pytest.Config) -> dict[str, Any]:
    """Path -> loaded :class:`~harness.suites.load.model.Suite` of every suite collected so far."""
    return config.stash.get(SUITES_USED, {})


def in_checkout(path: str | Path) -> str:
    """A path as the record keeps it: relative to the checkout when under it (a report read on
    another machine shows no host's folders), else as it is."""
    p = Path(path).resolve()
    try:
        return p.relative_to(project_root().resolve()).as_posix()
    except ValueError:
        return p.as_posix()


def input_files(suites: dict[str, Any]) -> list[tuple[str, str]]:
    """(path, kind) of every suite collected and every stack file its cases name, each once, paths
    relative to the project when inside it: the record pins each by SHA-256, so a locally edited
    suite or stack shows in the record."""
    out: dict[str, str] = {}
    for path in sorted(suites):
        out.setdefault(in_checkout(path), "suite")
    stacks: set[str] = set()
    for suite in suites.values():
        for case in suite.cases:
            stacks.update(str(s.args["stack"]) for s in case.steps if isinstance(s.args.get("stack"), str))
    for name in sorted(stacks):
        with contextlib.suppress(InputError):  # a suite naming it was refused at collection
            out.setdefault(in_checkout(find_stack(name).path), "fixture")
    return sorted(out.items(), key=lambda item: (item[1] != "suite", item[0]))


def resumption(config: pytest.Config) -> Resumption | None:
    """The run being resumed (``--tc-resume``), read once per pytest session; None otherwise."""
    if _RESUMPTION not in config.stash:
        target = config.getoption("--tc-resume", None)
        if not target:
            config.stash[_RESUMPTION] = None
        else:
            try:
                config.stash[_RESUMPTION] = Resumption(Path(target))
            except InputError as exc:
                raise pytest.UsageError(str(exc)) from None
    return config.stash[_RESUMPTION]


def check_inputs(config: pytest.Config, resume: Resumption, profile: Profile) -> None:
    """The profile snapshot and every suite and stack file as the run started (a usage error if not)."""
    problems = resume.problems(dict(profile.raw), input_files(suites_used(config)), project_root())
    if problems:
        raise pytest.UsageError(f"run {resume.record.run_id} cannot be resumed: " + "; ".join(problems))
