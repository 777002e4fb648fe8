"""Every field of a device message that tablecert reads is one the contract declares, and every
vocabulary the contract enumerates is the one docs/protocol.md tables.

The reads are found in the source (AST): a string key taken with ``[...]`` or ``.get(...)`` from an
event or reply payload (an expression that mentions ``payload``, ``.raw``, a settlement from
``settlements()``, or a name bound to one of those in the same function), and the keys the reference
drivers pass to their field readers.  A new read of a field the schema lacks fails here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.devices import vocabulary as v
from harness.devices.contract import schema

ROOT = Path(__file__).resolve().parents[2]
#: suite loading, not device messages
NOT_READERS = {"schema.py", "rig.py", "given.py", "stacks.py", "registry.py", "model.py", "refs.py"}
READERS = [*sorted(p for p in (ROOT / "harness" / "suites").rglob("*.py") if p.name not in NOT_READERS),
           *sorted((ROOT / "harness" / "bench").glob("*.py")), ROOT / "harness" / "soak" / "run.py",
           ROOT / "harness" / "devices" / "link.py", ROOT / "harness" / "devices" / "drivers" / "reference.py"]
#: names the reference driver gives to reply payloads and their parts
DRIVER_NAMES = {"r", "m", "w", "p", "amounts", "residual", "answer"}
SOURCES = ("payload", ".raw", "settlements(", "_payouts(", "request(")
FIELD_READERS = {"int_field", "_opt_int"}


def declared_fields() -> set[str]:
    """Every property name a device-to-host message may carry, at any depth."""
    out: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            out.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    defs = schema()["$defs"]
    for name, node in defs.items():
        if not name.startswith("request:"):
            walk(node)
    return out


def _key(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _aliases(func: ast.FunctionDef, driver: bool) -> set[str]:
    """Names bound in ``func`` to a payload, a part of one, or a settlement."""
    aliases: set[str] = set(DRIVER_NAMES) if driver else set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.For | ast.comprehension):
            targets, value = [node.target], node.iter
        else:
            continue
        src = ast.unparse(value)
        if any(s in src for s in SOURCES) or any(re.search(rf"\b{a}\b", src) for a in aliases):
            for t in targets:
                aliases.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
    return aliases


def _read_key(node: ast.AST, aliases: set[str], driver: bool) -> str | None:
    """The field ``node`` reads from a payload, if it reads one."""

    def payload_like(expr: ast.expr) -> bool:
        src = ast.unparse(expr)
        return "payload" in src or ".raw" in src or (isinstance(expr, ast.Name) and expr.id in aliases)

    if isinstance(node, ast.Subscript) and payload_like(node.value):
        return _key(node.slice)
    if not isinstance(node, ast.Call) or not node.args:
        return None
    if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and payload_like(node.func.value):
        return _key(node.args[0])
    if driver and isinstance(node.func, ast.Name) and node.func.id in FIELD_READERS and len(node.args) > 1:
        return _key(node.args[1])
    return None


def reads(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    driver = path.name == "reference.py"
    for func in ast.walk(tree):
        if isinstance(func, ast.FunctionDef):
            aliases = _aliases(func, driver)
            for node in ast.walk(func):
                key = _read_key(node, aliases, driver)
                if key is not None:
                    yield getattr(node, "lineno", 0), key


def test_every_field_tablecert_reads_from_a_device_message_is_declared() -> None:
    fields = declared_fields()
    found: dict[str, list[str]] = {}
    for path in READERS:
        for line, key in reads(path):
            found.setdefault(key, []).append(f"{path.relative_to(ROOT)}:{line}")
    # the scan finds the reads it is meant to (a scan that finds nothing proves nothing)
    for key in ("returned", "category", "seat", "type", "meter", "amount", "card", "locked", "cause", "paid_by",
                "accepted", "cards_dealt", "denomination", "cumulative_paid", "pending", "decks", "ok", "code"):
        assert key in found, f"the scan no longer sees reads of {key!r}"
    unknown = {k: where for k, where in found.items() if k not in fields and k not in ("cmd", "event")}
    assert not unknown, f"fields read but not in protocol.schema.json: {unknown}"


def test_the_suites_expect_event_fields_and_values_of_the_contract() -> None:
    """``expect_event: {event: E, match: {field: value}}`` in a suite names a field of E's schema."""
    import yaml

    defs = schema()["$defs"]
    checked = 0
    for path in sorted((ROOT / "suites").rglob("*.suite.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in doc.get("cases", []):
            for step in case.get("steps", []):
                if not isinstance(step, dict) or "expect_event" not in step:
                    continue
                args = step["expect_event"]
                args = {"event": args} if isinstance(args, str) else args
                props = defs[f"event:{args['event']}"]["properties"]
                for key in (args.get("match") or {}):
                    assert key in props, f"{path.name} {case['id']}: {args['event']} has no field {key!r}"
                checked += 1
    assert checked


def _doc_table(doc: str, heading: str) -> list[str]:
    """The values (first column, in backticks) of the table under ``heading`` in docs/protocol.md."""
    found = re.search(rf"(?m)^{re.escape(heading)}$", doc)
    assert found, f"docs/protocol.md has no heading {heading!r}"
    rows = []
    for line in doc[found.start():].splitlines()[1:]:
        if line.startswith("#"):
            break
        m = re.match(r"\| `([^`]+)` \|", line)
        if m:
            rows.append(m.group(1))
    return rows


def test_docs_protocol_tables_every_vocabulary_of_the_contract() -> None:
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    tables = {
        "### NAK codes": list(v.NAK_CODES), "### Wager types": list(v.WAGER_TYPES),
        "### Wager refusal reasons": list(v.WAGER_REFUSALS), "### Lock-out causes": list(v.LOCKOUT_CAUSES),
        "### Meters": list(v.METERS), "### Shoe states": list(v.SHOE_STATES), "### Paid by": list(v.PAID_BY),
        "### Games": list(v.GAMES), "### Payout and hit categories": list(v.PAYOUT_CATEGORIES),
        "### Identity fields": list(v.IDENTITY_FIELDS),
        "### Faults of the test channel": [*v.LINE_FAULTS, *v.SHOE_FAULTS],
    }
    for heading, values in tables.items():
        assert _doc_table(doc, heading) == values, f"docs/protocol.md {heading!r} differs from the vocabulary"
    defs = schema()["$defs"]
    for name in defs:
        if name.startswith(("request:", "event:")):
            bare = name.split(":", 1)[1]
            named = (f"`{bare}`", f'"cmd":"{bare}"', f'"event":"{bare}"')
            assert any(n in doc for n in named), f"docs/protocol.md does not name {name}"
    fields = declared_fields()
    missing = sorted(f for f in fields if f"`{f}`" not in doc and f'"{f}"' not in doc)
    assert not missing, f"docs/protocol.md does not mention the fields {missing}"
    assert "harness/devices/protocol.schema.json" in doc
