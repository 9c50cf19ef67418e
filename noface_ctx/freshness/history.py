"""Git history behind freshness: one persistent, incremental index of `git log`, and what freshness asks of it (see
`noface_ctx.freshness.assess`).

`HistoryIndex` keeps `<cache_dir>/history.sqlite`: every commit of HEAD's first-parent chain (sequence number, sha,
time, subject) and every file it touched (status, a rename's old path; a merge against its first parent), from one
`git log --first-parent -m --name-status -M` pass (where it stopped part-way: `gaps`). When HEAD moves only the new
commits are appended; when it leaves the indexed line only the commits after the fork point are dropped first. The
same database keeps each doc's judgement (`judged`), and `git grep` answers (`grep_plan.Search`).

- `symbol_change`: did the definition of a symbol a doc names change since the doc's last commit? Only when the
  defining file was touched since (from the index) are two versions read (`git cat-file --batch`) and the symbol's
  definition compared (`noface_ctx.freshness.definitions`); signatures only for a symbol the doc merely uses in an
  example. The commit named made the definition what it is now (a binary search over the file's commits).
- `path_history`: a file's commits since one, following renames (`presence` finds the commit that removed a name).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from noface_ctx import _cachefile, _git, _sqlitefile, _write_gate
from noface_ctx.files.secrets import redact_secrets
from noface_ctx.freshness.definitions import ANSWERS_VERSION, body, definition, signature
from noface_ctx.freshness.gaps import keep_gaps
from noface_ctx.freshness.versions import FileVersions

SCHEMA = ANSWERS_VERSION  # what `defs` keeps is `definitions`' answers: its version is theirs (digest and number)
_INDEXES = (("touches_path", "path, seq"), ("touches_old_seq", "old, seq"), ("touches_seq_paths", "seq, path, old"))
# the touches of a path, as itself or as a rename's old name: two indexed lookups (an `OR` scans the table)
_BY_PATH_OR_OLD = ("SELECT seq, status, path, old FROM touches WHERE path = ? AND {cond} UNION "
                   "SELECT seq, status, path, old FROM touches WHERE old = ? AND {cond}")


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit of HEAD's first-parent chain (or of a branch merged in, at its merge's place)."""

    seq: int  # position on HEAD's first-parent chain, oldest first
    sha: str
    time: int
    subject: str
    merged: int = 0  # a merged branch's commit (`merges.merged_change`): when its merge came onto the chain

    def label(self) -> str:
        """`sha (day, "subject"[, merged DAY: a later merge's])`; the subject's credentials masked."""
        day, merged = (datetime.fromtimestamp(t, timezone.utc).date().isoformat() for t in (self.time, max(self.merged, self.time)))
        subject = redact_secrets(self.subject)[0]
        subject = subject if len(subject) <= 60 else subject[:57] + "..."
        return f"{self.sha[:10]} ({day}, \"{subject}\"{f', merged {merged}' if merged > day else ''})"


