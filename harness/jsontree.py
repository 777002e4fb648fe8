"""Exact JSON data, for the two places that carry it: the protocol's payloads (docs/protocol.md,
section 2: a JSON object, no duplicate keys, no floating-point numbers) and the certification record
(docs/record.md: no float, no key given twice in one object).

* :func:`json_tree`: a JSON-ready copy of a value's objects and arrays (string keys only), each
  scalar turned by the caller's own rule (which refuses floats and says it in its own words);
* :func:`distinct_keys`: an ``object_pairs_hook`` for :func:`json.loads` refusing a key given twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: the caller's rule for one scalar: ``(value, where) -> JSON value``, ``TypeError`` when refused
Scalar = Callable[[Any, str], Any]
#: the caller's message for a key that is not a string: ``(where, key) -> message``
BadKey = Callable[[str, Any], str]


def json_tree(value: Any, where: str, scalar: Scalar, bad_key: BadKey) -> Any:
    """A copy of ``value`` with mappings as dicts and tuples as lists, every other value through
    ``scalar``; ``where`` names the value in a message (``where.key``, ``where[i]`` below it).
    A key that is not a string raises ``TypeError(bad_key(where, key))``."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(bad_key(where, key))
            out[key] = json_tree(item, f"{where}.{key}", scalar, bad_key)
        return out
    if isinstance(value, list | tuple):
        return [json_tree(item, f"{where}[{i}]", scalar, bad_key) for i, item in enumerate(value)]
    return scalar(value, where)


def distinct_keys(message: Callable[[str], str]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An ``object_pairs_hook`` that builds the object, or raises ``ValueError(message(key))`` for a
    key given twice (one reader would keep the first value and another the last)."""

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise ValueError(message(key))
            out[key] = value
        return out

    return hook
