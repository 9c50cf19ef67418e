"""`build_prompt()`: config → issue + manifest → files → docs + code index → complexity →
embedder → doc candidates → freshness (of those candidates) → ranking → budget → render, one
helper per stage. The only module importing them all.

Each stage's function does its own work only: freshness (git, `history.sqlite`) runs as its own
stage on exactly the docs ranking will score, and the caches ranking builds (doc terms,
embeddings) are saved here once ranking is done.

The finished prompt is counted once more at the end: if joining the blocks cost a few tokens
more than the packer assumed, the lowest-scored item moves to OMITTED CONTEXT until it fits.
The prompt never exceeds the budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from noface_ctx._budget import above_floor, select, weak_unlisted
from noface_ctx._explain import Packed, assemble_prompt
from noface_ctx._render import Fixed, fixed_sections, frame_tokens, render_prompt
from noface_ctx._stages import code_index, shared_embedder
from noface_ctx._tokens import count_tokens
from noface_ctx._wording import (
    NO_CODE,
    NO_CODE_FIT,
    NO_CODE_IN_REPO,
    NO_DOCS,
    NO_DOCS_FIT,
    NO_DOCS_IN_REPO,
    NO_DOCS_NEEDED,
    floor_note,
)
from noface_ctx.code.index import CodeIndex, is_sized_out_source
from noface_ctx.config import Config, cache_warnings, load_config
from noface_ctx.datatypes import Candidate, Chosen, Issue, IssueRef, ManifestRef, Omitted, Prompt, RepoFiles, Selection
from noface_ctx.docs.docset import DocSet
from noface_ctx.docs.load import load_docs
from noface_ctx.errors import UsageError
from noface_ctx.files.gate import admitted, scan_repo
from noface_ctx.freshness.assess import Freshness, assess_docs
from noface_ctx.freshness.clashes import find_clashes
from noface_ctx.issue.load import load_issue_with_warnings
from noface_ctx.rank.code import EMBED_FAILED, CodeRanking, rank_code
from noface_ctx.rank.code_forms import CLASS_OUTLINE
from noface_ctx.rank.complexity import Complexity, assess_complexity
from noface_ctx.rank.doc_candidates import DocPool, choose_docs
from noface_ctx.rank.docs import DocRanking, score_docs
from noface_ctx.rank.embed import Embedder
from noface_ctx.rank.vector_store import CachedEmbedder
from noface_ctx.trust.effects import DocTrust, weigh_docs

T = TypeVar("T")
P = ParamSpec("P")

MIN_BUDGET = 500  # below this no useful prompt exists, whatever the issue
MAX_OMITTED = 15
# rank_code's scores are fused z-scores plus boosts: at or below 0 a snippet is no better than the
# pool's average, so when it does not fit it is not listed under OMITTED CONTEXT either.
LIST_CODE_ABOVE = 0.0
# The relevance floor for ranked code, on the same scale: a ranked snippet scoring at or below it,
# two standard deviations under the pool's average, is neither included, however much budget
# remains, nor listed; CODE CONTEXT ends with a line saying so (`wording.floor_note`). Manifest
# items are never dropped. At 0 (the pool average) the floor lost gold files at 50k tokens on dev
# rows (gold definitions scored -0.1 to -1.9); -2 keeps them and still cuts the weakest ~40 % of
# candidates (docs/budget-and-selection.md, docs/benchmarks.md).
CODE_FLOOR = -2.0
_MIN_ISSUE_TOKENS = 40  # the issue text is never shrunk below this to make room


@dataclass(slots=True)
class _Run:
    """Timings and warnings collected while the stages run."""

    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    important: list[str] = field(default_factory=list)  # warnings that change the result: kept by -q
    embedded_now: int = 0  # texts without a stored vector, embedded during this prompt
    _seen: set[str] = field(default_factory=set)
    _seen_important: set[str] = field(default_factory=set)

    def stage(self, name: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn(*args, **kwargs)`, its time booked to `name` (added up when a stage runs in parts).
        Typed with a ParamSpec, so the checker sees each call's arguments as if `fn` were called
        directly (`tests/test_pipeline_types.py`)."""
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            ms = (time.perf_counter() - start) * 1000
            self.timings[name] = round(self.timings.get(name, 0.0) + ms, 1)

    def warn(self, items: Sequence[str], *, important: bool = False) -> None:
        """Add `items` once each, in order (a set keeps this linear however many warnings come)."""
        for w in items:
            if w and w not in self._seen:
                self._seen.add(w)
                self.warnings.append(w)
            if w and important and w not in self._seen_important:
                self._seen_important.add(w)
                self.important.append(w)


