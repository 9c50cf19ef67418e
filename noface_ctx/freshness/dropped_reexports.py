"""Where a name a package stopped re-exporting can still be imported from (`dropped_home`).

A package's `__init__.py` drops `from .api import compare_metadata as compare_metadata`: the doc's
`pkg.autogenerate.compare_metadata` (an autodoc target, an import, a role) breaks, yet the
function is still defined in `pkg/autogenerate/api.py`, its one full name now being
`pkg.autogenerate.api.compare_metadata`. No line defining it was added anywhere (nothing moved),
so the definitions' diff suggests nothing; the import the package held before the change says
where the name lived. Only an import of the name under its own name, from a module file of the
repository that still defines it, is followed: a name the package defined itself, or took from
another package, gets no suggestion.
"""

from __future__ import annotations

from collections.abc import Iterable

from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.star_reexports import reexported_from


def dropped_home(index: HistoryIndex, code: Codebase, name: str, commit: Commit | None,
                 held: Iterable[str]) -> str | None:
    """The full name `name` has now in the module a file of `held` imported it from just before
    `commit` took it out (None: uncommitted edits, against HEAD), when that module still defines
    it and all such modules agree; else None."""
    before = index.parent(commit) if commit is not None else index.latest()
    if before is None:
        return None
    homes = set()
    for path in sorted(held):
        text = index.versions.text_at(before.sha, path)
        source = reexported_from(index, before.sha, path, text, name) if text is not None and name in text else ""
        now = index.path_now(source, before.seq) if source else None
        if now and code.module_defines(now, name):
            homes.add(code.public_name(now, name))
    return homes.pop() if len(homes) == 1 else None
