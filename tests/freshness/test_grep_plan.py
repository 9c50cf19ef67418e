"""Greps at many commits, each file version searched once (`grep_plan`): the answers equal one
`git grep` per ask, on a real repository whose files change at different commits."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx import _git as gitrun
from noface_ctx.freshness.grep_plan import plan
from noface_ctx.freshness.history import HistoryIndex


def _history(root):
    shas = git(root, "rev-list", "--reverse", "HEAD").split()
    index = HistoryIndex(root, None)
    index.update(shas[-1])
    return index, shas


def test_planned_greps_answer_each_ask_as_its_own_grep_would(repo_factory):
    root = repo_factory({"a.py": "def alpha():\n    pass\n", "b.py": "beta = 1\n", "c.py": "gamma = alpha\n",
                         "notes.txt": "alpha beta\n"})
    (root / "a.py").write_text("def alpha_v():\n    pass\n")
    commit(root, "rename alpha in a")
    (root / "b.py").write_text("beta = 2\ndelta = 3\n")
    commit(root, "b changes")
    (root / "c.py").unlink()
    (root / "d.py").write_text("gamma = beta\n")
    commit(root, "c goes, d comes")
    index, shas = _history(root)
    everything = ["a.py", "b.py", "c.py", "d.py"]
    asks = {
        "first": (shas[0], {"alpha", "beta", "gamma"}, everything),
        "second": (shas[1], {"alpha", "delta", "alpha_v"}, ["a.py", "b.py", "c.py"]),
        "third": (shas[2], {"beta", "delta"}, ["b.py", "d.py"]),
        "last": (shas[3], {"gamma", "beta"}, everything),
        "whole": (shas[1], {"beta"}, None),
        "elsewhere": ("HEAD", {"gamma"}, ["d.py"]),
    }
    planned = plan(index, asks)
    got = planned.answers([gitrun.grep_words(root, [g.sha], g.words, paths=g.files) for g in planned.greps])
    want = {key: gitrun.grep_words(root, [sha], names, paths=files) for key, (sha, names, files) in asks.items()}
    assert got == want
    assert want["first"] == {"alpha": {"a.py", "c.py"}, "beta": {"b.py"}, "gamma": {"c.py"}}
    searched = [(g.sha, f) for g in planned.greps for f in g.files or ()]
    assert len(searched) == len(set(searched))
    # c.py is one version from the first commit to the third: searched once for the three asks there
    assert sum(1 for sha, f in searched if f == "c.py" and sha in shas[:3]) == 1


def test_identifiers_and_other_words_are_searched_alike(repo_factory):
    root = repo_factory({"m.py": "x = obj.attr\ny = conf.get('a-b')\nz = attrs\n"})
    hits = gitrun.grep_words(root, ["HEAD"], ["attr", "obj.attr", "a-b", "att"])
    assert hits == {"attr": {"m.py"}, "obj.attr": {"m.py"}, "a-b": {"m.py"}}
