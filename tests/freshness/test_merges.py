"""A finding names the commit that made the change, not the merge that brought it onto the
first-parent chain ("Merge pull request #1602 from ...": the pull request's commit "Changed
default of convolve to 'fill'"; flask's "Merge pull request #2395": the commit removing `flask.ext`)."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.history import HistoryIndex
from noface_ctx.freshness.merges import chain_seq, merged_change

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"
APR = "2025-04-01T12:00:00+00:00"

CODE = '''def convolve(array, kernel, boundary=None):
    return array


def smooth(array):
    return array
'''
DOC = """Convolution
===========

Call :func:`pkg.convolution.smooth` first.

By default, ``boundary`` is ``None`` in :func:`pkg.convolution.convolve`.
"""


def _merged(root, message: str, edit) -> str:
    """Make `edit` on a branch, merge it with a merge commit; the branch commit's short sha."""
    branch = git(root, "rev-parse", "--abbrev-ref", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "feature")
    edit()
    commit(root, message, date=FEB)
    change = git(root, "rev-parse", "--short=10", "HEAD").strip()
    git(root, "checkout", "-q", branch)
    (root / "README.md").write_text("A project.\n")
    commit(root, "readme", date=FEB)
    git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #1 from someone/feature", "feature", date=MAR)
    return change


def test_a_removal_and_a_default_changed_on_a_merged_branch_name_the_branch_commit(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/convolution.py": CODE, "docs/using.rst": DOC}, date=JAN)
    assert {f.path for f in check_docs(repo=root).findings} == set()

    def edit():
        (root / "pkg/convolution.py").write_text(CODE.split("\n\n\n", 1)[0].replace("boundary=None", 'boundary="fill"') + "\n")

    change = _merged(root, "Changed default of convolve to 'fill'; smooth goes", edit)
    merge = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = [f.message for f in check_docs(repo=root).findings]
    assert len(got) == 2 and all(change in m and merge not in m for m in got), got
    # (`convolve`'s change is its default only: told once, as the default line 6 states, not also as a signature)
    assert [m.split()[0] for m in sorted(got)] == ["default", "references"]


def test_a_merged_commit_is_placed_at_its_merge_on_the_first_parent_chain(repo_factory, tmp_path):
    root = repo_factory({"pkg/__init__.py": "", "pkg/convolution.py": CODE, "docs/using.rst": DOC}, date=JAN)

    def edit():
        (root / "pkg/convolution.py").write_text(CODE.split("\n\n\n", 1)[0] + "\n")

    change = _merged(root, "smooth goes", edit)
    index = HistoryIndex(root, tmp_path / "history.sqlite")
    index.update(git(root, "rev-parse", "HEAD").strip())
    merge = index.latest()
    assert merge is not None and merge.subject.startswith("Merge pull request")
    assert chain_seq(index, change) == merge.seq and chain_seq(index, merge.sha[:10]) == merge.seq
    assert chain_seq(index, "uncommitted edits") is None
    removed = merged_change(index, merge, "pkg/convolution.py",
                            lambda sha: "def smooth" not in (index.versions.text_at(sha, "pkg/convolution.py") or ""))
    assert removed.sha.startswith(change) and removed.seq == merge.seq
    index.close()


def test_a_package_deleted_on_a_merged_branch_names_the_branch_commit_that_deleted_it(repo_factory):
    # flask's "remove deprecated flask.ext" (715a9a3e7b), merged as "Merge pull request #2395": the doc's
    # `from flask.ext import foo` is blamed on the branch commit, not on the merge
    ext = "\"\"\"Extensions, imported from pkg.ext.\"\"\"\n\n\ndef activate():\n    return None\n"
    doc = "Extensions\n==========\n\nImport them from :mod:`pkg.ext`::\n\n    from pkg.ext import activate\n    activate()\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/ext/__init__.py": ext, "pkg/app.py": "def run():\n    return 1\n",
                         "docs/extensions.rst": doc}, date=JAN)
    assert check_docs(repo=root).findings == ()

    def edit():
        git(root, "rm", "-q", "-r", "pkg/ext")

    change = _merged(root, "remove deprecated pkg.ext", edit)
    merge = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = [f.message for f in check_docs(repo=root).findings]
    assert got and all(change in m and merge not in m for m in got), got
    assert any("`pkg.ext`" in m for m in got), got


def test_a_name_a_module_lost_on_a_merged_branch_before_the_doc_was_written_names_the_branch_commit(repo_factory):
    # werkzeug's "Refactor the routing code into multiple files" (88125bee), merged as "Merge pull request
    # #2433": `routing.py` became the package `routing/` whose `__init__` no longer imports `NotFound`; a
    # doc written after the merge imports it from there still
    rules = "".join(f"class Rule{i}:\n    def match(self, path):\n        return path == {i!r}\n\n\n" for i in range(12))
    routing = f"from .exceptions import NotFound\n\n\n{rules}class Map:\n    pass\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/exceptions.py": "class NotFound(Exception):\n    pass\n",
                         "pkg/routing.py": routing, "README.md": "A project.\n"}, date=JAN)

    def edit():
        (root / "pkg/routing").mkdir()
        git(root, "mv", "pkg/routing.py", "pkg/routing/__init__.py")
        (root / "pkg/routing/__init__.py").write_text(routing.replace("from .exceptions import NotFound\n", ""))

    change = _merged(root, "Refactor the routing code into multiple files", edit)
    merge = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "docs").mkdir()
    (root / "docs/routing.rst").write_text("Routing\n=======\n\nMatch a URL::\n\n    from pkg.routing import Map, NotFound\n\n"
                                           "    urls = Map()\n")
    commit(root, "docs: routing", date=APR)  # written after the merge: `NotFound` was gone from `pkg.routing` then
    got = [f.message for f in check_docs(repo=root).findings]
    assert len(got) == 1 and "`NotFound`" in got[0] and change in got[0] and merge not in got[0], got


def test_a_change_merged_after_the_doc_was_updated_says_when_it_was_merged(repo_factory):
    # webargs' "Type annotate the MultiDictProxy class" (2024-07-27) came onto the chain after the
    # doc's last update (07-28): "changed 07-27 since this doc was last updated 07-28" read oddly
    root = repo_factory({"pkg/__init__.py": "", "pkg/convolution.py": CODE, "docs/using.rst": DOC}, date=JAN)

    def edit():
        (root / "pkg/convolution.py").write_text(CODE.split("\n\n\n", 1)[0] + "\n")

    change = _merged(root, "smooth goes", edit)  # the branch's commit on FEB, its merge on MAR
    got = [f.message for f in check_docs(repo=root).findings]
    assert got and all(f'{change} (2025-02-01, "smooth goes", merged 2025-03-01)' in m for m in got), got
    # negative: a change made on the chain itself says no merge
    (root / "pkg/convolution.py").write_text(CODE.replace("boundary=None", "edges=None"))
    commit(root, "rename boundary", date=APR)
    got = [f.message for f in check_docs(repo=root).findings if "rename boundary" in f.message]
    assert got and not any("merged" in m for m in got), got
