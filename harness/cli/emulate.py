"""``tablecert emulate``: run the emulated devices of a profile until SIGTERM or Ctrl-C.

Prints one JSON line of addresses (pty symlinks or ``socket://127.0.0.1:PORT`` for the shoe,
sensors and controller; ``TCPIP::127.0.0.1::PORT::SOCKET`` for the counter and the power supply),
so another shell or a lab script can point a profile at them.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

HELP = "run a profile's emulated shoe, sensors, controller and instruments (ptys or loopback TCP)"
EXAMPLE = """\
tablecert emulate --profile device_profiles/emulated-midi-5.yaml --listen pty --run-dir /tmp/table1
tablecert emulate --profile device_profiles/emulated-midi-5.yaml --listen tcp --defect lockout-late
tablecert emulate --profile device_profiles/emulated-link-4.yaml   # the link controller and its four tables
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", required=True, help="device profile YAML")
    parser.add_argument("--listen", choices=("pty", "tcp"), default="pty",
                        help="serve the devices on ptys (default) or on 127.0.0.1 TCP")
    parser.add_argument("--run-dir", default=None,
                        help="directory for the pty symlinks, addresses.json and NV storage (default: a new temp dir)")
    parser.add_argument("--defect", action="append", default=[], metavar="NAME",
                        help="switch on a named defect (repeatable; see `tablecert defects`)")


def run(args: argparse.Namespace) -> int:
    from harness.emulators.config import load_config
    from harness.emulators.server import serve
    from harness.profiles import load_profile

    if str(args.profile).endswith((".yaml", ".yml")):
        profile = load_profile(args.profile)
        if profile.link is not None:  # the link controller and every table, each its own process
            from harness.link.rig import serve_link

            return serve_link(profile, args.listen, Path(args.run_dir) if args.run_dir else None, args.defect)
    cfg = load_config(args.profile, defects=args.defect)
    run_dir = Path(args.run_dir) if args.run_dir else Path(tempfile.mkdtemp(prefix="tablecert-emu-"))
    return serve(cfg, args.listen, run_dir)
