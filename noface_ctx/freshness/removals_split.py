"""`presence.record_removals` for many docs in two processes (`split_removals`): a first run over a
large repository reads hundreds of past file versions' definition tables there, seconds of pure
Python while the other core idles. A forked worker takes every other doc (a doc's removals
depend on its own names and the history only), reading through its own `git cat-file` and
read-only sqlite connections; the answers are merged in the docs' order. Few docs, an index in
memory, or no process to fork (threads running): all are read here."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from noface_ctx import _git as git
from noface_ctx._process import in_forks
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.history import Commit, HistoryIndex
from noface_ctx.freshness.presence import Held, Removals, record_removals
from noface_ctx.freshness.scan import DocScan

FORK_AFTER = 50  # docs with unresolved names: fewer are read here (a pre-commit run)
Plans = Sequence[tuple[DocScan, Commit]]
Job = tuple[int, Plans, Sequence[Held], HistoryIndex, Codebase, set[str], str]
_JOB: list[Job] = []  # what the worker reads, set while it is forked: a fork copies it, nothing is sent


def split_removals(plans: Plans, found_at: Sequence[Held], index: HistoryIndex, code: Codebase,
             dirty: set[str]) -> dict[str, Removals]:
    """`record_removals(plans, found_at, index, code, dirty)`: the same answer, in two processes
    where it pays (see the module docstring)."""
    stored = file_of(index.db)
    if len(plans) < FORK_AFTER or not stored:
        return record_removals(plans, found_at, index, code, dirty)
    _JOB[:] = [(os.getpid(), plans, found_at, index, code, dirty, code.words.stored_in())]
    try:
        forked = in_forks((_odd_docs, (stored,)))
        if forked is None:
            return record_removals(plans, found_at, index, code, dirty)
        even = record_removals(plans[0::2], found_at[0::2], index, code, dirty)
        odd = forked[0]()
    finally:
        _JOB.clear()
    out: dict[str, Removals] = {}
    for i, (s, _since) in enumerate(plans):
        got = (even if i % 2 == 0 else odd).get(s.doc.path)
        if got is not None:
            out[s.doc.path] = got
    return out


def _odd_docs(history_file: str) -> dict[str, Removals]:
    """The odd docs' removals; in the worker, through a `git cat-file` and sqlite connections of
    its own (the parent's are never used, nor closed, there)."""
    parent, plans, found_at, index, code, dirty, words_file = _JOB[0]
    if os.getpid() != parent:
        index.versions.blobs = git.Blobs(index.root)
        index.db = read_only(history_file)
        if words_file:
            code.words.read_through(read_only(words_file))
    return record_removals(plans[1::2], found_at[1::2], index, code, dirty)


def file_of(db: sqlite3.Connection) -> str:
    """The file a connection reads ("" in memory)."""
    row = db.execute("PRAGMA database_list").fetchone()
    return str(row[2]) if row and row[2] else ""


def read_only(path: str) -> sqlite3.Connection:
    return sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True, check_same_thread=False)
