"""The on-disk code index: every definition in the repository, and BM25 over them.

Layout under `cache_dir(config) / "code"`: one cache file (`index.cache`, the JSON + numeric
arrays format of `noface_ctx.cachefile`: never a pickle) holding, per file, its content
hash, stat and parsed chunk rows (without text: text comes from the file), plus the term counts of
every chunk and the BM25 weights built from them. A rebuild re-parses only files whose content
changed (stat first, then hash) and recomputes the weights from the stored counts, so nothing else
is re-tokenised. Writes happen under a file lock into a temp file swapped in with `os.replace`;
an index that cannot be read, fails validation (`_valid`: shapes, ranges, types), is tracked by
git, or was written by another version, is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from noface_ctx import cachefile
from noface_ctx.code.languages import CONTAINER_KINDS, language_for_path, spec_for
from noface_ctx.code.symbols import parse_source
from noface_ctx.config import Config, cache_dir
from noface_ctx.datatypes import CodeChunk, RepoFiles
from noface_ctx.lexical import tokenize

INDEX_VERSION = 6
INDEX_NAME = "index.cache"
LOCK_NAME = "index.lock"
LOCK_TIMEOUT = 120.0
K1, B = 1.2, 0.75
PATH_WEIGHT_FILE = 3  # the path's terms count this many times in a file's own BM25 document
POOL_MIN_FILES = 300  # parse in worker processes from this many files up
_INDEXED_KINDS = ("code", "other")
MAX_SOURCE_BYTES = 2_000_000  # sized-out source files up to this size are still indexed by definition

Progress = Callable[[int, int], None]

# One chunk row, stored without path or text:
# (symbol, kind, start_line, end_line, signature, docstring, parent, references, language)
Row = tuple
# Stored columns: what ranking touches for every chunk is loaded eagerly; signatures,
# docstrings and references live in one UTF-8 JSON byte range per file (one uint8 array for all), decoded when that file is used.


@dataclass(slots=True)
class _FileRec:
    hash: str
    size: int
    mtime_ns: int
    language: str | None
    lo: int  # first chunk id
    hi: int  # one past the last chunk id


@dataclass(slots=True)
class _Parsed:
    """A freshly parsed file: its rows and each chunk's term counts."""

    path: str
    hash: str
    size: int
    mtime_ns: int
    language: str | None
    rows: list[Row]
    terms: list[dict[str, int]]


