"""Design-doc ranking: explicit links, BM25 over sections, embedding re-rank, an absolute bar.

Order and relevance are two different questions:

* **order** (`score`): each signal is z-scored over the candidates and fused,
  `bm25_weight·z(BM25) + embedding_weight·z(cosine) + link_boost·[explicit]`, minus
  `STALE_PENALTY` for stale docs. Explicitly linked (or named by path) docs come first, their
  score lifted just above the best other doc's when the fusion alone would not put them there.
* **relevance** (the bar): z-scores are relative, so the best of a bad lot would always look good.
  A doc is kept only when an absolute relevance in [0, 1] clears `doc_min_score`. Runbooks,
  checklists and how-tos face `instruction_min_score`, and their lexical evidence alone must also
  clear `doc_min_score`: a wrong instruction is followed, so semantic nearness (a Kotlin release
  runbook "sounds like" a Python auth issue about tokens) can't carry one in by itself.
  Relevance = weighted mean (same weights) of lexical evidence — the IDF-weighted share of the
  issue's topic terms found in the doc's best section — and semantic evidence — the best
  section's cosine above a per-query baseline (see the constants below). Without embeddings
  relevance is the lexical evidence alone. Explicit links always pass.

Two steps, with freshness judged in between by the pipeline: `choose_docs`
(`noface_ctx.rank.doc_candidates`: which docs, with BM25 and lexical evidence), then
`score_docs` here (semantic evidence, order, the bar, the report) given each candidate's
`Staleness`. `rank_docs` does both for a caller that has the staleness already.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from noface_ctx._lexical import zscore
from noface_ctx._wording import need_doc
from noface_ctx.datatypes import Candidate, Doc, Issue, Omitted, Section, Staleness
from noface_ctx.docs.docset import DocSet
from noface_ctx.docs.forms import doc_forms
from noface_ctx.rank.doc_candidates import EMBED_ALL_LIMIT, DocCorpus, DocItem, DocPool, choose_docs, doc_sections

if TYPE_CHECKING:
    from noface_ctx.config import Config, ContextConfig
    from noface_ctx.rank.complexity import Complexity
    from noface_ctx.rank.embed import Embedder
    from noface_ctx.trust.effects import DocTrust

__all__ = [
    "EMBED_ALL_LIMIT",
    "STALE_PENALTY",
    "DocPool",
    "DocRanking",
    "choose_docs",
    "doc_sections",
    "rank_docs",
    "score_docs",
    "section_embed_text",
]

# Stale docs are downranked by subtracting this many z-units from the fused score; their
# relevance is untouched, so staleness alone never drops a doc.
STALE_PENALTY = {"fresh": 0.0, "possibly stale": 0.25, "stale": 0.5}
# Semantic evidence: cosine mapped linearly from floor (0) to floor + COS_SPAN (1), where
# floor = max(COS_FLOOR, COS_MARGIN above the issue's cosine with unrelated prose, NULL_TEXTS).
# COS_FLOOR is calibrated for sentence models (MiniLM: same-domain but unrelated text scores
# 0.1–0.35); the null baseline protects against embedders that score all English text high
# (bag-of-words), for which a fixed cut-off would admit everything.
COS_FLOOR, COS_MARGIN, COS_SPAN = 0.25, 0.15, 0.4
NULL_TEXTS = (
    "The weather was mild for most of the week, with a light breeze in the afternoons and a little "
    "rain on Sunday evening, so the garden party went ahead as planned and everyone stayed late.",
    "To make the soup, slice two onions and warm them in butter until they are soft, then add the "
    "stock and the potatoes and let it simmer for twenty minutes before you season it.",
)
MAX_EMBED_SECTIONS = 12  # per doc: the first section plus the lexically best others ...
MAX_EMBED_TEXTS = 96  # ... fewer when many docs are candidates (each new section costs ~40 ms) ...
MIN_EMBED_SECTIONS = 3  # ... but never fewer than this per doc
SECTION_CHARS = 700  # text per section sent to the embedder (about 160 tokens), title and heading included
QUERY_CHARS = 2000
STRONG_RELEVANCE = 0.75  # a doc this relevant earns a place even when complexity gives K = 0


@dataclass(frozen=True, slots=True)
class DocRanking:
    """Docs that pass the relevance bar (best first, explicit first) and one report row per doc."""

    candidates: tuple[Candidate, ...]
    report: tuple[dict[str, Any], ...]
    k: int
    embedding_used: bool
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    quarantined: tuple[Omitted, ...] = ()  # relevant docs withheld by failures (`noface_ctx.trust`)

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "embedding_used": self.embedding_used,
            "notes": list(self.notes),
            "warnings": list(self.warnings),
            "docs": [dict(r) for r in self.report],
        }


def rank_docs(
    issue: Issue,
    docset: DocSet,
    staleness: Mapping[str, Staleness],
    config: Config,
    embedder: Embedder | None,
    complexity: Complexity,
    *,
    embed_note: str = "",
) -> DocRanking:
    """Rank the vault's docs for `issue`; keep only those clearing the relevance bar. Writes no
    cache (the pipeline, which does, calls `choose_docs` and `score_docs` itself)."""
    pool = choose_docs(issue, docset, config, complexity, embedding=embedder is not None)
    return score_docs(pool, staleness, config, embedder, complexity, embed_note=embed_note)


def score_docs(
    pool: DocPool,
    staleness: Mapping[str, Staleness],
    config: Config,
    embedder: Embedder | None,
    complexity: Complexity,
    *,
    embed_note: str = "",
    trust: Mapping[str, DocTrust] | None = None,
) -> DocRanking:
    """Order the pool's docs and keep those clearing the relevance bar; `staleness` must hold
    every doc of `pool.slugs` that has been judged (a doc missing from it counts as fresh).
    `trust` (path -> `DocTrust`) scales a doc's score and relevance by its outcomes and age, and
    withholds a quarantined one."""
    ctx = config.context
    notes: list[str] = []
    items = pool.items
    embedding_used = False
    if embedder is not None and items:
        embedding_used = _embed(embedder, pool.query, list(items.values()), pool.corpus, pool.sec_bm25, notes)
    elif embedder is None:
        notes.append(f"embeddings unavailable: {embed_note or 'no embedder'}; ranking is BM25 only")
    _score(list(items.values()), ctx, staleness, embedding_used, trust or {})
    return _finish(items, pool.docset, staleness, config, complexity, embedding_used, notes, pool.warnings,
                   trust or {})


def section_embed_text(doc: Doc, sec: Section) -> str:
    """What the model reads for one section: title, heading, description and text, cut to about
    160 tokens. `noface-ctx index` embeds every section with this, so a query embeds only itself."""
    head = f"{doc.title}: {sec.heading}" if sec.heading and sec.heading != doc.title else doc.title
    return f"{head}\n{doc.description}\n{sec.text}"[:SECTION_CHARS]


def _embed(
    embedder: Embedder, query: str, items: list[DocItem], corpus: DocCorpus, sec_bm25: np.ndarray, notes: list[str]
) -> bool:
    """Cosine of the issue with each candidate's sections (best lexical sections first, capped)."""
    texts = [query[:QUERY_CHARS], *NULL_TEXTS]
    owners: list[tuple[DocItem, int]] = []
    per_doc = max(MIN_EMBED_SECTIONS, min(MAX_EMBED_SECTIONS, MAX_EMBED_TEXTS // max(1, len(items))))
    for item in items:
        doc = item.doc
        idx = sorted(item.sec_lex, key=lambda i: (i != 0, -float(sec_bm25[corpus.position(doc.slug, i)])))
        for i in idx[:per_doc]:
            texts.append(section_embed_text(doc, corpus.refs[corpus.position(doc.slug, i)][2]))
            owners.append((item, i))
    try:
        vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ValueError(f"embedder returned shape {vectors.shape} for {len(texts)} texts")
    except Exception as exc:  # a broken model must not break the prompt: fall back to BM25
        notes.append(f"embeddings failed ({type(exc).__name__}: {exc}); ranking is BM25 only")
        return False
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0
    vectors = vectors / norms[:, None]
    cos = vectors @ vectors[0]
    floor = max(COS_FLOOR, float(np.mean(cos[1 : 1 + len(NULL_TEXTS)])) + COS_MARGIN)
    for (item, i), c in zip(owners, cos[1 + len(NULL_TEXTS) :], strict=False):
        item.sec_cos[i] = float(c)
        item.sec_sem[i] = min(1.0, max(0.0, (float(c) - floor) / COS_SPAN))
    for item in items:
        item.cosine = max(item.sec_cos.values(), default=0.0)
        item.semantic = max(item.sec_sem.values(), default=0.0)
    name = getattr(embedder, "name", type(embedder).__name__)
    notes.append(f"embeddings: {name} (semantic floor: cosine {floor:.2f})")
    return True  # the caller saves a CachedEmbedder once, after docs and code are both ranked


def _relevance(lexical: float, semantic: float, ctx: ContextConfig, embedding_used: bool) -> float:
    """Absolute relevance in [0, 1]: the weighted mean of lexical and semantic evidence."""
    if not embedding_used:
        return lexical
    bw, ew = ctx.bm25_weight, ctx.embedding_weight
    if bw + ew <= 0:
        return max(lexical, semantic)
    return (bw * lexical + ew * semantic) / (bw + ew)


def _score(items: list[DocItem], ctx: ContextConfig, staleness: Mapping[str, Staleness], embedding_used: bool,
           trust: Mapping[str, DocTrust]) -> None:
    """Fused order score (z-scores + link boost − stale penalty) and absolute relevance, both
    scaled by the doc's trust factor (a negative score is divided: it moves down, not up)."""
    if not items:
        return
    zb = zscore(np.array([it.bm25 for it in items]))
    zc = zscore(np.array([it.cosine or 0.0 for it in items])) if embedding_used else np.zeros(len(items))
    ew = ctx.embedding_weight if embedding_used else 0.0
    for it, b, c in zip(items, zb, zc, strict=False):
        stale = staleness.get(it.doc.slug)
        penalty = STALE_PENALTY.get(stale.verdict, 0.0) if stale is not None else 0.0
        boost = ctx.link_boost if it.explicit else 0.0
        it.score = float(ctx.bm25_weight * b + ew * c + boost - penalty)
        it.relevance = _relevance(it.lexical, it.semantic, ctx, embedding_used)
        factor = trust[it.doc.path].factor if it.doc.path in trust else 1.0
        if 0 < factor < 1:
            it.relevance *= factor
            it.score = it.score * factor if it.score > 0 else it.score / factor
    # Explicit docs come first; keep `score` consistent with that order for anyone sorting by it.
    others = [it.score for it in items if not it.explicit]
    for it in items:
        if it.explicit and others and it.score <= max(others):
            it.score = max(others) + 0.001


def _finish(
    items: dict[str, DocItem],
    docset: DocSet,
    staleness: Mapping[str, Staleness],
    config: Config,
    complexity: Complexity,
    embedding_used: bool,
    notes: list[str],
    warnings: list[str],
    trust: Mapping[str, DocTrust],
) -> DocRanking:
    ctx = config.context
    order = sorted(items.values(), key=lambda it: (not it.explicit, -it.score, it.doc.path))
    candidates: list[Candidate] = []
    rows: list[dict[str, Any]] = []
    withheld: list[Omitted] = []
    for it in order:
        bar = ctx.instruction_min_score if it.doc.is_instruction else ctx.doc_min_score
        lexical_ok = not it.doc.is_instruction or not embedding_used or it.lexical >= ctx.doc_min_score
        relevant = bool(it.explicit) or (it.relevance >= bar and lexical_ok)
        stale = staleness.get(it.doc.slug)
        reason = _reason(it, bar, relevant, stale, embedding_used, ctx.doc_min_score)
        effect = trust.get(it.doc.path)
        if effect is not None:
            reason = "; ".join([*effect.reasons, reason]) if effect.quarantined else "; ".join([reason, *effect.reasons])
        if relevant and effect is not None and effect.quarantined:
            withheld.append(Omitted("doc", it.doc.path, it.doc.slug, effect.reasons[0], effect.restore, it.score))
        elif relevant:
            candidates.append(_candidate(it, docset, stale, ctx, embedding_used, reason))
        row = _row(it, relevant, reason, bar, stale)
        if effect is not None:
            row["trust"] = effect.to_dict()
            row["relevant"] = relevant and not effect.quarantined
        rows.append(row)
    rows.sort(key=lambda r: not r["relevant"])
    k = _effective_k(items, config, complexity, notes)
    return DocRanking(tuple(candidates), tuple(rows), k, embedding_used, tuple(notes), tuple(warnings),
                      tuple(withheld))


def _effective_k(items: Mapping[str, DocItem], config: Config, complexity: Complexity, notes: list[str]) -> int:
    """K from complexity, raised to cover explicit links, or to 1 for one strongly matching doc."""
    k = complexity.k
    n_explicit = sum(1 for it in items.values() if it.explicit)
    if n_explicit > k and min(n_explicit, config.max_context_docs) > k:
        k = min(n_explicit, config.max_context_docs)
        notes.append(f"K raised from {complexity.k} to {k}: the issue links or names {n_explicit} doc(s)")
    strong = [it for it in items.values() if not it.explicit and it.relevance >= STRONG_RELEVANCE]
    if k == 0 and strong and config.max_context_docs > 0:
        best = max(strong, key=lambda it: it.relevance)
        k = 1
        notes.append(f"K raised from 0 to 1: {best.doc.slug} matches the issue strongly ({best.relevance:.2f})")
    return k


def _reason(
    it: DocItem, bar: float, relevant: bool, stale: Staleness | None, embedding_used: bool, lex_bar: float
) -> str:
    evidence = f"lexical {it.lexical:.2f}" + (f", cosine {it.cosine:.2f}" if embedding_used and it.cosine is not None else "")
    kind = "instruction doc, " if it.doc.is_instruction else ""
    if it.explicit == "link":
        text = f"linked from the issue ({', '.join(v for v in it.via if v.startswith('[['))})"
    elif it.explicit == "named":
        text = next((v for v in it.via if "named" in v), "named in the issue")
    elif relevant:
        text = f"relevance {it.relevance:.2f} ≥ {kind}bar {bar:.2f} ({evidence})"
    elif it.relevance >= bar:
        text = f"left out: instruction doc with too little lexical evidence ({it.lexical:.2f} < {lex_bar:.2f}; {evidence})"
    else:
        text = f"left out: relevance {it.relevance:.2f} < {kind}bar {bar:.2f} ({evidence})"
    extra = [v for v in it.via if v.startswith("linked from") or v.endswith("appears in the issue")]
    if extra:
        text += "; " + "; ".join(extra)
    if stale is not None and stale.stale:
        text += f"; {stale.verdict}: downranked by {STALE_PENALTY.get(stale.verdict, 0.0)}"
    return text


def _row(it: DocItem, relevant: bool, reason: str, bar: float, stale: Staleness | None) -> dict[str, Any]:
    return {
        "path": it.doc.path,
        "slug": it.doc.slug,
        "title": it.doc.title,
        "bm25": round(it.bm25, 4),
        "embedding": None if it.cosine is None else round(it.cosine, 4),
        "lexical": round(it.lexical, 4),
        "relevance": round(it.relevance, 4),
        "threshold": bar,
        "linked": bool(it.explicit),
        "via": list(it.via),
        "instruction": it.doc.is_instruction,
        "score": round(it.score, 4),
        "relevant": relevant,
        "reason": reason,
        "stale": bool(stale is not None and stale.stale),
        "stale_reasons": list(stale.reasons) if stale is not None and stale.stale else [],
    }


# --------------------------------------------------------------------------- forms


def _candidate(
    it: DocItem, docset: DocSet, stale: Staleness | None, ctx: ContextConfig, embedding_used: bool, reason: str
) -> Candidate:
    doc = it.doc
    scores = {
        "bm25": round(it.bm25, 4),
        "embedding": round(it.cosine, 4) if it.cosine is not None else 0.0,
        "link": 1.0 if it.explicit else 0.0,
        "relevance": round(it.relevance, 4),
        "final": round(it.score, 4),
    }
    return Candidate(
        kind="doc",
        path=doc.path,
        ref=doc.slug,
        title=doc.title,
        forms=doc_forms(doc, _best_sections(it, docset, ctx, embedding_used), stale),
        score=round(it.score, 4),
        request=need_doc(doc.slug),
        scores=scores,
        reasons=(reason, *it.via),
        staleness=stale,
    )


def _best_sections(it: DocItem, docset: DocSet, ctx: ContextConfig, embedding_used: bool) -> list[int]:
    """Indexes of the doc's sections most relevant to the issue, best first."""
    secs = it.doc.sections
    if not secs:
        return []
    rel = {i: _relevance(it.sec_own.get(i, 0.0), it.sec_sem.get(i, 0.0), ctx, embedding_used) for i in range(len(secs))}
    pinned = []
    for heading in it.headings:
        sec = docset.section(it.doc, heading)
        if sec is not None and sec in secs:
            pinned.append(secs.index(sec))
    ranked = sorted(rel, key=lambda i: (-rel[i], i))
    best = rel[ranked[0]]
    chosen = [i for i in ranked if rel[i] > 0 and rel[i] >= 0.5 * best]
    out = list(dict.fromkeys(pinned + chosen))
    return out or [ranked[0]]
