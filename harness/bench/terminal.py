"""The terminal front end: prompts on the controlling terminal (``/dev/tty``), answered by a key.

It writes to and reads from the controlling terminal directly, not from stdin/stdout, which the
test runner captures.  Without a controlling terminal (CI, a service) it is simply not attached.
An answer is one line: ``d`` (done), ``c`` (cannot) or ``a`` (abort), optionally followed by a note
(``c no chips of that colour``).
"""

from __future__ import annotations

import contextlib
import select
import textwrap
import threading
from collections.abc import Callable
from typing import IO, Any

from harness.bench.prompts import Answer, Prompt, PromptBroker

KEYS = {"d": "done", "done": "done", "c": "cannot", "cannot": "cannot", "a": "abort", "abort": "abort"}


BELL = "\a"


def render(prompt: Prompt | dict[str, Any]) -> str:
    """A prompt as plain text: the instruction, then its sheet (card faces with suit symbols), what
    happens next and the keys.  ``prompt`` may be a :class:`Prompt` or its ``to_dict()`` (a prompt
    relayed from another process, :mod:`harness.bench.relay`)."""
    p = prompt.to_dict() if isinstance(prompt, Prompt) else prompt
    lines = ["", "=" * 72, f"tablecert needs the operator  [{p['id']}]  case {p['case']}",
             f"  {p['step']}" if p.get("step") else "", "", f"  >> {p['message']}"]
    sheet = p.get("sheet") if p.get("question", "act") == "act" else None
    if sheet and sheet["kind"] == "stack":
        lines.append(f"  {sheet['title']} (top card first):")
        for i, face in enumerate(sheet["cards"], 1):
            lines.append(f"    {i:3d}.  {face['rank']:>2}{face['suit']}   ({face['code']})")
    elif sheet and sheet["kind"] == "wagers":
        lines.append("  wager sheet:")
        for row in sheet["rows"]:
            lines.append(f"    seat {row['seat']}:  {row['area']:<14} {row['amount']}")
    if p.get("next"):
        lines += ["", *textwrap.wrap(f"next: {p['next']}", 70, initial_indent="  ", subsequent_indent="        ")]
    minutes, seconds = divmod(int(p["timeout_s"]), 60)
    lines += ["", f"  [d]one   [c]annot (a note may follow)   [a]bort the run      (within {minutes}:{seconds:02d})",
              "=" * 72]
    return "\n".join(x for x in lines if x is not None) + "\n> "


def withdrawn(prompt_id: str, timeout_s: float, answer: dict[str, Any] | None, *, here: str,
              why: str = "timeout") -> str:
    """What a front end says when a prompt has gone: timed out, or answered on another front end."""
    if answer is None:
        if why == "interrupted":
            return f"\n(prompt {prompt_id}: the run was interrupted)\n"
        return f"\n(prompt {prompt_id}: no answer within {timeout_s:g} s: timed out, the case ends TIMEOUT)\n"
    if answer.get("front_end") != here:
        return (f"\n(prompt {prompt_id}: answered {answer['answer']} by {answer.get('operator') or 'the operator'} "
                f"on the {answer.get('front_end') or 'bench'})\n")
    return ""


def parse(line: str) -> tuple[str | None, str]:
    """A typed line as (answer, note); answer None when the word is not one of the keys."""
    word, _, note = line.strip().partition(" ")
    return KEYS.get(word.lower()), note.strip()


def read_lines(tty_in: IO[str], stop: threading.Event, handle: Callable[[str], None]) -> None:
    """Hand every line typed on ``tty_in`` to ``handle`` until ``stop`` is set or the terminal closes
    (looking at ``stop`` every 0.2 s while nothing is typed)."""
    while not stop.is_set():
        try:
            if not select.select([tty_in], [], [], 0.2)[0]:
                continue
            line = tty_in.readline()
        except (OSError, ValueError):
            return
        if not line:
            return
        handle(line)


class TerminalFrontEnd:
    name = "terminal"

    def __init__(self, broker: PromptBroker, tty_in: IO[str], tty_out: IO[str]) -> None:
        self.broker = broker
        self.tty_in = tty_in
        self.tty_out = tty_out
        self.current: Prompt | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="terminal-prompts", daemon=True)
        self._thread.start()

    @classmethod
    def open(cls, broker: PromptBroker) -> TerminalFrontEnd | None:
        """On the controlling terminal, or None when there is none."""
        try:
            tty_in = open("/dev/tty", encoding="utf-8")  # noqa: SIM115 - kept open for the run
            tty_out = open("/dev/tty", "w", encoding="utf-8")  # noqa: SIM115
        except OSError:
            return None
        return cls(broker, tty_in, tty_out)

    def offer(self, prompt: Prompt) -> None:
        self.current = prompt
        self._write(BELL + render(prompt))

    def withdraw(self, prompt: Prompt, answer: Answer | None) -> None:
        if self.current is prompt:
            self.current = None
        last = self.broker.last or {}
        why = str(last.get("answer")) if last.get("id") == prompt.id else "timeout"
        self._write(withdrawn(prompt.id, prompt.timeout_s, answer.to_dict() if answer else None, here=self.name,
                              why=why))

    def _write(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.tty_out.write(text)
            self.tty_out.flush()

    def _read(self) -> None:
        read_lines(self.tty_in, self._stop, self.handle)

    def handle(self, line: str) -> None:
        answer, note = parse(line)
        prompt = self.current
        if prompt is None:
            return
        if answer is None:
            self._write("answer d (done), c (cannot) or a (abort)\n> ")
            return
        problem = self.broker.answer(prompt.id, answer, note=note, front_end=self.name)
        if problem:
            self._write(f"{problem}\n")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(1.0)
        for f in (self.tty_in, self.tty_out):
            with contextlib.suppress(OSError):
                f.close()

