"""Files changed in the same commits as a given file, from the repository's history.

The history is the index freshness keeps of one streamed `git log` pass (`history.sqlite`, see
`noface_ctx.freshness.history`): this module only reads it. A file's most recent commits count,
and commits touching many files (a reformatting, a rename sweep) say nothing about which files
go together. Freshness builds the index when it judges docs; where it has not (a repository
without docs, HEAD moved since), `ensure_history` brings it up to HEAD first, so the first build
and the next see the same history. Without git (a tree from `git archive`) the answer is empty and
the signal is skipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from noface_ctx import _cachefile as cachefile
from noface_ctx import _git as git
from noface_ctx.freshness.history import SCHEMA, build_index

RECENT_COMMITS = 200  # a file's most recent commits considered
BIG_COMMIT = 40  # commits touching more files than this are left out

_QUERY = f"""
WITH mine AS (SELECT seq FROM touches WHERE path = ? ORDER BY seq DESC LIMIT {RECENT_COMMITS}),
     small AS (SELECT t.seq FROM touches t JOIN mine m ON t.seq = m.seq GROUP BY t.seq HAVING COUNT(*) <= {BIG_COMMIT})
SELECT t.path, COUNT(*) FROM touches t JOIN small s ON t.seq = s.seq WHERE t.path != ? GROUP BY t.path
"""


def ensure_history(root: str | Path, db_path: Path) -> None:
    """Bring the history index in `db_path` up to the repository's HEAD (incremental: only the
    commits not indexed yet are read). Nothing without git or without commits."""
    try:
        head, _shallow = git.head(root)
    except git.GitError:
        return
    if head is None or cachefile.is_tracked(db_path):  # a committed cache is never read nor written
        return
    if db_path.is_file():
        try:
            db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
            try:
                row = db.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()
            finally:
                db.close()
            if row is not None and row[0] == head:
                return
        except sqlite3.Error:
            pass
    try:
        build_index(root, db_path, head)
    except (git.GitError, sqlite3.Error):
        return  # the signal is skipped, as without history


def co_changed(db_path: Path, paths: Sequence[str]) -> dict[str, int]:
    """For each file changed together with one of `paths`: in how many commits (summed over
    `paths`). Empty without a readable history index of this schema."""
    if not db_path.is_file() or cachefile.is_tracked(db_path):
        return {}
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return {}
    out: dict[str, int] = {}
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
            return {}
        for path in dict.fromkeys(paths):
            stored = path if path.isascii() else path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            for other, n in db.execute(_QUERY, (stored, stored)):  # as the index stores an undecodable name
                out[other] = out.get(other, 0) + int(n)
    except sqlite3.Error:
        return {}
    finally:
        db.close()
    return out
