"""Exit statuses: one meaning each, across every ``tablecert`` command.

A CI job or a lab's script reads the exit status before anything else, so a status must never
mean two things:

=====  =================================================================================
0      PASS: everything asked for was done and every applicable requirement holds
1      FAIL: a compliance failure (the device did not do what the regulation requires),
       or a record that does not verify
2      bad input: a suite, profile, stack, record or command line that cannot be used
3      rig or device error, or an incomplete run (a device stopped answering, a port is
       missing, a case ended ERROR/TIMEOUT, cases were not run)
4      PARTIAL: every selected case passed, but the run selected only part of the applicable
       cases of the certification suites (``FILE::CASE``, ``-k``, ``--tc-clause``): no certification
130    interrupted (Ctrl-C / SIGINT, SIGTERM): never reported as a device fault
=====  =================================================================================

A broken pipe (output piped into ``head`` and closed) is never success, whatever the command
found: it ends with the status of the problem it found (1, 2), and with 3 when it found none (its
output was not delivered, so the reader cannot know the result).
"""

from __future__ import annotations

from typing import Final

from harness.verdict import Verdict

PASS: Final = 0
FAIL: Final = 1
BAD_INPUT: Final = 2
RIG_ERROR: Final = 3
PARTIAL: Final = 4
INTERRUPTED: Final = 130

#: run verdict -> exit status (the record's verdict decides the status, never pytest's own code)
BY_VERDICT: Final[dict[str, int]] = {
    Verdict.PASS: PASS,
    Verdict.PARTIAL: PARTIAL,
    Verdict.FAIL: FAIL,
    "INVALID": FAIL,
    Verdict.ERROR: RIG_ERROR,
    Verdict.INCOMPLETE: RIG_ERROR,
    Verdict.INTERRUPTED: INTERRUPTED,
}


def for_verdict(verdict: str) -> int:
    """The exit status for a run verdict (an unknown verdict is a rig error, never a pass)."""
    return BY_VERDICT.get(verdict, RIG_ERROR)


def worst(*codes: int) -> int:
    """The status of several results together: interrupted > bad input > rig error > fail > partial >
    pass."""
    rank = {PASS: 0, PARTIAL: 1, FAIL: 2, RIG_ERROR: 3, BAD_INPUT: 4, INTERRUPTED: 5}
    return max(codes, key=lambda c: rank.get(c, 3), default=PASS)