class CodeIndex:
    """Definitions and BM25 for one repository. Build with `CodeIndex.build`."""

    def __init__(self, root: str, data: dict, stats: dict) -> None:
        self.root = root
        self.stats = stats
        self._files: dict[str, _FileRec] = {p: _FileRec(*rec) for p, rec in data["files"].items()}
        self._symbols: list[str] = data["symbols"]
        self._kinds: list[str] = data["kinds"]
        self._parents: list[str] = data["parents"]
        self._lines: np.ndarray = data["lines"]
        self._details_blob: np.ndarray = data["details"]["blob"]  # UTF-8 JSON per file, in file order
        self._details_offsets: np.ndarray = data["details"]["offsets"]
        self._details: dict[str, list[tuple]] = {}
        self._file_pos: dict[str, int] | None = None
        self._vocab: list[str] = data["vocab"]
        self._bm25 = data["bm25"]
        self._file_bm25 = data["file_bm25"]
        self._file_order: list[str] = data["file_order"]
        self._term_ids: dict[str, int] | None = None
        self._by_name: dict[str, list[int]] | None = None
        self._symbol_names: frozenset[str] | None = None
        self._callers: dict[str, list[int]] | None = None
        self._chunk_file: np.ndarray | None = None
        self._text_cache: dict[str, str] = {}
        self._lines_cache: dict[str, list[str]] = {}
        self.memo: dict[str, object] = {}  # values derived from this index by its users (rank_code)
        self._data = data

    # ------------------------------------------------------------------ building

    @classmethod
    def build(cls, repo_files: RepoFiles, config: Config, *, progress: Progress | None = None) -> CodeIndex:
        """Load the index for `repo_files`, re-parsing only files whose content changed."""
        t0 = time.perf_counter()
        where = _index_dir(config)
        old, why = _load(where)
        wanted = _indexable(repo_files, config)
        plan = _plan(repo_files, wanted, old)
        if plan.unchanged and old is not None:
            stats = _stats(len(wanted), 0, len(wanted), old, t0, why, saved=False)
            return cls(repo_files.root, old, stats)
        lock, locked = _lock(where), False
        if lock is not None:
            try:
                lock.acquire(timeout=LOCK_TIMEOUT)
                locked = True
            except Exception:  # filelock.Timeout, or a lock file we cannot create
                why = (why + "; " if why else "") + "index lock unavailable, built in memory"
        try:
            if locked:  # another process may have built while we waited: look again
                newer, _ = _load(where)
                if newer is not None:
                    old, plan = newer, _plan(repo_files, wanted, newer)
                    if plan.unchanged:
                        return cls(repo_files.root, old, _stats(len(wanted), 0, len(wanted), old, t0, why, saved=False))
            parsed = _parse_all(repo_files, plan.to_parse, progress, total=len(wanted), done=len(plan.reuse))
            data = _assemble(old, plan.reuse, parsed)
            saved = _save(where, data) if locked and where is not None else False
        finally:
            if locked:
                lock.release()
        stats = _stats(len(wanted), len(parsed), len(plan.reuse), data, t0, why, saved=saved)
        return cls(repo_files.root, data, stats)

    # ------------------------------------------------------------------ lookups

    def paths(self) -> tuple[str, ...]:
        """Indexed files, sorted."""
        return tuple(self._file_order)

    def __len__(self) -> int:
        return len(self._symbols)

    def chunks_for(self, path: str) -> tuple[CodeChunk, ...]:
        """Every chunk of one file (definitions and blocks, or windows), in line order."""
        rec = self._files.get(path)
        if rec is None:
            return ()
        lines = self.file_lines(path)
        return tuple(self._chunk(i, path, lines) for i in range(rec.lo, rec.hi))

    def all_chunks(self) -> Iterator[CodeChunk]:
        for path in self._file_order:
            yield from self.chunks_for(path)

    def chunk(self, chunk_id: int) -> CodeChunk:
        """One chunk by id (ids are positions in the index, stable until the next rebuild)."""
        path = self.path_of(chunk_id)
        return self._chunk(chunk_id, path, self.file_lines(path))

    def path_of(self, chunk_id: int) -> str:
        return self._file_order[int(self.chunk_files()[chunk_id])]

    def row(self, chunk_id: int) -> Row:
        """(symbol, kind, start, end, signature, docstring, parent, references, language)."""
        path = self.path_of(chunk_id)
        sig, doc, refs, lang = self._detail(path)[chunk_id - self._files[path].lo]
        start, end = self._lines[chunk_id]
        return (self._symbols[chunk_id], self._kinds[chunk_id], int(start), int(end), sig, doc, self._parents[chunk_id], refs, lang)

    def symbol(self, chunk_id: int) -> str:
        return self._symbols[chunk_id]

    def kind(self, chunk_id: int) -> str:
        return self._kinds[chunk_id]

    def parent(self, chunk_id: int) -> str:
        return self._parents[chunk_id]

    def lines(self, chunk_id: int) -> tuple[int, int]:
        start, end = self._lines[chunk_id]
        return int(start), int(end)

    def symbols(self) -> list[str]:
        """Qualified symbol of every chunk id ('' for blocks and windows)."""
        return self._symbols

    def kinds(self) -> list[str]:
        return self._kinds

    def line_spans(self) -> np.ndarray:
        """(n_chunks, 2) array of start and end lines."""
        return self._lines

    def chunk_ids(self, path: str) -> range:
        rec = self._files.get(path)
        return range(rec.lo, rec.hi) if rec else range(0)

    def chunk_files(self) -> np.ndarray:
        """File number (position in `paths()`) of every chunk id."""
        if self._chunk_file is None:
            counts = [self._files[p].hi - self._files[p].lo for p in self._file_order]
            self._chunk_file = np.repeat(np.arange(len(self._file_order), dtype=np.int32), counts)
        return self._chunk_file

    def find_symbol(self, name: str) -> list[CodeChunk]:
        """Definitions named `name`: bare (`get_user`), qualified (`User.get`) or `path::Qualified`."""
        path, _, symbol = name.rpartition("::")
        ids = self.symbol_ids(symbol)
        if path:
            ids = [i for i in ids if self.path_of(i) == path]
        return [self.chunk(i) for i in ids]

    def symbol_ids(self, name: str) -> list[int]:
        """Chunk ids whose qualified name, or its last part, is `name` (or ends with `.name`)."""
        name = name.strip().replace("::", ".")
        if not name:
            return []
        by_name = self._names()
        if "." not in name:
            return list(by_name.get(name, ()))
        last = name.rpartition(".")[2]
        return [i for i in by_name.get(last, ()) if (s := self._symbols[i]) == name or s.endswith("." + name)]

    def has_symbol(self, name: str) -> bool:
        return bool(self.symbol_ids(name.rpartition("::")[2]))

    def symbol_names(self) -> frozenset[str]:
        """Every qualified name and every bare (last-part) name."""
        if self._symbol_names is None:
            self._symbol_names = frozenset(self._names()) | frozenset(s for s in self._symbols if s)
        return self._symbol_names

    def callers_of(self, name: str) -> list[int]:
        """Chunk ids whose references include the bare name `name`."""
        if self._callers is None:
            callers: dict[str, list[int]] = {}
            for path in self._file_order:
                lo = self._files[path].lo
                for offset, detail in enumerate(self._detail(path)):
                    for ref in detail[2]:
                        callers.setdefault(ref, []).append(lo + offset)
            self._callers = callers
        return self._callers.get(name.rpartition(".")[2], [])

    def file_text(self, path: str) -> str:
        """The current text of an indexed (or any repo) file; '' when it cannot be read."""
        cached = self._text_cache.get(path)
        if cached is None:
            try:
                cached = _decode(Path(self.root, path).read_bytes())
            except OSError:
                cached = ""
            if len(self._text_cache) > 256:
                self._text_cache.clear()
            self._text_cache[path] = cached
        return cached

    def file_lines(self, path: str) -> list[str]:
        """`file_text(path)` split on newlines (shared: do not modify the list)."""
        got = self._lines_cache.get(path)
        if got is None:
            if len(self._lines_cache) > 256:
                self._lines_cache.clear()
            got = self._lines_cache[path] = self.file_text(path).split("\n")
        return got

    def language_of(self, path: str) -> str | None:
        rec = self._files.get(path)
        return rec.language if rec else None

    # ------------------------------------------------------------------ BM25

    def term_ids(self, terms: Sequence[str]) -> list[int]:
        if self._term_ids is None:
            self._term_ids = {t: i for i, t in enumerate(self._vocab)}
        ids = self._term_ids
        return [ids[t] for t in dict.fromkeys(terms) if t in ids]

    def bm25(self, terms: Sequence[str], *, level: str = "chunk", weights: dict[str, float] | None = None) -> np.ndarray:
        """BM25 of every chunk (`level="chunk"`) or file (`"file"`, in `paths()` order)."""
        m = self._bm25 if level == "chunk" else self._file_bm25
        scores = np.zeros(m["n"], dtype=np.float32)
        indptr, rows, w = m["indptr"], m["rows"], m["weights"]
        for term in dict.fromkeys(terms):
            tid = self.term_ids([term])
            if not tid:
                continue
            s, e = indptr[tid[0]], indptr[tid[0] + 1]
            scale = weights.get(term, 1.0) if weights else 1.0
            scores[rows[s:e]] += w[s:e] * scale
        return scores

    # ------------------------------------------------------------------ internals

    def _names(self) -> dict[str, list[int]]:
        if self._by_name is None:
            by_name: dict[str, list[int]] = {}
            for i, s in enumerate(self._symbols):
                if s:
                    by_name.setdefault(s.rpartition(".")[2], []).append(i)
            self._by_name = by_name
        return self._by_name

    def _detail(self, path: str) -> list[tuple]:
        got = self._details.get(path)
        if got is None:
            if self._file_pos is None:
                self._file_pos = {p: i for i, p in enumerate(self._file_order)}
            got = _details(_detail_bytes(self._data, self._file_pos[path]), self._files[path].hi - self._files[path].lo)
            self._details[path] = got
        return got

    def _chunk(self, i: int, path: str, lines: list[str]) -> CodeChunk:
        symbol, kind, start, end, signature, docstring, parent, refs, language = self.row(i)
        return CodeChunk(
            path=path,
            symbol=symbol,
            kind=kind,
            start_line=start,
            end_line=end,
            signature=signature,
            docstring=docstring,
            text="\n".join(lines[start - 1 : end]),
            parent=parent,
            references=refs,
            language=language,
        )


