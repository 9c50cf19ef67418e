"""Which docs an issue's ranking considers: explicit links and names, the best BM25 hits over
sections, the docs they link to; with each candidate's BM25 and lexical evidence.

Lexical evidence is the IDF-weighted share of the issue's topic terms found in a section
(`noface_ctx.rank.docs` explains how it enters relevance). The corpus (terms and BM25 of every
section) is kept in memory per `DocSet`, and on disk in the `TermCache`, which `choose_docs`
only reads: the pipeline saves it (`DocPool.save_terms`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from noface_ctx._lexical import BM25, bm25_idf, tokenize
from noface_ctx._state import Memo, memo
from noface_ctx.datatypes import Doc, Issue, Section
from noface_ctx.docs.cache import TermCache, Terms
from noface_ctx.docs.docset import DocSet
from noface_ctx.docs.markup import is_record, parse_wikilinks
from noface_ctx.issue.environment import query_text

if TYPE_CHECKING:
    from noface_ctx.config import Config
    from noface_ctx.rank.complexity import Complexity

# Lexical evidence: the IDF-weighted share of the issue's terms found in a section, mapped
# linearly from LEX_FLOOR (chance overlap, 0) to LEX_FULL (1).
LEX_FLOOR, LEX_FULL = 0.15, 0.55
MIN_QUERY_TERMS = 6.0  # a query with fewer informative terms is judged as if it had this many
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


@dataclass(slots=True)
class DocItem:
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


class DocCorpus:
    """BM25 and IDF-weighted term coverage over every section of every doc."""

    def __init__(self, docset: DocSet, cache: TermCache | None = None) -> None:
        self.refs: list[tuple[Doc, int, Section]] = []
        self._terms: list[tuple[list[str], list[str]]] = []  # (the doc's title terms, the section's own)
        for doc in docset.docs:
            sections = doc_sections(doc)
            context, owns = cache.tokens(doc) if cache is not None else _doc_tokens(doc)
            for i, (sec, own) in enumerate(zip(sections, owns, strict=False)):
                self.refs.append((doc, i, sec))
                self._terms.append((context, own))
        self.n = len(self._terms)
        # Each section's term sets are built when a query first looks at it (a query looks at
        # a few hundred of django's 10,725 sections).
        self._sets: dict[int, set[str]] = {}  # with the doc's title and description: doc relevance
        self._own: dict[int, set[str]] = {}  # the section's own terms, to pick a doc's best sections
        stored, df = cache.bm25() if cache is not None else (None, None)
        if stored is None or df is None:
            stored = BM25([context + own for context, own in self._terms])
            df = dict(Counter(t for i in range(self.n) for t in self._set(i)))
            if cache is not None:
                cache.keep_bm25(stored, df)
        self.bm25 = stored
        self.df: Mapping[str, int] = df
        self._typical: float | None = None
        self._positions: dict[tuple[str, int], int] | None = None

    def _set(self, i: int) -> set[str]:
        got = self._sets.get(i)
        if got is None:
            context, own = self._terms[i]
            got = self._sets[i] = set(context).union(own)
        return got

    def _own_set(self, i: int) -> set[str]:
        got = self._own.get(i)
        if got is None:
            got = self._own[i] = set(self._terms[i][1])
        return got

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
        present = self._own_set(i) if own else self._set(i)
        return sum(w for t, w in weights.items() if t in present) / denom


def _doc_tokens(doc: Doc) -> Terms:
    """(terms of the title and description, terms of each section)."""
    sections = doc.sections or (Section(doc.slug, "", "", 0, 1, 1, doc.title),)
    return tokenize(f"{doc.title}\n{doc.description}"), [tokenize(sec.text) for sec in sections]


# the latest few corpora, by the identity of the DocSet they were built from (kept with it)
_CORPORA: Memo[int, tuple[DocSet, DocCorpus]] = memo("rank.doc_corpora", maxsize=3)


def _corpus(docset: DocSet, config: Config) -> tuple[DocCorpus, TermCache | None]:
    """The corpus of `docset`: kept in memory for the same DocSet, else built from cached terms;
    with the `TermCache` it was built from when that is new (the caller saves it)."""
    known = _CORPORA.get(id(docset))
    if known is not None and known[0] is docset:
        return known[1], None
    cache = TermCache(config, docset, _doc_tokens) if len(docset) else None
    corpus = DocCorpus(docset, cache)
    _CORPORA.put(id(docset), (docset, corpus))
    return corpus, cache


def _lex(coverage: float) -> float:
    return min(1.0, max(0.0, (coverage - LEX_FLOOR) / (LEX_FULL - LEX_FLOOR)))


@dataclass(slots=True)
class DocPool:
    """The candidate docs for one issue, chosen before freshness judges them; `score_docs`
    (`noface_ctx.rank.docs`) orders them and fills in their evidence."""

    docset: DocSet
    query: str
    items: dict[str, DocItem]  # slug -> candidate, in the order chosen
    corpus: DocCorpus
    sec_bm25: np.ndarray  # BM25 of the issue against every section of `corpus`
    warnings: list[str]
    terms: TermCache | None = None  # terms tokenised for this pool and not saved yet

    @property
    def slugs(self) -> list[str]:
        """The candidates' slugs: the docs whose staleness scoring reads."""
        return list(self.items)

    def save_terms(self) -> None:
        """Write the term cache built while choosing (the pipeline's call, once ranking is done)."""
        if self.terms is not None:
            self.terms.save()
            self.terms = None


