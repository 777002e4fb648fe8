"""The README's layout section names every package and top-level module of harness/ and every room of
harness/suites/, and nothing that is not there (issue 31: "the README's layout section matches the
tree")."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "harness"


def _layout() -> str:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```", 2)[1]


def test_the_layout_names_every_package_and_module_of_harness() -> None:
    text = _layout()
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    modules = {p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")}
    folders = set(re.findall(r"(?<![\w/.])([a-z_]+)/", text))
    named_modules = set(re.findall(r"\b([a-z_]+\.py)\b", text))
    assert packages <= folders, sorted(packages - folders)
    inner = {p.name for p in PACKAGE.glob("*/*") if (p / "__init__.py").is_file()}  # suites' rooms, mutation/
    others = {p.name for p in ROOT.iterdir() if p.is_dir()} | {"reports"}
    assert folders <= packages | inner | others, sorted(folders - packages - inner - others)
    assert modules <= named_modules, sorted(modules - named_modules)
    rooms = {p.name for p in (PACKAGE / "suites").iterdir() if (p / "__init__.py").is_file()}
    assert rooms == set(re.findall(r"\b(load|run|steps)/", text)) == {"load", "run", "steps"}


def test_the_layout_names_the_top_level_folders() -> None:
    text = _layout()
    for folder in ("harness", "suites", "device_profiles", "fixtures", "reports", "tests", "benchmarks", "docs",
                   "scripts"):
        assert f"{folder}/" in text, folder
        assert folder == "reports" or (ROOT / folder).is_dir(), folder  # reports/: made by a run