# --------------------------------------------------------------------------- planning


@dataclass(slots=True)
class _Plan:
    reuse: dict[str, _FileRec]  # path -> old record (stat refreshed)
    to_parse: list[tuple[str, str | None]]  # (path, language)
    unchanged: bool


def _indexable(repo_files: RepoFiles, config: Config) -> list[tuple[str, str | None]]:
    """Code and other text files, plus source files kept out only for their size: their
    definitions are served one at a time, never the whole file."""
    out = []
    for f in repo_files.files:
        if f.kind in _INDEXED_KINDS:
            lang = f.language if spec_for(f.language) else language_for_path(f.path)
            out.append((f.path, lang))
    for e in repo_files.excluded:
        if is_sized_out_source(repo_files, e.path, config):
            out.append((e.path, language_for_path(e.path)))
    return sorted(out)


def is_sized_out_source(repo_files: RepoFiles, path: str, config: Config | None = None) -> bool:
    """True for a file with a grammar that `files.py` excluded only for exceeding max_file_size_kb
    (and, given `config`, only while `[context] split_large_sources` is on): it is indexed and
    may give single definitions, never its whole text."""
    if config is not None and not config.context.split_large_sources:
        return False
    ex = repo_files.exclusion(path)
    if ex is None or ex.category != "size" or language_for_path(path) is None:
        return False
    try:
        return os.path.getsize(repo_files.abspath(path)) <= MAX_SOURCE_BYTES
    except OSError:
        return False


