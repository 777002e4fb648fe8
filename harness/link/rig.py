"""The rig of a link profile: the link controller and every table's devices, opened as a bench would.

For an emulated link the link controller runs as its own process (``harness.emulators.link_server``)
and every table as its own emulator process (``harness.emulators``), each table's controller
connecting to the link controller over 127.0.0.1 as docs/protocol.md, section 14, says; the host
reaches every device through the same drivers as hardware.  Each table is also a single table's
:class:`~harness.profiles.model.Profile` (:func:`table_profile`): its Rules Submission, its devices,
the interpretations of the link, so the oracle, the stack builder and the single-table steps work on
it unchanged.

Defects (``--tc-defect``): those of the link controller go to its process, those of
:data:`harness.emulators.defects.LINK_TABLE_DEFECTS` to the last table's, any other to every table's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil
import signal
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from harness.devices.drivers.link import ReferenceLinkController
from harness.devices.registry import open_device
from harness.devices.roles import Device
from harness.emulators.config import EmulatorConfig
from harness.emulators.defects import DEFECTS, LINK_TABLE_DEFECTS, check_defects
from harness.emulators.process import start_emulator
from harness.errors import DeviceError, DeviceTimeout
from harness.money import Cents
from harness.profiles.model import LinkSettings, LinkTable, Profile
from harness.suites.run.rig import Rig, open_table_rig

#: how long every table may take to join the link after the processes started
JOIN_S = 15.0


def _dollars(cents: Cents | None) -> str | None:
    return None if cents is None else f"{cents // 100}.{cents % 100:02d}"


def link_of(profile: Profile) -> LinkSettings:
    if profile.link is None:
        raise DeviceError(f"profile {profile.name} is not a link profile")
    return profile.link


def table_profile(profile: Profile, table: LinkTable, address: str | None = None) -> Profile:
    """Table ``table`` of the link as a single table's profile (``address``: the link controller's
    table port, which its emulator connects to)."""
    rules = dict(table.raw.get("rules") or {})
    meters = dict(rules.get("meters") or {})
    for name in table.links:
        m = table.rules.meters[name]
        meters[name] = {k: v for k, v in {"rate": f"{m.rate}%", "initial": _dollars(m.initial),
                                          "reset": _dollars(m.reset), "payout_limit": _dollars(m.payout_limit),
                                          "display_capacity": _dollars(m.display_capacity)}.items() if v is not None}
    rules["meters"] = meters
    emulator = dict(profile.raw.get("emulator") or {})
    identity = {"location": f"emulated link {profile.name}, table {table.name}", **dict(emulator.get("identity") or {})}
    emulator["identity"] = identity
    raw: dict[str, Any] = {
        "spec": profile.spec, "name": f"{profile.name}.{table.name}", "game": profile.game,
        "jurisdiction": profile.jurisdiction, "capabilities": sorted(profile.capabilities - {"link"}),
        "devices": dict(table.raw.get("devices") or {}), "rules": rules, "emulator": emulator,
        "interpretations": dict(profile.interpretations),
        "link": {"table": table.name, "address": address or "", "meters": dict(table.links)},
    }
    return dataclasses.replace(profile, name=raw["name"], devices=table.devices, rules=table.rules,
                               capabilities=profile.capabilities - {"link"}, link=None,
                               raw=MappingProxyType(raw))


def controller_mapping(profile: Profile, defects: list[str]) -> dict[str, Any]:
    """The link controller's configuration (harness.emulators.link_controller.LinkConfig)."""
    link = link_of(profile)
    meters = {m.name: {"initial": m.initial, "reset": m.reset, "payout_limit": m.payout_limit,
                       "display_capacity": m.display_capacity} for m in link.meters.values()}
    tables = [{"name": t.name, "denomination": t.wager, "decks": t.rules.decks,
               "rates": {common: str(t.rules.meters[m].rate) for m, common in t.links.items()}}
              for t in link.tables]
    emulator = profile.raw.get("emulator") or {}
    return {"name": profile.name, "meters": meters, "tables": tables, "interpretations": dict(profile.interpretations),
            "defects": defects, "identity": dict(emulator.get("identity") or {})}


@dataclass
class TableRig:
    """One table of the link: its name, its single-table profile and its devices."""

    name: str
    table: LinkTable
    profile: Profile
    rig: Rig


@dataclass
class LinkRig(Rig):
    """The devices of a link: ``link`` (the link controller) and ``tables`` by name."""

    link: ReferenceLinkController | None = None
    link_process: Any = None
    tables: dict[str, TableRig] = field(default_factory=dict)
    #: a folder the rig made for the emulators (removed on close)
    scratch: Path | None = None

    def devices(self) -> dict[str, Device]:
        out: dict[str, Device] = {}
        if self.link is not None:
            out["link-controller"] = self.link
        for name, t in self.tables.items():
            out.update({f"{name}.{role}": dev for role, dev in t.rig.devices().items()})
        return out

    def close(self) -> None:
        for t in self.tables.values():
            with contextlib.suppress(Exception):
                t.rig.close()
        if self.link is not None:
            with contextlib.suppress(Exception):
                self.link.close()
        if self.link_process is not None:
            self.link_process.stop()
            self.link_process = None
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None

    def recover(self) -> None:
        """After a case that did not pass: every link restored, every round voided, every hit paid."""
        if self.link is None:
            return
        with contextlib.suppress(DeviceError):
            for name in self.tables:
                self.link.restore(name)
            wait_joined(self, 5.0)
            for meter in self.link.meters().pending:
                self.link.reset_key(meter)
        for t in self.tables.values():
            ctrl: Any = t.rig.controller
            with contextlib.suppress(DeviceError, AttributeError):
                ctrl.settle_round()


