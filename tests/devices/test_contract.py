"""The protocol contract (docs/protocol.md, harness/devices/protocol.schema.json): complete, shipped as
built, and held to what the emulators send, what the drivers ask and what the suites read.

* The schema is a valid Draft 2020-12 schema and the shipped file is the one the vocabularies build.
* Sessions with every emulator kind (tests/devices/contract_corpus.py) send every message kind the
  schema defines, and every frame of them (requests included) is valid by the ``jsonschema``
  library; the drivers' compiled check agrees with the library on each and on mutations of each.
* An emulator that adds a field the schema does not have is caught, naming the field.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from contract_corpus import Message, profile_config, record, served
from jsonschema import Draft202012Validator

from harness.devices import schema_build
from harness.devices.contract import Contract, ContractError, schema
from harness.emulators import settle

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Message]:
    return record(tmp_path_factory.mktemp("contract"))


@pytest.fixture(scope="module")
def contract() -> Contract:
    return Contract()


def test_schema_is_draft_2020_12_and_shipped_as_built() -> None:
    document = schema()
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    shipped = (Path(schema_build.__file__).with_name("protocol.schema.json")).read_text(encoding="utf-8")
    assert shipped == schema_build.render(), "protocol.schema.json is stale: python -m harness.devices.schema_build"
    assert schema_build.main(["--check"]) == 0


def test_the_sessions_send_every_message_kind_of_the_schema(corpus: list[Message], contract: Contract) -> None:
    sent = {m.definition for m in corpus}
    missing = sorted(set(contract.definitions()) - sent)
    assert not missing, f"no session sends {missing}: add them to tests/devices/contract_corpus.py"
    assert len(corpus) > 300


def test_every_frame_of_the_sessions_is_in_the_schema(corpus: list[Message], contract: Contract) -> None:
    problems = []
    for m in corpus:
        assert m.definition in contract.definitions(), f"{m.role} {m.definition}: not a message of the schema"
        found = contract.explain(m.definition, m.payload)  # the library's own verdict
        if found is not None:
            problems.append(f"{m.role} {m.definition} {json.dumps(m.payload)}: at {found[0]}: {found[1]}")
        if m.definition.startswith("event:"):
            assert contract.check_event(m.role, m.role, m.payload) is None
    assert not problems, "\n".join(problems[:20])


def _mutations(payload: dict[str, Any]) -> list[Any]:
    out: list[Any] = [dict(payload, unexpected=1), dict(payload, **{"x-vendor": {"any": 1}}), [], "text", None]
    for key, value in payload.items():
        out.append({k: v for k, v in payload.items() if k != key})
        for other in ("7", 7, -1, None, True, [], {}, {"x": 1}):
            if other != value or type(other) is not type(value):
                out.append(dict(payload, **{key: other}))
        if isinstance(value, dict) and value:
            inner = next(iter(value))
            out.append(dict(payload, **{key: {**value, inner: "?"}}))
            out.append(dict(payload, **{key: {**value, "unexpected": 0}}))
        if isinstance(value, list) and value:
            out.append(dict(payload, **{key: [*value, "?"]}))
            if isinstance(value[0], dict):
                first = dict(value[0])
                first.popitem()
                out.append(dict(payload, **{key: [first, *value[1:]]}))
    return out


def test_the_compiled_check_agrees_with_jsonschema(corpus: list[Message], contract: Contract) -> None:
    seen: set[tuple[str, str]] = set()
    compared = 0
    for m in corpus:
        key = (m.definition, json.dumps(m.payload, sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        library = contract._validator(m.definition)
        for candidate in [m.payload, *_mutations(m.payload)]:
            fast = contract.problem(m.definition, candidate) is None or contract.explain(m.definition,
                                                                                          candidate) is None
            compiled = contract._compiler.definition(m.definition)(candidate)
            assert compiled == library.is_valid(candidate), (m.definition, candidate)
            assert fast == library.is_valid(candidate)
            compared += 1
    assert compared > 5000


def test_a_field_an_emulator_sends_without_the_schema_is_caught_naming_it(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The field is noted and kept for the record, and raises where it is read; the reading's own
    fields read as sent (nothing in the model needs the extra field)."""
    real = settle.meters_get

    def with_extra(ctrl: Any, req: Any) -> Any:
        return {**real(ctrl, req), "jackpots_today": 3}

    monkeypatch.setattr(settle, "meters_get", with_extra)
    with served(profile_config("emulated-midi-5", tmp_path), tmp_path / "run") as table:
        reading = table.controller.meters()
        assert set(reading.meters) == {"mega", "major", "minor"}
        with pytest.raises(ContractError) as err:
            reading.raw.get("jackpots_today")
        assert err.value.path == "jackpots_today"
        assert "reply to meters.get" in str(err.value) and "jackpots_today" in str(err.value)
        assert "contract: " in "\n".join(e.text for e in table.controller.transcript.entries)
        assert list(table.controller.link.contract_seen) == [("reply:meters.get", "jackpots_today")]
        table.controller.ping()  # the device still answers: the run goes on


