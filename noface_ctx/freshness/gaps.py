"""What the history index could not read, said rather than taken for the end of history.

`_git.iter_history` goes on past a `git log` pass that stops part-way (a partial clone lacking
a blob that rename detection reads, a missing object) and lists each stop; `keep_gaps` keeps
them with the index (`history.sqlite`'s `meta`), and `history_gaps` words them as the run
warning `check-docs` prints on stderr and returns in `--json` (`warnings`) on every run while
the index holds them.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

_GAPS: dict[str, tuple[str, ...]] = {}  # root -> the stops of its index's passes, as this process knows them


def keep_gaps(cur: sqlite3.Cursor, root: str, problems: list[str], whole: bool) -> None:
    """Keep this pass's stops with the index: beside the earlier ones, or in their place after
    a `whole` pass (the index read again from the first commit)."""
    row = None if whole else cur.execute("SELECT value FROM meta WHERE key = 'gaps'").fetchone()
    gaps = [*(json.loads(row[0]) if row else []), *problems][-20:]
    cur.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('gaps', ?)", (json.dumps(gaps),))
    _GAPS[str(root)] = tuple(gaps)


def history_gaps(root: str, db_path: Path | None) -> tuple[str, ...]:
    """A run warning when the history index is incomplete: `git log` stopped part-way and the
    commits after were read again without rename detection, or not at all."""
    gaps = _GAPS.get(str(root))
    if gaps is None and db_path is not None and db_path.exists():
        try:
            with closing(sqlite3.connect(f"{db_path.as_uri()}?mode=ro", uri=True)) as db:
                row = db.execute("SELECT value FROM meta WHERE key = 'gaps'").fetchone()
            gaps = tuple(json.loads(row[0])) if row else ()
        except (sqlite3.Error, ValueError):
            gaps = ()
    if not gaps:
        return ()
    lost = any(g.startswith("lost: ") for g in gaps)
    more = f" (and {len(gaps) - 1} more)" if len(gaps) > 1 else ""
    return (f"history incomplete: {gaps[0].removeprefix('lost: ')}{more}; "
            + ("the commits after it are not indexed" if lost else "renames there not followed")
            + ": stale-ref blame and changes may be missing",)
