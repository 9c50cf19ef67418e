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
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from noface_ctx.datatypes import Candidate, Doc, Issue, Section, Staleness
from noface_ctx.docs.cache import TermCache
from noface_ctx.docs.load import DocSet, doc_forms, parse_wikilinks
from noface_ctx.docs.markup import is_record
from noface_ctx.lexical import BM25, bm25_idf, tokenize, zscore

if TYPE_CHECKING:
    from noface_ctx.config import Config
    from noface_ctx.rank.complexity import Complexity
    from noface_ctx.rank.embed import Embedder

# Stale docs are downranked by subtracting this many z-units from the fused score; their
# relevance is untouched, so staleness alone never drops a doc.
STALE_PENALTY = {"fresh": 0.0, "possibly stale": 0.25, "stale": 0.5}
# Lexical evidence: the IDF-weighted share of the issue's terms found in a section, mapped
# linearly from LEX_FLOOR (chance overlap, 0) to LEX_FULL (1).
LEX_FLOOR, LEX_FULL = 0.15, 0.55
MIN_QUERY_TERMS = 6.0  # a query with fewer informative terms is judged as if it had this many
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
# Function words that carry no topic; left out of lexical evidence (BM25 still sees them).
WEAK_TERMS = frozenset(
    """about after again all also always am any because been before being both cannot did do does doing
    done during each eight even ever every few first five four get gets got had having here how however
    just let like made make makes many may me might more most much must my need needs new now one only
    other our out over said same say says second see seems seven since six so some still such than
    though three through too two under until up us use used uses using very via want was way well what
    when where whether which while who why within without yet""".split()
)
BM25_TOP_N = 30  # lexical candidates considered per issue
EMBED_ALL_LIMIT = 60  # vaults up to this size are embedded whole (semantic-only finds)
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "embedding_used": self.embedding_used,
            "notes": list(self.notes),
            "warnings": list(self.warnings),
            "docs": [dict(r) for r in self.report],
        }


@dataclass(slots=True)
class _Item:
    """Everything known about one candidate doc while ranking."""

    doc: Doc
    via: list[str] = field(default_factory=list)
    explicit: str = ""  # "link" | "named" | ""
    headings: list[str] = field(default_factory=list)  # `[[slug#heading]]` from the issue
    bm25: float = 0.0
    lexical: float = 0.0
    cosine: float | None = None
    sec_lex: dict[int, float] = field(default_factory=dict)  # section index → lexical evidence
    sec_own: dict[int, float] = field(default_factory=dict)  # the same, without title/description
    sec_cos: dict[int, float] = field(default_factory=dict)
    sec_sem: dict[int, float] = field(default_factory=dict)  # section index → semantic evidence
    semantic: float = 0.0
    relevance: float = 0.0
    score: float = 0.0


class _Corpus:
    """BM25 and IDF-weighted term coverage over every section of every doc."""

    def __init__(self, docset: DocSet, cache: TermCache | None = None) -> None:
        self.refs: list[tuple[Doc, int, Section]] = []
        tokens: list[list[str]] = []
        self.own: list[set[str]] = []  # the section's own terms, to pick a doc's best sections
        for doc in docset.docs:
            sections = doc_sections(doc)
            context, owns = cache.tokens(doc) if cache is not None else _doc_tokens(doc)
            for i, (sec, own) in enumerate(zip(sections, owns)):
                self.refs.append((doc, i, sec))
                self.own.append(set(own))
                tokens.append(context + own)
        self.sets = [set(t) for t in tokens]  # with the doc's title and description: doc relevance
        self.n = len(tokens)
        self.df: Counter[str] = Counter(t for s in self.sets for t in s)
        stored = cache.bm25() if cache is not None else None
        self.bm25 = stored if stored is not None else BM25(tokens)
        if cache is not None and stored is None:
            cache.keep_bm25(self.bm25)
        self._typical: float | None = None
        self._positions: dict[tuple[str, int], int] | None = None

    def position(self, slug: str, i: int) -> int:
        """Row of section `i` of doc `slug` in `refs`."""
        if self._positions is None:
            self._positions = {(doc.slug, j): n for n, (doc, j, _) in enumerate(self.refs)}
        return self._positions[(slug, i)]

    def idf(self, term: str) -> float:
        return bm25_idf(self.n, self.df.get(term, 0))

    def query_weights(self, terms: Sequence[str]) -> tuple[dict[str, float], float]:
        """Term → weight (IDF × log-damped frequency) for terms the vault uses, and the denominator."""
        tf = Counter(t for t in terms if t in self.df and t not in WEAK_TERMS)
        weights = {t: self.idf(t) * (1 + math.log(c)) for t, c in tf.items()}
        if self._typical is None:
            self._typical = sum(self.idf(t) for t in self.df) / max(1, len(self.df))
        return weights, max(sum(weights.values()), MIN_QUERY_TERMS * self._typical, 1e-9)

    def coverage(self, i: int, weights: Mapping[str, float], denom: float, *, own: bool = False) -> float:
        present = self.own[i] if own else self.sets[i]
        return sum(w for t, w in weights.items() if t in present) / denom