# --------------------------------------------------------------------------- a peer outside the contract


def _frame(kind: int, seq: int, payload: dict[str, Any]) -> bytes:
    from harness.devices.framing import encode_frame

    return encode_frame(kind, seq, payload)


def _req(seq: int, cmd: str, **args: Any) -> bytes:
    from harness.devices.framing import REQ

    return _frame(REQ, seq, {"cmd": cmd, **args})


def _rsp(seq: int, **body: Any) -> bytes:
    from harness.devices.framing import RSP

    return _frame(RSP, seq, {"ok": True, **body})


def _evt(seq: int, **body: Any) -> bytes:
    from harness.devices.framing import EVT

    return _frame(EVT, seq, body)


METERS = {"meters": {"mega": 5000000}, "residual": {"mega": "0"}, "cumulative_paid": 0, "paid_by_table": 0,
          "paid_by_attendant": 0, "pending": []}
PAYOUT = {"event": "payout", "seat": 1, "type": "royal9", "category": "royal9", "stake": 500, "returned": 3000,
          "paid_by": "table"}


def test_a_mistyped_field_costs_only_its_reader_and_is_kept_once_per_kind_and_field(pty_end: Any) -> None:
    """A meter reading whose ``meters`` is outside the contract is still delivered: reading
    ``meters`` raises the error naming the path, the payout meters and ``pending`` read as sent.  The
    link keeps one entry per message kind and field, counting the messages."""
    from harness.devices.drivers.reference import ReferenceController

    bad = {**METERS, "meters": {"mega": "5000000"}, "cumulative_paid": 7}
    peer = pty_end.peer([
        (_req(1, "hello", version=2, versions=[2, 1]), _rsp(1, protocol=2, role="controller")),
        (_req(2, "meters.get"), _rsp(2, **bad)),
        (_req(3, "meters.get"), _rsp(3, **bad)),
        (_req(4, "meters.get"), _rsp(4, **METERS)),
    ])
    with ReferenceController.open(pty_end.path) as ctl:
        reading = ctl.meters()
        with pytest.raises(ContractError) as err:
            reading.meters  # noqa: B018 - the read is the point
        assert err.value.path == "meters.mega"
        assert "is not of type 'integer'" in str(err.value) and "reply to meters.get" in str(err.value)
        assert (reading.cumulative_paid, reading.pending) == (7, ())  # the rest reads as sent
        assert any("contract: " in e.text and "meters.mega" in e.text for e in ctl.transcript.entries)
        with pytest.raises(ContractError):
            ctl.meters().meters  # noqa: B018
        assert ctl.meters().meters == {"mega": 5000000}  # the next answer is judged on its own
        seen = ctl.link.contract_seen
        assert list(seen) == [("reply:meters.get", "meters.mega")] and seen[("reply:meters.get", "meters.mega")][1] == 2
    peer.check()


