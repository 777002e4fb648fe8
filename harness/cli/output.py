"""Standard output that survives its reader going away (``tablecert validate suites/ | head``).

A command keeps working after the pipe closes and ends with the status of what it found, never a
false success and never a traceback (:mod:`harness.exitcodes`).
"""

from __future__ import annotations

import os
import sys


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
