"""Git history behind freshness: did a missing reference exist when the doc last changed, what
replaced it, and how much the doc's code changed since (see `noface_ctx.freshness`).

Everything is asked in batches: one `git grep` per distinct revision for every doc that needs
it (not one per doc), narrowed to the files that could hold a name the current code lacks, and
one `git log --numstat` pass for the churn of every doc.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from noface_ctx import git
from noface_ctx.datatypes import Doc, MissingRef
from noface_ctx.references import CODE_EXTS, DOC_EXTS, Codebase, Reference, close_name, file_ext, similar

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOC_EXCLUDES = tuple(f"*.{e}" for e in sorted(DOC_EXTS))
MAX_SCOPE = 2000  # more files than this to grep: grep the whole revision instead


@dataclass(slots=True)
class Scan:
    """One doc's references as resolved against the current code, then judged against history."""

    doc: Doc
    refs: list[Reference]
    keys: list[str]
    files: dict[str, int]  # referenced code file -> first doc line about it
    candidates: list[tuple[Reference, str]]
    missing: list[MissingRef] = field(default_factory=list)
    unresolved: list[MissingRef] = field(default_factory=list)
    time: float | None = None


def missing_ref(ref: Reference, lookup: str, suggestion: str | None) -> MissingRef:
    if suggestion and ref.kind == "method" and lookup != ref.name and lookup in ref.name.split("."):
        suggestion = ".".join(suggestion if p == lookup else p for p in ref.name.split("."))
    return MissingRef(ref.ref, ref.line, suggestion)


class History:
    """Git history questions about references that no longer resolve."""

    def __init__(self, root: str, code: Codebase, dirty: set[str], *, suggest_unresolved: bool = True) -> None:
        self.root = root
        self.suggest_unresolved = suggest_unresolved
        self.code = code
        self.dirty = dirty
        self._trees: dict[str, set[str]] = {}
        self._renames: dict[str, dict[str, str]] = {}
        self._unclean: set[str] | None = None

    def classify(self, jobs: Sequence[tuple[Scan, tuple[str, int, str] | None, bool]]) -> None:
        """Split each scan's candidates into missing (existed when its doc last changed) and
        unresolved; `jobs` are (scan, the doc's last commit, whether the doc has local edits)."""
        plans = []
        wanted: dict[str, set[str]] = {}
        for scan, commit, dirty in jobs:
            revs = [commit[0], commit[2]] if commit else []
            if commit is None or dirty:
                revs.append("HEAD")
            revs = [r for r in revs if r]
            names = {lookup for ref, lookup in scan.candidates if ref.kind != "path"}
            for r in revs if names else ():
                wanted.setdefault(r, set()).update(names)
            plans.append((scan, revs, names))
        found = {rev: self._grep(rev, names) for rev, names in wanted.items()}
        for scan, revs, names in plans:
            held: dict[str, set[str]] = {}
            for rev in revs:
                for word, paths in found.get(rev, {}).items():
                    if word in names:
                        held.setdefault(word, set()).update(paths)
            self._classify(scan, revs, held)

    def _grep(self, rev: str, names: set[str]) -> dict[str, set[str]]:
        """`word -> {paths}` for the names found in `rev` (one `git grep`).

        A name the current code lacks can only be in `rev` in a file that changed since, or in
        one whose text the current code's words leave out (binary now, excluded, truncated):
        the search is narrowed to those files, which gives the same answer much faster.
        """
        scope = self._scope(rev)
        if scope is not None and not scope:
            return {}
        return git.grep_words(self.root, [rev], names, exclude=_DOC_EXCLUDES, paths=scope)

    def _scope(self, rev: str) -> list[str] | None:
        if self._unclean is None:
            self._unclean = {p for p in self.code.paths - self.code.word_sources
                             if not p.endswith(tuple("." + e for e in DOC_EXTS))}
        changed = set(self.dirty)
        if rev != "HEAD":
            since = git.changed_files(self.root, rev, "HEAD")
            if since is None:
                return None
            changed |= since
        scope = {p for p in changed if not p.endswith(tuple("." + e for e in DOC_EXTS))} | self._unclean
        return sorted(scope) if len(scope) <= MAX_SCOPE else None

    def _classify(self, scan: Scan, revs: list[str], held: dict[str, set[str]]) -> None:
        tree: set[str] = set()
        if any(ref.kind == "path" for ref, _ in scan.candidates):
            for r in revs:
                tree |= self._tree(r)
        base = revs[0] if revs else "HEAD"
        for ref, lookup in scan.candidates:
            if ref.kind == "path":
                hits = [p for p in tree if p == lookup or p.endswith("/" + lookup) or p.startswith(lookup + "/")]
                if not hits:
                    scan.unresolved.append(MissingRef(ref.ref, ref.line, self._close(lookup)))
                    continue
                scan.files.setdefault(hits[0], ref.line)
                moved = self._rename(base).get(hits[0])
                scan.missing.append(missing_ref(ref, lookup, moved or similar(self.code, hits[0], ())))
            elif lookup in held:
                files = held[lookup]
                scan.files.update({f: ref.line for f in files if f not in scan.files})
                scan.missing.append(missing_ref(ref, lookup, self._suggest(base, lookup, files, scan.files)))
            else:
                scan.unresolved.append(MissingRef(ref.ref, ref.line, self._close(lookup)))

    def _close(self, lookup: str) -> str | None:
        return close_name(self.code, lookup) if self.suggest_unresolved else None

    def _tree(self, rev: str) -> set[str]:
        if rev not in self._trees:
            self._trees[rev] = git.tree_paths(self.root, rev)
        return self._trees[rev]

    def _rename(self, rev: str) -> dict[str, str]:
        if rev not in self._renames:
            self._renames[rev] = git.renames_since(self.root, rev)
        return self._renames[rev]

    def _suggest(self, rev: str, name: str, held_in: set[str], doc_files: Mapping[str, int]) -> str | None:
        renames = self._rename(rev)
        paths = set(held_in) | {renames[p] for p in held_in if p in renames}
        votes = replacements(git.diff_since(self.root, rev, paths), name)
        for cand, _n in votes.most_common():
            if cand != name and self.code.known(cand):
                return cand
        return similar(self.code, name, paths | set(doc_files))


