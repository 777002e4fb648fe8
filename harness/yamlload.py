"""Line-aware, safe YAML loading for suites and device profiles.

Why not ``yaml.safe_load``: a lab engineer who mistypes a key or writes ``on`` must get
``file:line:col: message`` pointing at what they wrote, and the value must stay what they wrote.
PyYAML's defaults are YAML 1.1, where ``on``/``yes``/``y`` are booleans, ``010`` is octal,
``1:30`` is sexagesimal 90, dates become ``datetime`` and ``<<`` merges keys silently; and
``safe_load`` forgets every position and lets a duplicate key overwrite the first.

This loader (a :class:`yaml.SafeLoader` subclass with its own resolver; nothing here can build a
Python object from a tag) returns plain data in position-carrying types.  LibYAML's parser composes
the nodes where PyYAML has it (seven times faster: every run process parses every suite); a text it
refuses, or one with an alias or nesting too deep, goes to the Python parser, which words the error:

* mappings are :class:`YMap` (a ``dict``), sequences :class:`YList` (a ``list``);
* strings :class:`YStr`, integers :class:`YInt`, numbers with a point or exponent
  :class:`YDecimal` (a ``Decimal`` built from the text; never a ``float``);
* ``true``/``false`` are ``bool`` and ``null``/``~``/empty is ``None``: those cannot carry a
  position, so the enclosing :meth:`YMap.loc` / :meth:`YList.loc` gives it.

Every node has ``.pos`` (1-based line and column) and ``.src`` (the file and its text, for the
offending lines in an error).  The typing rules (YAML 1.2 core schema, narrowed):

==================  ==========================================================================
written             loads as
==================  ==========================================================================
``true``/``false``  bool (also ``True``/``TRUE``/``False``/``FALSE``)
``on off yes no``   the string as written: a schema that wants a bool says so with a position
``10`` ``-3``       int
``010``             the string ``"010"`` (``YStr.plain`` is true): an int field rejects it with
                    "leading zero in 010: write 10 or quote it"; card codes and amounts keep it
``12.50`` ``1e3``   :class:`YDecimal` (exact); money fields refuse it ("write '12.50' in quotes")
``1:30`` dates      strings; ``0x1F``, ``1_000`` are strings too
``<<``              refused: merge keys hide where a value came from
``*alias``          refused unless ``allow_aliases=True``
``!!tag``           only ``!!str`` ``!!int`` ``!!float`` ``!!bool`` ``!!null`` ``!!map``
                    ``!!seq``; anything else (``!!python/object``, ``!custom``) is refused
==================  ==========================================================================

Hostile files are refused with a message, never a crash or a hang:

* only a regular file is read (a FIFO, a device or a directory, also through a symlink, is
  refused before it is opened for reading), and at most :data:`MAX_BYTES`;
* nesting deeper than :data:`MAX_DEPTH`, integers of more than :data:`MAX_DIGITS` digits,
  exponents beyond ``±MAX_EXPONENT`` and ``.nan`` / ``.inf`` are refused where they are written;
* bad bytes and control characters are reported at their real line, counting line ends as YAML
  does (``\\r\\n``, a lone ``\\r``, ``\\n``), so a file saved with CR-only line ends is located right.

Errors are :class:`harness.errors.InputError` with ``path``/``line``/``col`` set and ``context``
holding the offending lines with a caret, ready for ``tablecert validate`` to print.
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal, NamedTuple

import yaml
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.reader import Reader
from yaml.resolver import BaseResolver

try:  # LibYAML's parser, when PyYAML was built with it (the wheels are)
    from yaml._yaml import CParser

    LIBYAML = True
except ImportError:  # pragma: no cover - a PyYAML without LibYAML: the Python parser alone
    LIBYAML = False

from harness.errors import InputError
from harness.textcheck import unclosed_quote, unseen_character

__all__ = [
    "Loc",
    "Pos",
    "Source",
    "YDecimal",
    "YInt",
    "YList",
    "YMap",
    "YStr",
    "decode_utf8",
    "error_at",
    "line_col",
    "load_yaml",
    "load_yaml_text",
    "loc_of",
    "pos_of",
    "read_input",
    "split_lines",
    "to_plain",
]

_CORE = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_CORE + t for t in ("str", "int", "float", "bool", "null"))
_MAP, _SEQ = _CORE + "map", _CORE + "seq"
_ALLOWED_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL, _MAP, _SEQ}

_INT_RE = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_FLOAT_RE = re.compile(
    r"^(?:[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_BOOL_RE = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL_RE = re.compile(r"^(?:~|null|Null|NULL|)$")
#: a plain scalar that YAML 1.1 would have read as an octal or zero-padded int
LEADING_ZERO_RE = re.compile(r"^[-+]?0[0-9]+$")
#: the largest file read (the biggest shipped YAML is 25 KB; 1 MiB parses in about two seconds)
MAX_BYTES = 1024 * 1024
#: the deepest nesting of mappings and lists (a suite needs about eight levels)
MAX_DEPTH = 64
#: the most digits of an integer, and the largest exponent of a decimal, anywhere in a file
MAX_DIGITS = 30
MAX_EXPONENT = 30
#: YAML's line ends (PyYAML counts lines the same way)
_LINE_END = re.compile(r"\r\n|\r|\n|\x85|\u2028|\u2029")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` as YAML counts them (not ``str.splitlines``, which also breaks at
    form feeds and other controls)."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def line_col(text: str, offset: int) -> Pos:
    """1-based line and column of character ``offset`` in ``text``, counting YAML line ends."""
    head = text[:offset]
    breaks = list(_LINE_END.finditer(head))
    start = breaks[-1].end() if breaks else 0
    line = len(breaks) + 1
    if head.endswith("\r") and text[offset : offset + 1] == "\n":  # inside a CR LF pair
        line, start = line - 1, breaks[-2].end() if len(breaks) > 1 else 0
    return Pos(line, offset - start + 1)


class Pos(NamedTuple):
    """A 1-based line and column in a YAML file."""

    line: int
    col: int


@dataclass(frozen=True, eq=False)
class Source:
    """The file a node came from, kept so an error can quote the offending lines."""

    path: str
    text: str = field(repr=False)

    @functools.cached_property
    def lines(self) -> list[str]:
        """The lines as YAML counts them, split once (a suite of 1,500 cases asks for thousands)."""
        return split_lines(self.text)

    def line(self, number: int) -> str:
        """Line ``number`` (1-based), or ``""`` past the end."""
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def context(self, pos: Pos, before: int = 2) -> str:
        """Up to ``before`` lines above ``pos``, its line, and a caret under the column."""
        lines = self.lines
        if not lines or pos.line < 1:
            return ""
        if pos.line > len(lines):  # the end of the file: show how it ends
            width = len(str(len(lines)))
            first = max(1, len(lines) - before)
            return "\n".join(f"{n:>{width}} | {lines[n - 1].rstrip()}" for n in range(first, len(lines) + 1))
        first = max(1, pos.line - before)
        width = len(str(pos.line))
        out = [f"{n:>{width}} | {lines[n - 1].rstrip()}" for n in range(first, pos.line + 1)]
        out.append(" " * width + " | " + " " * (pos.col - 1) + "^")
        return "\n".join(out)


class Loc(NamedTuple):
    """Where something was written: enough to raise a positioned :class:`InputError`."""

    src: Source
    pos: Pos

    def error(self, message: str) -> InputError:
        return error_at(self, message)


class _Node:
    """Mixin: every loaded node knows where it was written."""

    pos: Pos
    src: Source

    def place_at(self, src: Source, pos: Pos) -> None:
        self.src = src
        self.pos = pos

    @property
    def where(self) -> Loc:
        return Loc(self.src, self.pos)


class YStr(str, _Node):
    """A string as written.  ``plain`` is true when it was not quoted (see ``LEADING_ZERO_RE``)."""

    plain: bool = False


class YInt(int, _Node):
    """An integer written in decimal without a leading zero."""


class YDecimal(Decimal, _Node):
    """A number with a point or exponent, exact from its text (``text`` keeps the spelling)."""

    text: str = ""


class YMap(dict[Any, Any], _Node):
    """A mapping; ``key_pos[k]`` and ``value_pos[k]`` locate each entry."""

    key_pos: dict[Any, Pos]
    value_pos: dict[Any, Pos]

    def loc(self, key: Any) -> Loc:
        """Where the value of ``key`` was written (works for ``bool`` and ``None`` values too)."""
        return Loc(self.src, self.value_pos[key])

    def key_loc(self, key: Any) -> Loc:
        """Where ``key`` itself was written."""
        return Loc(self.src, self.key_pos[key])


class YList(list[Any], _Node):
    """A sequence; ``item_pos[i]`` locates item ``i``."""

    item_pos: list[Pos]

    def loc(self, index: int) -> Loc:
        return Loc(self.src, self.item_pos[index])

    def enumerate_locs(self) -> Iterator[tuple[int, Any, Loc]]:
        for i, item in enumerate(self):
            yield i, item, self.loc(i)


def pos_of(node: object) -> Pos | None:
    """The position of a loaded node, or ``None`` for ``bool``/``None``/foreign values."""
    pos = getattr(node, "pos", None)
    return pos if isinstance(pos, Pos) else None


def loc_of(node: object) -> Loc | None:
    """File and position of a loaded node (``None`` for ``bool``/``None``: ask the parent)."""
    return node.where if isinstance(node, _Node) else None


def error_at(where: Loc | _Node | None, message: str) -> InputError:
    """An :class:`InputError` positioned at ``where`` with the offending lines as context."""
    if isinstance(where, _Node):
        where = where.where
    if where is None:
        return InputError(message)
    return InputError(
        message,
        path=where.src.path,
        line=where.pos.line,
        col=where.pos.col,
        context=where.src.context(where.pos),
    )


def to_plain(node: Any) -> Any:
    """Plain ``dict``/``list``/``str``/``int``/``bool``/``None`` (numbers with a point as their
    text), for records and JSON: no position types, no ``Decimal``."""
    if isinstance(node, dict):
        return {to_plain(k): to_plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [to_plain(v) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, YDecimal):
        return node.text
    if isinstance(node, Decimal):
        return str(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, str):
        return str(node)
    return node


class _Loader(yaml.SafeLoader):
    """Safe loader with a narrowed YAML 1.2 core resolver and no alias expansion by default."""

    yaml_implicit_resolvers: dict[Any, Any] = {}  # noqa: RUF012 - PyYAML's class-level registry
    allow_aliases = False
    depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if not self.allow_aliases and self.check_event(AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"alias *{event.anchor} is not supported: write the value out", event.start_mark
            )
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"nested more than {MAX_DEPTH} levels deep", self.peek_event().start_mark
                )
            node: Node | None = super().compose_node(parent, index)
        finally:
            self.depth -= 1
        return node


for _tag, _regexp, _first in (
    (_BOOL, _BOOL_RE, list("tTfF")),
    (_NULL, _NULL_RE, ["~", "n", "N", ""]),
    (_INT, _INT_RE, list("-+0123456789")),
    (_FLOAT, _FLOAT_RE, list("-+0123456789.")),
):
    _Loader.add_implicit_resolver(_tag, _regexp, _first)


if LIBYAML:
    class _FastLoader(CParser, SafeConstructor, BaseResolver):
        """LibYAML's parser (in C) with :class:`_Loader`'s resolver: about seven times faster on a suite.

        It composes the same nodes, positions and tags (tests/loading/test_fast_parser.py compares
        both on every YAML file of the repository).  It cannot refuse an alias or deep nesting while
        it composes, so :func:`_fast_node` checks the composed graph and, on anything but a clean
        file, hands the text to :class:`_Loader`, whose message is then the one given.
        """

        yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            BaseResolver.__init__(self)


def _fast_node(text: str) -> Node | Literal[False] | None:
    """The document's node by LibYAML, or ``False`` where :class:`_Loader` must read the text:
    no LibYAML, a character it refuses, a byte-order mark (LibYAML counts columns past one
    differently), a syntax error, an alias, or nesting past :data:`MAX_DEPTH`."""
    if not LIBYAML or Reader.NON_PRINTABLE.search(text) or "\ufeff" in text:
        return False
    try:
        node: Node | None = _FastLoader(text).get_single_node()
    except Exception:  # any refusal: the Python parser words it, at its position
        return False
    if node is None:
        return None
    seen: set[int] = set()
    stack: list[tuple[Node, int]] = [(node, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH or id(item) in seen:  # too deep, or the same node twice: an alias
            return False
        seen.add(id(item))
        if isinstance(item, MappingNode):
            stack.extend((n, depth + 1) for pair in item.value for n in pair)
        elif isinstance(item, SequenceNode):
            stack.extend((n, depth + 1) for n in item.value)
    return node


def _plain(node: ScalarNode) -> bool:
    """Written without quotes or a block indicator (PyYAML says ``None``, LibYAML ``""``)."""
    return not node.style


def _pos(node: Node) -> Pos:
    return Pos(node.start_mark.line + 1, node.start_mark.column + 1)


def _show_tag(tag: str) -> str:
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


class _Builder:
    def __init__(self, src: Source) -> None:
        self.src = src

    def fail(self, node: Node, message: str) -> InputError:
        return error_at(Loc(self.src, _pos(node)), message)

    def build(self, node: Node) -> Any:
        if node.tag not in _ALLOWED_TAGS:
            raise self.fail(
                node, f"tag {_show_tag(node.tag)} is not allowed: suites and profiles hold plain data only"
            )
        if isinstance(node, MappingNode):
            return self.mapping(node)
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                raise self.fail(node, f"tag {_show_tag(node.tag)} cannot be put on a sequence")
            out = YList()
            out.place_at(self.src, _pos(node))
            out.item_pos = []
            for item in node.value:
                out.append(self.build(item))
                out.item_pos.append(_pos(item))
            return out
        assert isinstance(node, ScalarNode)
        value = self.scalar(node)
        if isinstance(value, YStr):
            odd = unseen_character(value)
            if odd is not None:
                raise self.fail(node, odd)
        return value

    def mapping(self, node: MappingNode) -> YMap:
        if node.tag != _MAP:
            raise self.fail(node, f"tag {_show_tag(node.tag)} cannot be put on a mapping")
        out = YMap()
        out.place_at(self.src, _pos(node))
        out.key_pos, out.value_pos = {}, {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise self.fail(key_node, "a key must be a plain value, not a mapping or a list")
            if key_node.tag == _STR and key_node.value == "<<" and _plain(key_node):
                raise self.fail(key_node, "merge keys (<<) are not supported: write the keys out")
            key = self.scalar(key_node)
            try:
                first = out.key_pos.get(key)
            except TypeError:  # pragma: no cover - scalars are always hashable
                first = None
            if first is not None:
                raise self.fail(key_node, f"duplicate key '{key}' (first at line {first.line})")
            out[key] = self.build(value_node)
            out.key_pos[key] = _pos(key_node)
            out.value_pos[key] = _pos(value_node)
        return out

    def scalar(self, node: ScalarNode) -> Any:
        text = node.value
        tag = node.tag
        if tag == _NULL:
            if not _NULL_RE.match(text):
                raise self.fail(node, f"!!null cannot hold {text!r}")
            return None
        if tag == _BOOL:
            if not _BOOL_RE.match(text):
                raise self.fail(node, f"{text!r} is not a boolean: write true or false")
            return text.lower() == "true"
        if tag == _INT:
            if not _INT_RE.match(text):
                if LEADING_ZERO_RE.match(text) and len(text) <= MAX_DIGITS:
                    raise self.fail(node, f"leading zero in {text}: write {int(text)} or quote it")
                raise self.fail(node, f"{text[:40]!r} is not a decimal integer")
            digits = len(text.lstrip("+-"))
            if digits > MAX_DIGITS:
                raise self.fail(node, f"a number of {digits} digits is too large (at most {MAX_DIGITS})")
            i = YInt(int(text))
            i.place_at(self.src, _pos(node))
            return i
        if tag == _FLOAT:
            if text.lstrip("+-").lower() in (".inf", ".nan"):
                raise self.fail(node, f"{text} is not a number tablecert accepts (no NaN or infinity)")
            try:
                d = YDecimal(text)
            except InvalidOperation:
                raise self.fail(node, f"{text[:40]!r} is not a number") from None
            exp = d.as_tuple().exponent
            if len(d.as_tuple().digits) > MAX_DIGITS or not isinstance(exp, int) or abs(d.adjusted()) > MAX_EXPONENT:
                raise self.fail(node, f"the number {text[:40]} is too large or too precise "
                                      f"(at most {MAX_DIGITS} digits, exponent within ±{MAX_EXPONENT})")
            d.text = text
            d.place_at(self.src, _pos(node))
            return d
        s = YStr(text)
        s.plain = _plain(node)
        s.place_at(self.src, _pos(node))
        return s


def _syntax_error(exc: yaml.MarkedYAMLError, src: Source) -> InputError:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "YAML syntax error"
    if mark is not None:
        quote = unclosed_quote(src.lines, mark.line + 1)
        if quote is not None:
            return error_at(Loc(src, Pos(*quote)), f"this quoted string is not closed on its line: YAML reads it on to "
                                             f"line {mark.line + 1} and fails there ({problem})")
    if "'\\t'" in problem:
        problem = "tab character: YAML indents with spaces only"
    elif exc.context and exc.problem and exc.problem_mark is not None:
        problem = f"{exc.problem} ({exc.context}"
        if exc.context_mark is not None and exc.context_mark.line != exc.problem_mark.line:
            problem += f" at line {exc.context_mark.line + 1}"
        problem += ")"
    if mark is None:
        return InputError(problem, path=src.path)
    return error_at(Loc(src, Pos(mark.line + 1, mark.column + 1)), problem)


def load_yaml_text(text: str, path: str = "<string>", *, allow_aliases: bool = False) -> Any:
    """Load one YAML document from ``text``; ``path`` names it in errors.  Empty -> ``None``."""
    src = Source(path, text)
    node = False if allow_aliases else _fast_node(text)
    if node is False:
        node = _python_node(text, src, allow_aliases)
    return None if node is None else _Builder(src).build(node)


def _python_node(text: str, src: Source, allow_aliases: bool = False) -> Node | None:
    """The document's node by PyYAML's Python parser (:class:`_Loader`), every refusal worded here."""
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:  # a control character: no mark, only an offset
        raise error_at(
            Loc(src, line_col(text, exc.position)), f"control character #x{exc.character:04x} is not allowed in YAML"
        ) from None
    loader.allow_aliases = allow_aliases
    try:
        node: Node | None = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, src) from None
    except yaml.reader.ReaderError as exc:  # a control character further on
        raise error_at(
            Loc(src, line_col(text, exc.position)), f"control character #x{exc.character:04x} is not allowed in YAML"
        ) from None
    except RecursionError:  # pragma: no cover - MAX_DEPTH stops nesting long before
        raise InputError(f"nested more than {MAX_DEPTH} levels deep", path=src.path) from None
    finally:
        loader.dispose()
    return node


def read_input(path: str | Path, *, limit: int = MAX_BYTES, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; anything else is an ``InputError``.

    A FIFO, a terminal or a device behind a symlink is refused from ``stat`` before anything is
    read (reading one could block for ever); the file is opened non-blocking and checked again
    through the open descriptor, so a swap between the two checks is caught too.
    """
    name = str(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=name) from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file (a device, FIFO or socket)"
        raise InputError(f"{kind}: only a regular {what} is read", path=name)
    if st.st_size > limit:
        raise InputError(f"{st.st_size:,} bytes: larger than the {limit:,}-byte limit for a {what}", path=name)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=name) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(f"not a regular file: only a regular {what} is read", path=name)
        data = read_bounded(fd, limit)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=name) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputError(f"larger than the {limit:,}-byte limit for a {what}", path=name)
    return data


def read_bounded(fd: int, limit: int) -> bytes:
    """What ``fd`` holds, read in chunks until its end or until one byte past ``limit`` (so a caller
    sees a file that grew past its limit without reading all of it)."""
    chunks, size = [], 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 16, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def decode_utf8(raw: bytes, name: str) -> str:
    """UTF-8 text (a leading byte-order mark dropped); a bad byte is reported at its line."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        good = raw[: exc.start].decode("utf-8-sig", errors="replace")
        pos = line_col(good, len(good))
        raise InputError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x})", path=name, line=pos.line,
                         col=pos.col) from None


def load_yaml(path: str | Path, *, allow_aliases: bool = False) -> Any:
    """Load a YAML file (UTF-8).  Errors name the file as given."""
    name = str(path)
    text = decode_utf8(read_input(path, what="YAML file"), name)
    return load_yaml_text(text, name, allow_aliases=allow_aliases)
