"""Judgements kept in history.sqlite equal fresh ones, and an edit to the code invalidates them."""

from __future__ import annotations

from conftest import LOGIN_CODE, commit, git, login_repo

from noface_ctx import _state as state
from noface_ctx.code.index import CodeIndex
from noface_ctx.config import load_config
from noface_ctx.docs.load import load_docs
from noface_ctx.files.gate import scan_repo
from noface_ctx.freshness import scan as freshness_mod
from noface_ctx.freshness.assess import assess_docs


def _assess(root, *, index: bool = True, slugs=None):
    config = load_config(root)
    repo_files = scan_repo(config)
    docset = load_docs(config, repo_files)
    symbols = CodeIndex.build(repo_files, config) if index else None
    return assess_docs(docset.docs, repo_files, symbols, config, slugs)


def test_freshness_from_disk_equals_a_fresh_judgement(tmp_path):
    root = login_repo(tmp_path / "repo")
    git(root, "mv", "src/login.py", "src/signin.py")
    (root / "src/signin.py").write_text(LOGIN_CODE.replace("get_user", "fetch_user"))
    commit(root, "rename")
    first = dict(_assess(root).details.items())
    assert first["auth"].staleness.verdict == "stale"
    state.clear_all()  # what a new process sees: only the disk
    calls = []
    real = freshness_mod.extract_references
    freshness_mod.extract_references = lambda doc: calls.append(doc.path) or real(doc)
    try:
        again = dict(_assess(root).details.items())
    finally:
        freshness_mod.extract_references = real
    assert again == first
    assert calls == []  # every judgement came from history.sqlite


def test_an_uncommitted_rename_invalidates_cached_freshness(tmp_path):
    root = login_repo(tmp_path / "repo")
    assert _assess(root).by_slug["auth"].verdict == "fresh"
    (root / "src/login.py").write_text(LOGIN_CODE.replace("get_user", "fetch_user"))  # same HEAD, same size class
    stale = _assess(root).by_slug["auth"]
    assert stale.verdict == "stale"
    assert [m.suggestion for m in stale.missing] == ["fetch_user"]


def test_docs_are_judged_only_when_asked(tmp_path, monkeypatch):
    root = login_repo(tmp_path / "repo")
    judged: list[str] = []
    real = freshness_mod.extract_references
    monkeypatch.setattr(freshness_mod, "extract_references", lambda doc: judged.append(doc.path) or real(doc))
    fresh = _assess(root, index=False, slugs=["auth", "sessions"])
    assert sorted(judged) == ["docs/auth.md", "docs/sessions.md"]
    assert fresh.get("auth").references == ("get_user", "src/login.py")
    assert "plain" not in fresh.by_slug and set(fresh.details) == {"auth", "sessions"}
    assert judged.count("docs/plain.md") == 0
    every = _assess(root, index=False)  # no slugs: every doc
    assert set(every.details) == {"auth", "sessions", "plain"}
    assert [d.slug for d in every.details.values()] == ["auth", "plain", "sessions"]
    assert judged.count("docs/plain.md") == 1
