"""Judging what changed since each doc's commit: definitions of the symbols it names
(`changed_symbols`) and the defaults it states (`changed_defaults`). Functions of explicit
inputs: the docs' scans with the commit each is checked against, the history index, and the
work tree (`Worktree`); each adds `ChangedRef`s to a scan's `changed`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from noface_ctx import _git as git
from noface_ctx._filetypes import is_test_path
from noface_ctx.datatypes import ChangedRef
from noface_ctx.freshness.ancestry import Ancestry
from noface_ctx.freshness.code_words import PYTHON_EXTS
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.defaults import changed_defaults as defaults_changed
from noface_ctx.freshness.defaults import stated_defaults
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.judgement import UNCOMMITTED
from noface_ctx.freshness.notice import body_counts, counts_for
from noface_ctx.freshness.presence import EXCLUDES, MAX_SCOPE, code_files
from noface_ctx.freshness.references import codeish, file_ext
from noface_ctx.freshness.scan import DocScan

Plan = tuple[DocScan, Commit]  # a doc's scan and the commit it is checked against


@dataclass(frozen=True, slots=True)
class Worktree:
    """The work tree a run judges: its root and the files with uncommitted edits (read as they
    are now, each once)."""

    root: str
    dirty: frozenset[str]
    _texts: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)

    def read(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = read_text(str(Path(self.root) / path))
        return self._texts[path]

    def changed_since(self, index: HistoryIndex, path: str, since: Commit) -> bool:
        return path in self.dirty or index.touched_after(path, since.seq)


def changed_symbols(plans: Sequence[Plan], index: HistoryIndex, tree: Worktree, ancestry: Ancestry) -> None:
    """Each doc's symbols whose definition changed since its commit, as the doc would notice
    (`notice.counts_for`; see `history.HistoryIndex.symbol_change`); one finding per symbol."""
    index.prefetch(  # the versions every doc's symbols are first looked up in, read in one pass
        (since.sha, path) for s, since in plans for ref, files in s.symbols
        if ref.source != "autodoc" for path in files if tree.changed_since(index, path, since))
    for s, since in plans:
        seen: set[tuple[str, tuple[str, ...]]] = set()  # a symbol once, however the doc names it (`pkg.Flask`, `Flask`)
        for ref, files in sorted(s.symbols, key=lambda rf: not rf[0].documented):  # a documented one first
            key = (ref.name.rsplit(".", 1)[-1], tuple(files))
            if key in seen or ref.source == "autodoc":  # an autodoc directive renders the code as it is
                continue
            seen.add(key)
            for path in files:
                now_text = tree.read(path) if path in tree.dirty else None
                name = index.def_name(since.sha, path, ref.name) if (
                    now_text is not None or index.touched_after(path, since.seq)) else None
                if name is None:
                    continue
                got = index.symbol_change(path, name, since, now_text, signature_only=not ref.documented,
                                          counts=counts_for(s.doc, ref, _ancestors_of(ancestry, path)),
                                          body_counts=body_counts(s.doc, ref.line))
                if got is not None:
                    commit, what = got
                    s.changed.append(ChangedRef(ref.ref, ref.line, path, commit.label() if commit else UNCOMMITTED, what))
                    break


def changed_defaults(plans: Sequence[Plan], index: HistoryIndex, tree: Worktree, code: Codebase) -> None:
    """Defaults the docs state whose code default changed since (`defaults`): one `git grep` at
    HEAD for every name, in the code files changed since the oldest of these docs' commits."""
    asks = [(s, since, stated) for s, since in plans if (stated := stated_defaults(s.doc))]
    if not asks:
        return
    names = {n for _, _, stated in asks for st in stated for n in st.names}
    scope = [p for p in code_files(index.files_after(min(since.seq for _, since, _ in asks) - 1))
             if file_ext(p) in PYTHON_EXTS and not is_test_path(p)]
    # where a setting or field is coded: the changed files holding a code-shaped name; a plain
    # word (`prefix`) only in the files defining what its sentence names
    shaped = sorted(n for n in names if codeish(n))
    holders = git.grep_words(tree.root, ["HEAD"], shaped, exclude=EXCLUDES,
                             paths=scope if len(scope) <= MAX_SCOPE else None) if shaped and scope else {}
    holders = {n: {p for p in paths if file_ext(p) in PYTHON_EXTS and not is_test_path(p)} for n, paths in holders.items()}
    for path in code_files(tree.dirty):  # uncommitted edits: read as they are
        if file_ext(path) in PYTHON_EXTS:
            words = set(re.findall(r"[A-Za-z_]\w*", tree.read(path) or ""))
            for name in words.intersection(names):
                holders.setdefault(name, set()).add(path)
    near = {n for _, _, stated in asks for st in stated for n in st.names if not codeish(n)}
    for st in (st for _, _, stated in asks for st in stated):  # a plain word: in the files of what its sentence names
        for name in st.names:
            if not codeish(name):
                holders.setdefault(name, set()).update(
                    p for other in st.names if other != name and other in near | set(shaped) for p in code.defining_files(other)
                    if not is_test_path(p))
    for s, since, stated in asks:
        s.changed += defaults_changed(stated, since, index, holders, tree.read, _touched(tree, index, since))


def _ancestors_of(ancestry: Ancestry, home: str) -> Callable[[Iterable[str]], set[str]]:
    return lambda names: ancestry.ancestors(names, home)


def _touched(tree: Worktree, index: HistoryIndex, since: Commit) -> Callable[[str], bool]:
    return lambda path: tree.changed_since(index, path, since)


def read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None
