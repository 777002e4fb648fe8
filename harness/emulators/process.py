"""Host side: start the emulator as a separate process, read its addresses, stop it by its pid.

The emulator must be a separate process: the harness then reaches it only through ptys, sockets
and VISA, exactly as it reaches hardware, and a hung emulator can be killed without killing the
run.  ``start_emulator`` waits for the one JSON line of addresses with a deadline; ``stop``
sends SIGTERM to that pid, waits with a deadline, then SIGKILL.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.emulators.config import EmulatorConfig
from harness.errors import DeviceError, DeviceTimeout


@dataclass
class EmulatorProcess:
    """A running emulator: ``addresses`` maps each role to where it listens (see server.py)."""

    proc: subprocess.Popen[bytes]
    addresses: dict[str, Any]
    run_dir: Path
    stderr_path: Path
    #: the run folder was made for this process (no ``run_dir`` given): it goes when the process stops
    owns_run_dir: bool = False
    _stopped: bool = field(default=False, repr=False)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def address(self, role: str) -> str:
        return str(self.addresses[role])

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 5.0) -> int | None:
        """SIGTERM, wait up to ``timeout`` s, then SIGKILL; returns the exit status."""
        if self._stopped:
            return self.proc.returncode
        self._stopped = True
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        if self.owns_run_dir:
            shutil.rmtree(self.run_dir, ignore_errors=True)
        return self.proc.returncode

    def __enter__(self) -> EmulatorProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _config_file(source: EmulatorConfig | Mapping[str, Any] | str | Path, run_dir: Path) -> Path:
    if isinstance(source, str | Path):
        return Path(source)
    mapping = source.to_mapping() if isinstance(source, EmulatorConfig) else dict(source)
    path = run_dir / "emulator-config.json"
    path.write_text(json.dumps(mapping, indent=2, default=str) + "\n", encoding="utf-8")
    return path


def start_emulator(
    source: EmulatorConfig | Mapping[str, Any] | str | Path,
    listen: str = "pty",
    run_dir: str | Path | None = None,
    *,
    defects: Iterable[str] = (),
    timeout: float = 15.0,
    module: str = "harness.emulators",
) -> EmulatorProcess:
    """Launch ``python -m harness.emulators`` for a profile path, a profile mapping or a config.

    ``run_dir`` holds the pty symlinks, ``addresses.json``, the NV storage and the emulator's
    stderr; a temporary directory is made when it is ``None``, and removed when the process stops.
    ``module`` is the process to run (``harness.emulators.link_server`` for a link controller).
    """
    owned = run_dir is None
    if run_dir is None:
        run_dir = tempfile.mkdtemp(prefix="tablecert-emu-")
    rdir = Path(run_dir)
    rdir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", module, "--profile", str(_config_file(source, rdir)),
           "--listen", listen, "--run-dir", str(rdir)]
    for name in defects:
        cmd += ["--defect", name]
    stderr_path = rdir / "emulator.stderr"
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    with open(stderr_path, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL, env=env)
    handle = EmulatorProcess(proc, {}, rdir, stderr_path, owns_run_dir=owned)
    try:
        handle.addresses = _read_addresses(proc, timeout, stderr_path)
    except BaseException:
        handle.stop()
        raise
    return handle


def _read_addresses(proc: subprocess.Popen[bytes], timeout: float, stderr_path: Path) -> dict[str, Any]:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    buf = b""
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DeviceTimeout(f"emulator pid {proc.pid} printed no addresses within {timeout} s")
            if not sel.select(left):
                continue
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                proc.wait(2)
                text = stderr_path.read_text(errors="replace").strip()
                raise DeviceError(f"emulator exited with status {proc.returncode}: {text or 'no message'}")
            buf += chunk
    try:
        addresses = json.loads(buf.split(b"\n", 1)[0])
    except json.JSONDecodeError as exc:
        raise DeviceError(f"emulator address line is not JSON: {exc.msg}") from None
    if not isinstance(addresses, dict):
        raise DeviceError("emulator address line is not a JSON object")
    return addresses
