"""The bench console, end to end in headless Chromium (Debian's ``chromium`` package).

A whole case (``lockout-button``: open the round, place wagers from a wager sheet, press the lock-out
button through a relay, try to withdraw a wager, stack the shoe from a sheet, deal) runs against
an emulator with no test channel.  Every prompt goes to the bench console only; the test plays the
person at the bench: it reads the instruction off the page in Chromium (driven over the DevTools
protocol on a pipe, no extra package), does the act at the emulator's physical side, types its
name and clicks Done in the page.  The record's prompts must carry the console's answers and that
name.  A screenshot with the stacking sheet is saved (``TABLECERT_UPDATE_SCREENSHOT=1`` copies it
to docs/img/bench-console.png, shown in the README).

CI installs chromium (scripts/test.sh); there the test must run.  Elsewhere a missing browser skips.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.bench.hands import Hands
from harness.bench.scripted import HumanPace, ScriptedOperator
from harness.bench.session import BenchSession
from harness.bench.twin import twin_mapping
from harness.games.interpretations import Interpretations
from harness.profiles import load_profile, load_profile_text
from harness.suites.load.schema import load_suite
from harness.suites.run.oracle import Oracle
from harness.suites.run.profile_rig import open_rig
from harness.suites.run.runner import CaseRunner

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
         "--window-size=1280,900"]
DEADLINE_S = 60.0


def _chromium() -> str:
    found = next((p for p in ("/usr/bin/chromium", shutil.which("chromium")) if p and os.access(p, os.X_OK)), None)
    if found is None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail("chromium is missing in CI: the CI setup must run `apt-get install -y chromium`")
        pytest.skip("chromium not installed (apt-get install -y chromium); CI must have it")
    return found


class Browser:
    """Headless Chromium driven over ``--remote-debugging-pipe`` (fd 3 in, fd 4 out, NUL-framed JSON)."""

    def __init__(self, binary: str, profile_dir: Path) -> None:
        to_r, self._to = os.pipe()
        self._from, from_w = os.pipe()
        # a launcher puts the two pipe ends on the browser's fds 3 and 4, then becomes the browser
        launcher = ("import os, sys; a, b = int(sys.argv[1]), int(sys.argv[2]); os.dup2(a, 100); "
                    "os.dup2(b, 101); os.dup2(100, 3); os.dup2(101, 4); os.execv(sys.argv[3], sys.argv[3:])")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", launcher, str(to_r), str(from_w), binary, *FLAGS,
             f"--user-data-dir={profile_dir}", "--remote-debugging-pipe", "about:blank"],
            pass_fds=(to_r, from_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(to_r)
        os.close(from_w)
        self._buf = b""
        self._id = 0
        self.session = ""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self._to, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + DEADLINE_S
        while True:
            while b"\0" in self._buf:
                raw, _, self._buf = self._buf.partition(b"\0")
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    result: dict[str, Any] = reply.get("result", {})
                    return result
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from], [], [], left)[0]:
                raise TimeoutError(f"chromium did not answer {method} within {DEADLINE_S} s")
            chunk = os.read(self._from, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium went away")
            self._buf += chunk

    def js(self, expression: str) -> Any:
        got = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in got:
            raise RuntimeError(f"{expression}: {got['exceptionDetails']}")
        return got["result"].get("value")

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        for fd in (self._to, self._from):
            os.close(fd)
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


def _bench_profile(tmp: Path) -> Any:
    """The $5 table's bench: no test channel, the lock-out button on a relay, everything else by hand,
    prompts on the bench console only."""
    data = twin_mapping(load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml"))
    data["name"] = "console-bench"
    data["bench"]["operator"] = {"name": "", "console": True, "terminal": False, "prompt_timeout_s": 60}
    return load_profile_text(yaml.safe_dump(data, sort_keys=False), str(tmp / "console-bench.yaml"))


def _wait(what: str, check: Any, timeout_s: float = DEADLINE_S) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise TimeoutError(f"no {what} within {timeout_s} s")


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_the_bench_console_drives_a_whole_case_in_headless_chromium(tmp_path: Path) -> None:
    binary = _chromium()
    profile = _bench_profile(tmp_path)
    suite = load_suite(ROOT / "suites" / "lockout" / "lockout.suite.yaml", fixtures=ROOT / "fixtures")
    case = next(c for c in suite.cases if c.name == "lockout-button")
    rig = open_rig(profile, run_dir=tmp_path / "emulator")
    bench = BenchSession(profile, run_id="console-test")
    browser: Browser | None = None
    hands: ScriptedOperator | None = None
    try:
        bench.open(rig)
        assert bench.console is not None and bench.broker is not None
        url = bench.console.url
        assert url.startswith("http://127.0.0.1:") and "token=" in url
        with pytest.raises(urllib.error.HTTPError) as refused:  # no token, no state
            urllib.request.urlopen(url.split("?")[0] + "api/state", timeout=5)
        assert refused.value.code == 403
        # the person's hands at the emulated table (only carry_out is used: the answer is the page's)
        oracle = Oracle(profile, Interpretations.from_overrides(dict(profile.interpretations)))
        hands = ScriptedOperator(Hands(str(rig.emulator.addresses["physical"])), bench.broker, oracle.cards_in_round,
                                 pace=HumanPace(speed=HumanPace().speed * 1000))
        runner = CaseRunner(case, rig, oracle, performers=bench.performers)
        outcome: dict[str, Any] = {}

        def run_case() -> None:
            try:
                runner.run()
                outcome["verdict"] = "PASS"
            except BaseException as exc:
                outcome["verdict"] = f"{type(exc).__name__}: {exc}"

        browser = Browser(binary, tmp_path / "chromium-profile")
        browser.call("Page.navigate", url=url)
        _wait("console page", lambda: browser.js("document.readyState") == "complete")
        browser.js("document.getElementById('operator').value = 'J. Tester'; "
                   "document.getElementById('operator').dispatchEvent(new Event('change')); true")
        bench.case_started(case.name, case.title, 12, 79)
        worker = threading.Thread(target=run_case, daemon=True)
        worker.start()
        shot = tmp_path / "bench-console.png"
        answered = 0
        while worker.is_alive() or bench.broker.current is not None:
            shown = browser.js("(() => { const p = document.getElementById('prompt');"
                               " return p.hidden ? '' : p.dataset.id + '|' +"
                               " document.getElementById('instruction').textContent; })()")
            prompt = bench.broker.current
            if not shown or prompt is None or not shown.startswith(prompt.id + "|"):
                time.sleep(0.05)
                continue
            assert shown.split("|", 1)[1] == prompt.message  # the page shows the prompt's words
            if prompt.act.kind == "load" and not shot.exists():
                faces = browser.js("[...document.querySelectorAll('#sheet .card')].map(c => c.dataset.code)")
                assert faces == [c.code for c in prompt.act.cards]  # type: ignore[attr-defined]
                assert browser.js("document.querySelector('#sheet .card.red .suit').textContent") in "\u2665\u2666"
                browser.js("document.getElementById('note').value = 'stacked from the sheet'; true")
                _wait("the device events list", lambda: browser.js("document.querySelectorAll('#events li').length"))
                browser.screenshot(shot)
            answer, _note = hands.carry_out(prompt)
            assert answer == "done", (prompt.message, _note)
            browser.js("document.getElementById('done').click(); true")
            _wait("the prompt to be answered", lambda p=prompt: bench.broker.current is not p, 15)
            answered += 1
        worker.join(30)
        assert outcome.get("verdict") == "PASS", outcome
        log = bench.prompts()
        assert answered == len(log) >= 6
        assert {e["answer"]["front_end"] for e in log} == {"bench console"}
        assert {e["answer"]["operator"] for e in log} == {"J. Tester"}
        assert any(e["answer"]["note"] == "stacked from the sheet" for e in log)
        acts = [e["prompt"]["act"]["act"] for e in log]
        assert acts[0] == "open-round" and "load" in acts and "deal" in acts
        assert "lockout-button" not in acts  # the relay pressed it, not the operator
        head = shot.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", head[16:24]) == (1280, 900)
        assert shot.stat().st_size > 20_000
        if os.environ.get("TABLECERT_UPDATE_SCREENSHOT") == "1":
            (ROOT / "docs" / "img").mkdir(exist_ok=True)
            shutil.copyfile(shot, ROOT / "docs" / "img" / "bench-console.png")
    finally:
        if browser is not None:
            browser.close()
        if hands is not None:
            hands.close()
        bench.close()
        rig.close()


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_person_answers_every_prompt_of_tablecert_run_in_chromium(tmp_path: Path) -> None:
    """``tablecert run`` as a lab runs it off a terminal (stdin not a terminal, output to a pipe: only
    the console can answer, and the run says so).  The test reads the console's address from the
    run's output, opens it in Chromium, reads each instruction off the page, does the act at the
    emulated table's physical side and clicks Done; the case passes.  No scripted operator."""
    from benchperson import (
        CASE,
        Person,
        console_state,
        emulator_addresses,
        human_bench_profile,
        record_prompts,
        tablecert_command,
    )

    binary = _chromium()
    profile = human_bench_profile(tmp_path)
    emu_tmp = tmp_path / "emu"
    emu_tmp.mkdir()
    reports = tmp_path / "reports"
    out_path = tmp_path / "run-output.txt"
    with open(out_path, "wb") as out:
        proc = subprocess.Popen([*tablecert_command(), "run", CASE, "--profile", str(profile), "--operator",
                                 "J. Doe", "--report-dir", str(reports), "-q"],
                                cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "TMPDIR": str(emu_tmp)}, start_new_session=True)
    browser: Browser | None = None
    person: Person | None = None
    try:
        def address() -> str | None:
            for line in out_path.read_text("utf-8", "replace").splitlines():
                if line.startswith("tablecert: bench console at "):
                    return line.rsplit(" ", 1)[1]
            if proc.poll() is not None:
                raise AssertionError(out_path.read_text("utf-8", "replace")[-3000:])
            return None

        url = _wait("the console's address in the run's output", address)
        _wait("the run to say only the console can answer",
              lambda: "only the bench console can answer" in out_path.read_text("utf-8", "replace"))
        person = Person(profile, str(emulator_addresses(emu_tmp)["physical"]))
        browser = Browser(binary, tmp_path / "chromium-profile")
        browser.call("Page.navigate", url=url)
        _wait("console page", lambda: browser.js("document.readyState") == "complete")
        browser.js("document.getElementById('operator').value = 'J. Page'; "
                   "document.getElementById('operator').dispatchEvent(new Event('change')); true")
        answered: list[str] = []
        deadline = time.monotonic() + 240
        while proc.poll() is None and time.monotonic() < deadline:
            shown = browser.js("(() => { const p = document.getElementById('prompt');"
                               " return p.hidden ? '' : p.dataset.id + '|' +"
                               " document.getElementById('instruction').textContent + '|' + document.title; })()")
            if not shown or shown.split("|", 1)[0] in answered:
                time.sleep(0.05)
                continue
            pid, instruction, title = shown.split("|", 2)
            assert title.startswith("\u25b6 ACTION NEEDED") and instruction in title  # the alert
            state = console_state(url)["prompt"]
            assert state is not None and state["id"] == pid and state["message"] == instruction
            assert browser.js("document.getElementById('next').textContent").startswith("Next: Done: tablecert")
            answer, note = person.act(state)
            assert answer == "done", (instruction, note)
            browser.js("document.getElementById('done').click(); true")
            answered.append(pid)
            # the page shows how the prompt ended (unless that was the last prompt and the run is over)
            _wait("the page to show the answer",
                  lambda p=pid: proc.poll() is not None or browser.js(
                      "document.getElementById('last').dataset.id || ''") == p, 30)
        assert proc.wait(60) == 4, out_path.read_text("utf-8", "replace")[-3000:]  # one case: PARTIAL
        assert int(browser.js("document.body.dataset.alerts || '0'")) == len(answered)
    finally:
        if browser is not None:
            browser.close()
        if person is not None:
            person.close()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)
    output = out_path.read_text("utf-8", "replace")
    assert "overall: PARTIAL (exit 4)" in output
    prompts, bench = record_prompts(reports)
    assert [e["prompt"]["id"] for e in prompts] == answered and len(answered) >= 6
    assert {e["answer"]["front_end"] for e in prompts} == {"bench console"}
    assert {e["answer"]["operator"] for e in prompts} == {"J. Page"}
    assert bench["front_ends"] == ["bench console"]  # no terminal to answer on: it is not claimed
