"""Stacks kept on disk between processes: what is kept, what is not, and where."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import stackbuilder
from harness.games.interpretations import Interpretations
from harness.stackbuilder import Impossible, NotFound, memo
from harness.suites.load import given


@pytest.fixture
def kept_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TABLECERT_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_an_entry_is_kept_under_the_code_version_and_off_keeps_nothing(kept_in: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    key = memo.key_of("baccarat", "player", 8)
    assert memo.recall(key) is None
    memo.keep(key, {"cards": "2C 3D 4H 4S"})
    assert memo.recall(key) == {"cards": "2C 3D 4H 4S"}
    assert (kept_in / "stacks" / memo.code_version() / f"{key}.json").is_file()
    assert memo.key_of("baccarat", "player", 6) != key
    monkeypatch.setenv("TABLECERT_CACHE_DIR", "off")
    assert memo.recall(key) is None
    memo.keep(key, {"cards": "x"})  # nothing written, no error


def test_a_folder_that_cannot_be_written_is_not_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("TABLECERT_CACHE_DIR", str(blocked))
    memo.keep("k", {"cards": "2C"})
    assert memo.recall("k") is None


def _search(monkeypatch: pytest.MonkeyPatch, result: Any) -> list[str]:
    calls: list[str] = []

    def fake(game: str, want: str, **_kw: Any) -> Any:
        calls.append(want)
        return result

    monkeypatch.setattr(stackbuilder, "build_stack", fake)
    return calls


def _build(want: str) -> str:
    return given._build.__wrapped__("baccarat", want, 8, True, (), Interpretations.defaults(), 1)  # type: ignore[attr-defined]


def test_a_stack_found_or_proved_impossible_is_searched_once(kept_in: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = stackbuilder.build_stack("baccarat", "player", seed=1)
    assert isinstance(found, stackbuilder.Stack)
    calls = _search(monkeypatch, found)
    assert _build("player") == _build("player") == " ".join(c.code for c in found.cards)
    assert calls == ["player"]
    calls = _search(monkeypatch, Impossible("baccarat", "banker", "no such round"))
    for _ in range(2):
        with pytest.raises(given.NotForTable, match="no such round"):
            _build("banker")
    assert calls == ["banker"]


def test_a_search_out_of_time_is_searched_again(kept_in: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _search(monkeypatch, NotFound("baccarat", "tie", 3, "deadline"))
    for _ in range(2):
        with pytest.raises(given.BindError, match="deadline"):
            _build("tie")
    assert calls == ["tie", "tie"]
    assert not list(kept_in.rglob("*.json"))


def test_the_code_version_names_every_module_and_data_file() -> None:
    assert len(memo.code_version()) == 16
    assert (memo.PACKAGE / "stackbuilder" / "memo.py").is_file()
    assert (memo.PACKAGE / "regulations" / "catalogue.yaml").is_file()
