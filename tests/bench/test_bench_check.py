"""``tablecert bench check``: devices, identities, jitter, counter and each actuator once, no case run.

On the $5 table's bench twin the scripted operator confirms; on the bench with a person, the test
answers on the bench console as the person would: it confirms the lock-out button and says Cannot
for the cable, which the table shows as not OK (exit 3 from the command).
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from benchperson import console_state, human_bench_profile

from harness.bench.check import check, table
from harness.cli import main
from harness.profiles import load_profile

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_bench_twin_checks_out(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["bench", "check", "--profile", str(ROOT / "device_profiles" / "emulated-midi-5.yaml"),
                   "--bench-twin"])
    out = capsys.readouterr().out
    assert status == 0, out
    for row in ("identity shoe", "identity controller", "identity counter", "jitter host stamps", "counter arm",
                "actuator relay", "operate lockout-button", "operate comm"):
        assert re.search(rf"^{row} +OK ", out, re.M), (row, out)
    assert "bench check: OK (emulated-midi-5-bench)" in out


def _answer(url: str, prompt: str, answer: str, note: str = "") -> None:
    base, _, query = url.partition("?")
    token = query.removeprefix("token=")
    body = json.dumps({"prompt": prompt, "answer": answer, "operator": "J. Doe", "note": note}).encode()
    req = urllib.request.Request(f"{base}api/answer", data=body, method="POST",
                                 headers={"X-Tablecert-Token": token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        assert resp.status == 200


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_person_confirms_each_actuator_on_the_console(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = load_profile(human_bench_profile(tmp_path, terminal=False))
    result: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: result.update(rows=check(profile)), daemon=True)
    worker.start()
    said = ""
    deadline = time.monotonic() + 90
    url = None
    while url is None and time.monotonic() < deadline:
        said += capsys.readouterr().err
        found = re.search(r"bench console at (http://127\.0\.0\.1:\d+/\?token=\S+)", said)
        url = found.group(1) if found else None
        time.sleep(0.05)
    assert url is not None, said
    answers = {"lockout-button": ("done", "lamp lit"), "comm": ("cannot", "no cable alarm on the controller")}
    asked = []
    while worker.is_alive() and time.monotonic() < deadline:
        try:
            prompt = console_state(url)["prompt"]
        except OSError:  # the check is over and its console gone
            break
        if prompt is None or prompt["id"] in [a[0] for a in asked]:
            time.sleep(0.05)
            continue
        assert prompt["question"] == "confirm" and prompt["next"].startswith("Done: you saw it happen")
        kind = prompt["act"]["act"]
        asked.append((prompt["id"], kind, prompt["message"]))
        _answer(url, prompt["id"], *answers[kind])
    worker.join(30)
    assert [a[1] for a in asked] == ["lockout-button", "comm"]
    assert "pressed the lock-out button" in asked[0][2] and "broke the controller-sensors cable" in asked[1][2]
    rows = {f"{r.what} {r.item}": r for r in result["rows"]}
    assert rows["operate lockout-button"].ok and "confirmed by J. Doe on the bench console: lamp lit" in \
        rows["operate lockout-button"].detail
    assert not rows["operate comm"].ok and "NOT seen by J. Doe" in rows["operate comm"].detail
    assert all(r.ok for k, r in rows.items() if k != "operate comm")
    text = table(result["rows"])
    assert re.search(r"^operate comm +FAIL +NOT seen by J\. Doe on the bench console: no cable alarm", text, re.M)
