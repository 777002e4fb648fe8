"""Start the independent table, run `tablecert run` against it, stop the table.

  .venv/bin/python tests/independent/run_independent.py [--fault NAME] [--report-dir D] -- SUITE ...

The table listens on free 127.0.0.1 ports; the profile independent-midi-5.yaml is copied with those
ports into the state directory.  Every wait has a deadline; the table is stopped (by its pid) on
every exit path.  Exit status: tablecert's.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PROFILE = HERE / "independent-midi-5.yaml"
FIXED_PORTS = {"shoe": 47310, "sensors": 47311, "controller": 47312, "power": 47313, "counter": 47314}


class Device:
    def __init__(self, state_dir: Path, faults: list[str], profile: Path = PROFILE) -> None:
        self.state_dir = state_dir
        self.ready = state_dir / "ready"
        self.template = profile
        preset = "midi-1" if profile.name.endswith("midi-1.yaml") else "midi-5"
        cmd = [sys.executable, "-m", "indie_table", "--state-dir", str(state_dir / "nv"), "--preset", preset,
               "--ready-file", str(self.ready)]
        for fault in faults:
            cmd += ["--fault", fault]
        state_dir.mkdir(parents=True, exist_ok=True)  # a case played again gets a folder of its own
        self.log = open(state_dir / "device.log", "wb")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(cmd, cwd=HERE, stdout=self.log, stderr=subprocess.STDOUT)
        self.ports: dict[str, int] = {}

    def wait_ready(self, deadline_s: float = 15.0) -> dict[str, int]:
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            if self.ready.exists():
                pairs = self.ready.read_text().split()
                self.ports = {k: int(v) for k, v in (p.split("=") for p in pairs)}
                return self.ports
            if self.proc.poll() is not None:
                raise RuntimeError(f"device exited with {self.proc.returncode}: see {self.state_dir / 'device.log'}")
            time.sleep(0.05)
        raise TimeoutError("device not listening within the deadline")

    def profile(self) -> Path:
        text = self.template.read_text()
        for role, port in FIXED_PORTS.items():
            text = text.replace(str(port), str(self.ports[role]))
        out = self.state_dir / self.template.name
        out.write_text(text)
        return out

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fault", action="append", default=[])
    ap.add_argument("--profile", default=str(PROFILE), help="independent-midi-5.yaml or independent-midi-1.yaml")
    ap.add_argument("--report-dir", default=str(ROOT / "reports"))
    ap.add_argument("--timeout-s", type=float, default=3600.0, help="deadline for the whole tablecert run")
    ap.add_argument("suites", nargs="*", default=[])
    args = ap.parse_args(argv)
    # a SIGTERM ends the run through the finally below: tablecert is killed, the table stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tablecert = ROOT / ".venv" / "bin" / "tablecert"
    with tempfile.TemporaryDirectory(prefix="indie-table-") as tmp:
        dev = Device(Path(tmp), args.fault, Path(args.profile).resolve())
        try:
            dev.wait_ready()
            profile = dev.profile()
            cmd = [str(tablecert), "run", "--profile", str(profile), "--report-dir", args.report_dir, "-q",
                   *args.suites]
            run = subprocess.run(cmd, cwd=ROOT, timeout=args.timeout_s, check=False,
                                 env=dict(os.environ, PYTHONUNBUFFERED="1"))
            return run.returncode
        finally:
            dev.stop()


if __name__ == "__main__":
    sys.exit(main())
