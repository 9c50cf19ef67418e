"""The stage API every entry point shares, wired once: the code index and the embedder a process
keeps warm, `noface-ctx index` (everything a prompt reads, built ahead), and code search.

`_pipeline.build_prompt` walks the whole arrow and takes its index and embedder from here; the
CLI's `index`, the MCP server's `search_code` and its warm-up call these functions rather than
assembling stages themselves, so a change to how a stage is built reaches every surface.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from noface_ctx._state import Memo, memo
from noface_ctx.code.index import CodeIndex
from noface_ctx.config import Config, cache_dir
from noface_ctx.datatypes import Issue, Manifest, RepoFiles
from noface_ctx.files.gate import scan_repo
from noface_ctx.rank.code import CodeRanking, rank_code
from noface_ctx.rank.embed import Embedder
from noface_ctx.rank.vector_store import CachedEmbedder

__all__ = ["CodeSearch", "IndexReport", "code_index", "index_repository", "input_state", "search_code", "shared_embedder",
           "warm_up"]

Progress = Callable[[int, int], None]  # (done, total)
ProgressBars = Callable[[str], Progress]  # a progress callback per labelled step

# the latest index, by the file state it was built for
_INDEXES: Memo[tuple[str, str], CodeIndex] = memo("pipeline.indexes", maxsize=1)
# (cache dir, model) -> (model, its CachedEmbedder)
_EMBEDDERS: Memo[tuple[str, int], tuple[Embedder, CachedEmbedder]] = memo("pipeline.embedders", maxsize=4)


def code_index(files: RepoFiles, cfg: Config, *, progress: Progress | None = None) -> CodeIndex:
    """The code index. The one built in this process for this very file state (same paths, stats
    and verdicts: `RepoFiles.fingerprint`) is reused, with the lookups it has already built."""
    if not files.fingerprint:
        return CodeIndex.build(files, cfg, progress=progress)
    key = (files.fingerprint, str(cache_dir(cfg)))
    index = _INDEXES.get(key)
    if index is None:
        index = _INDEXES.put(key, CodeIndex.build(files, cfg, progress=progress))
    return index


def shared_embedder(cfg: Config, *, enabled: bool | None = None) -> tuple[CachedEmbedder | None, str]:
    """The model `[context]` names, wrapped in its disk cache and shared by every prompt of this
    process: the store `noface-ctx index` fills is the one prompts read. (None, why) when off."""
    from noface_ctx.rank.embed import get_embedder

    status = get_embedder(cfg.context.embedding_model, enabled=cfg.context.embeddings if enabled is None else enabled)
    if status.embedder is None:
        return None, status.reason
    status.embedder.preload()  # loading starts now, in the background, while the files are scanned
    where = cache_dir(cfg) / "embeddings"
    key = (str(where), id(status.embedder))
    cached = _EMBEDDERS.get(key)
    if cached is None or cached[0] is not status.embedder:  # reuse: its vectors are already in memory
        cached = _EMBEDDERS.put(key, (status.embedder, CachedEmbedder(status.embedder, where)))
    return cached[1], status.reason


def input_state(issue: Issue, cfg: Config) -> str | None:
    """A fingerprint of the files a prompt for `issue` reads (paths, stats and verdicts of the
    scan under its manifest) and of git HEAD: the same issue, budget and state give the same
    prompt. None when the state cannot be fingerprinted (no git, no stable scan)."""
    from noface_ctx._git import head

    files = scan_repo(cfg, issue.manifest)
    commit, _dirty = head(cfg.root)
    return f"{files.fingerprint} {commit}" if files.fingerprint and commit else None


def warm_up(cfg: Config, manifest: Manifest | None = None) -> float:
    """Scan, index and load the embedder once, so that the next call finds them warm; seconds."""
    t0 = time.perf_counter()
    code_index(scan_repo(cfg, manifest), cfg)
    shared_embedder(cfg)
    return time.perf_counter() - t0


@dataclass(frozen=True, slots=True)
class CodeSearch:
    """Definitions ranked for a free-text query, with the scan they were ranked in."""

    files: RepoFiles
    ranking: CodeRanking
    embeddings: str  # which model ranked them, or why none did


def search_code(query: str, cfg: Config, manifest: Manifest | None = None) -> CodeSearch:
    """The hybrid code ranker on `query` alone (no prompt); files the manifest forbids are not
    even candidates."""
    probe = Issue(id="search", title=query.strip(), description="", source="search_code")
    files = scan_repo(cfg, manifest)
    index = code_index(files, cfg)
    embedder, note = shared_embedder(cfg)
    return CodeSearch(files, rank_code(probe, files, index, cfg, embedder), note)


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What `index_repository` built."""

    files: int
    parsed: int
    reused: int
    definitions: int
    index_seconds: float
    docs_judged: int
    freshness_seconds: float
    vectors: str  # the vectors line, or why there are none ("" when not asked for)


def index_repository(cfg: Config, *, embed: bool = True, progress: ProgressBars | None = None,
                     say: Callable[[str], None] | None = None) -> IndexReport:
    """`noface-ctx index`: the code index, the docs' terms and BM25, every doc judged for
    freshness (history index and code words built on the way) and, with `embed`, a vector for
    every definition and doc section, so that no prompt does this work for the first time.
    `say` gets one line per step as it ends."""
    from noface_ctx.docs.load import load_docs
    from noface_ctx.freshness.assess import assess_docs
    from noface_ctx.rank.doc_candidates import prepare_terms
    from noface_ctx.rank.vectors import embed_index

    tell = say or (lambda _line: None)
    files = scan_repo(cfg)
    index = code_index(files, cfg, progress=progress("indexing") if progress else None)
    stats = index.stats
    tell(f"indexed {stats.get('files', 0)} files ({stats.get('parsed', 0)} parsed, {stats.get('reused', 0)} reused), "
         f"{stats.get('chunks', 0)} definitions in {stats.get('seconds', 0):.2f}s")
    docset = load_docs(cfg, files)
    prepare_terms(docset, cfg)  # the docs' terms and BM25, stored for every prompt
    started = time.perf_counter()
    fresh = assess_docs(docset.docs, files, index, cfg)
    judged_in = time.perf_counter() - started
    tell(f"freshness: {len(fresh.by_path)} docs judged in {judged_in:.2f}s")
    vectors = ""
    if embed:
        store, note = shared_embedder(cfg)
        if store is None:
            vectors = f"vectors: skipped ({note})"
        else:
            try:
                vec = embed_index(store, index, docset.docs, progress=progress("embedding") if progress else None)
                vectors = (f"vectors: {vec.texts} definitions and doc sections, {vec.embedded} embedded, "
                           f"{vec.dropped} dropped, in {vec.seconds:.2f}s ({store.name})")
            except (OSError, ImportError, RuntimeError, ValueError) as exc:  # the model failed: a warning, never exit 3
                vectors = (f"noface-ctx: warning: vectors not built: embedding model failed ({type(exc).__name__}: "
                           f"{exc}); prompts rank with BM25 only")
        tell(vectors)
    return IndexReport(int(stats.get("files", 0)), int(stats.get("parsed", 0)), int(stats.get("reused", 0)),
                       int(stats.get("chunks", 0)), float(stats.get("seconds", 0)), len(fresh.by_path), judged_in,
                       vectors)
