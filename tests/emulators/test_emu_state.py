"""In-process: configuration writes, non-volatile storage and power, mystery, Hit and Run, shoe, defects."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from emu_helpers import MEGA_1, PLAIN_NATURAL, bench, profile

from harness.emulators.config import EmulatorConfig, load_config
from harness.emulators.nvstore import NVStore
from harness.errors import DeviceError, InputError

MYSTERY = {"configuration": 1, "distribution": "uniform", "paid_by": "table"}


def test_hello_identity_unknown_and_version() -> None:
    with bench() as b:
        assert b.ok("shoe", "hello", version=2) == {"protocol": 2, "role": "shoe"}
        assert b.ok("shoe", "hello", version=2, versions=[2, 1]) == {"protocol": 2, "role": "shoe"}
        assert b.refused("shoe", "hello", version=1).code == "VERSION"
        assert b.refused("shoe", "hello", version=99, versions=[99]).code == "VERSION"
        ident = b.ok("controller", "identity")
        for field in ("manufacturer", "model", "serial", "software_id", "controller_type", "software_name",
                      "software_version", "program_hash", "location", "asset_number", "game_type"):
            assert ident[field], field
        assert ident["game_type"] == "midibaccarat" and len(ident["program_hash"]) == 64
        assert b.ok("sensors", "ping") == {}
        assert b.refused("sensors", "round.open").code == "UNKNOWN_CMD"


def test_config_get_reads_back_the_rules_submission() -> None:
    with bench() as b:
        cfg = b.ok("controller", "config.get")
        assert cfg["denomination"] == 500
        assert cfg["seats"][0] == {"seat": 1, "combo": ["KS", "9S"]}
        assert cfg["meters"]["mega"] == {"rate": "1.25", "initial": 5_000_000, "reset": 5_000_000,
                                         "payout_limit": 25_000_000, "display_capacity": 99_999_999}


def test_config_set_refused_while_live_and_below_floor() -> None:
    with bench() as b:
        change = {"meters": {"major": {"payout_limit": 2_000_000}}}
        b.ok("controller", "round.open")
        assert b.refused("controller", "config.set", **change).reason.startswith("live")
        b.deal(PLAIN_NATURAL)
        assert b.ok("controller", "config.set", **change)["meters"]["major"]["payout_limit"] == 2_000_000
        reset = b.refused("controller", "config.set", meters={"major": {"reset": 50_000}})
        assert "above the meter's current" in reset.reason
        below = b.refused("controller", "config.set", meters={"mega": {"reset": 4_999_999}})
        assert below.code == "REFUSED" and "floor" in below.reason
        limit = b.refused("controller", "config.set", meters={"minor": {"payout_limit": 45_000}})
        assert "461a.12(k)(1)" in limit.reason
        assert b.refused("controller", "config.set", meters={"mega": {"colour": 1}}).code == "BAD_ARGS"
        assert b.refused("controller", "config.set", bogus=1).code == "BAD_ARGS"
        assert b.ok("controller", "config.get")["meters"]["mega"]["reset"] == 5_000_000


def test_config_set_refused_with_wagers_on_the_layout() -> None:
    with bench() as b:
        b.ok("controller", "round.open")
        b.wager(1)
        b.ok("controller", "lockout.press")
        assert b.ok("controller", "test.state")["phase"] == "open"
        assert b.refused("controller", "config.set", commission="4").reason.startswith("live")


def test_power_cycle_keeps_meters_config_and_mystery_trigger(tmp_path: Path) -> None:
    nv = tmp_path / "nv.json"
    data = profile()
    data["rules"]["mystery"] = MYSTERY
    with bench(mapping=data, nv_path=nv) as b:
        b.ok("controller", "round.open")
        b.wager(1)
        b.wager(2)
        b.deal(PLAIN_NATURAL)
        b.ok("controller", "config.set", meters={"major": {"payout_limit": 2_000_000}})
        before = b.meters()
        trigger = b.ok("controller", "test.state")["mystery"]["trigger"]
        assert "trigger" not in json.dumps(before)
        b.ok("controller", "round.open")
        b.wager(3)
        b.table.power.handle_line("OUTP OFF")
        assert b.table.power.handle_line("OUTP?") == "0"
        assert b("controller", "meters.get") is None and b("shoe", "ping") is None
        b.table.power.handle_line("OUTP ON")
        assert b.named("lockout")[-1] == {"event": "lockout", "locked": True, "cause": "power"}
        assert b.meters() == before
        state = b.ok("controller", "test.state")
        assert state["mystery"]["trigger"] == trigger and state["phase"] == "idle" and state["boots"] == 2
        assert b.ok("controller", "config.get")["meters"]["major"]["payout_limit"] == 2_000_000
        assert b.ok("sensors", "wager.list") == {"wagers": []}
    # a new table on the same storage (the emulator process restarted) continues where it stopped
    with bench(mapping=data, nv_path=nv) as b2:
        assert b2.meters() == before


def test_mystery_hit_when_the_trigger_is_reached() -> None:
    data = profile()
    data["rules"]["mystery"] = MYSTERY
    with bench(mapping=data) as b:
        meter = b.table.controller.bank["mystery"]  # type: ignore[index]
        meter.trigger = meter.amount + 25  # test hook: the next $5 wager (25c at 5%) reaches it
        b.ok("controller", "round.open")
        b.wager(2)
        b.ok("controller", "lockout.press")
        hits = [h for h in b.named("hit") if h["category"] == "mystery"]
        assert hits == [{"event": "hit", "seat": 2, "category": "mystery", "meter": "mystery", "amount": 25_025}]
        assert b.meters()["meters"]["mystery"] == 25_000
        assert 25_000 <= b.ok("controller", "test.state")["mystery"]["trigger"] <= 100_000


def _hr_bench():  # type: ignore[no-untyped-def]
    cfg = load_config("device_profiles/emulated-hit-and-run.yaml").with_changes(lockout_latency_us=0)
    return bench(mapping=cfg.to_mapping())


def test_hit_and_run_seven_cards_paid_by_table() -> None:
    with _hr_bench() as b:
        b.ok("controller", "round.open")
        b.wager(1, "hit-and-run", 500)
        b.ok("shoe", "test.load", cards=["2C", "2D", "2H", "2S", "3C", "3D", "3H", "KS"])
        b.ok("shoe", "test.deal", count=6, pace_us=0)
        assert not b.named("round_end")  # hard 14 after six cards: the dealer still hits
        b.ok("shoe", "test.deal", count=1, pace_us=0)  # hard 17: stands with seven cards
        assert b.named("payout") == [{"event": "payout", "seat": 1, "type": "hit-and-run", "category": "7-cards",
                                      "stake": 500, "returned": 100_000, "paid_by": "table"}]
        assert b.named("round_end") == [{"event": "round_end", "round": 1}]


def test_hit_and_run_eight_cards_takes_the_meter_for_every_winner() -> None:
    with _hr_bench() as b:
        b.ok("controller", "round.open")
        b.wager(1, "hit-and-run", 500)
        b.wager(2, "hit-and-run", 500)
        b.deal(["2C", "2D", "2H", "2S", "3C", "3D", "2C", "3H"])  # 16 after seven, 19 with eight
        assert [h["amount"] for h in b.named("hit")] == [100_015, 100_015]
        assert {p["paid_by"] for p in b.named("payout")} == {"attendant"}
        m = b.meters()
        assert m["pending"] == [{"meter": "hit-and-run", "seat": 1, "amount": 200_030, "category": "8-plus-cards"}]
        b.ok("controller", "reset_key", meter="hit-and-run")
        m = b.meters()
        assert m["meters"]["hit-and-run"] == 100_000 and m["paid_by_attendant"] == 200_030


def test_shoe_load_checks_and_status() -> None:
    with bench() as b:
        assert b.refused("shoe", "test.load", cards=["KX"]).code == "BAD_ARGS"
        assert b.refused("shoe", "test.load", cards=["KS"] * 9).code == "BAD_ARGS"
        assert b.ok("shoe", "test.load", cards=["KS"] * 9, check_decks=False) == {"cards_remaining": 9}
        assert b.refused("shoe", "test.deal", count=10).code == "REFUSED"
        assert b.ok("shoe", "shoe.status") == {"state": "ready", "cards_dealt": 0, "cards_remaining": 9}
        b.ok("shoe", "test.fault", kind="misread")
        b.ok("shoe", "test.deal", count=2, pace_us=0)
        assert [ev["event"] for ev in b.named("misread") + b.named("card")] == ["misread", "card"]
        assert b.named("card")[0]["n"] == 2


def test_paced_deal_emits_cards_in_time_order() -> None:
    with bench() as b:
        b.ok("shoe", "test.load", cards=PLAIN_NATURAL)
        assert b.ok("shoe", "test.deal", pace_us=1000)["dealing"] == 4
        assert b.refused("shoe", "test.deal", pace_us=1000).code == "BUSY"
        deadline = time.monotonic() + 2
        while len(b.named("card")) < 4 and time.monotonic() < deadline:
            time.sleep(0.001)
        assert [c["n"] for c in b.named("card")] == [1, 2, 3, 4]


def test_nvstore_atomic_and_corrupt(tmp_path: Path) -> None:
    store = NVStore(tmp_path / "nv" / "c.json")
    assert store.load() is None
    store.save({"a": 1})
    assert store.load() == {"format": "tablecert/emulator-nv/1", "a": 1}
    assert not (tmp_path / "nv" / "c.json.tmp").exists()
    (tmp_path / "nv" / "c.json").write_text("{not json")
    with pytest.raises(DeviceError):
        store.load()


def test_nvstore_fsync_is_optional_and_off_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    data = profile()
    del data["emulator"]["nv_fsync"]
    assert EmulatorConfig.from_mapping(data).nv_fsync is False and EmulatorConfig().nv_fsync is False
    NVStore(tmp_path / "a.json").save({"a": 1})
    assert synced == [] and json.loads((tmp_path / "a.json").read_text())["a"] == 1
    NVStore(tmp_path / "b.json", fsync=True).save({"b": 2})
    assert len(synced) == 2  # the file, then its directory
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]  # replaced, no temporary left


def test_config_from_profiles_and_bad_input() -> None:
    for name in ("emulated-midi-5", "emulated-midi-1", "emulated-midi-5-mystery", "emulated-ez-baccarat",
                 "emulated-hit-and-run"):
        cfg = load_config(f"device_profiles/{name}.yaml")
        assert EmulatorConfig.from_mapping(cfg.to_mapping()) == cfg
    with pytest.raises(InputError, match="unknown"):
        EmulatorConfig.from_mapping(profile(defects=["no-such-defect"]))
    bad = profile()
    bad["rules"]["meters"]["mega"]["reset"] = 40000
    with pytest.raises(InputError, match="floor"):
        EmulatorConfig.from_mapping(bad)
    dup = profile()
    dup["rules"]["seats"] = [{"seat": 1, "combo": ["KS", "9S"]}, {"seat": 2, "combo": ["9S", "KS"][::-1]}]
    with pytest.raises(InputError, match="unique"):
        EmulatorConfig.from_mapping(dup)


# -- defects: each a single named deviation ------------------------------------------------------

def test_defect_lockout_missing() -> None:
    with bench(defects=["lockout-missing"]) as b:
        b.ok("controller", "round.open")
        b.ok("shoe", "test.load", cards=PLAIN_NATURAL)
        b.ok("shoe", "test.deal", count=1, pace_us=0)
        assert b.wager(1) is None


def test_defect_lockout_early() -> None:
    with bench(defects=["lockout-early"]) as b:
        b.ok("controller", "round.open")
        assert b.wager(1) == "locked-out"


def test_defect_wager_after_no_more_bets_and_comm_loss() -> None:
    with bench(defects=["wager-after-no-more-bets", "wager-after-comm-loss"]) as b:
        b.ok("controller", "round.open")
        b.ok("controller", "round.no_more_bets")
        assert b.wager(1) is None
        b.ok("controller", "test.link", up=False)
        assert b.wager(2) != "comm-lost"


def test_defect_residual_dropped_and_rate_off() -> None:
    with bench(defects=["residual-dropped"]) as b:
        b.ok("controller", "round.open")
        b.wager(1)
        b.ok("controller", "lockout.press")
        assert b.meters()["residual"]["mega"] == "0"
    with bench(defects=["rate-off"]) as b:
        b.ok("controller", "round.open")
        b.wager(1)
        b.ok("controller", "lockout.press")
        assert b.meters()["residual"]["mega"] == "0.3"  # 1.26% of 500 = 6.3c
        assert b.ok("controller", "config.get")["meters"]["mega"]["rate"] == "1.25"


def test_defect_reset_zero() -> None:
    with bench(defects=["reset-zero"]) as b:
        b.ok("controller", "round.open")
        b.wager(1)
        b.deal(MEGA_1)
        b.ok("controller", "reset_key", meter="mega")
        assert b.meters()["meters"]["mega"] == 0


def test_defect_config_while_live() -> None:
    with bench(defects=["config-while-live"]) as b:
        b.ok("controller", "round.open")
        assert b.ok("controller", "config.set", commission="4")["commission"] == "4"


def test_defects_on_power_cycle(tmp_path: Path) -> None:
    data = profile(defects=["power-loses-meters"])
    with bench(mapping=data, nv_path=tmp_path / "a.json") as b:
        b.ok("controller", "round.open")
        b.wager(1)
        b.ok("controller", "lockout.press")
        assert b.meters()["meters"]["mega"] == 5_000_006
        b.table.set_power(False)
        b.table.set_power(True)
        assert b.meters()["meters"]["mega"] == 5_000_000
    data = profile(defects=["mystery-redrawn"])
    data["rules"]["mystery"] = MYSTERY
    with bench(mapping=data, nv_path=tmp_path / "b.json") as b:
        triggers = set()
        for _ in range(5):
            triggers.add(b.ok("controller", "test.state")["mystery"]["trigger"])
            b.table.set_power(False)
            b.table.set_power(True)
        assert len(triggers) > 1


def test_cancelling_a_fired_timer_leaves_nothing_behind() -> None:
    """A long soak cancels the lock-out timer after it fired on every round: no id may pile up."""
    import threading

    from harness.emulators.clock import Scheduler

    sched = Scheduler("t")
    fired = threading.Event()
    try:
        tid = sched.at(0, lambda due, now: fired.set())
        assert fired.wait(2.0)
        sched.cancel(tid)
        assert not sched._cancelled
        later = sched.at(time.perf_counter_ns() + 10_000_000_000, lambda due, now: None)
        sched.cancel(later)
        assert sched.pending() == 0
    finally:
        sched.stop()


def test_a_personal_combination_that_is_no_king_and_nine_is_refused_and_changes_nothing() -> None:
    """629a Royal 9 (e)(5): a seat's personal combination is a king and a nine.  A write of a queen for
    the king was taken into the configuration and then broke the controller (every later request an
    internal error), a difference the explorer found; it is refused and the configuration stays."""
    with bench() as b:
        before = b.ok("controller", "config.get")
        seats = [dict(s) for s in before["seats"]]
        owned = next(s for s in seats if s.get("combo"))
        owned["combo"] = ["Q" + owned["combo"][0][1:], owned["combo"][1]]
        refusal = b.refused("controller", "config.set", seats=seats)
        assert refusal.code in ("REFUSED", "BAD_ARGS") and "king and a nine" in refusal.reason
        assert b.ok("controller", "config.get") == before
        assert b.ok("controller", "config.set", commission=before["commission"])  # still takes writes
