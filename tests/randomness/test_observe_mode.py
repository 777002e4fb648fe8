"""Observe mode: the batteries on what a bench saw, with no test channel.

On the bench twin of the emulated $5 table (no test channel, a scripted operator performs every act)
the shoe battery has the operator shuffle, load and deal out whole shoes and reads the cards the shoe
reports; shuffles and shoes written down by whoever watched the device are read from a file next
to the suite (``from:``); a shuffler whose orders cannot be read and no file is a rig error that
says what to give, never a PASS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from harness.cards import shoe_composition
from harness.randomness.models import ShufflerModel, compose
from harness.record.journal import load_record

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "device_profiles" / "emulated-midi-5.yaml"

SUITE = """\
spec: tablecert/suite/1
suite: observe
title: observe mode
jurisdiction: PA
cases:
  - id: shoe-live
    title: shoes dealt on the bench
    clauses: [pa-607a2-a3-shuffle-random]
    requires: [shuffler]
    timeout_s: 200
    steps:
      - expect_shoe_random: {shoes: 2, cards: 52}
  - id: shoe-file
    title: shoes written down
    clauses: [pa-607a2-a3-shuffle-random]
    requires: [shuffler]
    steps:
      - expect_shoe_random: {from: shoes.yaml}
  - id: shuffle-file
    title: shuffles written down
    clauses: [pa-607a2-a3-shuffle-random]
    requires: [shuffler]
    steps:
      - expect_shuffle_random: {from: shuffles.json}
  - id: shuffle-unreadable
    title: a shuffler whose orders the bench cannot read
    clauses: [pa-607a2-a3-shuffle-random]
    requires: [shuffler]
    steps:
      - expect_shuffle_random: {}
"""


def _files(directory: Path) -> None:
    cards = [c.code for c, k in shoe_composition(8).items() for _ in range(k)]
    # shoes dealt in new-pack order: every colour and rank clumped together
    directory.joinpath("shoes.yaml").write_text(yaml.safe_dump([{"cards": sorted(cards)} for _ in range(3)]))
    marked = np.asarray([f"{c.code}#1" for c in shoe_composition(1)], dtype=object)  # a marked pack
    rng = np.random.default_rng(3)
    shuffles, order = [], marked
    for pos in ShufflerModel("riffles", riffles=3).shuffle(rng, 40, 52):  # three riffles: plain residue
        after = compose(order, pos)
        shuffles.append({"pre": list(order), "post": list(after)})
        order = after
    directory.joinpath("shuffles.json").write_text(json.dumps(shuffles))


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_batteries_run_on_what_a_bench_observed(tmp_path: Path) -> None:
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "observe.suite.yaml").write_text(SUITE)
    _files(suites)
    report = tmp_path / "record"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.run([sys.executable, "-m", "pytest", str(suites), "-q", "-p", "no:cacheprovider", "-o",
                           "testpaths=", "--rootdir", str(ROOT), "--tc-profile", str(PROFILE), "--tc-bench-twin",
                           "--tc-report-dir", str(report)], cwd=ROOT, capture_output=True, text=True, timeout=540,
                          env=env, check=False)
    runs = sorted(report.iterdir()) if report.is_dir() else []
    assert len(runs) == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    cases = {c.case_id: c for c in load_record(runs[0]).cases}
    verdicts = {k: c.verdict for k, c in cases.items()}
    assert verdicts == {"shoe-live": "INCONCLUSIVE", "shoe-file": "FAIL", "shuffle-file": "FAIL",
                        "shuffle-unreadable": "NOT APPLICABLE"}, {k: (c.verdict, c.message) for k, c in cases.items()}
    live = {m.name: m for m in cases["shoe-live"].measurements}
    assert live["shoe sample size"].value == 2 and "more needed" in (cases["shoe-live"].message or "")
    assert live["runs test"].value["n"] == 2 and live["card-position test"].value["histogram"]
    shuffled = {m.name: m for m in cases["shuffle-file"].measurements}
    # two-stage procedure: the file's 40 shuffles are two samples of 20 (both short of the plan), each rejecting
    assert shuffled["rising-sequences p-value"].outcome == "FAIL" and shuffled["shuffler sample size"].value == 20
    assert shuffled["rising-sequences p-value (stage 2)"].outcome == "FAIL"
    assert shuffled["shuffler procedure"].value["outcome"] == "FAIL"
    unreadable = cases["shuffle-unreadable"].message or ""
    assert "bench.performers.shuffler-readout: none" in unreadable and "(from: FILE)" in unreadable, unreadable
