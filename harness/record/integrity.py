"""What the integrity of a record rests on, in words for whoever reads a view of it.

``verify`` without ``--digest`` or ``--key`` shows that a record agrees with itself: record.json
with its journal, every file with its manifest ``record.sha256``.  Someone able to rewrite the run
folder can rewrite all of them consistently (a FAIL made PASS in the journal, the record and the
manifest together) and the record still agrees with itself.  Only two things catch that: the
record digest compared with the one printed in a report signed at the time (``verify --digest``),
or a lab signature checked with the lab's public key (``verify --key``).  A regulator reading a
report needs to know which of these stands behind it, so every view says so:

==============  ================================================================================
state           meaning
==============  ================================================================================
``not valid``   the record failed verification; nothing in it can be relied on
``incomplete``  the run did not finish: no digest, no signature possible
``signed``      a ``record.sig`` matches the record and the key it carries; whose key that is,
                only its fingerprint (against the one the lab publishes) or ``verify --key`` tells
``unverified``  the record agrees only with its own manifest: unverified without the digest from a
                signed report or a signature
==============  ================================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.record.document import Record

UNVERIFIED = ("Unverified without digest or signature: the record agrees with its own manifest "
              "(record.sha256), which anyone able to rewrite the run folder can recompute. Rely on it only "
              "after `tablecert verify RECORD --digest HEX` with the digest printed in a report signed when "
              "the run finished, or `tablecert verify RECORD --key PUB` with the lab's public key.")


def integrity(record: Record, problems: list[str], signed: Mapping[str, Any] | None) -> dict[str, str]:
    """``{"state": ..., "text": ...}`` for a view of ``record`` (``problems``: from ``verify``;
    ``signed``: :func:`harness.record.signing.signature_info`)."""
    if problems:
        return {"state": "not valid",
                "text": "The record failed verification: its verdicts and evidence cannot be relied on."}
    if not record.complete:
        return {"state": "incomplete",
                "text": "The run did not finish: the record has no digest and cannot be signed; it shows the "
                        "cases that finished, unverified."}
    if signed is not None and signed.get("intact"):
        return {"state": "signed",
                "text": f"Signed by {signed.get('signer', '')} with key {signed.get('key_fingerprint', '')}: the "
                        "signature matches this record. Whose key it is, only the fingerprint the lab publishes "
                        "tells (`tablecert verify RECORD --key PUB`)."}
    return {"state": "unverified", "text": UNVERIFIED}