def prepare_terms(docset: DocSet, config: Config) -> None:
    """Build and store the vault's terms and BM25 index (what a first prompt would): `index`."""
    _, cache = _corpus(docset, config)
    if cache is not None:
        cache.save()


def choose_docs(issue: Issue, docset: DocSet, config: Config, complexity: Complexity, *,
                embedding: bool) -> DocPool:
    """The docs ranking will score for `issue` (links and names, the best BM25 hits, their
    neighbours; every doc of a small vault when `embedding`), records left out, with their BM25
    and lexical evidence. Reads the term cache; writes nothing (see `DocPool.save_terms`)."""
    ctx = config.context
    query = query_text(issue)
    warnings: list[str] = []
    items: dict[str, DocItem] = {}
    _add_explicit(issue, query, docset, config, items, warnings)
    corpus, terms_cache = _corpus(docset, config)
    terms = tokenize(query)
    weights, denom = corpus.query_weights(terms)
    sec_bm25 = corpus.bm25.scores(terms) if corpus.n else np.zeros(0)
    doc_bm25: dict[str, float] = {}
    for (doc, _, _), s in zip(corpus.refs, sec_bm25, strict=False):
        doc_bm25[doc.slug] = max(doc_bm25.get(doc.slug, 0.0), float(s))
    if config.proactive_search:
        ranked = sorted((s for s in doc_bm25 if doc_bm25[s] > 0), key=lambda s: -doc_bm25[s])
        for slug in ranked[:BM25_TOP_N]:
            _item(items, docset.get(slug)).via.append("bm25")
        if embedding and len(docset) <= EMBED_ALL_LIMIT:
            for doc in docset.docs:
                _item(items, doc)
    _add_neighbors(docset, config, complexity, doc_bm25, items)
    for slug in [s for s, it in items.items() if is_record(it.doc.path, ctx.record_dirs)]:
        del items[slug]  # release notes and changelogs are records, not design (NEED_DOC still serves them)
    own = _issue_file(issue, config)
    for slug in [s for s, it in items.items() if it.doc.path == own]:
        del items[slug]  # `preview issue.md` at the top level: the issue is in the prompt already, not a doc
    for n, (doc, i, _) in enumerate(corpus.refs):
        item = items.get(doc.slug)
        if item is not None and item.doc is doc:
            item.sec_lex[i] = _lex(corpus.coverage(n, weights, denom))
            item.sec_own[i] = _lex(corpus.coverage(n, weights, denom, own=True))
            item.bm25 = doc_bm25.get(doc.slug, 0.0)
    for item in items.values():
        item.lexical = max(item.sec_lex.values(), default=0.0)
    return DocPool(docset, query, items, corpus, sec_bm25, warnings, terms_cache)


def _issue_file(issue: Issue, config: Config) -> str:
    """The repository-relative path of the file the issue was read from, or ''."""
    source = Path(issue.source) if issue.source else None
    if source is None or not source.is_file():  # relative: found from the working directory
        return ""
    try:
        return source.resolve().relative_to(Path(config.root).resolve()).as_posix()
    except ValueError:
        return ""


def _item(items: dict[str, DocItem], doc: Doc | None) -> DocItem:
    assert doc is not None
    if doc.slug not in items:
        items[doc.slug] = DocItem(doc)
    return items[doc.slug]


def _add_explicit(
    issue: Issue, query: str, docset: DocSet, config: Config, items: dict[str, DocItem], warnings: list[str]
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
    docset: DocSet, config: Config, complexity: Complexity, doc_bm25: Mapping[str, float], items: dict[str, DocItem]
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


def doc_sections(doc: Doc) -> tuple[Section, ...]:
    """The sections ranking sees (a doc without headings is one section)."""
    return doc.sections or (Section(doc.slug, "", "", 0, 1, 1, doc.title),)
