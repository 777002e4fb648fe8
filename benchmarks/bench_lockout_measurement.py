"""Lock-out measurement error over a pty: the time-interval counter model against host receive stamps,
on an idle machine and on a loaded one (a CPU hog per core in the same run).

Each round opens wagering, places a wager, stacks one round's cards, **arms the counter**
(``INIT``) and deals at a 2 ms pace, then **fetches** the counter's interval (``FETC?``) and takes the
host's interval (receive stamp of the shoe's first ``card`` event to that of the controller's
``lockout`` event, each stamped in its port's reading thread).  The truth is what the emulated
controller's lock-out line did (``test.state``: the round's first card to the moment the lock took
effect, on the emulator's clock).  Printed per phase: |error| p50 and p99 of both methods, and
their ratios to the 1 ms lock-out limit.  The jitter the run's start-up measurement would report
(harness.bench.jitter) is printed too: it is the margin inside which host stamps only advise.

The emulated counter timestamps the same edges the controller makes, so its error is that of the
measurement *model* (armed before, fetched after); a real counter adds its own resolution, far
below 1 ms (nanoseconds).  The host stamps add everything between the device and the harness.

Run: ``.venv/bin/python benchmarks/bench_lockout_measurement.py``  (about 40 s)
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.bench import jitter  # noqa: E402
from harness.cards import parse_cards, shoe_composition  # noqa: E402
from harness.devices.drivers.reference import (  # noqa: E402
    ReferenceController,
    ReferenceSensors,
    ReferenceShoe,
)
from harness.devices.drivers.scpi import ScpiCounter  # noqa: E402
from harness.games.baccarat import deal_round  # noqa: E402
from harness.profiles import load_profile  # noqa: E402
from harness.suites.run.profile_rig import open_rig  # noqa: E402
from harness.suites.run.rig import Rig  # noqa: E402

PROFILE = ROOT / "device_profiles" / "emulated-midi-5.yaml"
PACE_MS = "2"
ROUNDS = 150
BUDGET_S = 25.0
LIMIT_MS = 1.0
HOG = "import time\nend = time.monotonic() + {s}\nwhile time.monotonic() < end:\n    pass\n"


def profile_path(tmp: Path) -> Path:
    text = PROFILE.read_text(encoding="utf-8").replace('deal_pace_ms: "15"', f'deal_pace_ms: "{PACE_MS}"')
    if f'deal_pace_ms: "{PACE_MS}"' not in text:
        raise SystemExit(f"{PROFILE}: expected deal_pace_ms \"15\" to replace")
    path = tmp / "bench-measurement.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def pct(values_ns: list[int], q: float) -> float:
    ordered = sorted(abs(v) for v in values_ns)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6


def play(rig: Rig, rounds: int, budget_s: float) -> tuple[list[int], list[int], int]:
    """(counter errors, host-stamp errors, rounds the counter measured nothing), in ns."""
    shoe, sensors, ctl, counter = rig.shoe, rig.sensors, rig.controller, rig.counter
    assert isinstance(shoe, ReferenceShoe) and isinstance(sensors, ReferenceSensors)
    assert isinstance(ctl, ReferenceController) and isinstance(counter, ScpiCounter)
    rng = random.Random(7)
    deck = [c.code for c, n in shoe_composition(8).items() for _ in range(n)]
    by_counter: list[int] = []
    by_host: list[int] = []
    missed = 0
    start = time.monotonic()
    while len(by_host) < rounds and time.monotonic() - start < budget_s:
        shoe.link.clear_events()
        ctl.link.clear_events()
        ctl.open_round()
        sensors.place(1, "banker", 500)
        sensors.place(1, "royal9", 500)
        cards = rng.sample(deck, 8)
        shoe.load(cards[: deal_round(parse_cards(cards)).cards_used])
        counter.arm()
        shoe.deal()
        card = shoe.wait_event("card", 5.0, lambda e: e.payload.get("n") == 1)
        lock = ctl.wait_event("lockout", 5.0, lambda e: e.payload.get("cause") == "card")
        ctl.wait_event("round_end", 5.0)
        for ev in ctl.events():
            if ev.name == "hit" and ev.payload.get("meter") and ev.payload.get("meter") != "mystery":
                ctl.reset_key(str(ev.payload["meter"]))
        state = ctl.test_state()["last_card_lock"]
        truth = min(state["lock_ns"], state["due_ns"]) - state["card_ns"]
        measured = counter.fetch_interval_s()
        if measured is None:
            missed += 1
        else:
            by_counter.append(int(measured * Decimal(1_000_000_000)) - truth)
        by_host.append((lock.t_ns - card.t_ns) - truth)
    return by_counter, by_host, missed


def report(label: str, rig: Rig) -> None:
    spread = jitter.measure(rig)
    by_counter, by_host, missed = play(rig, ROUNDS, BUDGET_S)
    load = os.getloadavg()
    print(f"\n{label}: {len(by_host)} rounds, load average {load[0]:.2f}; start-up jitter "
          f"{spread['jitter_ms'] if spread else '-'} ms (host stamps only advise within it)")
    print(f"  {'method':<22} {'|error| p50':>12} {'|error| p99':>12} {'p50/limit':>10} {'p99/limit':>10}")
    for name, errors in (("counter (INIT/FETC?)", by_counter), ("host receive stamps", by_host)):
        if not errors:
            print(f"  {name:<22} no measurement")
            continue
        p50, p99 = pct(errors, 0.5), pct(errors, 0.99)
        print(f"  {name:<22} {p50:9.3f} ms {p99:9.3f} ms {p50 / LIMIT_MS:9.3f}x {p99 / LIMIT_MS:9.3f}x")
    if missed:
        print(f"  the counter measured nothing in {missed} round(s)")


def main() -> int:
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at start "
          f"(shared machine: other work may be running); Python {sys.version.split()[0]}; "
          f"lock-out limit {LIMIT_MS} ms, deal pace {PACE_MS} ms, emulated latency 0.3 ms")
    hogs: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="tablecert-bench-") as tmp:
        rig = open_rig(load_profile(profile_path(Path(tmp))), listen="pty", run_dir=Path(tmp) / "run")
        try:
            report("idle (no hog)", rig)
            for _ in range(os.cpu_count() or 1):
                hogs.append(subprocess.Popen([sys.executable, "-c", HOG.format(s=BUDGET_S + 20)]))
            time.sleep(1.0)
            report(f"loaded ({len(hogs)} CPU hog(s), one per core, in this run)", rig)
        finally:
            for hog in hogs:
                if hog.poll() is None:
                    os.kill(hog.pid, signal.SIGTERM)
                hog.wait(10)
            rig.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
