"""Git history behind freshness: one persistent, incremental index of `git log`, and the two
questions freshness asks of it (see `noface_ctx.freshness`).

`HistoryIndex` keeps `<cache_dir>/history.sqlite`: every commit of HEAD's history (sequence
number along the first-parent chain, sha, time, subject) and every file it touched (status,
and the old path of a rename; a merge against its first parent), from one `git log
--first-parent -m --name-status -M` pass. When HEAD moves only the new
commits are read and appended (`git log <old head>..HEAD`); the index is never rewritten whole.
The same database keeps each doc's judgement (`judged`), keyed by everything it depends on.

- `symbol_change`: did the definition of a symbol a doc names change since the doc's last
  commit? Only when the defining file was touched since (from the index) are two versions
  read (`git cat-file --batch`) and the symbol's definition compared (a regex definition
  finder, nesting by indentation): a function's signature and body (docstrings, comments,
  blank lines and type annotations aside), a class's header line and `__init__` signature;
  signatures only for a symbol the doc merely uses in an example. The commit named is the one
  that made the definition what it is now (a binary search over the file's commits).
- `removal`: for a name that was in a file at the doc's commit and is gone now, the commit
  that removed it (a binary search over that file's commits, following renames) and the
  identifier that took its place in that commit's diff (`replacements`), if any.
"""

from __future__ import annotations

import difflib
import json
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from noface_ctx import git

SCHEMA = 1
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEF = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?:export|default|public|private|protected|internal|static|final|abstract|async|"
    r"pub(?:\([^)]*\))?|unsafe|extern|inline|virtual|override|open|suspend|const|declare)\s+)*"
    r"(?P<kw>def|class|function\*?|fn|func|struct|enum|trait|interface|type|impl|union|object|record)\s+"
    r"(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)
_CONTAINERS = frozenset({"class", "struct", "enum", "trait", "interface", "impl", "union", "object", "record"})
_DOCSTRING = re.compile(r"(\"\"\"|''')[\s\S]*?\1")
_COMMENT = re.compile(r"^\s*(#|//)")
_TOKEN = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|\w+|\S")
_TRAILING_COMMENT = re.compile(r"\s+(#|//)\s.*$")


@dataclass(frozen=True, slots=True)
class Commit:
    seq: int  # position on HEAD's first-parent chain, oldest first
    sha: str
    time: int
    subject: str

    def label(self) -> str:
        day = datetime.fromtimestamp(self.time, timezone.utc).date().isoformat()
        subject = self.subject if len(self.subject) <= 60 else self.subject[:57] + "..."
        return f"{self.sha[:10]} ({day}, \"{subject}\")"


