"""File versions read from git: many at once, each blob once, a bounded memory."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx import _git as gitmod
from noface_ctx.freshness import versions
from noface_ctx.freshness.versions import FileVersions


def _history(repo_factory):
    root = repo_factory({"a.py": "def a():\n    return 1\n", "pkg/b.py": "B = 'é'\n"})
    first = git(root, "rev-parse", "HEAD").strip()
    (root / "pkg/b.py").write_text("B = 2\n")
    commit(root, "change b only")
    second = git(root, "rev-parse", "HEAD").strip()
    return root, first, second


def test_many_versions_read_at_once_answer_as_one_at_a_time(repo_factory):
    root, first, second = _history(repo_factory)
    wanted = [(first, "a.py"), (first, "missing.py"), (first, "pkg"), (second, "pkg/b.py"), (first, "pkg/b.py"),
              (second, "a.py")] * 200  # more than a pipe holds: the writer and the reader must not wait on each other
    blobs = gitmod.Blobs(root)
    try:
        many = blobs.read_many(wanted)
        one_by_one = [blobs.read_object(rev, path) for rev, path in wanted]
    finally:
        blobs.close()
    assert many == one_by_one
    assert many[0] is not None and many[0][1] == "def a():\n    return 1\n"
    assert many[1] is None and many[2] is None  # not there; a directory is no file (and its answer is read past)
    assert many[3] is not None and many[3][1] == "B = 2\n" and many[4] is not None and many[4][1] == "B = 'é'\n"
    assert many[0][0] == many[5][0]  # a.py unchanged: one blob at both commits


def test_a_file_unchanged_between_commits_is_read_once(repo_factory, monkeypatch):
    root, first, second = _history(repo_factory)
    reads = []
    real = gitmod.Blobs.read_object

    def counting(self, rev, path):
        reads.append((rev, path))
        return real(self, rev, path)

    monkeypatch.setattr(gitmod.Blobs, "read_object", counting)
    files = FileVersions(root)
    try:
        assert files.text_at(first, "a.py") == files.text_at(second, "a.py") == "def a():\n    return 1\n"
        assert files.blob(first, "a.py") == files.blob(second, "a.py")
        assert files.text_at(first, "nope.py") is None
        files.prefetch([(first, "pkg/b.py"), (second, "pkg/b.py"), (first, "a.py")])
        reads_before = len(reads)
        assert files.text_at(first, "pkg/b.py") == "B = 'é'\n" and files.text_at(second, "pkg/b.py") == "B = 2\n"
        assert len(reads) == reads_before  # answered from the prefetch
    finally:
        files.close()
    assert reads == [(first, "a.py"), (second, "a.py"), (first, "nope.py")]  # each (commit, path) asked once


def test_texts_kept_are_bounded_and_forgotten_ones_read_again(repo_factory, monkeypatch):
    root, first, second = _history(repo_factory)
    monkeypatch.setattr(versions, "TEXTS_KEPT", 10)  # fewer characters than both versions of pkg/b.py
    files = FileVersions(root)
    try:
        old, new = files.blob(first, "pkg/b.py"), files.blob(second, "pkg/b.py")
        assert old is not None and new is not None
        assert list(files._texts) == [new]  # private: the older text forgotten (kept texts are not public)
        assert files.text(old) == "B = 'é'\n"  # read again by its id
    finally:
        files.close()


def test_prefetching_stops_after_half_the_memory_and_the_rest_is_read_when_asked(repo_factory, monkeypatch):
    root, first, second = _history(repo_factory)
    monkeypatch.setattr(versions, "TEXTS_KEPT", 20)  # half of it: less than one version of a.py
    monkeypatch.setattr(versions, "PREFETCH_BATCH", 1)
    files = FileVersions(root)
    try:
        files.prefetch([(first, "a.py"), (second, "pkg/b.py"), (first, "pkg/b.py")])
        assert list(files._ids) == [(first, "a.py")]  # private: one pass, then no more
        assert files.text_at(second, "pkg/b.py") == "B = 2\n" and files.text_at(first, "a.py") == "def a():\n    return 1\n"
    finally:
        files.close()


def test_prefetching_reads_ahead_while_the_texts_kept_are_full(repo_factory, monkeypatch):
    """Texts kept from earlier questions fill the memory: a prefetch still reads its versions in one
    pass (the oldest texts make room, as for a version asked), and the questions make no round trip."""
    root, first, second = _history(repo_factory)
    monkeypatch.setattr(versions, "TEXTS_KEPT", 30)  # a.py (22 characters) and one of pkg/b.py's versions
    files = FileVersions(root)
    reads = []
    real = gitmod.Blobs.read_object
    monkeypatch.setattr(gitmod.Blobs, "read_object", lambda self, rev, path: reads.append((rev, path)) or real(self, rev, path))
    try:
        assert files.text_at(first, "a.py") == "def a():\n    return 1\n"  # 22 of 30 characters kept: over half
        files.prefetch([(first, "pkg/b.py"), (second, "pkg/b.py")])
        assert reads == [(first, "a.py")]  # the two versions read ahead in one pass, none asked alone
        assert files.text_at(first, "pkg/b.py") == "B = 'é'\n" and files.text_at(second, "pkg/b.py") == "B = 2\n"
        assert reads == [(first, "a.py")]
        assert files.text_at(first, "a.py") == "def a():\n    return 1\n"  # pushed out by them: read again
    finally:
        files.close()
