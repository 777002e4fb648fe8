"""Every step's function takes what its ``Action`` declares, and the registry refuses one that does
not, at registration and naming the step (as pluggy checks a hook implementation against its spec)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.suites.steps.registry import (
    Action,
    Arg,
    StepSignatureError,
    choice,
    signature_problems,
    step,
    steps,
)


def test_every_registered_step_fits_its_action() -> None:
    registered = steps()
    assert registered
    misfits = {name: signature_problems(d.run, d.spec) for name, d in registered.items()}
    assert not {name: why for name, why in misfits.items() if why}


def test_a_step_missing_a_declared_argument_is_refused_by_name() -> None:
    def place(runner: Any, step: Any, seat: int) -> None: ...

    spec = Action({"seat": Arg("seat", required=True), "amount": Arg("amount", default=500)})
    with pytest.raises(StepSignatureError, match=r"step 'test-misfit-amount' .*'amount', which its Action declares"):
        step("test-misfit-amount", spec)(place)
    assert "test-misfit-amount" not in steps()


def test_a_step_requiring_an_undeclared_argument_is_refused() -> None:
    def place(runner: Any, step: Any, seat: int, colour: str) -> None: ...

    with pytest.raises(StepSignatureError, match=r"step 'test-misfit-colour' .*requires 'colour', which its Action "
                                                 r"does not declare"):
        step("test-misfit-colour", Action({"seat": Arg("seat", required=True)}))(place)
    assert "test-misfit-colour" not in steps()


def test_a_step_requiring_an_argument_a_suite_may_leave_out_is_refused() -> None:
    def power(runner: Any, step: Any, state: str) -> None: ...

    with pytest.raises(StepSignatureError, match="neither requires nor gives a default"):
        step("test-misfit-optional", Action({"state": choice("off", "on")}))(power)


def test_a_step_without_the_runner_and_the_step_is_refused() -> None:
    def bare(seat: int = 1) -> None: ...

    with pytest.raises(StepSignatureError, match=r"a step takes \(runner, step, \.\.\.\)"):
        step("test-misfit-bare", Action({"seat": Arg("seat")}))(bare)


def _defaulted(runner: Any, step: Any, seat: int, amount: int | None = None) -> None: ...


def _keywords(runner: Any, step: Any, seat: int, **args: Any) -> None: ...


def _keyword_only(runner: Any, step: Any, *, seat: int, amount: int = 500) -> None: ...


def _all_keywords(runner: Any, step: Any, **args: Any) -> None: ...


@pytest.mark.parametrize("fn", [_defaulted, _keywords, _keyword_only, _all_keywords])
def test_what_fits(fn: Any) -> None:
    spec = Action({"seat": Arg("seat", required=True), "amount": Arg("amount")})
    assert signature_problems(fn, spec) == []


def test_an_argument_named_like_the_step_parameter_is_refused() -> None:
    def f(runner: Any, step: Any, **args: Any) -> None: ...

    assert signature_problems(f, Action({"step": Arg("str")})) != []
