"""A default a doc states by a value its code had before (`stated_before`): stale whatever the
doc's last commit. `CosetTable.max_stack_size` was 500 when sympy's fp_groups.rst said so
(2016), 100 since 62790262b0 (2017); the page was edited in 2018-2023 and kept "(default value
= `500`)", so no change since its last commit tells. One `git log -G` on the file coding it (first
parent, before the doc's commit) finds the commit whose diff took the stated value away; the
versions on both sides of it confirm: the doc's value before, another after, another now. The
file coding the name is one `changes.changed_defaults`' grep found (changed since the oldest page
stating a default).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Set

from noface_ctx import _git as git
from noface_ctx.datatypes import ChangedRef
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.option_defaults import same_value

OLD_DEFAULT = "default, stated as its value before"  # a ChangedRef's `what` (`judgement.changed_reason`)
_PLAIN_VALUE = re.compile(r"[\w.+-]+")  # a number, a word, a constant: what a diff line can be searched for
MAX_TRIED = 3  # matching commits whose versions are read, newest first


def stated_before(value: str, line: int, name: str, holders: Set[str], index: HistoryIndex, since: Commit,
                  now_text: Callable[[str], str | None], default_of: Callable[[str, str], str | None]) -> ChangedRef | None:
    """The finding for a default the doc states (`value` of `name`, on `line`) that differs from the code's
    now and was the code's before `since` (the doc's last commit), in the one file coding `name`
    (`holders`); `default_of(text, path)` reads a version's default. None when history does not say so."""
    if len(holders) != 1 or not _PLAIN_VALUE.fullmatch(value):
        return None
    path = next(iter(holders))
    now = default_of(now_text(path) or "", path)
    if now is None or same_value(value, now):
        return None
    pattern = f"{re.escape(name)}.*{re.escape(value)}".replace(r"\-", "-")
    try:
        out = git.run(index.root, "log", "--first-parent", "--diff-merges=first-parent", "--format=%H",
                      "-G", pattern, since.sha, "--", path)
    except git.GitError:
        return None
    for sha in out.split()[:MAX_TRIED]:
        commit = index.commit(sha)
        before = index.earlier(path, commit.seq, limit=1) if commit is not None else []
        after_text = index.versions.text_at(sha, path)
        before_text = index.versions.text_at(before[0][0].sha, before[0][1]) if before else None
        if commit is None or after_text is None or before_text is None:
            continue
        then, after = default_of(before_text, path), default_of(after_text, path)
        if then is not None and after is not None and same_value(value, then) and not same_value(value, after):
            return ChangedRef(name, line, path, commit.label(), OLD_DEFAULT)
    return None