def build_prompt(
    issue: IssueRef,
    repo: str | Path = ".",
    *,
    config: Config | str | Path | None = None,
    manifest: ManifestRef | None = None,
    budget: int | None = None,
    embed: bool | Embedder | None = None,
) -> Prompt:
    """Build the implementation prompt for `issue` in `repo`, never over `budget` tokens.

    `issue`: a beads id, a path (.json/.md/.txt), a dict or an `Issue`. `config`: a `Config` (its
    root is the repository: a different `repo` is a `UsageError`), a path to a toml file, or None
    (read `<repo>/.noface.toml`). `manifest` overrides the issue's.
    `budget` defaults to `[context] budget_tokens`. `embed`: None follows `[context] embeddings`,
    False ranks with BM25 only, True forces the model, an `Embedder` instance is used as is.
    """
    run = _Run()
    cfg = run.stage("config", _config, config, repo)
    total = cfg.context.budget_tokens if budget is None else int(budget)
    run.warn(cfg.warnings, important=True)
    embedder, store, embed_note = run.stage("embedder", _embedder, cfg, embed)  # a new process loads it meanwhile
    if embedder is None and embed is not False and (embed is True or cfg.context.embeddings):
        run.warn([embed_note], important=True)  # the model asked for is not there: BM25 only
    the_issue = run.stage("issue", _issue, issue, cfg, manifest, run)
    _check_budget(cfg, the_issue, total)
    files = run.stage("files", scan_repo, cfg, the_issue.manifest)
    docset = run.stage("docs", load_docs, cfg, files)
    index = run.stage("index", code_index, files, cfg)
    run.warn(cache_warnings(cfg), important=True)
    complexity = run.stage("complexity", _complexity, the_issue, cfg, files, index)
    pool = run.stage("ranking", choose_docs, the_issue, docset, cfg, complexity, embedding=embedder is not None)
    fresh = run.stage("freshness", assess_docs, docset.docs, files, index, cfg, pool.slugs)
    trust = run.stage("trust", _trust, cfg, pool, fresh)
    doc_rank, code_rank = run.stage("ranking", _rank, the_issue, cfg, files, docset, index, pool, fresh,
                                    complexity, embedder, store, embed_note, total, run, trust)
    run.stage("ranking", pool.save_terms)
    run.warn([*files.warnings, *docset.warnings, *fresh.warnings,
              *doc_rank.warnings, *code_rank.warnings])
    run.warn([w for w in code_rank.warnings if w.startswith(EMBED_FAILED)], important=True)
    packed = run.stage("budget", _pack, cfg, the_issue, total, files, docset, doc_rank, code_rank, run)
    return assemble_prompt(the_issue, total, files, doc_rank, code_rank, complexity, embed_note, packed, run,
                           CODE_FLOOR)


# --------------------------------------------------------------------------- early stages


def _config(config: Config | str | Path | None, repo: str | Path) -> Config:
    if isinstance(config, Config):
        if str(repo) != "." and Path(repo).resolve() != Path(config.root).resolve():
            raise UsageError(f"repo {str(repo)!r} is not the repository of the given Config ({config.root})")
        return config
    return load_config(repo, config)


def _check_budget(cfg: Config, issue: Issue, total: int) -> None:
    """Fail fast, before any indexing, on a budget no prompt could fit."""
    fixed = fixed_sections(cfg, issue, budget=total, manifest=issue.manifest, issue_limit=_MIN_ISSUE_TOKENS)
    need = frame_tokens(fixed)
    if need > total:
        raise UsageError(f"budget {total} is too small: the fixed sections alone need {need} tokens")
    if total < MIN_BUDGET:
        raise UsageError(f"budget {total} is too small: use at least {MIN_BUDGET} tokens")


def _issue(ref: Any, cfg: Config, manifest: Any, run: _Run) -> Issue:
    issue, warnings = load_issue_with_warnings(ref, cfg.root, manifest=manifest)
    run.warn(warnings, important=True)  # the issue and its manifest: what the agent may touch
    return issue


def _complexity(issue: Issue, cfg: Config, files: RepoFiles, index: CodeIndex) -> Complexity:
    return assess_complexity(
        issue,
        known_paths=[f.path for f in files.files],
        known_symbols=index.symbol_names(),
        max_docs=cfg.max_context_docs,
    )


def _embedder(cfg: Config, embed: bool | Embedder | None) -> tuple[Embedder | None, CachedEmbedder | None, str]:
    """(embedder or None, its disk cache when the model is ours, a note for the report). Only a
    model we load gets the disk cache; an `Embedder` the caller gives is used as is."""
    if embed is not None and not isinstance(embed, bool):
        return embed, None, f"embeddings: {getattr(embed, 'name', type(embed).__name__)} (given by the caller)"
    store, note = shared_embedder(cfg, enabled=cfg.context.embeddings if embed is None else embed)
    return store, store, note


