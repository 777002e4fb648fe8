"""The mutation operators: where a module's AST can be bent, and the bending itself.

One walk over a module's AST serves both purposes: :func:`enumerate_module` collects every
mutation point (:class:`Point`) in a fixed order, :func:`mutate_source` walks the same way and
applies the one point whose id it is given.  An id is ``module:line:col:operator`` (``line`` and
``col`` of the node the operator bends, 1-based line, 0-based column, as Python reports them), so
``tablecert defects --mutants --mutant controller:212:15:Lt>LtE`` reproduces one.

Operators (the classic set of mutation analysis, Offutt et al., "An experimental determination of
sufficient mutant operators", ACM TOSEM 5(2), 1996):

* ``A>B`` on a binary operator (``Add>Sub``, ``Sub>Add``, ``Mult>FloorDiv``, ``FloorDiv>Mult``,
  ``Div>Mult``, ``Mod>FloorDiv``, ``BitAnd>BitOr``, ``BitOr>BitAnd``), prefixed ``aug-`` on an
  augmented assignment (``x += 1`` -> ``x -= 1``);
* ``A>B`` on a comparison (``Lt>LtE``, ``LtE>Lt``, ``Gt>GtE``, ``GtE>Gt``, ``Eq>NotEq``,
  ``NotEq>Eq``, ``In>NotIn``, ``NotIn>In``, ``Is>IsNot``, ``IsNot>Is``): the boundary shifts and the
  negations;
* ``And>Or``, ``Or>And`` on a boolean operator; ``drop-not`` removes a ``not``;
* ``negate-if``, ``negate-while``, ``negate-ifexp``: the condition negated (on an ``if`` with an
  ``else`` this is the same program as the branches swapped, so no separate swap is made);
* ``const-N>M`` on an integer literal (0 -> 1, 1 -> 0, n -> n + 1) and ``True>False`` / ``False>True``;
* ``drop-call`` (a call statement removed), ``drop-assign`` (an assignment, augmented assignment
  or ``del`` removed), ``return-None`` (``return x`` -> ``return None``).

What is never bent: string literals (messages and names), docstrings, and the defect plumbing
of :mod:`harness.emulators.defects`: the condition of a branch that tests a defect name and the
code that runs only with a defect on (a clean emulator never executes it, so a mutant there is
the original program).  Whole functions are left out by :mod:`harness.selfcheck.mutation.scope`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

BINOP_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult, ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
}
CMP_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Point:
    """One mutant: where, which operator, and the source line it bends (for a reader)."""

    module: str
    line: int
    col: int
    operator: str
    function: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.module}:{self.line}:{self.col}:{self.operator}"


class UnknownMutant(LookupError):
    """The id names no mutation point of the current source."""


def _name(node: ast.AST) -> str:
    return type(node).__name__


def is_defect_expr(node: ast.AST) -> bool:
    """``self.cfg.defects``, ``ctrl.cfg.defects``, ``cfg.defects``, or a local alias ``bent``; and
    ``cfg.personas``: a persona's branch (harness.emulators.personas) runs only with that permitted
    behaviour switched on, never in the clean emulator a mutant is certified as (the variants prove
    those PASS, and the kill matrix on a persona that the defects are still caught)."""
    if isinstance(node, ast.Attribute):
        return node.attr in ("defects", "personas")
    return isinstance(node, ast.Name) and node.id in ("defects", "bent")


def is_defect_test(node: ast.AST) -> bool:
    """A condition that names a defect: ``"x" in defects``, ``"x" not in defects``, ``defects``
    itself, or a set intersected with it."""
    if is_defect_expr(node):
        return True
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn):
        return is_defect_expr(node.comparators[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
        return is_defect_expr(node.left) or is_defect_expr(node.right)
    return False


def is_defect_branch_predicate(node: ast.AST) -> bool:
    """A call of :mod:`harness.emulators.defect_branches`'s predicates
    (``defect_branches.late_round(self)``): each is true only with its defect on."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "defect_branches")


