"""Ranking code for an issue → `Candidate`s: manifest files first, then related definitions.

BM25 over definition-sized chunks finds a pool (`code_lexical`), and the definitions nearest the
issue among every stored vector join it (`dense`, after `noface-ctx index`); dense embeddings of
that pool re-rank it (z-scored and fused with BM25); identifiers, file paths and stack frames named in
the issue (`hints`), and callers/callees of manifest code (`code_manifest`), add boosts. Every
candidate carries finished text blocks (`Form`s, from `code_forms`) from most to least complete
and the `NEED_CODE:` line that fetches it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from noface_ctx._lexical import tokenize, zscore
from noface_ctx.code.index import CodeIndex
from noface_ctx.code.languages import CONTAINER_KINDS
from noface_ctx.config import Config
from noface_ctx.datatypes import Candidate, Issue, RepoFiles
from noface_ctx.issue.environment import query_text
from noface_ctx.rank.code_forms import ChunkRenderer, class_outlines, required_candidates, snippet_candidates
from noface_ctx.rank.code_lexical import ChunkScores, CodeRun
from noface_ctx.rank.code_manifest import MAX_DIR_FILES, manifest_files
from noface_ctx.rank.code_report import CodeReportRow, report_row
from noface_ctx.rank.code_tests import find_tests, test_candidates
from noface_ctx.rank.embed import Embedder
from noface_ctx.rank.vector_store import CachedEmbedder

TAIL_SIZE = 120  # more chunks after the pool, by BM25 and boosts alone, for large budgets
POOL_SIZE = 60  # chunks re-ranked with embeddings (60 ranked as well as 150 on the dev rows, 2.5x fewer to embed)
DENSE_SIZE = 20  # ... plus the definitions nearest the issue in the whole vector store, not already pooled
QUERY_CHARS = 2000  # the issue text embedded as the dense query
EMBED_CHARS = 360  # chunk text is cut to about 128 model tokens (~2.8 characters each in code)
NEAR_SEEDS = 6  # the best definitions whose same-file callers, callees and enclosing function join
NEAR_GAP = 0.35  # ... scored this much below the definition that brought them
NEAR_MAX = 4  # ... at most this many per seed
USE_FILES = 5  # a definition in one of the files of the best-ranked chunks that names at least ...
USE_MIN = 2  # ... this many of the best definitions (`NEAR_SEEDS`) of other files joins them (the one naming most):
USE_MAX = 1  # ... at most this many, `NEAR_GAP` below the weaker of the two best it names ...
USE_CAP = 0.5  # ... and never above this (`code_forms.FIRST_EVIDENCE`): shown when budget is left, not before stronger code
USE_COMMON = 3  # a name defined more often than this, or shorter than 4 characters, names nothing in particular
W_FILE = 0.3  # weight of whole-file BM25 in every chunk's score

EMBED_FAILED = "embeddings failed"  # how a warning of a failed model starts (`preview -q` keeps it)


@dataclass(frozen=True, slots=True)
class CodeRanking:
    """Code candidates for the packer, ranked files for the benchmark, and the evidence."""

    candidates: tuple[Candidate, ...]
    ranked_files: tuple[str, ...]
    report: tuple[CodeReportRow, ...] = ()
    embedding_used: bool = False
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    outlines: tuple[Candidate, ...] = ()  # class outlines for methods shown without their class
    tests: tuple[Candidate, ...] = ()  # tests beside the code: pointers and test functions (`code_tests`)
    weak: int = 0  # ranked definitions too weak to be offered even as a pointer (counted in the closing note)


def rank_code(
    issue: Issue, repo_files: RepoFiles, index: CodeIndex, config: Config, embedder: Embedder | None,
    *, budget: int | None = None,
) -> CodeRanking:
    """Manifest items (required) first, then related definitions best first; see module doc.

    `budget` (default `[context] budget_tokens`) sizes the candidate list and a manifest file's
    share for its whole-file form. A bare `embedder` is wrapped in the on-disk vector cache,
    which this run then saves.
    """
    if budget is not None:
        config = config.with_context(budget_tokens=int(budget))
    own_cache: CachedEmbedder | None = None
    if embedder is not None and not isinstance(embedder, CachedEmbedder):
        from noface_ctx.config import cache_dir

        try:
            own_cache = CachedEmbedder(embedder, cache_dir(config) / "code" / "embeddings")
        except OSError:
            own_cache = CachedEmbedder(embedder, None)
        embedder = own_cache
    run = CodeRun(issue, repo_files, index, config)
    scores = run.lexical()
    entries, extra = manifest_files(run, scores)
    pool, signals = _fuse(run, scores, extra, embedder, own_cache)
    renderer = ChunkRenderer(index, frozenset(tokenize(query_text(issue))))
    order = np.argsort(-signals["score"], kind="stable")
    ranked_ids = [int(pool[k]) for k in order]
    chunk_score = {int(pool[k]): float(signals["score"][k]) for k in order}
    _add_users(run, ranked_ids, chunk_score, scores.reasons)
    lifted: dict[int, float] = {}
    ranked_ids = _add_near(run, ranked_ids, chunk_score, scores.reasons, lifted)
    ranked_files = _rank_files(run, ranked_ids, chunk_score, scores)
    tests = test_candidates(run, find_tests(run, ranked_ids, chunk_score, scores, ranked_files), lambda j: renderer.snippet(j)[0][1])
    ranked_ids = _add_tail(ranked_ids, chunk_score, scores)
    required, shown = required_candidates(run, renderer, entries, chunk_score)
    detail = {int(pool[k]): {name: float(v[k]) for name, v in signals.items()} for k in range(len(pool))}
    ranked, weak = snippet_candidates(run, renderer, ranked_ids, chunk_score, ranked_files, shown, detail, scores.reasons,
                                      lifted)
    beside = {(t.path, t.ref) for t in tests if t.ref}
    beside_files = {t.path for t in tests}
    # a test offered beside the code, with its reason, replaces a ranked item of the same test, and
    # a weak ranked pointer into its file (one pointer line per test file)
    ranked = [c for c in ranked if (c.path, c.ref) not in beside
              and not (c.path in beside_files and [f.label for f in c.forms] == ["pointer"])]
    candidates = tuple(required + ranked)
    return CodeRanking(
        candidates=candidates,
        ranked_files=tuple(ranked_files),
        report=tuple(report_row(c) for c in candidates),
        embedding_used="embedding" in signals,
        notes=tuple(run.notes),
        warnings=tuple(run.warnings),
        outlines=tuple(class_outlines(run, renderer, ranked, ranked_files)),
        tests=tuple(tests),
        weak=weak,
    )


def chunk_embed_text(index: CodeIndex, i: int) -> str:
    """What the model reads for chunk `i`: `path qualname` and the first lines of its code, cut to
    about 128 tokens. `noface-ctx index` embeds every chunk with this, so a query embeds only itself."""
    path = index.path_of(i)
    start, end = index.lines(i)
    body = "\n".join(index.file_lines(path)[start - 1 : min(end, start + 40)])
    return _cut(f"{path} {index.symbol(i)}\n{body}", EMBED_CHARS)


# --------------------------------------------------------------------------- second stage


def _fuse(
    r: CodeRun, s: ChunkScores, extra: Sequence[int], embedder: Embedder | None, own_cache: CachedEmbedder | None
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Pool the best chunks, embed them, and fuse z-scored BM25, cosine and boosts."""
    first = _first_stage(s)
    n = min(POOL_SIZE, int((first > -1e8).sum()))
    pool = np.argsort(-first, kind="stable")[:n]
    dense = _dense_pool(r, first, set(pool.tolist()), embedder)
    pool = np.array(list(dict.fromkeys([*pool.tolist(), *dense, *[i for i in extra if first[i] > -1e8]])), dtype=np.int64)
    signals = {"bm25": s.bm25[pool].astype(np.float64), "boost": s.boost[pool]}
    files = r.index.chunk_files()[pool]
    signals["file_bm25"] = s.file_bm25[files].astype(np.float64)
    cosine = _cosine(r, pool, embedder, own_cache)
    wb, we = r.config.context.bm25_weight, r.config.context.embedding_weight
    if cosine is None:
        wb, we = 1.0, 0.0
    else:
        signals["embedding"] = cosine
    total = wb + we or 1.0
    # z-scores over BM25's own candidates (`lexical`): the definitions only the dense stage found
    # are placed among them by the same yardsticks, never reshuffle them
    lexical = ~np.isin(pool, dense)
    score = (
        (wb / total) * _z(np.log1p(signals["bm25"]), lexical, floor=True)
        + W_FILE * _z(np.log1p(signals["file_bm25"]), lexical)
        + signals["boost"]
    )
    if cosine is not None:
        score = score + (we / total) * _z(cosine, lexical)
    return pool, {**signals, "score": score}