def _doc_tokens(doc: Doc) -> tuple[list[str], list[list[str]]]:
    """(terms of the title and description, terms of each section)."""
    sections = doc.sections or (Section(doc.slug, "", "", 0, 1, 1, doc.title),)
    return tokenize(f"{doc.title}\n{doc.description}"), [tokenize(sec.text) for sec in sections]


_CORPORA: list[tuple[DocSet, _Corpus]] = []  # the latest few, while their DocSet lives


def _corpus(docset: DocSet, config: Any) -> _Corpus:
    """The corpus of `docset`: kept in memory for the same DocSet, else built from cached terms."""
    for known, corpus in _CORPORA:
        if known is docset:
            return corpus
    cache = TermCache(config, docset, _doc_tokens) if len(docset) else None
    corpus = _Corpus(docset, cache)
    if cache is not None:
        cache.save()
    _CORPORA.insert(0, (docset, corpus))
    del _CORPORA[3:]
    return corpus


def _lex(coverage: float) -> float:
    return min(1.0, max(0.0, (coverage - LEX_FLOOR) / (LEX_FULL - LEX_FLOOR)))


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
    """Rank the vault's docs for `issue`; keep only those clearing the relevance bar."""
    ctx = config.context
    query = issue.query_text()
    warnings: list[str] = []
    notes: list[str] = []
    items: dict[str, _Item] = {}
    _add_explicit(issue, query, docset, config, items, warnings)
    corpus = _corpus(docset, config)
    terms = tokenize(query)
    weights, denom = corpus.query_weights(terms)
    sec_bm25 = corpus.bm25.scores(terms) if corpus.n else np.zeros(0)
    doc_bm25: dict[str, float] = {}
    for (doc, _, _), s in zip(corpus.refs, sec_bm25):
        doc_bm25[doc.slug] = max(doc_bm25.get(doc.slug, 0.0), float(s))
    if config.proactive_search:
        ranked = sorted((s for s in doc_bm25 if doc_bm25[s] > 0), key=lambda s: -doc_bm25[s])
        for slug in ranked[:BM25_TOP_N]:
            _item(items, docset.get(slug)).via.append("bm25")
        if embedder is not None and len(docset) <= EMBED_ALL_LIMIT:
            for doc in docset.docs:
                _item(items, doc)
    _add_neighbors(docset, config, complexity, doc_bm25, items)
    for slug in [s for s, it in items.items() if is_record(it.doc.path, ctx.record_dirs)]:
        del items[slug]  # release notes and changelogs are records, not design (NEED_DOC still serves them)
    for n, (doc, i, _) in enumerate(corpus.refs):
        item = items.get(doc.slug)
        if item is not None and item.doc is doc:
            item.sec_lex[i] = _lex(corpus.coverage(n, weights, denom))
            item.sec_own[i] = _lex(corpus.coverage(n, weights, denom, own=True))
            item.bm25 = doc_bm25.get(doc.slug, 0.0)
    for item in items.values():
        item.lexical = max(item.sec_lex.values(), default=0.0)
    prefetch = getattr(staleness, "prefetch", None)
    if callable(prefetch):  # a lazy Freshness judges only the docs ranked here, in one batch
        prefetch(list(items))
    embedding_used = False
    if embedder is not None and items:
        embedding_used = _embed(embedder, query, list(items.values()), corpus, sec_bm25, notes)
    elif embedder is None:
        notes.append(f"embeddings unavailable: {embed_note or 'no embedder'}; ranking is BM25 only")
    _score(list(items.values()), ctx, staleness, embedding_used)
    return _finish(items, docset, staleness, config, complexity, embedding_used, notes, warnings)


def _item(items: dict[str, _Item], doc: Doc | None) -> _Item:
    assert doc is not None
    if doc.slug not in items:
        items[doc.slug] = _Item(doc)
    return items[doc.slug]


