"""``tablecert run``: run certification suites against a profile's devices and write the record.

With no arguments it runs every suite under ``suites/`` against every built-in emulator profile
(``device_profiles/emulated-*.yaml``), starting the emulators itself as separate processes over a
pty, and writes one record per profile under ``reports/<run-id>/``.  Each profile runs in its own
pytest process (the suites are pytest items; see ``harness.plugin``), so a crash in one cannot take
another's finished results with it.  Exit 0 only when every applicable case passed in every run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from harness.errors import InputError
from harness.suites.stacks import project_root

HELP = "run certification suites against a device profile (default: all suites, built-in emulators)"
EXAMPLE = """
tablecert run                                   # every suite, every built-in emulator profile
tablecert run suites/royal9 --profile device_profiles/emulated-midi-1.yaml
tablecert run --profile my-bench.yaml --lab "ACME Labs" --operator jdoe --pre-submission
tablecert run -n 2                              # split each profile's cases over two emulator instances
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("suites", nargs="*", metavar="SUITES", help="suite files or directories (default: suites/)")
    p.add_argument("--profile", action="append", default=[], metavar="P",
                   help="device profile (repeatable; default: every device_profiles/emulated-*.yaml)")
    p.add_argument("--report-dir", default=None, metavar="D", help="where reports/<run-id>/ go (default: reports)")
    p.add_argument("--pre-submission", action="store_true", help="vendor mode: end with a gap report")
    p.add_argument("--lab", default=None)
    p.add_argument("--operator", default=None)
    p.add_argument("--station", default=None)
    p.add_argument("-k", dest="keyword", default=None, metavar="EXPR", help="only cases matching (pytest -k)")
    p.add_argument("-n", dest="workers", type=int, default=0, metavar="N",
                   help="split cases over N emulator instances (pytest-xdist --dist loadfile)")
    p.add_argument("-q", "--quiet", action="store_true", help="less pytest output")


def _profiles(args: argparse.Namespace, root: Path) -> list[Path]:
    if args.profile:
        paths = [Path(p).absolute() for p in args.profile]  # as the user's shell means it, not the checkout
    else:
        paths = sorted((root / "device_profiles").glob("emulated-*.yaml"))
    for p in paths:
        if not p.is_file():
            raise InputError(f"profile {p}: no such file")
    if not paths:
        raise InputError("no device profile given and no device_profiles/emulated-*.yaml found")
    return paths


def run(args: argparse.Namespace) -> int:
    from harness.profiles import load_profile

    root = project_root()
    # the pytest process runs in the checkout: a relative path means the user's working directory
    suites = [Path(s).absolute() for s in args.suites] or [root / "suites"]
    for s in suites:
        if not s.exists():
            raise InputError(f"{s}: no such suite file or directory")
    profiles = _profiles(args, root)
    for p in profiles:
        load_profile(p)  # validate up front: a bad profile is one line and exit 2
    report_root = Path(args.report_dir) if args.report_dir else root / "reports"
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    results: list[tuple[str, int, float, Path]] = []
    for prof in profiles:
        name = prof.stem
        run_id = f"{stamp}-{name}"
        cmd = [sys.executable, "-m", "pytest", *map(str, suites), "-p", "no:cacheprovider",
               "--rootdir", str(root), "-c", str(root / "pyproject.toml"),
               "--tc-profile", str(prof), "--tc-report-dir", str(report_root), "--tc-run-id", run_id,
               "-o", "testpaths=", "-rfE"]
        cmd += ["-q"] if args.quiet else []
        if args.keyword:
            cmd += ["-k", args.keyword]
        if args.workers:
            cmd += ["-n", str(args.workers), "--dist", "loadfile"]
        for opt in ("lab", "operator", "station"):
            if getattr(args, opt):
                cmd += [f"--tc-{opt}", getattr(args, opt)]
        if args.pre_submission:
            cmd.append("--tc-pre-submission")
        print(f"== {name}: {' '.join(str(s) for s in suites)}", flush=True)
        t0 = time.monotonic()
        code = subprocess.call(cmd, cwd=root)
        results.append((name, code, time.monotonic() - t0, report_root / run_id))
    return _summary(results, args.pre_submission)


def _summary(results: list[tuple[str, int, float, Path]], pre_submission: bool) -> int:
    from harness.record import load_record, verify

    print("\nprofile                      verdict   cases (pass/fail/error/skip)   time    record")
    worst = 0
    for name, exit_code, secs, rdir in results:
        code = exit_code
        verdict = {0: "PASS", 1: "FAIL", 5: "EMPTY"}.get(code, "ERROR")
        # one record per pytest process: rdir itself, or rdir-gw0, rdir-gw1 ... with -n, which are
        # merged into rdir (one certification record of the product, each bench noted)
        parts = sorted(rdir.parent.glob(rdir.name + "-gw*"))
        if not rdir.is_dir() and parts:
            from harness.record.merge import merge_records

            try:
                merge_records(parts, rdir)
            except (InputError, OSError) as exc:
                print(f"tablecert run: {name}: the worker records could not be merged: {exc}", file=sys.stderr)
                code = code or 1
        dirs = [rdir] if rdir.is_dir() else parts
        tally: dict[str, int] = {}
        for d in dirs:
            for c in load_record(d).cases:
                tally[c.verdict] = tally.get(c.verdict, 0) + 1
            if verify(d):
                verdict = "INVALID"
                code = code or 1
        counts = "/".join(str(tally.get(v, 0)) for v in ("PASS", "FAIL", "ERROR", "SKIP")) if dirs else "-"
        where: Path | str = rdir
        if len(dirs) == 1 and (dirs[0] / "record.html").exists():
            where = dirs[0] / "record.html"
        elif len(dirs) > 1:
            where = f"{rdir}-gw* ({len(dirs)} records)"
        worst = max(worst, 2 if code == 5 else code)
        print(f"{name:<28} {verdict:<9} {counts:<30} {secs:5.1f}s  {where}")
        for d in dirs:
            if pre_submission and (d / "gap-report.md").exists() and code:
                print((d / "gap-report.md").read_text())
    if any(code == 5 for _n, code, _s, _r in results):
        print("tablecert run: a profile selected no case: an empty selection certifies nothing", file=sys.stderr)
    return 0 if worst == 0 else 1