def _z(values: np.ndarray, lexical: np.ndarray, *, floor: bool = False) -> np.ndarray:
    """z-scores by the mean and spread of BM25's own candidates (log(1 + BM25) keeps one huge
    lexical match from swamping every other signal). `floor`: a definition only the dense stage
    found scores as the lowest of them, as a fused list scores an item missing from one of its
    lists, not as an outlier far below it."""
    if not lexical.any() or lexical.all():
        return zscore(values)
    ref = values[lexical]
    std = ref.std()
    z = (values - ref.mean()) / std if std > 1e-12 else np.zeros(len(values), dtype=np.float64)
    if floor:
        z[~lexical] = z[lexical].min()
    return np.asarray(z, dtype=np.float64)


def _cosine(
    r: CodeRun, pool: np.ndarray, embedder: Embedder | None, own_cache: CachedEmbedder | None
) -> np.ndarray | None:
    """Cosine of each pooled chunk to the issue; None without a (working) embedder. The cache
    `rank_code` made (`own_cache`) is saved here."""
    if embedder is None or not len(pool):
        return None
    texts = [chunk_embed_text(r.index, i) for i in pool.tolist()]
    try:
        vectors = embedder.embed([_cut(r.query, QUERY_CHARS), *texts])
    except Exception as exc:  # a broken model must not stop the prompt: fall back to BM25
        r.warnings.append(f"{EMBED_FAILED} ({type(exc).__name__}: {exc}); code ranked by BM25 only")
        return None
    if own_cache is not None:
        try:
            own_cache.save()
        except OSError as exc:
            r.warnings.append(f"code embedding cache not saved: {exc}")
    q, m = vectors[0], vectors[1:]
    cosine: np.ndarray = (m @ q).astype(np.float64)
    return cosine


