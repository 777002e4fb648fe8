"""``tablecert run --list`` and ``tablecert run ... -- --collect-only``: what a run would select,
without starting a device.

``--list`` prints, per profile, every case the suites and ``FILE::CASE`` / ``-k`` select, and for
each either ``applies`` or ``N/A`` with the reason the run would record (a capability the profile
lacks, another game, denomination or interpretation: :func:`harness.suites.load.applicability.not_applicable`).
``-- --collect-only`` (or ``--co``) hands the selection to pytest's own collection for each profile
and ends with pytest's status: 0 when it collected, never ERROR for want of a record.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness import exitcodes

#: pytest options that only collect: a run given one of them writes no record, and that is no error
COLLECT_ONLY = ("--collect-only", "--co")


def collect_only(passthrough: Sequence[str]) -> bool:
    return any(arg in COLLECT_ONLY for arg in passthrough)


def keyword_matcher(expr: str | None) -> Callable[[str, str], bool]:
    """``-k EXPR`` as pytest evaluates it on a case: a word matches when it is a case-insensitive
    substring of the suite file's name or of the case id."""
    if not expr:
        return lambda file, case: True
    from _pytest.mark.expression import Expression

    compiled = Expression.compile(expr)

    def match(file: str, case: str) -> bool:
        names = [Path(file).name.lower(), case.lower()]

        def matcher(word: str, /, **kwargs: object) -> bool:
            return any(word.lower() in n for n in names)

        return bool(compiled.evaluate(matcher))

    return match


def selected_cases(suites: Sequence[str], keyword: str | None) -> list[Any]:
    """The suite cases ``suites`` (paths, ``FILE::CASE``) and ``-k`` select, in collection order."""
    from harness.suites.load.schema import expand_suites, load_suite

    match = keyword_matcher(keyword)
    cases = []
    for given in suites:
        path, _, only = given.partition("::")
        for file in expand_suites([Path(path)]):
            for case in load_suite(file).cases:
                if (not only or case.name == only) and match(str(file), case.name):
                    cases.append(case)
    return cases


def list_cases(suites: Sequence[str], keyword: str | None, profiles: Sequence[Any], root: Path) -> int:
    """Print the selection for each profile; exit 0, or 2 when it selects nothing a profile runs."""
    from harness.games.interpretations import Interpretations
    from harness.suites.load.applicability import not_applicable

    cases = selected_cases(suites, keyword)
    status = exitcodes.PASS
    for profile in profiles:
        interp = Interpretations.from_overrides(dict(profile.interpretations))
        applies = 0
        print(f"{profile.name}:")
        for case in cases:
            why = not_applicable(profile, interp, case)
            applies += why is None
            where = _relative(Path(case.path), root)
            print(f"  {where}::{case.name}  " + ("applies" if why is None else f"N/A: {why}"))
        print(f"  {applies} of {len(cases)} selected case(s) apply to {profile.name}")
        if not applies:
            status = exitcodes.BAD_INPUT  # `tablecert run` refuses such a selection: an empty run certifies nothing
    return status


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.absolute().relative_to(root))
    except ValueError:
        return str(path)


def run_collect_only(commands: Sequence[tuple[str, list[str]]], root: Path) -> int:
    """Run pytest's collection for each profile (``(name, command)``), its output passed through;
    the worst of pytest's statuses: 0 collected, 2 bad input (a usage error, nothing collected)."""
    worst = exitcodes.PASS
    for name, cmd in commands:
        print(f"== {name}", flush=True)
        proc = subprocess.run(cmd, cwd=root, stdin=subprocess.DEVNULL, check=False)
        code = {0: exitcodes.PASS, 2: exitcodes.INTERRUPTED, 4: exitcodes.BAD_INPUT,
                5: exitcodes.BAD_INPUT}.get(proc.returncode, exitcodes.RIG_ERROR)
        worst = exitcodes.worst(worst, code)
    sys.stdout.flush()
    return worst
