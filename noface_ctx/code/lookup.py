"""Lookups agents type: a definition by name alone, and an implementation rather than its stubs.

`NEED_CODE: locate_app` or `need_code("Flask.register_blueprint")` names no file; `where_defined`
says which files to look in, best first: the files defining the name, then (for `Class.method`
found nowhere by that name) the files defining `Class`, whose bases the resolver then walks.
`split_overloads` separates `@overload` signatures from the implementation they describe, so a
request for `path::name` serves the body and only lists the stubs. Pure functions: the caller
reads files through its own guard.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from noface_ctx._filetypes import is_test_path
from noface_ctx.datatypes import CodeChunk

_NAME = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_OVERLOAD = re.compile(r"^\s*@\s*(?:[\w.]+\.)?overload\b")
_DEF = re.compile(r"^\s*(?:async\s+)?def\b")


def symbol_target(target: str) -> str:
    """The dotted name a path-less target stands for (`Flask.register_blueprint()` →
    `Flask.register_blueprint`), or '' when it cannot be one (it has a `/`, a range, spaces)."""
    name = target.strip()
    if name.endswith("()"):
        name = name[:-2]
    return name if "/" not in name and _NAME.match(name) else ""


def where_defined(name: str, find: Callable[[str], Iterable[CodeChunk]]) -> tuple[list[tuple[str, str]], bool]:
    """((path, qualified name to ask that file for), best first; True when they define `name` itself).

    `find` is the code index's `find_symbol`. Definitions of the name itself (source before tests,
    then by path); for `Class.method` defined nowhere under that name, the files defining a class
    named exactly `Class`, asked for `Class.method` so its bases are searched.
    """
    direct = [c for c in find(name) if c.kind not in ("block", "window")]
    if direct:
        return list(dict.fromkeys((c.path, c.symbol) for c in sorted(direct, key=_best_first))), True
    if "." not in name:
        return [], False
    cls, _, method = name.rpartition(".")
    holders = [c for c in find(cls) if c.kind == "class" and c.symbol == cls]
    return list(dict.fromkeys((c.path, f"{c.symbol}.{method}") for c in sorted(holders, key=_best_first))), False


def _best_first(chunk: CodeChunk) -> tuple[bool, str, int]:
    return is_test_path(chunk.path), chunk.path, chunk.start_line


def is_overload_stub(lines: Sequence[str], chunk: CodeChunk) -> bool:
    """True for a Python `@overload` (`@typing.overload`, `@t.overload`) signature: a decorator
    line between the chunk's first line and its `def` says so."""
    for line in lines[chunk.start_line - 1 : chunk.end_line]:
        if _OVERLOAD.match(line):
            return True
        if _DEF.match(line):
            return False
    return False


def split_overloads(lines: Sequence[str], found: Sequence[CodeChunk]) -> tuple[list[CodeChunk], list[CodeChunk]]:
    """(implementations, overload stubs) among definitions of one name; when every match is a
    stub (a `.pyi` file, a protocol) they are all implementations, so something is served."""
    stubs = [c for c in found if is_overload_stub(lines, c)]
    impl = [c for c in found if c not in stubs]
    return (impl, stubs) if impl else (list(found), [])
