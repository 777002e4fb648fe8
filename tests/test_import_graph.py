"""The import graph of harness/ has no circle (issue 31).

Every import counts: at the top of a module, inside a function (lazy) and under ``TYPE_CHECKING``;
a circle hidden by a lazy import is still a circle a reader has to hold in mind.  The graph is built
from the source (ast), one node a module; an edge ``a -> b`` is an import in ``a`` of ``b`` or of a
name ``b`` defines (``from harness.x import y`` with ``harness.x.y`` a module is an edge to that
module, otherwise to ``harness.x``).  A package's ``__init__`` is its own node.

:data:`KNOWN` holds the circles that remain, each with why; a new circle fails, and so does a known
one that is gone (remove it from the list, so it cannot come back unnoticed).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "harness"

#: the circles left (each a sorted tuple of modules, one strongly connected component), and what
#: closes each; issue 31 step 4 ("Imports at the top") is to break them, and this list only shrinks
KNOWN: dict[tuple[str, ...], str] = {
    ("harness.suites.run.runner", "harness.suites.run.timing", "harness.suites.steps.accounts",
     "harness.suites.steps.core", "harness.suites.steps.expect", "harness.suites.steps.payouts",
     "harness.suites.steps.permitted", "harness.suites.steps.rounds"):
        "the steps take the CaseRunner as their context, and the runner and the step modules call each other",
}


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _target(name: str, known: dict[str, Path]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The harness modules ``module`` imports anywhere in its source."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for name in names:
            target = _target(name, known) if name.startswith("harness") else None
            if target is not None and target != module:
                out.add(target)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {m: imports(m, p, known) for m, p in known.items()}


def circles(edges: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[str, ...]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(tuple(sorted(component)))
    return sorted(found)


def test_the_finder_sees_a_circle_through_a_lazy_import() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(edges) == [("a", "b", "c")]


def test_lazy_and_type_checking_imports_are_edges(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from harness.money import Cents\n"
                      "def f():\n    from harness.cards import Card\n    import harness.errors\n")
    known = modules()
    assert imports("harness.m", source, known) == {"harness.money", "harness.cards", "harness.errors"}


def test_no_new_circle_in_harness() -> None:
    found = circles(graph())
    new = [c for c in found if c not in KNOWN]
    gone = [c for c in KNOWN if c not in found]
    assert not new, "import circles (break them; see KNOWN for the ones left):\n" + "\n".join(map(" -> ".join, new))
    assert not gone, "known circles no longer there (remove them from KNOWN):\n" + "\n".join(map(" ".join, gone))
