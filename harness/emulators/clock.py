"""A precise one-thread timer for the emulators: lock-out latency and the shoe's dealing pace.

The lock-out latency a lab measures is a fraction of a millisecond (the profile's deadline is
typically 1 ms), so the emulator must inject its configured latency to well under that.  A
``threading.Timer`` or a plain ``sleep`` overshoots by 50-100 µs or more; this scheduler sleeps
on a condition until :data:`SPIN_NS` before the due time, then spins on ``perf_counter_ns`` with
``sleep(0)`` (which releases the GIL) to fire within a few microseconds of the target.  Every
callback gets its due time and the time it actually ran, so the lateness can be reported.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import threading
import time
from collections.abc import Callable

#: start spinning this long before a timer is due
SPIN_NS = 400_000

Callback = Callable[[int, int], None]  # (due_ns, fired_ns)


class Scheduler:
    """Run callbacks at ``perf_counter_ns`` deadlines on one daemon thread."""

    def __init__(self, name: str = "emulator-clock") -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[int, int, Callback]] = []
        self._ids = itertools.count()
        self._cancelled: set[int] = set()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def at(self, due_ns: int, callback: Callback) -> int:
        """Call ``callback(due_ns, fired_ns)`` at ``due_ns``; returns an id for :meth:`cancel`."""
        with self._cond:
            tid = next(self._ids)
            heapq.heappush(self._heap, (due_ns, tid, callback))
            self._cond.notify()
            return tid

    def cancel(self, tid: int) -> None:
        """Cancel a timer that has not fired yet; a timer that already fired is left alone (marking
        it would keep its id in the cancelled set for ever: a slow leak over a long soak)."""
        with self._cond:
            if any(t == tid for _, t, _ in self._heap):
                self._cancelled.add(tid)

    def cancel_all(self) -> None:
        with self._cond:
            self._cancelled.update(tid for _, tid, _ in self._heap)

    def pending(self) -> int:
        with self._cond:
            return sum(1 for _, tid, _ in self._heap if tid not in self._cancelled)

    def stop(self, timeout: float = 2.0) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stop:
                    while self._heap and self._heap[0][1] in self._cancelled:
                        self._cancelled.discard(heapq.heappop(self._heap)[1])
                    if not self._heap:
                        self._cond.wait(1.0)
                        continue
                    wait_ns = self._heap[0][0] - time.perf_counter_ns() - SPIN_NS
                    if wait_ns <= 0:
                        break
                    self._cond.wait(wait_ns / 1e9)
                if self._stop:
                    return
                due, tid, callback = self._heap[0]
            while time.perf_counter_ns() < due:
                time.sleep(0)
            with self._cond:
                if not self._heap or self._heap[0][1] != tid:
                    continue  # an earlier timer arrived while spinning; it runs first
                heapq.heappop(self._heap)
                if tid in self._cancelled:
                    self._cancelled.discard(tid)
                    continue
            try:
                callback(due, time.perf_counter_ns())
            except Exception as exc:  # a failing callback must not stop the clock of the whole table
                print(f"emulator clock: callback failed: {exc!r}", file=sys.stderr, flush=True)
