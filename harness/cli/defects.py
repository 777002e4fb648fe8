"""``tablecert defects``: the named emulator defects, and the kill matrix that proves the suites catch them.

Why: a harness that passes a non-compliant device is worse than none (issue 6).  The defects in
:data:`harness.emulators.defects.DEFECTS` are what the suites are proven against; this command
lists them (name, the regulation text and the catalogue clause ids it breaks, what goes wrong) so
a lab can pick one for ``tablecert emulate --defect NAME`` or a profile's ``emulator.defect``.
``--json`` prints the same as a list of objects carrying every field of each defect.

``--matrix`` runs the proof (:mod:`harness.selfcheck.killmatrix`): the clean emulators must pass the cases
citing the defects' clauses, then every defect must make at least one of those cases FAIL (an
ERROR or a TIMEOUT does not count: it is the rig's verdict, not a compliance one).  Exit status 0
only when all of that holds, 1 otherwise, 2 for bad input.  ``--bench-twin`` runs it on the
profiles' bench twins; a defect that only cases needing an act no one on a bench performs can catch
(the shuffler's, read out through the test channel) is listed OFF-BENCH with that reason.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from decimal import Decimal
from typing import Any

from harness.cli import shard as sh
from harness.cli.numbers import MAX_SEED, count, duration
from harness.errors import InputError

HELP = "List the emulator defects the suites must catch; --matrix proves each is caught; --mutants scores the suites"
EXAMPLE = """\
tablecert defects                       # every defect, one per line
tablecert defects lockout-late rate-off # just these two
tablecert defects --json                # machine-readable list
tablecert defects --matrix --jobs 2     # the kill matrix: every defect fails a case citing its clause
tablecert defects --matrix --defect rate-off --defect shoe-misread --json
tablecert defects --matrix --variants --seed 7   # on five variants drawn from seed 7 instead of the shipped tables
tablecert defects --matrix --persona fixed-configuration --jobs 1  # on the shipped tables played by a persona
tablecert defects --matrix --variants --seed 7 --persona reordered-events   # every variant played by that persona
tablecert defects --matrix --bench-twin --jobs 1 # on the bench twins: no test channel, the scripted operator
tablecert emulate --defect lockout-late # then run the suites against it: some case must FAIL
tablecert defects --mutants --list      # every mutant of the device-side emulator code, by id
tablecert defects --mutants --jobs 2    # the mutation score: each mutant emulator certified (long)
tablecert defects --mutants --sample 5 --seed 1 --json
tablecert defects --mutants --mutant 'controller:265:21:const-0>1'   # reproduce one
tablecert defects --matrix --shard 1/3 --json > matrix-1.json   # a third of the defects, on one of 3 machines
tablecert defects --matrix --collect matrix-1.json matrix-2.json matrix-3.json   # the whole matrix's table
tablecert defects --mutants --shard 2/32 --json > mutants-2.json   # 1/32 of the mutation run
tablecert defects --mutants --collect mutants-*.json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME", help="only these defects (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--matrix", action="store_true",
                        help="run the kill matrix: clean runs, then the cases citing each defect's clauses")
    parser.add_argument("--defect", action="extend", nargs="+", default=[], metavar="NAME",
                        help="with --matrix: only these defects (as the positional names)")
    parser.add_argument("--jobs", type=count(1, 64), default=2, metavar="N",
                        help="with --matrix: certification runs at once, each with its own emulators (default 2)")
    parser.add_argument("--variants", action="store_true",
                        help="with --matrix: run each defect on a variant of its kind of table drawn from --seed "
                             "(a $5 Royal 9 table with a mystery progressive, EZ Baccarat, Hit and Run, "
                             "Mini-Baccarat with the streak wager, a link) instead of the shipped profiles")
    parser.add_argument("--bench-twin", action="store_true",
                        help="with --matrix: every run on its profile's bench twin (no test channel; the scripted "
                             "operator, relays and the bench supply perform every act), as a lab bench would catch it")
    parser.add_argument("--seed", type=count(0, MAX_SEED), default=None, metavar="S",
                        help="with --variants: the seed (default: a fresh one, printed); with --mutants --sample: "
                             "the sample's seed (default 0)")
    parser.add_argument("--deadline", type=duration(86_400), default=None, metavar="SECONDS",
                        help="with --matrix or --mutants: end a run still going after this long (default 300; "
                             "240 per mutant run)")
    parser.add_argument("--persona", default=None, metavar="NAME",
                        help="with --matrix: the tables played by this persona, a permitted behaviour "
                        "(tablecert variants --personas lists them); with --variants every variant it means "
                        "something on ('reference': none; default with --variants: one variant, drawn from the "
                        "seed, played by a persona drawn from the seed)")
    parser.add_argument("--mutants", action="store_true",
                        help="the mutation score: mutate the device-side emulator code one change at a time and "
                             "certify each mutant emulator; a mutant some case does not pass is killed")
    parser.add_argument("--mutant", action="extend", nargs="+", default=[], metavar="ID",
                        help="with --mutants: only these mutants (module:line:col:operator, as --list prints)")
    parser.add_argument("--sample", type=count(1, 1_000_000), default=None, metavar="N",
                        help="with --mutants: N mutants drawn from --seed (default seed 0)")
    parser.add_argument("--list", action="store_true", help="with --mutants: list the mutants, run nothing")
    sh.add_arguments(parser, "defects (--matrix) or mutants (--mutants)")
    parser.add_argument("--no-trace", action="store_true",
                        help="with --mutants: skip the traced clean runs; every case of the first two profiles "
                             "runs for each mutant (NOT-COVERED is then never said)")


