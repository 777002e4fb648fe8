"""No module in harness/ reads another module's underscore-prefixed attribute (issue 31).

An underscore says "this module's own": a name another module reaches for is part of the first
module's interface and is named as such, or the reader asks for it through something public.  The
finder reads the source (ast): ``from m import _name``, and ``x._name`` (``super()._name``
included) where the module does not itself define ``_name`` (as a function, class, assignment,
``self._name = ...`` or keyword argument); ``self._name`` and ``cls._name`` are a class's own.
Python's own underscore names (``__dunder__``) do not count.  A module that defines the name itself
(an override, a protocol's member) is taken to read its own: the finder is a net for the common case,
not a proof.

:data:`KNOWN` holds the reads that remain, by module and name, with how many there are; a new one
fails, and so does a known one that is gone or fewer (shrink the list, so it cannot come back
unnoticed).  What remains is the steps reading the private members of their context, the
``CaseRunner``, and two step modules importing another's helper (issue 31, step 3: a public case
context).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "harness"

#: (module, name) -> how many reads remain: the steps and the modules they share (suites.steps, expect,
#: rounds, ..., the link's steps) read the CaseRunner's private members, their context, and two
#: actions_* modules import another's helper (_mystery_number, _other); issue 31 step 3 (a public case
#: context, the steps in their own package) makes them public
KNOWN: dict[tuple[str, str], int] = {
    ("harness/link/faults.py", "_ctrl"): 3,
    ("harness/link/faults.py", "_place"): 4,
    ("harness/link/faults.py", "_place_many"): 3,
    ("harness/link/faults.py", "_read_meters"): 2,
    ("harness/link/play.py", "_ctrl"): 1,
    ("harness/link/play.py", "_read_meters"): 3,
    ("harness/link/steps.py", "_ctrl"): 2,
    ("harness/link/steps.py", "_place"): 3,
    ("harness/link/steps.py", "_place_many"): 2,
    ("harness/suites/accounts.py", "_pump"): 1,
    ("harness/suites/accounts.py", "_read_meters"): 1,
    ("harness/suites/actions_bounds.py", "_ctrl"): 2,
    ("harness/suites/actions_bounds.py", "_read_meters"): 2,
    ("harness/suites/actions_contract.py", "_pump"): 1,
    ("harness/suites/actions_contract.py", "_read_meters"): 2,
    ("harness/suites/actions_explore.py", "_ctrl"): 1,
    ("harness/suites/actions_explore.py", "_pump"): 2,
    ("harness/suites/actions_games.py", "_ctrl"): 2,
    ("harness/suites/actions_games.py", "_place"): 1,
    ("harness/suites/actions_games.py", "_pump"): 2,
    ("harness/suites/actions_games.py", "_seats"): 1,
    ("harness/suites/actions_games.py", "_wait_for"): 2,
    ("harness/suites/actions_mystery.py", "_mystery_number"): 1,
    ("harness/suites/actions_mystery.py", "_place_many"): 1,
    ("harness/suites/actions_mystery.py", "_read_meters"): 2,
    ("harness/suites/actions_mystery.py", "_seats"): 1,
    ("harness/suites/actions_probes.py", "_ctrl"): 1,
    ("harness/suites/actions_probes.py", "_pump"): 4,
    ("harness/suites/actions_probes.py", "_read_meters"): 4,
    ("harness/suites/actions_probes.py", "_seats"): 2,
    ("harness/suites/actions_probes.py", "_wait_for"): 1,
    ("harness/suites/actions_progressive.py", "_ctrl"): 7,
    ("harness/suites/actions_progressive.py", "_pump"): 1,
    ("harness/suites/actions_progressive.py", "_read_meters"): 5,
    ("harness/suites/actions_randomness.py", "_wait_for"): 1,
    ("harness/suites/actions_royal9.py", "_ctrl"): 2,
    ("harness/suites/actions_royal9.py", "_pump"): 1,
    ("harness/suites/actions_royal9.py", "_read_meters"): 1,
    ("harness/suites/actions_royal9.py", "_wait_for"): 1,
    ("harness/suites/actions_streak.py", "_place"): 2,
    ("harness/suites/actions_streak.py", "_pump"): 1,
    ("harness/suites/actions_streak.py", "_seats"): 1,
    ("harness/suites/actions_sweeps.py", "_ctrl"): 4,
    ("harness/suites/actions_sweeps.py", "_other"): 1,
    ("harness/suites/actions_sweeps.py", "_place"): 2,
    ("harness/suites/actions_sweeps.py", "_pump"): 3,
    ("harness/suites/actions_sweeps.py", "_read_meters"): 2,
    ("harness/suites/actions_sweeps.py", "_seats"): 1,
    ("harness/suites/award_rounds.py", "_ctrl"): 1,
    ("harness/suites/award_rounds.py", "_place_many"): 1,
    ("harness/suites/award_rounds.py", "_read_meters"): 1,
    ("harness/suites/award_rounds.py", "_seats"): 1,
    ("harness/suites/award_rounds.py", "_wait_for"): 1,
    ("harness/suites/expect.py", "_ctrl"): 2,
    ("harness/suites/expect.py", "_pump"): 5,
    ("harness/suites/expect.py", "_read_meters"): 2,
    ("harness/suites/expect.py", "_wait_for"): 2,
    ("harness/suites/expect_shoe.py", "_wait_for"): 1,
    ("harness/suites/permitted.py", "_read_meters"): 1,
    ("harness/suites/refs.py", "_read_meters"): 1,
    ("harness/suites/rounds.py", "_place_many"): 1,
    ("harness/suites/rounds.py", "_read_meters"): 1,
    ("harness/suites/steps.py", "_cards_arg"): 2,
    ("harness/suites/steps.py", "_ctrl"): 7,
    ("harness/suites/steps.py", "_event_time"): 1,
    ("harness/suites/steps.py", "_place"): 2,
    ("harness/suites/steps.py", "_place_many"): 1,
    ("harness/suites/steps.py", "_pump"): 10,
    ("harness/suites/steps.py", "_read_meters"): 9,
    ("harness/suites/steps.py", "_seats"): 2,
    ("harness/suites/steps.py", "_wait_back"): 1,
    ("harness/suites/steps.py", "_wait_for"): 5,
    ("harness/suites/timing.py", "_pump"): 1,
    ("harness/suites/timing.py", "_wait_for"): 1,
}


def _defined(tree: ast.AST) -> set[str]:
    """The underscore names a module defines itself."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg is not None:
            out.add(node.arg)
    return {n for n in out if n.startswith("_")}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def reads(path: Path) -> list[tuple[int, str]]:
    """(line, name) of every read in ``path`` of another module's underscore-prefixed attribute."""
    tree = ast.parse(path.read_text(), str(path))
    own = _defined(tree)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out += [(node.lineno, a.name) for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own \
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            out.append((node.lineno, node.attr))
    return out


def found() -> dict[tuple[str, str], list[int]]:
    out: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        for line, name in reads(path):
            out.setdefault((module, name), []).append(line)
    return out


def test_the_finder_sees_reads_of_another_modules_private_names(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("from a import _x, y\nclass C(B):\n    def f(self, other):\n        self._own = 1\n"
                      "        return other._own, other._theirs, self._also, super()._base, other.__class__\n")
    assert sorted(reads(source)) == [(1, "_x"), (5, "_base"), (5, "_theirs")]


def test_no_new_read_of_another_modules_private_name() -> None:
    now = found()
    counts = Counter({key: len(lines) for key, lines in now.items()})
    new = {k: now[k] for k, n in counts.items() if n > KNOWN.get(k, 0)}
    fewer = {k: (n, counts.get(k, 0)) for k, n in KNOWN.items() if counts.get(k, 0) < n}
    assert not new, ("reads of another module's underscore-prefixed name (make it public, or ask for it "
                     "through something public):\n" + "\n".join(f"{m}:{lines} .{n}" for (m, n), lines in new.items()))
    assert not fewer, ("known reads fewer than listed (shrink KNOWN):\n"
                       + "\n".join(f"{m} .{n}: {was} listed, {now_} found" for (m, n), (was, now_) in fewer.items()))
