"""Bold names beside their file in a Markdown list (`bold_names`).

Pages written for coding agents and contributors (CLAUDE.md, AGENTS.md, CONTRIBUTING.md, an
architecture overview) list the code's parts as "- **HookCaller** (`src/pluggy/_hooks.py`): runs the
hooks": a bold identifier, then, in parentheses, the Python file defining it. The pair is a reference
to that definition in that module (`pluggy._hooks.HookCaller`, the file's path read as a module, a
leading `src/` or `lib/` source folder dropped; `Codebase` finds `pkg/mod.py` under any folder), so a
rename, move or removal of the name makes the line stale as a code span would; "**A/B**" names two.
Not references: a bold word beside a file that is not Python source ("**Note** (`README.md`)"), a
directory ("**Tests** (`tests/`)"), bold prose without a file, a bold phrase with spaces, and a bold
name outside a list item.
"""

from __future__ import annotations

import re

from noface_ctx.freshness.references import IDENT, Reference, placeholder

_ITEM = re.compile(rf"^\s*(?:[-*+]|\d+[.)])\s+\*\*({IDENT}(?:\s*/\s*{IDENT})*)\*\*\s*\(\s*`([^`\s]+)`\s*\)")
_SOURCE = re.compile(r"^(?:\./)?((?:[\w.-]+/)*[A-Za-z_]\w*)\.pyi?$")
_SOURCE_FOLDERS = ("src/", "lib/")


def bold_names(lines: list[str], start: int = 0) -> list[Reference]:
    """The references "- **Name** (`path/to/module.py`)" list items of a Markdown page make (see the module docstring)."""
    out: list[Reference] = []
    for lineno, line in enumerate(lines[start:], start + 1):
        m = _ITEM.match(line) if "**" in line else None
        path = _SOURCE.match(m.group(2)) if m is not None else None
        if m is None or path is None:
            continue
        module = path.group(1)
        for folder in _SOURCE_FOLDERS:
            module = module.removeprefix(folder) if "/" in module.removeprefix(folder) else module
        parts = module.split("/")
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if not parts or not all(re.fullmatch(IDENT, p) for p in parts):
            continue
        for name in (n.strip() for n in m.group(1).split("/")):
            dotted = ".".join([*parts, name])
            if not placeholder(name):
                out.append(Reference(dotted, dotted, "method", lineno, True, "span"))
    return out
