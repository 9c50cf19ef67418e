"""Every word of the repository's code, and its definitions: what a doc reference is resolved against.

A reference that is any word of a non-doc file (a local variable, an imported library, a key) is not
reported. Reading and splitting every file of a large repository takes seconds, and loading every word
of it back takes most of a second, so `code_words` keeps, in a sqlite file (`<cache_dir>/words.sqlite`):

- per file, by its size and mtime, with a digest of its content: its words and the definitions
  a keyword regex finds in it (`definitions`: what `check-docs` uses instead of the tree-sitter
  index);
- the inverted tables built from them, kept up to date file by file: `vocab` (word → number of
  files holding it), `defs` (name → where it is defined) and `declared` (the names a code file
  defines, `declarations.declared`: in Python the definition table, `.name` for an instance
  attribute; in another language every word, read less closely, outside `//` and `/* */` comments
  in the C family).

After a commit or an edit only the changed files are read again, and a run asks only about the
words its docs use (`CodeWords.has`, `CodeWords.defined`). A file changed in the last two
seconds is stored without its stat, so it is read again next time (an equal stat would not
prove an equal content). A file whose stat changed but whose content did not (a checkout, a
reset, pre-commit's stash) is only hashed, not split into words again. Without a usable cache
file (none given, tracked by git, not writable) the same tables live in memory for the run.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from noface_ctx import _cachefile as cachefile
from noface_ctx import _sqlitefile as sqlitefile
from noface_ctx import _write_gate as write_gate
from noface_ctx._filebytes import content_hash, looks_binary
from noface_ctx.datatypes import RepoFiles
from noface_ctx.freshness.attached import attached
from noface_ctx.freshness.code_digest import sources_version
from noface_ctx.freshness.declarations import declared
from noface_ctx.freshness.references import CODE_EXTS, DOC_EXTS, WORD_CATEGORIES, file_ext

TEXT_LIMIT = 4_000_000  # bytes of a file whose words count
HANDED_SHARE = 1 / 6  # of a first run's files by size, read in another process, which reads docs too (`first_reads`)
PYTHON_EXTS = frozenset({"py", "pyi", "pyw"})  # read closely: their definition table
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MODIFIERS = ("export default public private protected internal static final abstract async pub unsafe extern inline "
              "virtual override open suspend const declare").split()
_KEYWORDS = "def class function fn func struct enum trait interface type module impl union object record".split()


def _definition_pattern(space: str, inside: str) -> str:
    """A definition line after its indentation: modifiers, a keyword, a name. `space`: the white
    space class, `inside`: a character within parentheses."""
    written = {"pub": rf"pub(?:\({inside}*\))?", "function": r"function\*?"}  # `pub(crate)`, `function*`
    return (rf"(?:(?:{'|'.join(written.get(m, m) for m in _MODIFIERS)}){space}+)*"
            rf"(?P<kw>{'|'.join(written.get(k, k) for k in _KEYWORDS)}){space}+"
            rf"(?:\({inside}*\){space}*)?(?:self\.)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)")


_DEF_LINE = re.compile(r"(?P<indent>[ \t]*)" + _definition_pattern(r"\s", r"[^)]"))  # one line
# the same in a whole text, after a newline (a literal first character lets the search skip to line
# starts): never across a newline, the indentation atomic (giving it back never helps, retrying is slow)
_DEF_AFTER_NEWLINE = re.compile(r"\n(?=(?P<indent>[ \t]*))(?P=indent)" + _definition_pattern(r"[^\S\n]", r"[^)\n]"))
# languages whose comments are `//` and `/* */`: a word only in a comment declares nothing (sqlfluff's
# Rust port saying "replicates the `StartsWith` semantics" keeps no Python grammar class alive)
SLASH_COMMENTS = frozenset("c cc cpp cxx h hh hpp hxx ipp cu cs java kt kts scala swift go rs js jsx mjs cjs ts tsx mts "
                           "cts dart zig proto sol groovy gradle".split())
_SLASH_COMMENT = re.compile(r"""("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n]){0,4}'|`(?:\\.|[^`\\])*`)|//[^\n]*|/\*.*?\*/""", re.S)
_CONTAINER_KW = frozenset({"class", "struct", "enum", "trait", "interface", "module", "impl", "union", "object", "record"})
_SCHEMA = sources_version(10, "code_words", "declarations", "attached", "definitions", "references")  # the code's digest too; 10: keys of alias tables handed to a module-level call; 9: methods attached under another name (`attached`), as definitions and `+name`; 4: each file's content digest kept; 5: what each file declares; 6: instance attributes of builtin-based classes, `__getattr__` tables, docstrings blanked in place; 7: C-family comments declare nothing; 8: a parameter after a comment in a signature
_RACY_NS = 2_000_000_000
_TABLES = """
CREATE TABLE IF NOT EXISTS files(path BLOB PRIMARY KEY, size INTEGER, mtime INTEGER, words TEXT, defs TEXT,
                                 digest TEXT, decl TEXT);
CREATE TABLE IF NOT EXISTS vocab(word TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS declared(word TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS defs(name TEXT, last INTEGER, path BLOB, qual TEXT, line INTEGER,
                                PRIMARY KEY(name, path, line, last)) WITHOUT ROWID;
"""

