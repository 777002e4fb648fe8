"""Standard output that survives its reader going away (``tablecert validate suites/ | head``).

A command keeps working after the pipe closes and ends with the status of what it found, never a
false success and never a traceback (:mod:`harness.exitcodes`): a broken pipe means the reader
never saw the whole result, so a command that found nothing wrong exits 3 (its output was not
delivered), and one that found a problem keeps that status (1, 2).
"""

from __future__ import annotations

import os
import sys

from harness import exitcodes


class Out:
    """``print`` to stdout; after a broken pipe the rest is dropped and :attr:`closed` is set."""

    closed = False

    def print(self, text: str) -> None:
        if self.closed:
            return
        try:
            print(text, flush=True)
        except BrokenPipeError:
            self.closed = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)

    def status(self, found: int) -> int:
        """The exit status for ``found``: a pass whose output was cut short is no pass (3)."""
        return exitcodes.RIG_ERROR if self.closed and found == exitcodes.PASS else found