def replacements(diff: str, name: str) -> Counter[str]:
    """Identifiers that took `name`'s place in the hunks of a `-U0` diff that removed it."""
    votes: Counter[str] = Counter()
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        for r in removed:
            rt = _IDENT.findall(r)
            if name not in rt or not added:
                continue
            ratio, best = max((difflib.SequenceMatcher(None, r, a).ratio(), a) for a in added)
            if ratio < 0.5:  # no added line resembles the removed one: not a rename
                continue
            at = _IDENT.findall(best)
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, rt, at, autojunk=False).get_opcodes():
                if op == "replace" and i2 - i1 == j2 - j1:
                    votes.update(at[j1 + k] for k in range(i2 - i1) if rt[i1 + k] == name and at[j1 + k] != name)
        removed.clear()
        added.clear()

    in_hunk = False
    for line in diff.split("\n"):
        if line.startswith("@@") or line.startswith("diff "):
            flush()
            in_hunk = line.startswith("@@")
        elif in_hunk and line.startswith("-"):
            removed.append(line[1:])
        elif in_hunk and line.startswith("+"):
            added.append(line[1:])
    flush()
    return votes


def churn(root: str, scans: Sequence[Scan]) -> dict[str, tuple[int, dict[str, list[int]]]]:
    """doc path -> (commits, path -> [commits, added, deleted]) since the doc was last updated.

    Only source files count (a changed README or version bump says nothing about a design doc).
    One `git log --numstat` pass over every referenced source file of every doc.
    """
    code = {s.doc.path: {p for p in s.files if file_ext(p) in CODE_EXTS} for s in scans}
    live = [s for s in scans if code[s.doc.path] and s.time is not None]
    if not live:
        return {}
    paths = set().union(*(code[s.doc.path] for s in live))
    since = min(s.time for s in live if s.time is not None)
    out: dict[str, tuple[int, dict[str, list[int]]]] = {s.doc.path: (0, {}) for s in live}
    for when, changes in git.iter_numstat(root, paths if len(paths) <= 500 else None, since=int(since)):
        for s in live:
            if s.time is None or when <= s.time:
                continue
            count, per = out[s.doc.path]
            touched = False
            for added, deleted, path in changes:
                if path in code[s.doc.path]:
                    stat = per.setdefault(path, [0, 0, 0])
                    stat[0] += 1
                    stat[1] += added
                    stat[2] += deleted
                    touched = True
            if touched:
                out[s.doc.path] = (count + 1, per)
    return out
