"""A module's dotted name a Python example hands on without calling it (`processors=[structlog.dev.set_exc_info]`,
`handler = pkg.handlers.JsonHandler`, a dictConfig's `"()": pkg.mod.Factory`): callbacks, processors and
classes are passed by reference, and a name gone from its module is an AttributeError there as much as in a
call. Read only on a root the doc's examples bind by importing a module (`import structlog`, `import
pkg.mod as m`); `scan` drops the names of a module outside the repository with its import. A root the example
assigns, a standard module (`logging.INFO`), `self` and an object of unknown type (`obj.dev.f`) are not read.

`handed_attributes`: a code-shaped attribute read on a parameter of a function the example defines
(`def cb(retry_state): return retry_state.last_outcome.result()`: a callback the repository calls with
its own object) is the member name alone, a `member` reference, as a code-shaped method called on it is
(`examples.example_refs`): judged only as a name the repository defined, removed and nothing defines now."""

from __future__ import annotations

import re

from noface_ctx.freshness.examples import _PY_IMPORT, Block, _parameters
from noface_ctx.freshness.references import (
    EXTERNAL_NAMES,
    IDENT,
    IGNORE_MARK,
    PROMPT,
    SELF_NAMES,
    STRING,
    Reference,
    codeish,
    placeholder,
)


def imported_modules(blocks: list[Block]) -> frozenset[str]:
    """The names the examples' `import pkg.mod [as alias]` lines bind (`pkg`, or `alias`)."""
    found = (_PY_IMPORT.match(PROMPT.sub("", raw)) for block in blocks for _, raw in block)
    return frozenset(m.group(2) or m.group(1).split(".", 1)[0] for m in found if m is not None)


def module_attributes(blocks: list[Block], local: set[str], types: dict[str, str],
                      aliases: dict[str, str]) -> list[Reference]:
    """`root.a.b` not followed by a call's `(` (its call is read by `example_refs`), `root` bound by an
    import of a module: a `method` reference to the name through the module (an alias spelled out)."""
    roots = {r for r in imported_modules(blocks) if r not in types and r not in EXTERNAL_NAMES and r != "self"}
    roots -= {r for r in roots if r in local and r not in aliases}  # assigned by the example: its own
    if not roots:
        return []
    chain = re.compile(rf"(?<![\w.])({'|'.join(map(re.escape, sorted(roots)))})((?:\.{IDENT})+)(?![\w.]|\s*\()")
    out: list[Reference] = []
    for block in blocks:
        for lineno, raw in block:
            line = PROMPT.sub("", raw)
            if IGNORE_MARK in raw or _PY_IMPORT.match(line) or re.match(r"\s*from\s", line):
                continue
            for m in chain.finditer(STRING.sub('""', line).split("#", 1)[0]):
                root, rest = m.group(1), m.group(2)
                name = (aliases.get(root, root)) + rest
                if not placeholder(name):
                    out.append(Reference(m.group(0), name, "method", lineno, True, "python"))
    return out


def handed_attributes(block: Block, local: set[str]) -> list[Reference]:
    """The first attribute read on a parameter of a function a Python block defines, when code-shaped
    (`state.last_outcome`, `state.last_outcome.result()`): `member` references. Not `self`/`cls` (the
    example's own class), nor an attribute the example sets anywhere (`request.my_flag = 1`: its own)."""
    params = _parameters(block) - SELF_NAMES - local
    if not params:
        return []
    lines = [(n, STRING.sub('""', PROMPT.sub("", raw)).split("#", 1)[0]) for n, raw in block if IGNORE_MARK not in raw]
    chain = re.compile(rf"(?<![\w.])(?:{'|'.join(map(re.escape, sorted(params)))})\.({IDENT})(?=(\s*=(?!=))?)")
    found = [(n, m.group(1), bool(m.group(2))) for n, line in lines for m in chain.finditer(line)]
    written = {name for _, name, sets in found if sets}
    return [Reference(name, name, "member", n, True, "python") for n, name, sets in found
            if not sets and name not in written and name not in local and codeish(name) and not placeholder(name)]
