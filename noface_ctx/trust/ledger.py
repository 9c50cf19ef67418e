"""The provenance ledger: what each prompt, answer and MCP tool served, each issue's outcomes,
the restore marks `noface-ctx trust` leaves, and each issue's latest plan.

One sqlite file per repository, `<cache_dir>/ledger.sqlite` (the user cache unless `[context]
cache_dir` says otherwise), schema-versioned with `PRAGMA user_version`. Unlike the other caches
it is a record, not derived data: a file of a newer schema is refused with an error rather than
rebuilt, and the size is bounded by dropping the oldest issues' served rows (outcomes, restore
marks and plans are small and kept). Times are kept twice: the wall clock for people, and the
repository's time (the committer date of HEAD) for the rules that weigh docs, so a quarantine
window is measured in commits, never by a calendar.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from noface_ctx.errors import UsageError

if TYPE_CHECKING:
    from noface_ctx.config import Config

__all__ = ["FILE_NAME", "MAX_SERVED_ROWS", "SCHEMA", "Ledger", "OutcomeRow", "ServedRow", "blob_sha", "repo_time"]

FILE_NAME = "ledger.sqlite"
SCHEMA = 1
MAX_SERVED_ROWS = 200_000  # about 40 MB; past it the oldest issues' served rows go first
_PRUNE_EVERY = 500  # rows written between size checks

_TABLES = """
CREATE TABLE IF NOT EXISTS served (
    id INTEGER PRIMARY KEY, issue TEXT NOT NULL, turn INTEGER NOT NULL, source TEXT NOT NULL,
    via TEXT NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL, ref TEXT NOT NULL, blob TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, tokens INTEGER NOT NULL, score REAL,
    form TEXT NOT NULL, reason TEXT NOT NULL, repo_time INTEGER NOT NULL, wall_time TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS served_issue ON served(issue, turn);
CREATE INDEX IF NOT EXISTS served_path ON served(path, blob);
CREATE TABLE IF NOT EXISTS outcomes (
    id INTEGER PRIMARY KEY, issue TEXT NOT NULL, outcome TEXT NOT NULL, failed INTEGER NOT NULL,
    note TEXT NOT NULL, source TEXT NOT NULL, repo_time INTEGER NOT NULL, wall_time TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS outcomes_issue ON outcomes(issue);
CREATE TABLE IF NOT EXISTS restored (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, blob TEXT NOT NULL, after_outcome INTEGER NOT NULL,
    repo_time INTEGER NOT NULL, wall_time TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS plans (
    issue TEXT PRIMARY KEY, text TEXT NOT NULL, sha256 TEXT NOT NULL, turn INTEGER NOT NULL,
    wall_time TEXT NOT NULL);
"""


@dataclass(frozen=True, slots=True)
class ServedRow:
    """One item an answer served: a doc or a code range, with why it was chosen."""

    kind: str  # "doc" | "code"
    path: str
    ref: str = ""  # doc slug or qualified symbol
    blob: str = ""  # git blob sha of the file's content when served
    start_line: int = 0
    end_line: int = 0
    tokens: int = 0
    score: float | None = None
    form: str = ""  # "full", "sections", "partial", ...
    reason: str = ""
    via: str = "prompt"  # "prompt" | "answer" | the MCP tool's name
    issue: str = ""
    turn: int = 0
    source: str = ""  # "run" | "mcp" | "preview"
    repo_time: int = 0
    wall_time: str = ""

    @property
    def where(self) -> str:
        """`path:start-end` (or the bare path)."""
        return f"{self.path}:{self.start_line}-{self.end_line}" if self.start_line else self.path


@dataclass(frozen=True, slots=True)
class OutcomeRow:
    id: int
    issue: str
    outcome: str
    failed: bool
    note: str
    source: str
    repo_time: int
    wall_time: str


def blob_sha(data: bytes) -> str:
    """The git blob id of `data` (what `git hash-object` prints): an edited file has a new one."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def repo_time(root: str | Path) -> int:
    """The repository's clock: HEAD's committer time (0 without git or commits)."""
    from noface_ctx._git import run

    out = run(root, "log", "-1", "--format=%ct", "HEAD", check=False).strip()
    return int(out) if out.isdigit() else 0


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


_LOCK = threading.Lock()  # one writer per process; sqlite's own lock between processes


class Ledger:
    """The ledger of one repository. Open with `Ledger.of(config)`; every call is one transaction."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._written = 0

    @classmethod
    def of(cls, config: Config) -> Ledger:
        from noface_ctx.config import cache_dir

        return cls(cache_dir(config) / FILE_NAME)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        from noface_ctx import _write_gate as write_gate
        from noface_ctx._sqlitefile import tune

        try:  # through the writer gate: no link in the repository or at the file followed
            write_gate.make_dirs(self.path.parent)
            db = write_gate.connect_sqlite(self.path, timeout=30)
        except (OSError, sqlite3.Error) as exc:
            raise UsageError(f"cannot open the ledger: {exc}", where=str(self.path)) from None
        try:
            with _LOCK:
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA:
                    raise UsageError(f"ledger schema {version} is newer than this noface-ctx reads ({SCHEMA}); "
                                     "upgrade noface-ctx", where=str(self.path))
                if version < SCHEMA:
                    tune(db)
                    db.executescript(_TABLES)
                    db.execute(f"PRAGMA user_version = {SCHEMA}")
                with db:
                    yield db
        except sqlite3.DatabaseError as exc:
            raise UsageError(f"the ledger cannot be read ({exc}); move it aside to start a new one",
                             where=str(self.path)) from None
        finally:
            db.close()

    # ------------------------------------------------------------------ writing

    def record_served(self, issue: str, turn: int, source: str, rows: Sequence[ServedRow], *,
                      root: str | Path) -> None:
        """Append what one prompt, answer or tool call served to `issue` in `turn`."""
        if not rows:
            return
        when, clock = _now(), repo_time(root)
        with self._db() as db:
            db.executemany(
                "INSERT INTO served (issue, turn, source, via, kind, path, ref, blob, start_line, end_line, tokens,"
                " score, form, reason, repo_time, wall_time) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [(issue, turn, source, r.via, r.kind, r.path, r.ref, r.blob, r.start_line, r.end_line, r.tokens,
                  r.score, r.form, r.reason[:500], clock, when) for r in rows])
            self._written += len(rows)
            if self._written >= _PRUNE_EVERY:
                self._written = 0
                _prune(db)

    def record_outcome(self, issue: str, outcome: str, *, failed: bool, note: str = "", source: str,
                       root: str | Path) -> None:
        with self._db() as db:
            db.execute("INSERT INTO outcomes (issue, outcome, failed, note, source, repo_time, wall_time)"
                       " VALUES (?,?,?,?,?,?,?)", (issue, outcome, int(failed), note[:2000], source,
                                                   repo_time(root), _now()))

    def restore(self, path: str, blob: str, *, root: str | Path) -> None:
        """`noface-ctx trust PATH`: failures recorded before this mark no longer count for `path`."""
        with self._db() as db:
            last = db.execute("SELECT COALESCE(MAX(id), 0) FROM outcomes").fetchone()[0]
            db.execute("INSERT INTO restored (path, blob, after_outcome, repo_time, wall_time) VALUES (?,?,?,?,?)",
                       (path, blob, last, repo_time(root), _now()))

    def save_plan(self, issue: str, text: str, turn: int) -> None:
        """Store `issue`'s latest plan, then read it back: a plan that does not round-trip is an error."""
        sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO plans (issue, text, sha256, turn, wall_time) VALUES (?,?,?,?,?)",
                       (issue, text, sha, turn, _now()))
        back = self.plan(issue)
        if back != text:
            raise UsageError(f"the plan of issue {issue} did not round-trip through the ledger "
                             f"(wrote {len(text)} characters, read back {len(back or '')})", where=str(self.path))

    # ------------------------------------------------------------------ reading

    def plan(self, issue: str) -> str | None:
        with self._db() as db:
            row = db.execute("SELECT text FROM plans WHERE issue = ?", (issue,)).fetchone()
        return None if row is None else str(row[0])

    def served(self, issue: str) -> list[ServedRow]:
        """Everything served to `issue`, turn by turn, in the order it was recorded."""
        with self._db() as db:
            rows = db.execute("SELECT kind, path, ref, blob, start_line, end_line, tokens, score, form, reason, via,"
                              " issue, turn, source, repo_time, wall_time FROM served WHERE issue = ?"
                              " ORDER BY turn, id", (issue,)).fetchall()
        return [ServedRow(*r) for r in rows]

    def last_turn(self, issue: str) -> int:
        with self._db() as db:
            row = db.execute("SELECT MAX(turn) FROM served WHERE issue = ?", (issue,)).fetchone()
        return int(row[0] or 0)

    def outcomes(self, issue: str | None = None) -> list[OutcomeRow]:
        query = "SELECT id, issue, outcome, failed, note, source, repo_time, wall_time FROM outcomes"
        with self._db() as db:
            rows = (db.execute(query + " WHERE issue = ? ORDER BY id", (issue,)) if issue is not None
                    else db.execute(query + " ORDER BY id")).fetchall()
        return [OutcomeRow(r[0], r[1], r[2], bool(r[3]), r[4], r[5], r[6], r[7]) for r in rows]

    def full_serves(self, paths: Iterable[str]) -> dict[str, list[tuple[str, str, int]]]:
        """path -> [(issue, blob, ledger row id)] of every time a doc was served in full."""
        wanted = sorted(set(paths))
        out: dict[str, list[tuple[str, str, int]]] = {}
        if not wanted or not self.path.exists():
            return out
        with self._db() as db:
            for i in range(0, len(wanted), 500):
                part = wanted[i:i + 500]
                marks = ",".join("?" * len(part))
                for path, issue, blob, rid in db.execute(
                        f"SELECT path, issue, blob, id FROM served WHERE kind = 'doc' AND form = 'full'"
                        f" AND path IN ({marks}) ORDER BY id", part):
                    out.setdefault(path, []).append((issue, blob, rid))
        return out

    def restores(self) -> dict[str, int]:
        """path -> the last outcome id recorded before its latest restore mark: older outcomes no
        longer count against it."""
        if not self.path.exists():
            return {}
        with self._db() as db:
            rows = db.execute("SELECT path, after_outcome FROM restored ORDER BY id").fetchall()
        return {str(p): int(i) for p, i in rows}

    def issues(self) -> list[str]:
        with self._db() as db:
            rows = db.execute("SELECT issue FROM served UNION SELECT issue FROM outcomes").fetchall()
        return sorted(str(r[0]) for r in rows)


def _prune(db: sqlite3.Connection) -> None:
    """Keep at most `MAX_SERVED_ROWS` served rows, dropping whole turns of the oldest issues first."""
    total = db.execute("SELECT COUNT(*) FROM served").fetchone()[0]
    if total <= MAX_SERVED_ROWS:
        return
    cut = db.execute("SELECT id FROM served ORDER BY id LIMIT 1 OFFSET ?",
                     (total - MAX_SERVED_ROWS,)).fetchone()[0]
    db.execute("DELETE FROM served WHERE id < ?", (cut,))