# size, mtime_ns (-1: read again next time), words joined by newlines (None: a binary file),
# definitions as "qualified name<TAB>line" lines, a digest of the content read, the names declared
Entry = tuple[int, int, "str | None", str, str, str]
Content = tuple[str, "str | None", str, str]  # a file's digest, words, definitions and declared names
Handed = tuple[frozenset[str], Callable[[], Mapping[str, "Content | None"]]]  # (files, the wait for their `contents`)
Definition = tuple[str, str, int]  # path, qualified name, line
Tables = tuple[set[str], dict[str, list[Definition]], set[str]]  # every word, every definition by name, every declared name


class CodeWords:
    """The words and regex definitions of a repository's readable files, asked one name at a time.

    Each answer is one indexed query; a run that asks many (a whole repository's docs) loads
    the tables whole once that is cheaper (`EAGER_AFTER` questions)."""

    EAGER_AFTER = 3000

    def __init__(self, db: sqlite3.Connection, tables: Tables | None = None) -> None:
        """`tables`: both tables whole, when the caller has just built them (a first run)."""
        self._db = db
        self._asked = 0
        self._vocab: set[str] | None = tables[0] if tables is not None else None
        self._declared: set[str] | None = tables[2] if tables is not None else None
        self._has: dict[str, bool] = {}
        self._declares: dict[str, bool] = {}
        self._defs: dict[str, list[Definition]] | None = tables[1] if tables is not None else None
        self._defined: dict[str, list[Definition]] = {}

    def stored_in(self) -> str:
        """The file the tables are read from ("" in memory)."""
        row = self._db.execute("PRAGMA database_list").fetchone()
        return str(row[2]) if row and row[2] else ""

    def read_through(self, db: sqlite3.Connection) -> None:
        """Ask `db` from now on (a forked worker's own connection to `stored_in()`)."""
        self._db = db

    def has(self, word: str) -> bool:
        """Whether some readable file holds `word`."""
        if self._vocab is not None:
            return word in self._vocab
        hit = self._has.get(word)
        if hit is None:
            if self._eager():
                return self.has(word)
            hit = self._has[word] = self._db.execute("SELECT 1 FROM vocab WHERE word = ? AND n > 0", (word,)).fetchone() is not None
        return hit

    def declares(self, name: str) -> bool:
        """Whether some code file declares `name` (`.name`: as an instance attribute)."""
        if self._declared is not None:
            return name in self._declared
        hit = self._declares.get(name)
        if hit is None:
            if self._eager():
                return self.declares(name)
            hit = self._declares[name] = self._db.execute(
                "SELECT 1 FROM declared WHERE word = ? AND n > 0", (name,)).fetchone() is not None
        return hit

    def defined(self, name: str) -> list[Definition]:
        """Definitions in code files whose last part (`method`) or qualified name (`Class.method`) is `name`."""
        if self._defs is not None:
            return self._defs.get(name, [])
        hit = self._defined.get(name)
        if hit is None:
            if self._eager():
                return self.defined(name)
            rows = self._db.execute("SELECT path, qual, line FROM defs WHERE name = ? ORDER BY path, line", (name,))
            hit = self._defined[name] = [_definition(p, q, n) for p, q, n in rows if _well_typed(p, q, n)]
        return hit

    def _eager(self) -> bool:
        """Count a question; past `EAGER_AFTER`, load both tables (True: ask again)."""
        self._asked += 1
        if self._asked <= self.EAGER_AFTER:
            return False
        self._vocab = {str(w) for (w,) in self._db.execute("SELECT word FROM vocab WHERE n > 0")}
        self._declared = {str(w) for (w,) in self._db.execute("SELECT word FROM declared WHERE n > 0")}
        defs: dict[str, list[Definition]] = {}
        for name, p, q, n in self._db.execute("SELECT name, path, qual, line FROM defs ORDER BY name, path, line"):
            if _well_typed(p, q, n):
                defs.setdefault(str(name), []).append(_definition(p, q, n))
        self._defs = defs
        return True