def _dense_pool(r: CodeRun, first: np.ndarray, pooled: set[int], embedder: Embedder | None) -> list[int]:
    """The `DENSE_SIZE` definitions nearest the issue among every stored vector (`dense.nearest`)
    that BM25 did not pool and the gate allows; none without stored vectors (said in a note)."""
    if not isinstance(embedder, CachedEmbedder) or embedder.cache_dir is None:
        return []
    from noface_ctx.rank.dense import nearest

    try:
        query = embedder.embed([_cut(r.query, QUERY_CHARS)])[0]
    except Exception:  # a broken model: `_cosine` says so and falls back to BM25
        return []
    stage = nearest(embedder, r.index, query)
    if stage is None:
        r.notes.append("dense retrieval over the whole code index skipped: no stored vectors (`noface-ctx index` "
                       "stores them); the model re-ranked BM25's candidates only")
        return []
    if stage.covered < stage.total:
        r.notes.append(f"dense retrieval covered {stage.covered} of {stage.total} definitions (files changed since "
                       "`noface-ctx index` took part by BM25 only)")
    keep = (first[stage.ids] > -1e8) & ~np.isin(stage.ids, list(pooled))
    ids, cosine = stage.ids[keep], stage.cosine[keep]
    return [int(i) for i in ids[np.argsort(-cosine, kind="stable")[:DENSE_SIZE]]]


def _first_stage(s: ChunkScores) -> np.ndarray:
    """Per chunk: BM25 scaled to its best match, plus boosts: what picks the pool."""
    top = s.bm25.max() if s.bm25.size else 0.0
    first: np.ndarray = (s.bm25 / top if top > 0 else s.bm25) * 3.0 + s.boost
    return first


# --------------------------------------------------------------------------- after fusion


def _add_near(r: CodeRun, ranked_ids: list[int], score: dict[int, float], reasons: dict[int, list[str]],
              lifted: dict[int, float] | None = None) -> list[int]:
    """The fix often sits one call away from the best match: add, just below each of the best
    definitions, the same-file definitions it calls or that call it, and the function enclosing
    it (a nested function is shown inside its parent). `lifted` gets the score each caller or
    callee had before (outside the best-ranked file that one decides whether its code is shown)."""
    if NEAR_SEEDS <= 0:
        return ranked_ids
    idx = r.index
    seeds = [i for i in ranked_ids if score[i] > -1e8 and idx.symbol(i) and idx.kind(i) not in CONTAINER_KINDS][:NEAR_SEEDS]
    for i in seeds:
        path, name = idx.path_of(i), idx.symbol(i)
        bare = name.rpartition(".")[2]
        calls = set(idx.row(i).references)
        found: list[tuple[int, str]] = []
        for j in idx.chunk_ids(path):
            other = idx.symbol(j)
            if j == i or not other or idx.kind(j) in CONTAINER_KINDS:
                continue
            if name.startswith(other + "."):
                found.insert(0, (j, f"encloses `{name}`"))
            elif other.rpartition(".")[2] in calls:
                found.append((j, f"called by `{name}`"))
            elif bare in idx.row(j)[7]:
                found.append((j, f"calls `{name}`"))
        for j, why in found[:NEAR_MAX]:
            gain = 0.01 if why.startswith("encloses") else -NEAR_GAP
            if score.get(j, -1e9) < score[i] + gain:
                if lifted is not None and gain < 0:
                    lifted.setdefault(j, score.get(j, -1e9))
                score[j] = score[i] + gain
                reasons.setdefault(j, []).append(why)
    return sorted(score, key=lambda k: -score[k])


