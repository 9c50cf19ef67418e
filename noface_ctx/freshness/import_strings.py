"""A dotted import path written as a string (issue 25, rule 3): a string literal of a Python example, or a quoted
code span, whose whole text is a dotted path of three parts or more (`"pkg.stats.DownloaderStats"`, `'pkg.mod:func'`)
names that object, the way import-path settings, entry points and `load_object`-style loaders take it: a reference
(source `string`), judged as a role is (removed or renamed, blame, suggestion). Only a path rooted at a package of the
repository whose module part is one of its modules is judged (`Codebase.resolve` asks `judged`): another project's
path (`"myproject.middlewares.Custom"`), a logger name under no module (`"pkg.security.csrf"`), a two-part word pair
(`"pkg.x"`), a file or host name (`"pkg.conf.json"`), a URL, a string with spaces, or a string in a block
that is no Python (a log printed as output) are not."""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable
from typing import Protocol, TypeVar

from noface_ctx.freshness.references import IDENT, KNOWN_EXTS, Reference

SOURCE = "string"
R = TypeVar("R", bound="_Status")
_PATH = rf"{IDENT}(?:\.{IDENT})+(?::{IDENT}(?:\.{IDENT})*)?"  # `pkg.mod.Class`, `pkg.mod:func`
_QUOTED = re.compile(rf"""(?<![\w'"\\])(['"])({_PATH})\1(?!['"])""")
_SPAN = re.compile(rf"""(['"])({_PATH})\1""")
_HOSTS = frozenset({"com", "org", "net", "io", "dev", "edu", "gov", "local", "localhost"})


class _Code(Protocol):
    def importable(self, root: str) -> bool: ...

    def module_holder(self, parts: list[str]) -> tuple[int, str]: ...


def _ref(path: str, lineno: int) -> Reference | None:
    """The reference a string's text makes, or None (fewer than three parts, a file or host name)."""
    name = path.replace(":", ".")
    last = name.rsplit(".", 1)[-1]
    if name.count(".") < 2 or path.count(":") > 1 or last.lower() in KNOWN_EXTS or last.lower() in _HOSTS:
        return None
    return Reference(path, name, "method", lineno, True, SOURCE)


def string_span(text: str, lineno: int) -> Reference | None:
    """A quoted code span (``'pkg.dupefilters.RFPDupeFilter'``): its reference, or None."""
    m = _SPAN.fullmatch(text)
    return _ref(m.group(2), lineno) if m is not None else None


def string_refs(block: list[tuple[int, str]]) -> list[Reference]:
    """The string literals of a Python example whose whole text is a dotted path (`{"pkg.stats.Stats": 850}`): in a
    session, its input lines (`>>> `, `... `); else only in a block that parses as Python (a log shown after
    "You should see an output like this::" prints its paths, it does not name them)."""
    if any(line.lstrip().startswith(">>>") for _, line in block):
        block = [(n, line) for n, line in block if line.lstrip().startswith((">>>", "..."))]
    else:
        try:
            ast.parse(textwrap.dedent("\n".join(line for _, line in block)))
        except (SyntaxError, ValueError):
            return []
    return [r for lineno, line in block for m in _QUOTED.finditer(line) if (r := _ref(m.group(2), lineno)) is not None]


def judged(code: _Code, ref: Reference) -> bool:
    """Whether a string's path is the repository's to judge: its root an importable package, and a module of it
    below the root holding what follows (`pkg/stats.py` for `pkg.stats.DownloaderStats`)."""
    parts = ref.name.split(".")
    return code.importable(parts[0]) and code.module_holder(parts)[0] >= 2


class _Status(Protocol):
    @property
    def status(self) -> str: ...


def resolve(code: _Code, ref: Reference, dotted: Callable[[Reference], R], made: Callable[..., R]) -> R | None:
    """A string's resolution (`dotted` reads it as any dotted path), or None for any other reference: skipped when
    not the repository's to judge (`judged`); found is skipped too, as for a role: judged for removal, never for a
    changed signature."""
    if ref.source != SOURCE:
        return None
    if not judged(code, ref):
        return made("skip")
    got = dotted(ref)
    return made("skip") if got.status == "found" else got
