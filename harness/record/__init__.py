"""The certification record: what a run did, kept as evidence a lab can sign.

A run writes ``reports/<run-id>/`` through :class:`RunRecorder` (a journal fsync'ed per finished
case, evidence files with their SHA-256), and ``finish`` turns it into a canonical
``record.json`` with a digest manifest and its views: the HTML report, JUnit XML and Allure
results.  ``verify`` tells whether anything was edited since.  The schema
(``tablecert/record/1``) and the recorder API are documented in docs/record.md.
"""

from harness.record.digest import canonical_json, record_digest
from harness.record.document import InputFile, Record
from harness.record.journal import CaseRecorder, RunRecorder, load_record
from harness.record.model import (
    IDENTITY_FIELDS,
    OUTCOMES,
    SCHEMA,
    CaseResult,
    Evidence,
    Measurement,
    RecordedIdentity,
    RunMeta,
    StepResult,
)
from harness.record.verification import verify

__all__ = [
    "IDENTITY_FIELDS",
    "OUTCOMES",
    "SCHEMA",
    "CaseRecorder",
    "CaseResult",
    "Evidence",
    "InputFile",
    "Measurement",
    "Record",
    "RecordedIdentity",
    "RunMeta",
    "RunRecorder",
    "StepResult",
    "canonical_json",
    "load_record",
    "record_digest",
    "verify",
]
