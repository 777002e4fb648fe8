"""The variant generator (``tablecert variants``): every drawn Rules Submission is a valid profile,
and a set of 24 covers what issue 9 asks of it, whatever the seed.

The proof that every variant PASSes is the certification of the set itself, run in CI after the
README's test command (``.ci/run``: ``tablecert variants --count 24`` with a fresh seed, printed, and
``tablecert defects --matrix --variants``); these tests check the generator's own promises fast.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from harness.profiles import load_profile_text
from harness.regulations.catalogue import load_catalogue
from harness.selfcheck import variants as vm
from harness.selfcheck.draws import FLOORS

SEEDS = (0, 1, 7, 4242, 987_654_321)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_variant_is_a_profile_the_loader_accepts(seed: int) -> None:
    for v in vm.generate(seed, 24):
        profile = load_profile_text(v.yaml(), f"{v.name}.yaml")
        assert profile.name == v.name
        if profile.link is not None:  # a link: every table its own Rules Submission
            assert 2 <= len(profile.link.tables) <= 8
            assert all(1 <= len(t.rules.seats) <= 9 for t in profile.link.tables)
        else:
            assert 1 <= len(profile.rules.seats) <= 9


@pytest.mark.parametrize("seed", SEEDS)
def test_a_set_of_24_covers_every_choice_of_every_live_interpretation(seed: int) -> None:
    covered = vm.choices_covered(vm.generate(seed, 24))
    for interp_id, live in vm.LIVE_CHOICES.items():
        assert covered[interp_id] == {vm._show(c) for c in live.choices}, interp_id


@pytest.mark.parametrize("seed", SEEDS)
def test_a_set_of_24_covers_seats_denominations_lockouts_and_capabilities(seed: int) -> None:
    variants = vm.generate(seed, 24)
    seat_counts = {len(v.profile["rules"]["seats"]) for v in variants if v.kind != "link"}
    assert seat_counts == set(range(1, 10))
    r9 = [v for v in variants if v.kind in ("royal9", "royal9-mystery")]
    assert {v.profile["rules"]["denomination"] for v in r9} == {1, 5}
    assert any(v.profile["interpretations"].get("lockout-automatic") is False for v in variants)
    assert any(v.profile["interpretations"].get("lockout-automatic", True) for v in variants)
    assert any("mystery" in v.profile["capabilities"] for v in variants)
    assert any("mystery" not in v.profile["capabilities"] for v in r9)
    assert {v.kind for v in variants} == set(vm.KINDS)
    rates = {Decimal(m["rate"].rstrip("%")) for v in r9 for m in v.profile["rules"]["meters"].values()}
    assert min(rates) == Decimal("0.1") and max(rates) == Decimal("5")


@pytest.mark.parametrize("seed", SEEDS)
def test_amounts_are_above_the_floors_of_the_regulation(seed: int) -> None:
    for v in vm.generate(seed, 24):
        rules = v.profile.get("rules") or {}
        if "meters" not in rules:
            continue
        floors = FLOORS[rules["denomination"]]
        for name, m in rules["meters"].items():
            cents = {k: int(Decimal(m[k].strip("$").replace(",", "")) * 100)
                     for k in ("initial", "reset", "payout_limit")}
            assert floors[name] <= cents["reset"] <= cents["initial"] <= cents["payout_limit"], (v.name, name)


def test_the_live_interpretations_are_exactly_the_catalogues() -> None:
    """An interpretation nobody reads is removed from the catalogue; one the catalogue names is drawn."""
    catalogue = load_catalogue()
    assert set(vm.LIVE_CHOICES) == {i.id for i in catalogue.interpretations()}
    for i in catalogue.interpretations():
        assert {vm._show(c) for c in vm.LIVE_CHOICES[i.id].choices} == {vm._show(c) for c in i.choices}, i.id


def test_a_variant_is_reproduced_from_its_seed_and_index() -> None:
    first = vm.generate(31, 24)
    again = vm.generate(31, 24)
    assert [v.yaml() for v in first] == [v.yaml() for v in again]
    assert [v.yaml() for v in vm.generate(32, 24)] != [v.yaml() for v in first]


def test_matrix_variants_are_other_tables_than_the_shipped_ones() -> None:
    tables = vm.matrix_variants(5)
    assert [v.kind for v in tables] == list(vm.MATRIX_KINDS)
    for v in tables:
        load_profile_text(v.yaml(), f"{v.name}.yaml")
        assert not v.profile.get("interpretations")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_set_of_24_draws_every_persona_and_the_reference(seed: int) -> None:
    from harness.emulators.personas import PERSONAS

    variants = vm.generate(seed, 24)
    assert {v.persona for v in variants} == {None, *PERSONAS}
    for v in variants:
        assert v.summary() == f"persona {v.persona or 'reference'}; {v.rules_summary()}"
        assert v.profile.get("emulator", {}).get("persona") == v.persona or v.kind == "link"
        if v.persona is not None:
            assert v.kind in PERSONAS[v.persona].kinds
            declared = PERSONAS[v.persona].config_writes
            if declared is not None:  # the profile says what such a device takes
                assert v.profile["config_writes"] == dict(declared)
                assert "config-write" not in v.profile["capabilities"]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_slow_persona_keeps_to_one_variant_unless_it_is_the_only_one_asked(seed: int) -> None:
    """at-every-limit answers every request late (a run of its variant takes several times as long):
    a set draws it for one variant, not for the random draws of the rest; asked alone it plays all."""
    from harness.emulators.personas import PERSONAS

    assert [n for n, p in PERSONAS.items() if p.once] == ["at-every-limit"]
    drawn = [v for v in vm.generate(seed, 24) if v.persona == "at-every-limit"]
    assert len(drawn) == 1
    loaded = load_profile_text(drawn[0].yaml(), f"{drawn[0].name}.yaml")  # its latencies are within the limits
    assert loaded.emulator.answer_latency_ms < 100 and loaded.emulator.comm_loss_latency_ms < 500
    assert {v.persona for v in vm.generate(seed, 4, ["at-every-limit"]) if v.kind != "link"} == {"at-every-limit"}


def test_personas_can_be_chosen_or_left_out() -> None:
    only = vm.generate(3, 6, ["fixed-configuration"])
    assert {v.persona for v in only if v.kind != "link"} == {"fixed-configuration"}
    assert {v.persona for v in vm.generate(3, 6, [None])} == {None}
    assert [v.yaml() for v in vm.generate(3, 6, [None])] != [v.yaml() for v in only]


def test_a_failed_variant_prints_its_persona_and_rules_in_the_reproduce_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from harness.cli import main

    def failing(chosen: list[vm.Variant], **kw: object) -> list[vm.VariantOutcome]:
        return [vm.VariantOutcome(v, 1, Decimal(1), tmp_path / f"{v.name}.yaml", "0/1/0/0", ["some-case FAIL"])
                for v in chosen]

    monkeypatch.setattr(vm, "run_variants", failing)
    argv = ["variants", "--count", "6", "--seed", "3", "--persona", "fixed-configuration", "--only", "0",
            "--work-dir", str(tmp_path)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    (v,) = [x for x in vm.generate(3, 6, ["fixed-configuration"]) if x.index == 0]
    line = next(x for x in out.splitlines() if "reproduce" in x)
    assert f"persona {v.persona or 'reference'}, Rules Submission {v.rules_summary()}" in line
    assert line.endswith("tablecert variants --count 6 --seed 3 --persona fixed-configuration --only 0")


def test_an_unknown_persona_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    assert main(["variants", "--count", "2", "--persona", "fixed-config", "--list"]) == 2
    assert "--persona fixed-config: unknown" in capsys.readouterr().err


def test_the_longest_expected_runs_start_first_and_outcomes_keep_the_variants_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    variants = vm.generate(5, 24)
    assert any(vm.wait_bound(v) for v in variants)  # the seed draws an at-every-limit variant
    started: list[int] = []
    beside: list[int] = []

    def fake(variant: vm.Variant, profile: Path, report_dir: Path, deadline_s: float, suites: object) -> int:
        waiting = threading.current_thread().name.startswith("variants-waiting")
        (beside if waiting else started).append(variant.index)
        return variant.index

    monkeypatch.setattr(vm, "run_one", fake)
    outcomes = vm.run_variants(variants, jobs=1, work_dir=tmp_path, deadline_s=60)
    assert outcomes == [v.index for v in variants]
    costs = [vm.expected_cost(variants[i]) for i in started]
    assert costs == sorted(costs, reverse=True) and costs[0] > costs[-1]
    # a run that mostly waits takes a worker of its own, beside the one of --jobs 1
    assert sorted(beside) == [v.index for v in variants if vm.wait_bound(v)]
