"""A Sphinx directive's argument read as Sphinx reads it, so that every reader of a written signature sees it all:

- it continues across lines ending in a backslash (Sphinx's rule for long signatures: `.. method:: URL.build(*,
  scheme, user, \\` then `query_string, strict=False)` on the next line): `joined` reads each such directive as one
  line, its first, and leaves the lines it took blank, so every other line keeps its number; a backslash ending any
  other line (prose, a literal block) joins nothing;
- a callable directive may write several signatures, one a line (`.. function:: include(module, namespace=None)` then
  `include(pattern_list)` indented below it, before a blank line or an option: overloads documented at once, the py
  domain's `get_signatures`): `continued` finds those lines, and `joined` writes each as a directive of its own on its
  own line (`.. function:: include(pattern_list)`), at the first one's indent, so each is read like the first.
"""

from __future__ import annotations

import re

_DIRECTIVE = re.compile(r"^\s*\.\.\s+[\w:-]+::\s+\S")  # `.. function:: f(a, \`, `.. py:method:: ...`
_CALLABLE = re.compile(r"^(\s*)\.\.\s+((?:py:)?(?:auto)?(?:function|method|classmethod|staticmethod|class|exception|"
                       r"decorator|decoratormethod))::\s+[A-Za-z_][\w.]*\s*\(")
_SIGNATURE = re.compile(r"^[A-Za-z_][\w.]*\s*\(.*\)")  # `include(pattern_list)`, `URL.with_query(**kwargs) -> URL`


def continued(lines: list[str], i: int) -> list[tuple[int, str]]:
    """The further signatures (index, text) a callable directive at line `i` writes on the lines below it."""
    head = _CALLABLE.match(lines[i]) if ".." in lines[i] else None
    if head is None:
        return []
    out: list[tuple[int, str]] = []
    for j in range(i + 1, len(lines)):
        text = lines[j].strip()
        if len(lines[j]) - len(lines[j].lstrip()) <= len(head.group(1)) or not _SIGNATURE.match(text):
            break
        out.append((j, text))
    return out


def joined(lines: list[str]) -> list[str]:
    """`lines` with each directive continued by trailing backslashes joined onto its first line, and each further
    signature of a callable directive written as a directive of its own."""
    slashed = any(line.endswith("\\") for line in lines)
    signed = any(".. " in line and "(" in line for line in lines)
    if not slashed and not signed:
        return lines
    out = list(lines)
    for i, line in enumerate(lines):
        text = line.rstrip()
        if not slashed or not (text.endswith("\\") and not text.endswith("\\\\") and _DIRECTIVE.match(text)) or out[i] != line:
            continue
        j = i
        while text.endswith("\\") and j + 1 < len(lines) and lines[j + 1].strip():
            j += 1
            text = text[:-1].rstrip() + " " + lines[j].strip()
            out[j] = ""
        out[i] = text.removesuffix("\\").rstrip()
    if signed:
        for i, line in enumerate(list(out)):
            head = _CALLABLE.match(line) if ".. " in line and "(" in line else None
            if head is not None:
                for j, text in continued(out, i):
                    out[j] = f"{head.group(1)}.. {head.group(2)}:: {text}"
    return out