def _well_typed(path: object, qual: object, line: object) -> bool:
    """A stored definition row as `_update` writes it (a damaged file's other rows are skipped)."""
    return isinstance(path, bytes) and isinstance(qual, str) and isinstance(line, int)


def _definition(path: bytes, qual: str, line: int) -> Definition:
    return _path(path), qual, line


def readable(repo_files: RepoFiles, docs: set[str]) -> list[str]:
    """Every non-doc file, including code kept out of prompts only for its size."""
    paths = [f.path for f in repo_files.files if f.kind != "doc"]
    paths += [e.path for e in repo_files.excluded if e.category in WORD_CATEGORIES]
    return [p for p in paths if p not in docs and file_ext(p) not in DOC_EXTS]


def definitions(text: str) -> list[tuple[str, int]]:
    """(qualified name, line) of every definition a keyword regex finds (`def`, `class`, `fn`,
    `struct`, ...), nested into containers by indentation (`Class.method`)."""
    out: list[tuple[str, int]] = []
    stack: list[tuple[int, str]] = []
    first = _DEF_LINE.match(text[:text.find("\n")] if "\n" in text else text)
    number, counted = 1, 0  # the line number of offset `counted`
    for m in ([first] if first is not None else []) + list(_DEF_AFTER_NEWLINE.finditer(text)):
        at = m.start("indent")
        number += text.count("\n", counted, at)
        counted = at
        indent = len(m.group("indent").expandtabs(4))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        name = m.group("name")
        out.append((".".join([n for _, n in stack] + [name]), number))
        if m.group("kw") in _CONTAINER_KW:
            stack.append((indent, name))
    return out


def code_words(repo_files: RepoFiles, docs: set[str], cache: Path | None = None,
               handed: Handed | None = None) -> CodeWords:
    """The words and definitions of the readable files; with `cache`, unchanged files are not read.
    `handed`: files another process reads (`handed_out`), and the call that waits for its answer."""
    paths = readable(repo_files, docs)
    prefix = repo_files.root.rstrip("/") + "/"
    if cache is not None:
        try:
            db = _open(cache)
            try:
                with db:
                    db.execute("BEGIN IMMEDIATE")  # one writer at a time: the counts stay true
                    tables = _update(db, prefix, paths, repo_files.stats, handed)
                sqlitefile.settle_wal(db, cache)
                return CodeWords(db, tables)
            except BaseException:
                db.close()
                raise
        except (sqlite3.Error, OSError, UnicodeError, ValueError, TypeError):
            pass  # not usable (or damaged): the tables are built in memory for this run
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.executescript(_TABLES)
    return CodeWords(db, _update(db, prefix, paths, repo_files.stats, handed))


def _open(cache: Path) -> sqlite3.Connection:
    if cachefile.is_tracked(cache):  # a committed cache is never read (nor written)
        raise sqlite3.OperationalError(f"{cache} is tracked by git")
    db = write_gate.connect_sqlite(cache, timeout=30, isolation_level=None, check_same_thread=False)
    try:
        # Derived data: a commit need not reach the disk before the hook ends (WAL keeps the
        # file whole on a crash; at worst the last update is made again).
        sqlitefile.tune(db)
        if db.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA:
            db.executescript("DROP TABLE IF EXISTS words; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS vocab; "
                             "DROP TABLE IF EXISTS declared; "
                             f"DROP TABLE IF EXISTS defs; PRAGMA user_version = {_SCHEMA};")
        db.executescript(_TABLES)
    except BaseException:
        db.close()
        raise
    return db


