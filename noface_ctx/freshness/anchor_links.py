"""Links whose URL anchor names an object (`references`): Sphinx gives every documented object the
anchor of its dotted path (`api.html#pkg.split_when`, `/api/pkg.mod.html#pkg.mod.Class.method`), so a
link to it, in any markup (`` `split_when <https://pkg.readthedocs.io/en/stable/api.html#pkg.split_when>`_ ``,
`[text](https://.../api.html#pkg.Name)`, `<a href="api.html#pkg.Name">`), references that name as a
cross-reference role does. Only the fragment decides: the link text is prose.

Not references: an anchor without a dot (a section's slug: `#installation`, `#pkg-split-when`), a
fragment that is not a dotted path of identifiers (`#v1.2`), a fragment of a URL that is no web page
(`mailto:`). Whose the name is (the repository's or another project's, `#itertools.pairwise`) is
`Codebase.resolve`'s question, as for every dotted reference."""

from __future__ import annotations

import re

from noface_ctx.freshness.references import IDENT, IGNORE_MARK, Reference, placeholder

_NAME = rf"{IDENT}(?:\.{IDENT})+"
# a URL (`https://host/path#frag`) or a relative page (`api.html#frag`, `api/#frag`) up to its fragment
_ANCHOR = re.compile(rf"(?:\w://|\.html?|/)[^\s<>()\[\]\"'`#]*#({_NAME})(?![\w.-])")


def references(lines: list[str], start: int) -> list[Reference]:
    """The dotted names the URL fragments of `lines` (from index `start`) point at, in order."""
    out: list[Reference] = []
    for i in range(start, len(lines)):
        line = lines[i]
        if "#" not in line or IGNORE_MARK in line:
            continue
        for m in _ANCHOR.finditer(line):
            name = m.group(1)
            if not placeholder(name):
                out.append(Reference(name, name, "method", i + 1, True, "xref"))
    return out
