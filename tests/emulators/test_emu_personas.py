"""Each persona (harness.emulators.personas) really behaves as it says, and the reference does not."""

from __future__ import annotations

import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from emu_helpers import PLAIN_NATURAL, bench, profile

from harness.devices.framing import REQ, Frame
from harness.devices.vocabulary import PROTOCOL_VERSIONS
from harness.emulators.config import EmulatorConfig
from harness.emulators.personas import PERSONAS, apply_persona
from harness.emulators.server import EmulatorServer
from harness.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
ROTATED = [{"seat": 1, "combo": ["KH", "9H"]}, {"seat": 2, "combo": ["KS", "9S"]}, {"seat": 3}]


def test_fixed_configuration_refuses_every_change_and_takes_the_configuration_in_force() -> None:
    with bench(mapping=profile(persona="fixed-configuration")) as b:
        before = b.ok("controller", "config.get")
        for change in ({"denomination": 100}, {"seats": ROTATED}, {"decks": 6}, {"commission": "4"},
                       {"meters": {"major": {"payout_limit": 2_000_000}}}, {"hit_soft17": False}):
            nak = b.refused("controller", "config.set", **change)
            assert (nak.code, nak.reason) == ("REFUSED", "the configuration is fixed by the Rules Submission")
        assert b.ok("controller", "config.get") == before
        assert b.ok("controller", "config.set", decks=before["decks"])["decks"] == before["decks"]
    with bench() as ref:  # the reference takes the same write
        assert ref.ok("controller", "config.set", decks=6)["decks"] == 6


def test_no_rewrite_while_amounts_keeps_denomination_combinations_and_decks_but_takes_the_meters() -> None:
    with bench(mapping=profile(persona="no-rewrite-while-amounts")) as b:
        assert all(v > 0 for v in b.meters()["meters"].values())  # the meters show their initial amounts
        for change, named in (({"denomination": 100}, "denomination"), ({"seats": ROTATED}, "combinations"),
                              ({"decks": 6}, "decks")):
            nak = b.refused("controller", "config.set", **change)
            assert nak.code == "REFUSED" and named in nak.reason and "461a.12(i)" in nak.reason
        b.deal(PLAIN_NATURAL)
        assert b.ok("controller", "config.set", meters={"major": {"payout_limit": 2_000_000}})[
            "meters"]["major"]["payout_limit"] == 2_000_000
        assert b.ok("controller", "config.set", commission="4")["commission"] == "4"
    with bench() as ref:
        assert ref.ok("controller", "config.set", seats=ROTATED)["seats"][0]["combo"] == ["KH", "9H"]


def test_lockout_at_the_limit_takes_four_fifths_of_the_deadline() -> None:
    data = apply_persona({**profile(), "timing": {"lockout_deadline_ms": "2.5"}}, "lockout-at-the-limit")
    del data["emulator"]["lockout_latency_us"]  # the persona's lockout_latency_ms decides
    assert data["emulator"]["lockout_latency_ms"] == "2.00"
    assert EmulatorConfig.from_mapping(data).lockout_latency_us == 2000
    assert EmulatorConfig.from_mapping(profile()).lockout_latency_us == 0
    with bench(mapping=data) as b:  # the controller schedules its lock-out that long after the first card
        b.ok("controller", "round.open")
        b.ok("shoe", "test.load", cards=PLAIN_NATURAL)
        b.ok("shoe", "test.deal", count=1, pace_us=0)
        deadline = time.monotonic() + 2
        while not any(e["cause"] == "card" for e in b.named("lockout")) and time.monotonic() < deadline:
            time.sleep(0.001)
        lock = b.ok("controller", "test.state")["last_card_lock"]
        assert lock["due_ns"] - lock["card_ns"] == 2_000_000


def test_omits_optional_fields_leaves_out_model_program_hash_and_the_raw_reading() -> None:
    with bench(mapping=profile(persona="omits-optional-fields")) as b:
        ident = b.ok("controller", "identity")
        assert "model" not in ident and "program_hash" not in ident
        assert ident["manufacturer"] and ident["software_version"]  # the required ones stay
        assert b.meters()["diverted"] == {}  # no meter stands at its cap: diverted is optional below it
        b.ok("controller", "config.set", meters={"minor": {"payout_limit": 45_001}})
        b.ok("controller", "round.open")
        b.wager(1, "royal9", 500)
        b.wager(2, "royal9", 500)
        b.deal(PLAIN_NATURAL)
        b.wait_for("round_end")
        shown = b.meters()
        assert shown["meters"]["minor"] == 45_001 and list(shown["diverted"]) == ["minor"]  # required at the cap
        b.ok("shoe", "test.load", cards=PLAIN_NATURAL)
        b.ok("shoe", "test.fault", kind="misread")
        b.ok("shoe", "test.deal", pace_us=0)
        misread = b.wait_for("misread")
        assert "raw" not in misread and misread["n"] == 1
    with bench() as ref:
        assert ref.ok("controller", "identity")["model"]
        assert set(ref.meters()["diverted"]) == {"mega", "major", "minor"}
        ref.ok("shoe", "test.load", cards=PLAIN_NATURAL)
        ref.ok("shoe", "test.fault", kind="misread")
        ref.ok("shoe", "test.deal", pace_us=0)
        assert ref.wait_for("misread")["raw"] == "??"


