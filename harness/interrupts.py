"""Holding Ctrl-C back while a finished case is written down.

Ctrl-C (and SIGTERM, which a certification run treats the same way) raises ``KeyboardInterrupt``
wherever the main thread happens to be.  Landing between two writes of a case's record (its evidence
attached, its journal line not yet written; or its journal line written, the record in memory not yet
told) it would leave a record that does not verify: evidence no case names, or a journal holding a
case ``record.json`` lacks.  :func:`deferred` holds the interrupt back for the few milliseconds such
a section takes and raises it as soon as the section is over, so the run still ends INTERRUPTED and
the record stays whole.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Run the body with SIGINT and SIGTERM held back; re-raise one of them as ``KeyboardInterrupt``
    after the body (outside the main thread, where no handler can be set, the body runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        caught.append(signum)

    previous: dict[int, Any] = {sig: signal.signal(sig, hold) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if caught:
        raise KeyboardInterrupt(f"signal {caught[0]} (held back while the case was recorded)")
