"""Rig plumbing for the soak: bounded transcripts, and the meters the profile declares.

Why: a driver transcript keeps every byte in and out (:mod:`harness.devices.transcript`, the
evidence of a certification case), so over a soak of 100,000 rounds it would grow without bound;
:class:`BoundedTranscript` keeps only the latest entries, enough to show what preceded an error.
The audit holds each meter to the profile's Rules Submission (rates, reset, limits; 629a Royal 9
(f)(2), (g)(2), (h); 461a.12(j), (k)(1)), never to what the device says about itself.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from harness.devices.link import FramedLink
from harness.devices.transcript import Entry, Transcript
from harness.profiles.model import Profile
from harness.progressive.invariants import MeterSpec
from harness.progressive.meter import MeterConfig
from harness.suites.run.oracle import meter_settings
from harness.suites.run.rig import Rig


class BoundedTranscript(Transcript):
    """A transcript keeping only the last ``max_entries`` entries, for runs of unbounded length."""

    def __init__(self, device: str, max_entries: int, *, t0_ns: int | None = None) -> None:
        super().__init__(device, t0_ns=t0_ns)
        self._ring: deque[Entry] = deque(maxlen=max_entries)

    def add(self, direction: str, kind: str, *, t_ns: int, data: bytes = b"", text: str = "",
            **fields: Any) -> Entry:
        entry = Entry(t_ns, direction, kind, bytes(data), text, fields)
        with self._lock:
            self._ring.append(entry)
        return entry

    @property
    def entries(self) -> list[Entry]:
        with self._lock:
            return list(self._ring)

    def __len__(self) -> int:
        with self._lock:
            return len(self._ring)


def bound_transcripts(rig: Rig, max_entries: int) -> None:
    """Swap every framed link's transcript for a bounded one (keeping its latest entries)."""
    for dev in rig.devices().values():
        link = getattr(dev, "link", None)
        if isinstance(link, FramedLink) and not isinstance(link.transcript, BoundedTranscript):
            old = link.transcript
            new = BoundedTranscript(old.device, max_entries, t0_ns=old.t0_ns)
            for e in old.entries[-max_entries:]:
                new.add(e.direction, e.kind, t_ns=e.t_ns, data=e.data, text=e.text, **e.fields)
            link.transcript = new


def meter_specs(profile: Profile) -> list[MeterSpec]:
    """What the audit holds each meter to: the profile's Rules Submission, not the device's answer."""
    mystery = profile.rules.mystery
    return [MeterSpec.declared(MeterConfig(name, m.rate, m.initial, m.reset, m.payout_limit, m.display_capacity),
                               mystery.must_hit_by if name == "mystery" and mystery is not None else None)
            for name, m in meter_settings(profile).items()]
