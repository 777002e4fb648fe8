"""Every shipped suite on a bench twin (no test channel, a scripted operator, relays, the bench supply)
gives the verdicts the test channel gives, case by case, on every emulated profile: PASS for every
case that applies to the profile, NOT APPLICABLE for every other one.

The test channel's verdicts are not run again here: on a built-in emulator they are PASS for each
case that applies (the main job, `tablecert run`, fails on anything else, and
:func:`test_the_test_channels_verdicts_are_the_profiles_applicable_cases` checks the prediction against
a record of the test channel), so each comparison runs the twin alone and compares it with the
selection ``tablecert run --list`` shows.  Any twin verdict other than the prediction fails, a FAIL
the test channel would give too included.

The one difference allowed is a case that needs an act no one on a bench can carry out: injecting a
device fault, or reading out the built-in shuffler's pack orders (``fault`` and ``shuffler-readout``:
the twin gives both to ``none``).  Such a case is NOT APPLICABLE on the twin, with the reason naming
the act, and must be exactly a case whose steps ask for that act; on a real bench the shuffler
battery runs on the orders of a marked pack observed by hand (``from: FILE``).  So is a case holding a
device to what only ``wager.place`` can ask (no bet-sensor event, docs/protocol.md section 11; a wager
type the layout has no area for): the twin's operator places wagers by hand.  And so is a case that plays
a sequence of the explorer's operations (``expect_sequence``): they are thousands of acts a person is not
asked for, so only machines perform them (docs/explore.md).
:func:`test_the_comparison_covers_every_suite_and_every_emulated_profile` holds the comparison to
that: every emulated profile is compared, and every suite file has cases that run on some twin, or
only cases that need such an act.

A shoe misstacked by the operator is a redo, never a FAIL: a twin whose scripted operator misstacks
every second shoe passes the same cases, and the record keeps the discarded attempts.

The twin runs on a fixed emulator seed (the mystery trigger is drawn from it), so a mystery award
falls in the same case from run to run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness.bench.twin import bench_twin, twin_mapping
from harness.games.interpretations import Interpretations
from harness.profiles import load_profile
from harness.record.journal import load_record
from harness.suites.load.applicability import not_applicable
from harness.suites.load.model import Case
from harness.suites.load.schema import expand_suites, load_suite
from harness.suites.steps.contract import WAGER_PLACE_ONLY
from harness.suites.steps.registry import acts_of

ROOT = Path(__file__).resolve().parents[2]
SEED = 7
COMPARED = ("emulated-midi-1", "emulated-midi-5", "emulated-midi-5-mystery", "emulated-ez-baccarat",
            "emulated-hit-and-run", "emulated-mini-baccarat")
#: emulated profiles with no bench twin: a link (its cases cut a table's link and reboot the link
#: controller over the test channel; docs/linked-progressives.md)
NO_TWIN = ("emulated-link-4",)
#: acts no one on a lab bench can carry out (the twin: none)
NOT_ON_A_BENCH = ("fault", "shuffler-readout")


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


def _bench_impossible(case_acts: list[str]) -> list[str]:
    return [a for a in case_acts if a in NOT_ON_A_BENCH]


def _cases() -> list[tuple[Path, Case]]:
    return [(f, c) for f in expand_suites([ROOT / "suites"]) for c in load_suite(f).cases]


def test_the_comparison_covers_every_suite_and_every_emulated_profile() -> None:
    shipped = sorted(p.stem for p in (ROOT / "device_profiles").glob("emulated-*.yaml"))
    assert sorted((*COMPARED, *NO_TWIN)) == shipped
    assert all(load_profile(ROOT / "device_profiles" / f"{n}.yaml").link is not None for n in NO_TWIN)
    twins = [bench_twin(load_profile(ROOT / "device_profiles" / f"{n}.yaml")) for n in COMPARED]
    runs_on_a_twin: set[Path] = set()
    only_off_bench: dict[Path, list[str]] = {}
    for path, case in _cases():
        for twin in twins:
            interp = Interpretations.from_overrides(dict(twin.interpretations))
            why = not_applicable(twin, interp, case)
            if why is None:
                runs_on_a_twin.add(path)
            elif "no performer on this bench" in why:
                steps = case.steps
                acts = _bench_impossible(acts_of([s.action for s in steps], [dict(s.args) for s in steps]))
                assert acts and any(f"bench.performers.{a}: none" in why for a in acts), (case, why)
                only_off_bench.setdefault(path, []).extend(acts)
    suites = set(expand_suites([ROOT / "suites"]))
    left = suites - runs_on_a_twin
    link_suites = {p for p in left if p.parent.name == "link"}
    assert set(only_off_bench) >= left - link_suites, sorted(str(p) for p in left - set(only_off_bench))
    # the link's suite, which no bench twin plays (the shuffler battery alone, in the shuffler suite,
    # runs on a bench only from a file; its shoe battery runs on the twins)
    assert sorted(p.name for p in left) == ["link.suite.yaml"]


#: the fewest PASS verdicts a bench twin's run of the profile must give (default 20)
MOST_PASS = {"emulated-hit-and-run": 15, "emulated-mini-baccarat": 10}


def _test_channel(profile_path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The verdicts the test channel gives the profile's built-in emulator, as ``tablecert run --list``
    predicts them (PASS where the case applies), and the NOT APPLICABLE reasons."""
    profile = load_profile(profile_path)
    interp = Interpretations.from_overrides(dict(profile.interpretations))
    verdicts: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for _path, case in _cases():
        why = not_applicable(profile, interp, case)
        verdicts[case.name] = "PASS" if why is None else "NOT APPLICABLE"
        reasons[case.name] = why or ""
    return verdicts, reasons


