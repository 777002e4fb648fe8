"""The contract check: every message a reference driver receives is held to the schema of the contract
version its device negotiated (``protocol.schema.json`` the newest, ``protocol-<n>.schema.json`` an
older one).

docs/protocol.md says what a compliant device sends; the schema says it field by field (built from
:mod:`harness.devices.vocabulary` by :mod:`harness.devices.schema_build`, shipped as package data).
The link calls :meth:`Contract.checker`'s function on every RSP, NAK and EVT it decodes, in its
reading thread (the receive stamp is already taken).  A message outside the contract becomes a
:class:`ContractError`, a :class:`~harness.errors.DeviceError` naming the message, the field path and
what is wrong with it, with one error per top-level field at fault (``parts``).  The fault stays with
its field: the message is delivered as an :class:`OffContract` payload, whose faulty fields raise
their error when read and whose other fields read as sent, so a case that needs nothing from those
fields goes on and one that reads them ends ERROR naming the field (``expect_event`` compares the
fields it matches as sent: such a field fits no wanted value, a FAIL of that step).  Only a message that cannot be
read at all (not an object, no ``ok``, a NAK, an event this role does not send) fails whole.  The
link notes every violation in the transcript and keeps them by message kind and field for the
record's contract findings (:mod:`harness.record.contract_findings`).

Speed: a compiled yes/no check (:mod:`harness.devices.schema_check`) passes valid messages in a few
µs; only when it says no is the ``jsonschema`` library asked, and its verdict and wording decide.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

from harness.devices.framing import EVT, NAK, RSP
from harness.devices.schema_check import Check, Compiler
from harness.devices.vocabulary import PROTOCOL_VERSION, PROTOCOL_VERSIONS
from harness.errors import DeviceError

SCHEMA_FILE = "protocol.schema.json"
#: how the schema is cited in an error (it ships inside the package)
SCHEMA_CITED = "harness/devices/protocol.schema.json"


def schema_file(version: int = PROTOCOL_VERSION) -> str:
    """The shipped file of contract ``version``: the newest is ``protocol.schema.json``."""
    if version not in PROTOCOL_VERSIONS:
        raise ValueError(f"protocol version {version!r}: tablecert speaks {', '.join(map(str, PROTOCOL_VERSIONS))}")
    return SCHEMA_FILE if version == PROTOCOL_VERSION else f"protocol-{version}.schema.json"
_VALUE_LIMIT = 80

#: (frame type, the command answered or None, payload) -> the violation or None
Checker = Callable[[int, "str | None", Mapping[str, Any]], "ContractError | None"]


class ContractError(DeviceError):
    """A device sent a message outside docs/protocol.md: which message, where in it, what is wrong."""

    def __init__(self, device: str, message: str, path: str, problem: str, definition: str,
                 version: int = PROTOCOL_VERSION) -> None:
        cited = f"harness/devices/{schema_file(version)}"
        super().__init__(f"{device}: {message} is outside the protocol contract at '{path}': {problem} "
                         f"(docs/protocol.md version {version}; {cited} #/$defs/{definition})")
        self.version = version
        #: top-level field -> the error of that field ("" for the message as a whole)
        self.parts: dict[str, ContractError] = {}
        self.device = device
        self.message = message
        self.path = path
        self.problem = problem
        self.definition = definition

    @property
    def whole(self) -> bool:
        """The message cannot be read at all: not an object, no ``ok``, or no field to blame."""
        return not self.parts or "" in self.parts or "ok" in self.parts or "event" in self.parts


class OffContract(dict[str, Any]):
    """A payload some of whose top-level fields are outside the contract: reading one of those
    (``[key]`` or ``get``, sent or missing) raises its :class:`ContractError`; every other field
    reads as sent.  Copies that must keep the faults use :meth:`without`."""

    def __init__(self, data: Mapping[str, Any], broken: Mapping[str, ContractError]) -> None:
        super().__init__(data)
        self.broken = dict(broken)

    def __getitem__(self, key: str) -> Any:
        error = self.broken.get(key)
        if error is not None:
            raise error
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        error = self.broken.get(key)
        if error is not None:
            raise error
        return super().get(key, default)

    def without(self, *keys: str) -> OffContract:
        return OffContract({k: v for k, v in super().items() if k not in keys}, self.broken)


def as_sent(payload: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """``payload[key]`` as the device sent it, never raising: for the harness's own bookkeeping (which
    lock-out causes a round saw), which must not turn a field outside the contract into an ERROR of
    a case that never asked for that field."""
    return dict.get(payload, key, default) if isinstance(payload, dict) else payload.get(key, default)


def fields_of(payload: Mapping[str, Any], *drop: str) -> dict[str, Any]:
    """``payload`` without ``drop`` (``ok``), keeping the faults of an :class:`OffContract` payload."""
    if isinstance(payload, OffContract):
        return payload.without(*drop)
    return {k: v for k, v in payload.items() if k not in drop}


@functools.cache
def schema(version: int = PROTOCOL_VERSION) -> dict[str, Any]:
    """The shipped schema document of contract ``version`` (the newest by default)."""
    text = resources.files("harness.devices").joinpath(schema_file(version)).read_text(encoding="utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


def field_path(parts: Any) -> str:
    """``meters.mega``, ``wagers[0].seat``; the whole payload is ``(payload)``."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(payload)"


