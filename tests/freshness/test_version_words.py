"""Words at commits from blobs each read once (`version_words.VersionWords`): the same answer as
`git grep -w -I` (`_git.grep_words`) on real repositories, whatever the files are (symlinks,
binaries, a `-diff` attribute, a directory named, a path not there, excluded suffixes), and a
blob read again only for words it was not asked."""

from __future__ import annotations

import os

from conftest import commit, git

from noface_ctx import _git as gitrun
from noface_ctx.freshness.version_words import VersionWords

EXCLUDES = ("*.po", "*.png", "*.md")


def _odd_repo(repo_factory):
    root = repo_factory({
        "a.py": "alpha = beta_gamma(delta)\n# alpha_v2 x.alpha\n",
        "b.py": "x = 'éalpha'\nclass Beta: pass  # beta\n",
        "bin.py": b"alpha\0beta\n",  # a NUL in the first 8,000 bytes: binary
        "late.py": b"x" * 9000 + b"\0 alpha\n",  # a NUL after them: text
        "attr.py": "alpha\n",  # `-diff`: binary by its attribute
        "forced.dat": b"\0alpha\n",  # `diff`: text by its attribute, NUL or not
        "pkg/deep/mod.py": "delta = 1\n",
        "notes.md": "alpha\n",
        "messages.po": "alpha\n",
        "dir.po/inside.py": "alpha\n",  # an excluded suffix on a directory: its files are searched
        "obj.py": "value = obj.attr\nname = 'a-b'\n",
        ".gitattributes": "attr.py -diff\nforced.dat diff\n",
    })
    os.symlink("alpha", root / "link")  # a symlink's target is not searched
    commit(root, "a symlink")
    return root


def _both(root, sha, words, paths):
    old = gitrun.grep_words(root, [sha], words, exclude=EXCLUDES, paths=paths)
    return old, VersionWords(root).grep_words(sha, words, EXCLUDES, paths)


def test_the_answer_is_git_greps_for_every_kind_of_file(repo_factory):
    root = _odd_repo(repo_factory)
    everything = ["a.py", "b.py", "bin.py", "late.py", "attr.py", "forced.dat", "pkg", "notes.md", "messages.po",
                  "dir.po/inside.py", "obj.py", "link", "gone.py"]
    words = {"alpha", "beta", "Beta", "delta", "beta_gamma", "alpha_v2", "obj.attr", "a-b", "gamma", "x"}
    old, new = _both(root, "HEAD", words, everything)
    assert new == old
    assert new["alpha"] == {"a.py", "b.py", "late.py", "forced.dat", "dir.po/inside.py"}
    assert new["delta"] == {"a.py", "pkg/deep/mod.py"}
    assert new["obj.attr"] == {"obj.py"} and new["a-b"] == {"obj.py"}
    assert "gamma" not in new  # a part of `beta_gamma` is not a word
    whole_old, whole_new = _both(root, "HEAD", words, None)
    assert whole_new == whole_old
    assert _both(root, "HEAD", words, []) == ({}, {})


def test_answers_at_each_commit_and_blobs_read_once(repo_factory):
    root = repo_factory({"a.py": "def alpha():\n    pass\n", "b.py": "beta = alpha\n"})
    first = git(root, "rev-parse", "HEAD").strip()
    (root / "a.py").write_text("def alpha_v():\n    beta = 2\n")
    commit(root, "rename")
    reader = VersionWords(root)

    def reads() -> int:  # every blob read is one entry of the words asked of it
        return sum(len(asked) for asked in reader._asked.values())  # private: a spy on the blobs read
    asks = [(first, {"alpha", "beta"}, ["a.py", "b.py"]), ("HEAD", {"alpha", "alpha_v"}, ["a.py", "b.py"])]
    got = reader.grep_many(asks, EXCLUDES)
    assert got == [gitrun.grep_words(root, [sha], words, exclude=EXCLUDES, paths=paths) for sha, words, paths in asks]
    assert got[0] == {"alpha": {"a.py", "b.py"}, "beta": {"b.py"}} and got[1] == {"alpha": {"b.py"}, "alpha_v": {"a.py"}}
    assert reads() == 3  # b.py is one blob at both commits: read once for both asks' words
    again = reader.grep_words("HEAD", {"alpha", "beta"}, EXCLUDES, ["a.py", "b.py"])
    assert again == {"alpha": {"b.py"}, "beta": {"a.py", "b.py"}}
    assert reads() == 4  # only HEAD's a.py was never asked `beta`; b.py was
    reader.close()
    assert reader.grep_words(first, {"alpha"}, EXCLUDES, ["a.py"]) == {"alpha": {"a.py"}}  # after close: started again


def test_a_blob_git_cannot_read_is_noted_as_git_grep_notes_it(repo_factory):
    root = repo_factory({"a.py": "alpha = 1\n", "b.py": "alpha = 2\n"})
    oid = git(root, "rev-parse", "HEAD:a.py").strip()
    (root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()  # as a partial clone lacks it
    gitrun.unread(root)
    old = gitrun.grep_words(root, ["HEAD"], {"alpha"}, paths=["a.py", "b.py"])
    assert gitrun.unread(root) == {oid}
    assert VersionWords(root).grep_words("HEAD", {"alpha"}, (), ["a.py", "b.py"]) == old == {"alpha": {"b.py"}}
    assert gitrun.unread(root) == {oid}