@pytest.mark.slow
@pytest.mark.timeout(1000)
@pytest.mark.parametrize("name", COMPARED)
def test_a_bench_twin_gives_the_test_channels_verdicts(name: str, tmp_path: Path) -> None:
    data = dict(load_profile(ROOT / "device_profiles" / f"{name}.yaml").raw)
    data["emulator"] = {**dict(data.get("emulator") or {}), "seed": SEED}
    profile = tmp_path / f"{name}.yaml"
    profile.write_text(yaml.safe_dump(data, sort_keys=False))
    direct, said = _test_channel(profile)
    twin_said: dict[str, str] = {}
    twin = _run(tmp_path / "bench", profile, "--tc-bench-twin", messages=twin_said)
    assert direct and set(direct) == set(twin)
    different = {case: (direct[case], twin[case], said[case], twin_said[case]) for case in direct
                 if direct[case] != twin[case]}
    off_bench = {case for case, (_d, t, _m, why) in different.items()
                 if t == "NOT APPLICABLE" and any(f"bench.performers.{a}: none" in why for a in NOT_ON_A_BENCH)}
    expected_off = {c.name for _p, c in _cases()
                    if _bench_impossible(acts_of([s.action for s in c.steps], [dict(s.args) for s in c.steps]))
                    and direct.get(c.name) not in (None, "NOT APPLICABLE")}
    assert off_bench == expected_off
    by_hand = {case for case, (_d, t, _m, why) in different.items()
               if t == "NOT APPLICABLE" and any(reason in why for reason in WAGER_PLACE_ONLY.values())}
    expected_by_hand = {c.name for _p, c in _cases() if any(s.action in WAGER_PLACE_ONLY for s in c.steps)
                        and direct.get(c.name) not in (None, "NOT APPLICABLE")}
    assert by_hand == expected_by_hand
    # a sequence of the explorer's operations needs machines to perform them (docs/explore.md): the twin's
    # operator loads, deals and places wagers, so a case that plays one is NOT APPLICABLE there, known before
    # the run (the step's unfit)
    sequences = {case for case, (_d, t, _m, why) in different.items()
                 if t == "NOT APPLICABLE" and "cannot ask a person for each" in why}
    expected_sequences = {c.name for _p, c in _cases() if any(s.action == "expect_sequence" for s in c.steps)
                          and direct.get(c.name) not in (None, "NOT APPLICABLE")} - expected_off - expected_by_hand
    assert sequences == expected_sequences
    # a deal asked of the shoe while it deals needs the test channel to deal (expect_deal_busy): known before the
    # run on a bench whose operator deals
    channel_deals = {case for case, (_d, t, _m, why) in different.items()
                     if t == "NOT APPLICABLE" and "not dealt through the shoe's test channel" in why}
    expected_channel_deals = {c.name for _p, c in _cases() if any(s.action == "expect_deal_busy" for s in c.steps)
                              and direct.get(c.name) not in (None, "NOT APPLICABLE")} \
        - expected_off - expected_by_hand - expected_sequences
    assert channel_deals == expected_channel_deals
    rest = {c: v for c, v in different.items() if c not in off_bench | by_hand | sequences | channel_deals}
    assert not rest, "\n\n".join(f"{c}: test channel {d}, bench twin {t}\n--- test channel:\n{m}\n--- twin:\n{tm}"
                                   for c, (d, t, m, tm) in rest.items())
    # not a trivial run: the bench twin passes most of what the profile's game has (the Mini-Baccarat
    # profile is Washington only: 12 cases)
    assert sum(v == "PASS" for v in twin.values()) >= MOST_PASS.get(name, 20)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_test_channels_verdicts_are_the_profiles_applicable_cases(tmp_path: Path) -> None:
    """The prediction the twins are compared with, checked against a test channel's record on the
    profile with the most applicable cases (the mystery progressive's among them)."""
    profile = ROOT / "device_profiles" / "emulated-midi-5-mystery.yaml"
    assert _run(tmp_path, profile) == _test_channel(profile)[0]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_misstacked_shoe_is_redone_not_failed(tmp_path: Path) -> None:
    data = twin_mapping(load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml"), misstack_every=2)
    path = tmp_path / "misstacking-bench.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    verdicts = _run(tmp_path, path, suites="suites/baccarat/natural.suite.yaml")
    assert verdicts and set(verdicts.values()) == {"PASS"}, verdicts
    run = next(d for d in (tmp_path / "record").iterdir() if d.is_dir())
    redos = sorted(run.glob("evidence/*/redo-*.json"))
    assert redos, "no case was redone"
    first = json.loads(redos[0].read_text())
    assert first["attempt"] == 1 and first["why"].startswith("misstacked: card ")
    prompts = json.loads((redos[0].parent / "operator-prompts.json").read_text())
    asked = [p["prompt"]["question"] for p in prompts]
    assert "misstack" in asked
    misstack = next(p for p in prompts if p["prompt"]["question"] == "misstack")
    assert misstack["answer"]["answer"] == "cannot" and misstack["answer"]["operator"] == "scripted operator"