class HistoryIndex:
    """`git log` of HEAD, stored by commit in sqlite and extended when HEAD moves."""

    def __init__(self, root: str | Path, db_path: Path | None) -> None:
        self.root = str(root)
        self.db = _connect(db_path)
        self.blobs = git.Blobs(self.root)
        self._defs: dict[tuple[str, str], dict[str, str | None]] = {}
        self._texts: dict[tuple[str, str], str | None] = {}

    # ---------------------------------------------------------------- building

    def update(self, head: str) -> int:
        """Index the commits up to `head` not indexed yet; returns how many were added."""
        known = self.meta("head")
        if known == head:
            return 0
        since = known if known and git.is_ancestor(self.root, known, head) else None
        added = 0
        cur = self.db.cursor()
        for sha, when, subject, changes in git.iter_history(self.root, since):
            cur.execute("INSERT OR IGNORE INTO commits(sha, time, subject) VALUES (?, ?, ?)", (sha, when, subject))
            if cur.rowcount != 1:
                continue  # reached again from a new HEAD: already indexed
            seq = cur.lastrowid
            cur.executemany("INSERT INTO touches(path, seq, status, old) VALUES (?, ?, ?, ?)",
                            [(path, seq, status, old) for status, path, old in changes])
            added += 1
        cur.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('head', ?)", (head,))
        self.db.commit()
        return added

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def close(self) -> None:
        self.blobs.close()
        self.db.close()

    # ---------------------------------------------------------------- questions

    def commit(self, sha: str) -> Commit | None:
        row = self.db.execute("SELECT seq, sha, time, subject FROM commits WHERE sha = ?", (sha,)).fetchone()
        return Commit(*row) if row else None

    def latest(self) -> Commit | None:
        row = self.db.execute("SELECT seq, sha, time, subject FROM commits ORDER BY seq DESC LIMIT 1").fetchone()
        return Commit(*row) if row else None

    def last_touch(self, path: str) -> Commit | None:
        """The last commit that added or changed `path` (where a doc's "last update" comes from)."""
        row = self.db.execute(
            "SELECT c.seq, c.sha, c.time, c.subject FROM touches t JOIN commits c ON c.seq = t.seq "
            "WHERE t.path = ? ORDER BY t.seq DESC LIMIT 1", (path,)).fetchone()
        return Commit(*row) if row else None

    def parent(self, commit: Commit) -> Commit | None:
        row = self.db.execute("SELECT seq, sha, time, subject FROM commits WHERE seq < ? ORDER BY seq DESC LIMIT 1",
                              (commit.seq,)).fetchone()
        return Commit(*row) if row else None

    def touched_after(self, path: str, seq: int) -> bool:
        return self.db.execute("SELECT 1 FROM touches WHERE (path = ? OR old = ?) AND seq > ? LIMIT 1",
                               (path, path, seq)).fetchone() is not None

    def files_after(self, seq: int) -> set[str]:
        """Every path added, changed, deleted or renamed (both names) after commit `seq`."""
        rows = self.db.execute("SELECT path, old FROM touches WHERE seq > ?", (seq,)).fetchall()
        return {p for p, _ in rows} | {o for _, o in rows if o}

    def path_history(self, path: str, seq: int) -> list[tuple[Commit, str | None]]:
        """The commits after `seq` touching `path`, following renames: (commit, the file's path
        after it, None once deleted)."""
        out: list[tuple[Commit, str | None]] = []
        cur: str | None = path
        while cur is not None:
            rows = self.db.execute(
                "SELECT c.seq, c.sha, c.time, c.subject, t.status, t.path, t.old FROM touches t "
                "JOIN commits c ON c.seq = t.seq WHERE (t.path = ? OR t.old = ?) AND t.seq > ? ORDER BY t.seq",
                (cur, cur, seq)).fetchall()
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

    def path_now(self, path: str, seq: int) -> str | None:
        """Where `path` (as of commit `seq`) is now, following renames (None: deleted)."""
        hist = self.path_history(path, seq)
        return hist[-1][1] if hist else path

    def existed(self, path: str, seq: int) -> bool:
        """Whether `path` was in the tree at commit `seq`."""
        row = self.db.execute(
            "SELECT status, path, old FROM touches WHERE (path = ? OR old = ?) AND seq <= ? ORDER BY seq DESC LIMIT 1",
            (path, path, seq)).fetchone()
        return row is not None and row[1] == path and row[0] != "D"

    # ---------------------------------------------------------------- symbols in history

    def defs_at(self, sha: str, path: str) -> dict[str, str | None]:
        key = (sha, path)
        if key not in self._defs:
            text = self._text(sha, path)
            self._defs[key] = definitions(text) if text is not None else {}
        return self._defs[key]

    def symbol_change(self, path: str, name: str, since: Commit, now_text: str | None, *,
                      signature_only: bool = False) -> tuple[Commit | None, str] | None:
        """(the commit after `since` that made `name`'s definition in `path` what it is now —
        None for uncommitted edits —, "signature" or "body"), or None when unchanged or not
        comparable (absent then or now, or ambiguous). `signature_only`: ignore body changes."""
        if now_text is None and not self.touched_after(path, since.seq):
            return None
        before = self.defs_at(since.sha, path).get(name)
        if before is None:
            return None
        versions = [(c, p) for c, p in self.path_history(path, since.seq) if p is not None]
        committed = self.defs_at(versions[-1][0].sha, versions[-1][1]).get(name) if versions else before
        now = definitions(now_text).get(name) if now_text is not None else committed
        if now is None:
            return None
        what = "signature" if _first(now) != _first(before) else "body"
        if now == before or (signature_only and what == "body"):
            return None
        if committed != now:
            return None, what
        key = _first if signature_only else (lambda text: text)
        lo, hi = 0, len(versions) - 1  # the first version from which the definition is the current one
        while lo < hi:
            mid = (lo + hi) // 2
            c, p = versions[mid]
            if key(self.defs_at(c.sha, p).get(name) or "") == key(now):
                hi = mid
            else:
                lo = mid + 1
        return versions[lo][0], what

    def _text(self, sha: str, path: str) -> str | None:
        key = (sha, path)
        if key not in self._texts:
            if len(self._texts) > 64:
                self._texts.pop(next(iter(self._texts)))
            self._texts[key] = self.blobs.read(sha, path)
        return self._texts[key]

    def has_word(self, sha: str, path: str, word: str) -> bool:
        text = self._text(sha, path)
        return text is not None and re.search(rf"\b{re.escape(word)}\b", text) is not None

    def removal(self, name: str, path: str, since: Commit, *, dirty: bool = False) -> tuple[Commit | None, str | None] | None:
        """(the commit after `since` that removed the word `name` from `path` — followed through
        renames —, the identifier that took its place there or None), or None when not found.
        `dirty`: `path` has uncommitted edits, which are where the name went when no commit
        removed it (the commit is then None)."""
        versions = self.path_history(path, since.seq)
        current = versions[-1][1] if versions else path
        if current is not None and (not versions or self.has_word(versions[-1][0].sha, current, name)):
            if not dirty:  # still in the committed file
                return None
            diff = git.run(self.root, "diff", "-U0", "--no-color", "--no-ext-diff", "HEAD", "--", current, check=False)
            return None, next((c for c, _ in replacements(diff, name).most_common() if c != name), None)

        def absent(i: int) -> bool:
            c, p = versions[i]
            return p is None or not self.has_word(c.sha, p, name)

        lo, hi = 0, len(versions) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if absent(mid):
                hi = mid
            else:
                lo = mid + 1
        commit, new_path = versions[lo]
        old_path = versions[lo - 1][1] if lo else path
        paths = {p for p in (old_path, new_path) if p}
        try:
            diff = git.run(self.root, "diff", "-M", "-U0", "--no-color", "--no-ext-diff", f"{commit.sha}^", commit.sha,
                           "--", *sorted(paths))
        except git.GitError:
            return commit, None
        votes = replacements(diff, name)
        best = next((cand for cand, _ in votes.most_common() if cand != name), None)
        return commit, best

    # ---------------------------------------------------------------- judgements

    def judged(self, doc: str) -> tuple[str, Any] | None:
        row = self.db.execute("SELECT key, value FROM judged WHERE doc = ?", (doc,)).fetchone()
        return (row[0], json.loads(row[1])) if row else None

    def save_judged(self, rows: Iterable[tuple[str, str, Any]]) -> None:
        try:
            self.db.executemany("INSERT OR REPLACE INTO judged(doc, key, value) VALUES (?, ?, ?)",
                                [(d, k, json.dumps(v)) for d, k, v in rows])
            self.db.commit()
        except sqlite3.Error:
            pass  # another process holds the database: the answers are recomputed next time


