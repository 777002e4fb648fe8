"""Named shoe stacks kept in ``fixtures/stacks/*.yaml`` (``spec: tablecert/stacks/1``).

A stack is a scripted card sequence with a name, the result it was built to produce, and a note
for the technician.  ``tablecert stack`` writes them; suites refer to them with ``stack: NAME``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from harness.cards import Card, parse_cards
from harness.errors import InputError
from harness.schema import Fields, check_map, check_str, suggest
from harness.yamlload import load_yaml

SPEC = "tablecert/stacks/1"


@dataclass(frozen=True)
class Stack:
    name: str
    cards: tuple[Card, ...]
    game: str
    want: str
    note: str
    path: str


def project_root() -> Path:
    """The checkout (or ``$TABLECERT_HOME``): where ``suites/``, ``fixtures/`` and profiles live."""
    env = os.environ.get("TABLECERT_HOME")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parents[2]
    if (here / "suites").is_dir():
        return here
    return Path.cwd()


def fixtures_dir(fixtures: Path | None = None) -> Path:
    return fixtures if fixtures is not None else project_root() / "fixtures"


@cache
def _load_dir(directory: Path) -> dict[str, Stack]:
    stacks: dict[str, Stack] = {}
    if not directory.is_dir():
        return stacks
    for path in sorted(directory.glob("*.yaml")):
        root = Fields(load_yaml(path), None, "", required=("spec", "stacks"))
        if root.get_str("spec") != SPEC:
            raise root.error("spec", f"unknown stacks spec (this version reads '{SPEC}')")
        entries = check_map(root.raw("stacks"), root.loc("stacks"), "stacks")
        for name in entries:
            check_str(name, entries.key_loc(name), "stack name", pattern=r"^[a-z0-9][a-z0-9-]*$")
            e = Fields(entries[name], entries.loc(name), f"stacks.{name}", required=("cards", "game", "want"),
                       optional=("note",))
            try:
                cards = tuple(parse_cards(e.get_str("cards")))
            except InputError as exc:
                raise e.error("cards", exc.message) from None
            if name in stacks:
                raise entries.key_loc(name).error(f"stack '{name}' already defined in {stacks[name].path}")
            stacks[str(name)] = Stack(str(name), cards, e.get_str("game"), e.get_str("want"),
                                      e.get_str("note", ""), str(path))
    return stacks


def all_stacks(fixtures: Path | None = None) -> dict[str, Stack]:
    return _load_dir(fixtures_dir(fixtures) / "stacks")


def find_stack(name: str, fixtures: Path | None = None) -> Stack:
    stacks = all_stacks(fixtures)
    if name not in stacks:
        raise InputError(f"unknown stack '{name}'{suggest(name, stacks)} (stacks live in fixtures/stacks/)")
    return stacks[name]