def _local(pointer: str) -> str:
    """``#/$defs/reply:hello`` -> ``reply:hello``."""
    return pointer.removeprefix("#/$defs/")


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _VALUE_LIMIT else text[: _VALUE_LIMIT - 3] + "..."


class Contract:
    """Validators for every message kind of one schema document (the shipped one by default)."""

    def __init__(self, document: Mapping[str, Any] | None = None) -> None:
        self.document = document if document is not None else schema()
        self.version = int(self.document.get("x-version", PROTOCOL_VERSION))
        self.messages: Mapping[str, Any] = self.document["x-messages"]
        self._compiler = Compiler(self.document)
        self._fast: dict[str, Check] = {}
        self._library: dict[str, Any] = {}

    @classmethod
    @functools.cache
    def shipped(cls, version: int = PROTOCOL_VERSION) -> Contract:
        """The contract of ``version`` as shipped (one instance per version: compiled checks are shared)."""
        return cls(schema(version))

    # ------------------------------------------------------------------ one message

    def definitions(self) -> list[str]:
        """Every message kind: ``request:<cmd>``, ``reply:<cmd>``, ``event:<name>``, ``nak``."""
        return [name for name in self.document["$defs"] if ":" in name or name == "nak"]

    def problem(self, definition: str, payload: Any) -> tuple[str, str] | None:
        """``(field path, what is wrong)`` when ``payload`` breaks ``#/$defs/<definition>``, else None."""
        fast = self._fast.get(definition)
        if fast is None:
            fast = self._fast[definition] = self._compiler.definition(definition)
        if fast(payload):
            return None
        return self.explain(definition, payload)

    def explain(self, definition: str, payload: Any) -> tuple[str, str] | None:
        """The ``jsonschema`` library's verdict: ``(path, problem)`` of the most relevant error (the
        problem text names up to two more), or None if the library finds nothing wrong."""
        # jsonschema costs some 85 ms and `tablecert validate` loads this module: imported when a message is checked
        from jsonschema.exceptions import best_match  # noqa: PLC0415

        errors = list(self._validator(definition).iter_errors(payload))
        if not errors:
            return None
        first = best_match(errors)
        path, problem = self._described(first)
        others = [self._described(e) for e in errors if e is not first][:2]
        if others:
            problem += "; also " + "; ".join(f"at '{p}': {what}" for p, what in others)
        return path, problem

    @staticmethod
    def _described(err: Any) -> tuple[str, str]:
        parts, problem = Contract._located(err)
        return field_path(parts), problem

    @staticmethod
    def _located(err: Any) -> tuple[list[Any], str]:
        path = list(err.absolute_path)
        if err.validator == "additionalProperties" and isinstance(err.instance, Mapping):
            props = err.schema.get("properties", {}) if isinstance(err.schema, Mapping) else {}
            extra = sorted(k for k in err.instance if k not in props and not str(k).startswith("x-"))
            if extra:
                return [*path, extra[0]], f"a field the contract does not have (value {_shown(err.instance[extra[0]])})"
        if err.validator == "required" and isinstance(err.validator_value, list) and isinstance(err.instance, Mapping):
            missing = [k for k in err.validator_value if k not in err.instance]
            if missing:
                return [*path, missing[0]], "missing (the contract requires it)"
        return path, str(err.message)

    def parts(self, definition: str, payload: Any) -> dict[str, tuple[str, str]]:
        """Every top-level field at fault: ``field -> (field path, what is wrong)``, the first error
        of each field; ``""`` for the message as a whole."""
        out: dict[str, tuple[str, str]] = {}
        for err in self._validator(definition).iter_errors(payload):
            parts, problem = self._located(err)
            top = str(parts[0]) if parts and isinstance(payload, Mapping) else ""
            out.setdefault(top, (field_path(parts), problem))
        return out

    def _validator(self, definition: str) -> Any:
        found = self._library.get(definition)
        if found is None:
            # jsonschema costs some 85 ms and `tablecert validate` loads this module: imported when a message is checked
            from jsonschema import Draft202012Validator  # noqa: PLC0415
            from referencing import Registry, Resource  # noqa: PLC0415

            root = str(self.document["$id"])
            registry: Registry[Any] = Registry().with_resource(root, Resource.from_contents(dict(self.document)))
            found = Draft202012Validator({"$ref": f"{root}#/$defs/{definition}"}, registry=registry)
            self._library[definition] = found
        return found

    # ------------------------------------------------------------------ by direction

    def request_definition(self, cmd: str) -> str | None:
        return f"request:{cmd}" if cmd in self.messages["requests"] else None

    def reply_definition(self, cmd: str) -> str | None:
        return f"reply:{cmd}" if cmd in self.messages["replies"] else None

    def _by_role(self, role: str, kind: str) -> Mapping[str, str] | None:
        """A role with messages of its own (section 14: the link controller, a linked table's link):
        ``name -> #/$defs/...`` for ``kind`` (requests, replies, events), or None."""
        own = self.messages.get("roles", {}).get(role)
        return own.get(kind, {}) if isinstance(own, Mapping) else None

    def check_event(self, device: str, role: str, payload: Mapping[str, Any]) -> ContractError | None:
        name = payload.get("event")
        sent = self._by_role(role, "events")
        if sent is None:
            sent = self.messages["events"].get(role, {})
        if not isinstance(name, str) or name not in sent:
            return ContractError(device, f"event {_shown(name)}", "event",
                                 f"a {role} sends no such event (it sends {', '.join(sent) or 'none'})",
                                 f"event:{name}" if isinstance(name, str) else "event", self.version)
        return self._error(device, f"'{name}' event", _local(sent[name]), payload)

    def check_reply(self, device: str, cmd: str, payload: Mapping[str, Any], role: str | None = None
                    ) -> ContractError | None:
        own = self._by_role(role, "replies") if role is not None else None
        definition = _local(own[cmd]) if own is not None and cmd in own else (
            None if own is not None else self.reply_definition(cmd))
        if definition is None:
            return None  # a command the contract does not name: the caller's own business
        return self._error(device, f"reply to {cmd}", definition, payload)

    def check_nak(self, device: str, cmd: str, payload: Mapping[str, Any]) -> ContractError | None:
        return self._error(device, f"NAK to {cmd}", "nak", payload)

    def _error(self, device: str, message: str, definition: str, payload: Mapping[str, Any]) -> ContractError | None:
        found = self.problem(definition, payload)
        if found is None:
            return None
        error = ContractError(device, message, found[0], found[1], definition, self.version)
        error.parts = {top: ContractError(device, message, path, problem, definition, self.version)
                       for top, (path, problem) in self.parts(definition, payload).items()}
        return error

    def checker(self, role: str, device: str) -> Checker:
        """The link's check for a device of ``role`` (named ``device`` in errors)."""

        def check(frame_type: int, cmd: str | None, payload: Mapping[str, Any]) -> ContractError | None:
            if frame_type == EVT:
                return self.check_event(device, role, payload)
            if frame_type == RSP and cmd is not None:
                return self.check_reply(device, cmd, payload, role)
            if frame_type == NAK:
                return self.check_nak(device, cmd or "a request", payload)
            return None
        return check
