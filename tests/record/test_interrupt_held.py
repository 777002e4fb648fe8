"""A Ctrl-C landing while a finished case is written down waits until the case's record is whole."""

from __future__ import annotations

import os
import signal

import pytest

from harness.interrupts import deferred


@pytest.mark.usefixtures("sigint_delivered")  # started as a shell's background job, SIGINT is ignored
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_is_held_until_the_section_ends(sig: int) -> None:
    written: list[str] = []
    before = signal.getsignal(sig)
    with pytest.raises(KeyboardInterrupt, match="held back while the case was recorded"), deferred():
        written.append("evidence")
        os.kill(os.getpid(), sig)
        written.append("journal line")  # reached: the interrupt did not cut the record in two
    assert written == ["evidence", "journal line"]
    assert signal.getsignal(sig) == before


def test_no_interrupt_no_exception() -> None:
    with deferred():
        pass
