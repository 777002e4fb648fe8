"""python -m indie_table --state-dir DIR [--port-base N] [--fault NAME] [--ready-file F]

An independent progressive table (shoe, bet sensors, Royal 9 controller, counter, power supply)
on 127.0.0.1.  Example:
  python -m indie_table --state-dir /tmp/itw --port-base 47310 --fault wrong-game-type
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from .faults import ALL_FAULTS
from .server import serve
from .table import PRESETS, Table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="indie_table", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--state-dir", required=True, help="non-volatile storage directory")
    ap.add_argument("--preset", default="midi-5", choices=sorted(PRESETS))
    ap.add_argument("--port-base", type=int, default=0,
                    help="shoe=BASE, sensors=BASE+1, controller=BASE+2, power=BASE+3, counter=BASE+4 (0: any)")
    ap.add_argument("--fault", action="append", default=[], choices=sorted(ALL_FAULTS), help="firmware fault")
    ap.add_argument("--ready-file", help="written with the bound ports once listening")
    args = ap.parse_args(argv)
    state = Path(args.state_dir)
    state.mkdir(parents=True, exist_ok=True)
    table = Table(state, args.preset, set(args.fault))
    base = args.port_base
    roles = ("shoe", "sensors", "controller", "power", "counter")
    ports = {r: (base + i if base else 0) for i, r in enumerate(roles)}
    serve(table, ports, args.ready_file)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    done.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