def _update(db: sqlite3.Connection, prefix: str, paths: list[str], stats: Mapping[str, tuple[int, int]],
            handed: Handed | None = None) -> Tables | None:
    """Bring the tables in line with the files now: read the new and changed ones, forget the gone
    ones. `stats`: (size, mtime_ns) by path, as the gate's scan found them (others are stat'ed).
    Built from nothing (a first run), the tables are also answered whole, from memory. `handed`:
    the files another process read, taken from its answer after the others are read here."""
    known = {_path(p): (int(s), int(m), d) for p, s, m, d in db.execute("SELECT path, size, mtime, digest FROM files")}
    recent = time.time_ns() - _RACY_NS
    fresh: dict[str, Entry] = {}
    reread: set[str] = set()
    restat: list[tuple[int, int, bytes]] = []  # files touched but not changed: only their stat is new
    away = handed[0] if handed is not None else frozenset()
    later: list[tuple[str, tuple[int, int], tuple[int, int, str] | None]] = []
    for path in paths:
        now = stats.get(path)
        if now is None:
            try:
                st = os.stat(prefix + path)
            except OSError:
                continue
            now = (st.st_size, st.st_mtime_ns)
        stat = known.get(path)
        if stat is not None and stat[:2] == now and now[1] < recent:
            continue
        mtime = now[1] if now[1] < recent else -1
        if path in away:
            fresh[path] = (0, 0, None, "", "", "")  # its place, filled below
            later.append((path, now, stat))
            continue
        data = _read(prefix + path)
        digest = content_hash(data) if data is not None else None
        if digest is not None and stat is not None and stat[2] == digest:
            restat.append((now[0], mtime, _blob(path)))  # rewritten as it was (a checkout, a stash)
            continue
        reread.add(path)
        if data is not None and digest is not None:
            fresh[path] = _entry(path, data, now[0], mtime, digest)
    answer = handed[1]() if handed is not None and later else {}
    for path, now, stat in later:
        got = answer[path] if path in answer else contents(prefix, [path])[path]  # missing: read here
        mtime = now[1] if now[1] < recent else -1
        if got is not None and stat is not None and stat[2] == got[0]:
            del fresh[path]
            restat.append((now[0], mtime, _blob(path)))
            continue
        reread.add(path)
        if got is None:
            del fresh[path]
        else:
            fresh[path] = (now[0], mtime, got[1], got[2], got[0], got[3])
    if restat:
        db.executemany("UPDATE files SET size = ?, mtime = ? WHERE path = ?", restat)
    listed = set(paths)
    gone = [p for p in known if p in reread or p not in listed]
    if not gone and not fresh:
        return None
    counts: Counter[str] = Counter()
    declares: Counter[str] = Counter()
    for path in gone:
        row = db.execute("SELECT words, decl FROM files WHERE path = ?", (_blob(path),)).fetchone()
        if row is not None and row[0]:
            counts.subtract(row[0].split("\n"))
        if row is not None and row[1]:
            declares.subtract(row[1].split("\n"))
    for entry in fresh.values():
        if entry[2]:
            counts.update(entry[2].split("\n"))
        if entry[5]:
            declares.update(entry[5].split("\n"))
    if gone:
        db.executemany("DELETE FROM files WHERE path = ?", [(_blob(p),) for p in gone])
        db.execute("CREATE TEMP TABLE IF NOT EXISTS gone(path BLOB PRIMARY KEY)")
        db.execute("DELETE FROM gone")
        db.executemany("INSERT OR IGNORE INTO gone VALUES (?)", [(_blob(p),) for p in gone])
        db.execute("DELETE FROM defs WHERE path IN (SELECT path FROM gone)")  # one pass, no second index to keep
    db.executemany("INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?)", [(_blob(p), *e) for p, e in fresh.items()])
    for table, counted in (("vocab", counts), ("declared", declares)):
        db.executemany(f"INSERT INTO {table} VALUES (?, ?) ON CONFLICT(word) DO UPDATE SET n = n + excluded.n",
                       sorted((w, n) for w, n in counted.items() if n))  # in key order: a B-tree filled left to right
        if any(n < 0 for n in counted.values()):
            db.execute(f"DELETE FROM {table} WHERE n <= 0")
    rows = sorted(row for p, e in fresh.items() if file_ext(p) in CODE_EXTS for row in _def_rows(p, e[3]))
    db.executemany("INSERT OR IGNORE INTO defs VALUES (?, ?, ?, ?, ?)", rows)
    if known:
        return None
    defs: dict[str, list[tuple[bytes, str, int]]] = {}
    for name, _last, key, qual, line in dict.fromkeys(rows):  # (as the table keeps them: no duplicate)
        defs.setdefault(name, []).append((key, qual, line))
    named = {_blob(p): p for p in fresh}  # each row's path, decoded once (`_path(_blob(p)) == p`)
    return ({w for w, n in counts.items() if n > 0},
            {name: [(named[k], q, n) for k, q, n in sorted(found)] for name, found in defs.items()},
            {w for w, n in declares.items() if n > 0})


