"""``tablecert coverage``: which cases check each testable clause of the catalogue.

Every testable clause must be cited by at least one case, and that case must apply to at least one
built-in profile (otherwise ``tablecert run`` never executes it).  A clause whose every case needs a
capability no built-in table has (a carryover pot) is listed as such and neither counted as covered
nor as a gap of the harness: it is checked on a table that has it.  A case that runs on no built-in
profile is listed with the reason for each (a capability, a denomination, a role the table cannot
fill, a stack the builder proves impossible there): nothing is dropped in silence.  Exit 1 when a
testable clause is uncovered; CI runs this.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from harness.paths import project_root

HELP = "clause -> cases table; exit 1 when a testable clause has no case"
EXAMPLE = """
tablecert coverage                 # table of every testable clause and the cases citing it
tablecert coverage --uncovered     # only the gaps
tablecert coverage --json > coverage.json
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("suites", nargs="*", metavar="SUITES", help="suite files or directories (default: suites/)")
    p.add_argument("--profile", action="append", default=[], metavar="P",
                   help="profiles a case must apply to (default: device_profiles/emulated-*.yaml)")
    p.add_argument("--uncovered", action="store_true", help="list only clauses without a runnable case")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def compute(suite_paths: list[Path], profile_paths: list[Path]) -> dict[str, dict[str, object]]:
    from harness.games.interpretations import Interpretations  # noqa: F401 - keeps import order stable
    from harness.profiles import load_profile
    from harness.regulations.catalogue import load_catalogue
    from harness.suites.load.schema import expand_suites, load_suite
    from harness.suites.run.session import TcSession

    cat = load_catalogue()
    sessions = [TcSession(load_profile(p)) for p in profile_paths]
    table: dict[str, dict[str, object]] = {
        c.id: {"citation": c.citation, "cases": [], "runnable": [], "needs": set()} for c in cat.testable()
    }
    built_in = frozenset().union(*(s.profile.capabilities for s in sessions)) if sessions else frozenset()
    for path in expand_suites(suite_paths):
        suite = load_suite(path)
        # a case's roles are bound to each table: it runs there only if the table can fill them
        bound = [{c.name: c for c in load_suite(path, profile=s.profile).cases} for s in sessions]
        for case in suite.cases:
            why_not = {s.profile.name: s.applies(cases.get(case.name, case)) for s, cases in zip(sessions, bound,
                                                                                                  strict=True)}
            runs_on = [name for name, why in why_not.items() if why is None]
            missing = case.requires - built_in
            for cid in case.clauses:
                entry = table.setdefault(cid, {"citation": cat.clause(cid).citation, "cases": [], "runnable": [],
                                               "needs": set()})
                if missing:
                    entry["needs"].update(missing)  # type: ignore[attr-defined]
                label = f"{suite.id}::{case.name}"
                entry["cases"].append(label)  # type: ignore[attr-defined]
                if runs_on:
                    entry["runnable"].append(f"{label} ({', '.join(runs_on)})")  # type: ignore[attr-defined]
                else:  # never silent: why the case runs on no built-in table, table by table
                    entry.setdefault("not_runnable", []).append(  # type: ignore[attr-defined]
                        f"{label}: " + "; ".join(f"{name}: NOT APPLICABLE ({why})" for name, why in why_not.items()))
    for entry in table.values():
        entry["needs"] = sorted(entry["needs"])  # type: ignore[call-overload]
    return table


def _only_elsewhere(entry: dict[str, object]) -> bool:
    """No built-in table runs a case of the clause because every one needs what none of them has."""
    cases = entry["cases"]
    return not entry["runnable"] and bool(cases) and bool(entry["needs"])


def run(args: argparse.Namespace) -> int:
    root = project_root()
    suites = [Path(s) for s in args.suites] or [root / "suites"]
    profiles = [Path(p) for p in args.profile] or sorted((root / "device_profiles").glob("emulated-*.yaml"))
    table = compute(suites, profiles)
    elsewhere = [cid for cid, e in table.items() if _only_elsewhere(e)]
    uncovered = [cid for cid, e in table.items() if not e["runnable"] and cid not in elsewhere]
    if args.json:
        print(json.dumps({"clauses": table, "uncovered": uncovered, "elsewhere": elsewhere,
                          "testable": len(table), "covered": len(table) - len(uncovered) - len(elsewhere)},
                         indent=2))
    else:
        for cid, e in table.items():
            if args.uncovered and e["runnable"]:
                continue
            cases = e["cases"]
            status = "ok " if e["runnable"] else ("N/A" if cid in elsewhere else ("NOT RUN" if cases else "NONE"))
            print(f"{status:<8} {cid:<44} {len(cases):>3} case(s)  " + ", ".join(cases[:3])  # type: ignore[arg-type,index]
                  + (" ..." if len(cases) > 3 else ""))  # type: ignore[arg-type]
        not_runnable = sorted({line for e in table.values() for line in e.get("not_runnable", [])})  # type: ignore[attr-defined]
        if not_runnable:
            print(f"\n{len(not_runnable)} case(s) run on no built-in profile:")
            for line in not_runnable:
                print(f"  {line}")
        for cid in elsewhere:
            needs = ", ".join(table[cid]["needs"])  # type: ignore[arg-type]
            print(f"{cid}: checked only at a table with {needs} (no built-in profile has it; not counted as covered)")
        print(f"\n{len(table) - len(uncovered) - len(elsewhere)} of {len(table)} testable clauses covered by a case "
              f"that runs on a built-in profile; {len(elsewhere)} apply only where a built-in table has none of "
              f"what they need; {len(uncovered)} uncovered")
    return 1 if uncovered else 0