def _plan(repo_files: RepoFiles, wanted: list[tuple[str, str | None]], old: dict | None) -> _Plan:
    """Which files keep their parse (same stat, or same content hash) and which need one."""
    old_files = old["files"] if old is not None else {}
    reuse: dict[str, _FileRec] = {}
    to_parse: list[tuple[str, str | None]] = []
    changed = old is None or len(old_files) != len(wanted)
    for path, lang in wanted:
        rec = old_files.get(path)
        try:
            st = os.stat(repo_files.abspath(path))
        except OSError:
            changed = True
            continue
        if rec is not None and rec[3] == lang:
            if rec[1] == st.st_size and rec[2] == st.st_mtime_ns:
                reuse[path] = _FileRec(*rec)
                continue
            digest = _hash_file(repo_files.abspath(path))
            if digest == rec[0]:
                reuse[path] = _FileRec(rec[0], st.st_size, st.st_mtime_ns, lang, rec[4], rec[5])
                changed = True  # stat refreshed, worth saving
                continue
        to_parse.append((path, lang))
        changed = True
    return _Plan(reuse, to_parse, unchanged=not changed)


def _hash_bytes(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _hash_file(path: str) -> str:
    try:
        return _hash_bytes(Path(path).read_bytes())
    except OSError:
        return ""


def _decode(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return text[1:] if text.startswith("\ufeff") else text


# --------------------------------------------------------------------------- parsing


def parse_file(root: str, path: str, language: str | None) -> _Parsed | None:
    """Read, hash, parse and tokenise one file (runs in worker processes too)."""
    full = os.path.join(root, path)
    try:
        st = os.stat(full)
        data = Path(full).read_bytes()
    except OSError:
        return None
    digest = _hash_bytes(data)
    if b"\0" in data[:8192]:
        return _Parsed(path, digest, st.st_size, st.st_mtime_ns, language, [], [])
    chunks = parse_source(path, _decode(data), language)
    rows = [
        (c.symbol, c.kind, c.start_line, c.end_line, c.signature, c.docstring, c.parent, c.references, c.language)
        for c in chunks
    ]
    return _Parsed(path, digest, st.st_size, st.st_mtime_ns, language, rows, chunk_terms(path, chunks))


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
            text = "\n".join(ln for ln, ok in zip(lines, keep) if ok)
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
_WORD_TERMS: dict[str, tuple[str, ...]] = {}


def term_counts(text: str) -> dict[str, int]:
    """`Counter(tokenize(text))`, computed once per distinct word: tokenising is per word."""
    out: dict[str, int] = {}
    cache = _WORD_TERMS
    if len(cache) > 400_000:
        cache.clear()
    for word, n in Counter(_WORDS.findall(text)).items():
        terms = cache.get(word)
        if terms is None:
            terms = cache[word] = tuple(tokenize(word))
        for t in terms:
            out[t] = out.get(t, 0) + n
    return out


def _parse_one(args: tuple[str, str, str | None]) -> _Parsed | None:
    return parse_file(*args)


def _parse_all(
    repo_files: RepoFiles, todo: list[tuple[str, str | None]], progress: Progress | None, *, total: int, done: int
) -> list[_Parsed]:
    out: list[_Parsed] = []
    if progress:
        progress(done, total)
    jobs = [(repo_files.root, path, lang) for path, lang in todo]
    results: Iterator[_Parsed | None]
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


def _pool(n_jobs: int):
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


# --------------------------------------------------------------------------- assembling BM25


class _Tables:
    """The chunk table and term counts being assembled, file by file, in path order."""

    def __init__(self, old: dict | None) -> None:
        self.old = old
        self.term_id = {t: i for i, t in enumerate(old["vocab"])} if old is not None else {}
        self.symbols: list[str] = []
        self.kinds: list[str] = []
        self.parents: list[str] = []
        self.spans: list[np.ndarray] = []
        self.details: dict[str, bytes] = {}
        self.old_pos = {p: i for i, p in enumerate(old["file_order"])} if old is not None else {}
        self.files: dict[str, tuple] = {}
        self.terms: list[np.ndarray] = []
        self.counts: list[np.ndarray] = []
        self.lengths: list[np.ndarray] = []

    def add_new(self, p: _Parsed) -> None:
        lo = len(self.symbols)
        self.symbols.extend(r[0] for r in p.rows)
        self.kinds.extend(r[1] for r in p.rows)
        self.parents.extend(r[6] for r in p.rows)
        self.spans.append(np.array([(r[2], r[3]) for r in p.rows], dtype=np.int32).reshape(-1, 2))
        self.details[p.path] = json.dumps([(r[4], r[5], r[7], r[8]) for r in p.rows], ensure_ascii=False).encode(
            "utf-8", "surrogatepass")
        term_id = self.term_id
        for tc in p.terms:
            self.terms.append(np.fromiter((term_id.setdefault(t, len(term_id)) for t in tc), dtype=np.int32, count=len(tc)))
            self.counts.append(np.fromiter(tc.values(), dtype=np.float32, count=len(tc)))
            self.lengths.append(np.array([len(tc)], dtype=np.int64))
        self.files[p.path] = (p.hash, p.size, p.mtime_ns, p.language, lo, len(self.symbols))

    def add_reused(self, path: str, rec: _FileRec) -> None:
        old = self.old
        assert old is not None
        lo = len(self.symbols)
        self.symbols.extend(old["symbols"][rec.lo : rec.hi])
        self.kinds.extend(old["kinds"][rec.lo : rec.hi])
        self.parents.extend(old["parents"][rec.lo : rec.hi])
        self.spans.append(old["lines"][rec.lo : rec.hi])
        self.details[path] = _detail_bytes(old, self.old_pos[path])
        indptr = old["tf"]["indptr"]
        s, e = indptr[rec.lo], indptr[rec.hi]
        self.terms.append(old["tf"]["terms"][s:e])
        self.counts.append(old["tf"]["counts"][s:e])
        self.lengths.append(np.diff(indptr[rec.lo : rec.hi + 1]))
        self.files[path] = (rec.hash, rec.size, rec.mtime_ns, rec.language, lo, len(self.symbols))


def _assemble(old: dict | None, reuse: dict[str, _FileRec], parsed: list[_Parsed]) -> dict:
    """Concatenate kept and new per-file results into one chunk table and rebuild BM25 weights."""
    new_by_path = {p.path: p for p in parsed}
    order = sorted(set(reuse) | set(new_by_path))
    t = _Tables(old)
    for path in order:
        if path in new_by_path:
            t.add_new(new_by_path[path])
        else:
            t.add_reused(path, reuse[path])
    vocab = [""] * len(t.term_id)
    for term, i in t.term_id.items():
        vocab[i] = term
    terms = np.concatenate(t.terms) if t.terms else np.zeros(0, np.int32)
    counts = np.concatenate(t.counts) if t.counts else np.zeros(0, np.float32)
    indptr = np.zeros(len(t.symbols) + 1, dtype=np.int64)
    if t.lengths:
        np.cumsum(np.concatenate(t.lengths), out=indptr[1:])
    terms, vocab = _compact_vocab(terms, vocab)
    chunk_files = np.repeat(np.arange(len(order), dtype=np.int32), [t.files[p][5] - t.files[p][4] for p in order])
    return {
        "version": INDEX_VERSION,
        "files": t.files,
        "file_order": order,
        "symbols": t.symbols,
        "kinds": t.kinds,
        "parents": t.parents,
        "lines": np.concatenate(t.spans) if t.spans else np.zeros((0, 2), np.int32),
        "details": _pack_details([t.details[p] for p in order]),
        "vocab": vocab,
        "tf": {"indptr": indptr, "terms": terms, "counts": counts},
        "bm25": _bm25_matrix(indptr, terms, counts, len(vocab)),
        "file_bm25": _file_matrix(indptr, terms, counts, chunk_files, order, vocab),
    }


def _compact_vocab(terms: np.ndarray, vocab: list[str]) -> tuple[np.ndarray, list[str]]:
    """Drop terms no chunk uses any more (they pile up as files change)."""
    if not len(vocab):
        return terms, vocab
    used = np.zeros(len(vocab), dtype=bool)
    used[terms] = True
    if used.all():
        return terms, vocab
    new_id = np.cumsum(used) - 1
    return new_id[terms].astype(np.int32), [t for t, u in zip(vocab, used) if u]


def _bm25_matrix(indptr: np.ndarray, terms: np.ndarray, counts: np.ndarray, n_terms: int) -> dict:
    """BM25 weight of every (document, term) pair, grouped by term for fast queries."""
    n_docs = len(indptr) - 1
    doc_of = np.repeat(np.arange(n_docs, dtype=np.int32), np.diff(indptr))
    doc_len = np.zeros(n_docs, dtype=np.float64)
    np.add.at(doc_len, doc_of, counts)
    avgdl = float(doc_len.mean()) if n_docs else 1.0
    df = np.bincount(terms, minlength=n_terms).astype(np.float64)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    norm = K1 * (1 - B + B * doc_len[doc_of] / max(avgdl, 1e-9))
    weights = (idf[terms] * counts * (K1 + 1) / (counts + norm)).astype(np.float32)
    order = np.argsort(terms, kind="stable")
    by_term = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=n_terms), out=by_term[1:])
    return {"n": n_docs, "indptr": by_term, "rows": doc_of[order], "weights": weights[order]}


