"""The modules a package re-exported with `from x import *` at a past commit (`star_sources`):
a doc's `requests.InvalidMethod` was requests/exceptions.py's class, reached in 2011 through
`from core import *` in requests/__init__.py and `from exceptions import *` in core.py (Python
2's implicit relative imports); the package has since imported its names one by one, so the
modules it reads now do not tell where the name lived when the doc was written. And the module
a package took one name from (`reexported_from`): webargs' `Arg`, offered in 2015 by
`from webargs.core import Arg` in webargs/__init__.py, was written in webargs/core.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from noface_ctx.freshness.declarations import declared
from noface_ctx.freshness.history import HistoryIndex

DEPTH = 3  # `*` imports followed through this many modules
_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]*(?:\(([^)]*)\)|([^\n]*))", re.M)
_STAR = re.compile(r"^[ \t]*from[ \t]+\S+[ \t]+import[ \t]*\*", re.M)  # a text without one is not parsed


def star_homes(index: HistoryIndex, sha: str, paths: Iterable[str], name: str) -> list[str]:
    """Of `star_sources`, the files defining `name` at the top by a `def`, a `class` or an
    assignment (an import there re-exports a name from a module read apart: not its home)."""
    own = re.compile(rf"^(?:(?:async[ \t]+)?def[ \t]+|class[ \t]+){re.escape(name)}\b|^{re.escape(name)}[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
    return sorted(p for p in star_sources(index, sha, paths) if own.search(index.versions.text_at(sha, p) or ""))


def star_sources(index: HistoryIndex, sha: str, paths: Iterable[str]) -> set[str]:
    """The Python module files that the module files `paths` import with `*` at commit `sha`,
    and those they import with `*` in turn (`DEPTH` levels; `paths` not included)."""
    out: set[str] = set()
    todo = [p for p in paths if p.endswith((".py", ".pyi"))]
    for _ in range(DEPTH):
        found = []
        for path in todo:
            text = index.versions.text_at(sha, path)
            for module in declared(text).stars if text is not None and _STAR.search(text) else ():
                source = _source(index, sha, path, module)
                if source and source not in out:
                    out.add(source)
                    found.append(source)
        todo = found
    return out


def _source(index: HistoryIndex, sha: str, path: str, module: str) -> str:
    """The file `from module import *` in `path` read at commit `sha` (relative, from the
    repository's top, or beside `path`: Python 2's implicit relative import), or ""."""
    folder = path.rpartition("/")[0]
    dots = len(module) - len(module.lstrip("."))
    rel = module[dots:].replace(".", "/")
    if dots:
        parts = folder.split("/") if folder else []
        if dots - 1 >= len(parts):
            return ""
        stems = ["/".join([*parts[:len(parts) - dots + 1], *([rel] if rel else [])])]
    else:
        stems = [rel, *([f"{folder}/{rel}"] if folder else [])]
    for stem in stems:
        for cand in (stem + ".py", stem + "/__init__.py"):
            if index.versions.blob(sha, cand) is not None:
                return cand
    return ""


def reexported_from(index: HistoryIndex, sha: str, path: str, text: str, name: str) -> str:
    """The module file of this repository (at commit `sha`) that the module `path` (its `text`)
    imports `name` from, under its own name (`from .core import Arg`, `from pkg.core import Arg`;
    not `import Arg as Other`'s alias, nor a name from another package: no such file), or ""."""
    for m in _FROM.finditer(text):
        names = re.sub(r"#[^\n]*", "", m.group(2) if m.group(2) is not None else m.group(3)).replace("\\", " ")
        if any(part.split() in ([name], [name, "as", name]) for part in names.split(",")):
            found = _source(index, sha, path, m.group(1)) or _from_package_root(index, sha, path, m.group(1))
            if found and found != path:
                return found
    return ""


def _from_package_root(index: HistoryIndex, sha: str, path: str, module: str) -> str:
    """The file of the absolute `module` under the folder holding its top package, as `path`'s
    folders name it (`src/pkg/__init__.py` importing from `pkg.core`: `src/pkg/core.py`), or ""."""
    if module.startswith("."):
        return ""
    parts, top = path.split("/")[:-1], module.split(".", 1)[0]
    if top not in parts:
        return ""
    stem = "/".join([*parts[:parts.index(top)], *module.split(".")])
    for cand in (stem + ".py", stem + "/__init__.py"):
        if index.versions.blob(sha, cand) is not None:
            return cand
    return ""
