"""LibYAML's parser in place of PyYAML's Python one: the same data, positions and refusals.

Every process that loads the suites parses all of them (a clause-selected kill-matrix job spent about
half of its CPU in PyYAML's Python scanner); :func:`harness.yamlload.load_yaml_text` now composes with
LibYAML and gives a text to the Python parser only where that one must word a refusal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import yamlload
from harness.errors import InputError
from harness.yamlload import MAX_DEPTH, load_yaml_text

ROOT = Path(__file__).resolve().parents[2]


def _text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:  # refused before any parser sees it
        return None


#: every YAML file of the repository that is text (the bad-input ones included)
SHIPPED = sorted(p for d in ("suites", "fixtures", "device_profiles", "harness/regulations", "tests/independent",
                             "tests/bad_input")
                 for p in (ROOT / d).rglob("*.yaml") if _text(p) is not None)


def _python(text: str, path: str = "f.yaml") -> Any:
    src = yamlload.Source(path, text)
    node = yamlload._python_node(text, src)
    return None if node is None else yamlload._Builder(src).build(node)


def _same(a: Any, b: Any, where: str = "$") -> None:
    assert type(a) is type(b), where
    assert yamlload.pos_of(a) == yamlload.pos_of(b), where
    if isinstance(a, yamlload.YMap):
        assert list(a) == list(b) and a.key_pos == b.key_pos and a.value_pos == b.value_pos, where
        for key in a:
            _same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, yamlload.YList):
        assert len(a) == len(b) and a.item_pos == b.item_pos, where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b and getattr(a, "plain", None) == getattr(b, "plain", None), where


def test_the_libyaml_parser_is_there() -> None:
    # the wheels are built with LibYAML; without it every file would take the slow path unnoticed
    assert yamlload.LIBYAML


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_loads_the_same_by_both_parsers(path: Path) -> None:
    text = _text(path)
    assert text is not None
    try:
        slow = _python(text, str(path))
    except InputError as err:  # a file of bad input: the same refusal, word for word
        with pytest.raises(InputError) as info:
            load_yaml_text(text, str(path))
        assert str(info.value) == str(err)
        return
    if "\ufeff" not in text:
        assert yamlload._fast_node(text) is not False, "a good file took the slow path"
    _same(load_yaml_text(text, str(path)), slow)


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: *x\n",                                         # an alias
    "a: &x [1, *x]\n",                                          # a recursive one
    "a:" + "\n".join(" " * (i + 1) + f"k{i}:" for i in range(MAX_DEPTH)) + " 1\n",  # one level too deep
    "x: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n",
    "a: \x07\n",                                                # a control character
    "a: [1, 2\n",                                               # a syntax error
    "a: 1\n---\nb: 2\n",                                        # two documents
])
def test_what_the_python_parser_must_word_goes_to_it(text: str) -> None:
    assert yamlload._fast_node(text) is False
    with pytest.raises(InputError) as fast:
        load_yaml_text(text, "f.yaml")
    with pytest.raises(InputError) as slow:
        _python(text)
    assert str(fast.value) == str(slow.value)


def test_nesting_at_the_limit_is_read_by_libyaml() -> None:
    text = "x: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n"
    assert yamlload._fast_node(text) not in (False, None)
    _same(load_yaml_text(text), _python(text))