def _file_matrix(
    indptr: np.ndarray, terms: np.ndarray, counts: np.ndarray, chunk_files: np.ndarray, order: list[str], vocab: list[str]
) -> dict:
    """BM25 over whole files: their chunks' counts summed, plus the path's terms."""
    n_terms = len(vocab)
    doc_of = chunk_files[np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))] if len(terms) else np.zeros(0, np.int64)
    term_id = None
    extra_docs: list[int] = []
    extra_terms: list[int] = []
    for f, path in enumerate(order):
        for t in set(tokenize(path)):
            if term_id is None:
                term_id = {v: i for i, v in enumerate(vocab)}
            tid = term_id.get(t)
            if tid is not None:
                extra_docs.append(f)
                extra_terms.append(tid)
    keys = np.concatenate([doc_of.astype(np.int64) * n_terms + terms, np.asarray(extra_docs, np.int64) * n_terms + np.asarray(extra_terms, np.int64)])
    vals = np.concatenate([counts, np.full(len(extra_docs), float(PATH_WEIGHT_FILE), np.float32)])
    if not len(keys):
        return {"n": len(order), "indptr": np.zeros(n_terms + 1, np.int64), "rows": np.zeros(0, np.int32), "weights": np.zeros(0, np.float32)}
    uniq, inverse = np.unique(keys, return_inverse=True)
    summed = np.zeros(len(uniq), dtype=np.float32)
    np.add.at(summed, inverse, vals)
    f_of = (uniq // n_terms).astype(np.int32)
    t_of = (uniq % n_terms).astype(np.int32)
    f_indptr = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(np.bincount(f_of, minlength=len(order)), out=f_indptr[1:])
    # keys are sorted by file then term, so (f_of, t_of) is already a CSR by file
    return _bm25_matrix(f_indptr, t_of, summed, n_terms)


# --------------------------------------------------------------------------- storage


def _index_dir(config: Config) -> Path | None:
    try:
        where = cache_dir(config) / "code"
        where.mkdir(parents=True, exist_ok=True)
        return where
    except OSError:
        return None


def _load(where: Path | None) -> tuple[dict | None, str]:
    """The stored index, or None with the reason it cannot be used."""
    if where is None:
        return None, "no writable cache directory"
    path = where / INDEX_NAME
    if not path.exists():
        return None, ""
    data = cachefile.load(path, INDEX_VERSION)
    if data is None:
        return None, "index unreadable, tracked by git or from another version, rebuilt"
    if not _valid(data):
        return None, "index fails validation, rebuilt"
    return data, ""


_KEYS = frozenset({"files", "file_order", "symbols", "kinds", "parents", "lines", "details", "vocab", "tf", "bm25", "file_bm25"})


def _valid(data: object) -> bool:
    """Every shape, range and type that lookups rely on (so a bad file is rebuilt, never a crash)."""
    try:
        if not isinstance(data, dict) or not _KEYS <= set(data):
            return False
        n = len(data["symbols"])
        order, files, vocab = data["file_order"], data["files"], data["vocab"]
        if not (isinstance(order, list) and isinstance(files, dict) and isinstance(vocab, list)):
            return False
        if set(order) != set(files) or len(data["kinds"]) != n or len(data["parents"]) != n:
            return False
        for lst in (data["symbols"], data["kinds"], data["parents"], vocab, order):
            if not all(type(x) is str for x in lst):
                return False
        for p in order:
            rec = files[p]
            if not (isinstance(rec, tuple) and len(rec) == 6 and 0 <= rec[4] <= rec[5] <= n):
                return False

        lines = data["lines"]
        if not isinstance(lines, np.ndarray) or lines.shape != (n, 2):
            return False
        blob, offsets = data["details"]["blob"], data["details"]["offsets"]
        if blob.dtype != np.uint8 or blob.ndim != 1 or offsets.ndim != 1 or len(offsets) != len(order) + 1:
            return False
        if len(offsets) and (int(offsets[0]) != 0 or int(offsets[-1]) != len(blob) or (np.diff(offsets) < 0).any()):
            return False
        tf = data["tf"]
        indptr, terms, counts = tf["indptr"], tf["terms"], tf["counts"]
        if len(indptr) != n + 1 or len(terms) != len(counts) or (len(indptr) and int(indptr[-1]) != len(terms)):
            return False
        if len(terms) and (int(terms.min()) < 0 or int(terms.max()) >= len(vocab)):
            return False
        for m, rows in ((data["bm25"], n), (data["file_bm25"], len(order))):
            if int(m["n"]) != rows or len(m["indptr"]) != len(vocab) + 1 or len(m["rows"]) != len(m["weights"]):
                return False
            if len(m["indptr"]) and (int(m["indptr"][0]) != 0 or int(m["indptr"][-1]) != len(m["rows"])):
                return False
            if len(m["rows"]) and (int(m["rows"].min()) < 0 or int(m["rows"].max()) >= rows):
                return False
        return True
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return False


def _pack_details(parts: list[bytes]) -> dict:
    """Every file's detail JSON in one byte array, with offsets: nothing to parse at load time."""
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in parts], out=offsets[1:])
    return {"blob": np.frombuffer(b"".join(parts), dtype=np.uint8).copy(), "offsets": offsets}


