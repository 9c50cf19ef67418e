"""Code-shaped names a Python example uses as values, not calls, that only its `from pkg import *`
binds: a name on a line of its own (an expression statement: a list of what the star import
brings, each a NameError once gone) and a keyword argument's value (`retry=retry_never`).
`examples.star_refs` reads the calls; `scan` keeps the module that defines the name and judges
a name none has only when every star-imported module is the repository's.

Only code-shaped names (`retry_never`, `beforeNothing`: `references.codeish`) are read: a plain
word on a line of its own may be prose or output (a session's line without a prompt is), a name the example binds or imports by name is
its own, and a builtin or another library's well-known name is never the repository's."""

from __future__ import annotations

import builtins
import re

from noface_ctx.freshness.examples import Block
from noface_ctx.freshness.references import (
    EXTERNAL_NAMES,
    IDENT,
    IGNORE_MARK,
    PROMPT,
    STRING,
    Reference,
    codeish,
    placeholder,
)

_ALONE = re.compile(rf"^\s*({IDENT})\s*,?\s*$")  # `retry_any` (or `retry_any,` in a bracketed list)
_KEYWORD_VALUE = re.compile(rf"(?<![\w.]){IDENT}\s*=\s*({IDENT})\s*(?=[,)])")  # `f(retry=retry_never)`
_BUILTINS = frozenset(dir(builtins))
_PROMPTED = re.compile(r"^\s*(?:>>>|\.\.\.)(?:\s|$)")


def star_values(block: Block, local: set[str], imported: frozenset[str], stars: tuple[str, ...]) -> list[Reference]:
    """One `module.name` reference per star-imported module for each code-shaped name `block`
    uses as a value (see the module docstring), binding the name on its line."""
    out: list[Reference] = []
    session = any(_PROMPTED.match(raw) for _, raw in block)  # a session's lines without a prompt are its output
    for lineno, raw in block:
        line = STRING.sub('""', PROMPT.sub("", raw)).split("#", 1)[0]
        if IGNORE_MARK in raw or not line.strip() or (session and not _PROMPTED.match(raw)):
            continue
        alone = _ALONE.match(line)
        found = [alone.group(1)] if alone else [m.group(1) for m in _KEYWORD_VALUE.finditer(line)]
        for name in dict.fromkeys(found):
            if (not codeish(name) or name in local or name in imported or name in _BUILTINS or name in EXTERNAL_NAMES
                    or placeholder(name)):
                continue
            out += [Reference(name, f"{module}.{name}", "method", lineno, True, "python", name) for module in stars]
    return out