def _connect(db_path: Path | None) -> sqlite3.Connection:
    db = None
    if db_path is not None:
        try:
            db = sqlite3.connect(str(db_path), timeout=30)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA):
                db.close()
                db_path.unlink()
                db = sqlite3.connect(str(db_path), timeout=30)
        except (sqlite3.Error, OSError):
            db = None
    if db is None:
        db = sqlite3.connect(":memory:")
    db.executescript(f"""
        PRAGMA user_version = {SCHEMA};
        PRAGMA journal_mode = WAL;
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE IF NOT EXISTS commits(seq INTEGER PRIMARY KEY AUTOINCREMENT, sha TEXT UNIQUE, time INTEGER,
                                           subject TEXT);
        CREATE TABLE IF NOT EXISTS touches(path TEXT, seq INTEGER, status TEXT, old TEXT);
        CREATE INDEX IF NOT EXISTS touches_path ON touches(path, seq);
        CREATE INDEX IF NOT EXISTS touches_old ON touches(old, seq) WHERE old != '';
        CREATE INDEX IF NOT EXISTS touches_seq ON touches(seq);
        CREATE TABLE IF NOT EXISTS judged(doc TEXT PRIMARY KEY, key TEXT, value TEXT);
    """)
    return db


def definitions(text: str) -> dict[str, str | None]:
    """Each definition's comparable text by qualified (`Class.method`) and bare name (None when a
    bare name is defined more than once). A function: its lines without docstrings, comments
    and blank lines; a container (class, struct, ...): its header and its `__init__` signature."""
    text = _DOCSTRING.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # examples in docstrings define nothing
    lines = text.split("\n")
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    found: list[tuple[int, int, str, str]] = []  # (line, indent, kw, qualified name)
    stack: list[tuple[int, str]] = []
    import bisect

    for m in _DEF.finditer(text):
        line = bisect.bisect_right(starts, m.start()) - 1
        indent = len(m.group("indent").expandtabs(4))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        qual = ".".join([n for _, n in stack] + [m.group("name")])
        found.append((line, indent, m.group("kw"), qual))
        if m.group("kw") in _CONTAINERS:
            stack.append((indent, m.group("name")))
    out: dict[str, str | None] = {}
    bare: Counter[str] = Counter()
    texts: dict[str, str] = {}
    for line, indent, kw, qual in found:
        end = line + 1
        while end < len(lines):
            s = lines[end]
            if s.strip() and len(s.expandtabs(4)) - len(s.expandtabs(4).lstrip()) <= indent and s.strip()[0] not in ")]}":
                break
            end += 1
        block = "\n".join(lines[line:end])
        texts[qual] = _signature(block) if kw in _CONTAINERS else _normal(block)
        bare[qual.rsplit(".", 1)[-1]] += 1
    for qual, body in texts.items():
        if qual.endswith(".__init__") and qual.rsplit(".", 1)[0] in texts:
            owner = qual.rsplit(".", 1)[0]
            texts[owner] = texts[owner] + "\n" + _signature(body)
    for qual, body in texts.items():
        out[qual] = body
        name = qual.rsplit(".", 1)[-1]
        if name != qual:
            out.setdefault(name, body if bare[name] == 1 else None)
            if bare[name] > 1:
                out[name] = None
    return out


