"""The HTML report opened in headless Chromium (Debian's ``chromium`` package).

CI installs chromium (``apt-get install -y chromium``); there this test must run, so a missing
browser is a failure when ``CI`` is set.  On a workstation without chromium it skips with the reason.
Set ``TABLECERT_UPDATE_SCREENSHOT=1`` to copy the screenshot to docs/img/report.png.
"""

from __future__ import annotations

import os
import shutil
import signal
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 90
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str:
    found = next((p for p in ("/usr/bin/chromium", shutil.which("chromium")) if p and os.access(p, os.X_OK)), None)
    if found is None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail("chromium is missing in CI: the CI setup must run `apt-get install -y chromium`")
        pytest.skip("chromium not installed (apt-get install -y chromium); CI must have it")
    return found


def _run(argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    """Run chromium in its own process group; on timeout, end that group (only what we started)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=10)
        pytest.fail(f"chromium did not finish within {TIMEOUT_S} s")
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def test_report_renders_in_headless_chromium(make_run, tmp_path: Path) -> None:
    browser = _chromium()
    run_dir = make_run()
    url = (run_dir / "record.html").resolve().as_uri()
    profile = tmp_path / "chromium-profile"

    dom = _run([browser, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url])
    assert dom.returncode == 0, dom.stderr.decode(errors="replace")[-2000:]
    text = dom.stdout.decode("utf-8")
    assert "<title>tablecert certification report: Acme Gaming R9-Controller 2.4.1: FAIL</title>" in text
    assert 'id="verdict">Overall verdict: <strong>FAIL</strong>' in text
    assert '<table class="matrix">' in text and "<code>pa-midi-r9-paytable-5</code>" in text
    assert text.count("<svg") == 3

    shot = tmp_path / "report.png"
    res = _run([browser, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}", "--window-size=1280,2000", url])
    assert res.returncode == 0 and shot.is_file(), res.stderr.decode(errors="replace")[-2000:]
    head = shot.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", head[16:24]) == (1280, 2000)
    assert shot.stat().st_size > 20_000  # a rendered page, not a blank one
    if os.environ.get("TABLECERT_UPDATE_SCREENSHOT") == "1":
        dest = ROOT / "docs" / "img" / "report.png"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, dest)


def test_missing_chromium_fails_in_ci_and_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "access", lambda *_: False)
    monkeypatch.setattr(shutil, "which", lambda *_: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        _chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        _chromium()
