"""``tablecert keygen KEY``: make the Ed25519 key pair a lab signs its records with.

Writes ``KEY`` (the private key, PKCS #8 PEM, readable by its owner only) and ``KEY.pub`` (the
public key to hand to whoever checks the lab's records), and prints the key fingerprint to publish
with it.  An existing file is never overwritten.  Exit 0, or 2 when the files cannot be written.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness import exitcodes

HELP = "make an Ed25519 key pair for signing records (KEY and KEY.pub)"
EXAMPLE = """
tablecert keygen keys/acme-lab.key      # writes keys/acme-lab.key and keys/acme-lab.key.pub
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("key", type=Path, metavar="KEY", help="private key file to write (KEY.pub beside it)")


def run(args: argparse.Namespace) -> int:
    from harness.record.signing import generate_key

    public, fp = generate_key(args.key)
    print(f"private key {args.key} (keep it secret)\npublic key  {public}\nfingerprint {fp}")
    return exitcodes.PASS
