"""Versions `presence` reads, asked of git together (`read_ahead`): the same versions and answers as
reading them one at a time, without a round trip each."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx import _git as gitmod
from noface_ctx.datatypes import Doc
from noface_ctx.freshness.history import HistoryIndex
from noface_ctx.freshness.name_lookups import identifiers_among
from noface_ctx.freshness.read_ahead import removal_reads, started, within_scope
from noface_ctx.freshness.references import Reference
from noface_ctx.freshness.scan import DocScan


def _one_at_a_time(index, doc, at, lacking):
    """What `Presence._unlaundered` read before: each doc's versions newest first, one round trip each."""
    start = {}
    versions = index.earlier(doc, at.seq) if lacking else []
    for c, path in versions:
        lacking = identifiers_among(index.versions.text_at(c.sha, path) or "", lacking)
        start.update(dict.fromkeys(lacking, c))
        if not lacking:
            break
    return versions, lacking, start


def _counting(monkeypatch):
    reads: list[tuple[str, str]] = []
    real = gitmod.Blobs.read_object
    monkeypatch.setattr(gitmod.Blobs, "read_object", lambda self, rev, path: reads.append((rev, path)) or real(self, rev, path))
    return reads


def _docs_history(repo_factory):
    root = repo_factory({"docs/a.md": "Use `old_name` and `kept_name`.\n", "docs/b.md": "Call `other()`.\n",
                         "docs/c.md": "Nothing here.\n", "pkg/mod.py": "def kept_name():\n    pass\n"})
    for i in range(4):  # the docs edited four times: `old_name` written in a.md's last two versions only
        (root / "docs/a.md").write_text(("Use `old_name` and `kept_name`.\n" if i >= 2 else "Use `kept_name`.\n") + "x\n" * i)
        (root / "docs/b.md").write_text("Call `other()`.\n" + "y\n" * i)
        commit(root, f"edit {i}")
    head = git(root, "rev-parse", "HEAD").strip()
    index = HistoryIndex(root, None)
    index.update(head)
    return root, index, index.commit(head)


def test_earlier_versions_read_in_rounds_answer_as_one_doc_at_a_time(repo_factory, monkeypatch):
    _root, index, head = _docs_history(repo_factory)
    asks = [("docs/a.md", head, {"old_name", "kept_name", "never"}), ("docs/b.md", head, {"other"}),
            ("docs/c.md", head, set())]  # c.md lacks nothing: none of its versions is read
    try:
        alone = HistoryIndex(index.root, None)
        alone.update(head.sha)
        one = [_one_at_a_time(alone, doc, at, set(lacking)) for doc, at, lacking in asks]
        reads = _counting(monkeypatch)
        got = started(index, asks)
        assert got == one
        assert got[0][1] == {"kept_name"}  # in every version read back; `old_name` from edit 2 on, `never` in none
        assert got[0][2]["old_name"].subject == "edit 2" and set(got[0][2]) == {"old_name", "kept_name"}
        assert got[2] == ([], set(), {})
        assert reads == []  # every version read in the rounds' passes, none alone
        alone.close()
    finally:
        index.close()


def test_removal_reads_are_the_code_files_of_the_scope_where_the_name_was_found(repo_factory):
    root = repo_factory({"pkg/mod.py": "def gone():\n    pass\n", "pkg/other.py": "gone = 1\n",
                         "pkg/gone.py": "X = 1\n", "pkg/data.json": '{"gone": 1}\n', "docs/a.md": "Call `pkg.mod.gone()`.\n"})
    head = git(root, "rev-parse", "HEAD").strip()
    index = HistoryIndex(root, None)
    try:
        index.update(head)
        at = index.commit(head)
        doc = Doc("docs/a.md", "a", "a", "Call `pkg.mod.gone()`.\n")
        scoped = Reference("pkg.mod.gone()", "pkg.mod.gone", "method", 1, True, "span", "", False)
        bare = Reference("gone", "gone", "symbol", 1, True, "span", "", False)
        files = {"pkg/mod.py", "pkg/other.py", "pkg/gone.py", "pkg/data.json"}
        never = Reference("pkg.mod.absent()", "pkg.mod.absent", "method", 1, True, "span", "", False)
        plans = [(DocScan(doc, candidates=((scoped, "gone", ("pkg/mod.py",)), (bare, "gone", ()),
                                           (bare, "absent", ()), (never, "absent", ("pkg/mod.py", "pkg/data.json")))), at)]
        got = list(removal_reads(plans, [{"gone": (at, files)}], index))
        assert sorted(got) == [(head, "pkg/mod.py"), (head, "pkg/mod.py"), (head, "pkg/mod.py"), (head, "pkg/other.py")]
        # not the data file (no code), not the module named like it (its blob id tells); a bare name never found: nothing,
        # a module's name never found: its module file's versions (the one here)
        assert within_scope(index, sorted(files), ("pkg/mod.py",), at) == ["pkg/mod.py"]
        assert within_scope(index, sorted(files), (), at) == sorted(files)
    finally:
        index.close()
