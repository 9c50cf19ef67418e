"""A Sphinx directive's argument continues across lines ending in a backslash (Sphinx's own rule
for long signatures: `.. method:: URL.build(*, scheme, user, \\` then `query_string, strict=False)`
on the next line): `joined` reads each such directive as one line, its first, and leaves the
lines it took blank, so every other line keeps its number. A backslash ending any other line
(prose, a literal block) joins nothing."""

from __future__ import annotations

import re

_DIRECTIVE = re.compile(r"^\s*\.\.\s+[\w:-]+::\s+\S")  # `.. function:: f(a, \`, `.. py:method:: ...`


def joined(lines: list[str]) -> list[str]:
    """`lines` with each directive continued by trailing backslashes joined onto its first line."""
    if not any(line.endswith("\\") for line in lines):
        return lines
    out = list(lines)
    for i, line in enumerate(lines):
        text = line.rstrip()
        if not (text.endswith("\\") and not text.endswith("\\\\") and _DIRECTIVE.match(text)) or out[i] != line:
            continue
        j = i
        while text.endswith("\\") and j + 1 < len(lines) and lines[j + 1].strip():
            j += 1
            text = text[:-1].rstrip() + " " + lines[j].strip()
            out[j] = ""
        out[i] = text.removesuffix("\\").rstrip()
    return out