def _first(text: str) -> str:
    """A definition's signature: the first line of its comparable text."""
    return text.split("\n", 1)[0].strip()


def _normal(block: str) -> str:
    """A definition as comparable text: its header without type annotations on the first line,
    then its body as tokens (docstrings, comments, layout, quote style and trailing commas
    aside), so reformatting (Black) or an annotation-only change is no change."""
    block = _untyped_header(_DOCSTRING.sub("", block))
    lines = [_TRAILING_COMMENT.sub("", ln) for ln in block.split("\n") if ln.strip() and not _COMMENT.match(ln)]
    if not lines:
        return ""
    return _tokens(lines[0]) + "\n" + _tokens(" ".join(lines[1:]))


def _tokens(text: str) -> str:
    """Tokens joined by spaces; grouping parentheses (not calls, not tuples' commas) dropped."""
    out: list[str] = []
    groups: list[bool] = []  # per open "(": a grouping one (dropped with its ")")
    for tok in _TOKEN.findall(text):
        if tok[0] in "'\"":
            tok = '"' + tok[1:-1] + '"'
        elif tok in ")]}" and out and out[-1] == ",":
            out.pop()
        if tok == "(":
            grouping = not out or not (out[-1][-1].isalnum() or out[-1][-1] in "_)]\"")
            groups.append(grouping)
            if grouping:
                continue
        elif tok == ")" and groups and groups.pop():
            continue
        out.append(tok)
    return " ".join(out)


def _untyped_header(block: str) -> str:
    """`def f(a: int = 1, *b: str) -> X:` → `def f(a=1, *b):` (the rest of the block unchanged)."""
    open_at = block.find("(")
    if open_at < 0 or not block.lstrip().startswith(("def ", "async def ")):
        return block
    depth, i = 0, open_at
    parts, cur = [], ""
    while i < len(block):
        ch = block[i]
        if ch in "([{":
            depth += 1
            if depth > 1:
                cur += ch
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                break
            cur += ch
        elif ch == "," and depth == 1:
            parts.append(cur)
            cur = ""
        elif depth >= 1:
            cur += ch
        i += 1
    else:
        return block
    parts.append(cur)
    params = []
    for part in parts:
        name, _, default = _split_top(part, "=")
        name = _split_top(name, ":")[0].strip()
        if name:
            params.append(name + ("=" + " ".join(default.split()) if default.strip() else ""))
    end = block.find(":", i)
    while end >= 0 and block[end + 1:end + 2] not in ("", "\n", " ", "\t"):
        end = block.find(":", end + 1)
    rest = block[end + 1:] if end >= 0 else ""
    return f"{block[:open_at]}({', '.join(params)}):{rest}"


def _split_top(text: str, sep: str) -> tuple[str, str, str]:
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0 and not (sep == "=" and text[i + 1:i + 2] == "="):
            return text[:i], sep, text[i + 1:]
    return text, "", ""


def _signature(block: str) -> str:
    """A definition's header (its comparable first line)."""
    return _first(_normal(block))


def replacements(diff: str, name: str) -> Counter[str]:
    """Identifiers that took `name`'s place in the hunks of a `-U0` diff that removed it."""
    votes: Counter[str] = Counter()
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        for r in removed:
            rt = _IDENT.findall(r)
            if name not in rt or not added:
                continue
            ratio, best = max((difflib.SequenceMatcher(None, r, a).ratio(), a) for a in added)
            if ratio < 0.5:  # no added line resembles the removed one: not a rename
                continue
            at = _IDENT.findall(best)
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, rt, at, autojunk=False).get_opcodes():
                if op == "replace" and i2 - i1 == j2 - j1:
                    votes.update(at[j1 + k] for k in range(i2 - i1) if rt[i1 + k] == name and at[j1 + k] != name)
        removed.clear()
        added.clear()

    in_hunk = False
    for line in diff.split("\n"):
        if line.startswith("@@") or line.startswith("diff "):
            flush()
            in_hunk = line.startswith("@@")
        elif in_hunk and line.startswith("-"):
            removed.append(line[1:])
        elif in_hunk and line.startswith("+"):
            added.append(line[1:])
    flush()
    return votes