def test_other_refusal_reasons_answers_refused_where_the_contract_allows_either_code() -> None:
    for persona, code in (("other-refusal-reasons", "REFUSED"), (None, "BAD_ARGS")):
        with bench(mapping=profile(**({"persona": persona} if persona else {}))) as b:
            assert b.refused("sensors", "wager.place", seat=10, type="player", amount=500).code == code
            assert b.refused("controller", "config.set", decks=0).code == code
            # a malformed value stays BAD_ARGS for both: that one the contract fixes
            assert b.refused("controller", "config.set", seats=[{"seat": 1, "combo": ["KS"]}]).code == "BAD_ARGS"


def test_other_refusal_reasons_gives_no_base_wager_before_the_seat_and_the_lock() -> None:
    for persona, first in (("other-refusal-reasons", "no-base-wager"), (None, "bad-seat")):
        mapping = {**profile(**({"persona": persona} if persona else {})), "interpretations": {}}
        with bench(mapping=mapping) as b:
            b.ok("controller", "round.open")
            assert b.wager(9) == first  # seat 9: not on this three-seat table, and no base wager there
            assert b.wager(1, "player", 1000) is None
            assert b.wager(1) is None  # with its base wager the Royal 9 wager is taken


def test_an_unknown_persona_is_refused_and_every_persona_has_a_declaration_or_none() -> None:
    with pytest.raises(InputError, match="persona 'fixed-config': unknown"):
        EmulatorConfig.from_mapping(profile(persona="fixed-config"))
    writes = {n: p.config_writes for n, p in PERSONAS.items()}
    assert writes["fixed-configuration"] is not None and set(writes["fixed-configuration"].values()) == {"never"}
    assert writes["lockout-at-the-limit"] is None
    # without a timing section: 4/5 of the profile's default 1 ms deadline
    assert Decimal(apply_persona(profile(), "lockout-at-the-limit")["emulator"]["lockout_latency_ms"]) == Decimal("0.8")


def test_reordered_events_reports_the_last_card_after_the_round_end() -> None:
    for persona, last_card_first in (("reordered-events", False), (None, True)):
        with bench(mapping=profile(**({"persona": persona} if persona else {}))) as b:
            b.ok("controller", "round.open")
            b.wager(1, "player", 500)
            b.deal(PLAIN_NATURAL)
            b.wait_for("round_end")
            deadline = time.monotonic() + 2.0
            while len(b.named("card")) < 4 and time.monotonic() < deadline:
                time.sleep(0.001)
            names = [ev["event"] for role, ev in b.events if (role == "shoe" and ev["event"] == "card")
                     or ev["event"] == "round_end"]
            assert names.count("card") == 4
            assert (names.index("round_end") == 4) is last_card_first, names


def test_at_every_limit_takes_four_fifths_of_each_limit_the_profile_states() -> None:
    data = apply_persona({**profile(), "timing": {"lockout_deadline_ms": "2.0", "comm_timeout_ms": "250",
                                                  "response_timeout_ms": "50"}}, "at-every-limit")
    emu = data["emulator"]
    assert (emu["lockout_latency_ms"], emu["answer_latency_ms"], emu["comm_loss_latency_ms"]) == \
        ("1.60", "40.00", "200.00")  # the answer: 4/5 of the shorter of 100 ms (the contract) and the host's 50
    del emu["lockout_latency_us"]
    cfg = EmulatorConfig.from_mapping(data)
    assert (cfg.lockout_latency_us, cfg.answer_latency_us, cfg.comm_loss_latency_us) == (1600, 40_000, 200_000)
    # without a timing section: the profile's defaults (1 ms, 2000 ms against the contract's 100 ms, 500 ms)
    emu = apply_persona(profile(), "at-every-limit")["emulator"]
    assert (emu["lockout_latency_ms"], emu["answer_latency_ms"], emu["comm_loss_latency_ms"]) == \
        ("0.80", "80.00", "400.00")
    assert (EmulatorConfig.from_mapping(profile()).answer_latency_us,
            EmulatorConfig.from_mapping(profile()).comm_loss_latency_us) == (0, 0)


