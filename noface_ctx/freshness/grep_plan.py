"""`git grep`s at many commits planned so that each version of a file is searched once, and
their answers kept across runs and commits (`Search`).

`presence` asks, per doc, whether names were in the code at the doc's commit, in the files
touched since. On a large repository the docs' commits are many and their scopes overlap:
django's 269 docs made 151 greps over 124,000 files, 1.1 GB, where the distinct versions are
16,000 files. A file not touched between two commits asked about is the same version at
both, so it is searched once, at the newer of them, for the words of both (`plan`); the
answers are then handed back to each ask (`GrepPlan.answers`). Which files a commit touched
comes from the history index (HEAD's first-parent chain), never from git.

`Search` runs the planned greps and keeps each answer (name -> files at a commit) in the
history index. An answer whose scope a key fixes (a parent's files, a window of the doc's
history, a list of edited files) holds at every HEAD. One whose scope is "the code files
touched since the commit" (`growing`) grows with HEAD: after a commit, only the files it
touched that the scope lacked are searched (at the asked commit: its versions never change),
so a commit costs the greps of the files it touched, not every answer.
"""

from __future__ import annotations

import weakref
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from noface_ctx import _git as git
from noface_ctx.freshness.history import HistoryIndex
from noface_ctx.freshness.words_process import WordsProcess

Ask = tuple[str, set[str], list[str] | None]  # (commit sha, names, files to search or None for all)
# (commit sha, names, files or None for the whole tree, growing: the files are those touched
# since the commit up to HEAD, else the key fixes them)
SearchAsk = tuple[str, set[str], list[str] | None, bool]
Hits = dict[str, set[str]]  # name -> files holding it


@dataclass(frozen=True, slots=True)
class Grep:
    """One `git grep` to run: `words` at commit `sha`, in `files` (None: the whole tree)."""

    sha: str
    words: frozenset[str]
    files: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class GrepPlan:
    """The greps to run, and which of their hits answer each ask: per ask key, (grep number,
    the files of that grep that answer it, None for all, the ask's names)."""

    greps: tuple[Grep, ...]
    parts: Mapping[str, tuple[tuple[int, frozenset[str] | None, frozenset[str]], ...]]

    def answers(self, hits: Sequence[Hits]) -> dict[str, Hits]:
        """Per ask key, name -> files, from each grep's hits (in `greps` order)."""
        out: dict[str, Hits] = {}
        for key, parts in self.parts.items():
            found: Hits = {}
            for number, files, names in parts:
                for name, where in hits[number].items():
                    if name in names:
                        held = where if files is None else where & files
                        if held:
                            found.setdefault(name, set()).update(held)
            out[key] = found
        return out


def plan(index: HistoryIndex, asks: Mapping[str, Ask]) -> GrepPlan:
    """The greps that answer `asks` (key -> ask), each file version searched once: a file of an
    ask at commit C is searched at the newest commit asked about that has the same version of
    it (no commit of the index touched it in between). Asks for the whole tree, or at a commit
    the index does not hold, are searched as asked."""
    greps: list[Grep] = []
    parts: dict[str, list[tuple[int, frozenset[str] | None, frozenset[str]]]] = {key: [] for key in asks}
    scoped: dict[str, tuple[int, str, set[str], list[str]]] = {}
    for key, (sha, names, files) in asks.items():
        commit = index.commit(sha) if files is not None else None
        if commit is None or files is None:
            parts[key].append((len(greps), None, frozenset(names)))
            greps.append(Grep(sha, frozenset(names), tuple(files) if files is not None else None))
        else:
            scoped[key] = (commit.seq, sha, names, files)
    seqs = sorted({seq for seq, _, _, _ in scoped.values()})
    sha_at = {seq: sha for seq, sha, _, _ in scoped.values()}
    touches = _touches(index, {p for _, _, _, files in scoped.values() for p in files}, seqs[0] if seqs else 0)
    # (commit searched at) -> file -> the asks it answers there
    at: dict[int, dict[str, list[str]]] = {}
    for key, (seq, _sha, _names, files) in scoped.items():
        for path in files:
            after = touches.get(path, ())
            nxt = after[bisect_right(after, seq)] if after and after[-1] > seq else None
            same = seqs[bisect_right(seqs, nxt - 1) - 1] if nxt is not None else seqs[-1]
            at.setdefault(same, {}).setdefault(path, []).append(key)
    for seq, holders in sorted(at.items()):
        number = len(greps)
        words = frozenset(n for keys in {tuple(k) for k in holders.values()} for k in keys for n in scoped[k][2])
        greps.append(Grep(sha_at[seq], words, tuple(sorted(holders))))
        answering: dict[str, set[str]] = {}
        for path, keys in holders.items():
            for key in keys:
                answering.setdefault(key, set()).add(path)
        for key, held in answering.items():
            parts[key].append((number, frozenset(held), frozenset(scoped[key][2])))
    return GrepPlan(tuple(greps), {key: tuple(p) for key, p in parts.items()})


