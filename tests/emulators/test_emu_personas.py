"""Each persona (harness.emulators.personas) really behaves as it says, and the reference does not."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from emu_helpers import PLAIN_NATURAL, bench, profile

from harness.emulators.config import EmulatorConfig
from harness.emulators.personas import PERSONAS, apply_persona
from harness.errors import InputError

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
    assert Decimal(apply_persona(profile(), "lockout-at-the-limit")["emulator"]["lockout_latency_ms"]) == 4


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
