"""Text a reader cannot check by eye, in a file meant to be read by people.

* :func:`unseen_character`: a character of a value that does not show as written (a control
  character such as ESC, a bidirectional control such as U+202E, an invisible formatting character,
  a space that is not a plain space, a line separator), named, so a title cannot hide terminal
  escape codes or display reversed, and a no-break space cannot pass for the space between cards;
* :func:`unclosed_quote`: where a quoted string was opened and not closed on its line, so a YAML
  error found lines below it is reported where the author made the mistake.

Used by :mod:`harness.yamlload` for every suite, profile and stacks file.
"""

from __future__ import annotations

import unicodedata

#: bidirectional controls: the text displays in another order than it is stored (CVE-2021-42574)
_BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


_CONTROL_NAMES = {0x00: "NULL", 0x07: "BELL", 0x08: "BACKSPACE", 0x0B: "LINE TABULATION", 0x0C: "FORM FEED",
                  0x0D: "CARRIAGE RETURN", 0x1B: "ESCAPE", 0x7F: "DELETE", 0x85: "NEXT LINE", 0x9B: "CONTROL SEQUENCE"
                  " INTRODUCER"}


def unseen_character(text: str) -> str | None:
    """Why ``text`` cannot be a value of a tablecert file, or ``None``: a character a reader cannot
    see as written, named (``U+202E RIGHT-TO-LEFT OVERRIDE``): a control character (a terminal acts
    on ESC), a bidirectional control, an invisible formatting character (zero-width space, BOM, soft
    hyphen) or a space other than the plain one (a no-break space looks like one and does not split
    a card list).  A tab and a line break (block scalars) are allowed."""
    for ch in text:
        code = ord(ch)
        if ch in "\t\n" or (0x20 <= code < 0x7F):
            continue
        category = unicodedata.category(ch)
        name = f"U+{code:04X} {unicodedata.name(ch, '') or _CONTROL_NAMES.get(code, 'CONTROL CHARACTER')}"
        if code in _BIDI:
            return (f"{name}: a bidirectional control shows the text in another order than it is written; "
                    "write plain text")
        if category == "Cc" or 0xD800 <= code <= 0xDFFF:
            return f"{name}: a control character (a terminal or a report would act on it); write plain text"
        if category == "Cf":
            return f"{name}: an invisible formatting character; write plain text"
        if category in ("Zl", "Zp"):
            return f"{name}: a line break inside a value (a report breaks the line there); write plain text"
        if category == "Zs":
            return f"{name}: looks like a space but is not one; write a plain space"
    return None


def _opens_scalar(line: str, i: int) -> bool:
    """The quote at ``line[i]`` begins a scalar: first on the line, or after ``- ``, ``: ``, ``? ``,
    ``[``, ``{`` or ``,`` (a quote inside a plain scalar, as in ``dealer's``, is just a character)."""
    head = line[:i].rstrip(" \t")
    if not head or head.endswith(("[", "{", ",")):
        return True
    return head.endswith(("-", ":", "?")) and line[i - 1] in " \t"


def _closing(line: str, i: int) -> int | None:
    """Index of the quote closing the one at ``line[i]`` on the same line, or None."""
    quote, j = line[i], i + 1
    while j < len(line):
        if quote == '"' and line[j] == "\\":
            j += 2
            continue
        if line[j] == quote:
            if quote == "'" and line[j + 1 : j + 2] == "'":  # '' is a quote inside a single-quoted scalar
                j += 2
                continue
            return j
        j += 1
    return None


def unclosed_quote(lines: list[str], before: int) -> tuple[int, int] | None:
    """The ``(line, column)`` of the last quote of lines ``1..before-1`` that opens a scalar and is
    not closed on its own line: YAML reads such a string on into the next lines and reports an
    error far below it."""
    found: tuple[int, int] | None = None
    for number, line in enumerate(lines[: max(before - 1, 0)], 1):
        i = 0
        while i < len(line):
            ch = line[i]
            if ch == "#" and (i == 0 or line[i - 1] in " \t"):
                break
            if ch in "\"'" and _opens_scalar(line, i):
                j = _closing(line, i)
                if j is None:
                    found = (number, i + 1)
                    break
                i = j
            i += 1
    return found


#: the longest name an option may give the record (--operator, --lab, --station, --submitting-party)
OPTION_TEXT_CHARS = 200


def option_text_problem(value: str) -> str | None:
    """Why a command-line value cannot go into a record (a name: ``--operator``), or ``None``: bytes
    that are not UTF-8 (a Latin-1 terminal), a line break, a character a reader cannot see as written
    (:func:`unseen_character`), or more than :data:`OPTION_TEXT_CHARS` characters."""
    bad = next((ch for ch in value if 0xD800 <= ord(ch) <= 0xDFFF), None)
    if bad is not None:
        return (f"holds the byte 0x{ord(bad) - 0xDC00:02X}, which is not UTF-8 (a terminal set to another encoding?); "
                "give the name in UTF-8")
    if "\n" in value or "\t" in value:
        return "holds a line break or a tab; give one line"
    if len(value) > OPTION_TEXT_CHARS:
        return f"is {len(value)} characters long; at most {OPTION_TEXT_CHARS}"
    return unseen_character(value)
