"""The sqlite caches (`history.sqlite`, `words.sqlite`): derived data kept in WAL mode, written
without waiting for the disk at each commit (a crash can lose the last update, never the file),
and never read when git tracks them (`cachefile.is_tracked`)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

__all__ = ["WAL_LIMIT", "settle_wal", "tune"]

WAL_LIMIT = 4 * 1024 * 1024  # bytes of a write-ahead log left for the next process


def tune(db: sqlite3.Connection) -> None:
    """WAL (a no-op once the file is in WAL mode) and no disk wait per commit."""
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")


def settle_wal(db: sqlite3.Connection, path: Path | None) -> None:
    """Empty the write-ahead log of the cache at `path` once it holds more than `WAL_LIMIT`
    (a first build writes the whole file there): a process that ends without closing its
    connections (`_process.leave`) leaves the log, and the next one would read it whole."""
    if path is None:
        return
    try:
        if os.path.getsize(f"{path}-wal") > WAL_LIMIT:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except (OSError, sqlite3.Error):  # no log, a busy or closed database: the next write tries again
        pass
