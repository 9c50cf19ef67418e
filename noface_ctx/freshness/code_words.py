"""Every word of the repository's code: what a doc reference is resolved against.

A reference that is any word of a non-doc file (a local variable, an imported library, a key)
is not reported. Reading and splitting every file of a large repository takes seconds, so the
words of each file are kept in a sqlite file (`<cache_dir>/words.sqlite`) keyed by the file's
size and mtime: after a commit or an edit only the changed files are read again. Files changed
in the last two seconds are never cached (an equal stat would not prove an equal content).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from pathlib import Path

from noface_ctx import cachefile
from noface_ctx.datatypes import RepoFiles
from noface_ctx.filebytes import looks_binary
from noface_ctx.freshness.references import DOC_EXTS, WORD_CATEGORIES, file_ext

TEXT_LIMIT = 4_000_000  # bytes of a file whose words count
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SCHEMA = 1
_RACY_NS = 2_000_000_000

# path -> (size, mtime_ns, words joined by newlines or None for a binary file, cut at TEXT_LIMIT)
Entry = tuple[int, int, "str | None", bool]


def readable(repo_files: RepoFiles, docs: set[str]) -> list[str]:
    """Every non-doc file, including code kept out of prompts only for its size."""
    paths = [f.path for f in repo_files.files if f.kind != "doc"]
    paths += [e.path for e in repo_files.excluded if e.category in WORD_CATEGORIES]
    return [p for p in paths if p not in docs and file_ext(p) not in DOC_EXTS]


def code_texts(repo_files: RepoFiles, docs: set[str], truncated: set[str] | None = None) -> dict[str, str]:
    """Text of every readable file that is not binary; paths cut at `TEXT_LIMIT` go to `truncated`."""
    truncated = set() if truncated is None else truncated
    texts = {}
    for path in readable(repo_files, docs):
        data = _read(repo_files.abspath(path))
        if data is not None and not looks_binary(data):
            texts[path] = data.decode("utf-8", "replace")
            if len(data) >= TEXT_LIMIT:
                truncated.add(path)
    return texts


def code_words(repo_files: RepoFiles, docs: set[str], cache: Path | None = None) -> tuple[set[str], set[str]]:
    """(every word of the readable files, the files all of whose words are in it).

    The same answer as splitting `code_texts`; with `cache`, unchanged files are not read.
    """
    known = _load(cache) if cache is not None else {}
    fresh: dict[str, Entry] = {}
    changed = False
    recent = time.time_ns() - _RACY_NS
    words: set[str] = set()
    sources: set[str] = set()
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
                words.update(entry[2].split("\n"))
            if not entry[3]:
                sources.add(path)
    if cache is not None and (changed or len(fresh) != len(known)):
        _save(cache, fresh)
    return words, sources


def _open(cache: Path) -> sqlite3.Connection:
    if cachefile.is_tracked(cache):  # a committed cache is never read (nor written)
        raise sqlite3.OperationalError(f"{cache} is tracked by git")
    db = sqlite3.connect(str(cache), timeout=30)
    if db.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA:
        db.executescript(f"DROP TABLE IF EXISTS words; PRAGMA user_version = {_SCHEMA};")
    db.execute("CREATE TABLE IF NOT EXISTS words(path TEXT PRIMARY KEY, size INTEGER, mtime INTEGER, "
               "words TEXT, truncated INTEGER)")
    return db


def _load(cache: Path) -> dict[str, Entry]:
    try:
        db = _open(cache)
        try:
            rows = db.execute("SELECT path, size, mtime, words, truncated FROM words").fetchall()
        finally:
            db.close()
    except (sqlite3.Error, OSError, UnicodeError):
        return {}
    return {p: (int(size), int(mtime), w, bool(t)) for p, size, mtime, w, t in rows}


def _save(cache: Path, entries: dict[str, Entry]) -> None:
    try:
        db = _open(cache)
        try:
            with db:
                db.execute("DELETE FROM words")
                db.executemany("INSERT INTO words VALUES (?, ?, ?, ?, ?)",
                               [(p, e[0], e[1], e[2], int(e[3])) for p, e in entries.items()])
        finally:
            db.close()
    except (sqlite3.Error, OSError, UnicodeError):
        pass  # not writable or busy: the words are read again next time


def _entry(full: str, size: int, mtime: int) -> Entry | None:
    data = _read(full)
    if data is None:
        return None
    if looks_binary(data):
        return (size, mtime, None, False)
    found = "\n".join(set(_WORD.findall(data.decode("utf-8", "replace"))))
    return (size, mtime, found, len(data) >= TEXT_LIMIT)


def _read(full: str) -> bytes | None:
    try:
        with open(full, "rb") as fh:
            return fh.read(TEXT_LIMIT)
    except OSError:
        return None
