"""A person at an emulated bench, for the tests that run ``tablecert run`` as a lab would.

The profile is the $5 table's bench with a human operator: no test channel, the lock-out button on
a relay of the emulated switch unit, every other act by hand, prompts on the bench console and the
terminal.  No scripted operator answers anything: the test reads each prompt where a person reads
it (the terminal, or the console page), does the act with its hands at the emulator's physical
side (:class:`Person`), and answers where the person would.

The emulator ``tablecert run`` starts writes its ``addresses.json`` in a temporary folder; the tests
give ``tablecert run`` a ``TMPDIR`` of their own to find it, as a person finds the table.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from harness.bench.acts import ACT_TYPES, Act
from harness.bench.hands import Hands
from harness.bench.prompts import Prompt, PromptBroker
from harness.bench.scripted import HumanPace, ScriptedOperator
from harness.bench.twin import twin_mapping
from harness.cards import parse_card
from harness.devices.roles import Wager
from harness.games.interpretations import Interpretations
from harness.profiles import load_profile
from harness.suites.run.oracle import Oracle

ROOT = Path(__file__).resolve().parents[2]
TABLECERT = str(Path(os.environ.get("VIRTUAL_ENV") or ROOT / ".venv") / "bin" / "tablecert")
CASE = f"{ROOT}/suites/lockout/lockout.suite.yaml::lockout-button"


def tablecert_command() -> list[str]:
    import shutil
    import sys

    found = TABLECERT if os.access(TABLECERT, os.X_OK) else shutil.which("tablecert")
    return [found] if found else [sys.executable, "-m", "harness"]


def human_bench_profile(tmp: Path, *, terminal: bool = True, timeout_s: int = 90) -> Path:
    """The midi-5 bench with a person at it (see the module docstring); returns the profile file."""
    data = twin_mapping(load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml"))
    data["name"] = "person-bench"
    data["description"] = "the $5 table's bench, a person answering every prompt"
    data["bench"]["operator"] = {"name": "", "console": True, "terminal": terminal, "prompt_timeout_s": timeout_s}
    path = tmp / "person-bench.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")
    return path


def act_from_dict(data: dict[str, Any]) -> Act:
    """An act as the console's state gives it (``Act.to_dict``), back as the act."""
    cls = ACT_TYPES[data["act"]]
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if f.name == "cards":
            value = tuple(parse_card(c) for c in value)
        elif f.name == "wagers":
            value = tuple(Wager(int(w["seat"]), str(w["type"]), int(w["amount"])) for w in value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[f.name] = value
    return cls(**kwargs)


def emulator_addresses(tmpdir: Path, deadline_s: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        for f in tmpdir.glob("tablecert-emu-*/addresses.json"):
            try:
                got: dict[str, Any] = json.loads(f.read_text("utf-8"))
                return got
            except ValueError:
                pass
        time.sleep(0.1)
    raise TimeoutError(f"no emulator addresses.json under {tmpdir} within {deadline_s} s")


def console_state(url: str) -> dict[str, Any]:
    base, _, query = url.partition("?")
    with urllib.request.urlopen(f"{base}api/state?{query}", timeout=5) as resp:
        state: dict[str, Any] = json.loads(resp.read())
        return state


class Person:
    """A person's hands at the emulated table: carries out an act it was shown, never answers."""

    def __init__(self, profile_path: Path, physical: str) -> None:
        profile = load_profile(profile_path)
        oracle = Oracle(profile, Interpretations.from_overrides(dict(profile.interpretations)))
        # only carry_out is used, with a broker of its own that no run sees: the answers are the test's
        self.hands = ScriptedOperator(Hands(physical), PromptBroker(), oracle.cards_in_round,
                                      pace=HumanPace(speed=HumanPace().speed * 1000))

    def act(self, shown: dict[str, Any]) -> tuple[str, str]:
        """Carry out the prompt ``shown`` (the console's ``prompt``); returns (answer, note)."""
        prompt = Prompt(shown["id"], act_from_dict(shown["act"]), shown["message"], shown["case"], shown["step"],
                        float(shown["timeout_s"]), shown["asked_at"], time.monotonic_ns(), shown["question"],
                        bool(shown["bulk"]))
        return self.hands.carry_out(prompt)

    def close(self) -> None:
        self.hands.close()


def record_prompts(report_dir: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The case's operator-prompts.json and the journal's bench entry of the one run under ``report_dir``."""
    (run,) = [d for d in report_dir.iterdir() if d.is_dir()]
    prompts = json.loads((run / "evidence" / "lockout-button" / "operator-prompts.json").read_text("utf-8"))
    bench: dict[str, Any] = {}
    for line in (run / "journal.jsonl").read_text("utf-8").splitlines():
        if '"front_ends"' in line:
            entry = json.loads(line)
            bench = _find(entry, "front_ends") or bench
    return prompts, bench


def _find(node: Any, key: str) -> dict[str, Any] | None:
    if isinstance(node, dict):
        if key in node:
            return node
        for v in node.values():
            got = _find(v, key)
            if got is not None:
                return got
    elif isinstance(node, list):
        for v in node:
            got = _find(v, key)
            if got is not None:
                return got
    return None
