"""Was a name in the code when the doc was last changed? (`held_at`): the evidence that a name a
doc uses and the code lacks now was removed, rather than never a reference.

A name is looked for with `git grep` (whole words, fixed strings; docs, catalogs and binaries
left out: `NOT_CODE`), one
process per distinct commit for every doc sharing it, two at a time: at the doc's last
commit, in the files touched since (the name is gone now, so a file holding it then changed
since; the whole tree when more than `MAX_SCOPE` files did). A name that commit lacks is looked
for at its parent too, but only in the files that commit touched: a commit that removed a
name from the code and updated the doc in the same change. Answers are kept in
`history.sqlite` (`HistoryIndex.greps`) for this HEAD; the narrow parent searches under the
child's sha with a trailing `^`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from noface_ctx import git
from noface_ctx.filetypes import FILE_TYPES, bare
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.references import DOC_EXTS, file_ext

MAX_SCOPE = 3000  # more files than this to grep at a commit: grep its whole tree instead
# never code: docs, images, translation catalogs (django's 1,241 `.po` files are a quarter of its
# text), archives and other binaries; leaving them out halves a whole-tree `git grep`
NOT_CODE = DOC_EXTS | bare(frozenset(e for e, row in FILE_TYPES.items() if row.kind == "asset")) | frozenset(
    "po pot mo gz bz2 xz zip tar jar whl ico woff woff2 ttf otf eot pdf dbf shp shx prj graffle pyc so dll".split())
EXCLUDES = tuple(f"*.{e}" for e in sorted(NOT_CODE))

Held = dict[str, tuple[Commit, set[str]]]  # name -> (the commit it was found at, files holding it there)


def held_at(root: str | Path, index: HistoryIndex, asks: Sequence[tuple[Commit, set[str], bool]]) -> list[Held]:
    """For each (doc's commit, names, the doc being edited): the names found there, with the
    commit and files; a doc being edited is judged at HEAD and has no parent to look at."""
    wanted: dict[str, set[str]] = {}
    for at, names, _editing in asks:
        wanted.setdefault(at.sha, set()).update(names)
    found = _search(root, index, {sha: (sha, names, _touched_since(index, sha)) for sha, names in wanted.items()})
    out: list[Held] = [{n: (at, found[at.sha][n]) for n in names if found[at.sha].get(n)} for at, names, _ in asks]
    narrow: dict[str, tuple[str, set[str], list[str] | None]] = {}
    parents: dict[str, Commit] = {}
    for (at, names, editing), held in zip(asks, out, strict=True):
        parent = index.parent(at) if not editing else None
        lacking = {n for n in names if n not in held}
        if parent is None or not lacking:
            continue
        parents[at.sha] = parent
        key = at.sha + "^"
        scope = narrow.setdefault(key, (parent.sha, set(), _code_files(index.files_of(at.seq))))
        scope[1].update(lacking)
    found = _search(root, index, narrow)
    for (at, _names, _editing), held in zip(asks, out, strict=True):
        for n, files in found.get(at.sha + "^", {}).items():
            if files and n not in held:
                held[n] = (parents[at.sha], files)
    return out


def _touched_since(index: HistoryIndex, sha: str) -> list[str] | None:
    """Code files touched at commit `sha` or after; None (the whole tree) when too many."""
    at = index.commit(sha)
    if at is None:
        return None
    touched = _code_files(index.files_after(at.seq - 1))
    return touched if len(touched) <= MAX_SCOPE else None


def _code_files(paths: Iterable[str]) -> list[str]:
    return sorted(p for p in paths if file_ext(p) not in NOT_CODE)


def _search(root: str | Path, index: HistoryIndex,
            asks: dict[str, tuple[str, set[str], list[str] | None]]) -> dict[str, dict[str, set[str]]]:
    """key -> name -> files, for asks `key -> (commit to grep, names, files or None for all)`;
    answers kept under `key` are not searched again."""
    found: dict[str, dict[str, set[str]]] = {}
    jobs = []
    for key, (sha, names, scope) in asks.items():
        found[key], todo = index.greps(key, names)
        if todo and scope != []:
            jobs.append((key, sha, todo, scope))
        elif todo:
            index.remember_greps(key, todo, {})
    with ThreadPoolExecutor(max_workers=2) as pool:  # each `git grep` is a process: two at a time
        greps = pool.map(lambda job: git.grep_words(root, [job[1]], job[2], exclude=EXCLUDES, paths=job[3]), jobs)
        for (key, _sha, names, _scope), hits in zip(jobs, greps, strict=True):
            found[key].update(hits)
            index.remember_greps(key, names, hits)
    return found
