"""A compiled yes/no check of the JSON Schema keywords ``protocol.schema.json`` uses.

Why: the ``jsonschema`` library walks the schema for every instance (about 70-350 µs a message on
the lab's two-core machine, several milliseconds a round), while a round loop receives some fifty
messages.  This module turns each message schema once into nested closures that answer only
"valid or not" (a few µs); :mod:`harness.devices.contract` asks ``jsonschema`` itself for the
field and the wording whenever this check says no, and only the library's verdict rejects a
message.  A test holds the two to the same answers over every message the emulators send and over
mutations of them.

Supported keywords (Draft 2020-12 semantics): ``$ref`` (to ``#/$defs/<name>``), ``type``, ``const``,
``enum``, ``minimum``, ``maximum``, ``pattern``, ``properties``, ``required``, ``patternProperties``,
``additionalProperties``, ``propertyNames``, ``items``, ``minItems``, ``maxItems``, ``anyOf``,
``if``/``then``/``else``; annotations (``description``, ``title``, ``$schema``, ``$id``, ``$defs``,
``x-*``) are ignored.  Any other keyword raises :class:`ValueError` when the schema is compiled, so
the schema cannot use a keyword this check would silently skip.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

ANNOTATIONS = frozenset({"description", "title", "$schema", "$id", "$defs", "$comment"})
KEYWORDS = frozenset({"$ref", "type", "const", "enum", "minimum", "maximum", "pattern", "properties", "required",
                      "patternProperties", "additionalProperties", "propertyNames", "items", "minItems",
                      "maxItems", "anyOf", "if", "then", "else"})


def _never(_value: Any) -> bool:
    return False


def _always(_value: Any) -> bool:
    return True


def _is_integer(x: Any) -> bool:
    return type(x) is int


TYPES: dict[str, Check] = {
    "object": lambda x: type(x) is dict,
    "array": lambda x: type(x) is list,
    "string": lambda x: type(x) is str,
    "integer": _is_integer,
    "number": lambda x: type(x) in (int, float),
    "boolean": lambda x: type(x) is bool,
    "null": lambda x: x is None,
}


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``; a list or object compares item by item."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _matcher(pattern: str) -> Callable[[str], bool]:
    """A property-name pattern as a test; ``^literal`` (the vendor ``^x-``) as a prefix test."""
    literal = pattern[1:]
    if pattern.startswith("^") and re.escape(literal) == literal:
        return lambda key: key.startswith(literal)
    search = re.compile(pattern).search
    return lambda key: search(key) is not None


class Compiler:
    """Compiles the message schemas of one schema document (``$defs`` by name)."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.defs: Mapping[str, Any] = document.get("$defs", {})
        self._done: dict[str, Check] = {}
        self._compiling: set[str] = set()
        # one compilation at a time: the devices of a link open in parallel threads, and a second
        # thread must neither see another's entry in progress as a self-reference nor compile it twice
        self._lock = threading.RLock()

    def definition(self, name: str) -> Check:
        done = self._done.get(name)
        if done is not None:
            return done
        with self._lock:
            if name not in self._done:
                if name not in self.defs:
                    raise ValueError(f"no $defs entry {name!r}")
                if name in self._compiling:
                    raise ValueError(f"$defs entry {name!r} refers to itself: not supported by the compiled check")
                self._compiling.add(name)
                try:
                    self._done[name] = self.compile(self.defs[name])
                finally:
                    self._compiling.discard(name)
            return self._done[name]

    def compile(self, node: Any) -> Check:
        if node is True or node == {}:
            return _always
        if node is False:
            return _never
        if not isinstance(node, Mapping):
            raise ValueError(f"not a schema: {node!r}")
        unknown = {k for k in node if k not in KEYWORDS and k not in ANNOTATIONS and not k.startswith("x-")}
        if unknown:
            raise ValueError(f"schema keyword(s) {', '.join(sorted(unknown))} not supported by the compiled check")
        checks = [c for c in (self._ref(node), self._type(node), self._const(node), self._enum(node),
                              self._number(node), self._string(node), self._object(node), self._array(node),
                              self._any_of(node), self._conditional(node)) if c is not None]
        if not checks:
            return _always
        if len(checks) == 1:
            return checks[0]
        if len(checks) == 2:
            first, second = checks
            return lambda x: first(x) and second(x)
        return lambda x: all(c(x) for c in checks)

    def _ref(self, node: Mapping[str, Any]) -> Check | None:
        target = node.get("$ref")
        if target is None:
            return None
        prefix = "#/$defs/"
        if not str(target).startswith(prefix):
            raise ValueError(f"$ref {target!r}: only {prefix}<name> is supported")
        name = str(target)[len(prefix):]
        if name not in self.defs:
            raise ValueError(f"$ref {target!r}: no such definition")
        return self.definition(name)  # compiled once, shared by every reference

    @staticmethod
    def _type(node: Mapping[str, Any]) -> Check | None:
        kind = node.get("type")
        if kind is None:
            return None
        kinds = [kind] if isinstance(kind, str) else list(kind)
        checks = [TYPES[k] for k in kinds]
        return checks[0] if len(checks) == 1 else (lambda x: any(c(x) for c in checks))

    @staticmethod
    def _const(node: Mapping[str, Any]) -> Check | None:
        if "const" not in node:
            return None
        want = node["const"]
        if want is True or want is False or want is None:
            return lambda x: x is want
        if type(want) is str:
            return lambda x: type(x) is str and x == want
        return lambda x: _same(x, want)

    @staticmethod
    def _enum(node: Mapping[str, Any]) -> Check | None:
        if "enum" not in node:
            return None
        values = list(node["enum"])
        if all(type(v) is str for v in values):
            strings = frozenset(values)
            return lambda x: type(x) is str and x in strings
        if all(type(v) is int for v in values):
            ints = frozenset(values)
            return lambda x: type(x) in (int, float) and x in ints
        return lambda x: any(_same(x, v) for v in values)

    @staticmethod
    def _number(node: Mapping[str, Any]) -> Check | None:
        lo, hi = node.get("minimum"), node.get("maximum")
        if lo is None and hi is None:
            return None

        def check(x: Any) -> bool:
            if type(x) not in (int, float):
                return True
            return (lo is None or x >= lo) and (hi is None or x <= hi)
        return check

    @staticmethod
    def _string(node: Mapping[str, Any]) -> Check | None:
        if "pattern" not in node:
            return None
        search = re.compile(node["pattern"]).search
        return lambda x: type(x) is not str or search(x) is not None

    def _object(self, node: Mapping[str, Any]) -> Check | None:
        keys = ("properties", "required", "patternProperties", "additionalProperties", "propertyNames")
        if not any(k in node for k in keys):
            return None
        props = {k: self.compile(s) for k, s in node.get("properties", {}).items()}
        required = tuple(node.get("required", ()))
        patterns = [(_matcher(p), self.compile(s)) for p, s in node.get("patternProperties", {}).items()]
        extra = self.compile(node["additionalProperties"]) if "additionalProperties" in node else None
        names = self.compile(node["propertyNames"]) if "propertyNames" in node else None

        def check(x: Any) -> bool:
            if type(x) is not dict:
                return True
            for key in required:
                if key not in x:
                    return False
            for key, value in x.items():
                if names is not None and not names(key):
                    return False
                matched = False
                for matches, pattern_check in patterns:
                    if matches(key):
                        matched = True
                        if not pattern_check(value):
                            return False
                own = props.get(key)
                if own is not None:
                    if not own(value):
                        return False
                elif not matched and extra is not None and not extra(value):
                    return False
            return True
        return check

    def _array(self, node: Mapping[str, Any]) -> Check | None:
        if not any(k in node for k in ("items", "minItems", "maxItems")):
            return None
        each = self.compile(node["items"]) if "items" in node else None
        lo, hi = node.get("minItems"), node.get("maxItems")

        def check(x: Any) -> bool:
            if type(x) is not list:
                return True
            if (lo is not None and len(x) < lo) or (hi is not None and len(x) > hi):
                return False
            return each is None or all(each(item) for item in x)
        return check

    def _any_of(self, node: Mapping[str, Any]) -> Check | None:
        if "anyOf" not in node:
            return None
        options = [self.compile(s) for s in node["anyOf"]]
        if len(options) == 2:
            first, second = options
            return lambda x: first(x) or second(x)
        return lambda x: any(c(x) for c in options)

    def _conditional(self, node: Mapping[str, Any]) -> Check | None:
        if "if" not in node:
            return None
        cond = self.compile(node["if"])
        then = self.compile(node["then"]) if "then" in node else _always
        other = self.compile(node["else"]) if "else" in node else _always
        return lambda x: then(x) if cond(x) else other(x)
