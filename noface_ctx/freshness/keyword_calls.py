"""Every keyword argument of every call in a piece of code, with the callee as written: what a doc's
examples pass (`defaults._passed_keywords`, `comment_defaults`)."""

from __future__ import annotations

import re

from noface_ctx.freshness.references import IDENT, STRING


def keyword_calls(text: str) -> list[tuple[str, str]]:
    """(callee, keyword) for every keyword argument of every call in `text` (nested calls and
    calls over several lines too; strings blanked first)."""
    text = STRING.sub('""', text)
    out = []
    for m in re.finditer(rf"(?<![\w.])({IDENT}(?:\.{IDENT})*)\s*\(", text):
        depth, arg, j = 1, "", m.end()
        args = []
        while j < len(text) and depth:
            ch = text[j]
            depth += ch in "([{"
            depth -= ch in ")]}"
            if depth == 1 and ch == ",":
                args.append(arg)
                arg = ""
            elif depth:
                arg += ch
            j += 1
        args.append(arg)
        out += [(m.group(1), k.group(1)) for a in args if (k := re.match(rf"^\s*({IDENT})\s*=(?!=)", a))]
    return out