class HistoryIndex:
    """`git log` of HEAD, stored by commit in sqlite and extended when HEAD moves."""

    def __init__(self, root: str | Path, db_path: Path | None) -> None:
        self.root = str(root)
        self.db_path = db_path
        self.db = _connect(db_path)
        self.versions = FileVersions(self.root)
        self._defs: dict[tuple[str, str, str], str | None] = {}
        self._new_defs: list[tuple[str, str, str, str | None]] = []
        self._new_greps: list[tuple[str, str, str, str]] = []
        # answers about the indexed commits, for this run (forgotten when `update` adds commits)
        self._touched: dict[tuple[str, int, int], bool] = {}
        self._histories: dict[tuple[str, int], list[tuple[Commit, str | None]]] = {}
        self._blob_defs: dict[tuple[str, str], str | None] = {}  # (blob id, name) → `definition`

    def update(self, head: str) -> int:
        """Index the commits up to `head` not indexed yet; returns how many were added."""
        known = self.meta("head")
        if known == head:
            return 0
        since = known if known and _git.is_ancestor(self.root, known, head) else None
        if known and since is None:  # HEAD moved off the indexed line: drop the abandoned tail only
            base = _git.run(self.root, "merge-base", known, head, check=False).strip()
            fork = self.commit(base) if base else None
            cut = fork.seq if fork is not None else 0
            self.db.execute("DELETE FROM touches WHERE seq > ?", (cut,))
            self.db.execute("DELETE FROM commits WHERE seq > ?", (cut,))
            since = fork.sha if fork is not None else None
        have: set[str] = set() if since else {r[0] for r in self.db.execute("SELECT sha FROM commits")}
        cur = self.db.cursor()
        seq = cur.execute("SELECT COALESCE(MAX(seq), 0) FROM commits").fetchone()[0]
        commits, touches, problems = [], [], list[str]()
        for sha, when, subject, changes in _git.iter_history(self.root, since, problems):
            if sha in have:
                continue  # reached again from a new HEAD: already indexed
            seq += 1
            commits.append((seq, sha, when, _storable(subject)))
            touches += [(_storable(path), seq, status, _storable(old)) for status, path, old in changes]
        cur.executemany("INSERT INTO commits(seq, sha, time, subject) VALUES (?, ?, ?, ?)", commits)
        first = not since and not have  # an empty index: the touches' indexes made after them (one sort each)
        for name, _columns in _INDEXES if first else ():
            cur.execute(f"DROP INDEX {name}")
        cur.executemany("INSERT INTO touches(path, seq, status, old) VALUES (?, ?, ?, ?)", touches)
        for name, columns in _INDEXES if first else ():
            cur.execute(f"CREATE INDEX {name} ON touches({columns})")
        added = len(commits)
        self._touched.clear()
        self._histories.clear()
        cur.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('head', ?)", (head,))
        keep_gaps(cur, self.root, problems, whole=since is None)
        if since != known:  # answers kept at a HEAD no longer on the line: their scopes cannot be told
            cur.execute("DELETE FROM greps WHERE head != '' AND head NOT IN (SELECT sha FROM commits)")
        self.db.commit()
        _sqlitefile.settle_wal(self.db, self.db_path)
        return added

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def close(self) -> None:
        self.versions.close()
        self.db.close()

    def commit(self, sha: str) -> Commit | None:
        row = self.db.execute("SELECT seq, sha, time, subject FROM commits WHERE sha = ?", (sha,)).fetchone()
        return Commit(*row) if row else None

    def latest(self, before: int = 1 << 62) -> Commit | None:
        """The last indexed commit (before position `before` of the chain)."""
        row = self.db.execute("SELECT seq, sha, time, subject FROM commits WHERE seq < ? ORDER BY seq DESC LIMIT 1",
                              (before,)).fetchone()
        return Commit(*row) if row else None

    def last_touch(self, path: str) -> Commit | None:
        """The last commit that added or changed `path` (where a doc's "last update" comes from)."""
        row = self.db.execute(
            "SELECT c.seq, c.sha, c.time, c.subject FROM touches t JOIN commits c ON c.seq = t.seq "
            "WHERE t.path = ? ORDER BY t.seq DESC LIMIT 1", (path,)).fetchone()
        return Commit(*row) if row else None

    def parent(self, commit: Commit) -> Commit | None:
        return self.latest(commit.seq)

    def touched_after(self, path: str, seq: int, until: int = 1 << 62) -> bool:
        """Whether a commit after `seq` (up to `until`) touched `path`, as itself or a rename's old name."""
        key = (path, seq, until)
        found = self._touched.get(key)
        if found is None:
            found = self._touched[key] = self.db.execute(
                "SELECT 1 FROM touches WHERE path = ? AND seq > ? AND seq <= ? UNION ALL SELECT 1 FROM touches "
                "WHERE old = ? AND seq > ? AND seq <= ? LIMIT 1", (path, seq, until, path, seq, until)).fetchone() is not None
        return found

    def files_after(self, seq: int, until: int | None = None) -> set[str]:
        """Every path added, changed, deleted or renamed (both names) after commit `seq` (to `until`)."""
        rows = self.db.execute("SELECT path, old FROM touches WHERE seq > ? AND seq <= ?",
                               (seq, until if until is not None else 1 << 62)).fetchall()
        return {p for p, _ in rows} | {o for _, o in rows if o}

    def paths_down(self, first: int, last: int) -> Iterator[tuple[int, str]]:
        """(seq, path) touched by commits `last` down to `first`, both names of a rename: a lazy read."""
        for seq, path, old in self.db.execute(
                "SELECT seq, path, old FROM touches WHERE seq BETWEEN ? AND ? ORDER BY seq DESC", (first, last)):
            yield seq, path
            if old:
                yield seq, old

    def files_of(self, seq: int) -> set[str]:
        """Every path commit `seq` added, changed, deleted or renamed (both names)."""
        rows = self.db.execute("SELECT path, old FROM touches WHERE seq = ?", (seq,)).fetchall()
        return {p for p, _ in rows} | {o for _, o in rows if o}

    def path_history(self, path: str, seq: int) -> list[tuple[Commit, str | None]]:
        """The commits after `seq` touching `path`, following renames: (commit, the file's path
        after it, None once deleted)."""
        key = (path, seq)
        if key not in self._histories:
            self._histories[key] = self._path_history(path, seq)
        return list(self._histories[key])

    def _path_history(self, path: str, seq: int) -> list[tuple[Commit, str | None]]:
        out: list[tuple[Commit, str | None]] = []
        cur: str | None = path
        while cur is not None:
            rows = self.db.execute(
                "SELECT c.seq, c.sha, c.time, c.subject, t.status, t.path, t.old FROM "
                f"({_BY_PATH_OR_OLD.format(cond='seq > ?')}) t JOIN commits c ON c.seq = t.seq ORDER BY t.seq",
                (cur, seq, cur, seq)).fetchall()
            moved = False
            for s, sha, when, subject, status, new, old in rows:
                if new == cur and status != "D" and not (old and old != cur):
                    out.append((Commit(s, sha, when, subject), cur))
                elif new == cur and old and old != cur:
                    continue  # another file renamed onto this path
                else:  # deleted, or renamed away: follow the new name from here
                    cur = None if status == "D" else new
                    out.append((Commit(s, sha, when, subject), cur))
                    seq, moved = s, True
                    break
            if not moved:
                break
        return out

    def earlier(self, path: str, seq: int, limit: int = 6) -> list[tuple[Commit, str]]:
        """The commits before `seq` that changed `path`, newest first, at most `limit`: (commit, its
        path then), back through renames and a file added where one of the same name was deleted,
        in its folder (`x.rst` → `x.md`) or as its package (`x.py` → `x/__init__.py`, no rename)."""
        out: list[tuple[Commit, str]] = []
        cur, start, first = path, seq, True
        while len(out) < limit:
            row = self.db.execute(  # the commit at `seq` itself first: it may have renamed or added the file
                "SELECT c.seq, c.sha, c.time, c.subject, t.status, t.old FROM touches t JOIN commits c ON c.seq = t.seq "
                f"WHERE t.path = ? AND t.seq {'<=' if first else '<'} ? ORDER BY t.seq DESC LIMIT 1",
                (cur, seq)).fetchone()
            first = False
            if row is None:
                break
            seq, status = row[0], row[4]
            if seq != start:
                out.append((Commit(*row[:4]), cur))
            if row[5] and row[5] != cur:
                cur = row[5]
            elif status == "A":
                stem = cur.removesuffix("/__init__.py") if cur.endswith("/__init__.py") else cur.rsplit(".", 1)[0]
                gone = [p for (p,) in self.db.execute("SELECT path FROM touches WHERE seq = ? AND status = 'D'", (seq,))
                        if (p.startswith(stem + ".") and "/" not in p[len(stem) + 1:]) or p == f"{stem}/__init__.py"]
                if len(gone) != 1:
                    break
                cur = gone[0]
        return out

    def path_now(self, path: str, seq: int) -> str | None:
        """Where `path` (as of commit `seq`) is now, following renames (None: deleted)."""
        hist = self.path_history(path, seq)
        return hist[-1][1] if hist else path

    def existed(self, path: str, seq: int) -> bool:
        """Whether `path` was in the tree at commit `seq`."""
        row = self.db.execute(
            f"SELECT status, path, old FROM ({_BY_PATH_OR_OLD.format(cond='seq <= ?')}) ORDER BY seq DESC LIMIT 1",
            (path, seq, path, seq)).fetchone()
        return row is not None and row[1] == path and row[0] != "D"

    # ---------------------------------------------------------------- symbols in history

    def def_at(self, sha: str, path: str, name: str) -> str | None:
        """`definition` of `name` in `path` at commit `sha`: a commit never changes, so the answer
        is kept in the database (`defs`) and each version is read at most once."""
        key = (sha, path, name)
        if key not in self._defs:
            row = self.db.execute("SELECT def FROM defs WHERE sha = ? AND path = ? AND name = ?", key).fetchone()
            if row is not None:
                self._defs[key] = row[0]
            else:  # a file unchanged between two commits is one blob: read and searched once
                oid = self.versions.blob(sha, path)
                if oid is None:
                    found = None
                elif (oid, name) in self._blob_defs:
                    found = self._blob_defs[oid, name]
                else:
                    text = self.versions.text(oid)
                    found = self._blob_defs[oid, name] = definition(text, name) if text is not None else None
                self._defs[key] = found
                self._new_defs.append((*key, found))
        return self._defs[key]

    def greps(self, key: str, names: Iterable[str]) -> dict[str, tuple[str, set[str]]]:
        """name -> (the HEAD whose scope its search covered, '' for every HEAD; the files holding
        it), as the `git grep`s under `key` found them (`grep_plan.Search`), the newest HEAD's."""
        wanted, best = set(names), dict[str, tuple[int, str, str]]()
        for name, head, files, seq in self.db.execute("SELECT g.name, g.head, g.files, c.seq FROM greps g LEFT JOIN "
                                                      "commits c ON c.sha = g.head WHERE g.sha = ?", (key,)):
            rank = 1 << 62 if head == "" else seq
            if name in wanted and rank is not None and (name not in best or rank > best[name][0]):
                best[name] = (rank, head, files)
        return {name: (head, set(files.split("\n")) if files else set()) for name, (_r, head, files) in best.items()}

    def remember_greps(self, key: str, head: str, names: Iterable[str], hits: dict[str, set[str]]) -> None:
        """Keep (with the judgements) what `git grep`s under `key` found for `names` at `head` ('')."""
        self._new_greps += [(key, n, head, "\n".join(sorted(hits.get(n, ())))) for n in names]

    def def_name(self, sha: str, path: str, name: str) -> str | None:
        """Which spelling of a reference's name `path` defines at `sha`: all of it, its last two
        parts (`Class.method`) or its last part."""
        parts = name.split(".")
        for k in dict.fromkeys((name, ".".join(parts[-2:]), parts[-1])):
            if self.def_at(sha, path, k) is not None:
                return k
        return None

    def symbol_change(self, path: str, name: str, since: Commit, now_text: str | None, *,
                      signature_only: bool = False,
                      counts: Callable[[str, str], bool] | None = None,
                      body_counts: Callable[[str, str], bool] | None = None) -> tuple[Commit | None, str] | None:
        """(the commit after `since` that made `name`'s definition in `path` what it is now —
        None for uncommitted edits —, "signature" or "body"), or None when unchanged or not
        comparable (absent then or now, or ambiguous). `signature_only`: ignore body changes.
        `counts(before, now)`: whether a signature change (`signature` of the two definitions)
        matters to the reader; a change it rejects is no change. `body_counts(before, now)`: the
        same for a body change."""
        if now_text is None and not self.touched_after(path, since.seq):
            return None
        before = self.def_at(since.sha, path, name)
        if before is None:
            return None
        versions = [(c, p) for c, p in self.path_history(path, since.seq) if p is not None]
        committed = self.def_at(versions[-1][0].sha, versions[-1][1], name) if versions else before
        now = definition(now_text, name) if now_text is not None else committed
        if now is None:
            return None
        what = "signature" if signature(now) != signature(before) else "body"
        if now == before or (signature_only and what == "body"):
            return None
        if what == "signature" and counts is not None and not counts(before, now):
            if signature_only or body(now) == body(before):
                return None
            what = "body"
        if what == "body" and body_counts is not None and not body_counts(before, now):
            return None
        if committed != now:
            return None, what
        key = signature if what == "signature" else (lambda text: text)
        lo, hi = 0, len(versions) - 1  # the first version from which the definition is the current one
        while lo < hi:
            mid = (lo + hi) // 2
            c, p = versions[mid]
            if key(self.def_at(c.sha, p, name) or "") == key(now):
                hi = mid
            else:
                lo = mid + 1
        return versions[lo][0], what

    def prefetch(self, wanted: Iterable[tuple[str, str]]) -> None:
        """Read these `(commit sha, path)` versions in one pass (`FileVersions.prefetch`)."""
        self.versions.prefetch(wanted)

    # ---------------------------------------------------------------- judgements

    def judged(self, doc: str) -> tuple[str, Any] | None:
        """(key, judgement) stored for the doc at this path, if any."""
        row = self.db.execute("SELECT key, value FROM judged WHERE doc = ?", (doc,)).fetchone()
        return (row[0], json.loads(row[1])) if row else None

    def references(self, keys: Iterable[str]) -> dict[str, Any]:
        """key → the references stored for a doc text with that key (see `save_judged`)."""
        out = {}
        for key in keys:
            row = self.db.execute("SELECT value FROM refs WHERE key = ?", (key,)).fetchone()
            if row is not None:
                out[key] = json.loads(row[0])
        return out

    def save_judged(self, rows: Iterable[tuple[str, str, Any]], refs: Iterable[tuple[str, Any]] = ()) -> None:
        """Store (doc path, key, judgement) rows, (key, references) rows (what a doc text is read
        into: kept while a judgement has that key), and the definitions and `git grep` answers
        found on the way; a busy database skips them."""
        try:
            self.db.executemany("INSERT OR REPLACE INTO judged(doc, key, value) VALUES (?, ?, ?)",
                                [(d, k, json.dumps(v)) for d, k, v in rows])
            self.db.executemany("INSERT OR REPLACE INTO refs(key, value) VALUES (?, ?)", [(k, json.dumps(v)) for k, v in refs])
            self.db.execute("DELETE FROM refs WHERE key NOT IN (SELECT key FROM judged)")
            self.db.executemany("INSERT OR REPLACE INTO defs(sha, path, name, def) VALUES (?, ?, ?, ?)", self._new_defs)
            self.db.executemany("DELETE FROM greps WHERE sha = ? AND name = ? AND head != ?",
                                [(k, n, h) for k, n, h, _f in self._new_greps])
            self.db.executemany("INSERT OR REPLACE INTO greps(sha, name, head, files) VALUES (?, ?, ?, ?)",
                                self._new_greps)
            self._new_defs, self._new_greps = [], []
            self.db.commit()
            _sqlitefile.settle_wal(self.db, self.db_path)
        except sqlite3.Error:
            pass  # another process holds the database: the answers are recomputed next time


