"""The steps of harness/suites/steps/wire.py on fake devices and events (no emulator): what each
judges a FAIL and what it lets pass (the cases themselves are proven on the independent table's
third set of faults, tests/independent/FAULTS3.md)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from harness.devices.link import DeviceEvent, DeviceNak, Reply
from harness.devices.transcript import IN, OUT, Transcript
from harness.suites.steps import sweeps, wire

STEP = SimpleNamespace(clause=None)

CONFIG = {
    "game": "midibaccarat", "denomination": 500, "decks": 8, "commission": "5", "hit_soft17": None,
    "seats": [{"seat": 1, "combo": ["KS", "9S"]}, {"seat": 2, "combo": None}],
    "meters": {"major": {"rate": "0.5", "initial": 45_000, "reset": 45_000, "payout_limit": 1_000_000,
                         "display_capacity": 9_999_999}},
    "mystery": None,
}


class Measures(list[tuple[str, Any, Any, bool]]):
    def failed(self) -> list[str]:
        return [name for name, _v, _l, ok in self if not ok]


def _runner(rig: Any, profile: Any = None, events: list[DeviceEvent] | None = None) -> Any:
    out = Measures()

    def measure(step: Any, name: str, value: Any, limit: Any, passed: bool, **kw: Any) -> None:
        out.append((name, value, limit, passed))

    reading = SimpleNamespace(meters={"major": 45_000}, pending=())
    return SimpleNamespace(rig=rig, measure=measure, measured=out, pump=lambda t=0.0: None,
                           controller=lambda: rig.controller, read_meters=lambda: reading,
                           profile=profile or SimpleNamespace(devices={}, game="midibaccarat"),
                           round=SimpleNamespace(ctrl_events=events or []))


# --------------------------------------------------------------------------- identity


class Ident:
    def __init__(self, **fields: str) -> None:
        self.fields = fields

    def to_dict(self) -> dict[str, str]:
        return dict(self.fields)


def _dev(**fields: str) -> Any:
    return SimpleNamespace(identity=lambda: Ident(**fields))


def test_a_device_reporting_another_devices_serial_fails_both() -> None:
    rig = SimpleNamespace(shoe=_dev(manufacturer="M", serial="S-1"), sensors=_dev(manufacturer="M", serial="S-1"),
                          controller=_dev(manufacturer="M", serial="C-1"))
    runner = _runner(rig)
    wire.expect_identity_serials(runner, STEP)
    assert runner.measured.failed() == ["shoe serial its own (no other device of the table reports it)",
                                        "sensors serial its own (no other device of the table reports it)"]


def test_one_serial_string_of_two_manufacturers_is_two_serials() -> None:
    rig = SimpleNamespace(shoe=_dev(manufacturer="A", serial="0001"), sensors=_dev(manufacturer="B", serial="0001"),
                          controller=None)
    runner = _runner(rig)
    wire.expect_identity_serials(runner, STEP)
    assert runner.measured.failed() == []


def test_identity_is_held_to_what_the_profile_pins() -> None:
    rig = SimpleNamespace(shoe=_dev(manufacturer="M", serial="S-2"), sensors=None, controller=None)
    profile = SimpleNamespace(devices={"shoe": SimpleNamespace(match={"serial": "S-1", "usb_serial": "FT1"})},
                              game="midibaccarat")
    runner = _runner(rig, profile)
    wire.expect_identity_serials(runner, STEP)
    assert runner.measured.failed() == ["shoe identity against the profile's match (serial)"]


# --------------------------------------------------------------------------- config.set answers


class Controller:
    """Takes every write; ``stale`` answers the meters as they were before it (the fault)."""

    def __init__(self, stale: bool = False, refuse: tuple[str, ...] = ()) -> None:
        import copy

        self.raw = copy.deepcopy(CONFIG)
        self.stale = stale
        self.refuse = refuse
        self.link = object()

    def call(self, cmd: str, **args: Any) -> Reply:
        import copy

        if cmd == "config.get":
            return Reply({"ok": True, **copy.deepcopy(self.raw)}, 1, 0, 1)
        assert cmd == "config.set"
        if any(k in self.refuse for k in args):
            raise DeviceNak(cmd, "REFUSED", "not writable", 1)
        before = copy.deepcopy(self.raw)
        for k, v in args.items():
            if k == "meters":
                for m, f in v.items():
                    self.raw["meters"][m].update(f)
            else:
                self.raw[k] = v
        answer = copy.deepcopy(self.raw)
        if self.stale:
            answer["meters"] = before["meters"]
        return Reply({"ok": True, **answer}, 1, 0, 1)


def test_every_field_is_written_with_another_value_and_back() -> None:
    writes = {label: (w, back) for label, w, back in wire.config_writes(CONFIG, {"major": 45_000})}
    assert set(writes) == {"decks", "commission", "denomination", "meters.major.rate", "meters.major.initial",
                           "meters.major.reset", "meters.major.payout_limit", "meters.major.display_capacity",
                           "seats"}
    assert writes["meters.major.rate"] == ({"meters": {"major": {"rate": "0.6"}}},
                                           {"meters": {"major": {"rate": "0.5"}}})
    # a reset amount is never written above what the meter shows
    assert writes["meters.major.reset"][0] == {"meters": {"major": {"reset": 44_999}}}
    assert wire.config_writes(CONFIG, {"major": 45_100})[5][1] == {"meters": {"major": {"reset": 45_001}}}


def test_an_answer_that_is_not_the_configuration_as_it_stands_fails() -> None:
    runner = _runner(SimpleNamespace(controller=Controller(stale=True)))
    wire.expect_config_set_answers(runner, STEP)
    failed = runner.measured.failed()
    assert failed and all(name.startswith("config.set meters.major.") for name in failed)
    assert any("another value" in name for name in failed)


def test_a_controller_answering_as_it_stands_passes_and_refusals_pass() -> None:
    runner = _runner(SimpleNamespace(controller=Controller(refuse=("denomination", "seats"))))
    wire.expect_config_set_answers(runner, STEP)
    assert runner.measured.failed() == []
    assert not any("denomination" in name for name, *_ in runner.measured)


def test_decimal_strings_compare_by_value_and_vendor_fields_are_ignored() -> None:
    assert wire._differences(wire._norm({"x-written-at": "1", "decks": 8}), wire._norm({"x-written-at": "2",
                                                                                      "decks": 8})) == []
    assert wire._differences(wire._norm({"rate": "0.50"}), wire._norm({"rate": "0.5"})) == []
    assert wire._differences(wire._norm({"m": {"rate": "0.6"}}), wire._norm({"m": {"rate": "0.5"}})) \
        == ["m.rate: answered Decimal('0.6'), config.get Decimal('0.5')"]


# --------------------------------------------------------------------------- answer times


def _transcript(*exchanges: tuple[dict[str, Any], str, float]) -> Transcript:
    t = Transcript("controller", t0_ns=0)
    now = 0
    for seq, (payload, answer, ms) in enumerate(exchanges, start=1):
        t.add(OUT, "frame", t_ns=now, type="REQ", seq=seq, payload=payload)
        now += int(ms * 1_000_000)
        nak = answer != "RSP"
        t.add(IN, "frame", t_ns=now, type="NAK" if nak else "RSP", seq=seq,
              payload={"code": answer} if nak else {"ok": True})
        now += 1_000
    return t


def test_answer_times_by_kind_fields_written_and_answer() -> None:
    t = _transcript(({"cmd": "config.set", "meters": {"major": {"rate": "0.6"}}}, "RSP", 250.0),
                    ({"cmd": "config.set", "decks": 9}, "RSP", 1.0),
                    ({"cmd": "reset_key", "meter": "major"}, "REFUSED", 1.0),
                    ({"cmd": "reset_key", "meter": "major"}, "RSP", 120.0),
                    ({"cmd": "test.deal", "count": 4}, "RSP", 500.0))
    kinds = wire.answer_times(t.entries)
    assert set(kinds) == {"config.set meters.major.rate (ok)", "config.set decks (ok)", "reset_key (REFUSED)",
                          "reset_key (ok)"}
    assert kinds["config.set meters.major.rate (ok)"][0][0] == 250_000_000


def test_write_answer_times_fail_a_slow_kind_and_leave_one_slow_sample_inconclusive(monkeypatch: Any) -> None:
    t = _transcript(*([({"cmd": "config.set", "meters": {"major": {"rate": "0.6"}}}, "RSP", 250.0)] * 3),
                    *([({"cmd": "round.open"}, "RSP", 2.0)] * 3),
                    ({"cmd": "reset_key", "meter": "major"}, "RSP", 150.0))
    line = SimpleNamespace(link=SimpleNamespace(transcript=t), call=lambda *a, **k: None)
    rig = SimpleNamespace(shoe=None, sensors=None, controller=line)
    judged: list[tuple[str, bool, bool]] = []

    def measure(step: Any, name: str, value: Any, limit: Any, passed: bool, **kw: Any) -> None:
        judged.append((name, passed, kw.get("advisory", False)))

    runner = SimpleNamespace(rig=rig, measure=measure, pump=lambda t=0.0: None, transcript_marks={})
    monkeypatch.setattr(wire, "_sweep_writes", lambda runner, tries: None)  # the case's requests alone
    wire.expect_write_answer_times(runner, STEP)
    verdicts = {name: (passed, advisory) for name, passed, advisory in judged}
    assert verdicts["controller answers config.set meters.major.rate (ok) (fastest of 3)"] == (False, False)
    assert verdicts["controller answers round.open (ok) (fastest of 3)"] == (True, False)
    assert verdicts["controller answers reset_key (ok) (fastest of 1)"] == (False, True)


# --------------------------------------------------------------------------- the order of a round's events


def _ev(name: str, seq: int, **payload: Any) -> DeviceEvent:
    return DeviceEvent(name, payload, seq, seq)


def _round(*settlement: DeviceEvent, lockout_at: int = 1) -> list[DeviceEvent]:
    evs = [_ev("lockout", 0, locked=False, cause="round-open"), *settlement, _ev("round_end", 90, round=1)]
    evs.insert(lockout_at, _ev("lockout", 1, locked=True, cause="card"))
    return evs


def _faults(events: list[DeviceEvent], **kw: Any) -> dict[str, list[str]]:
    return {k: v for k, v in wire.settlement_order_faults(events, hit_and_run=kw.get("hr", False),
                                                          linked=kw.get("linked", set())).items() if v}


def test_a_settlement_in_seat_order_base_before_royal9_passes() -> None:
    events = _round(_ev("payout", 2, seat=1, type="player"), _ev("payout", 3, seat=1, type="banker"),
                    _ev("payout", 4, seat=3, type="player"), _ev("hit", 5, seat=1, category="royal9", meter=None),
                    _ev("payout", 6, seat=1, type="royal9"), _ev("payout", 7, seat=3, type="royal9"))
    assert _faults(events) == {}


def test_payouts_in_placement_order_fail() -> None:
    events = _round(_ev("payout", 2, seat=3, type="player"), _ev("payout", 3, seat=1, type="player"))
    assert list(_faults(events)) == ["seat-order"]
    royal9_first = _round(_ev("payout", 2, seat=1, type="royal9"), _ev("payout", 3, seat=2, type="player"))
    assert list(_faults(royal9_first)) == ["seat-order"]


def test_hit_and_run_goes_seat_by_seat() -> None:
    events = _round(_ev("payout", 2, seat=1, type="hit-and-run"), _ev("payout", 3, seat=1, type="blackjack"),
                    _ev("payout", 4, seat=2, type="blackjack"))
    assert _faults(events, hr=True) == {}


def test_a_lockout_after_the_round_it_closed_fails() -> None:
    events = _round(_ev("payout", 2, seat=1, type="player"), lockout_at=3)
    assert list(_faults(events)) == ["lockout"]
    none = [e for e in _round(_ev("payout", 2, seat=1, type="player")) if not (e.name == "lockout" and e.seq == 1)]
    assert list(_faults(none)) == ["lockout"]


def test_a_lockout_by_the_dealers_call_before_the_call_itself_fails() -> None:
    call = _ev("no_more_bets", 1, round=1)
    closed = _ev("lockout", 2, locked=True, cause="no-more-bets")
    paid = _ev("payout", 3, seat=1, type="player")
    opened = _ev("lockout", 0, locked=False, cause="round-open")
    end = _ev("round_end", 90, round=1)
    assert _faults([opened, call, closed, paid, end]) == {}
    assert _faults([opened, closed, call, paid, end]) == {
        "lockout": ["lockout cause no-more-bets (SEQ 2) before the no_more_bets event (SEQ 1)"]}
    by_card = _ev("lockout", 2, locked=True, cause="card")
    assert _faults([opened, by_card, call, paid, end]) == {}  # a lock-out of another cause is not the call's


def test_a_hit_not_followed_by_its_payout_and_a_payout_after_round_end_fail() -> None:
    events = _round(_ev("hit", 2, seat=2, category="royal9", meter=None), _ev("payout", 3, seat=1, type="royal9"),
                    _ev("payout", 4, seat=2, type="royal9"))
    assert "hit-payout" in _faults(events)
    late = [*_round(_ev("payout", 2, seat=1, type="player")), _ev("payout", 91, seat=2, type="player")]
    assert list(_faults(late)) == ["round-end-last"]
    twice = [*_round(_ev("payout", 2, seat=1, type="player")), _ev("round_end", 91, round=1)]
    assert _faults(twice) == {"round-end-last": ["round_end again (SEQ 91, round 1)"]}


def test_mystery_and_linked_awards_are_not_the_settlements() -> None:
    events = _round(_ev("hit", 2, seat=4, category="mystery", meter="mystery"),
                    _ev("payout", 3, seat=4, type="royal9", category="mystery"),
                    _ev("payout", 4, seat=1, type="player"), _ev("payout", 5, seat=1, type="royal9"))
    linked = [*_round(_ev("payout", 2, seat=1, type="player")),
              _ev("hit", 91, seat=3, category="mega", meter="mega"),
              _ev("payout", 92, seat=3, type="royal9", category="mega")]
    assert _faults(events) == {}
    assert _faults(linked, linked={"mega"}) == {}


def test_answer_limit_is_the_protocols() -> None:
    assert Decimal(100) == sweeps.ANSWER_LIMIT_MS
