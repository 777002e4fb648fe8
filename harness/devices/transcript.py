"""Per-device transcript: every byte in and out, stamped where it was read or written.

Why: a verdict about lock-out timing or a meter increment is only as good as the evidence behind
it.  The transcript keeps the raw bytes (``kind="bytes"``, exactly as the port returned them) and
the decoded view (``kind="frame"`` / ``"line"`` / ``"error"`` / ``"note"``) so a reviewer can
check the decoding against the wire.  Timestamps are ``time.perf_counter_ns()`` values taken by
the thread that performed the read or the write (a timestamp taken in another
thread is off by the GIL switch interval, 10-20 ms under load).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUT = ">"
IN = "<"
NOTE = "!"


@dataclass(frozen=True)
class Entry:
    """One transcript line.  ``data`` is raw bytes; ``text`` the decoded view (may be empty)."""

    t_ns: int
    direction: str
    kind: str
    data: bytes = b""
    text: str = ""
    fields: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t_ns": self.t_ns, "dir": self.direction, "kind": self.kind}
        if self.data:
            out["hex"] = self.data.hex()
        if self.text:
            out["text"] = self.text
        out.update(self.fields)
        return out


class Transcript:
    """Thread-safe, append-only record of one device's traffic."""

    def __init__(self, device: str, *, t0_ns: int | None = None) -> None:
        self.device = device
        self.t0_ns = time.perf_counter_ns() if t0_ns is None else t0_ns
        self._entries: list[Entry] = []
        self._lock = threading.Lock()

    def add(
        self,
        direction: str,
        kind: str,
        *,
        t_ns: int,
        data: bytes = b"",
        text: str = "",
        **fields: Any,
    ) -> Entry:
        entry = Entry(t_ns, direction, kind, bytes(data), text, fields)
        with self._lock:
            self._entries.append(entry)
        return entry

    def bytes_out(self, data: bytes, t_ns: int) -> None:
        self.add(OUT, "bytes", t_ns=t_ns, data=data)

    def bytes_in(self, data: bytes, t_ns: int) -> None:
        self.add(IN, "bytes", t_ns=t_ns, data=data)

    def note(self, text: str, t_ns: int | None = None, **fields: Any) -> None:
        self.add(NOTE, "note", t_ns=time.perf_counter_ns() if t_ns is None else t_ns, text=text, **fields)

    @property
    def entries(self) -> list[Entry]:
        with self._lock:
            return list(self._entries)

    def since(self, start: int) -> list[Entry]:
        """The entries from index ``start`` on (``len(transcript)`` before an exchange marks its start)."""
        with self._lock:
            return self._entries[start:]

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def raw(self, direction: str) -> bytes:
        """All bytes that went one way, concatenated: what the wire carried."""
        return b"".join(e.data for e in self.entries if e.kind == "bytes" and e.direction == direction)

    def format(self, entry: Entry) -> str:
        ms = (entry.t_ns - self.t0_ns) / 1_000_000
        body = entry.text if entry.text else entry.data.hex(" ")
        return f"{ms:+.3f} ms {entry.direction} {body}"

    def tail(self, n: int = 20, *, include_bytes: bool = False) -> list[str]:
        """The last ``n`` decoded lines, e.g. ``+12.345 ms > REQ seq=3 wager.place {...}``."""
        picked = [e for e in self.entries if include_bytes or e.kind != "bytes"]
        return [self.format(e) for e in picked[-n:]] if n > 0 else []

    def write(self, path: str | Path) -> Path:
        """Write the transcript as JSON lines (one object per entry, ``t_ns`` relative to none)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", encoding="utf-8") as fh:
            head = {"device": self.device, "t0_ns": self.t0_ns, "clock": "perf_counter_ns"}
            fh.write(json.dumps(head, ensure_ascii=False) + "\n")
            for entry in self.entries:
                fh.write(json.dumps(entry.to_json(), ensure_ascii=False, default=str) + "\n")
        return target
