"""``tablecert catalogue``: list the regulation clauses the harness certifies against.

A lab engineer uses it to find the clause id a suite case must cite, to see which requirements
are out of scope for a device harness and why, and (``--interpretations``) which named
interpretations are in force by default.  ``--json`` is for tools: its keys are stable
(``clauses[].id, citation, source, area, testable, out_of_scope, text, params,
interpretations``; ``interpretations[].id, question, default, choices, reason, clauses``).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness.errors import InputError

if TYPE_CHECKING:
    from harness.regulations.model import Catalogue, Clause, Interpretation

HELP = "list the regulation clauses (testable or out of scope) and the named interpretations"
EXAMPLE = """
tablecert catalogue --testable                   # every clause a suite case must cover
tablecert catalogue pa-midi-r9-f1-suited-royal9  # one clause in full, with its parameters
tablecert catalogue 'pa-633a13-*' --json         # Hit and Run clauses, for tools
tablecert catalogue --interpretations            # named interpretations and their defaults
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--testable", action="store_true", help="only clauses a device harness can test")
    scope.add_argument("--out-of-scope", action="store_true", help="only clauses out of scope, with the reason")
    parser.add_argument("--interpretations", action="store_true",
                        help="list the named interpretations (default, choices, reason) instead")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("ids", nargs="*", metavar="ID",
                        help="clause ids (or interpretation ids with --interpretations); '*' globs allowed")


def _plain(value: Any) -> Any:
    """Params are read-only mappings; JSON wants plain dicts and lists."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def clause_json(c: Clause) -> dict[str, Any]:
    return {
        "id": c.id,
        "citation": c.citation,
        "source": c.source,
        "area": c.area,
        "testable": c.testable,
        "out_of_scope": c.out_of_scope,
        "text": c.text,
        "params": _plain(c.params),
        "interpretations": list(c.interpretations),
    }


def interpretation_json(i: Interpretation) -> dict[str, Any]:
    return {
        "id": i.id,
        "question": i.question,
        "default": i.default,
        "choices": list(i.choices),
        "reason": i.reason,
        "clauses": list(i.clauses),
    }


def _select(ids: Sequence[str], known: Sequence[str], what: str, cat: Catalogue) -> list[str]:
    chosen: list[str] = []
    for pattern in ids:
        if any(ch in pattern for ch in "*?["):
            matched = [k for k in known if fnmatch.fnmatchcase(k, pattern)]
            if not matched:
                raise InputError(f"no {what} id matches {pattern!r}")
        else:
            # clause()/interpretation() raise the "unknown ... id" error with a did-you-mean
            (cat.clause if what == "clause" else cat.interpretation)(pattern)
            matched = [pattern]
        chosen.extend(m for m in matched if m not in chosen)
    return chosen


def _clauses(cat: Catalogue, args: argparse.Namespace) -> list[Clause]:
    clauses = list(cat.clauses)
    if args.ids:
        wanted = set(_select(args.ids, [c.id for c in clauses], "clause", cat))
        clauses = [c for c in clauses if c.id in wanted]
    if args.testable:
        clauses = [c for c in clauses if c.testable]
    if args.out_of_scope:
        clauses = [c for c in clauses if not c.testable]
    return clauses


def _print_clause_detail(c: Clause) -> None:
    print(f"{c.id}\n  {c.citation}  ({c.source}, area {c.area})")
    print("  testable" if c.testable else f"  out of scope: {c.out_of_scope}")
    print(textwrap.fill(c.text, width=100, initial_indent="  ", subsequent_indent="  "))
    if c.params:
        print("  params: " + json.dumps(_plain(c.params), ensure_ascii=False))
    if c.interpretations:
        print("  interpretations: " + ", ".join(c.interpretations))


def _print_interpretation(i: Interpretation) -> None:
    print(f"{i.id}  (default {json.dumps(i.default)}; choices {', '.join(json.dumps(c) for c in i.choices)})")
    print(textwrap.fill(i.question, width=100, initial_indent="  ", subsequent_indent="  "))
    print(textwrap.fill("Why: " + i.reason, width=100, initial_indent="  ", subsequent_indent="  "))


def run(args: argparse.Namespace) -> int:
    from harness.regulations.catalogue import load_catalogue

    cat = load_catalogue()
    if args.interpretations:
        interps = cat.interpretations()
        if args.ids:
            wanted = _select(args.ids, [i.id for i in interps], "interpretation", cat)
            interps = [i for i in interps if i.id in wanted]
        if args.json:
            json.dump({"interpretations": [interpretation_json(i) for i in interps]}, sys.stdout,
                      indent=2, ensure_ascii=False)
            print()
        else:
            for i in interps:
                _print_interpretation(i)
        return 0
    clauses = _clauses(cat, args)
    if args.json:
        counts = {
            "clauses": len(clauses),
            "testable": sum(c.testable for c in clauses),
            "out_of_scope": sum(not c.testable for c in clauses),
        }
        json.dump({"counts": counts, "clauses": [clause_json(c) for c in clauses]}, sys.stdout,
                  indent=2, ensure_ascii=False)
        print()
        return 0
    if args.ids:
        for c in clauses:
            _print_clause_detail(c)
        return 0
    width = max((len(c.id) for c in clauses), default=0)
    cwidth = min(max((len(c.citation) for c in clauses), default=0), 34)
    for c in clauses:
        scope = "testable    " if c.testable else "out of scope"
        print(f"{c.id:<{width}}  {c.citation:<{cwidth}}  {scope}  {c.text if c.testable else c.out_of_scope}")
    by_source = Counter(c.source.split("_")[0] for c in clauses)
    print(f"{len(clauses)} clauses: {sum(c.testable for c in clauses)} testable, "
          f"{sum(not c.testable for c in clauses)} out of scope "
          f"({', '.join(f'{s}_: {n}' for s, n in sorted(by_source.items()))})")
    return 0