def selected(names: list[str]) -> list[Any]:
    """The defects named (all when none), in registry order; an unknown name is bad input."""
    from harness.emulators.defects import DEFECTS, check_defects

    if not names:
        return list(DEFECTS.values())
    try:
        check_defects(names)
    except InputError:
        unknown = next(n for n in names if n not in DEFECTS)
        raise InputError(f"defect {unknown!r}: unknown; `tablecert defects` lists the "
                         f"{len(DEFECTS)} known ones") from None
    return [DEFECTS[n] for n in dict.fromkeys(names)]


def run(args: argparse.Namespace) -> int:
    names = [*args.names, *args.defect]
    if args.mutants:
        from harness.cli.mutants import run_mutants

        return run_mutants(args)
    if args.mutant or args.sample is not None or args.list or args.no_trace:
        raise InputError("--mutant, --sample, --list and --no-trace go with --mutants")
    if args.collect and not args.matrix:
        raise InputError("--collect goes with --matrix or --mutants: tablecert defects --matrix --collect FILE...")
    if args.shard and not args.matrix:
        raise InputError("--shard goes with --matrix or --mutants")
    if args.matrix:
        return _matrix(args, names)
    if args.defect:
        raise InputError("--defect selects defects for --matrix; to list some, name them: tablecert defects NAME")
    if args.bench_twin:
        raise InputError("--bench-twin goes with --matrix: tablecert defects --matrix --bench-twin")
    if args.persona is not None:
        raise InputError("--persona goes with --matrix: tablecert defects --matrix --persona NAME")
    defects = selected(names)
    if args.json:
        print(json.dumps([dataclasses.asdict(d) for d in defects], indent=2, ensure_ascii=False))
        return 0
    width_name = max((len(d.name) for d in defects), default=4)
    width_clause = max((len(d.clause) for d in defects), default=6)
    print(f"{'DEFECT':<{width_name}}  {'BREAKS':<{width_clause}}  DESCRIPTION [CLAUSE IDS]")
    for d in defects:
        print(f"{d.name:<{width_name}}  {d.clause:<{width_clause}}  {d.description} [{', '.join(d.clauses)}]")
    print(f"\n{len(defects)} defect(s); run one with: tablecert emulate --defect NAME; "
          "prove them all with: tablecert defects --matrix")
    return 0


