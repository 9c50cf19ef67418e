"""Where a doc's blocks are (`extract` reads what they say): reStructuredText code blocks and
the language each is in, docutils doctest blocks, indented directive bodies, MyST fenced
bodies and Markdown frontmatter."""

from __future__ import annotations

import re

# a title's underline: one adornment character repeated, three at least (`notice.section` and
# `option_defaults` read narrower and wider ones on purpose: see there)
UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")
DOCTEST = "doctest block"  # `rst_block_lang`'s answer for a paragraph of `>>>` prompts (read as `pycon`)
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+(code-block|code|sourcecode|testcode|doctest|ipython|jupyter-execute)::\s*(\S+)?\s*$")
_ANY_DIRECTIVE = re.compile(r"^\s*\.\.\s+[\w:-]+::")


def rst_block_lang(lines: list[str], i: int) -> str | None:
    """The language of the reStructuredText code block line `i` opens, or None: `.. code-block::
    python` (and `code`, `sourcecode`, `testcode`, `doctest`), a paragraph ending in `::` (a
    literal block, taken as Python), or `DOCTEST` for a paragraph of `>>>` prompts (a docutils
    doctest block; in a directive's body too: `.. doctest-requires:: asdf`)."""
    line = lines[i]
    m = _RST_DIRECTIVE.match(line)
    if m:
        return (m.group(2) or "python").lower() if m.group(1) != "doctest" else "pycon"
    stripped = line.strip()
    if stripped.endswith("::") and not stripped.startswith(".."):
        return "python"
    before = lines[i - 1] if i else ""
    if stripped.startswith(">>>") and (not before.strip() or _ANY_DIRECTIVE.match(before)):  # a paragraph of its own
        return DOCTEST
    return None


def doctest_block(lines: list[str], i: int) -> tuple[list[tuple[int, str]], int]:
    """The doctest block starting at line `i` (its prompts and their output, to a blank line),
    and the index after it."""
    j = i
    while j < len(lines) and lines[j].strip():
        j += 1
    return [(n + 1, lines[n]) for n in range(i, j)], j


def indented_block(lines: list[str], i: int) -> tuple[list[tuple[int, str]], int]:
    """The lines indented under line `i` (blank lines included), and the index after them."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    body = []
    j = i + 1
    while j < len(lines):
        text = lines[j]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        if text.strip() and not text.lstrip().startswith(":"):  # directive options (`:linenos:`)
            body.append((j + 1, text))
        j += 1
    return body, j


def fenced(lines: list[str], i: int) -> tuple[list[tuple[int, str]], int]:
    """A MyST directive's fenced body (options `:x:` aside) and the index after its closing fence."""
    marker = lines[i].strip()[:3]
    body = []
    j = i + 1
    while j < len(lines) and not lines[j].strip().startswith(marker):
        if lines[j].strip() and not lines[j].strip().startswith(":"):
            body.append((j + 1, lines[j]))
        j += 1
    return body, j + 1


def frontmatter_end(lines: list[str]) -> int:
    """The index of the first line after a `---` frontmatter (0 when there is none)."""
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                return i + 1
    return 0


_GONE_HEADER = re.compile(r"(?i)\b(?:removed|deprecated|obsolete|old|former|legacy|previous|replaced|before)\b")
_SIMPLE_BORDER = re.compile(r"^\s*=+(?:\s+=+)+\s*$")  # a reStructuredText simple table's `=== ===`
_GRID_BORDER = re.compile(r"^\s*\+[-=+]+\+\s*$")  # a grid table's `+---+---+`
_PIPE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")  # Markdown's `|---|---|`


def gone_tables(lines: list[str]) -> set[int]:
    """The lines (1-based) of the tables listing names as gone: a column headed "Removed",
    "Deprecated", "Old", "Replaced" ... (astropy's "Removed | Use this" conversion guide). Such a
    table says the names are removed: naming them is no stale reference."""
    out: set[int] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        if _SIMPLE_BORDER.match(line) or _GRID_BORDER.match(line):
            border = _SIMPLE_BORDER if _SIMPLE_BORDER.match(line) else _GRID_BORDER
            j = i + 1
            while j < len(lines) and not border.match(lines[j]) and lines[j].strip():
                j += 1
            header = lines[i + 1:j]
            end = j + 1
            while end < len(lines) and lines[end].strip() and (border is _GRID_BORDER or not border.match(lines[end])):
                end += 1
            end = end + 1 if border is _SIMPLE_BORDER and end < len(lines) and border.match(lines[end]) else end
        elif i + 1 < len(lines) and "|" in line and _PIPE_RULE.match(lines[i + 1]):
            header, end = [line], i + 2
            while end < len(lines) and "|" in lines[end]:
                end += 1
        else:
            i += 1
            continue
        if any(_GONE_HEADER.search(h) for h in header):
            out.update(range(i + 1, end + 1))
        i = max(end, i + 1)
    return out
