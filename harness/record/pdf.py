"""Printing the lab report to PDF: WeasyPrint (installed with tablecert from PyPI, no browser), or
headless Chromium where a lab prefers it (Debian's ``chromium`` package).

The report's print stylesheet sets A4 pages with "Page x of y" in the page margins (CSS paged
media, which WeasyPrint lays out itself), page breaks that keep a table row, a finding or a chart
whole, and print sizes.  WeasyPrint renders in this process and reads only the report's own file
(no network: the report has nothing external in it, and any other URL is refused).  Chromium runs in
its own process group with a throw-away profile directory and a deadline: on timeout the group is
ended (only what this module started).
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


#: the PDF printers ``tablecert report --pdf-engine`` offers; ``auto`` is WeasyPrint where it imports
ENGINES = ("auto", "weasyprint", "chromium")


class PrinterMissing(DeviceError):
    """The PDF printer asked for is not installed."""


def print_pdf(html: Path, pdf: Path, timeout_s: float = TIMEOUT_S, engine: str = "auto") -> int:
    """Print ``html`` to ``pdf`` with ``engine``; return its page count."""
    if engine in ("auto", "weasyprint"):
        try:
            import weasyprint  # noqa: F401 - imported here: the PDF printer is loaded only to print
        except (ImportError, OSError) as exc:  # OSError: the Pango library it needs is missing
            if engine == "weasyprint":
                raise PrinterMissing(f"weasyprint cannot be loaded ({exc}): pip install 'tablecert[pdf]'") from None
        else:
            return print_weasyprint(html, pdf)
    return print_chromium(html, pdf, timeout_s)


def print_weasyprint(html: Path, pdf: Path) -> int:
    """Print with WeasyPrint; return the page count."""
    import weasyprint

    pdf.parent.mkdir(parents=True, exist_ok=True)
    # the report's own files and inline data only: never the network
    fetcher = weasyprint.URLFetcher(allowed_protocols={"file", "data"}, timeout=5)
    document = weasyprint.HTML(filename=str(html.resolve()), url_fetcher=fetcher).render()
    document.write_pdf(str(pdf))
    return len(document.pages)


def print_chromium(html: Path, pdf: Path, timeout_s: float = TIMEOUT_S) -> int:
    """Print ``html`` to ``pdf`` through headless Chromium; return its page count."""
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