def _touches(index: HistoryIndex, paths: set[str], since: int) -> dict[str, list[int]]:
    """path -> the commits after `since` that touched it (as itself or a rename's old name), in order."""
    out: dict[str, list[int]] = {}
    for path in paths:
        rows = index.db.execute("SELECT seq FROM touches WHERE path = ? AND seq > ? UNION "
                                "SELECT seq FROM touches WHERE old = ? AND seq > ?", (path, since, path, since))
        found = sorted(seq for (seq,) in rows)
        if found:
            out[path] = found
    return out


class Search:
    """`git grep`s for asks `key -> SearchAsk`, started at once in `pool` (each a process), each
    file version searched once (`plan`). Answers kept under `key` (`HistoryIndex.greps`) are not
    searched again; a growing one kept at an older HEAD is completed with the files touched
    since that the scope lacked (see the module docstring). `exclude`: pathspecs never searched."""

    def __init__(self, root: str | Path, index: HistoryIndex, asks: Mapping[str, SearchAsk],
                 pool: ThreadPoolExecutor, exclude: Sequence[str] = ()) -> None:
        self.index = index
        self.head = index.meta("head") or ""
        self.found: dict[str, Hits] = {}
        self._store: dict[str, tuple[str, set[str]]] = {}  # key -> (HEAD its answers cover, names)
        todo: dict[str, Ask] = {}
        for key, (sha, names, scope, growing) in asks.items():
            at_head = self.head if growing and scope is not None else ""
            self.found[key], redo, extend = self._kept(key, sha, names, scope, growing)
            self._store[key] = (at_head, redo | {n for more in extend.values() for n in more[0]})
            if redo and scope != []:
                todo[key] = (sha, redo, scope)
            for older, (more, files) in extend.items():
                todo[f"{key}@{older}"] = (sha, more, files)
        self._parts = {part: part.split("@", 1)[0] for part in todo}
        self.plan = plan(index, todo)
        # the whole trees and a few files by `git grep` (a process each); the files named, when
        # many, from blobs each read once (`version_words`: three processes a search, and a tree listing a grep)
        greps = self.plan.greps
        few = sum(len(g.files) for g in greps if g.files is not None) < BLOBS_FROM
        named = [(g.sha, set(g.words), list(g.files)) for g in greps if g.files is not None and not few]
        self._reader = version_words(index)
        if named:
            self._reader.start()  # its worker forked before the greps' threads start
        self._whole = {i: pool.submit(git.grep_words, root, [g.sha], g.words, exclude=exclude,
                                      paths=list(g.files) if g.files is not None else None)
                       for i, g in enumerate(greps) if g.files is None or few}
        self._named = pool.submit(self._reader.grep_many, named, exclude)

    def _kept(self, key: str, sha: str, names: set[str], scope: list[str] | None, growing: bool
              ) -> tuple[Hits, set[str], dict[str, tuple[set[str], list[str]]]]:
        """(the kept answers that hold now; the names to search in the whole scope; per older
        HEAD, the names kept there and the files touched since that their scope lacked)."""
        found: Hits = {}
        kept = self.index.greps(key, names)
        redo = set(names) - kept.keys()
        extend: dict[str, tuple[set[str], list[str]]] = {}
        grown: dict[str, list[str] | None] = {}
        inside = set(scope) if scope is not None and growing else None
        for name, (at_head, files) in kept.items():
            if at_head not in ("", self.head):  # kept at an older HEAD: holds for the scope it had then
                if at_head not in grown:
                    grown[at_head] = _grown(self.index, sha, at_head, scope) if growing and scope is not None else None
                more = grown[at_head]
                if more is None:
                    redo.add(name)
                    continue
                if more:
                    extend.setdefault(at_head, (set(), more))[0].add(name)
            elif at_head == "" and inside is not None:  # a whole tree's answer, narrowed to the scope
                files &= inside
            if files:
                found[name] = files
        return found, redo, extend

    def result(self) -> dict[str, Hits]:
        """key -> name -> files; the new answers are kept (saved with the judgements)."""
        named = iter(self._named.result())
        self._reader.close()
        answers = self.plan.answers([self._whole[i].result() if i in self._whole else next(named)
                                     for i in range(len(self.plan.greps))])
        for part, key in self._parts.items():
            for name, files in answers.get(part, {}).items():
                self.found[key].setdefault(name, set()).update(files)
        for key, (at_head, names) in self._store.items():
            if names:
                self.index.remember_greps(key, at_head, names, self.found[key])
        return self.found


