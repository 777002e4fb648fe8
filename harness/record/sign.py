"""Signing a record that verifies (``tablecert sign``): ``record.sig`` written beside it, and the
lab report rendered again with its signature block.  The keys, the signature file and its checks
are :mod:`harness.record.signing`'s.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization

from harness.errors import InputError
from harness.record.atomic import write_atomic
from harness.record.digest import canonical_json, record_digest, run_dir_of
from harness.record.journal import utc_now
from harness.record.replay import load_record
from harness.record.signing import SIGNATURE_FILE, SIGNATURE_SCHEMA, fingerprint, load_private_key
from harness.record.verification import verify
from harness.record.views import HTML_FILE, render_one, stamp


def sign_record(record: Path, key_path: Path, signer: str, *, partial: bool = False) -> dict[str, Any]:
    """Sign a record that verifies; write ``record.sig`` and render ``record.html`` again with its
    signature block; return what was written.

    Raises :class:`InputError` for a bad key or signer, or for a PARTIAL record without
    ``partial`` (a selection is no certification: signing one must be meant, and the signature then
    says so in its ``scope``), ``ValueError`` listing the problems when the record does not verify
    (nobody signs a record that fails verification).
    """
    key = load_private_key(key_path)
    signer = signer.strip()
    if not signer or len(signer) > 200 or any(ord(c) < 32 for c in signer):
        raise InputError("--signer: the name of the lab or person signing (1-200 printable characters)")
    run_dir = run_dir_of(record)
    problems = verify(run_dir)
    if problems:
        raise ValueError("; ".join(problems))
    digest = record_digest(run_dir)
    rec = load_record(run_dir)
    scope = rec.partial()
    if scope and not partial:
        raise InputError(f"{scope}: a partial run is not a certification; sign it with --partial, and the "
                         "signature says so")
    payload = {
        "schema": SIGNATURE_SCHEMA,
        "run_id": rec.run_id,
        "record_digest": digest,
        "signer": signer,
        "key_fingerprint": fingerprint(key.public_key()),
        "signed_at": utc_now(),
        **({"scope": scope} if scope else {}),
    }
    raw_public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    document = {
        **payload,
        "public_key": base64.b64encode(raw_public).decode("ascii"),
        "signature": base64.b64encode(key.sign(canonical_json(payload))).decode("ascii"),
    }
    write_atomic(run_dir / SIGNATURE_FILE, canonical_json(document) + b"\n")
    _show_in_report(run_dir)
    return document


def _show_in_report(run_dir: Path) -> None:
    """Render the lab report again so its signature block names the signer and the key (the
    folder's record.html is what ``verify`` renders again, the signature block included)."""
    html = render_one(run_dir, load_record(run_dir), verify(run_dir, views=False), HTML_FILE)
    if (run_dir / HTML_FILE).is_symlink():
        (run_dir / HTML_FILE).unlink()
    write_atomic(run_dir / HTML_FILE, html)
    stamp(run_dir, HTML_FILE)