def test_a_required_field_missing_costs_only_its_reader(pty_end: Any) -> None:
    """``pending`` left out of a version-2 reading: the meters read as sent, ``pending`` raises."""
    from harness.devices.drivers.reference import ReferenceController

    peer = pty_end.peer([
        (_req(1, "hello", version=2, versions=[2, 1]), _rsp(1, protocol=2, role="controller")),
        (_req(2, "meters.get"), _rsp(2, **{k: v for k, v in METERS.items() if k != "pending"})),
    ])
    with ReferenceController.open(pty_end.path) as ctl:
        reading = ctl.meters()
        assert reading.meters == {"mega": 5000000}
        with pytest.raises(ContractError, match="at 'pending': missing"):
            reading.pending  # noqa: B018
        with pytest.raises(ContractError, match="at 'pending': missing"):
            reading.raw.get("pending")
    peer.check()


def test_an_event_field_outside_the_contract_costs_its_reader_and_an_unknown_event_the_next_read(
        pty_end: Any) -> None:
    """A payout whose category is outside the contract is delivered: its category raises when read,
    its other fields read as sent.  An event the role does not send cannot be read at all: the next
    read of the events raises it."""
    from harness.devices.drivers.reference import ReferenceController

    peer = pty_end.peer([
        (_req(1, "hello", version=2, versions=[2, 1]), [_rsp(1, protocol=2, role="controller"),
                                                         _evt(1, **{**PAYOUT, "category": "jackpot"}),
                                                         _evt(2, event="card", card="KS", n=1),
                                                         _evt(3, **PAYOUT)]),
    ])
    with ReferenceController.open(pty_end.path) as ctl:
        deadline = time.monotonic() + 2.0
        while len([e for e in ctl.transcript.entries if e.kind == "frame"]) < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(ContractError) as unknown:
            ctl.events()
        assert "a controller sends no such event" in str(unknown.value)
        off, good = ctl.events()
        assert off.payload["seat"] == 1 and off.payload.get("returned") == 3000
        with pytest.raises(ContractError) as first:
            off.payload["category"]
        assert first.value.path == "category" and "'payout' event" in str(first.value)
        assert good.payload == PAYOUT
    peer.check()


def test_one_compiler_serves_threads_that_open_devices_at_once() -> None:
    """The tables of a link open their drivers in parallel threads, all compiling from one schema:
    no thread may take another's definition in progress for a self-reference (seen as a reader
    thread stopping with "refers to itself" on a loaded CI host)."""
    import threading

    from harness.devices.schema_check import Compiler

    names = sorted(n for n in schema()["$defs"] if ":" in n)

    def compile_all(compiler: Compiler, start: threading.Barrier, order: list[str],
                    errors: list[BaseException]) -> None:
        start.wait()
        for name in order:
            try:
                compiler.definition(name)
            except BaseException as exc:
                errors.append(exc)

    for _ in range(5):
        compiler = Compiler(schema())
        start = threading.Barrier(8)
        errors: list[BaseException] = []
        threads = [threading.Thread(target=compile_all,
                                    args=(compiler, start, names[i % 2::2] + names[1 - i % 2::2], errors))
                   for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not errors, errors[:3]
        assert all(compiler.definition(n) is compiler.definition(n) for n in names)


def test_a_strict_link_fails_the_request_on_a_field_outside_the_contract_read_or_not(pty_end: Any) -> None:
    """The explorer compares every field: on a strict link a `lockout.press` answered `locked: false` (the
    contract's `const: true`) fails the request itself, though the driver never reads `locked`."""
    from harness.devices.drivers.reference import ReferenceController

    peer = pty_end.peer([
        (_req(1, "hello", version=2, versions=[2, 1]), _rsp(1, protocol=2, role="controller")),
        (_req(2, "lockout.press"), _rsp(2, locked=False)),
        (_req(3, "lockout.press"), _rsp(3, locked=False)),
    ])
    with ReferenceController.open(pty_end.path) as ctl:
        ctl.press_lockout()  # lenient: the field nobody reads costs nothing
        ctl.link.strict = True
        with pytest.raises(ContractError) as err:
            ctl.press_lockout()
        assert err.value.path == "locked" and "reply to lockout.press" in str(err.value)
    peer.check()