def _storable(text: str | None) -> str | None:
    """sqlite takes only valid UTF-8: a name git printed with undecodable bytes (kept as surrogates)
    is stored with U+FFFD instead, so that file simply has no history to match."""
    if text is None or text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def build_index(root: str | Path, db_path: Path, head: str) -> int:
    """Bring the index in `db_path` up to `head` (a first run does this in a second process
    while it reads the code); returns how many commits were added."""
    index = HistoryIndex(root, db_path)
    try:
        return index.update(head)
    finally:
        index.close()


def _connect(db_path: Path | None) -> sqlite3.Connection:
    db = None
    if db_path is not None and not _cachefile.is_tracked(db_path):  # a committed cache is never read
        try:
            db = _write_gate.connect_sqlite(db_path, timeout=30, check_same_thread=False)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA):
                db.close()
                db_path.unlink()
                db = _write_gate.connect_sqlite(db_path, timeout=30, check_same_thread=False)
        except (sqlite3.Error, OSError):
            db = None
    if db is None:
        db = sqlite3.connect(":memory:", check_same_thread=False)
    _sqlitefile.tune(db)  # at worst a crash loses the last commits' answers: worked out again
    if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:  # a header write only when new
        db.execute(f"PRAGMA user_version = {SCHEMA}")
    db.executescript("""
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE IF NOT EXISTS commits(seq INTEGER PRIMARY KEY AUTOINCREMENT, sha TEXT UNIQUE, time INTEGER,
                                           subject TEXT);
        CREATE TABLE IF NOT EXISTS touches(path TEXT, seq INTEGER, status TEXT, old TEXT);
        PRAGMA cache_size = -65536; DROP INDEX IF EXISTS touches_old; DROP INDEX IF EXISTS touches_seq;
        """ + "".join(f"CREATE INDEX IF NOT EXISTS {n} ON touches({c});" for n, c in _INDEXES) + """
        CREATE TABLE IF NOT EXISTS judged(doc TEXT PRIMARY KEY, key TEXT, value TEXT);
        CREATE TABLE IF NOT EXISTS refs(key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE IF NOT EXISTS defs(sha TEXT, path TEXT, name TEXT, def TEXT, PRIMARY KEY(sha, path, name));
        CREATE TABLE IF NOT EXISTS greps(sha TEXT, name TEXT, head TEXT, files TEXT, PRIMARY KEY(sha, name, head));
    """)
    return db
