"""The test command's wall time, the main job's and the command line's start-up, each against a
baseline measured in the same invocation, and today's figures from CI (issue 30).

The baseline is another commit of this repository (``--baseline REV``; default: the commit before
the test tiers and the waits of issue 30), unpacked with ``git archive`` into a temporary directory
and run with the same interpreter, alternating with the checkout: both see the same machine in the
same minutes, so the ratio means something on a shared, loaded machine where the absolute figures
do not.  Nothing is asserted: figures are printed.

Parts (``--parts``, comma-separated; default ``cli,main``):

* ``cli``: ``python -m harness --help`` and ``validate`` of one profile (median of ``--repeat``);
  targets 0.3 s and 0.6 s.
* ``main``: the main job (``tablecert run -q`` with the ``--jobs`` of the tree's ``scripts/run.sh``:
  every suite on every built-in emulator profile,
  ``--profile P`` for one); target 90 s for the 7 profiles.
* ``test``: the README's test command (``sh scripts/test.sh``) of each tree, which sets up its own
  ``.venv/`` first (the baseline's, in the temporary directory); target 10 min.  The baseline's
  command is the whole of CI (34 to 41 min on CI).
* ``ci``: ``.ci/run`` of each tree (target 20 min); the baseline's is its test command.

Usage::

    .venv/bin/python benchmarks/bench_test_command.py                     # cli, main (~6 min)
    .venv/bin/python benchmarks/bench_test_command.py --parts cli --repeat 9
    .venv/bin/python benchmarks/bench_test_command.py --parts main --profile device_profiles/emulated-midi-5.yaml
    .venv/bin/python benchmarks/bench_test_command.py --parts test,ci     # about an hour and a half
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the commit this work started from: one test command that ran everything, fixed waits
BASELINE = "1f3c463"
#: the figures the issue measured on CI's 2-core machines (seconds), printed for reference
TODAY = {"test": "2,036 and 2,235 (the last two CI runs)", "main": "~160 + ~30 set-up",
         "help": "1.2 to 2.3", "ci": "= the test command"}
TARGET = {"help": 0.3, "validate": 0.6, "main": 90.0, "test": 600.0, "ci": 1200.0}
PROFILE = "device_profiles/emulated-mini-baccarat.yaml"


def unpack(rev: str, into: Path) -> Path:
    """The tree of ``rev`` (``git archive``) in ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    archive = into / "tree.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive), rev], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    archive.unlink()
    return into / "tree"


def timed(cmd: Sequence[str], cwd: Path, timeout: float, env: dict[str, str] | None = None) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env,
                              check=False)
        code, out = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        code, out = -1, f"timed out after {timeout} s"
    return time.perf_counter() - t0, code, out


def line(what: str, new: float, old: float, target: float | None, codes: tuple[int, int], today: str = "") -> None:
    ratio = new / old if old else float("nan")
    tgt = f"; target {target:g} s" if target is not None else ""
    ref = f"; CI before: {today} s" if today else ""
    print(f"{what:<34} now {new:8.2f} s (exit {codes[0]})   baseline {old:8.2f} s (exit {codes[1]})   "
          f"ratio {ratio:.2f}{tgt}{ref}", flush=True)


def cli(trees: dict[str, Path], repeat: int) -> None:
    py = sys.executable
    for what, args, key in (("tablecert --help", ["--help"], "help"),
                            ("tablecert validate (one profile)", ["validate", PROFILE], "validate")):
        times: dict[str, list[float]] = {name: [] for name in trees}
        codes: dict[str, int] = {}
        for _ in range(repeat):  # alternating, so both see the same load
            for name, tree in trees.items():
                t, code, _out = timed([py, "-m", "harness", *args], tree, 60)
                times[name].append(t)
                codes[name] = code
        line(what + f" (median of {repeat})", statistics.median(times["now"]), statistics.median(times["baseline"]),
             TARGET[key], (codes["now"], codes["baseline"]), TODAY.get(key, ""))


def main_job_jobs(tree: Path) -> list[str]:
    """The ``--jobs N`` the tree's README main job (``scripts/run.sh``) runs with, or none."""
    script = tree / "scripts" / "run.sh"
    found = re.search(r"tablecert run --jobs (\d+)", script.read_text()) if script.exists() else None
    return ["--jobs", found.group(1)] if found else []


def main_job(trees: dict[str, Path], tmp: Path, profile: str | None) -> None:
    got: dict[str, tuple[float, int, str]] = {}
    for name, tree in trees.items():
        extra = ["--profile", str(ROOT / profile)] if profile else []
        got[name] = timed([sys.executable, "-m", "harness", "run", "-q", *main_job_jobs(tree), "--report-dir",
                           str(tmp / f"main-{name}"), *extra], tree, 3600)
        tail = got[name][2].strip().splitlines()[-len(extra or "1234567") - 2:]
        print(f"-- main job, {name}:\n   " + "\n   ".join(tail), flush=True)
    line("main job" + (f" ({Path(profile).stem})" if profile else " (7 profiles)"), got["now"][0],
         got["baseline"][0], None if profile else TARGET["main"], (got["now"][1], got["baseline"][1]),
         "" if profile else TODAY["main"])


def command(trees: dict[str, Path], part: str) -> None:
    got: dict[str, tuple[float, int, str]] = {}
    for name, tree in trees.items():
        script = ["sh", "scripts/test.sh"] if part == "test" or not (tree / ".ci" / "run").exists() else [".ci/run"]
        if part == "ci" and name == "baseline":
            script = [".ci/run"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        got[name] = timed(script, tree, 4 * 3600, env)
        print(f"-- {' '.join(script)}, {name}: exit {got[name][1]}", flush=True)
    what = "README's test command" if part == "test" else "CI in full (.ci/run)"
    line(what, got["now"][0], got["baseline"][0], TARGET[part], (got["now"][1], got["baseline"][1]), TODAY[part])


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--baseline", default=BASELINE, metavar="REV", help=f"the commit to compare with ({BASELINE})")
    p.add_argument("--parts", default="cli,main", help="cli, main, test, ci (comma-separated)")
    p.add_argument("--repeat", type=int, default=5, help="runs of each start-up command per tree (median)")
    p.add_argument("--profile", help="the main job on this profile only")
    args = p.parse_args(argv)
    parts = [s.strip() for s in args.parts.split(",") if s.strip()]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; baseline {args.baseline}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="tc-bench-cmd-") as tmp_s:
        tmp = Path(tmp_s)
        trees = {"now": ROOT, "baseline": unpack(args.baseline, tmp / "baseline")}
        if "cli" in parts:
            cli(trees, args.repeat)
        if "main" in parts:
            main_job(trees, tmp, args.profile)
        for part in ("test", "ci"):
            if part in parts:
                command(trees, part)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
