"""``--shard K/N`` and ``--collect FILE...``: one matrix spread over N machines, merged into the
table and verdict of one run.

The matrices (``tablecert variants``, ``tablecert defects --matrix``, ``tablecert defects --mutants``)
are lists of independent runs.  ``--shard K/N`` runs the items whose position ``i`` in the full,
ordered list has ``i % N == K - 1`` (every N-th item, so each shard gets a like mix of the slow and
the fast ones), and ``--json`` then writes the shard's result with a ``shard`` field and the
parameters that decide the list.  ``--collect`` reads the N results, refuses a set that is not
exactly shards 1 to N of one matrix (a shard missing or given twice, another seed or selection),
and prints what one unsharded run prints, with its exit status.  Any scheduler that can start N
jobs and pass their files to one more can spread a matrix: a CI job matrix
(``.github/workflows/ci.yml``), a lab's own task runner, or ``xargs -P``.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from harness.errors import InputError

T = TypeVar("T")
_SPEC = re.compile(r"^([1-9][0-9]{0,3})/([1-9][0-9]{0,3})$")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as written
    total: int

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"

    def pick(self, items: Sequence[T]) -> list[T]:
        """The items of this shard: positions ``i`` with ``i % total == index - 1``."""
        return [item for i, item in enumerate(items) if i % self.total == self.index - 1]


def shard_spec(text: str) -> Shard:
    """argparse type of ``--shard K/N``: 1 <= K <= N <= 9999."""
    m = _SPEC.match(text.strip())
    if not m or int(m.group(1)) > int(m.group(2)):
        raise argparse.ArgumentTypeError(f"{text!r}: give K/N with 1 <= K <= N (e.g. 2/4)")
    return Shard(int(m.group(1)), int(m.group(2)))


def add_arguments(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--shard", type=shard_spec, default=None, metavar="K/N",
                   help=f"run only shard K of N of the {what} (every N-th, from the K-th); with --json the result "
                        "says which shard it is, for --collect")
    p.add_argument("--collect", nargs="+", default=None, metavar="FILE",
                   help="merge the --json results of shards 1 to N of one run into its table and verdict "
                        "(runs nothing)")


def load_shards(files: Sequence[str], kind: str, same: Sequence[str]) -> list[dict[str, Any]]:
    """The results in ``files``, ordered by shard, checked to be shards 1 to N of one ``kind`` of
    run whose ``same`` fields agree; bad input otherwise (one line naming the file)."""
    docs: list[tuple[Shard, str, dict[str, Any]]] = []
    for name in files:
        try:
            doc = json.loads(Path(name).read_text("utf-8"))
        except OSError as exc:
            raise InputError(f"--collect {name}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise InputError(f"--collect {name}: not JSON ({exc})") from None
        if not isinstance(doc, dict) or doc.get("kind") != kind or not isinstance(doc.get("shard"), str):
            raise InputError(f"--collect {name}: not the --json result of a shard of {kind} (run it with "
                             "--shard K/N --json)")
        try:
            shard = shard_spec(doc["shard"])
        except argparse.ArgumentTypeError as exc:
            raise InputError(f"--collect {name}: shard {exc}") from None
        docs.append((shard, name, doc))
    first_shard, first_name, first = docs[0]
    for shard, name, doc in docs[1:]:
        if shard.total != first_shard.total:
            raise InputError(f"--collect {name}: shard {shard} of a run in {shard.total}; "
                             f"{first_name} is {first_shard}")
        for key in same:
            if doc.get(key) != first.get(key):
                raise InputError(f"--collect {name}: {key} {doc.get(key)!r} differs from {first_name}'s "
                                 f"{first.get(key)!r}: not shards of one run")
    seen: dict[int, str] = {}
    for shard, name, _ in docs:
        if shard.index in seen:
            raise InputError(f"--collect {name}: shard {shard} given twice (also {seen[shard.index]})")
        seen[shard.index] = name
    missing = [str(k) for k in range(1, first_shard.total + 1) if k not in seen]
    if missing:
        raise InputError(f"--collect: shard(s) {', '.join(missing)} of {first_shard.total} missing: the merge "
                         "would not be the whole run")
    return [doc for _, _, doc in sorted(docs, key=lambda d: d[0].index)]