def _add_users(r: CodeRun, ranked_ids: list[int], score: dict[int, float], reasons: dict[int, list[str]]) -> None:
    """The fix often sits where the best matches are used from another file (the issue names
    exceptions; the code that catches them is the fix): a definition in one of the `USE_FILES`
    files of the best-ranked chunks naming `USE_MIN` of the best definitions of other files joins
    below them (see the constants; `score` updated in place, the reason says which names)."""
    idx = r.index
    seeds = [i for i in ranked_ids if score[i] > -1e8 and idx.symbol(i)][:NEAR_SEEDS]
    by_name: dict[str, list[int]] = {}
    for i in seeds:
        bare = idx.symbol(i).rpartition(".")[2]
        if len(bare) >= 4 and not bare.startswith("__") and len(idx.symbol_ids(bare)) <= USE_COMMON:
            by_name.setdefault(bare, []).append(i)
    if len(by_name) < USE_MIN:
        return
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(by_name)) + r")\b")
    files = list(dict.fromkeys(idx.path_of(i) for i in ranked_ids if score[i] > -1e8))[:USE_FILES]
    found: list[tuple[int, float, int, list[str]]] = []
    for path in files:
        lines = idx.file_lines(path)
        for j in idx.chunk_ids(path):
            symbol = idx.symbol(j)
            if not symbol or idx.kind(j) in CONTAINER_KINDS:
                continue
            start, end = idx.lines(j)
            own = symbol.rpartition(".")[2]
            named = sorted({m for m in pattern.findall("\n".join(lines[start:end]))
                            if m != own and any(idx.path_of(i) != path for i in by_name[m])})
            used = sorted((max(score[i] for i in by_name[n] if idx.path_of(i) != path) for n in named), reverse=True)
            if len(used) >= USE_MIN:
                found.append((len(used), used[1], j, named))
    for _, second, j, named in sorted(found, key=lambda f: (-f[0], -f[1], f[2]))[:USE_MAX]:
        joined = min(second - NEAR_GAP, USE_CAP)
        if score.get(j, -1e9) < joined:
            score[j] = joined
            reasons.setdefault(j, []).append("uses " + ", ".join(f"`{n}`" for n in named))


def _rank_files(r: CodeRun, ranked_ids: list[int], score: dict[int, float], s: ChunkScores) -> list[str]:
    """Files by their best chunk plus a little for other strong chunks; then by whole-file BM25."""
    per_file: dict[str, list[float]] = {}
    for i in ranked_ids:
        if score[i] > -1e8:
            per_file.setdefault(r.index.path_of(i), []).append(score[i])
    agg = {p: v[0] + 0.3 * float(np.mean(v[:3])) for p, v in per_file.items()}
    ranked = sorted(agg, key=lambda p: -agg[p])
    if r.manifest is not None:
        prim = [p for p in r.index.paths() if any(e.matches(p) for e in r.manifest.primary) and r.allowed[r.file_no[p]]]
        ranked = list(dict.fromkeys(prim[:MAX_DIR_FILES] + ranked))
    paths = r.index.paths()
    for f in np.argsort(-s.file_bm25, kind="stable")[:50].tolist():
        if r.allowed[f] and s.file_bm25[f] > 0 and paths[f] not in agg:
            ranked.append(paths[f])
    return list(dict.fromkeys(ranked))


def _add_tail(ranked_ids: list[int], score: dict[int, float], s: ChunkScores) -> list[int]:
    """Chunks beyond the embedding pool, in first-stage order below all of it, so that a large
    budget can still be filled (they were not re-ranked with embeddings)."""
    first = _first_stage(s)
    floor = min(score.values(), default=0.0)
    tail = [i for i in np.argsort(-first, kind="stable")[: len(ranked_ids) + TAIL_SIZE].tolist()
            if i not in score and first[i] > -1e8]
    for k, i in enumerate(tail[:TAIL_SIZE]):
        score[i] = floor - 0.01 * (k + 1)
    return ranked_ids + tail[:TAIL_SIZE]


def _cut(text: str, limit: int) -> str:
    """At most `limit` characters, ending at a line break when one is near."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    return text[: cut if cut > limit // 2 else limit]
