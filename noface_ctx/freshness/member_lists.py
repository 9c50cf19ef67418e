"""Hand-written member lists (`member_refs`): a section titled with one span naming a class
(`` ## `URL` ``, ``` ``Response`` ``` underlined) whose list items open with a member's span,
mkdocs API pages' way:

    * `.status_code` - **int**
    * `def .copy_with([scheme], [authority], [path])` - **URL**

Each item is the member `URL.copy_with` (a `method` reference, checked in the class's
hierarchy), with the signature it states (optional ones in brackets: passed by name).
"""

from __future__ import annotations

import re

from noface_ctx.freshness.references import DOTTED, IDENT, Reference, placeholder, signature_after

_CLASS_TITLE = re.compile(rf"^\s*(?:#{{1,6}}\s+)?(`+)(?:class\s+)?((?:{IDENT}\.)*[A-Z]\w*)\1\s*#*\s*$")
# `* `def .name(args) -> T``, `- `async def name(args)``, `1. `.name``: the item's first span
_ITEM = re.compile(rf"^\s*(?:[*+-]|\d+[.)])\s+(`+)(?:(?:async\s+)?def\s+\.?({IDENT})\s*\(([^()`]*)\)(?:\s*->[^`]*)?"
                   rf"|\.({IDENT})(?:\(([^()`]*)\))?)\1")


def section_class(title: str) -> str:
    """The class a section title names as its one span (`` `URL` ``, ``` ``httpx.Response`` ```),
    or "" (any other title ends the class's list)."""
    m = _CLASS_TITLE.match(title)
    return m.group(2) if m is not None and re.fullmatch(DOTTED, m.group(2)) and not placeholder(m.group(2)) else ""


def member_refs(line: str, lineno: int, owner: str) -> list[Reference]:
    """The member a list item under the class `owner`'s title names (see the module docstring):
    `[Reference("URL.copy_with(scheme=..., ...)", "URL.copy_with", "method", ...)]`; none for
    another line, no owner, or a dunder (`def __init__(...)` states the constructor, read elsewhere)."""
    m = _ITEM.match(line) if owner else None
    if m is None:
        return []
    name, args = (m.group(2), m.group(3)) if m.group(2) else (m.group(4), m.group(5))
    if name.startswith("__") or placeholder(name):
        return []
    ref = Reference(f"{owner}.{name}", f"{owner}.{name}", "method", lineno)
    params = ", ".join(p for p in (args or "").split(",") if p.strip() not in ("self", "cls"))
    return [signature_after(ref, f"({params})") if args is not None else ref]
