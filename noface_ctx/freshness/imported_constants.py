"""A parameter default that is a constant of another module of the repository holds that constant's literal.

`def add(sink, *, diagnose=_defaults.LOGURU_DIAGNOSE)` after `from . import _defaults`, or `level=DEFAULT_LEVEL`
after `from .settings import DEFAULT_LEVEL`: when the module imported (a file of the repository, found from the
importing file's path: `from . import _defaults` in `pkg/_logger.py` is `pkg/_defaults.py`) binds the name once, at
module level, to a literal or to an environment read with a literal fallback (`constant_defaults.module_literal`),
the default is that literal. So a commit changing only the constant (`env("LOGURU_DIAGNOSE", bool, False)`) changes
the default, and is the one blamed: `fed_history` adds the constant's file's commits to the function's file's.

The other file is read at the same version as the function's (`reading`: `defaults` installs the reader for the
version it reads, now or at a commit); with no reader installed (`definitions`' comparable headers, kept by commit
and path) a dotted default stays as written. An alias bound twice, a module outside the repository, a name the
module binds twice or to anything but a literal: no literal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from noface_ctx import _state as state
from noface_ctx.freshness.constant_defaults import module_literal
from noface_ctx.freshness.references import IDENT

if TYPE_CHECKING:
    from noface_ctx.freshness.history import Commit, HistoryIndex

Read = Callable[[str], "str | None"]
_READING: ContextVar[tuple[str, Read] | None] = ContextVar("imported_constants", default=None)
_FROM = re.compile(r"^from\s+(\.*[\w.]*)\s+import\s+(\([^)]*\)|[^\n#]+)", re.M)  # module level only
_IMPORT = re.compile(r"^import\s+([\w.]+)\s+as\s+(\w+)\s*(?:#.*)?$", re.M)
_DOTTED = re.compile(rf"({IDENT})\.({IDENT})")
_IMPORTS: state.Memo[str, dict[str, list[tuple[str, str]]]] = state.memo("freshness.imported_constants.imports", maxsize=256)
_FEEDING: state.Memo[tuple[str, str], frozenset[str]] = state.memo("freshness.imported_constants", maxsize=256)
_HEADER_DEFAULT = re.compile(rf"(?<=[\w\]])\s*=\s*({IDENT}(?:\.{IDENT})?)\s*(?=[,)])")  # `=_defaults.X,` in a signature


@contextmanager
def reading(path: str, read: Read | None) -> Iterator[None]:
    """Within it, a default read from `path`'s text resolves other modules' constants through `read` (a file's text
    at the same version, None when absent)."""
    token = _READING.set((path, read) if read is not None else None)
    try:
        yield
    finally:
        _READING.reset(token)


def literal_of(text: str, default: str) -> str:
    """`constant_defaults.literal_of`, and a constant of another module (`mod.NAME`, an imported `NAME`) as its literal."""
    name = default.strip()
    if re.fullmatch(IDENT, name) and name not in ("True", "False", "None"):
        return module_literal(text, name) or imported_literal(text, name) or default
    return (imported_literal(text, name) or default) if _DOTTED.fullmatch(name) else default


def imported_literal(text: str, written: str) -> str:
    """The literal `written` (`mod.NAME` or `NAME`) stands for in `text`, the file being read (`reading`), or ''."""
    context = _READING.get()
    if context is None:
        return ""
    path, read = context
    found = source_of(text, path, written)
    if found is None:
        return ""
    for candidate in found[0]:
        other = read(candidate)
        if other is not None:
            return module_literal(other, found[1])
    return ""


def source_of(text: str, path: str, written: str, *, checked: bool = True) -> tuple[list[str], str] | None:
    """(the files the module `written`'s constant comes from may be, the constant's name) by `text`'s imports, or None
    (`checked`: also when the alias is assigned in `text` too, and so not only the module's)."""
    dotted = _DOTTED.fullmatch(written)
    alias, name = (dotted.group(1), dotted.group(2)) if dotted else (written, "")
    hits = _imports(text).get(alias, ())
    if len(hits) != 1 or (checked and re.search(rf"(?<![\w.]){re.escape(alias)}\s*(?::[^=\n]*)?=(?!=)", text)):
        return None  # imported twice, or assigned too: not the module's
    module, imported = hits[0]
    if dotted and imported:  # `from pkg import _defaults`: the module `pkg._defaults`
        module, imported = module + ("" if module.endswith(".") else ".") + imported, ""
    elif dotted is None and not imported:  # `import pkg.mod as NAME`: a module, no constant
        return None
    return _files(path, module), name or imported


def _imports(text: str) -> dict[str, list[tuple[str, str]]]:
    """Each name `text`'s module-level imports bind: [(the module, the name imported from it or "")]."""
    found = _IMPORTS.get(text)
    if found is None:
        found = {}
        for m in _FROM.finditer(text):
            for part in m.group(2).strip("() \t\n").split(","):
                words = part.split()
                if words and (len(words) == 1 or (len(words) == 3 and words[1] == "as")):
                    found.setdefault(words[-1], []).append((m.group(1), words[0]))
        for m in _IMPORT.finditer(text):
            found.setdefault(m.group(2), []).append((m.group(1), ""))
        found = _IMPORTS.put(text, found)
    return found


def _files(importer: str, module: str) -> list[str]:
    """The repository paths module `module` (`.x`, `..pkg.x`, `pkg.x`) imported from `importer` may be."""
    dots = len(module) - len(module.lstrip("."))
    parts = [p for p in module.lstrip(".").split(".") if p]
    folder = importer.split("/")[:-1]
    if dots:
        if dots - 1 > len(folder):
            return []
        bases = ["/".join([*folder[:len(folder) - (dots - 1)], *parts])]
    else:
        roots = ["/".join(folder[:k]) for k, part in enumerate(folder) if parts and part == parts[0]]
        bases = ["/".join(p for p in (root, *parts) if p) for root in (*roots, "", "src")]
    return [f for base in dict.fromkeys(bases) if base for f in (base + ".py", base + "/__init__.py")]


def feeding_files(text: str, path: str) -> frozenset[str]:
    """The files of other modules whose constants `text`'s parameter defaults are written with (may be)."""
    if "import" not in text:
        return frozenset()
    key = (text, path)
    found = _FEEDING.get(key)
    return found if found is not None else _FEEDING.put(key, _feeding_files(text, path))


def _feeding_files(text: str, path: str) -> frozenset[str]:
    out: set[str] = set()
    imports = _imports(text)
    for written in {m.group(1) for m in _HEADER_DEFAULT.finditer(text)}:
        if written.split(".", 1)[0] in imports and (found := source_of(text, path, written, checked=False)):
            out.update(found[0])
    return frozenset(out)


def fed_history(index: HistoryIndex, path: str, since: Commit, text: str | None) -> list[tuple[Commit, str | None]]:
    """`index.path_history(path, since.seq)` with the commits touching the files feeding `path`'s defaults (`text`:
    its text now) in their place, each with `path`'s name then: a constant's change is the default's."""
    own = index.path_history(path, since.seq)
    feeders = feeding_files(text, path) if text is not None else set()
    if not feeders:
        return own
    out = {c.seq: (c, at) for c, at in own}
    for feeder in sorted(feeders):
        for c, _at in index.path_history(feeder, since.seq):
            if c.seq not in out:
                before = [at for d, at in own if d.seq < c.seq]
                out[c.seq] = (c, before[-1] if before else path)
    return [out[seq] for seq in sorted(out)]
