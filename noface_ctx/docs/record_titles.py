"""Records known by their headings, whatever their file is called (`titled_record`): a doc whose
title is a record's (`Changelog`, `Change log`, `Version History`, `Release Notes`, `Release history`,
`What's New in 2.0`, `pkg Changelog`, `Changes`, `Changes in 1.4`), or most of whose section headings
(at least three) are versions (`11.1.0`, `v2.3 (2024-01-02)`, `Version 1.2`, `Unreleased`), is a record
of releases as `CHANGES.rst` is (`markup.is_record`): it rightly names what later releases removed.

Not records: a guide titled otherwise (`Migrating from version 1`, `Supported Python versions`,
`Tracking changes`, `History` of a shell's commands), whatever single "Changed in version" notes it holds."""

from __future__ import annotations

import re

from noface_ctx.datatypes import Doc
from noface_ctx.docs.markup import is_record, names_old_apis

_PHRASE = r"(?:change\s*log|release\s+notes|(?:release|version|change|revision)\s+history|what['’]?s\s+new)"
# up to two words before (`pkg Changelog`, `Project release notes`), any qualifier after (`for pkg`, `in 2.0`)
_TITLE = re.compile(rf"^(?:[\w.-]+\s+){{0,2}}{_PHRASE}(?:\s*[:(,-]|\s+(?:for|in|of|since|-)\b|\s+v?\d|\s*$)", re.I)
_CHANGES = re.compile(r"^(?:recent\s+)?changes(?:\s+(?:in|since|for)\b.*)?$", re.I)  # `Changes`, `Changes in 1.4`
# a version alone, or with a date or a parenthesised note: `1.2.0`, `[2.1.0] - 2024-01-02`, `v2.3 (2023)`, `Unreleased`
# (a numbered section, `2.1 Index classes`, is none)
_VERSION = re.compile(r"^(?:(?:v(?:ersion)?\s*|release\s+|\[)?\d+(?:\.\d+)+[\w.+-]*\]?|unreleased|upcoming)"
                      r"(?:\s*\(.*\)|\s*[-–—:,]?\s*\S*\b(?:19|20)\d\d\b.*)?\s*$", re.I)
_UNDERLINE = re.compile(r"^([=\-~^\"'`*#+:.])\1{2,}\s*$")
_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
# the lines `headings` looks at, each found after its newline: an underline, a line a fence or `#` may open
_UNDERLINED = re.compile(r"\n(([=\-~^\"'`*#+:.])\2{2,}[^\S\n]*)(?=\n|\Z)")
_MARKED = re.compile(r"\n[^\S\n]{0,3}[#`~]")
_MAX_HEADINGS = 12  # the title and enough sections to tell


def never_judged(doc: Doc, record_dirs: tuple[str, ...]) -> bool:
    """A record by its path (`markup.is_record`), a list of old APIs (`markup.names_old_apis`) or its headings."""
    return is_record(doc.path, record_dirs) or names_old_apis(doc.path) or titled_record(doc)


def titled_record(doc: Doc) -> bool:
    """True when `doc` is a record by its title or its version headings (see the module docstring)."""
    heads = headings(doc.text, doc.path.lower().endswith((".rst", ".txt")))
    title = str(doc.frontmatter.get("title") or "").strip() if doc.frontmatter else ""
    first = title or (heads[0] if heads and not heads[0].startswith("#") else "")  # a Markdown title is `# Title`
    if first and (_TITLE.match(first) or _CHANGES.match(first)):
        return True
    sections = [h.lstrip("#") for h in (heads if title or (heads and heads[0].startswith("#")) else heads[1:])]
    return len(sections) >= 3 and 3 * sum(1 for h in sections if _VERSION.match(h)) >= 2 * len(sections)


def headings(text: str, rst: bool) -> list[str]:
    """The first headings of a reStructuredText (underlined) or Markdown (`#`) text, in order.
    Only the lines that can be one are looked at (an underline's line before it; a line opening
    with `#`, a backtick or `~`), found by a search over the whole text."""
    text = "\n" + text  # every line starts after a newline
    out: list[str] = []
    if rst:
        for m in _UNDERLINED.finditer(text):
            if not m.start():
                continue  # the first line: nothing above it
            line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
            words = line.strip()
            if words and not _UNDERLINE.match(line) and not line[:1].isspace() and (
                    len(m.group(1).rstrip()) >= min(len(words), 3)):
                out.append(words)
                if len(out) >= _MAX_HEADINGS:
                    break
        return out
    fence = False
    for m in _MARKED.finditer(text):
        end = text.find("\n", m.start() + 1)
        line = text[m.start() + 1:end if end >= 0 else len(text)]
        if _FENCE.match(line):
            fence = not fence
        elif not fence and (h := _ATX.match(line)):
            out.append(h.group(2) if len(h.group(1)) == 1 or out else "#" + h.group(2))  # a section first: no title
            if len(out) >= _MAX_HEADINGS:
                break
    return out
