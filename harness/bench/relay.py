"""The operator's terminal across processes: ``tablecert run`` owns the terminal, its pytest child asks.

``tablecert run`` runs each profile in a pytest child of its own session with stdin from
``/dev/null`` (so the terminal's Ctrl-C reaches only ``tablecert run``); the child cannot open the
terminal, and what it writes is captured.  So the process that owns the terminal talks to the person:

* :class:`TerminalRelay` (in ``tablecert run``) makes a socket pair per profile run, passes one end to
  the child (its descriptor in the environment variable :data:`ENV`, ``FD`` or ``FD:terminal`` when
  ``tablecert run`` has a terminal a person can answer on), prints what the child says (the bench
  console's address, before the first case), shows each prompt with a bell, and sends back the
  answer typed on the terminal (``d``, ``c`` or ``a``, a note may follow).
* :class:`RelayLink` (in the child, opened by :class:`harness.bench.session.BenchSession`) carries
  those lines; :class:`RelayedTerminal` is the terminal front end of the child's prompt broker.  It
  is attached only when the parent has a terminal, so the record's ``front_ends`` say who could answer.

Both directions are JSON lines: child to parent ``{"say": TEXT}``, ``{"offer": PROMPT}``,
``{"withdraw": ID, "timeout_s": S, "answer": ANSWER or null, "why": "timeout"|"interrupted"}``;
parent to child ``{"prompt": ID, "answer": "done"|"cannot"|"abort", "note": TEXT}``.  An answer
from the terminal goes to the same broker as the console's: the first answer counts, and the other
front end shows the prompt as answered at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

from harness.bench.prompts import Answer, Prompt, PromptBroker
from harness.bench.terminal import BELL, parse, read_lines, render, withdrawn

#: the environment variable naming the child's end of the relay: ``FD`` or ``FD:terminal``
ENV = "TABLECERT_BENCH_FD"
NAME = "terminal"
MAX_LINE = 1 << 20


class RelayLink:
    """The child's end: JSON lines to ``tablecert run``; answers from it go to the broker."""

    def __init__(self, sock: socket.socket, terminal: bool) -> None:
        self.sock = sock
        #: ``tablecert run`` has a terminal a person can answer on
        self.terminal = terminal
        self.broker: PromptBroker | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_environment(cls) -> RelayLink | None:
        value = os.environ.get(ENV, "")
        fd_text, _, what = value.partition(":")
        if not fd_text.isdigit():
            return None
        try:
            sock = socket.socket(fileno=int(fd_text))
        except OSError:
            return None
        if sock.family != socket.AF_UNIX:
            sock.detach()  # not ours: leave the descriptor alone
            return None
        os.environ.pop(ENV, None)  # one bench per process takes it
        return cls(sock, what == "terminal")

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock, contextlib.suppress(OSError):
            self.sock.sendall(data)

    def say(self, text: str) -> None:
        self.send({"say": text})

    def serve(self, broker: PromptBroker) -> None:
        """Take answers from ``tablecert run`` for ``broker`` until the link closes."""
        self.broker = broker
        self._thread = threading.Thread(target=self._read, name="bench-relay", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for message in _lines(self.sock):
            if self.broker is None or "answer" not in message:
                continue
            problem = self.broker.answer(str(message.get("prompt", "")), str(message["answer"]),
                                         note=str(message.get("note") or ""), front_end=NAME)
            if problem:
                self.say(f"tablecert: {problem}")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        if self._thread is not None:
            self._thread.join(2.0)


class RelayedTerminal:
    """The terminal front end of the child's broker: prompts go to the terminal ``tablecert run`` owns."""

    name = NAME

    def __init__(self, link: RelayLink) -> None:
        self.link = link

    def offer(self, prompt: Prompt) -> None:
        self.link.send({"offer": prompt.to_dict()})

    def withdraw(self, prompt: Prompt, answer: Answer | None) -> None:
        last = (self.link.broker.last if self.link.broker is not None else None) or {}
        why = str(last.get("answer")) if last.get("id") == prompt.id and answer is None else "timeout"
        self.link.send({"withdraw": prompt.id, "timeout_s": prompt.timeout_s,
                        "answer": answer.to_dict() if answer else None, "why": why})

    def close(self) -> None:
        pass  # the link is closed by the bench session


def _lines(sock: socket.socket) -> Any:
    """JSON objects, one a line, until the socket closes."""
    buf = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except OSError:
            return
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            raw, _, buf = buf.partition(b"\n")
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict):
                yield message
        if len(buf) > MAX_LINE:
            buf = b""


