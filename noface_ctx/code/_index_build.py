"""Building the code index: which files to index, which of them to re-parse, and the chunk and
term tables assembled from kept and fresh parses (BM25 recomputed from the stored counts, so
nothing unchanged is re-tokenised). Writes happen under a file lock; another process's build
finished while we waited is used as is.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
import numpy.typing as npt

from noface_ctx._lexical import TermMatrix, bm25_matrix, tokenize
from noface_ctx.code import _index_store as store
from noface_ctx.code._index_parse import ParsedFile, Progress, hash_file, parse_all
from noface_ctx.code._index_store import FileRecord, IndexData, TermCounts
from noface_ctx.code.languages import language_for_path, spec_for
from noface_ctx.config import Config
from noface_ctx.datatypes import RepoFiles

LOCK_TIMEOUT = 120.0
PATH_WEIGHT_FILE = 3  # the path's terms count this many times in a file's own BM25 document
_INDEXED_KINDS = ("code", "other")
MAX_SOURCE_BYTES = 2_000_000  # sized-out source files up to this size are still indexed by definition


class BuildStats(TypedDict):
    """What a build did (`CodeIndex.stats`)."""

    files: int
    parsed: int
    reused: int
    chunks: int
    seconds: float
    saved: bool
    note: str


def build_index(repo_files: RepoFiles, config: Config, progress: Progress | None) -> tuple[IndexData, BuildStats]:
    """The index for `repo_files`, re-parsing only files whose content changed, and what it took."""
    t0 = time.perf_counter()
    where = store.index_dir(config)
    old, why = store.load(where)
    wanted = _indexable(repo_files, config)
    plan = _plan(repo_files, wanted, old)
    if plan.unchanged and old is not None:
        return old, _stats(len(wanted), 0, len(wanted), old, t0, why, saved=False)
    lock, locked = store.lock(where), False
    if lock is not None:
        try:
            lock.acquire(timeout=LOCK_TIMEOUT)
            locked = True
        except Exception:  # filelock.Timeout, or a lock file we cannot create
            why = (why + "; " if why else "") + "index lock unavailable, built in memory"
    try:
        if locked:  # another process may have built while we waited: look again
            newer, _ = store.load(where)
            if newer is not None:
                old, plan = newer, _plan(repo_files, wanted, newer)
                if plan.unchanged:
                    return old, _stats(len(wanted), 0, len(wanted), old, t0, why, saved=False)
        parsed = parse_all(repo_files, plan.to_parse, progress, total=len(wanted), done=len(plan.reuse))
        data = _assemble(old, plan.reuse, parsed)
        saved = store.save(where, data) if locked and where is not None else False
    finally:
        if locked and lock is not None:
            lock.release()
    return data, _stats(len(wanted), len(parsed), len(plan.reuse), data, t0, why, saved=saved)


def _stats(files: int, parsed: int, reused: int, data: IndexData, t0: float, why: str, *, saved: bool) -> BuildStats:
    return {
        "files": files,
        "parsed": parsed,
        "reused": reused,
        "chunks": len(data.symbols),
        "seconds": round(time.perf_counter() - t0, 3),
        "saved": saved,
        "note": why,
    }


# --------------------------------------------------------------------------- planning


@dataclass(slots=True)
class _Plan:
    reuse: dict[str, FileRecord]  # path -> old record (stat refreshed)
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
    """True for a file with a grammar that the file scan (`files/gate.py`) excluded only for exceeding max_file_size_kb
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


def _plan(repo_files: RepoFiles, wanted: list[tuple[str, str | None]], old: IndexData | None) -> _Plan:
    """Which files keep their parse (same stat, or same content hash) and which need one."""
    old_files = old.files if old is not None else {}
    reuse: dict[str, FileRecord] = {}
    to_parse: list[tuple[str, str | None]] = []
    changed = old is None or len(old_files) != len(wanted)
    for path, lang in wanted:
        rec = old_files.get(path)
        now = repo_files.stats.get(path)  # (size, mtime_ns) as the gate's scan found it
        if now is None:
            try:
                st = os.stat(repo_files.abspath(path))
            except OSError:
                changed = True
                continue
            now = (st.st_size, st.st_mtime_ns)
        if rec is not None and rec.language == lang:
            if rec.size == now[0] and rec.mtime_ns == now[1]:
                reuse[path] = rec
                continue
            digest = hash_file(repo_files.abspath(path))
            if digest == rec.hash:
                reuse[path] = rec._replace(size=now[0], mtime_ns=now[1], language=lang)
                changed = True  # stat refreshed, worth saving
                continue
        to_parse.append((path, lang))
        changed = True
    return _Plan(reuse, to_parse, unchanged=not changed)


# --------------------------------------------------------------------------- assembling