def _detail_bytes(data: dict, pos: int) -> bytes:
    d = data["details"]
    return d["blob"][int(d["offsets"][pos]) : int(d["offsets"][pos + 1])].tobytes()


def _details(raw: bytes | None, n: int) -> list[tuple]:
    """One file's (signature, docstring, references, language) per chunk, from its JSON string."""
    try:
        got = json.loads(raw) if raw else []
        out = [(str(s), str(d), tuple(str(r) for r in refs), lang if isinstance(lang, str) else None)
               for s, d, refs, lang in got]
    except (ValueError, TypeError, RecursionError):
        out = []
    if len(out) != n:
        out = [("", "", (), None)] * n
    return out


def _save(where: Path, data: dict) -> bool:
    return cachefile.save(where / INDEX_NAME, INDEX_VERSION, data)


def _lock(where: Path | None):
    if where is None:
        return None
    from filelock import FileLock

    return FileLock(str(where / LOCK_NAME))


def _stats(files: int, parsed: int, reused: int, data: dict, t0: float, why: str, *, saved: bool) -> dict:
    return {
        "files": files,
        "parsed": parsed,
        "reused": reused,
        "chunks": len(data["symbols"]),
        "seconds": round(time.perf_counter() - t0, 3),
        "saved": saved,
        "note": why,
    }