def _grown(index: HistoryIndex, sha: str, older: str, scope: Iterable[str]) -> list[str] | None:
    """The files of `scope` (code files touched since commit `sha` up to HEAD) that the scope at
    the `older` HEAD lacked and that commit `sha` holds: touched after `older`, not between `sha`
    and it. None when that cannot be told (a commit the index no longer holds)."""
    start, then = index.commit(sha), index.commit(older)
    if start is None or then is None:
        return None
    since = index.files_after(then.seq)
    return [p for p in scope if p in since and not index.touched_after(p, start.seq - 1, then.seq)
            and index.existed(p, start.seq)]  # a file added later has no version to search there


BLOBS_FROM = 500  # files named in a search's greps from which they are read as blobs (`version_words`)
_READERS: weakref.WeakKeyDictionary[HistoryIndex, WordsProcess] = weakref.WeakKeyDictionary()


def version_words(index: HistoryIndex) -> WordsProcess:
    """The run's `VersionWords` of the index's repository, in a worker process of its own once
    a search reads many blobs (`words_process`): what a search read is kept for the next."""
    found = _READERS.get(index)
    if found is None:
        found = _READERS[index] = WordsProcess(index.root)
    return found


END = 1 << 62  # a sequence number after every commit: `windows` up to HEAD


def windows(index: HistoryIndex, pairs: Iterable[tuple[int, int]], keep: Callable[[str], bool],
            limit: int) -> dict[tuple[int, int], list[str] | None]:
    """(first, last) commit -> the paths `keep` accepts that commits `first` to `last` touched
    (sequence numbers, both included; both names of a rename), sorted; None when more than
    `limit`. One read back from each `last`, stopped past the bound (a window reaching far back
    costs no more than the bound); the index's rows are read once per run (`_Touches`), and
    `keep` asked once per path."""
    firsts: dict[int, list[int]] = {}
    for first, last in pairs:
        firsts.setdefault(last, []).append(first)
    out: dict[tuple[int, int], list[str] | None] = {}
    touches = _touches_down(index)
    kept: dict[str, bool] = {}
    for last, starts in firsts.items():
        todo = sorted(set(starts), reverse=True)
        seen: set[str] = set()
        for seq, path in touches.down(todo[-1], last):
            while todo and seq < todo[0]:  # past a window's first commit: it is complete
                out[todo.pop(0), last] = sorted(seen)
            if path not in seen:
                ok = kept.get(path)
                if ok is None:
                    ok = kept[path] = keep(path)
                if ok:
                    seen.add(path)
                    if len(seen) > limit:
                        break
        for first in todo:
            out[first, last] = sorted(seen) if len(seen) <= limit else None
    return out


class _Touches:
    """The index's (seq, path) rows (both names of a rename), read from sqlite once per run,
    `STEP` commits at a time as windows reach them."""

    STEP = 256

    def __init__(self, index: HistoryIndex, stamp: tuple[str | None, int]) -> None:
        self.index, self.stamp = index, stamp
        self.chunks: dict[int, list[tuple[int, str]]] = {}  # k -> rows of commits k*STEP.. (k+1)*STEP-1, newest first

    def down(self, first: int, last: int) -> Iterator[tuple[int, str]]:
        """(seq, path) of commits `last` down to `first`, newest first."""
        first, last = max(first, 0), min(last, self.stamp[1])
        for k in range(last // self.STEP, first // self.STEP - 1, -1):
            rows = self.chunks.get(k)
            if rows is None:
                rows = self.chunks[k] = self._read(k)
            for row in rows:
                if row[0] < first:
                    return
                if row[0] <= last:
                    yield row

    def _read(self, k: int) -> list[tuple[int, str]]:
        rows: list[tuple[int, str]] = []
        for seq, path, old in self.index.db.execute(
                "SELECT seq, path, old FROM touches WHERE seq >= ? AND seq < ? ORDER BY seq DESC",
                (k * self.STEP, (k + 1) * self.STEP)):
            rows.append((seq, path))
            if old:
                rows.append((seq, old))
        return rows


_TOUCHES: weakref.WeakKeyDictionary[HistoryIndex, _Touches] = weakref.WeakKeyDictionary()


def _touches_down(index: HistoryIndex) -> _Touches:
    """The index's `_Touches`, read again once the index has grown or moved (its HEAD and newest commit)."""
    newest = index.db.execute("SELECT COALESCE(MAX(seq), 0) FROM touches").fetchone()[0]
    stamp = (index.meta("head"), int(newest))
    found = _TOUCHES.get(index)
    if found is None or found.stamp != stamp:
        found = _TOUCHES[index] = _Touches(index, stamp)
    return found