def terminal_available() -> bool:
    """A person can answer on this process's terminal: stdin is one and it can be opened."""
    try:
        if not sys.stdin.isatty():
            return False
        with open("/dev/tty", "rb"):
            return True
    except (OSError, ValueError, AttributeError):
        return False


class TerminalRelay:
    """``tablecert run``'s end for one profile run (see the module docstring).

    ``say`` prints a line where the run's output goes (above the progress bar); ``hold`` stops and
    restarts the progress bar while a prompt waits, so the typed answer is not drawn over.
    """

    def __init__(self, say: Callable[[str], None], *, hold: Callable[[bool], None] | None = None,
                 terminal: bool | None = None) -> None:
        self.say = say
        self.hold = hold or (lambda on: None)
        self.terminal = terminal_available() if terminal is None else terminal
        self.parent, self.child = socket.socketpair()
        self.current: str | None = None
        self._tty_in: IO[str] | None = None
        self._tty_out: IO[str] | None = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def env(self) -> dict[str, str]:
        """The child's environment entry for its end of the relay."""
        return {ENV: f"{self.child.fileno()}{':terminal' if self.terminal else ''}"}

    def child_fd(self) -> int:
        return self.child.fileno()

    def start(self) -> None:
        """After the child started: our copy of its end is closed; read the child and the terminal."""
        self.child.close()
        if self.terminal:
            try:
                self._tty_in = open("/dev/tty", encoding="utf-8")  # noqa: SIM115 - kept open for the run
                self._tty_out = open("/dev/tty", "w", encoding="utf-8")  # noqa: SIM115
            except OSError:
                self.terminal = False
        self._threads = [threading.Thread(target=self._from_child, name="relay-child", daemon=True)]
        if self._tty_in is not None:
            self._threads.append(threading.Thread(target=self._from_terminal, name="relay-tty", daemon=True))
        for t in self._threads:
            t.start()

    # -- the child's lines ----------------------------------------------------------------------
    def _from_child(self) -> None:
        for message in _lines(self.parent):
            self.handle(message)
        self._prompt_gone()

    def handle(self, message: dict[str, Any]) -> None:
        if "say" in message:
            self.say(str(message["say"]))
        elif "offer" in message:
            prompt = message["offer"]
            with self._lock:
                self.current = str(prompt.get("id"))
            self.hold(True)
            self._bell()
            self.say(render(prompt).rstrip("> ").rstrip())
            self._write("> ")
        elif "withdraw" in message:
            text = withdrawn(str(message["withdraw"]), float(message.get("timeout_s") or 0), message.get("answer"),
                             here=NAME, why=str(message.get("why") or "timeout"))
            if text.strip():
                self._write("\n")  # off the "> " line the answer would have been typed on
                self.say(text.strip())
            with self._lock:
                if self.current == message["withdraw"]:
                    self.current = None
            self._prompt_gone()

    def _prompt_gone(self) -> None:
        self.hold(False)

    def _bell(self) -> None:
        self._write(BELL)

    def _write(self, text: str) -> None:
        if self._tty_out is None:
            return
        with contextlib.suppress(OSError, ValueError):
            self._tty_out.write(text)
            self._tty_out.flush()

    # -- the person's lines ---------------------------------------------------------------------
    def _from_terminal(self) -> None:
        assert self._tty_in is not None
        read_lines(self._tty_in, self._stop, self.typed)

    def typed(self, line: str) -> None:
        """A line the person typed: the answer to the current prompt."""
        with self._lock:
            current = self.current
        if current is None:
            if line.strip():
                self.say("(no prompt is waiting for an answer)")
            return
        answer, note = parse(line)
        if answer is None:
            self._write("answer d (done), c (cannot) or a (abort)\n> ")
            return
        data = json.dumps({"prompt": current, "answer": answer, "note": note}) + "\n"
        with contextlib.suppress(OSError):
            self.parent.sendall(data.encode("utf-8"))

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self.parent.shutdown(socket.SHUT_RDWR)
        for t in self._threads:
            t.join(2.0)
        self.parent.close()
        with contextlib.suppress(OSError):
            self.child.close()
        for f in (self._tty_in, self._tty_out):
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()
        self.hold(False)
