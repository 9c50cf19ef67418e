"""Every word of the repository's code, and its definitions: what a doc reference is resolved against.

A reference that is any word of a non-doc file (a local variable, an imported library, a key)
is not reported. Reading and splitting every file of a large repository takes seconds, so the
words of each file, and the definitions a regex finds in it (`definitions`: what `check-docs`
uses instead of the tree-sitter index), are kept in a sqlite file (`<cache_dir>/words.sqlite`)
keyed by the file's size and mtime: after a commit or an edit only the changed files are read
again. Files changed in the last two seconds are never cached (an equal stat would not prove an
equal content).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from noface_ctx import cachefile
from noface_ctx.datatypes import RepoFiles
from noface_ctx.filebytes import looks_binary
from noface_ctx.freshness.references import DOC_EXTS, WORD_CATEGORIES, file_ext

TEXT_LIMIT = 4_000_000  # bytes of a file whose words count
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEF_LINE = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?:export|default|public|private|protected|internal|static|final|abstract|async|pub(?:\([^)]*\))?|"
    r"unsafe|extern|inline|virtual|override|open|suspend|const|declare)\s+)*"
    r"(?P<kw>def|class|function\*?|fn|func|struct|enum|trait|interface|type|module|impl|union|object|record)\s+"
    r"(?:\([^)]*\)\s*)?(?:self\.)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)
_CONTAINER_KW = frozenset({"class", "struct", "enum", "trait", "interface", "module", "impl", "union", "object", "record"})
_SCHEMA = 2
_RACY_NS = 2_000_000_000

# path -> (size, mtime_ns, words joined by newlines or None for a binary file, cut at TEXT_LIMIT,
#          definitions as "qualified name<TAB>line" lines)
Entry = tuple[int, int, "str | None", bool, str]


@dataclass(slots=True)
class CodeWords:
    """`code_words`'s answer."""

    words: set[str] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)  # the files all of whose words are in `words`
    definitions: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # path -> (qualified name, line)


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
    line, pos = 1, 0
    for m in _DEF_LINE.finditer(text):
        line, pos = line + text.count("\n", pos, m.start()), m.start()
        indent = len(m.group("indent").expandtabs(4))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        name = m.group("name")
        out.append((".".join([n for _, n in stack] + [name]), line))
        if m.group("kw") in _CONTAINER_KW:
            stack.append((indent, name))
    return out


def code_words(repo_files: RepoFiles, docs: set[str], cache: Path | None = None, *,
               definitions: bool = False) -> CodeWords:
    """Every word of the readable files, the files all of whose words are in it, and (when asked)
    each file's `definitions`; with `cache`, unchanged files are not read."""
    known = _load(cache) if cache is not None else {}
    fresh: dict[str, Entry] = {}
    changed = False
    recent = time.time_ns() - _RACY_NS
    out = CodeWords()
    prefix = repo_files.root.rstrip("/") + "/"
    for path in readable(repo_files, docs):
        full = prefix + path
        try:
            st = os.stat(full)
        except OSError:
            continue
        entry = known.get(path)
        if entry is None or entry[0] != st.st_size or entry[1] != st.st_mtime_ns or st.st_mtime_ns >= recent:
            entry = _entry(full, st.st_size, st.st_mtime_ns)
            if entry is None:
                continue
            changed = True
        if st.st_mtime_ns < recent:
            fresh[path] = entry
        if entry[2] is not None:
            if entry[2]:
                out.words.update(entry[2].split("\n"))
            if not entry[3]:
                out.sources.add(path)
            if definitions and entry[4]:
                out.definitions[path] = [(q, int(n)) for q, _, n in (ln.partition("\t") for ln in entry[4].split("\n"))]
    if cache is not None and (changed or len(fresh) != len(known)):
        _save(cache, fresh)
    return out


def _open(cache: Path) -> sqlite3.Connection:
    if cachefile.is_tracked(cache):  # a committed cache is never read (nor written)
        raise sqlite3.OperationalError(f"{cache} is tracked by git")
    db = sqlite3.connect(str(cache), timeout=30)
    if db.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA:
        db.executescript(f"DROP TABLE IF EXISTS words; PRAGMA user_version = {_SCHEMA};")
    db.execute("CREATE TABLE IF NOT EXISTS words(path TEXT PRIMARY KEY, size INTEGER, mtime INTEGER, "
               "words TEXT, truncated INTEGER, defs TEXT)")
    return db


def _load(cache: Path) -> dict[str, Entry]:
    try:
        db = _open(cache)
        try:
            rows = db.execute("SELECT path, size, mtime, words, truncated, defs FROM words").fetchall()
        finally:
            db.close()
    except (sqlite3.Error, OSError, UnicodeError):
        return {}
    return {p: (int(size), int(mtime), w, bool(t), d or "") for p, size, mtime, w, t, d in rows}


def _save(cache: Path, entries: dict[str, Entry]) -> None:
    try:
        db = _open(cache)
        try:
            with db:
                db.execute("DELETE FROM words")
                db.executemany("INSERT INTO words VALUES (?, ?, ?, ?, ?, ?)",
                               [(p, e[0], e[1], e[2], int(e[3]), e[4]) for p, e in entries.items()])
        finally:
            db.close()
    except (sqlite3.Error, OSError, UnicodeError):
        pass  # not writable or busy: the words are read again next time


def _entry(full: str, size: int, mtime: int) -> Entry | None:
    data = _read(full)
    if data is None:
        return None
    if looks_binary(data):
        return (size, mtime, None, False, "")
    text = data.decode("utf-8", "replace")
    found = "\n".join(sorted(set(_WORD.findall(text))))
    defs = "\n".join(f"{q}\t{n}" for q, n in definitions(text))
    return (size, mtime, found, len(data) >= TEXT_LIMIT, defs)


def _read(full: str) -> bytes | None:
    try:
        with open(full, "rb") as fh:
            return fh.read(TEXT_LIMIT)
    except OSError:
        return None