def test_at_every_limit_notices_a_lost_link_late_and_the_sensors_refuse_wagers_at_once() -> None:
    with bench(mapping=profile(persona="at-every-limit", comm_loss_latency_ms="30")) as b:
        b.ok("controller", "round.open")
        b.ok("controller", "test.link", up=False)
        assert b.wager(1, "player") == "comm-lost"  # the wager cannot cross the cut link
        assert b.table.controller.comm_timer is not None  # the controller has not noticed yet
        deadline = time.monotonic() + 2
        while not any(e["cause"] == "comm-lost" for e in b.named("lockout")) and time.monotonic() < deadline:
            time.sleep(0.001)
        assert b.named("lockout")[-1] == {"event": "lockout", "locked": True, "cause": "comm-lost"}
        assert b.ok("controller", "test.state")["locked"] is True
    with bench(mapping=profile(comm_loss_latency_ms="60000")) as b:  # back before the controller noticed
        b.ok("controller", "round.open")
        b.ok("controller", "test.link", up=False)
        b.ok("controller", "test.link", up=True)
        assert b.table.controller.comm_timer is None and b.table.clock.pending() == 0
        assert b.ok("controller", "test.state")["locked"] is False
    with bench() as ref:  # the reference notices at once
        ref.ok("controller", "round.open")
        ref.ok("controller", "test.link", up=False)
        assert ref.named("lockout")[-1] == {"event": "lockout", "locked": True, "cause": "comm-lost"}


def test_at_every_limit_answers_late_but_acts_at_once_and_the_test_channel_is_not_delayed(tmp_path: Path) -> None:
    server = EmulatorServer(EmulatorConfig.from_mapping(profile(answer_latency_ms="80")), "tcp", tmp_path)
    try:
        line = server.lines["controller"]
        sent: list[bytes] = []
        scheduled: list[tuple[int, Any]] = []
        line.reply = sent.append  # type: ignore[method-assign]
        server.table.clock.at = lambda due, cb: scheduled.append((due, cb)) or 0  # type: ignore[method-assign]
        before = time.perf_counter_ns()
        line.answer(Frame(REQ, 7, {"cmd": "round.open"}))
        assert server.table.controller.phase == "open"  # the request took effect on arrival
        assert sent == [] and len(scheduled) == 1 and scheduled[0][0] >= before + 80_000_000
        scheduled[0][1](scheduled[0][0], scheduled[0][0])
        assert len(sent) == 1 and b'"round"' in sent[0]
        line.answer(Frame(REQ, 8, {"cmd": "test.state"}))  # the emulator-only channel answers at once
        assert len(sent) == 2 and len(scheduled) == 1
    finally:
        server.table.close()


def test_contract_version_1_speaks_the_oldest_version_with_its_shapes() -> None:
    assert PROTOCOL_VERSIONS[0] == 1
    data = apply_persona(profile(), "contract-version-1")
    assert data["emulator"]["contract_version"] == 1
    assert EmulatorConfig.from_mapping(profile(persona="contract-version-1")).contract_version == 1
    assert EmulatorConfig.from_mapping(profile(persona="contract-version-1", contract_version=2)).contract_version == 2
    with bench(mapping=data) as b:
        # a version-1 device reads `version` only: NAK VERSION, then the host offers version 1 alone
        assert b.refused("controller", "hello", version=2, versions=[2, 1]).code == "VERSION"
        assert b.ok("controller", "hello", version=1) == {"protocol": 1, "role": "controller"}
    with bench() as ref:
        assert ref.ok("controller", "hello", version=2, versions=[2, 1])["protocol"] == 2


def test_a_profile_refuses_an_emulated_latency_at_or_past_its_limit() -> None:
    from harness.profiles import load_profile_text

    base = (ROOT / "device_profiles" / "emulated-midi-5.yaml").read_text()
    for key, value, limit in (("answer_latency_ms", "100", "100 ms"),
                              ("comm_loss_latency_ms", "500", "comm_timeout_ms")):
        text = base.replace("emulator:\n", f"emulator:\n  {key}: \"{value}\"\n", 1)
        with pytest.raises(InputError, match=limit):
            load_profile_text(text, "late.yaml")
        ok = load_profile_text(base.replace("emulator:\n", f"emulator:\n  {key}: \"{int(value) - 1}\"\n", 1), "ok.yaml")
        assert getattr(ok.emulator, key) == int(value) - 1
