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
unnoticed).  None remains: the steps' context, the ``CaseRunner``, names what they use public.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "harness"

#: (module, name) -> how many reads remain: none since the steps' context, the CaseRunner, names its
#: members public (read_meters, pump, wait_for, controller, place, place_many, seats_of, event_time,
#: cards_arg, wait_back) and the step modules' shared helpers are public (other_value, device_lines,
#: mystery_number); a read that comes back fails
KNOWN: dict[tuple[str, str], int] = {}


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
