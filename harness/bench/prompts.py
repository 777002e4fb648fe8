"""Operator prompts: one model, several front ends (after OpenHTF's user-input plug).

A prompt is an instruction to a person (:class:`Prompt`: the message, the act it stands for, a
sheet to work from, a deadline); its answer is one of ``done``, ``cannot``, ``abort``
(:class:`Answer`: who answered, when, through which front end, with an optional note).  The
:class:`PromptBroker` offers each prompt to every attached front end at once (the terminal, the
bench console in a browser, the scripted operator of an emulated bench) and takes the first
answer; the others see the prompt withdrawn.  Every prompt and its answer is kept for the record
(:meth:`PromptBroker.take_log`): what the person was asked, who answered what, and when.

The broker also keeps the board a front end shows around the prompt: the run's progress and the
device events as they arrive (:class:`Board`).

A step that plays rounds in bulk (thousands of random rounds for a statistic, where no act's timing
is judged) asks inside :meth:`PromptBroker.bulk_rounds`: its prompts say so (``Prompt.bulk``), and a
front end may act on them at another pace (the scripted operator's ``bulk_speed``); a person is
asked the same way.

``cannot`` ends the case as an ERROR of the rig (the act could not be carried out), ``abort`` stops
the run (INTERRUPTED, resumable with ``tablecert run --resume``), no answer by the deadline ends
the case as a TIMEOUT (the record keeps which prompt went unanswered and for how long, and every
front end is told).  Each prompt also says what happens after each answer (:data:`NEXT`), so a
person at arm's length knows what the harness will do with it.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from harness.bench.acts import Act
from harness.errors import DeviceError, DeviceTimeout

ANSWERS = ("done", "cannot", "abort")
EVENTS_KEPT = 200


#: what tablecert does once the act is Done, by act kind (shown under the instruction)
NEXT = {
    "load": "tablecert then has the cards dealt and compares the shoe's card events with the sheet",
    "deal": "tablecert compares the shoe's card events with what the round needs",
    "wager": "tablecert checks the sensors' wager events against the wager sheet",
    "remove-wager": "tablecert checks whether the sensors accepted or refused the removal",
    "open-round": "tablecert waits for the controller's round-open event",
    "no-more-bets": "tablecert checks the controller's no-more-bets event and the lock-out",
    "lockout-button": "tablecert checks the controller's lock-out event and its time",
    "reset-key": "tablecert reads the meters and checks the reset",
    "power": "tablecert waits for the devices to answer again and reads their meters",
    "comm": "tablecert checks how the controller reports the cable",
}
MISSTACK_NEXT = ("Done: the shoe's reading is judged as it is; Cannot: the shoe was misstacked and the case "
                 "is run again from its start (never a FAIL)")
CONFIRM_NEXT = "Done: you saw it happen; Cannot: you did not (the bench check says so; a note may say what you saw)"
AFTER = "Cannot: this case ends as an ERROR of the rig; Abort: the run stops INTERRUPTED (tablecert run --resume)"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class OperatorAborted(KeyboardInterrupt):
    """The operator answered Abort: the run stops as INTERRUPTED (never a device fault)."""


class OperatorCannot(DeviceError):
    """The operator answered Cannot: the act could not be carried out on this bench."""


@dataclass
class Prompt:
    id: str
    act: Act
    message: str
    case: str
    step: str
    timeout_s: float
    asked_at: str
    asked_ns: int
    #: ``act`` (carry out the act) or ``misstack`` (were the cards dealt the sheet's?)
    question: str = "act"
    #: one of a step's bulk rounds (PromptBroker.bulk_rounds): no act's timing is judged
    bulk: bool = False

    @property
    def next(self) -> str:
        """What happens after each answer (see :data:`NEXT`)."""
        if self.question == "misstack":
            return MISSTACK_NEXT
        if self.question == "confirm":
            return CONFIRM_NEXT
        done = NEXT.get(self.act.kind, "tablecert goes on with the case")
        return f"Done: {done}. {AFTER}"

    @property
    def deadline_ns(self) -> int:
        return self.asked_ns + int(self.timeout_s * 1e9)

    def left_s(self) -> float:
        return max(0.0, (self.deadline_ns - time.monotonic_ns()) / 1e9)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "message": self.message, "act": self.act.to_dict(), "sheet": self.act.sheet(),
            "case": self.case, "step": self.step, "timeout_s": int(self.timeout_s), "asked_at": self.asked_at,
            "question": self.question, "answers": list(ANSWERS), "bulk": self.bulk, "next": self.next,
        }


@dataclass(frozen=True)
class Answer:
    prompt_id: str
    answer: str
    operator: str
    note: str
    answered_at: str
    front_end: str
    #: from the prompt to the answer, in milliseconds
    after_ms: int

    def to_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "operator": self.operator, "note": self.note,
                "answered_at": self.answered_at, "front_end": self.front_end, "after_ms": self.after_ms}


class FrontEnd(Protocol):
    """Presents prompts to a person (or acts them out); answers through :meth:`PromptBroker.answer`."""

    name: str

    def offer(self, prompt: Prompt) -> None:
        """Show ``prompt`` (must not block: the answer comes later through the broker)."""

    def withdraw(self, prompt: Prompt, answer: Answer | None) -> None:
        """The prompt is answered (or timed out) and no longer current."""

    def close(self) -> None: ...


@dataclass
class Board:
    """What the bench console shows around the prompt: the run's progress and device events."""

    run_id: str = ""
    profile: str = ""
    done: int = 0
    total: int = 0
    case: str = ""
    title: str = ""
    verdicts: dict[str, int] = field(default_factory=dict)
    events: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=EVENTS_KEPT))
    event_count: int = 0


