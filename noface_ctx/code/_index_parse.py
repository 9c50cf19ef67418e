"""Turning files into index rows: read, hash, parse and count terms, in worker processes for big
(cold) builds."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from noface_ctx._filebytes import content_hash, looks_binary
from noface_ctx._lexical import tokenize
from noface_ctx._state import Memo, memo
from noface_ctx.code._index_store import ChunkRow
from noface_ctx.code.languages import CONTAINER_KINDS
from noface_ctx.code.symbols import parse_source
from noface_ctx.datatypes import CodeChunk, RepoFiles

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

POOL_MIN_FILES = 300  # parse in worker processes from this many files up

Progress = Callable[[int, int], None]


@dataclass(slots=True)
class ParsedFile:
    """A freshly parsed file: its rows and each chunk's term counts."""

    path: str
    hash: str
    size: int
    mtime_ns: int
    language: str | None
    rows: list[ChunkRow]
    terms: list[dict[str, int]]


def hash_file(path: str) -> str:
    """`content_hash` of a file's content ('' when it cannot be read)."""
    try:
        return content_hash(Path(path).read_bytes())
    except OSError:
        return ""


def decode_text(data: bytes) -> str:
    """A file's text: UTF-8 with replacement characters, without a byte-order mark."""
    text = data.decode("utf-8", "replace")
    return text[1:] if text.startswith("\ufeff") else text


def parse_file(root: str, path: str, language: str | None) -> ParsedFile | None:
    """Read, hash, parse and tokenise one file (runs in worker processes too)."""
    full = os.path.join(root, path)
    try:
        st = os.stat(full)
        data = Path(full).read_bytes()
    except OSError:
        return None
    digest = content_hash(data)
    if looks_binary(data):
        return ParsedFile(path, digest, st.st_size, st.st_mtime_ns, language, [], [])
    chunks = parse_source(path, decode_text(data), language)
    rows = [
        ChunkRow(c.symbol, c.kind, c.start_line, c.end_line, c.signature, c.docstring, c.parent, c.references, c.language)
        for c in chunks
    ]
    return ParsedFile(path, digest, st.st_size, st.st_mtime_ns, language, rows, chunk_terms(path, chunks))


def chunk_terms(path: str, chunks: Sequence[CodeChunk]) -> list[dict[str, int]]:
    """BM25 term counts per chunk: path, qualified name (twice) and own text.

    A container (class, impl, ...) counts only its own lines and its members' names, not their
    bodies, so a method's words are not counted twice.
    """
    path_terms = tokenize(path)
    children: dict[int, list[CodeChunk]] = {}
    open_: list[tuple[int, CodeChunk]] = []
    for i, c in enumerate(chunks):
        while open_ and open_[-1][1].end_line < c.start_line:
            open_.pop()
        if c.symbol and open_ and c.parent == open_[-1][1].symbol:
            children.setdefault(open_[-1][0], []).append(c)
        if c.symbol and c.kind in CONTAINER_KINDS:
            open_.append((i, c))
    out = []
    for i, c in enumerate(chunks):
        text = c.text
        kids = children.get(i)
        if kids:
            lines = c.text.split("\n")
            keep = [True] * len(lines)
            for k in kids:
                for ln in range(k.start_line, k.end_line + 1):
                    if 0 <= ln - c.start_line < len(keep):
                        keep[ln - c.start_line] = False
            text = "\n".join(ln for ln, ok in zip(lines, keep, strict=True) if ok)
            text += "\n" + " ".join(k.symbol.rpartition(".")[2] for k in kids)
        counts = term_counts(text)
        for t in path_terms:
            counts[t] = counts.get(t, 0) + 1
        if c.symbol:
            for t in tokenize(c.symbol.replace(".", " ")):
                counts[t] = counts.get(t, 0) + 2
        out.append(counts)
    return out


_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")  # the words `lexical.tokenize` splits
_WORD_TERMS: Memo[str, tuple[str, ...]] = memo("code.word_terms", maxsize=400_000)


def term_counts(text: str) -> dict[str, int]:
    """`Counter(tokenize(text))`, computed once per distinct word: tokenising is per word."""
    out: dict[str, int] = {}
    for word, n in Counter(_WORDS.findall(text)).items():
        terms = _WORD_TERMS.get(word)
        if terms is None:
            terms = _WORD_TERMS.put(word, tuple(tokenize(word)))
        for t in terms:
            out[t] = out.get(t, 0) + n
    return out


def _parse_one(args: tuple[str, str, str | None]) -> ParsedFile | None:
    return parse_file(*args)


def parse_all(
    repo_files: RepoFiles, todo: list[tuple[str, str | None]], progress: Progress | None, *, total: int, done: int
) -> list[ParsedFile]:
    """Parse the (path, language) pairs in `todo`, reporting progress as (done, total) files."""
    out: list[ParsedFile] = []
    if progress:
        progress(done, total)
    jobs = [(repo_files.root, path, lang) for path, lang in todo]
    results: Iterator[ParsedFile | None]
    pool = _pool(len(jobs))
    try:
        results = pool.imap_unordered(_parse_one, jobs, chunksize=16) if pool else map(_parse_one, jobs)
        for n, res in enumerate(results, 1):
            if res is not None:
                out.append(res)
            if progress and (n % 25 == 0 or n == len(jobs)):
                progress(done + n, total)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return out


def _pool(n_jobs: int) -> Pool | None:
    """Worker processes for a big (cold) build; None for small ones or when forking is unsafe.

    Only `fork` is used: `spawn` re-runs the caller's `__main__`, which breaks (and respawns
    forever) under `python -` or `python -c`; and fork is avoided once torch is loaded, since
    forking a process whose thread pools are running can deadlock the child.
    """
    import multiprocessing
    import sys

    workers = min(os.cpu_count() or 1, 4)
    if n_jobs < POOL_MIN_FILES or workers < 2 or os.environ.get("NOFACE_CTX_NO_POOL") or "torch" in sys.modules:
        return None
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    try:
        return multiprocessing.get_context("fork").Pool(workers)
    except (OSError, ValueError, RuntimeError):
        return None
