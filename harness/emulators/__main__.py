"""``python -m harness.emulators --profile P --listen pty|tcp --run-dir D [--defect NAME]``.

Prints one JSON line of addresses on stdout when every device listens; stops on SIGTERM.  Bad
input prints one line on stderr and exits 2.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from harness.devices.link import prompt_thread_switching
from harness.emulators.config import load_config
from harness.emulators.server import serve
from harness.errors import InputError
from harness.interrupts import die_with_parent


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m harness.emulators")
    parser.add_argument("--profile", required=True, help="device profile YAML (or the JSON that process.py writes)")
    parser.add_argument("--listen", choices=("pty", "tcp"), default="pty")
    parser.add_argument("--run-dir", required=True, help="directory for symlinks, addresses.json and NV storage")
    parser.add_argument("--defect", action="append", default=[], help="switch on a named defect (repeatable)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    prompt_thread_switching()  # the clock thread fires lock-outs on time while the server works
    # Ctrl-C at the terminal reaches the whole process group: the harness, not the device, decides
    # what an interruption means (it records INTERRUPTED and stops us with SIGTERM); an emulator
    # that died of the keypress would be recorded as a device that went away.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the process that started us gone (the run killed with -9, out of memory): we go too
    die_with_parent(os.getppid(), signal.SIGTERM, pdeathsig=False)

    args = build_parser().parse_args(argv)
    try:
        cfg = load_config(args.profile, defects=args.defect)
    except InputError as exc:
        print(f"emulator: {exc}", file=sys.stderr)
        return 2
    return serve(cfg, args.listen, Path(args.run_dir))


if __name__ == "__main__":
    sys.exit(main())
