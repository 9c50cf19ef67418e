"""Git history behind freshness: one persistent, incremental index of `git log`, and the two
questions freshness asks of it (see `noface_ctx.freshness.assess`).

`HistoryIndex` keeps `<cache_dir>/history.sqlite`: every commit of HEAD's history (sequence
number along the first-parent chain, sha, time, subject) and every file it touched (status,
and the old path of a rename; a merge against its first parent), from one `git log
--first-parent -m --name-status -M` pass. When HEAD moves only the new
commits are read and appended (`git log <old head>..HEAD`); when HEAD leaves the indexed line
(a reset, another branch) only the commits after the fork point are dropped first. The index
is never rewritten whole.
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
import keyword
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from noface_ctx import cachefile, git

SCHEMA = 1
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEF_HEAD = (
    r"^(?P<indent>[ \t]*)(?:(?:export|default|public|private|protected|internal|static|final|abstract|async|"
    r"pub(?:\([^)]*\))?|unsafe|extern|inline|virtual|override|open|suspend|const|declare)\s+)*"
    r"(?P<kw>def|class|function\*?|fn|func|struct|enum|trait|interface|type|impl|union|object|record)\s+"
    r"(?:\([^)]*\)\s*)?"
)
_CONTAINERS = frozenset({"class", "struct", "enum", "trait", "interface", "impl", "union", "object", "record"})
_DOCSTRING = re.compile(r"(\"\"\"|''')[\s\S]*?\1")
_COMMENT = re.compile(r"^\s*(#|//)")
_KEYWORDS = frozenset(keyword.kwlist)
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
        self._defs: dict[tuple[str, str, str], str | None] = {}
        self._texts: dict[tuple[str, str], str | None] = {}

    # ---------------------------------------------------------------- building

    def update(self, head: str) -> int:
        """Index the commits up to `head` not indexed yet; returns how many were added."""
        known = self.meta("head")
        if known == head:
            return 0
        since = known if known and git.is_ancestor(self.root, known, head) else None
        if known and since is None:  # HEAD moved off the indexed line: drop the abandoned tail only
            base = git.run(self.root, "merge-base", known, head, check=False).strip()
            fork = self.commit(base) if base else None
            cut = fork.seq if fork is not None else 0
            self.db.execute("DELETE FROM touches WHERE seq > ?", (cut,))
            self.db.execute("DELETE FROM commits WHERE seq > ?", (cut,))
            since = fork.sha if fork is not None else None
        have: set[str] = set() if since else {r[0] for r in self.db.execute("SELECT sha FROM commits")}
        cur = self.db.cursor()
        seq = cur.execute("SELECT COALESCE(MAX(seq), 0) FROM commits").fetchone()[0]
        commits, touches = [], []
        for sha, when, subject, changes in git.iter_history(self.root, since):
            if sha in have:
                continue  # reached again from a new HEAD: already indexed
            seq += 1
            commits.append((seq, sha, when, _storable(subject)))
            touches += [(_storable(path), seq, status, _storable(old)) for status, path, old in changes]
        cur.executemany("INSERT INTO commits(seq, sha, time, subject) VALUES (?, ?, ?, ?)", commits)
        cur.executemany("INSERT INTO touches(path, seq, status, old) VALUES (?, ?, ?, ?)", touches)
        added = len(commits)
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

    def def_at(self, sha: str, path: str, name: str) -> str | None:
        """`definition` of `name` in `path` at commit `sha` (read once per version)."""
        key = (sha, path, name)
        if key not in self._defs:
            text = self._text(sha, path)
            self._defs[key] = definition(text, name) if text is not None else None
        return self._defs[key]

    def def_name(self, sha: str, path: str, name: str) -> str | None:
        """Which spelling of a reference's name `path` defines at `sha`: all of it, its last two
        parts (`Class.method`) or its last part."""
        parts = name.split(".")
        for k in dict.fromkeys((name, ".".join(parts[-2:]), parts[-1])):
            if self.def_at(sha, path, k) is not None:
                return k
        return None

    def symbol_change(self, path: str, name: str, since: Commit, now_text: str | None, *,
                      signature_only: bool = False) -> tuple[Commit | None, str] | None:
        """(the commit after `since` that made `name`'s definition in `path` what it is now —
        None for uncommitted edits —, "signature" or "body"), or None when unchanged or not
        comparable (absent then or now, or ambiguous). `signature_only`: ignore body changes."""
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
            if key(self.def_at(c.sha, p, name) or "") == key(now):
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


def _storable(text: str | None) -> str | None:
    """sqlite takes only valid UTF-8: a name git printed with undecodable bytes (kept as surrogates)
    is stored with U+FFFD instead, so that file simply has no history to match."""
    if text is None or text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _connect(db_path: Path | None) -> sqlite3.Connection:
    db = None
    if db_path is not None and not cachefile.is_tracked(db_path):  # a committed cache is never read
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


def definition(text: str, name: str) -> str | None:
    """The comparable text of `name`'s definition in `text` (`Class.method` is looked up inside
    `Class`), or None when it is not defined there or defined more than once at that level.
    A function: its header without type annotations, then its body as tokens (docstrings,
    comments, layout aside); a container (class, struct, ...): its header and its `__init__`
    signature."""
    text = _DOCSTRING.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # examples in docstrings define nothing
    lo, hi, outer = 0, len(text), -1
    found: tuple[int, int, int, str] | None = None
    for part in name.split("."):
        pattern = re.compile(_DEF_HEAD + re.escape(part) + r"\b", re.M)
        hits = [(len(m.group("indent").expandtabs(4)), m) for m in pattern.finditer(text, lo, hi)]
        hits = [(ind, m) for ind, m in hits if ind > outer]
        if not hits:
            return None
        top = min(ind for ind, _ in hits)
        level = [m for ind, m in hits if ind == top]
        if len(level) != 1:
            return None
        m = level[0]
        end = _block_end(text, m.end(), top)
        found = (m.start(), end, top, m.group("kw"))
        lo, hi, outer = m.end(), end, top
    assert found is not None
    start, end, indent, kw = found
    block = text[start:end]
    if kw not in _CONTAINERS:
        return _normal(block)
    head = _signature(block)
    init = re.compile(_DEF_HEAD + r"__init__\b", re.M).search(text, start, end)
    if init is not None:
        head += "\n" + _signature(text[init.start():_block_end(text, init.end(), len(init.group("indent")))])
    return head


def _block_end(text: str, pos: int, indent: int) -> int:
    """Where the block whose header ends at `pos` ends: the next non-blank line indented at most
    `indent` (closing brackets aside)."""
    nl = text.find("\n", pos)
    while nl != -1:
        line_start = nl + 1
        nxt = text.find("\n", line_start)
        line = text[line_start:nxt if nxt != -1 else len(text)]
        stripped = line.strip()
        if stripped and len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip()) <= indent and stripped[0] not in ")]}":
            return nl
        nl = nxt
    return len(text)


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
            grouping = not out or out[-1] in _KEYWORDS or not (out[-1][-1].isalnum() or out[-1][-1] in "_)]\"")
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
