"""The AST mutator: which points it finds, what each operator does, what it never touches."""

from __future__ import annotations

import ast
from types import SimpleNamespace

import pytest

from harness.selfcheck.mutation import scope
from harness.selfcheck.mutation.operators import UnknownMutant, enumerate_module, mutate_source

SOURCE = '''\
"""A docstring: never bent."""
LIMIT = 3


def f(a, b, cfg, items):
    if a < b and not cfg.on:
        items.append(a + 1)
    total = a * 2
    total += b
    if "late" in cfg.defects:
        total = 0
        items.clear()
    if "later" in cfg.defects or defect_branches.late_round(cfg):
        total = 7
    if a > 100 or "never" in cfg.defects:
        total -= 3
    while a > LIMIT:
        a -= 1
    flag = True if a == b else False
    return total, flag, a is None, f"{a} message"


def g(x):
    """Excluded by the caller's predicate."""
    return x + 1
'''


def _ops(points: list) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in points:
        out.setdefault(p.code, []).append(p.operator)
    return out


def _run(mutant: str | None, **kw: object) -> tuple:
    source = SOURCE if mutant is None else ast.unparse(mutate_source("m", SOURCE, mutant, lambda q: q == "g"))
    ns: dict[str, object] = {"defect_branches": SimpleNamespace(late_round=lambda cfg: False)}
    exec(compile(source, "m", "exec"), ns)
    cfg = SimpleNamespace(on=False, defects=frozenset())
    items: list[int] = []
    result = ns["f"](kw.get("a", 1), kw.get("b", 2), cfg, items)  # type: ignore[operator]
    return result, items


def test_the_points_of_a_small_module() -> None:
    points = enumerate_module("m", SOURCE, lambda q: q == "g")
    ops = _ops(points)
    assert ops["LIMIT = 3"] == ["drop-assign", "const-3>4"]
    assert ops["if a < b and not cfg.on:"] == ["negate-if", "And>Or", "Lt>LtE", "drop-not"]
    assert ops["items.append(a + 1)"] == ["drop-call", "Add>Sub", "const-1>0"]
    assert ops["total += b"] == ["drop-assign", "aug-Add>Sub"]
    assert ops["while a > LIMIT:"] == ["negate-while", "Gt>GtE"]
    assert "negate-ifexp" in ops["flag = True if a == b else False"]
    assert ops["return total, flag, a is None, f\"{a} message\""] == ["return-None", "Is>IsNot"]
    # the defect branch (its condition and its body) and the excluded function are left alone
    assert not any("late" in p.code or p.code in ("total = 0", "items.clear()", "total = 7") for p in points)
    # an `or` with a clean-emulator condition in it is mutated, and so is its body
    assert "negate-if" in ops['if a > 100 or "never" in cfg.defects:'] and "aug-Sub>Add" in ops["total -= 3"]
    assert not any(p.function == "g" for p in points)
    assert all(p.function in ("", "f") for p in points)


def test_ids_are_stable_and_unique() -> None:
    first = [p.id for p in enumerate_module("m", SOURCE)]
    assert first == [p.id for p in enumerate_module("m", SOURCE)]
    assert len(first) == len(set(first))
    assert all(i.count(":") == 3 for i in first)


def _id(code: str, operator: str) -> str:
    return next(p.id for p in enumerate_module("m", SOURCE) if p.code == code and p.operator == operator)


def test_each_operator_changes_what_it_says() -> None:
    base, items = _run(None)
    assert base[0] == 4 and items == [2]  # 1 * 2 + 2
    assert _run(_id("items.append(a + 1)", "drop-call"))[1] == []
    assert _run(_id("items.append(a + 1)", "Add>Sub"))[1] == [0]
    assert _run(_id("total += b", "aug-Add>Sub"))[0][0] == 0
    assert _run(_id("total = a * 2", "Mult>FloorDiv"))[0][0] == 2
    assert _run(_id("if a < b and not cfg.on:", "negate-if"))[1] == []
    assert _run(_id("if a < b and not cfg.on:", "drop-not"))[1] == []
    assert _run(_id("if a < b and not cfg.on:", "Lt>LtE"), a=2, b=2)[1] == [3]
    assert _run(_id("flag = True if a == b else False", "negate-ifexp"))[0][1] is True
    assert _run(_id("return total, flag, a is None, f\"{a} message\"", "return-None"))[0] is None
    assert _run(_id("while a > LIMIT:", "Gt>GtE"), a=3)[0][3] == "2 message"


def test_an_unknown_id_is_refused() -> None:
    with pytest.raises(UnknownMutant):
        mutate_source("m", SOURCE, "m:1:0:drop-call", lambda q: False)


@pytest.mark.slow
def test_every_mutant_of_the_emulators_compiles_and_differs() -> None:
    """Each mutant compiles to other bytecode than the module's (a mutant the compiler folds back to
    the original could never be killed); comparing the marshalled code is half the cost of comparing
    the dumped trees, and stricter."""
    import marshal

    for module in scope.MODULES:
        source = scope.source_path(module).read_text(encoding="utf-8")
        original = marshal.dumps(compile(ast.parse(source), module, "exec"))
        points = enumerate_module(module, source, scope.excluded(module))
        assert points, module
        for p in points:
            tree = mutate_source(module, source, p.id, scope.excluded(module))
            assert marshal.dumps(compile(tree, module, "exec")) != original, p.id


def test_every_excluded_function_exists_with_a_reason() -> None:
    for module, functions in scope.EXCLUDED_FUNCTIONS.items():
        assert module in scope.MODULES
        source = scope.source_path(module).read_text(encoding="utf-8")
        names: set[str] = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                names |= {f"{node.name}.{f.name}" for f in node.body if isinstance(f, ast.FunctionDef)}
            elif isinstance(node, ast.FunctionDef):
                names.add(node.name)
        for qualname, why in functions.items():
            assert qualname in names, f"{module}.{qualname}"
            assert len(why) > 20
