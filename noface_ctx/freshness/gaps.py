"""What the history index could not read, said rather than taken for the end of history.

`_git.iter_history` goes on past a `git log` pass that stops part-way (a partial clone lacking
a blob that rename detection reads, a missing object) and lists each stop; `keep_gaps` keeps
them with the index (`history.sqlite`'s `meta`). `_git.unread` lists the objects a `git grep`
could not read. `history_gaps` words both as the run warnings `check-docs` prints on stderr
and returns in `--json` (`warnings`), on every run while the index holds them.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from noface_ctx import _git, _write_gate

MAX_GAPS = 200  # the stops and unread objects an index keeps
_GAPS: dict[str, tuple[str, ...]] = {}  # root -> the stops of its index's passes, as this process knows them


def keep_gaps(cur: sqlite3.Cursor, root: str, problems: list[str], whole: bool) -> None:
    """Keep this pass's stops with the index: beside the earlier ones, or in their place after
    a `whole` pass (the index read again from the first commit)."""
    row = None if whole else cur.execute("SELECT value FROM meta WHERE key = 'gaps'").fetchone()
    gaps = (*(json.loads(row[0]) if row else []), *problems)[-MAX_GAPS:]
    _store(cur, gaps)
    _GAPS[str(root)] = gaps


def history_gaps(root: str, db_path: Path | None) -> tuple[str, ...]:
    """Run warnings when the history index is incomplete (`git log` stopped part-way and the
    commits after were read without rename detection, or not at all), or `git grep` could not
    read a version of a file (its names were taken as absent); said again on every run, as the
    judgements made then are kept."""
    gaps = _GAPS.get(str(root))
    if gaps is None and db_path is not None and db_path.exists():
        try:
            with closing(sqlite3.connect(f"{db_path.as_uri()}?mode=ro", uri=True)) as db:
                row = db.execute("SELECT value FROM meta WHERE key = 'gaps'").fetchone()
            gaps = tuple(json.loads(row[0])) if row else ()
        except (sqlite3.Error, ValueError):
            gaps = ()
    gaps = gaps or ()
    new = [f"unread {oid}" for oid in sorted(_git.unread(root)) if f"unread {oid}" not in gaps]
    if new:
        gaps = _GAPS[str(root)] = (*gaps, *new)
        _keep_unread(db_path, gaps)
    stops = [g for g in gaps if not g.startswith("unread ")]
    unread = [g.removeprefix("unread ") for g in gaps if g.startswith("unread ")]
    out = []
    if stops:
        lost = any(g.startswith("lost: ") for g in stops)
        more = f" (and {len(stops) - 1} more)" if len(stops) > 1 else ""
        out.append(f"history incomplete: {stops[0].removeprefix('lost: ')}{more}; "
                   + ("the commits after it are not indexed" if lost else "renames there not followed")
                   + ": stale-ref blame and changes may be missing")
    if unread:
        out.append(f"history incomplete: git grep could not read {len(unread)} object(s) (a partial clone's "
                   f"unfetched blobs? {unread[0][:10]}): names in them were taken as absent, stale-refs may be missing")
    return tuple(out)


def _keep_unread(db_path: Path | None, gaps: tuple[str, ...]) -> None:
    """Keep the gaps with the index, for the runs that reuse what this one judged."""
    if db_path is None or not db_path.exists():
        return
    try:
        with closing(_write_gate.connect_sqlite(db_path, timeout=5)) as db:
            _store(db.cursor(), gaps)
            db.commit()
    except (sqlite3.Error, OSError):
        pass  # a busy or refused cache: this run said it


def _store(cur: sqlite3.Cursor, gaps: tuple[str, ...]) -> None:
    """Write the index's gaps (the last `MAX_GAPS`) in its `meta` table."""
    cur.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('gaps', ?)", (json.dumps(list(gaps[-MAX_GAPS:])),))
