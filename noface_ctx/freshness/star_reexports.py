"""The modules a package re-exported with `from x import *` at a past commit (`star_sources`):
a doc's `requests.InvalidMethod` was requests/exceptions.py's class, reached in 2011 through
`from core import *` in requests/__init__.py and `from exceptions import *` in core.py (Python
2's implicit relative imports); the package has since imported its names one by one, so the
modules it reads now do not tell where the name lived when the doc was written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from noface_ctx.freshness.declarations import declared
from noface_ctx.freshness.history import HistoryIndex

DEPTH = 3  # `*` imports followed through this many modules
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