class PromptBroker:
    """Offers prompts to the front ends and waits for the first answer (see the module docstring)."""

    def __init__(self, operator: str = "", timeout_s: float = 900.0) -> None:
        self.operator = operator
        self.timeout_s = timeout_s
        self.front_ends: list[FrontEnd] = []
        self.board = Board()
        self.current: Prompt | None = None
        self._answer: Answer | None = None
        self._log: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        #: time spent waiting for a person's answers (a case's own deadline does not count it)
        self.waited_ns = 0
        #: the prompts asked now are a step's bulk rounds (:meth:`bulk_rounds`)
        self.bulk = False
        #: how the last prompt ended (a front end shows it after the prompt has gone)
        self.last: dict[str, Any] | None = None

    @contextlib.contextmanager
    def bulk_rounds(self) -> Iterator[None]:
        """Prompts asked inside are marked bulk (see the module docstring)."""
        was, self.bulk = self.bulk, True
        try:
            yield
        finally:
            self.bulk = was

    def attach(self, front_end: FrontEnd) -> None:
        self.front_ends.append(front_end)

    def close(self) -> None:
        for fe in self.front_ends:
            fe.close()
        self.front_ends.clear()

    # ------------------------------------------------------------------ asking

    def ask(self, act: Act, *, case: str = "", step: str = "", message: str | None = None,
            question: str = "act", raise_on_cannot: bool = True, timeout_s: float | None = None) -> Answer:
        """Offer a prompt for ``act`` and wait for its answer (see the module docstring)."""
        if not self.front_ends:
            raise DeviceError("an act needs the operator and no prompt front end is attached "
                              "(bench.operator: console or terminal)")
        prompt = Prompt(f"p{next(self._ids):05d}", act, message or act.instruction(), case, step,
                        timeout_s if timeout_s is not None else self.timeout_s, utc_now(), time.monotonic_ns(),
                        question, self.bulk)
        with self._cond:
            self.current, self._answer = prompt, None
        for fe in list(self.front_ends):
            fe.offer(prompt)
        interrupted = False
        try:
            with self._cond:
                while self._answer is None:
                    left = prompt.left_s()
                    if left <= 0:
                        break
                    self._cond.wait(left)
        except BaseException:  # Ctrl-C during the prompt: kept as evidence, then passed on
            interrupted = True
            raise
        finally:
            with self._cond:
                answer, self.current = self._answer, None
            self._finish(prompt, answer, interrupted)
        if answer is None:
            raise DeviceTimeout(f"the operator did not answer within {prompt.timeout_s:g} s (prompt {prompt.id}, "
                                f"{prompt.act.kind}): {prompt.message}")
        if answer.answer == "abort":
            raise OperatorAborted(f"the operator ({answer.operator or 'unnamed'}) aborted the run at: "
                                  f"{prompt.message}")
        if answer.answer == "cannot" and raise_on_cannot:
            raise OperatorCannot(f"the operator ({answer.operator or 'unnamed'}) could not: {prompt.message}"
                                 + (f" ({answer.note})" if answer.note else ""))
        return answer

    def _finish(self, prompt: Prompt, answer: Answer | None, interrupted: bool) -> None:
        """Log how ``prompt`` ended and withdraw it from every front end."""
        waited_ns = time.monotonic_ns() - prompt.asked_ns
        self.waited_ns += waited_ns
        waited_ms = waited_ns // 1_000_000
        entry: dict[str, Any] = {"prompt": prompt.to_dict(), "answer": answer.to_dict() if answer else None}
        if answer is None:
            entry["unanswered"] = {"why": "interrupted" if interrupted else "timeout", "after_ms": waited_ms}
        self._log.append(entry)
        if answer is not None:
            outcome = (f"answered {answer.answer} by {answer.operator or 'the operator'} on the "
                       f"{answer.front_end or 'bench'} after {answer.after_ms / 1000:.1f} s")
        elif interrupted:
            outcome = f"the run was interrupted after {waited_ms / 1000:.1f} s"
        else:
            outcome = f"timed out: no answer within {prompt.timeout_s:g} s; the case ends TIMEOUT"
        with self._cond:
            self.last = {"id": prompt.id, "message": prompt.message, "case": prompt.case,
                         "answer": answer.answer if answer else ("interrupted" if interrupted else "timeout"),
                         "outcome": outcome}
        for fe in list(self.front_ends):
            with contextlib.suppress(Exception):  # a front end gone away must not hide the answer
                fe.withdraw(prompt, answer)

    def answer(self, prompt_id: str, answer: str, *, operator: str = "", note: str = "",
               front_end: str = "") -> str | None:
        """Answer the current prompt; returns why the answer was not taken (None: taken)."""
        if answer not in ANSWERS:
            return f"answer {answer!r}: expected one of {', '.join(ANSWERS)}"
        with self._cond:
            prompt = self.current
            if prompt is None or prompt.id != prompt_id:
                return f"prompt {prompt_id} is not the current prompt"
            if self._answer is not None:
                return f"prompt {prompt_id} is already answered"
            self._answer = Answer(prompt_id, answer, operator or self.operator, note[:500], utc_now(), front_end,
                                  (time.monotonic_ns() - prompt.asked_ns) // 1_000_000)
            self._cond.notify_all()
        return None

    def take_log(self) -> list[dict[str, Any]]:
        """The prompts and answers since the last call (one case's evidence)."""
        out, self._log = self._log, []
        return out

    # ------------------------------------------------------------------ the board

    def device_event(self, role: str, name: str, payload: dict[str, Any]) -> None:
        with self._cond:
            self.board.event_count += 1
            self.board.events.append({"n": self.board.event_count, "at": utc_now(), "role": role, "event": name,
                                      "payload": {k: v for k, v in payload.items() if k != "event"}})

    def progress(self, *, done: int, total: int, case: str = "", title: str = "",
                 verdict: str | None = None) -> None:
        with self._cond:
            b = self.board
            b.done, b.total, b.case, b.title = done, total, case, title
            if verdict:
                b.verdicts[verdict] = b.verdicts.get(verdict, 0) + 1

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        """The board and the current prompt, as plain data (the bench console polls it)."""
        with self._cond:
            b = self.board
            prompt = self.current
            return {
                "run_id": b.run_id, "profile": b.profile, "operator": self.operator,
                "progress": {"done": b.done, "total": b.total, "case": b.case, "title": b.title,
                             "verdicts": dict(b.verdicts)},
                "prompt": None if prompt is None else {**prompt.to_dict(), "left_s": round(prompt.left_s(), 1)},
                "events": [e for e in b.events if e["n"] > since],
                "last_event": b.event_count,
                "last": self.last,
            }
