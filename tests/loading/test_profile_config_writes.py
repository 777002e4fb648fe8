"""``config_writes:`` in a profile: loading, the capability it implies, and file:line:col errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.profiles import load_profile
from harness.profiles.configwrites import FIELDS

ROOT = Path(__file__).resolve().parents[2]
MIDI5 = (ROOT / "device_profiles" / "emulated-midi-5.yaml").read_text()
WITHOUT_CAP = MIDI5.replace("latency-counter, config-write,", "latency-counter,")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    return path


def _validate(path: Path) -> str:
    """``tablecert validate`` on a bad profile: exit 2, no traceback; its output."""
    proc = subprocess.run([sys.executable, "-m", "harness", "validate", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2 and "Traceback" not in out, out
    return out


def test_the_capability_alone_keeps_meaning_every_field_between_rounds() -> None:
    assert "config-write," in MIDI5 and WITHOUT_CAP != MIDI5
    p = load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")
    assert set(p.config_writes.values()) == {"between-rounds"} and p.writes("combinations") == "between-rounds"
    assert p.unstated_writes == frozenset() and p.write_choice("decks") == "between-rounds"


def test_without_either_nothing_is_writable(tmp_path: Path) -> None:
    p = load_profile(_write(tmp_path, WITHOUT_CAP))
    assert p.writes("denomination") == "never" and "config-write" not in p.capabilities
    # never to the suites; to the explorer the profile has said nothing, so a write taken or refused is a choice
    assert p.unstated_writes == frozenset(FIELDS) and p.write_choice("denomination") == "unstated"


def test_a_declaration_field_by_field_left_out_fields_never(tmp_path: Path) -> None:
    text = WITHOUT_CAP + "config_writes:\n  combinations: no-amount-shown\n  meters: between-rounds\n"
    p = load_profile(_write(tmp_path, text))
    assert dict(p.config_writes) == {"denomination": "never", "combinations": "no-amount-shown", "decks": "never",
                                     "meters": "between-rounds", "mystery": "never", "commission": "never",
                                     "hit_soft17": "never"}
    assert "config-write" in p.capabilities  # a field is writable: the cases that write run, judged per field
    assert p.unstated_writes == {"denomination", "decks", "mystery", "commission", "hit_soft17"}
    assert p.write_choice("combinations") == "no-amount-shown" and p.write_choice("decks") == "unstated"
    none = load_profile(_write(tmp_path, WITHOUT_CAP + "config_writes:\n  denomination: never\n"))
    assert "config-write" not in none.capabilities
    assert none.write_choice("denomination") == "never"  # stated: a write taken is a FAIL to the explorer


def test_bad_values_are_reported_each_at_its_line_and_column(tmp_path: Path) -> None:
    text = WITHOUT_CAP + "config_writes:\n  denomination: nevr\n  deks: never\n  meters: 3\n"
    start = text.count("\n", 0, text.index("config_writes:")) + 1
    with pytest.raises(InputError):
        load_profile(_write(tmp_path, text))
    msg = _validate(_write(tmp_path, text))
    assert f"p.yaml:{start + 1}:17: config_writes.denomination: 'nevr' is not one of never, between-rounds, " \
           "no-amount-shown (did you mean 'never'?)" in msg
    assert f"p.yaml:{start + 2}:3: config_writes: unknown key 'deks' (did you mean 'decks'?)" in msg
    assert f"p.yaml:{start + 3}:11: config_writes.meters: the number 3 is not one of" in msg


def test_the_capability_and_the_declaration_together_are_refused(tmp_path: Path) -> None:
    msg = _validate(_write(tmp_path, MIDI5 + "config_writes:\n  denomination: never\n"))
    assert "config_writes: capability config-write already says every field" in msg
