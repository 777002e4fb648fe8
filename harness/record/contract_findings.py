"""The record's contract section: the version each device negotiated, and every message kind a device
sent outside that version's contract, once per kind, naming its fields (docs/protocol.md, section 3,
"Messages outside the contract"; docs/record.md, "contract").

The links keep what their checker found (``FramedLink.contract_seen``: message definition and field
path -> the first violation and a count); after every case the session asks :func:`collect` for
what is new, so a message kind outside the contract is one finding however many cases met it, its
fields listed with the case that first met each.  A finding costs no case by itself: the cases
that read the field end ERROR naming it, and the others go on.  Pure bookkeeping, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def versions(devices: Mapping[str, Any]) -> dict[str, int]:
    """role -> the contract version its device negotiated (devices that speak the reference protocol)."""
    out: dict[str, int] = {}
    for role, dev in devices.items():
        spoken = getattr(dev, "protocol", None)
        if isinstance(spoken, int) and not isinstance(spoken, bool) and getattr(dev, "link", None) is not None:
            out[role] = spoken
    return out


def collect(section: dict[str, Any], devices: Mapping[str, Any], case_id: str) -> bool:
    """Add to ``section["findings"]`` every (message kind, field) the devices' links met outside the
    contract that the section does not hold yet, first met in ``case_id``; True when something was
    added.  One finding per device and message kind; its ``fields`` grow."""
    findings: list[dict[str, Any]] = section.setdefault("findings", [])
    by_kind = {(f["device"], f["definition"]): f for f in findings}
    added = False
    for role, dev in devices.items():
        link = getattr(dev, "link", None)
        seen = getattr(link, "contract_seen", None)
        if not isinstance(seen, dict):
            continue
        for (definition, path), (error, _count) in sorted(seen.items(), key=lambda kv: kv[0]):
            finding = by_kind.get((role, definition))
            if finding is None:
                finding = {"device": role, "message": str(getattr(error, "message", definition)),
                           "definition": definition, "version": int(getattr(error, "version", 0)),
                           "fields": []}
                findings.append(finding)
                by_kind[(role, definition)] = finding
            if any(f["path"] == path for f in finding["fields"]):
                continue
            finding["fields"].append({"path": path, "problem": str(getattr(error, "problem", error)),
                                      "first_case": case_id})
            added = True
    return added


def lines(section: Mapping[str, Any]) -> list[str]:
    """The findings as text, one line per message kind (for the report and the terminal)."""
    out = []
    for f in section.get("findings") or ():
        fields = "; ".join(f"'{x['path']}': {x['problem']} (first in {x['first_case']})" for x in f["fields"])
        out.append(f"{f['device']}: {f['message']} outside contract version {f['version']} "
                   f"(#/$defs/{f['definition']}) at {fields}")
    return out
