"""One word for a verdict: what a case, a step, a measurement or a whole run comes to.

A :class:`Verdict` is a :class:`~enum.StrEnum` whose values are the words the record has always
held, so it is written as that word (JSON, text, the report, the exit summary) and compares equal
to it: a record read back holds plain strings, and ``case.verdict == Verdict.PASS`` still holds.
JSON writes a member as its value.  PyYAML's safe dumper refuses a ``str`` subclass it does not
know: a verdict written to YAML (none is today) is written as ``str(verdict)``.  This module
imports nothing heavy: the command line imports it at start-up (:mod:`harness.exitcodes`).
"""

from __future__ import annotations

import enum


class Verdict(enum.StrEnum):
    #: every measurement held
    PASS = "PASS"
    #: a measurement held against the regulation did not hold (a compliance failure)
    FAIL = "FAIL"
    #: a problem of the rig (a device stopped answering, an unexpected exception), not of compliance
    ERROR = "ERROR"
    #: a wait for the devices ran out
    TIMEOUT = "TIMEOUT"
    #: not run (deselected, or left for a later sitting)
    SKIP = "SKIP"
    #: the case does not apply to the profile (or a permitted choice of the device made it moot)
    NOT_APPLICABLE = "NOT APPLICABLE"
    #: nothing failed, but the case cannot be decided (too few observations, an advisory value)
    INCONCLUSIVE = "INCONCLUSIVE"
    #: the operator or the host stopped the run during the case
    INTERRUPTED = "INTERRUPTED"
    #: a run's: the selected cases passed, and the run certifies nothing beyond them
    PARTIAL = "PARTIAL"
    #: a run's: not every case has a verdict
    INCOMPLETE = "INCOMPLETE"
    #: a run that did not start, or a clause no selected case cites
    NOT_RUN = "NOT RUN"


#: the verdicts a case (and a step, a measurement) can have, in the record's order
CASE_VERDICTS = (Verdict.PASS, Verdict.FAIL, Verdict.ERROR, Verdict.TIMEOUT, Verdict.SKIP, Verdict.NOT_APPLICABLE,
                 Verdict.INCONCLUSIVE, Verdict.INTERRUPTED)
#: the verdicts a whole run can have
RUN_VERDICTS = (Verdict.PASS, Verdict.PARTIAL, Verdict.FAIL, Verdict.ERROR, Verdict.INCOMPLETE, Verdict.INTERRUPTED)

