"""The emulator's configuration is built from the typed profile the loader read and checked
(``EmulatorConfig.from_typed``): the same table as its own reading of the profile's YAML shape gives, for
every shipped emulated profile and every persona, so moving the certification run onto it changed no
emulator (pure: no process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from harness.emulators.config import EmulatorConfig
from harness.emulators.personas import PERSONAS, apply_persona
from harness.profiles import load_profile
from harness.profiles.load import load_profile_text

ROOT = Path(__file__).resolve().parents[2]
TABLES = sorted(p.name for p in (ROOT / "device_profiles").glob("emulated-*.yaml")
                if load_profile(p).link is None)


@pytest.mark.parametrize("name", TABLES)
def test_a_shipped_profile_gives_the_same_emulator_either_way(name: str) -> None:
    profile = load_profile(ROOT / "device_profiles" / name)
    assert EmulatorConfig.from_typed(profile) == EmulatorConfig.from_mapping(profile.raw)
    assert EmulatorConfig.from_profile(profile) == EmulatorConfig.from_typed(profile)


@pytest.mark.parametrize("persona", sorted(PERSONAS))
def test_a_persona_gives_the_same_emulator_either_way(persona: str) -> None:
    base = load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")
    shaped = json.loads(json.dumps(apply_persona(base.raw, persona), default=str))
    profile = load_profile_text(yaml.safe_dump(shaped, sort_keys=False))
    typed = EmulatorConfig.from_typed(profile)
    assert typed == EmulatorConfig.from_mapping(profile.raw)
    assert persona in typed.personas


def test_what_the_profile_leaves_out_is_the_emulators_own() -> None:
    text = (ROOT / "device_profiles" / "emulated-midi-5.yaml").read_text(encoding="utf-8")
    bare = load_profile_text(text.replace('  commission: "5%"\n', ""))
    assert bare.rules.commission is None
    assert EmulatorConfig.from_typed(bare).commission == 5
