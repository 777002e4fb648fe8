"""The shipped named stacks, ``fixtures/stacks/{royal9,baccarat,hit-and-run}.yaml``.

They are generated, never edited by hand: ``tablecert stack --write-fixtures`` (or
``python -m harness.stackbuilder``) rebuilds them deterministically from :func:`fixture_specs`,
so every Royal 9 paytable line of the seven-seat table in ``device_profiles/emulated-midi-5.yaml``
((f)/(g): the $1 profile uses the same seats), every cell of the punto banco tableau and every
Hit and Run line (633a.13(l)(1), the dealer rule of ``device_profiles/emulated-hit-and-run.yaml``)
has a stack a suite can name.  The tests load them back with
:func:`harness.suites.load.stacks.all_stacks` and judge each ``want`` with the oracles.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.cards import Combo
from harness.errors import InputError
from harness.games.interpretations import DEFAULT, Interpretations
from harness.paths import project_root
from harness.profiles import load_profile
from harness.stackbuilder import build_stack
from harness.stackbuilder.common import Stack
from harness.stackbuilder.render import SPEC, entry_yaml
from harness.stackbuilder.wants import Setup

ROYAL9_PROFILE = "device_profiles/emulated-midi-5.yaml"
HIT_AND_RUN_PROFILE = "device_profiles/emulated-hit-and-run.yaml"
FILES = ("royal9", "baccarat", "hit-and-run")
SEED = 1


@dataclass(frozen=True)
class TableSetup:
    """What a profile says about building stacks for it."""

    seat_combos: dict[int, Combo]
    decks: int | None
    hit_soft17: bool | None
    interpretations: Interpretations


def profile_setup(path: str | Path) -> TableSetup:
    """Seat combinations, shoe size, soft-17 rule and interpretations from a device profile."""
    profile = load_profile(path)
    rules = profile.rules
    combos = {s.seat: s.combo for s in rules.seats if s.combo is not None}
    hr = rules.hit_and_run
    decks = hr.decks if hr is not None else rules.decks
    interp = Interpretations.from_overrides(dict(profile.interpretations))
    return TableSetup(combos, decks, hr.hits_soft17 if hr is not None else None, interp)


def default_royal9_setup(root: Path | None = None) -> TableSetup:
    """The emulated-midi-5 table, or no seat combinations when that profile is absent."""
    path = (root or project_root()) / ROYAL9_PROFILE
    if not path.is_file():
        return TableSetup({}, None, None, DEFAULT)
    return profile_setup(path)


def fixture_specs(seats: list[int]) -> Iterator[tuple[str, str, str, str]]:
    """(file, name, game, want) for every shipped stack."""
    r9 = [("r9-royal9-player", "royal9:player"), ("r9-royal9-banker", "royal9:banker"),
          ("r9-suited-royal9-player", "suited-royal9:player"), ("r9-suited-royal9-banker", "suited-royal9:banker"),
          ("r9-royal9-tie", "royal9-tie"), ("r9-suited-royal9-tie", "suited-royal9-tie")]
    for kind in ("major", "minor", "mega"):
        r9 += [(f"r9-{kind}-seat-{n}", f"{kind}:seat={n}") for n in seats]
    r9 += [("r9-mega-envy", "mega-envy"), ("r9-no-royal9", "no-royal9"), ("r9-ten-not-face", "ten-not-face")]
    for name, want in r9:
        yield "royal9", name, "baccarat", want
    bac = [("bac-player-wins", "player+no-natural"), ("bac-banker-wins", "banker+no-natural"),
           ("bac-tie", "tie+no-natural"), ("bac-natural-tie", "tie+natural"),
           ("bac-player-natural-8", "player+natural-8"), ("bac-player-natural-9", "player+natural-9"),
           ("bac-banker-natural-8", "banker+natural-8"), ("bac-banker-natural-9", "banker+natural-9"),
           ("bac-dragon7", "dragon7"), ("bac-panda8", "panda8")]
    bac += [(f"bac-tableau-b{b}-p{p}", f"tableau:banker={b},p3={p}") for b in range(8) for p in range(10)]
    bac += [(f"bac-stand-b{b}", f"player-stands:banker={b}") for b in range(8)]
    for name, want in bac:
        yield "baccarat", name, "baccarat", want
    hr = [(f"hr-dealer-cards-{n}", f"dealer-cards={n}+dealer-stands") for n in range(2, 8)]
    hr += [("hr-dealer-cards-8-plus", "dealer-cards=8-plus+dealer-stands"), ("hr-dealer-blackjack", "dealer-blackjack")]
    hr += [(f"hr-dealer-bust-{n}", f"dealer-bust-cards={n}") for n in range(3, 9)]
    for name, want in hr:
        yield "hit-and-run", name, "hit-and-run", want


def fixture_setups(root: Path | None = None) -> dict[str, Setup]:
    """The table each shipped file is built for and checked against, by game."""
    base = root or project_root()
    r9 = default_royal9_setup(base)
    hr_path = base / HIT_AND_RUN_PROFILE
    hr = profile_setup(hr_path) if hr_path.is_file() else TableSetup({}, 6, True, DEFAULT)
    return {
        "baccarat": Setup("baccarat", r9.decks or 8, True, r9.seat_combos, r9.interpretations),
        "hit-and-run": Setup("hit-and-run", hr.decks or 6, True if hr.hit_soft17 is None else hr.hit_soft17,
                             {}, hr.interpretations),
    }


def build_fixtures(root: Path | None = None) -> dict[str, list[Stack]]:
    """Every shipped stack, built and verified; an impossible or missing one is an error."""
    setups = fixture_setups(root)
    seats = sorted(setups["baccarat"].seat_combos)
    out: dict[str, list[Stack]] = {f: [] for f in FILES}
    for file, name, game, want in fixture_specs(seats):
        s = setups[game]
        result = build_stack(game, want, decks=s.decks, hit_soft17=s.hit_soft17, seat_combos=s.seat_combos,
                             interpretations=s.interpretations, seed=SEED, name=name)
        if not isinstance(result, Stack):
            raise InputError(f"fixture {name} ({want}): {result.reason}")
        out[file].append(result)
    return out


def render_file(file: str, stacks: list[Stack]) -> str:
    head = (f"# Generated by `tablecert stack --write-fixtures` (seed {SEED}); do not edit by hand.\n"
            f"# Every entry is one complete round, checked against the harness's oracles.\n"
            f"spec: {SPEC}\nstacks:\n")
    return head + "".join(entry_yaml(s) for s in stacks)


def write_fixtures(root: Path | None = None) -> list[Path]:
    base = root or project_root()
    directory = base / "fixtures" / "stacks"
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file, stacks in build_fixtures(base).items():
        path = directory / f"{file}.yaml"
        path.write_text(render_file(file, stacks), encoding="utf-8")
        written.append(path)
    return written
