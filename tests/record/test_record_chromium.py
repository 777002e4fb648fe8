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
    appendix = _run([browser, *FLAGS, f"--user-data-dir={profile}", "--dump-dom",
                     (run_dir / "record-appendix.html").resolve().as_uri()])
    assert appendix.stdout.decode("utf-8").count("<svg") == 3

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


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_passing_run_of_one_profile_prints_to_at_most_40_a4_pages(tmp_path: Path) -> None:
    """The main job on the largest built-in profile, then `tablecert report --pdf`: the report prints
    through Chromium and through WeasyPrint, every page numbered and with text, within 40 pages, with
    the whole clause matrix."""
    import re
    import sys

    _chromium()
    from harness.record import load_record
    from harness.record.matrix import build_matrix

    run = subprocess.run([sys.executable, "-m", "harness", "run", "-q", "--profile",
                          str(ROOT / "device_profiles" / "emulated-midi-5.yaml"), "--report-dir", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=540, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    (run_dir,) = [d for d in tmp_path.iterdir() if d.is_dir()]
    for engine in ("chromium", "weasyprint"):  # a lab's browser, and the printer installed with tablecert
        pdf = tmp_path / f"report-{engine}.pdf"
        out = subprocess.run([sys.executable, "-m", "harness", "report", str(run_dir), "--pdf", str(pdf),
                              "--pdf-engine", engine], cwd=ROOT, capture_output=True, text=True, timeout=300,
                             check=False)
        assert out.returncode == 0, out.stdout + out.stderr
        pages = int(re.search(r"(\d+) page\(s\)", out.stdout).group(1))
        assert pdf.read_bytes()[:5] == b"%PDF-"
        assert 5 <= pages <= 40, f"{engine}: {pages} pages"
        if engine == "weasyprint":
            from pypdf import PdfReader

            texts = [page.extract_text() for page in PdfReader(pdf).pages]
            assert len(texts) == pages and all(t.strip() for t in texts), engine
            assert all(f"Page {n} of {pages}" in t for n, t in enumerate(texts, 1))
    html = (run_dir / "record.html").read_text("utf-8")
    matrix = build_matrix(load_record(run_dir))
    assert all(f"<code>{row.clause_id}</code>" in html for row in matrix.rows)
    assert matrix.counts()["FAIL"] == matrix.counts()["ERROR"] == 0 and matrix.counts()["PASS"] > 40
    assert 'counter(page) " of " counter(pages)' in html
