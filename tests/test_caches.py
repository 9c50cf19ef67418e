"""Speed work (issue #4) must not change answers: warm results equal cold ones, and every cache
notices the change that should invalidate it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import commit, git, write_tree

from noface_ctx import _cachefile as cachefile
from noface_ctx import _state as state
from noface_ctx.code.index import CodeIndex
from noface_ctx.config import load_config
from noface_ctx.datatypes import Doc, Issue
from noface_ctx.docs.load import load_docs
from noface_ctx.files.gate import scan_repo
from noface_ctx.freshness import scan as freshness_mod
from noface_ctx.freshness.assess import assess_docs

JAN = "2025-01-01T12:00:00+00:00"
CODE = "def get_user(name):\n    return name\n\n\ndef logout(user):\n    return None\n"
DOCS = {
    "docs/auth.md": "# Auth\n\nCall `get_user()` in `src/login.py`.\n",
    "docs/sessions.md": "# Sessions\n\nEnd a session with `logout()`.\n",
    "docs/plain.md": "# Plain\n\nNo code here.\n",
}


def _forget_memory() -> None:
    """What a new process would see: nothing in memory, only what is on disk."""
    state.clear_all()


def _assess(root: Path, *, index: bool = True, slugs=None):
    config = load_config(root)
    repo_files = scan_repo(config)
    docset = load_docs(config, repo_files)
    symbols = CodeIndex.build(repo_files, config) if index else None
    return assess_docs(docset.docs, repo_files, symbols, config, slugs)


def _repo(repo_factory) -> Path:
    return repo_factory({"src/__init__.py": "", "src/login.py": CODE, **DOCS}, date=JAN)


# --------------------------------------------------------------------------- freshness


def test_freshness_from_disk_equals_a_fresh_judgement(repo_factory):
    root = _repo(repo_factory)
    git(root, "mv", "src/login.py", "src/signin.py")
    (root / "src/signin.py").write_text(CODE.replace("get_user", "fetch_user"))
    commit(root, "rename")
    first = dict(_assess(root).details.items())
    assert first["auth"].staleness.verdict == "stale"
    _forget_memory()
    calls = []
    real = freshness_mod.extract_references
    freshness_mod.extract_references = lambda doc: calls.append(doc.path) or real(doc)
    try:
        again = dict(_assess(root).details.items())
    finally:
        freshness_mod.extract_references = real
    assert again == first
    assert calls == []  # every judgement came from history.sqlite


def test_an_uncommitted_rename_invalidates_cached_freshness(repo_factory):
    root = _repo(repo_factory)
    assert _assess(root).by_slug["auth"].verdict == "fresh"
    (root / "src/login.py").write_text(CODE.replace("get_user", "fetch_user"))  # same HEAD, same size class
    stale = _assess(root).by_slug["auth"]
    assert stale.verdict == "stale"
    assert [m.suggestion for m in stale.missing] == ["fetch_user"]


def test_docs_are_judged_only_when_asked(repo_factory, monkeypatch):
    root = _repo(repo_factory)
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


# --------------------------------------------------------------------------- files and docs


def test_warm_scan_is_reused_only_while_nothing_changed(repo_factory):
    root = repo_factory({"a.py": "x = 1\n", "docs/a.md": "# A\n"})
    config = load_config(root)
    old = os.stat(root / "a.py").st_mtime_ns - 10_000_000_000  # well before the racy window
    for rel in ("a.py", "docs/a.md"):
        os.utime(root / rel, ns=(old, old))
    first = scan_repo(config)
    assert scan_repo(config) is first
    (root / "b.py").write_text("y = 2\n")
    second = scan_repo(config)
    assert second is not first and second.get("b.py") is not None
    assert second.fingerprint != first.fingerprint
    (root / "b.py").write_text("TOKEN = 'ghp_" + "Zq8Rt2Lm9Xc4Vb7Nk1Jh6Gf3Ds5Aw0Pe2Ty8Ui'\n")
    third = scan_repo(config)
    assert third.get("b.py") is None and third.exclusion("b.py").category == "secret"


def test_walk_without_git_sees_new_files(tmp_path):
    root = tmp_path / "plain"
    write_tree(root, {"src/a.py": "x = 1\n", ".gitignore": "build.log\n"})
    config = load_config(root)
    first = scan_repo(config)
    assert [f.path for f in first.files] == [".gitignore", "src/a.py"]
    write_tree(root, {"src/b.py": "y = 2\n", "build.log": "noise\n"})
    assert [f.path for f in scan_repo(config).files] == [".gitignore", "src/a.py", "src/b.py"]


def test_load_docs_reuses_parses_and_sees_edits(repo_factory):
    root = _repo(repo_factory)
    config = load_config(root)
    first = load_docs(config, scan_repo(config))
    (root / "docs/plain.md").write_text("# Plain\n\nNow it mentions `logout()`.\n")
    second = load_docs(config, scan_repo(config))
    plain = next(d for d in second.docs if d.slug == "plain")
    assert "logout" in plain.text
    assert next(d for d in second.docs if d.slug == "auth") is next(d for d in first.docs if d.slug == "auth")


def test_doc_ranking_is_the_same_from_cached_terms(repo_factory):
    from noface_ctx.rank import doc_candidates as rc
    from noface_ctx.rank import docs as rd
    from noface_ctx.rank.complexity import Complexity

    root = _repo(repo_factory)
    config = load_config(root)
    docset = load_docs(config, scan_repo(config))
    issue = Issue(id="x", title="get_user fails for sessions", description="logout breaks sessions after get_user")
    args = (issue, docset, {}, config, None, Complexity(0.5, 2, ()))
    pool = rc.choose_docs(issue, docset, config, args[5], embedding=False)
    pool.save_terms()  # what the pipeline does once ranking is done
    cold = rd.score_docs(pool, {}, config, None, args[5])
    _forget_memory()
    warm = rd.rank_docs(*args)  # terms and BM25 from doc-terms.cache
    assert warm.report == cold.report and [c.ref for c in warm.candidates] == [c.ref for c in cold.candidates]
    stored = rc.choose_docs(issue, docset, config, args[5], embedding=False).corpus  # read back, sets built on demand
    built = rc.DocCorpus(docset)  # from the docs themselves
    assert dict(stored.df) == dict(built.df) and stored.n == built.n
    assert all(stored.coverage(i, {"sessions": 1.0}, 1.0) == built.coverage(i, {"sessions": 1.0}, 1.0)
               for i in range(built.n))


@pytest.mark.parametrize("damage", [b"", b"not a pickle", b"\x80\x04K\x01."])
def test_a_damaged_cache_file_is_rebuilt(tmp_path, damage):
    path = tmp_path / "x.cache"
    assert cachefile.save(path, 1, {"a": 1})
    assert cachefile.load(path, 1) == {"a": 1} and cachefile.load(path, 2) is None
    path.write_bytes(damage)
    _forget_memory()
    assert cachefile.load(path, 1) is None


def test_stage_benchmark_reports_every_stage_cold_and_warm(repo_factory):
    from benchmarks.speed import measure, parse_args, render

    root = _repo(repo_factory)
    before = os.environ["NOFACE_CTX_CACHE_DIR"]
    # `python benchmarks/speed.py --repo-dir DIR --stages` measures BM25 only unless --embed is given
    assert parse_args(["--repo-dir", str(root), "--stages"]).embed is False
    assert parse_args(["--repo-dir", str(root), "--stages", "--embed"]).embed is True
    assert parse_args(["--repo-dir", str(root)]).embed is True
    result = measure(root, budget=4000, runs=2, embed=False, profile=5)
    assert {"files", "docs", "index", "freshness", "ranking", "budget"} <= set(result["cold_stages_ms"])
    assert set(result["warm_stages_ms"]) == set(result["cold_stages_ms"]) and len(result["warm_s"]) == 2
    table = render(result, stages=True)
    assert "| freshness |" in table and "| **sum** |" in table and "cumulative" in table
    assert "| freshness |" in render(result) and "peak RSS" in render(result)
    assert os.environ["NOFACE_CTX_CACHE_DIR"] == before  # the temp cache is gone, the caller's is back


@pytest.mark.parametrize("field,value", [("heading", 7), ("level", "2"), ("level", True), ("start_line", None),
                                         ("extra", "x")])
def test_an_object_with_a_field_of_the_wrong_type_makes_the_file_absent(tmp_path, field, value):
    from noface_ctx.datatypes import Section

    path = tmp_path / "x.cache"
    good = Section("doc", "Heading", "heading", 2, 1, 3, "text")
    assert cachefile.save(path, 1, {"s": good, "opt": Doc(path="d.md", slug="d", title="T", text="", date=None)})
    _forget_memory()
    assert cachefile.load(path, 1) == {"s": good, "opt": Doc(path="d.md", slug="d", title="T", text="", date=None)}
    data = path.read_bytes()
    n = len(cachefile.MAGIC)
    header = json.loads(data[n + 8:n + 8 + int.from_bytes(data[n:n + 8], "little")])

    def write(v):
        header["value"]["s"]["v"][field] = v  # the object as stored, one field forged
        head = json.dumps(header).encode()
        path.write_bytes(cachefile.MAGIC + len(head).to_bytes(8, "little") + head)
        _forget_memory()

    if field != "extra":  # the control: a forged value of the right type is read
        write({"heading": "Other", "level": 3, "start_line": 2}[field])
        assert getattr(cachefile.load(path, 1)["s"], field) == {"heading": "Other", "level": 3, "start_line": 2}[field]
    write(value)
    forged = path.read_bytes()
    assert forged != data
    assert cachefile.load(path, 1) is None
