"""A default a doc states by a value its code had before (`stated_before`): stale whatever the
doc's last commit. `CosetTable.max_stack_size` was 500 when sympy's fp_groups.rst said so
(2016), 100 since 62790262b0 (2017); the page was edited in 2018-2023 and kept "(default value
= `500`)", so no change since its last commit tells. The newest commit (first parent, up to the
doc's commit) whose diff of the file coding the name adds or removes a line matching "name.*value"
is the one that took the stated value away (a merge: the merged branch's commit that did,
`merged_change`); the versions on both sides of it confirm: the doc's value before, another
after, another now. The file coding the name is one
`changes.changed_defaults`' grep found (changed since the oldest page stating a default).

The diffs are read once a file (`_FileDiffs`): the commits the history index says touched it,
in one `git log --no-walk -p` (each commit against its first parent, as `git log --first-parent
--diff-merges=first-parent -G` reads a merge), searched here with the regex `-G` would run.
An index with gaps, or a path git would read as a glob, is asked with that `-G` command instead.
The newest matching commit is tried, then the newest `TRIES` whose diff declares the value ("name = value",
a parameter or an assignment): a later commit may touch a line matching "name.*value" without changing the
default (astropy's `boundary=None` messages and comments, 2017-2019, above the 2013 commit that made
`convolve`'s boundary 'fill'), while a registration call moved into a platform branch (sphinx's
`'image_converter', 'convert'`) is not read as the value going. When several files hold a plain word
(`boundary`), the one defining what the doc's sentence names (`def convolve`) is read, if exactly one does.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Callable, Sequence, Set
from itertools import islice

from noface_ctx import _git as git
from noface_ctx.datatypes import ChangedRef
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.merges import merged_change
from noface_ctx.freshness.option_defaults import same_value

OLD_DEFAULT = "default, stated as its value before"  # a ChangedRef's `what` (`judgement.changed_reason`)
_PLAIN_VALUE = re.compile(r"[\w.+-]+")  # a number, a word, a constant: what a diff line can be searched for
_GLOB = re.compile(r"[*?\[\\]")  # a pathspec git would match as a pattern, not as this one path
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_COMMIT_MARK = "\x01"
SHAS_PER_CALL = 2000  # commits named on one `git log --no-walk` command line
TRIES = 8  # matching commits tried, newest first


def stated_before(value: str, line: int, name: str, holders: Set[str], index: HistoryIndex, since: Commit,
                  now_text: Callable[[str], str | None], default_of: Callable[[str, str], str | None],
                  names: Sequence[str] = ()) -> ChangedRef | None:
    """The finding for a default the doc states (`value` of `name`, on `line`) that differs from the code's
    now and was the code's before `since` (the doc's last commit), in the one file coding `name`
    (`holders`; of several, the one defining another of `names`: a plain word's); `default_of(text, path)` reads a version's
    default. None when history does not say so."""
    if len(holders) > 1 and (others := [n for n in names if n != name]):
        defining = re.compile(rf"(?m)^[ \t]*(?:async\s+)?(?:def|class)\s+(?:{'|'.join(map(re.escape, others))})\b")
        texts = {p: now_text(p) or "" for p in holders}  # (a text naming none of them defines none: not searched)
        holders = {p for p, text in texts.items() if any(n in text for n in others) and defining.search(text)}
    if len(holders) != 1 or not _PLAIN_VALUE.fullmatch(value):
        return None
    path = next(iter(holders))
    now = default_of(now_text(path) or "", path)
    if now is None or same_value(value, now):
        return None
    pattern = f"{re.escape(name)}.*{re.escape(value)}".replace(r"\-", "-")
    diffs = _diffs(index)
    tried = diffs.matches(path, pattern, since, 1)
    if diffs.reads(path):  # then older commits whose diff declares it: `boundary=None`, not `'image_converter', 'convert'`
        declared = rf"{re.escape(name)}\s*(?::[^=\n]*)?=\s*[\"']?{re.escape(value)}[\"']?(?![\w.])"
        tried += [c for c in diffs.matches(path, declared, since, TRIES) if c not in tried]
    for commit in tried:
        before = index.earlier(path, commit.seq, limit=1)
        after_text = index.versions.text_at(commit.sha, path)
        before_text = index.versions.text_at(before[0][0].sha, before[0][1]) if before else None
        then = default_of(before_text, path) if before_text is not None else None
        after = default_of(after_text, path) if after_text is not None else None
        if then is not None and after is not None and same_value(value, then) and not same_value(value, after):
            def gone(sha: str) -> bool:  # on a merged branch: the value no longer the doc's at that commit
                text = index.versions.text_at(sha, path)
                coded = default_of(text, path) if text is not None else None
                return coded is not None and not same_value(value, coded)
            return ChangedRef(name, line, path, merged_change(index, commit, path, gone).label(), OLD_DEFAULT)
    return None


def value_changes(index: HistoryIndex, path: str, pattern: str, until: Commit) -> list[Commit]:
    """The newest `TRIES` commits up to `until` whose diff of `path` has a line matching `pattern` (a POSIX-safe regex)."""
    return _diffs(index).matches(path, pattern, until, TRIES)


class _FileDiffs:
    """The lines each commit of the index's chain added or removed in a file (against its first
    parent), read once a file for the run."""

    def __init__(self, index: HistoryIndex) -> None:
        self.index = index
        self.head = index.meta("head")  # the chain read: an index moved on is read again
        self._lines: dict[str, list[tuple[Commit, str]]] = {}  # path → (commit, its changed lines), newest first
        gaps = json.loads(index.meta("gaps") or "[]")
        self.whole = not any(not g.startswith("unread ") for g in gaps)  # every commit's touches indexed

    def newest_match(self, path: str, pattern: str, since: Commit) -> Commit | None:
        """The newest commit up to `since` whose diff of `path` has a line matching `pattern`
        (what `git log --first-parent --diff-merges=first-parent -G pattern since -- path` lists first)."""
        return next(iter(self.matches(path, pattern, since, 1)), None)

    def reads(self, path: str) -> bool:
        """Whether `path`'s diffs are read here (else `git log -G` is asked: a POSIX pattern)."""
        return self.whole and not _GLOB.search(path)

    def matches(self, path: str, pattern: str, since: Commit, most: int = TRIES) -> list[Commit]:
        """The newest `most` such commits, newest first."""
        if not self.reads(path):
            return self._asked(path, pattern, since, most)
        if path not in self._lines:
            self._lines[path] = self._read(path)
        found = re.compile(pattern)
        return list(islice((c for c, lines in self._lines[path] if c.seq <= since.seq and found.search(lines)), most))

    def _read(self, path: str) -> list[tuple[Commit, str]]:
        commits = [Commit(*row) for row in self.index.db.execute(
            "SELECT c.seq, c.sha, c.time, c.subject FROM commits c WHERE c.seq IN (SELECT seq FROM touches WHERE "
            "path = ? UNION SELECT seq FROM touches WHERE old = ?) ORDER BY c.seq DESC", (path, path))]
        changed: dict[str, list[str]] = {}
        for start in range(0, len(commits), SHAS_PER_CALL):
            shas = [c.sha for c in commits[start:start + SHAS_PER_CALL]]
            try:
                out = git.run(self.index.root, "log", "--no-walk=unsorted", "--first-parent", "--diff-merges=first-parent",
                              "-p", "-U0", "--inter-hunk-context=0", "--no-color", "--diff-algorithm=myers",
                              "--no-indent-heuristic", f"--format={_COMMIT_MARK}%H", *shas, "--", path)
            except git.GitError:
                continue
            _changed_lines(out, changed)
        return [(c, "\n".join(changed.get(c.sha, ()))) for c in commits]

    def _asked(self, path: str, pattern: str, since: Commit, most: int) -> list[Commit]:
        try:
            out = git.run(self.index.root, "log", "--first-parent", "--diff-merges=first-parent", "--format=%H",
                          f"--max-count={most}", "-G", pattern, since.sha, "--", path)
        except git.GitError:
            return []
        return [c for sha in out.split() if (c := self.index.commit(sha)) is not None]


