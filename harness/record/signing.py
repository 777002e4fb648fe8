"""A lab's Ed25519 signature on a record: who vouches for it, checkable by anyone with the public key.

The record digest (:mod:`harness.record.digest`) shows whether anything changed since the run; it
cannot show *who* stands behind the record, and someone who rewrites the journal, ``record.json``
and the manifest together gets a new, self-consistent digest.  A signature closes that: the lab
signs the digest with its own private key and a regulator checks it with the lab's public key.

* ``tablecert keygen lab.key`` makes an Ed25519 key pair (RFC 8032) through the ``cryptography``
  library: ``lab.key`` (PKCS #8 PEM, mode 0600) and ``lab.key.pub`` (SubjectPublicKeyInfo PEM);
* ``tablecert sign RECORD --key lab.key --signer "ACME Labs"`` verifies the record, then writes
  ``record.sig`` beside it: the run id, the record digest, the signer, the key fingerprint and the
  time, signed as canonical JSON (:func:`harness.record.sign.sign_record`);
* ``tablecert verify RECORD --key lab.key.pub`` checks the record and that signature with that key:
  another key, another digest, an edited signer or a missing signature fail.

The **key fingerprint** is ``SHA256:`` and the hex SHA-256 of the 32 raw public-key bytes; a report
shows it with the signer (:func:`signature_info`), so a reader can match it to the key the lab
published.  ``record.sig`` lies outside the manifest (it signs the manifest's digest).
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from harness.errors import InputError
from harness.record.check import parse_json
from harness.record.digest import canonical_json, record_digest, run_dir_of
from harness.record.folder import member_problem, present
from harness.record.replay import load_record
from harness.yamlload import read_input

SIGNATURE_FILE = "record.sig"
SIGNATURE_SCHEMA = "tablecert/signature/1"
_PAYLOAD_KEYS = ("schema", "run_id", "record_digest", "signer", "key_fingerprint", "signed_at")
#: signed too where present: ``scope`` says the record is PARTIAL (``tablecert sign --partial``)
_OPTIONAL_PAYLOAD_KEYS = ("scope",)
MAX_KEY_BYTES = 64 * 1024


def fingerprint(public_key: Ed25519PublicKey) -> str:
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "SHA256:" + hashlib.sha256(raw).hexdigest()


def generate_key(private_path: Path) -> tuple[Path, str]:
    """Write a new key pair (``PATH`` and ``PATH.pub``); return the public file and fingerprint."""
    public_path = private_path.with_name(private_path.name + ".pub")
    for path in (private_path, public_path):
        if path.exists() or path.is_symlink():
            raise InputError(f"{path}: exists; a key is never overwritten (choose another name)")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    try:
        fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
        public_path.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                              serialization.PublicFormat.SubjectPublicKeyInfo))
    except OSError as exc:
        where = str(exc.filename or private_path)
        raise InputError(f"cannot write the key: {exc.strerror or exc}", path=where) from None
    return public_path, fingerprint(key.public_key())


def _read_key(path: Path) -> bytes:
    return read_input(path, limit=MAX_KEY_BYTES, what="key file")


def load_private_key(path: Path) -> Ed25519PrivateKey:
    data = _read_key(path)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise InputError(f"not an unencrypted PEM private key ({exc})", path=str(path)) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise InputError("not an Ed25519 key (tablecert keygen makes one)", path=str(path))
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    data = _read_key(path)
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        if b"PRIVATE KEY" in data:
            raise InputError("a private key: give the public key (the .pub file) to verify", path=str(path)) from None
        raise InputError("not a PEM public key (tablecert keygen writes KEY.pub)", path=str(path)) from None
    if not isinstance(key, Ed25519PublicKey):
        raise InputError("not an Ed25519 public key", path=str(path))
    return key


def _read_signature(run_dir: Path) -> dict[str, Any]:
    path = run_dir / SIGNATURE_FILE
    data = parse_json(read_input(path, limit=MAX_KEY_BYTES, what="signature file"), str(path), 1)
    keys = (*_PAYLOAD_KEYS, "public_key", "signature")
    extra = [k for k in _OPTIONAL_PAYLOAD_KEYS if isinstance(data, dict) and k in data]
    if not isinstance(data, dict) or set(data) != {*keys, *extra} \
            or not all(isinstance(data[k], str) for k in (*keys, *extra)):
        raise InputError(f"not a {SIGNATURE_SCHEMA} signature (fields {', '.join(keys)}, all text)",
                         path=str(path), line=1)
    if data["schema"] != SIGNATURE_SCHEMA:
        raise InputError(f"signature schema {data['schema'][:40]!r} is not {SIGNATURE_SCHEMA}", path=str(path), line=1)
    return data


def signature_problems(record: Path, public_key: Ed25519PublicKey | None = None) -> list[str]:
    """Every reason the record's signature does not stand (empty: it does).

    With ``public_key`` the signature must be by that key; without, it is checked against the key
    it names (which shows it is intact, not who made it).
    """
    run_dir = run_dir_of(record)
    problem = member_problem(run_dir, SIGNATURE_FILE)
    if problem == "missing":
        return [f"{SIGNATURE_FILE}: missing (the record is not signed)"]
    if problem is not None:
        return [f"{SIGNATURE_FILE}: {problem}: a signature is a regular file of the run folder"]
    try:
        sig = _read_signature(run_dir)
        embedded = Ed25519PublicKey.from_public_bytes(base64.b64decode(sig["public_key"], validate=True))
        signature = base64.b64decode(sig["signature"], validate=True)
    except (ValueError, TypeError) as exc:
        return [f"{SIGNATURE_FILE}: unreadable ({exc})"]
    except InputError as exc:
        return [f"{SIGNATURE_FILE}: {exc.message}"]
    problems: list[str] = []
    if fingerprint(embedded) != sig["key_fingerprint"]:
        problems.append(f"{SIGNATURE_FILE}: the key fingerprint does not match the key it carries")
    key = embedded
    if public_key is not None:
        key = public_key
        if fingerprint(public_key) != sig["key_fingerprint"]:
            problems.append(f"{SIGNATURE_FILE}: signed with key {sig['key_fingerprint']}, not with the key given "
                            f"({fingerprint(public_key)})")
    payload = {k: sig[k] for k in (*_PAYLOAD_KEYS, *_OPTIONAL_PAYLOAD_KEYS) if k in sig}
    try:
        key.verify(signature, canonical_json(payload))
    except InvalidSignature:
        problems.append(f"{SIGNATURE_FILE}: the signature does not match its content and key (altered or forged)")
    digest = record_digest(run_dir)
    if digest != sig["record_digest"]:
        problems.append(f"{SIGNATURE_FILE}: signs record digest {sig['record_digest']}, but the record's digest is now "
                        f"{digest} (the record changed after it was signed)")
    run_id = load_record(run_dir).run_id
    if run_id != sig["run_id"]:
        problems.append(f"{SIGNATURE_FILE}: signs run {sig['run_id']}, not this run ({run_id})")
    return problems


def signature_info(run_dir: Path) -> dict[str, Any] | None:
    """What a report shows in its signature block, or None for an unsigned record:
    ``signer``, ``key_fingerprint``, ``signed_at``, ``record_digest``, ``intact`` (the signature
    matches the record and the key it names) and ``problems``.  Whether the key is the lab's is for
    the reader to check against the fingerprint the lab published (or ``verify --key``)."""
    run_dir = run_dir_of(Path(run_dir))
    if not present(run_dir, SIGNATURE_FILE):
        return None
    problems = signature_problems(run_dir)
    try:
        sig = _read_signature(run_dir)
    except InputError:
        sig = {}
    return {
        "signer": sig.get("signer", ""),
        "key_fingerprint": sig.get("key_fingerprint", ""),
        "signed_at": sig.get("signed_at", ""),
        "record_digest": sig.get("record_digest", ""),
        "scope": sig.get("scope", ""),
        "intact": not problems,
        "problems": problems,
    }