def _def_rows(path: str, defs: str) -> Iterable[tuple[str, int, bytes, str, int]]:
    """A definition is found by its last part (`last` = 1) and, when nested, by its qualified name."""
    key = _blob(path)
    for line in defs.split("\n") if defs else ():
        qual, _, n = line.partition("\t")
        yield qual.rsplit(".", 1)[-1], 1, key, qual, int(n)
        if "." in qual:
            yield qual, 0, key, qual, int(n)


def _blob(path: str) -> bytes:
    """A path as stored: its bytes (a file name need not be UTF-8)."""
    return path.encode("utf-8", "surrogateescape")


def _path(blob: bytes) -> str:
    return bytes(blob).decode("utf-8", "surrogateescape")


def handed_out(repo_files: RepoFiles, docs: set[str], cache: Path | None) -> list[str]:
    """The readable files a first run (no `cache` file yet) hands another process (`contents`):
    `HANDED_SHARE` of them by size, as the gate's scan measured them, from the end of the list
    (that process reads the docs' references too, beside the history's `git log`)."""
    if cache is not None and cache.exists():
        return []
    paths = readable(repo_files, docs)
    sizes = [repo_files.stats.get(p, (0, 0))[0] for p in paths]
    share, taken = sum(sizes) * HANDED_SHARE, 0
    for i in range(len(paths) - 1, -1, -1):
        taken += sizes[i]
        if taken > share:
            return paths[i + 1:]
    return []


def contents(root: str, paths: list[str]) -> dict[str, Content | None]:
    """Each file's digest, words, definitions and declared names as `code_words` keeps them
    (None: unreadable): pure work, done in another process on a first run."""
    prefix = root.rstrip("/") + "/"
    out: dict[str, Content | None] = {}
    for path in paths:
        data = _read(prefix + path)
        out[path] = None if data is None else _content(path, data, content_hash(data))
    return out


def _entry(path: str, data: bytes, size: int, mtime: int, digest: str) -> Entry:
    got = _content(path, data, digest)
    return (size, mtime, got[1], got[2], digest, got[3])


def _content(path: str, data: bytes, digest: str) -> Content:
    if looks_binary(data):
        return (digest, None, "", "")
    text = data.decode("utf-8", "replace")
    words = set(_WORD.findall(text))
    found = "\n".join(sorted(words))
    ext = file_ext(path)
    bound = attached(text) if ext in PYTHON_EXTS else {}  # a method attached under another name: defined there too
    defs = "\n".join([*(f"{q}\t{n}" for q, n in definitions(text)), *(f"{a}\t{n}" for a, (_f, n) in bound.items())])
    if ext in PYTHON_EXTS:
        table = declared(text)
        names = set(table.names) | {"." + a for a in table.attributes} | {"+" + a for a in bound}
    elif ext in SLASH_COMMENTS:  # a C-family language: every word outside comments (read less closely)
        names = set(_WORD.findall(_SLASH_COMMENT.sub(lambda m: m.group(1) or " ", text)))
    else:  # another language: every word; not code (a notebook, data): nothing
        names = words if ext in CODE_EXTS else set()
    return (digest, found, defs, "\n".join(sorted(names)))


def _read(full: str) -> bytes | None:
    try:
        with open(full, "rb") as fh:
            return fh.read(TEXT_LIMIT)
    except OSError:
        return None
