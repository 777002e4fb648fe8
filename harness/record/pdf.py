"""Printing the lab report to PDF through headless Chromium (Debian's ``chromium`` package).

The report's print stylesheet sets A4 pages with "Page x of y" and the report number in the page
margins; Chromium lays them out (``--print-to-pdf``, its own header and footer off).  Chromium runs
in its own process group with a throw-away profile directory and a deadline: on timeout the group
is ended (only what this module started).  No network: the report is a local file with nothing
external in it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from harness.errors import DeviceError

TIMEOUT_S = 120.0
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-pdf-header-footer",
)


class ChromiumMissing(DeviceError):
    """No Chromium to print with (install Debian's ``chromium``, or set TABLECERT_CHROMIUM)."""


def find_chromium() -> str:
    """The Chromium executable: ``$TABLECERT_CHROMIUM``, else ``chromium`` on the PATH or /usr/bin."""
    candidates = [os.environ.get("TABLECERT_CHROMIUM", ""), shutil.which("chromium") or "",
                  shutil.which("chromium-browser") or "", "/usr/bin/chromium"]
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    raise ChromiumMissing("chromium not found: install it (apt-get install -y chromium) or set TABLECERT_CHROMIUM")


def run_chromium(args: list[str], timeout_s: float = TIMEOUT_S) -> subprocess.CompletedProcess[bytes]:
    """Run Chromium with ``args`` (after the common flags) in its own process group, within a deadline."""
    browser = find_chromium()
    with tempfile.TemporaryDirectory(prefix="tablecert-chromium-") as profile:
        argv = [browser, *FLAGS, f"--user-data-dir={profile}", *args]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=10)
            raise DeviceError(f"chromium did not finish within {timeout_s:g} s") from None
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def print_pdf(html: Path, pdf: Path, timeout_s: float = TIMEOUT_S) -> int:
    """Print ``html`` to ``pdf``; return its page count."""
    pdf.parent.mkdir(parents=True, exist_ok=True)
    res = run_chromium([f"--print-to-pdf={pdf.resolve()}", html.resolve().as_uri()], timeout_s)
    if res.returncode != 0 or not pdf.is_file() or pdf.stat().st_size == 0:
        tail = res.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise DeviceError(f"chromium could not print {html}: exit {res.returncode}: {' / '.join(tail)}")
    return page_count(pdf)


_PAGE = re.compile(rb"/Type\s*/Page(?![s\w])")


def page_count(pdf: Path) -> int:
    """Pages of a PDF Chromium wrote (its page objects are plain dictionaries: ``/Type /Page``)."""
    return len(_PAGE.findall(pdf.read_bytes()))
