"""Blame for a line written long ago, and through merges: where a doc wrote a line is read further back than one
reach of its versions (`written_since.dated_starts`: the oldest version read is where the reading stopped, not the
writing: more-itertools' `.. autofunction:: sample(iterable, k=1, ...)`, written in c11195a "Add sample" 150 versions
back, was blamed on f4c59950fa "Doc changes for 8.6.0", a merged commit that only touched the page); and a merged
branch's commit is the one that made the change, not one that touched the file while the change was already there
(`merges.merged_change`)."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.history import HistoryIndex
from noface_ctx.freshness.merges import merged_change
from noface_ctx.freshness.written_since import LINE_REACH

CODE = "def sample(iterable, k, weights=None):\n    return list(iterable)[:k]\n"
API = "API\n===\n\n.. currentmodule:: pkg\n\n.. autofunction:: sample(iterable, k=1, weights=None)\n\nEdit 0.\n"


def _day(i: int) -> str:
    return f"2025-{1 + i // 28:02d}-{1 + i % 28:02d}T12:00:00+00:00"


def test_a_line_older_than_one_reach_of_versions_is_blamed_on_its_writing(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.more import sample\n", "pkg/more.py": CODE,
                         "docs/api.rst": "API\n===\n"}, date=_day(0))
    (root / "docs/api.rst").write_text(API)
    commit(root, "docs: write sample", date=_day(1))
    wrote = git(root, "rev-parse", "--short=10", "HEAD").strip()
    for i in range(1, LINE_REACH + 12):  # more versions than one reach, each editing another line
        (root / "docs/api.rst").write_text(API.replace("Edit 0.", f"Edit {i}."))
        commit(root, f"docs: edit {i}", date=_day(1 + i))
    got = check_docs(repo=root).lines()
    assert len(got) == 1 and f"wrong since {wrote}" in got[0] and "docs: write sample" in got[0], got


def test_a_merged_commit_touching_a_file_that_already_held_the_change_made_nothing(repo_factory, tmp_path):
    root = repo_factory({"pkg/__init__.py": "", "docs/api.rst": API}, date=_day(0))
    main = git(root, "rev-parse", "--abbrev-ref", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "feature")
    (root / "docs/api.rst").write_text(API.replace("Edit 0.", "Edit 1."))
    commit(root, "docs: another line", date=_day(1))
    git(root, "checkout", "-q", main)
    (root / "README.md").write_text("A project.\n")
    commit(root, "readme", date=_day(2))
    git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #2 from someone/feature", "feature", date=_day(3))
    index = HistoryIndex(root, tmp_path / "history.sqlite")
    index.update(git(root, "rev-parse", "HEAD").strip())
    merge = index.latest()
    assert merge is not None

    def holds(word: str):
        return lambda sha: word in (index.versions.text_at(sha, "docs/api.rst") or "")

    assert merged_change(index, merge, "docs/api.rst", holds("k=1")).sha == merge.sha  # there before the branch
    made = merged_change(index, merge, "docs/api.rst", holds("Edit 1."))  # the branch's commit made this one
    assert made.sha != merge.sha and made.subject == "docs: another line" and made.seq == merge.seq
    index.close()
