"""Non-volatile storage of the emulated controller: one JSON document on disk, written atomically.

Peers' regulations and labs require meters, configuration and the hidden mystery trigger to
survive a power cycle unchanged (461a.12(n)).  A write is: the new
document to a temporary file in the same directory, then ``os.replace`` over the old one, so a
reader (the next power-up) sees either the old or the new document, never a torn one.  Values are
JSON with money as integer cents and Decimals as strings.

``fsync`` (of the file and of its directory) is optional and off by default
(``EmulatorConfig.nv_fsync``; ``emulator.nv_fsync`` in the configuration mapping the emulator
process reads).  The emulated table's power loss (``OUTP OFF``, the ``power-loss`` fault) happens
inside the emulator process, which keeps running: what it reloads is the file system's view, where
a completed ``os.replace`` is already visible.  Even a killed emulator process loses nothing, since
its writes sit in the kernel's page cache; only a crash of the host itself could lose the last
writes, and no certification case depends on surviving that.  Syncing every write cost about half
of each round's time over a pty, for nothing the harness can observe; turn it on to emulate
storage that must survive the host.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from harness.errors import DeviceError

FORMAT = "tablecert/emulator-nv/1"


class NVStore:
    """The controller's non-volatile memory at ``path`` (``None``: memory only, lost on power-off)."""

    def __init__(self, path: Path | None, *, fsync: bool = False) -> None:
        self.path = path
        self.fsync = fsync
        self._ram: dict[str, Any] | None = None
        self.writes = 0

    def load(self) -> dict[str, Any] | None:
        """The stored document, or ``None`` when nothing was ever stored."""
        if self.path is None:
            return self._ram
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DeviceError(f"{self.path}: non-volatile storage is corrupt ({exc.msg})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise DeviceError(f"{self.path}: not a {FORMAT} document")
        return doc

    def save(self, doc: dict[str, Any]) -> None:
        """Store ``doc`` atomically (see the module docstring)."""
        doc = {"format": FORMAT, **doc}
        self.writes += 1
        if self.path is None:
            self._ram = json.loads(json.dumps(doc))
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        data = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode("utf-8")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, data)
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        if self.fsync:
            dfd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)

    def erase(self) -> None:
        """Forget everything (a factory reset; used by tests and the ``power-loses-meters`` defect)."""
        self._ram = None
        if self.path is not None:
            self.path.unlink(missing_ok=True)
