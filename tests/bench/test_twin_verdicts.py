"""Every shipped suite on a bench twin (no test channel, a scripted operator, relays, the bench supply)
gives the verdicts the test channel gives, case by case.

The comparison runs on four of the five shipped profiles, which between them run every suite file:
``emulated-midi-1`` (Royal 9 $1 paytable, lock-out, progressive limits and meters, baccarat naturals,
identity, Washington), ``emulated-midi-5-mystery`` (Royal 9 $5 paytable, the mystery progressive),
``emulated-ez-baccarat`` (the tableau, EZ Baccarat) and ``emulated-hit-and-run``.  ``emulated-midi-5``
runs the same suite files as those and is left out to keep CI's time down.

A shoe misstacked by the operator is a redo, never a FAIL: a twin whose scripted operator misstacks
every second shoe passes the same cases, and the record keeps the discarded attempts.

Both runs of a comparison use one emulator seed (the mystery trigger is drawn from it), so a
mystery award falls in the same case in both; unseeded, it falls wherever the trigger lands.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness.bench.twin import twin_mapping
from harness.profiles import load_profile
from harness.record.journal import load_record

ROOT = Path(__file__).resolve().parents[2]
SEED = 7
COMPARED = ("emulated-midi-1", "emulated-midi-5-mystery", "emulated-ez-baccarat", "emulated-hit-and-run")


def _run(tmp: Path, profile: Path, *extra: str, suites: str = "suites",
         messages: dict[str, str] | None = None) -> dict[str, str]:
    report = tmp / "record"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.run([sys.executable, "-m", "pytest", suites, "-q", "-p", "no:cacheprovider", "-o",
                           "testpaths=", "--tc-profile", str(profile), "--tc-report-dir", str(report), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=900, env=env, check=False)
    runs = sorted(report.iterdir()) if report.is_dir() else []
    assert len(runs) == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    record = load_record(runs[0])
    if messages is not None:
        messages.update({c.case_id: (c.message or "")[:3000] for c in record.cases})
    return {c.case_id: c.verdict for c in record.cases}


@pytest.mark.slow
@pytest.mark.timeout(1000)
@pytest.mark.parametrize("name", COMPARED)
def test_a_bench_twin_gives_the_test_channels_verdicts(name: str, tmp_path: Path) -> None:
    # the same emulator seed for both runs: a mystery progressive's hidden trigger is drawn from it,
    # so both runs award the mystery in the same case (the wagers, hence contributions, are the same)
    data = dict(load_profile(ROOT / "device_profiles" / f"{name}.yaml").raw)
    data["emulator"] = {**dict(data.get("emulator") or {}), "seed": SEED}
    profile = tmp_path / f"{name}.yaml"
    profile.write_text(yaml.safe_dump(data, sort_keys=False))
    said: dict[str, str] = {}
    direct = _run(tmp_path / "test-channel", profile, messages=said)
    twin_said: dict[str, str] = {}
    twin = _run(tmp_path / "bench", profile, "--tc-bench-twin", messages=twin_said)
    assert direct and set(direct) == set(twin)
    different = {case: (direct[case], twin[case], said[case], twin_said[case]) for case in direct
                 if direct[case] != twin[case]}
    assert not different, different
    assert sum(v == "PASS" for v in twin.values()) >= 20 if name != "emulated-hit-and-run" else 15


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_misstacked_shoe_is_redone_not_failed(tmp_path: Path) -> None:
    data = twin_mapping(load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml"), misstack_every=2)
    path = tmp_path / "misstacking-bench.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    verdicts = _run(tmp_path, path, suites="suites/baccarat/natural.suite.yaml")
    assert verdicts and set(verdicts.values()) == {"PASS"}, verdicts
    run = next((tmp_path / "record").iterdir())
    redos = sorted(run.glob("evidence/*/redo-*.json"))
    assert redos, "no case was redone"
    first = json.loads(redos[0].read_text())
    assert first["attempt"] == 1 and first["why"].startswith("misstacked: card ")
    prompts = json.loads((redos[0].parent / "operator-prompts.json").read_text())
    asked = [p["prompt"]["question"] for p in prompts]
    assert "misstack" in asked
    misstack = next(p for p in prompts if p["prompt"]["question"] == "misstack")
    assert misstack["answer"]["answer"] == "cannot" and misstack["answer"]["operator"] == "scripted operator"
