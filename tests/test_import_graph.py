"""The import graph of harness/ has no circle (issue 31).

Every import counts: at the top of a module, inside a function (lazy) and under ``TYPE_CHECKING``;
a circle hidden by a lazy import is still a circle a reader has to hold in mind.  The graph is built
from the source (ast), one node a module; an edge ``a -> b`` is an import in ``a`` of ``b`` or of a
name ``b`` defines (``from harness.x import y`` with ``harness.x.y`` a module is an edge to that
module, otherwise to ``harness.x``).  A package's ``__init__`` is its own node.

:data:`KNOWN` holds the circles that remain, each with why; a new circle fails, and so does a known
one that is gone (remove it from the list, so it cannot come back unnoticed).

The rooms of harness/suites/ (issue 31) keep their direction: load/ imports nothing of run/ and
reaches none of the run time proper (:data:`RUN_TIME`); run/ reaches the steps only through their
registry; a step knows the case it serves by :class:`harness.suites.run.context.CaseContext`, never
the runner or the session.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "harness"

#: the circles left (each a sorted tuple of modules, one strongly connected component), and what
#: closes each; none is left since the steps take a CaseContext (harness.suites.run.context) instead
#: of the CaseRunner, and this list only shrinks
KNOWN: dict[tuple[str, ...], str] = {}

#: the run time proper: what the loader never reaches, and what no step imports
RUN_TIME = ("harness.suites.run.runner", "harness.suites.run.session", "harness.suites.run.resuming",
            "harness.suites.run.profile_rig")


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


def _room(edges: dict[str, set[str]], room: str) -> list[str]:
    return sorted(m for m in edges if m.startswith(f"harness.suites.{room}."))


def _reach(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in edges[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_loader_does_not_import_the_run_time() -> None:
    """harness/suites/load/ imports nothing of run/ itself, and reaches none of the run time proper
    through the step modules it validates against (they know the run by its context)."""
    edges = graph()
    direct = {m: sorted(t for t in edges[m] if t.startswith("harness.suites.run.")) for m in _room(edges, "load")}
    assert not {m: t for m, t in direct.items() if t}
    reached = {m: sorted(_reach(edges, m) & set(RUN_TIME)) for m in _room(edges, "load")}
    assert not {m: t for m, t in reached.items() if t}


def test_the_run_time_reaches_the_steps_only_through_the_registry() -> None:
    edges = graph()
    other = {m: sorted(t for t in edges[m] if t.startswith("harness.suites.steps.")
                       and t != "harness.suites.steps.registry") for m in _room(edges, "run")}
    assert not {m: t for m, t in other.items() if t}


def test_no_step_imports_the_runner_or_the_session() -> None:
    edges = graph()
    found = {m: sorted(edges[m] & set(RUN_TIME)) for m in _room(edges, "steps")}
    assert not {m: t for m, t in found.items() if t}
