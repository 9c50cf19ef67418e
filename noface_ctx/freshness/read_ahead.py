"""File versions `presence` reads, asked of git together instead of one round trip each
(`versions.FileVersions.prefetch`): the files a removal's candidates were found in, at the commit
they were found at, and a missing module name's module files back (`removal_reads`: what
`defined_then.declared_in` and `presence._removed_before` read), and the docs' earlier
versions read back to where a name started (`started`: in rounds, each round's versions in one
pass). They read the versions the questions read one at a time (a module name's: all 12, where the
questions stop at one defining it), and the answers are the same: only the round trips to `git
cat-file` go (django's cold run: about 1,800 of its 3,600)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from noface_ctx.freshness.code_words import PYTHON_EXTS
from noface_ctx.freshness.defined_then import module_level
from noface_ctx.freshness.deleted import module_name
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.name_lookups import identifiers_among
from noface_ctx.freshness.references import CODE_EXTS, FENCE_LANGS, Reference, file_ext
from noface_ctx.freshness.scan import DocScan

Found = Mapping[str, tuple[Commit, set[str]]]  # name -> (the commit it was found at, files holding it there)
Started = tuple[list[tuple[Commit, str]], set[str], dict[str, Commit]]  # (versions listed, names still lacking, name -> start)


def within_scope(index: HistoryIndex, files: Sequence[str] | set[str], scope: Sequence[str], at: Commit) -> list[str]:
    """The files of `files` (paths at `at`) in `scope` (paths now): the same path, the path it has
    now, or the same module as a package or back (no rename record); all of them without a scope."""
    if not scope:
        return list(files)
    return [p for p in files if p in scope or index.path_now(p, at.seq) in scope
            or p.removesuffix(".py") + "/__init__.py" in scope or p.removesuffix("/__init__.py") + ".py" in scope]


def python_keyword(ref: Reference) -> bool:
    """A Python call's keyword: a parameter Python code declares (`PYTHON_DECLARING`), not a
    property of a JavaScript file (`aspect` in a removed jquery)."""
    return ref.kind == "keyword" and ref.source in FENCE_LANGS and "py" in FENCE_LANGS[ref.source]


def removal_reads(plans: Sequence[tuple[DocScan, Commit]], found_at: Sequence[Found],
                  index: HistoryIndex) -> Iterator[tuple[str, str]]:
    """(commit, path) of each code file version `record_removals` reads to tell where a candidate
    was defined: the files of its scope holding it where it was found (a Python call's keyword:
    only those declaring Python parameters), but a module file named like it (its blob id tells);
    for a module's name never found, its scope's Python files' last 12 versions (`_removed_before`:
    the word in none of them at the doc's commit, each is read back to one defining it)."""
    for (s, since), found in zip(plans, found_at, strict=True):
        for ref, lookup, scope in s.candidates:
            if ref.kind != "path" and lookup not in found and module_level(ref, lookup):
                yield from ((c.sha, then) for p in scope if p.endswith(".py") for c, then in index.earlier(p, since.seq + 1, 12))
            if ref.kind == "path" or lookup not in found:
                continue
            at, files = found[lookup]
            for p in within_scope(index, files, scope, at):
                ext = file_ext(p)
                if ext in CODE_EXTS and (ext in PYTHON_DECLARING or not python_keyword(ref)) and not (
                        ext in PYTHON_EXTS and module_name(p) == lookup):
                    yield at.sha, p


PYTHON_DECLARING = frozenset({"py", "pyi", "pyx", "pxd"})  # where a Python call's keyword can be a parameter


def started(index: HistoryIndex, asks: Sequence[tuple[str, Commit, set[str]]]) -> list[Started]:
    """For each (doc, its commit, names it lacks there): its earlier versions (`index.earlier`), the
    names none of them holds from the newest on, and for the others the oldest version from which
    every newer one holds it, reading each doc's versions newest first until none lacks a name."""
    out: list[Started] = [(index.earlier(doc, at.seq) if lacking else [], set(lacking), {}) for doc, at, lacking in asks]
    depth = 0
    while todo := [row for row in out if row[1] and depth < len(row[0])]:
        index.prefetch((row[0][depth][0].sha, row[0][depth][1]) for row in todo)
        for versions, lacking, start in todo:
            commit, path = versions[depth]
            lacking.intersection_update(identifiers_among(index.versions.text_at(commit.sha, path) or "", lacking))
            start.update(dict.fromkeys(lacking, commit))
        depth += 1
    return out
