"""Compliant link profiles drawn from a seed, for ``tablecert variants`` (kind ``link``).

A drawn link has two to five tables on one link controller, in one or two pools; every table of a
pool is on the pool's common meters (a mega meter, sometimes a major too) at the pool's rate, and has
its own decks-matched shoe, seats (one to five, anywhere from 1 to 9), personal combinations and own
meters.  What keeps each draw compliant with 461a.12(c) and (d) is the same exact rule the loader
applies: every wager on a common meter has the same chance per unit of wager, so a pool has one shoe
size and, where the wager is counted in money (``link-wager-measure``, the default), one
denomination; under ``denomination-units`` a pool may mix $5 and $1 tables.  Amounts are above the
floors of every denomination in the pool (Royal 9 (f)(2), (g)(2)).
"""

from __future__ import annotations

import random
from typing import Any

from harness.money import fmt
from harness.selfcheck.draws import COMBOS, FLOORS, RATES

#: the link's interpretations a variant draws (the other tables' readings stay at their defaults)
LINK_INTERPRETATIONS = ("link-wager-measure", "link-simultaneous-hits")


def link_profile(seed: int, index: int, interp: dict[str, Any], *, matrix: bool = False) -> dict[str, Any]:
    """One link profile mapping (``interp``: the interpretations the plan gave this variant)."""
    rng = random.Random(f"{'matrix' if matrix else 'variant'}-link:{seed}:{index}")
    units = interp.get("link-wager-measure") == "denomination-units"
    n_tables = rng.randint(2, 4 if matrix else 5)
    pools = 1 if n_tables < 4 or rng.random() < 0.5 else 2
    meters: dict[str, Any] = {}
    tables: list[dict[str, Any]] = []
    for p in range(pools):
        members = n_tables // pools + (1 if p < n_tables % pools else 0)
        decks = rng.choice((2, 4, 6, 8) if matrix else (1, 2, 4, 6, 8, 8))
        dens = [rng.choice((5, 1)) for _ in range(members)] if units else [rng.choice((5, 1))] * members
        linked = ["mega"] + (["major"] if rng.random() < 0.5 else [])
        names = {m: f"{m}-{p + 1}" for m in linked}
        rates = {m: rng.choice(RATES) for m in linked}
        for m, name in names.items():
            floor = max(FLOORS[d][m] for d in dens)
            reset = floor + rng.choice((0, 100, 2500))
            initial = reset + rng.choice((0, 0, 1000))
            limit = max(initial, reset) * rng.choice((3, 5))
            meters[name] = {"initial": fmt(initial), "reset": fmt(reset), "payout_limit": fmt(limit),
                            "display_capacity": fmt(max(limit, 999_999_99))}
        for den in dens:
            t = len(tables) + 1
            count = rng.randint(1, 5)
            seats = sorted(rng.sample(range(1, 10), count))
            combos = rng.sample(COMBOS, count)
            own: dict[str, Any] = {}
            for m in ("mega", "major", "minor"):
                if m in names:
                    own[m] = {"link": names[m], "rate": f"{rates[m]}%"}
                else:
                    floor = FLOORS[den][m]
                    own[m] = {"rate": f"{rng.choice(RATES)}%", "initial": fmt(floor + rng.choice((0, 50, 1234))),
                              "reset": fmt(floor), "display_capacity": fmt(99_999_99)}
            tables.append({
                "name": f"t{t}",
                "devices": {"shoe": {"driver": "reference-shoe", "port": "emulator"},
                            "sensors": {"driver": "reference-sensors", "port": "emulator"},
                            "controller": {"driver": "reference-controller", "port": "emulator"}},
                "rules": {"denomination": den, "decks": decks,
                          "seats": [{"seat": s, "combo": list(c)} for s, c in zip(seats, combos, strict=True)],
                          "meters": own},
            })
    return {
        "spec": "tablecert/profile/1",
        "name": f"{'matrix' if matrix else 'variant'}-{seed}-{index:02d}",
        "description": f"Variant {index} of seed {seed}: a link of {n_tables} tables in {pools} pool(s)",
        "game": "midibaccarat",
        "jurisdiction": "PA",
        "capabilities": ["link", "reset-key", "royal9"],
        "link": {"controller": {"driver": "reference-link-controller", "port": "emulator"}, "meters": meters,
                 "tables": tables},
        "timing": {"lockout_deadline_ms": "1.0"},
        "interpretations": {k: interp[k] for k in sorted(interp) if k in LINK_INTERPRETATIONS},
        "emulator": {"lockout_latency_ms": "0.3", "deal_pace_ms": "1", "seed": rng.randrange(1, 2**31)},
    }


def summary(profile: dict[str, Any]) -> str:
    """One line for a drawn link (the variant list and the run's progress)."""
    link = profile["link"]
    tables = [f"{t['name']} ${t['rules']['denomination']} {t['rules']['decks']}d "
              f"seats {','.join(str(s['seat']) for s in t['rules']['seats'])} "
              f"on {'+'.join(sorted(m['link'] for m in t['rules']['meters'].values() if 'link' in m))}"
              for t in link["tables"]]
    interp = profile.get("interpretations") or {}
    return "; ".join(["link", *tables, *(f"{k}={v}" for k, v in interp.items())])