def _changed_lines(out: str, changed: dict[str, list[str]]) -> None:
    """Add `git log -p -U0`'s removed and added lines to `changed`, by commit (hunks read by their counts:
    a removed line starting "-- " is not taken for a file header)."""
    sha, old, new = "", 0, 0
    for line in out.split("\n"):
        if old > 0 or new > 0:
            if line[:1] == "-":
                old -= 1
            elif line[:1] == "+":
                new -= 1
            elif line[:1] == " ":
                old, new = old - 1, new - 1
                continue
            else:
                continue  # "\ No newline at end of file"
            changed.setdefault(sha, []).append(line[1:])
        elif line.startswith(_COMMIT_MARK):
            sha = line[1:].strip()
        elif hunk := _HUNK.match(line):
            old, new = int(hunk.group(1) or 1), int(hunk.group(2) or 1)


_DIFFS: weakref.WeakKeyDictionary[HistoryIndex, _FileDiffs] = weakref.WeakKeyDictionary()


def _diffs(index: HistoryIndex) -> _FileDiffs:
    """This index's `_FileDiffs` (one a run; again when `HistoryIndex.update` added commits)."""
    if index not in _DIFFS or _DIFFS[index].head != index.meta("head"):
        _DIFFS[index] = _FileDiffs(index)
    return _DIFFS[index]