def _add_explicit(
    issue: Issue, query: str, docset: DocSet, config: Any, items: dict[str, _Item], warnings: list[str]
) -> None:
    """Docs the issue wikilinks, or names by path or (hyphenated / backticked) slug."""
    if config.resolve_wikilinks:
        drafts = set(docset.drafts)
        for link in parse_wikilinks(query):
            doc = docset.resolve(link.target)
            if doc is None:
                if link.target in drafts or link.target.rsplit("/", 1)[-1] in drafts:
                    warnings.append(f"issue {issue.id}: {link.raw} links to a draft; not included")
                    continue
                close = docset.closest(link.target)
                hint = f" (did you mean {', '.join(close)}?)" if close else ""
                warnings.append(f"issue {issue.id}: unresolved wikilink {link.raw}{hint}")
                continue
            item = _item(items, doc)
            item.explicit = "link"
            if link.raw not in item.via:
                item.via.append(link.raw)
            if link.heading:
                item.headings.append(link.heading)
    low = query.lower()
    for doc in docset.docs:
        if doc.slug in items and items[doc.slug].explicit:
            continue
        how, explicit = _named(doc, docset.vault, low)
        if how:
            item = _item(items, doc)
            item.explicit = "named" if explicit else ""
            item.via.append(how)


def _named(doc: Doc, vault: str, low: str) -> tuple[str, bool]:
    """How the issue names `doc`, and whether that is as explicit as a link.

    A path, a backticked slug or `NEED_DOC: slug` is explicit; a hyphenated slug in running text
    (`error-handling`) may be an ordinary phrase, so it only makes the doc a candidate.
    """
    vrel = doc.path[len(vault) + 1 :] if vault not in ("", ".") and doc.path.startswith(vault + "/") else doc.path
    stem = vrel.rsplit(".", 1)[0]
    for ref in dict.fromkeys([doc.path, vrel] + ([stem] if "/" in stem else [])):
        # the substring test first: compiling a pattern per doc is what costs on a large vault
        if ref.lower() in low and re.search(rf"(?<![\w/.-]){re.escape(ref.lower())}(?![\w/-])", low):
            return f"path {ref} named in the issue", True
    if doc.slug not in low:
        return "", False
    slug = re.escape(doc.slug)
    if re.search(rf"`{slug}`|need_doc:\s*{slug}\b", low):
        return f"slug {doc.slug} named in the issue", True
    if "-" in doc.slug and re.search(rf"(?<![\w/-]){slug}(?![\w/-])", low):
        return f"slug {doc.slug} appears in the issue", False
    return "", False


def _add_neighbors(
    docset: DocSet, config: Any, complexity: Any, doc_bm25: Mapping[str, float], items: dict[str, _Item]
) -> None:
    """Docs linked from the top candidates (explicit ones, then the best BM25 hits)."""
    if not config.expand_neighbors or config.neighbor_depth <= 0:
        return
    seeds = [it.doc for it in items.values() if it.explicit]
    lexical = sorted((it for it in items.values() if not it.explicit), key=lambda it: -doc_bm25.get(it.doc.slug, 0))
    seeds += [it.doc for it in lexical[: max(2, complexity.k)] if doc_bm25.get(it.doc.slug, 0) > 0]
    seen = {d.slug for d in seeds}
    frontier = seeds
    for depth in range(1, config.neighbor_depth + 1):
        nxt = []
        for doc in frontier:
            for other in docset.neighbors(doc):
                item = _item(items, other)
                if not any(v.startswith("linked from") for v in item.via):
                    item.via.append(f"linked from {doc.slug}" + (f" (depth {depth})" if depth > 1 else ""))
                if other.slug not in seen:
                    seen.add(other.slug)
                    nxt.append(other)
        frontier = nxt


def section_embed_text(doc: Doc, sec: Section) -> str:
    """What the model reads for one section: title, heading, description and text, cut to about
    160 tokens. `noface-ctx index` embeds every section with this, so a query embeds only itself."""
    head = f"{doc.title}: {sec.heading}" if sec.heading and sec.heading != doc.title else doc.title
    return f"{head}\n{doc.description}\n{sec.text}"[:SECTION_CHARS]


def doc_sections(doc: Doc) -> tuple[Section, ...]:
    """The sections ranking sees (a doc without headings is one section)."""
    return doc.sections or (Section(doc.slug, "", "", 0, 1, 1, doc.title),)