def only_with_defect(test: ast.AST) -> bool:
    """True when ``test`` can hold only with some defect on (its branch is defect code): a defect
    name in the defects, a ``defect_branches`` predicate, an ``and`` with one of them, an ``or`` of them only."""
    if is_defect_test(test):
        return not (isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.NotIn))
    if is_defect_branch_predicate(test):
        return True
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(only_with_defect(v) for v in test.values)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return all(only_with_defect(v) for v in test.values)
    return False


class _Walker(ast.NodeTransformer):
    """Collect the points (``target`` None) or apply the one named ``target``."""

    def __init__(self, module: str, lines: list[str], target: str | None,
                 excluded: Callable[[str], bool]) -> None:
        self.module = module
        self.lines = lines
        self.target = target
        self.excluded = excluded
        self.points: list[Point] = []
        self.seen: set[str] = set()
        self.applied = False
        self.scope: list[str] = []

    # -- bookkeeping ---------------------------------------------------------------------------
    def _point(self, node: ast.AST, operator: str) -> bool:
        """Register a point at ``node``; True when it is the target (apply it)."""
        line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
        base = f"{self.module}:{line}:{col}:{operator}"
        pid, n = base, 1
        while pid in self.seen:  # two points of one operator at one place: number them
            n += 1
            pid = f"{base}#{n}"
        self.seen.add(pid)
        code = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        self.points.append(Point(self.module, line, col, operator + (pid[len(base):]), ".".join(self.scope), code))
        if self.target == pid:
            self.applied = True
            return True
        return False

    # -- scopes --------------------------------------------------------------------------------
    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> ast.AST:
        self.scope.append(node.name)
        try:
            if self.excluded(".".join(self.scope)):
                return node
            if isinstance(node, ast.ClassDef):
                node.body = self._body(node.body)
                return node
            # default values are evaluated at definition: bend them; annotations never run
            node.args.defaults = [self.visit(d) for d in node.args.defaults]
            node.args.kw_defaults = [None if d is None else self.visit(d) for d in node.args.kw_defaults]
            node.body = self._body(node.body)
            return node
        finally:
            self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Module(self, node: ast.Module) -> ast.AST:
        node.body = self._body(node.body)
        return node

    # -- statements ----------------------------------------------------------------------------
    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for i, stmt in enumerate(body):
            if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                    and isinstance(stmt.value.value, str):
                out.append(stmt)  # a docstring
                continue
            if isinstance(stmt, ast.Import | ast.ImportFrom) or self._annotation_only(stmt):
                out.append(stmt)
                continue
            dropped = self._drop(stmt)
            if dropped is not None:
                out.append(dropped)
                continue
            new = self.visit(stmt)
            if isinstance(new, list):
                out.extend(new)
            elif new is not None:
                out.append(new)
        return out or [ast.Pass()]

    @staticmethod
    def _annotation_only(stmt: ast.stmt) -> bool:
        return isinstance(stmt, ast.AnnAssign) and stmt.value is None

    def _drop(self, stmt: ast.stmt) -> ast.stmt | None:
        """The statement-removal operators; the replacement ``pass`` when the target is one."""
        kind = None
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            kind = "drop-call"
        elif isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            kind = "drop-assign"
        if kind is not None and self._point(stmt, kind):
            return ast.copy_location(ast.Pass(), stmt)
        return None

    def visit_If(self, node: ast.If) -> ast.AST:
        if only_with_defect(node.test):  # defect code: only the else branch runs on a clean emulator
            node.orelse = self._body(node.orelse) if node.orelse else []
            return node
        return self._negatable(node, "negate-if")

    def visit_While(self, node: ast.While) -> ast.AST:
        return self._negatable(node, "negate-while")

    def _negatable(self, node: ast.If | ast.While, operator: str) -> ast.AST:
        """An ``if`` or ``while``: its test negated when it is the target, its blocks visited."""
        if self._point(node, operator):
            node.test = ast.UnaryOp(ast.Not(), node.test)
        else:
            node.test = self.visit(node.test)
        node.body = self._body(node.body)
        node.orelse = self._body(node.orelse) if node.orelse else []
        return node

    def _blocks(self, node: ast.AST) -> ast.AST:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if block:
                setattr(node, name, self._body(block))
        for field in ("target", "iter", "items", "test"):
            value = getattr(node, field, None)
            if isinstance(value, list):
                setattr(node, field, [self.visit(v) for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        if isinstance(node, ast.Try):
            node.handlers = [self.visit(h) for h in node.handlers]
        return node

    visit_For = visit_With = visit_Try = _blocks

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        node.body = self._body(node.body)
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
            return node
        if self._point(node, "return-None"):
            node.value = ast.copy_location(ast.Constant(None), node.value)
            return node
        node.value = self.visit(node.value)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        swap = BINOP_SWAP.get(type(node.op))
        if swap is not None and self._point(node, f"aug-{_name(node.op)}>{swap.__name__}"):
            node.op = swap()
            return node
        node.value = self.visit(node.value)
        return node

    # -- expressions ---------------------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        if is_defect_test(node):
            return node
        swap = BINOP_SWAP.get(type(node.op))
        if swap is not None and self._point(node, f"{_name(node.op)}>{swap.__name__}"):
            node.op = swap()
            return node
        return self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        if is_defect_test(node):
            return node
        for i, op in enumerate(node.ops):
            swap = CMP_SWAP.get(type(op))
            where = node if i == 0 else node.comparators[i - 1]
            if swap is not None and self._point(where, f"{_name(op)}>{swap.__name__}"):
                node.ops[i] = swap()
                return node
        return self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        swap = ast.Or if isinstance(node.op, ast.And) else ast.And
        if self._point(node, f"{_name(node.op)}>{swap.__name__}"):
            node.op = swap()
            return node
        return self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        if isinstance(node.op, ast.Not) and not is_defect_test(node.operand):
            if self._point(node, "drop-not"):
                return node.operand
        elif isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return node  # a negative literal: bent as a whole below would double the constants
        return self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        if only_with_defect(node.test):
            node.orelse = self.visit(node.orelse)
            return node
        if self._point(node, "negate-ifexp"):
            node.test = ast.UnaryOp(ast.Not(), node.test)
            return node
        return self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        value = node.value
        if isinstance(value, bool):
            if self._point(node, f"{value}>{not value}"):
                return ast.copy_location(ast.Constant(not value), node)
        elif isinstance(value, int):
            new = 1 if value == 0 else 0 if value == 1 else value + 1
            if self._point(node, f"const-{value}>{new}"):
                return ast.copy_location(ast.Constant(new), node)
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return node  # a message: formatting is not device behaviour

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id in ("dict", "list", "tuple", "set", "type",
                                                                  "Literal", "Callable", "Mapping"):
            return node  # a type expression
        return self.generic_visit(node)


def _walk(module: str, source: str, target: str | None,
          excluded: Callable[[str], bool]) -> tuple[_Walker, ast.Module]:
    tree = ast.parse(source)
    walker = _Walker(module, source.splitlines(), target, excluded)
    walker.visit(tree)
    return walker, tree


def enumerate_module(module: str, source: str, excluded: Callable[[str], bool] = lambda q: False) -> list[Point]:
    """Every mutation point of ``source`` (the module ``module``), in source order of the walk."""
    return _walk(module, source, None, excluded)[0].points


def mutate_source(module: str, source: str, mutant_id: str,
                  excluded: Callable[[str], bool] = lambda q: False) -> ast.Module:
    """The AST of ``source`` with the one mutation ``mutant_id`` applied."""
    walker, tree = _walk(module, source, mutant_id, excluded)
    if not walker.applied:
        raise UnknownMutant(f"mutant {mutant_id!r}: no such mutation point in the current {module}.py")
    return ast.fix_missing_locations(tree)


def iter_ids(points: list[Point]) -> Iterator[str]:
    return (p.id for p in points)