class _Tables:
    """The chunk table and term counts being assembled, file by file, in path order."""

    def __init__(self, old: IndexData | None) -> None:
        self.old = old
        self.term_id = {t: i for i, t in enumerate(old.vocab)} if old is not None else {}
        self.symbols: list[str] = []
        self.kinds: list[str] = []
        self.parents: list[str] = []
        self.spans: list[npt.NDArray[np.int32]] = []
        self.details: dict[str, bytes] = {}
        self.old_pos = {p: i for i, p in enumerate(old.file_order)} if old is not None else {}
        self.files: dict[str, FileRecord] = {}
        self.terms: list[npt.NDArray[np.int32]] = []
        self.counts: list[npt.NDArray[np.float32]] = []
        self.lengths: list[npt.NDArray[np.int64]] = []

    def add_new(self, p: ParsedFile) -> None:
        """Append a freshly parsed file (its terms get ids, new ones at the end of the vocabulary)."""
        lo = len(self.symbols)
        self.symbols.extend(r.symbol for r in p.rows)
        self.kinds.extend(r.kind for r in p.rows)
        self.parents.extend(r.parent for r in p.rows)
        self.spans.append(np.array([(r.start_line, r.end_line) for r in p.rows], dtype=np.int32).reshape(-1, 2))
        self.details[p.path] = store.encode_details(p.rows)
        term_id = self.term_id
        for tc in p.terms:
            self.terms.append(np.fromiter((term_id.setdefault(t, len(term_id)) for t in tc), dtype=np.int32, count=len(tc)))
            self.counts.append(np.fromiter(tc.values(), dtype=np.float32, count=len(tc)))
            self.lengths.append(np.array([len(tc)], dtype=np.int64))
        self.files[p.path] = FileRecord(p.hash, p.size, p.mtime_ns, p.language, lo, len(self.symbols))

    def add_reused(self, path: str, rec: FileRecord) -> None:
        """Append a file's rows and term counts from the old index, unchanged."""
        old = self.old
        assert old is not None
        lo = len(self.symbols)
        self.symbols.extend(old.symbols[rec.lo : rec.hi])
        self.kinds.extend(old.kinds[rec.lo : rec.hi])
        self.parents.extend(old.parents[rec.lo : rec.hi])
        self.spans.append(old.lines[rec.lo : rec.hi])
        self.details[path] = old.detail_bytes(self.old_pos[path])
        indptr = old.tf.indptr
        s, e = indptr[rec.lo], indptr[rec.hi]
        self.terms.append(old.tf.terms[s:e])
        self.counts.append(old.tf.counts[s:e])
        self.lengths.append(np.diff(indptr[rec.lo : rec.hi + 1]))
        self.files[path] = rec._replace(lo=lo, hi=len(self.symbols))


def _assemble(old: IndexData | None, reuse: dict[str, FileRecord], parsed: list[ParsedFile]) -> IndexData:
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
    chunk_files = np.repeat(np.arange(len(order), dtype=np.int32), [t.files[p].hi - t.files[p].lo for p in order])
    blob, offsets = store.pack_details([t.details[p] for p in order])
    return IndexData(
        files=t.files,
        file_order=order,
        symbols=t.symbols,
        kinds=t.kinds,
        parents=t.parents,
        lines=np.concatenate(t.spans) if t.spans else np.zeros((0, 2), np.int32),
        details_blob=blob,
        details_offsets=offsets,
        vocab=vocab,
        tf=TermCounts(indptr, terms, counts),
        bm25=bm25_matrix(indptr, terms, counts, len(vocab)),
        file_bm25=_file_matrix(indptr, terms, counts, chunk_files, order, vocab),
    )


def _compact_vocab(terms: npt.NDArray[np.int32], vocab: list[str]) -> tuple[npt.NDArray[np.int32], list[str]]:
    """Drop terms no chunk uses any more (they pile up as files change)."""
    if not len(vocab):
        return terms, vocab
    used = np.zeros(len(vocab), dtype=bool)
    used[terms] = True
    if used.all():
        return terms, vocab
    new_id = np.cumsum(used) - 1
    return new_id[terms].astype(np.int32), [t for t, u in zip(vocab, used, strict=True) if u]


def _file_matrix(
    indptr: npt.NDArray[np.int64],
    terms: npt.NDArray[np.int32],
    counts: npt.NDArray[np.float32],
    chunk_files: npt.NDArray[np.int32],
    order: list[str],
    vocab: list[str],
) -> TermMatrix:
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
        return TermMatrix.empty(len(order), n_terms)
    uniq, inverse = np.unique(keys, return_inverse=True)
    summed = np.zeros(len(uniq), dtype=np.float32)
    np.add.at(summed, inverse, vals)
    f_of = (uniq // n_terms).astype(np.int32)
    t_of = (uniq % n_terms).astype(np.int32)
    f_indptr = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(np.bincount(f_of, minlength=len(order)), out=f_indptr[1:])
    # keys are sorted by file then term, so (f_of, t_of) is already a CSR by file
    return bm25_matrix(f_indptr, t_of, summed, n_terms)
