"""reStructuredText comments: text no reader of the built docs sees, so no reference of a doc.

A comment is explicit markup (`.. ` at the start of a line) whose text is none of the other
explicit constructs: a directive (`.. note::`, `.. py:function::`), a hyperlink target (`.. _x:`,
`.. __:`), a footnote or citation (`.. [1]`, `.. [#x]`, `.. [CIT]`) or a substitution definition
(`.. |x| image::`). Its body is its first line's text and the lines indented further than the
`..` that follow it (blank lines between them too). A lone `..` followed by a blank line is an
empty comment and takes nothing; followed directly by indented text, that text is its body.

A comment holding `>>>` prompts is kept: doctest runners that read the file as text
(`python -m doctest`, `pytest --doctest-glob`) run them, as projects' hidden setup lines
(`.. >>> import pkg`), and the names they bind are the examples'.
"""

from __future__ import annotations

import re

_EXPLICIT = re.compile(r"^(\s*)\.\.(?:\s+(\S.*))?\s*$")
_OTHER = re.compile(r"[\w:+.-]+::|_|\[[^\]]+\]|\|[^|]+\|")  # directive, target, footnote/citation, substitution


def blank_comments(lines: list[str]) -> list[str]:
    """`lines` with each comment's lines made blank (the line count, so every line number, kept)."""
    out, i = list(lines), 0
    while i < len(lines):
        m = _EXPLICIT.match(lines[i])
        text = m.group(2) or "" if m else ""
        lone = m is not None and not text and (i + 1 >= len(lines) or not lines[i + 1].strip())
        if m is None or lone or _OTHER.match(text) or (i and lines[i - 1].strip() and not _EXPLICIT.match(lines[i - 1]) and _indent(lines[i - 1]) == len(m.group(1))):
            i += 1  # not a comment (an explicit construct, an empty comment, a line inside a paragraph)
            continue
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > len(m.group(1))):
            j += 1
        while j > i + 1 and not lines[j - 1].strip():
            j -= 1
        if not any(line.lstrip().startswith(">>>") for line in lines[i:j]):
            out[i:j] = [""] * (j - i)
        i = j
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())
