"""Inside the emulator process: load one mutated module, or trace which lines each case runs.

Nothing here writes a file of the checkout.  The mutant is compiled from the AST in memory when
its module is imported (:class:`_MutantFinder`, first on ``sys.meta_path``) and never cached as
bytecode.  Both are switched on by the environment of ``python -m harness.emulators`` only
(``sys.orig_argv`` names that module), so the certification run that starts the emulator, and
which inherits the same environment, keeps the original code for its own checks:

* ``TABLECERT_MUTANT=module:line:col:operator``: that one mutant (:mod:`harness.selfcheck.mutation.operators`);
* ``TABLECERT_MUTANT_TRACE=DIR``: record, per mutated module, the lines executed and the case that
  was running then (the case number the run's :mod:`harness.selfcheck.mutation.caseclock` plugin keeps in
  ``DIR/epoch``), written to ``DIR/lines-<pid>.json`` when the emulator exits.
"""

from __future__ import annotations

import atexit
import importlib.abc
import importlib.machinery
import importlib.util
import json
import mmap
import os
import struct
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

from harness.selfcheck.mutation.operators import mutate_source
from harness.selfcheck.mutation.scope import MODULES, excluded, import_name, source_path

MUTANT_ENV = "TABLECERT_MUTANT"
TRACE_ENV = "TABLECERT_MUTANT_TRACE"
EPOCH_FILE = "epoch"
EPOCH_SIZE = 8
EMULATOR_MODULE = "harness.emulators"
#: the epoch of lines run while the emulator starts (before any request): every case sees their effect
STARTUP = -1


def in_emulator_process(argv: Sequence[str] | None = None) -> bool:
    """True in ``python -m harness.emulators ...`` (the emulated devices' own process)."""
    args = list(sys.orig_argv if argv is None else argv)
    return any(a == "-m" and i + 1 < len(args) and args[i + 1] == EMULATOR_MODULE for i, a in enumerate(args)) \
        or f"-m{EMULATOR_MODULE}" in args


class _MutantLoader(importlib.machinery.SourceFileLoader):
    """The module's own source loader, compiling the mutated tree instead of the file's text: the
    import machinery runs it as it runs any module; nothing is written (no bytecode cache)."""

    def __init__(self, module: str, fullname: str, path: str, mutant_id: str) -> None:
        super().__init__(fullname, path)
        self.module = module
        self.mutant_id = mutant_id

    def source_to_code(self, data: Any, path: Any, *, _optimize: int = -1) -> Any:  # type: ignore[override]

        source = importlib.util.decode_source(bytes(data))
        tree = mutate_source(self.module, source, self.mutant_id, excluded(self.module))
        return compile(tree, str(path), "exec", dont_inherit=True)

    def get_code(self, fullname: str) -> Any:
        """Always from the mutated source, never from a cached ``.pyc`` of the original."""
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)


class _MutantFinder(importlib.abc.MetaPathFinder):
    def __init__(self, mutant_id: str) -> None:
        module = mutant_id.split(":", 1)[0]
        if module not in MODULES:
            raise ValueError(f"{MUTANT_ENV}={mutant_id!r}: module {module!r} is not mutated "
                             f"(one of {', '.join(MODULES)})")
        self.module = module
        self.fullname = import_name(module)
        self.mutant_id = mutant_id

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.fullname:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None:
            return None
        spec.loader = _MutantLoader(self.module, fullname, spec.origin, self.mutant_id)  # in memory, caches nothing
        return spec


class LineTrace:
    """Lines executed in the mutated modules, each with the case numbers it ran in."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.files = {str(source_path(m)): m for m in MODULES}
        self.hits: dict[str, dict[int, set[int]]] = {m: {} for m in MODULES}
        self._epoch: mmap.mmap | None = None
        #: the first request reached a device: before it, the emulator was starting (epoch -1)
        self.serving = False

    def epoch(self) -> int:
        if not self.serving:
            return STARTUP
        if self._epoch is None:
            try:
                with open(self.directory / EPOCH_FILE, "rb") as f:
                    self._epoch = mmap.mmap(f.fileno(), EPOCH_SIZE, access=mmap.ACCESS_READ)
            except (OSError, ValueError):
                return 0
        return int(struct.unpack_from("<q", self._epoch, 0)[0])

    def _global(self, frame: FrameType, event: str, arg: Any) -> Any:
        module = self.files.get(frame.f_code.co_filename)
        if module is None:
            return None
        hits = self.hits[module]
        if not self.serving and module == "base" and frame.f_code.co_name == "handle":
            self.serving = True
        epoch = self.epoch()

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                hits.setdefault(frame.f_lineno, set()).add(epoch)
            return local

        hits.setdefault(frame.f_lineno, set()).add(epoch)
        return local

    def start(self) -> None:
        sys.settrace(self._global)
        threading.settrace(self._global)
        atexit.register(self.write)

    def write(self) -> None:
        sys.settrace(None)
        data = {m: {str(line): sorted(e) for line, e in sorted(h.items())} for m, h in self.hits.items()}
        path = self.directory / f"lines-{os.getpid()}.json"
        path.write_text(json.dumps(data), encoding="utf-8")


def install_from_environment() -> None:
    """Called as ``harness.emulators`` is imported: act only in the emulator's own process."""
    mutant, trace = os.environ.get(MUTANT_ENV), os.environ.get(TRACE_ENV)
    if not (mutant or trace) or not in_emulator_process():
        return
    if mutant:
        sys.meta_path.insert(0, _MutantFinder(mutant))
    if trace:
        LineTrace(Path(trace)).start()
