"""Suites and profiles can never execute code; emulators listen on loopback only; no unsafe calls."""

import re
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.yamlload import load_yaml_text

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "harness").rglob("*.py"))


@pytest.mark.parametrize("payload", [
    "x: !!python/object/apply:os.system ['true']",
    "x: !!python/name:os.system",
    "x: !custom 1",
    "a: &a [1]\nb: *a",
    "<<: {a: 1}",
])
def test_yaml_that_would_build_objects_is_refused(payload: str) -> None:
    with pytest.raises(InputError):
        load_yaml_text(payload, "evil.yaml")


def test_no_unsafe_yaml_or_eval_in_the_package() -> None:
    bad = []
    for path in SOURCES:
        text = path.read_text()
        for pattern in (r"yaml\.load\((?![^)]*Loader)", r"yaml\.unsafe_load", r"\beval\(", r"\bexec\(",
                        r"pickle\.loads?\(", r"\.list_resources\("):
            for m in re.finditer(pattern, text):
                bad.append(f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}: {m.group(0)}")
    assert not bad, bad


def test_servers_bind_loopback_only() -> None:
    binds = []
    for path in SOURCES:
        text = path.read_text()
        binds += [(path.name, m.group(0)) for m in re.finditer(r"\.bind\(\(?[^)]*\)", text)]
        assert "0.0.0.0" not in text, f"{path}: binds every interface"
    assert binds, "expected the emulator's listeners"
    for name, call in binds:
        assert "127.0.0.1" in call or "LOOPBACK" in call or "host" in call, (name, call)
