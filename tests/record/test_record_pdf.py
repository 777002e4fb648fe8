"""`tablecert report --pdf` on a machine with no browser: WeasyPrint, installed with tablecert, prints
the lab report to A4 pages, each numbered "Page x of y" and each with text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pypdf import PdfReader

from harness.cli import main
from harness.record.pdf import print_pdf


def test_report_prints_with_no_browser(make_run, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    run_dir = make_run()
    monkeypatch.setenv("PATH", str(tmp_path))  # no chromium anywhere on the PATH
    monkeypatch.setenv("TABLECERT_CHROMIUM", str(tmp_path / "absent"))
    pdf = tmp_path / "report.pdf"
    assert main(["report", str(run_dir), "--pdf", str(pdf)]) == 0
    out = capsys.readouterr().out
    texts = [page.extract_text() for page in PdfReader(pdf).pages]
    assert f"{pdf}: {len(texts)} page(s)" in out
    assert texts and all(t.strip() for t in texts)
    assert all(f"Page {n} of {len(texts)}" in t for n, t in enumerate(texts, 1))
    assert "Overall verdict" in texts[0]
    assert os.path.getsize(pdf) > 1000


def test_the_report_fetches_nothing_but_local_files(tmp_path: Path) -> None:
    html = tmp_path / "r.html"
    html.write_text('<html><body><p>x</p><img src="http://127.0.0.1:9/pixel.png"></body></html>', "utf-8")
    assert print_pdf(html, tmp_path / "r.pdf", engine="weasyprint") == 1  # the image is refused, not fetched
