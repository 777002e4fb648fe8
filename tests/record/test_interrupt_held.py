"""A Ctrl-C landing while a finished case is written down waits until the case's record is whole."""

from __future__ import annotations

import os
import signal

import pytest

from harness.interrupts import deferred, stop_signals


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


def test_a_second_stop_signal_does_not_cut_the_finish_short() -> None:
    """A parent's death sends two signals (the parent-death signal, then the watching thread's): the
    first ends the run, the second must not interrupt the record's finish that the first began."""
    finished: list[str] = []
    with stop_signals():
        try:
            os.kill(os.getpid(), signal.SIGHUP)
            finished.append("not reached")
        except KeyboardInterrupt:
            os.kill(os.getpid(), signal.SIGHUP)  # the watching thread's, while the record is finished
            with deferred():
                os.kill(os.getpid(), signal.SIGTERM)  # held back in a case's write: not raised after it
            finished.append("record finished")
    assert finished == ["record finished"]
    with pytest.raises(KeyboardInterrupt), stop_signals():  # a later run stops on its first signal again
        os.kill(os.getpid(), signal.SIGTERM)
