"""The step registry: every step a suite file may use, its arguments, and the code that runs it.

A step is registered where it is written, with the :func:`step` decorator::

    @step("reset_key", Action({"meter": Arg("enum", required=True, choices=METERS)}, shorthand="meter"))
    def reset_key(runner: CaseContext, step: Step, meter: str) -> None:
        ...

The decorator records the step's specification (:class:`Action`: its arguments and their checks,
read by the validator in :mod:`harness.suites.load.schema` and by the generated reference in
``docs/writing-suites.md``) next to the function the runner calls with the step's validated
arguments.  Nothing is bound onto a class by name: the runner looks the step up here.

The modules that define steps are listed in :data:`STEP_MODULES`, in the order the reference
documents them; :func:`steps` imports them once.  A name registered twice is refused, so two
modules cannot silently replace each other's step.

A step's function is checked against its specification when it is registered (as pluggy checks a
hook implementation against its hook's specification): the runner calls it as
``run(runner, step, **args)`` with the arguments the validator let through, so it must take every
argument its :class:`Action` declares, and require none the specification does not always give (one
it does not declare, or one neither required nor defaulted there).  A mismatch is refused at import,
naming the step, rather than found as a ``TypeError`` when a suite first uses the argument.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from harness.profiles.model import Profile

#: every module that registers steps, in documentation order
STEP_MODULES = (
    "harness.suites.steps.core",
    "harness.suites.steps.rounds",
    "harness.suites.steps.expect",
    "harness.suites.steps.expect_shoe",
    "harness.suites.steps.royal9",
    "harness.suites.steps.progressive",
    "harness.suites.steps.mystery",
    "harness.suites.steps.games",
    "harness.suites.steps.streak",
    "harness.suites.steps.faults",
    "harness.suites.steps.randomness",
    "harness.suites.steps.probes",
    "harness.suites.steps.bounds",
    "harness.suites.steps.contract",
    "harness.suites.steps.bench",
    "harness.suites.steps.explore",
    "harness.suites.steps.sweeps",
    "harness.suites.steps.wire",
    "harness.link.steps",
    "harness.link.faults",
)


@dataclass(frozen=True)
class Arg:
    """One argument: ``kind`` names its check (see :mod:`harness.suites.load.schema`).

    ``lo``/``hi`` bound a whole number (default 0 and the schema's largest) or a decimal;
    ``positive`` asks a decimal or an amount to be more than 0; ``why`` is the reason a value out of
    those bounds can never be right, shown in the message (``a baccarat hand totals 0 to 9``)."""

    kind: str
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    lo: int | None = None
    hi: int | None = None
    positive: bool = False
    why: str = ""


def choice(*choices: str, required: bool = False, default: str | None = None) -> Arg:
    """An argument that takes one of ``choices``."""
    return Arg("enum", required=required, default=default, choices=choices)


@dataclass(frozen=True)
class Action:
    """A step's specification: its arguments, shorthand and one-line documentation."""

    args: dict[str, Arg] = field(default_factory=dict)
    #: argument a scalar value stands for (``power: off`` -> ``{"state": "off"}``)
    shorthand: str | None = None
    #: the arguments of which exactly one must be given
    one_of: tuple[str, ...] = ()
    doc: str = ""
    #: the physical acts the step may ask a performer for (:data:`harness.bench.acts.ACTS`); a case
    #: needing one no performer on the bench can carry out is NOT APPLICABLE
    acts: tuple[str, ...] = ()
    #: the acts the step asks for besides ``acts``, from the arguments it is given (``expect_sequence``: its
    #: operations' acts)
    acts_from: Callable[[Mapping[str, Any]], tuple[str, ...]] | None = None
    #: why the step cannot be played on a profile's table at all (a case holding it is then NOT APPLICABLE,
    #: known before the run, as ``tablecert run --list`` shows it), or None
    unfit: Callable[[Profile], str | None] | None = None
    #: arguments any of which, given, means the step asks for none of its acts (it reads a file of
    #: observations instead, ``from:``)
    acts_unless: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepDef:
    """A registered step: its name, its specification and the function that carries it out."""

    name: str
    spec: Action
    #: ``run(runner, step, **validated_args)``
    run: Callable[..., None]
    module: str


_REGISTRY: dict[str, StepDef] = {}
_loaded = False

F = TypeVar("F", bound=Callable[..., None])


class StepSignatureError(TypeError):
    """A step function that cannot be called with what its specification gives it."""


#: the parameters every step function takes first, positionally (the runner, the YAML step)
_CONTEXT = 2


def signature_problems(fn: Callable[..., Any], spec: Action) -> list[str]:
    """Why ``fn`` cannot be called as ``fn(runner, step, **args)`` with the arguments ``spec``
    lets a suite give (empty: it can).  An argument the spec declares must be a parameter that
    can be given by name (or go to ``**kwargs``); a parameter without a default must be one the
    spec always gives: declared, and required or defaulted there."""
    params = list(inspect.signature(fn).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) < _CONTEXT and not any(p.kind is p.VAR_POSITIONAL for p in params):
        return [f"takes {len(positional)} positional parameter(s); a step takes (runner, step, ...)"]
    context = {p.name for p in positional[:_CONTEXT]}
    rest = [p for p in params if p.name not in context and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    by_name = {p.name: p for p in rest if p.kind is not p.POSITIONAL_ONLY}
    var_keyword = any(p.kind is p.VAR_KEYWORD for p in params)
    problems = []
    for arg in spec.args:
        if arg in context:
            problems.append(f"argument '{arg}' of its Action is also the name of its {arg!r} parameter, which "
                            "the runner gives positionally")
        elif arg not in by_name and not var_keyword:
            problems.append(f"does not accept argument '{arg}', which its Action declares")
    for p in rest:
        if p.default is not p.empty:
            continue
        declared = spec.args.get(p.name)
        if p.kind is p.POSITIONAL_ONLY:
            problems.append(f"requires positional-only parameter '{p.name}', which the runner never gives")
        elif declared is None:
            problems.append(f"requires '{p.name}', which its Action does not declare")
        elif not declared.required and declared.default is None:
            problems.append(f"requires '{p.name}', which its Action neither requires nor gives a default "
                            "(a suite may leave it out)")
    return problems


def step(name: str, spec: Action | None = None) -> Callable[[F], F]:
    """Register the decorated function as the step ``name`` with its specification; a function
    that does not fit its specification (:func:`signature_problems`) is refused."""

    def register(fn: F) -> F:
        if name in _REGISTRY:
            raise RuntimeError(f"step '{name}' is registered twice ({_REGISTRY[name].module} and {fn.__module__})")
        action = spec or Action()
        problems = signature_problems(fn, action)
        if problems:
            raise StepSignatureError(f"step '{name}' ({fn.__module__}.{fn.__qualname__}) does not fit its Action: "
                                     + "; ".join(problems))
        _REGISTRY[name] = StepDef(name, action, fn, fn.__module__)
        return fn

    return register


def steps() -> Mapping[str, StepDef]:
    """Every registered step, in documentation order: by :data:`STEP_MODULES`, then as each module
    registers them (the step modules are imported on first use, whatever was imported before)."""
    global _loaded
    if not _loaded:
        for module in STEP_MODULES:
            importlib.import_module(module)
        rank = {m: i for i, m in enumerate(STEP_MODULES)}
        ordered = sorted(_REGISTRY.values(), key=lambda d: rank.get(d.module, len(rank)))
        _REGISTRY.clear()
        _REGISTRY.update((d.name, d) for d in ordered)
        _loaded = True
    return _REGISTRY


def lookup(name: str) -> StepDef:
    """The step ``name``; ``KeyError`` when no module registers it."""
    return steps()[name]


class _Specs(Mapping[str, Action]):
    """Read-only view ``name -> Action`` over the registry (what the validator checks against)."""

    def __getitem__(self, name: str) -> Action:
        return steps()[name].spec

    def __iter__(self) -> Iterator[str]:
        return iter(steps())

    def __len__(self) -> int:
        return len(steps())


#: ``name -> Action`` for every registered step
ACTIONS: Mapping[str, Action] = _Specs()


def acts_of(step_names: Iterator[str] | list[str] | tuple[str, ...],
            args: list[Mapping[str, Any]] | None = None) -> list[str]:
    """The physical acts steps of these names (with these arguments, when given) may ask for, in
    first-use order."""
    out: dict[str, None] = {}
    for i, name in enumerate(step_names):
        if name in steps():
            spec = steps()[name].spec
            if args is not None and any(a in args[i] for a in spec.acts_unless):
                continue
            out.update(dict.fromkeys(spec.acts))
            if args is not None and spec.acts_from is not None:
                out.update(dict.fromkeys(spec.acts_from(args[i])))
    return list(out)


def reference_markdown() -> str:
    """The step reference table of ``docs/writing-suites.md`` (kept in step by a test)."""
    rows = ["| step | arguments | what it does |", "|---|---|---|"]
    # in the order of STEP_MODULES whichever module was imported first (a module may import another's)
    order = {module: i for i, module in enumerate(STEP_MODULES)}
    for d in sorted(steps().values(), key=lambda d: order.get(d.module, len(order))):
        name, spec = d.name, d.spec
        args = []
        for key, a in spec.args.items():
            kind = "|".join(a.choices) if a.kind == "enum" else a.kind
            if a.lo is not None or a.hi is not None:
                kind += f" {a.lo if a.lo is not None else 0}..{a.hi if a.hi is not None else 'N'}"
            if a.positive:
                kind += " > 0"
            flag = " (required)" if a.required else (f" = {a.default}" if a.default is not None else "")
            args.append(f"`{key}`: {kind}{flag}".replace("|", "\\|"))
        short = f" (shorthand: `{name}: <{spec.shorthand}>`)" if spec.shorthand else ""
        rows.append(f"| `{name}` | {'; '.join(args) or '-'} | {spec.doc}{short} |")
    return "\n".join(rows)


if __name__ == "__main__":  # pragma: no cover - `python -m harness.suites.steps.registry` prints the reference
    # run as a script this module is __main__, not the registry the step modules register into
    from harness.suites.steps.registry import reference_markdown as _reference

    print(_reference())