def _embed(
    embedder: Any, query: str, items: list[_Item], corpus: _Corpus, sec_bm25: np.ndarray, notes: list[str]
) -> bool:
    """Cosine of the issue with each candidate's sections (best lexical sections first, capped)."""
    texts = [query[:QUERY_CHARS], *NULL_TEXTS]
    owners: list[tuple[_Item, int]] = []
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
    for (item, i), c in zip(owners, cos[1 + len(NULL_TEXTS) :]):
        item.sec_cos[i] = float(c)
        item.sec_sem[i] = min(1.0, max(0.0, (float(c) - floor) / COS_SPAN))
    for item in items:
        item.cosine = max(item.sec_cos.values(), default=0.0)
        item.semantic = max(item.sec_sem.values(), default=0.0)
    name = getattr(embedder, "name", type(embedder).__name__)
    notes.append(f"embeddings: {name} (semantic floor: cosine {floor:.2f})")
    return True  # the caller saves a CachedEmbedder once, after docs and code are both ranked


def _relevance(lexical: float, semantic: float, ctx: Any, embedding_used: bool) -> float:
    """Absolute relevance in [0, 1]: the weighted mean of lexical and semantic evidence."""
    if not embedding_used:
        return lexical
    bw, ew = ctx.bm25_weight, ctx.embedding_weight
    if bw + ew <= 0:
        return max(lexical, semantic)
    return (bw * lexical + ew * semantic) / (bw + ew)


def _score(items: list[_Item], ctx: Any, staleness: Mapping[str, Staleness], embedding_used: bool) -> None:
    """Fused order score (z-scores + link boost − stale penalty) and absolute relevance."""
    if not items:
        return
    zb = zscore(np.array([it.bm25 for it in items]))
    zc = zscore(np.array([it.cosine or 0.0 for it in items])) if embedding_used else np.zeros(len(items))
    ew = ctx.embedding_weight if embedding_used else 0.0
    for it, b, c in zip(items, zb, zc):
        stale = staleness.get(it.doc.slug)
        penalty = STALE_PENALTY.get(stale.verdict, 0.0) if stale is not None else 0.0
        boost = ctx.link_boost if it.explicit else 0.0
        it.score = float(ctx.bm25_weight * b + ew * c + boost - penalty)
        it.relevance = _relevance(it.lexical, it.semantic, ctx, embedding_used)
    # Explicit docs come first; keep `score` consistent with that order for anyone sorting by it.
    others = [it.score for it in items if not it.explicit]
    for it in items:
        if it.explicit and others and it.score <= max(others):
            it.score = max(others) + 0.001


def _finish(
    items: dict[str, _Item],
    docset: DocSet,
    staleness: Mapping[str, Staleness],
    config: Any,
    complexity: Any,
    embedding_used: bool,
    notes: list[str],
    warnings: list[str],
) -> DocRanking:
    ctx = config.context
    order = sorted(items.values(), key=lambda it: (not it.explicit, -it.score, it.doc.path))
    candidates: list[Candidate] = []
    rows: list[dict[str, Any]] = []
    for it in order:
        bar = ctx.instruction_min_score if it.doc.is_instruction else ctx.doc_min_score
        lexical_ok = not it.doc.is_instruction or not embedding_used or it.lexical >= ctx.doc_min_score
        relevant = bool(it.explicit) or (it.relevance >= bar and lexical_ok)
        stale = staleness.get(it.doc.slug)
        reason = _reason(it, bar, relevant, stale, embedding_used, ctx.doc_min_score)
        if relevant:
            candidates.append(_candidate(it, docset, stale, ctx, embedding_used, reason))
        rows.append(_row(it, relevant, reason, bar, stale))
    rows.sort(key=lambda r: not r["relevant"])
    k = _effective_k(items, config, complexity, notes)
    return DocRanking(tuple(candidates), tuple(rows), k, embedding_used, tuple(notes), tuple(warnings))


def _effective_k(items: Mapping[str, _Item], config: Any, complexity: Any, notes: list[str]) -> int:
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
    it: _Item, bar: float, relevant: bool, stale: Staleness | None, embedding_used: bool, lex_bar: float
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


def _row(it: _Item, relevant: bool, reason: str, bar: float, stale: Staleness | None) -> dict[str, Any]:
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
    it: _Item, docset: DocSet, stale: Staleness | None, ctx: Any, embedding_used: bool, reason: str
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
        request=f"NEED_DOC: {doc.slug}",
        scores=scores,
        reasons=tuple([reason, *it.via]),
        staleness=stale,
    )


def _best_sections(it: _Item, docset: DocSet, ctx: Any, embedding_used: bool) -> list[int]:
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