def _trust(cfg: Config, pool: DocPool, fresh: Freshness) -> dict[str, DocTrust]:
    """The pool's docs' weights from the ledger's outcomes and, for agent notes, their age."""
    docs = [item.doc for item in pool.items.values()]
    updated = {}
    for doc in docs:
        stale = fresh.by_slug.get(doc.slug)
        updated[doc.path] = (stale.last_updated if stale is not None else None) or doc.updated or doc.date
    return weigh_docs(cfg, docs, updated)


def _rank(issue: Issue, cfg: Config, files: RepoFiles, docset: DocSet, index: CodeIndex, pool: DocPool,
          fresh: Freshness, complexity: Complexity, embedder: Embedder | None, store: CachedEmbedder | None,
          note: str, total: int, run: _Run, trust: dict[str, DocTrust]) -> tuple[DocRanking, CodeRanking]:
    """Rank docs (the pool, with their judged staleness) and code; if the model fails at run
    time, fall back to BM25 with a warning. `store`: the embedder's disk cache, saved after."""
    misses = store.misses if store is not None else 0
    try:
        doc_rank = score_docs(pool, fresh.by_slug, cfg, embedder, complexity, embed_note=note, trust=trust)
        code_rank = rank_code(issue, files, index, cfg, embedder, budget=total)
    except (OSError, ImportError, RuntimeError, ValueError) as exc:
        if embedder is None:
            raise
        run.warn([f"embedding model failed ({type(exc).__name__}: {exc}); ranking is BM25 only"], important=True)
        # Without an embedder the pool is the same or smaller (a small vault is no longer taken
        # whole), so every doc of it has been judged already.
        bm25_pool = choose_docs(issue, docset, cfg, complexity, embedding=False)
        return _rank(issue, cfg, files, docset, index, bm25_pool, fresh, complexity, None, None,
                     "embeddings failed; ranking is BM25 only", total, run, trust)
    if store is not None:
        try:
            store.save()
        except OSError as exc:  # a read-only cache must not fail the prompt
            run.warn([f"embedding cache not saved: {exc}"])
    run.embedded_now = store.misses - misses if store is not None else 0
    if run.embedded_now > QUERY_TEXTS:
        run.warn([f"{run.embedded_now} definitions and doc sections had no stored vector and were embedded "
                  "for this prompt; `noface-ctx index` precomputes them so a prompt embeds only the issue"])
    return doc_rank, code_rank


QUERY_TEXTS = 4  # texts a prompt embeds itself: the issue for docs and for code, the two null texts


# --------------------------------------------------------------------------- budget + render


def _pack(cfg: Config, issue: Issue, total: int, files: RepoFiles, docset: DocSet, doc_rank: DocRanking,
          code_rank: CodeRanking, run: _Run) -> Packed:
    doc_cands = _allowed(doc_rank.candidates, files, issue, run, cfg)
    code_cands, below = above_floor(_allowed(code_rank.candidates, files, issue, run, cfg), CODE_FLOOR)
    outlines = _allowed(code_rank.outlines, files, issue, run, cfg)
    tests = _allowed(code_rank.tests, files, issue, run, cfg)
    no_docs, no_code = _empty_reasons(docset, files, doc_cands, code_cands, doc_rank.k)
    below += code_rank.weak + weak_unlisted(code_cands)  # weak code not offered, or past the pointer cap
    note = floor_note(below) if code_cands else ""  # with nothing above the floor, no_code says it
    fixed = _fit_fixed(cfg, issue, total, no_docs, no_code, note)
    available = total - frame_tokens(fixed, no_docs=no_docs, no_code=no_code, code_note=note)
    selection = select(doc_cands, code_cands, available=available, docs_share=cfg.context.docs_share,
                       max_docs=doc_rank.k, max_omitted=MAX_OMITTED, list_code_above=LIST_CODE_ABOVE,
                       outlines=outlines, tests=tests)
    if doc_rank.quarantined:  # withheld by failures: listed first, with the command that restores each
        selection = replace(selection, omitted=(*doc_rank.quarantined, *selection.omitted))
    if fixed.issue_cut:
        run.warn([f"issue text truncated by {fixed.issue_cut} tokens to fit the budget"])
    return replace(final_count(fixed, selection, total, no_docs, no_code, note), below_floor=below)