def _persona_tables(persona: str) -> dict[str, str]:
    """Kind of table -> a profile of the shipped table played by ``persona`` (written to a temporary
    folder); a link keeps the shipped profile (its tables are single-table emulators of their own)."""
    import tempfile
    from pathlib import Path

    import yaml

    from harness.emulators.personas import PERSONAS, apply_persona
    from harness.selfcheck import killmatrix

    if persona not in PERSONAS:
        raise InputError(f"--persona {persona}: unknown (known: {', '.join(sorted(PERSONAS))})")
    folder = Path(tempfile.mkdtemp(prefix=f"tablecert-matrix-{persona}-"))
    tables: dict[str, str] = {}
    for kind, shipped in killmatrix.PROFILE_FOR_TABLE.items():
        if kind == "link":
            tables[kind] = shipped
            continue
        data = yaml.safe_load(killmatrix.profile_path(shipped).read_text())
        data = apply_persona(data, persona)
        data["name"] = f"{shipped}.{persona}"
        path = folder / f"{shipped}.{persona}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False, width=110))
        tables[kind] = str(path)
    return tables


def _matrix_key(selection: list[str], doc: dict[str, Any]) -> dict[str, Any]:
    """What shards of one kill matrix share (``--collect`` checks it): the whole selection, in order."""
    return {"kind": "kill-matrix", "selection": list(selection), "variants_seed": doc.get("variants_seed"),
            "bench_twin": bool(doc.get("bench_twin")), "persona": doc.get("persona")}


def _matrix(args: argparse.Namespace, names: list[str]) -> int:
    from harness.selfcheck import killmatrix

    if args.jobs < 1:
        raise InputError(f"--jobs {args.jobs}: at least 1")
    deadline = killmatrix.DEFAULT_DEADLINE_S if args.deadline is None else args.deadline
    if deadline <= 0:
        raise InputError(f"--deadline {args.deadline:g}: must be positive")
    every = [d.name for d in selected(names)]  # an unknown name is bad input before anything starts
    if args.collect:
        docs = sh.load_shards(args.collect, "kill-matrix", ("selection", "variants_seed", "bench_twin", "persona"))
        merged = killmatrix.merge_json(docs, docs[0]["selection"])
        print(json.dumps({**killmatrix.to_json(merged), **_matrix_key(docs[0]["selection"], docs[0]), "shard": "1/1"},
                         indent=2, ensure_ascii=False) if args.json else killmatrix.render(merged))
        return 0 if merged.passed else 1
    if args.shard and args.variants and args.seed is None:
        raise InputError("--shard with --variants needs --seed: every shard must draw the same variants")

    def progress(text: str) -> None:
        if not args.json:
            print(f"kill matrix: {text}", file=sys.stderr, flush=True)

    tables = None
    seed = None
    if args.variants:
        import secrets
        import tempfile
        from pathlib import Path

        from harness.selfcheck import variants as vm

        seed = args.seed if args.seed is not None else secrets.randbelow(10**9)
        chosen = vm.matrix_variants(seed, args.persona)
        paths = vm.write(chosen, Path(tempfile.mkdtemp(prefix=f"tablecert-matrix-variants-{seed}-")))
        tables = vm.matrix_tables(chosen, paths)
        print(f"kill matrix: variants of seed {seed}: " + "; ".join(f"{p} ({v.summary()})"
                                                                   for v, p in zip(chosen, paths, strict=True)),
              file=sys.stderr, flush=True)
    if args.persona is not None and not args.variants and args.persona != "reference":
        tables = _persona_tables(args.persona)
        progress(f"persona {args.persona}: " + "; ".join(sorted(set(tables.values()))))
    mine = args.shard.pick(every) if args.shard else every
    if not mine:  # more shards than defects: this one has none (run_matrix of no names would run them all)
        matrix = killmatrix.KillMatrix([], [], Decimal(0), args.jobs, args.bench_twin)
    else:
        matrix = killmatrix.run_matrix(mine, jobs=args.jobs, deadline_s=deadline, progress=progress, tables=tables,
                                       bench_twin=args.bench_twin)
    if args.json:
        key = {**_matrix_key(every, {"variants_seed": seed if args.variants else None, "bench_twin": args.bench_twin,
                                   "persona": args.persona}),
               "shard": str(args.shard or sh.Shard(1, 1))}
        print(json.dumps({**killmatrix.to_json(matrix), **key}, indent=2, ensure_ascii=False))
    elif not mine:
        print(f"kill matrix: shard {args.shard} has no defect of the {len(every)} selected")
        return 0
    else:
        print(killmatrix.render(matrix))
    return 0 if matrix.passed else 1
