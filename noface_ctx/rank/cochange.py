"""Files changed in the same commits as a given file, from the repository's history.

The history is the index freshness keeps of one streamed `git log` pass (`history.sqlite`, see
`noface_ctx.freshness.history`): this module only reads it. A file's most recent commits count,
and commits touching many files (a reformatting, a rename sweep) say nothing about which files
go together. Without the index (no git, a tree without history, an index not built yet) the
answer is empty and the signal is skipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from noface_ctx.freshness.history import SCHEMA

RECENT_COMMITS = 200  # a file's most recent commits considered
BIG_COMMIT = 40  # commits touching more files than this are left out

_QUERY = f"""
WITH mine AS (SELECT seq FROM touches WHERE path = ? ORDER BY seq DESC LIMIT {RECENT_COMMITS}),
     small AS (SELECT t.seq FROM touches t JOIN mine m ON t.seq = m.seq GROUP BY t.seq HAVING COUNT(*) <= {BIG_COMMIT})
SELECT t.path, COUNT(*) FROM touches t JOIN small s ON t.seq = s.seq WHERE t.path != ? GROUP BY t.path
"""


def co_changed(db_path: Path, paths: Sequence[str]) -> dict[str, int]:
    """For each file changed together with one of `paths`: in how many commits (summed over
    `paths`). Empty without a readable history index of this schema."""
    if not db_path.is_file():
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
            for other, n in db.execute(_QUERY, (path, path)):
                out[other] = out.get(other, 0) + int(n)
    except sqlite3.Error:
        return {}
    finally:
        db.close()
    return out
