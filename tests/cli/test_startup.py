"""``tablecert`` imports what a command needs when it runs: building the parser loads no scipy or
numpy (they took a second of every command's start-up, and of every subprocess the matrices start).

The modules are looked for in a fresh interpreter (this one has imported them for other tests).
Timings are printed by ``benchmarks/bench_cli_startup.py``, never asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import COMMANDS, build_parser, chosen_command

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("scipy", "numpy", "rich", "pytest", "harness.stackbuilder", "harness.randomness.battery")


def _loaded_after(code: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps([m for m in {heavy!r} if m in sys.modules]))"
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=True)
    return list(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_every_command_s_flags_load_no_scipy_or_numpy() -> None:
    # building `stack`'s flags reads the stack search's vocabulary (a few ms): allowed here
    assert _loaded_after("from harness.cli import build_parser; build_parser()", HEAVY[:4]) == []


def test_help_loads_none_of_the_heavy_modules() -> None:
    code = ("from harness.cli import main\nimport contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(['--help'])\n    except SystemExit:\n        pass")
    assert _loaded_after(code) == []


def test_validate_of_a_profile_loads_none_of_the_heavy_modules() -> None:
    profile = ROOT / "device_profiles" / "emulated-mini-baccarat.yaml"
    code = f"from harness.cli import main\nassert main(['validate', {str(profile)!r}]) == 0"
    assert _loaded_after(code) == []


@pytest.mark.parametrize(("argv", "name"), [
    (["validate", "x.yaml"], "validate"),
    (["run", "--profile", "p.yaml", "--", "-x"], "run"),
    (["--version"], None),
    (["--", "run"], None),
    (["nonsense"], None),
    ([], None),
])
def test_the_chosen_command_is_the_first_word(argv: list[str], name: str | None) -> None:
    assert chosen_command(argv) == name


def test_a_parser_for_one_command_still_lists_every_command() -> None:
    parser = build_parser("validate")
    help_text = parser.format_help()
    for name in COMMANDS:
        assert name in help_text
    args = parser.parse_args(["validate", "a.yaml", "--profile", "p.yaml"])
    assert args.paths == ["a.yaml"] and args.profile == "p.yaml"