def _allowed(cands: Sequence[Candidate], files: RepoFiles, issue: Issue, run: _Run, cfg: Config) -> list[Candidate]:
    """Defence in depth: nothing the gate (`files.admitted`) did not let through reaches the
    packer: not excluded, not forbidden, and a file the scan listed.

    One exception, by design: a source file excluded only for its size may give single
    definitions (never its whole text), because the function to edit often lives in one
    (`[context] split_large_sources`, on by default).
    """
    manifest = issue.manifest
    kept = []
    for cand in cands:
        split = (cand.kind == "code" and files.get(cand.path) is None and is_sized_out_source(files, cand.path, cfg)
                 and not any(f.label == "whole" for f in cand.forms))
        if not admitted(files, cand.path, manifest, single_definitions=split):
            run.warn([f"{cand.path}: dropped from context (excluded or forbidden)"])
            continue
        kept.append(cand)
    return kept


def _empty_reasons(docset: DocSet, files: RepoFiles, docs: Sequence[Candidate], code: Sequence[Candidate],
                   k: int) -> tuple[str, str]:
    """What an empty DESIGN / CODE CONTEXT section says, decided before packing."""
    if len(docset) == 0:
        no_docs = NO_DOCS_IN_REPO
    elif docs and k > 0:
        no_docs = NO_DOCS_FIT
    elif docs:
        no_docs = NO_DOCS_NEEDED
    else:
        no_docs = NO_DOCS
    if not any(f.kind == "code" for f in files.files):
        no_code = NO_CODE_IN_REPO
    elif code:
        no_code = NO_CODE_FIT
    else:
        no_code = NO_CODE
    return no_docs, no_code


def _fit_fixed(cfg: Config, issue: Issue, total: int, no_docs: str, no_code: str, note: str = "") -> Fixed:
    """The fixed sections, with the issue text shrunk further if they alone exceed the budget."""
    fixed = fixed_sections(cfg, issue, budget=total, manifest=issue.manifest)
    for _ in range(4):
        over = frame_tokens(fixed, no_docs=no_docs, no_code=no_code, code_note=note) - total
        if over <= 0:
            return fixed
        if fixed.issue_tokens <= _MIN_ISSUE_TOKENS:
            break
        limit = max(_MIN_ISSUE_TOKENS, fixed.issue_tokens - over - 8)
        fixed = fixed_sections(cfg, issue, budget=total, manifest=issue.manifest, issue_limit=limit)
    need = frame_tokens(fixed, no_docs=no_docs, no_code=no_code, code_note=note)
    if need <= total:
        return fixed
    raise UsageError(f"budget {total} is too small: the fixed sections alone need {need} tokens")


def _render(fixed: Fixed, sel: Selection, no_docs: str, no_code: str, note: str = "") -> tuple[str, tuple[str, ...]]:
    clashes = tuple(find_clashes([c.candidate for c in sel.docs])) if len(sel.docs) > 1 else ()
    return render_prompt(fixed, sel, clashes=clashes, no_docs=no_docs, no_code=no_code, code_note=note), clashes


def final_count(fixed: Fixed, sel: Selection, total: int, no_docs: str, no_code: str, note: str = "") -> Packed:
    """Count the finished text; while over, move the lowest-scored chosen item to OMITTED (a class
    outline goes first, unlisted: its methods still name their class)."""
    dropped: list[Omitted] = []
    text, clashes = _render(fixed, sel, no_docs, no_code, note)
    while count_tokens(text) > total:
        chosen = [*sel.docs, *sel.code]
        if chosen:
            # Doc and code scores are on different scales: ranked code goes first, then docs,
            # then manifest files, each lowest score first.
            victim = min(chosen, key=lambda c: (c.candidate.required, not _is_outline(c), c.candidate.kind == "doc",
                                                c.candidate.score))
            why = "dropped when the finished prompt was counted: over budget"
            code = tuple(c for c in sel.code if c is not victim)
            if _is_outline(victim):
                sel = replace(sel, code=code, skipped=(*sel.skipped, _as_omitted(victim, why)))
            else:  # outlines went first: none is left without its methods
                gone = _as_omitted(victim, why)
                dropped.append(gone)
                sel = replace(sel, docs=tuple(c for c in sel.docs if c is not victim), code=code,
                              omitted=(gone, *sel.omitted))
        elif sel.omitted:  # only omitted lines left: list fewer of them
            sel = replace(sel, omitted=sel.omitted[:-1], skipped=(*sel.skipped, sel.omitted[-1]))
        else:  # cannot happen: _fit_fixed proved the empty frame fits
            raise UsageError(f"budget {total} is too small for this issue's fixed sections")
        text, clashes = _render(fixed, sel, no_docs, no_code, note)
    return Packed(text, fixed, sel, clashes, tuple(dropped))


def _is_outline(item: Chosen) -> bool:
    return item.form.label == CLASS_OUTLINE


def _as_omitted(item: Chosen, reason: str) -> Omitted:
    c = item.candidate
    return Omitted(kind=c.kind, path=c.path, ref=c.ref, reason=reason, request=c.request, score=c.score,
                   required=c.required)
