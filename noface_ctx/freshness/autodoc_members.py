"""The members an autodoc directive lists by name (`listed_members`): `.. automodule:: pkg.mod` or
`.. autoclass:: Bbox` with `:members: nonsingular, interval_contains` (continued on deeper-indented lines)
names each as a member of its target, which autodoc warns on and leaves out once the code lost it."""

from __future__ import annotations

import re

from noface_ctx.freshness.module_context import autodoc_name
from noface_ctx.freshness.references import IDENT, Reference

AUTO_OWNER = re.compile(rf"^(\s*)\.\.\s+(?:py:)?auto(module|class|exception)::\s+({IDENT}(?:\.{IDENT})*)\s*$")
_MEMBERS = re.compile(r"^(\s+):members:\s*(.*)$")


def listed_members(lines: list[str], i: int, module: str) -> list[Reference]:
    """The names an `automodule` / `autoclass` directive at line `i` lists in its `:members:`
    option (continued on deeper-indented lines), each a member of its target: autodoc warns on,
    and leaves out, a name the module no longer has (`nonsingular` under `.. automodule:: x.transforms`)."""
    head = AUTO_OWNER.match(lines[i])
    if head is None:
        return []
    owner = autodoc_name(head.group(2), head.group(3), module)  # `.. autoclass:: pkg.Item` under `pkg.item`: `pkg.Item`
    out: list[Reference] = []
    j, listing = i + 1, -1  # listing: the indent of the `:members:` line while its value continues
    while j < len(lines) and lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) > len(head.group(1)):
        option = _MEMBERS.match(lines[j])
        indent = len(lines[j]) - len(lines[j].lstrip())
        if option is None and (listing < 0 or indent <= listing or lines[j].lstrip().startswith(":")):
            listing = -1
        else:
            listing = indent if option is not None else listing
            for name in re.findall(rf"{IDENT}", option.group(2) if option is not None else lines[j]):
                out.append(Reference(f"{owner}.{name}", f"{owner}.{name}", "method", j + 1, True, "autodoc", documented=True))
        j += 1
    return out