def wait_joined(rig: LinkRig, timeout_s: float = JOIN_S) -> None:
    """Until every table's link is up at the link controller, and its table controller says so."""
    assert rig.link is not None
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            up = rig.link.links_up()
            ready = all(up.get(n) for n in rig.tables) and all(
                (t.rig.controller.meters().raw.get("link") or {}).get("up") for t in rig.tables.values()
                if t.rig.controller is not None)
        except DeviceError:
            ready = False
        if ready:
            return
        if time.monotonic() > deadline:
            raise DeviceTimeout(f"the tables did not all join the link within {timeout_s} s")
        time.sleep(0.02)


def scratch_dir() -> Path:
    """A folder for emulated devices' addresses and non-volatile storage: in memory where the host has
    a tmpfs (``/dev/shm``), so that a shared disk's stalls cannot hold up the emulators' answers (every
    table and the link controller store state at every round; an emulator's storage is the page cache
    either way, harness.emulators.nvstore)."""
    shm = Path("/dev/shm")
    return Path(tempfile.mkdtemp(prefix="tablecert-link-", dir=shm if shm.is_dir() else None))


def serve_link(profile: Profile, listen: str, run_dir: Path | None, defects: list[str]) -> int:
    """``tablecert emulate`` of a link profile: the link controller and every table as their own
    processes, their addresses as one JSON line, until SIGTERM or Ctrl-C (then each stopped by its pid)."""
    root = run_dir or scratch_dir()
    on_link, on_last, on_tables = _split(profile, list(defects))
    link = link_of(profile)
    stop = threading.Event()

    def interrupt(*_: object) -> None:
        raise KeyboardInterrupt  # while starting: stop what started; afterwards: leave the wait

    signal.signal(signal.SIGTERM, interrupt)
    procs: list[Any] = []
    try:
        procs.append(start_emulator(controller_mapping(profile, on_link), "tcp", root / "link",
                                    module="harness.emulators.link_server"))
        address = str(procs[0].addresses["tables"])
        for t in link.tables:
            extra = on_tables + (on_last if t is link.tables[-1] else [])
            procs.append(start_emulator(EmulatorConfig.from_typed(table_profile(profile, t, address)), listen,
                                        root / t.name, defects=extra))
        print(json.dumps({"link-controller": procs[0].addresses,
                          "tables": {t.name: p.addresses for t, p in zip(link.tables, procs[1:], strict=True)}}),
              flush=True)
        while not stop.wait(0.5) and all(p.alive() for p in procs):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        for p in procs:
            p.stop()
    return 0


def _split(profile: Profile, defects: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Defects for the link controller, for the last table, for every table."""
    chosen = ([profile.emulator.defect] if profile.emulator.defect else []) + list(defects)
    check_defects(chosen)
    return ([d for d in chosen if DEFECTS[d].table == "link" and d not in LINK_TABLE_DEFECTS],
            [d for d in chosen if d in LINK_TABLE_DEFECTS],
            [d for d in chosen if DEFECTS[d].table != "link"])


def open_link_rig(profile: Profile, *, listen: str = "pty", run_dir: Path | None = None,
                  defects: tuple[str, ...] = ()) -> LinkRig:
    """Start the link controller and the tables (emulated), open every driver, wait for the link."""
    link = link_of(profile)
    on_link, on_last, on_tables = _split(profile, list(defects))
    rig = LinkRig()
    if run_dir is None and link.is_emulated:
        rig.scratch = run_dir = scratch_dir()
    try:
        address = ""
        if link.controller.is_emulated:
            rig.link_process = start_emulator(controller_mapping(profile, on_link), "tcp",
                                              run_dir / "link" if run_dir else None,
                                              module="harness.emulators.link_server")
            address = str(rig.link_process.addresses["tables"])
            port = str(rig.link_process.addresses["host"])
        else:
            port = str(link.controller.port)
        rig.link = open_device("link-controller", {  # type: ignore[assignment]
            "driver": link.controller.driver, "port": port, "timeout_ms": str(profile.timing.response_timeout_ms)})

        def one(table: LinkTable) -> TableRig:
            tp = table_profile(profile, table, address)
            extra = tuple(on_tables + (on_last if table is link.tables[-1] else []))
            trig = open_table_rig(tp, listen=listen, run_dir=run_dir / table.name if run_dir else None, defects=extra)
            return TableRig(table.name, table, tp, trig)

        with ThreadPoolExecutor(max_workers=len(link.tables), thread_name_prefix="link-open") as pool:
            futures = [pool.submit(one, t) for t in link.tables]
        failed = [f.exception() for f in futures if f.exception() is not None]
        for f in futures:
            if f.exception() is None:
                t = f.result()
                rig.tables[t.name] = t
        if failed:
            raise failed[0]  # type: ignore[misc]
        wait_joined(rig)
    except BaseException:
        rig.close()
        raise
    return rig
