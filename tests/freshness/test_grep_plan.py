"""Greps at many commits, each file version searched once (`grep_plan`): the answers equal one
`git grep` per ask, on a real repository whose files change at different commits."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx import _git as gitrun
from noface_ctx.freshness.grep_plan import plan
from noface_ctx.freshness.history import HistoryIndex


def _index_at_head(root, db=None) -> HistoryIndex:
    """The history index in `db` (in memory by default), brought up to the repository's HEAD."""
    index = HistoryIndex(root, db)
    index.update(git(root, "rev-parse", "HEAD").strip())
    return index


def _history(root):
    return _index_at_head(root), git(root, "rev-list", "--reverse", "HEAD").split()


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


# --------------------------------------------------------------------------- answers kept across commits


def _search(root, index, asks):
    from concurrent.futures import ThreadPoolExecutor

    from noface_ctx.freshness.grep_plan import Search

    with ThreadPoolExecutor(max_workers=2) as pool:
        search = Search(root, index, asks, pool)
        searched = sorted(f for g in search.plan.greps for f in g.files or ("<whole tree>",))
        found = search.result()
    index.save_judged([])
    return found, searched


def _touched_since(index, sha):
    return sorted(index.files_after(index.commit(sha).seq - 1))


def test_a_commit_keeps_the_answers_and_searches_only_the_files_it_added_to_the_scope(repo_factory, tmp_path):
    root = repo_factory({"a.py": "def alpha():\n    pass\n", "b.py": "beta = alpha\n", "c.py": "gamma = 1\n",
                         "d.py": "old_name = 1\n"})
    (root / "b.py").write_text("beta = 2\n")
    commit(root, "b changes")
    shas = git(root, "rev-list", "--reverse", "HEAD").split()
    db = tmp_path / "history.sqlite"
    index = _index_at_head(root, db)
    ask = lambda: {shas[0]: (shas[0], {"alpha", "old_name"}, _touched_since(index, shas[0]), True)}  # noqa: E731
    found, searched = _search(root, index, ask())
    assert found[shas[0]] == {"alpha": {"a.py", "b.py"}, "old_name": {"d.py"}}
    assert searched == ["a.py", "b.py", "c.py", "d.py"]
    again, searched = _search(root, index, ask())
    assert again == found and searched == []  # same HEAD: nothing searched
    index.close()

    (root / "notes.py").write_text("unrelated = 1\n")  # a commit touching an unrelated (new) file
    commit(root, "unrelated")
    index = _index_at_head(root, db)
    kept, searched = _search(root, index, ask())
    assert kept == found
    assert searched == []  # notes.py is not in the asked commit: no version there to search
    index.close()

    (root / "c.py").write_text("gamma = 2\n")  # files in the scope already: their versions there are searched
    (root / "d.py").write_text("new_name = 1\n")
    commit(root, "c and d change")
    index = _index_at_head(root, db)
    grown, searched = _search(root, index, ask())
    want = gitrun.grep_words(root, [shas[0]], {"alpha", "old_name"}, paths=_touched_since(index, shas[0]))
    assert grown[shas[0]] == want == {"alpha": {"a.py", "b.py"}, "old_name": {"d.py"}}
    assert searched == []  # c.py and d.py were in the scope already (touched at the asked commit)
    index.close()


def test_a_commit_touching_a_file_outside_the_scope_searches_that_file_at_the_asked_commit(repo_factory, tmp_path):
    root = repo_factory({"a.py": "def alpha():\n    pass\n", "b.py": "uses = alpha\n", "c.py": "gamma = 1\n"})
    (root / "c.py").write_text("gamma = 2\n")
    commit(root, "c changes")
    shas = git(root, "rev-list", "--reverse", "HEAD").split()
    db = tmp_path / "history.sqlite"
    index = _index_at_head(root, db)
    since = shas[1]  # the scope: files touched since the second commit (c.py only)
    ask = lambda: {since: (since, {"alpha", "gamma"}, _touched_since(index, since), True)}  # noqa: E731
    found, searched = _search(root, index, ask())
    assert found[since] == {"gamma": {"c.py"}} and searched == ["c.py"]
    index.close()

    (root / "b.py").write_text("uses = 2\n")  # mentioned `alpha` at the asked commit: joins the scope
    (root / "e.py").write_text("epsilon = alpha\n")  # new: no version at the asked commit
    commit(root, "b and e change")
    index = _index_at_head(root, db)
    grown, searched = _search(root, index, ask())
    assert searched == ["b.py"]  # what the commit added to the scope that the asked commit holds
    want = gitrun.grep_words(root, [since], {"alpha", "gamma"}, paths=_touched_since(index, since))
    assert grown[since] == want == {"alpha": {"b.py"}, "gamma": {"c.py"}}
    index.close()

    git(root, "reset", "-q", "--hard", shas[-1])  # HEAD leaves the line: kept answers of that HEAD go
    index = _index_at_head(root, db)
    redone, searched = _search(root, index, ask())
    assert redone[since] == found[since] and searched == ["c.py"]
    index.close()


def test_answers_whose_scope_the_key_fixes_hold_at_every_head(repo_factory, tmp_path):
    root = repo_factory({"a.py": "def alpha():\n    pass\n", "b.py": "beta = 1\n"})
    (root / "a.py").write_text("def alpha_v():\n    pass\n")
    commit(root, "rename alpha")
    shas = git(root, "rev-list", "--reverse", "HEAD").split()
    db = tmp_path / "history.sqlite"
    index = _index_at_head(root, db)
    asks = {shas[1] + "^": (shas[0], {"alpha"}, ["a.py"], False)}
    found, searched = _search(root, index, asks)
    assert found[shas[1] + "^"] == {"alpha": {"a.py"}} and searched == ["a.py"]
    index.close()
    (root / "a.py").write_text("alpha = None\n")  # touches the very file: the parent's version is the same
    commit(root, "a again")
    index = _index_at_head(root, db)
    kept, searched = _search(root, index, asks)
    assert kept == found and searched == []
    index.close()


def test_windows_list_what_commits_touched_and_stop_past_the_bound(repo_factory):
    from noface_ctx.freshness.grep_plan import END, windows

    root = repo_factory({"a.py": "a = 1\n", "b.py": "b = 1\n", "notes.md": "x\n"})
    (root / "a.py").write_text("a = 2\n")
    commit(root, "a")
    git(root, "mv", "b.py", "c.py")
    commit(root, "b becomes c")
    (root / "d.py").write_text("d = 1\n")
    (root / "notes.md").write_text("y\n")
    commit(root, "d, notes")
    index, shas = _history(root)
    seq = [index.commit(sha).seq for sha in shas]
    code = lambda path: path.endswith(".py")  # noqa: E731
    got = windows(index, [(seq[1], seq[2]), (seq[2], seq[2]), (seq[0], END), (seq[3], END)], code, limit=10)
    assert got == {(seq[1], seq[2]): ["a.py", "b.py", "c.py"], (seq[2], seq[2]): ["b.py", "c.py"],
                   (seq[0], END): ["a.py", "b.py", "c.py", "d.py"], (seq[3], END): ["d.py"]}
    for (first, last), files in got.items():  # as the index lists them
        assert files == sorted(p for p in index.files_after(first - 1, last if last != END else None) if code(p))
    bounded = windows(index, [(seq[0], END), (seq[3], END)], code, limit=2)
    assert bounded == {(seq[0], END): None, (seq[3], END): ["d.py"]}


# --------------------------------------------------------------------------- windows of history


def _window_by_hand(index, first, last, keep, limit):
    """What `windows` answers for one window, from the index's rows read afresh."""
    seen = sorted({p for seq, path, old in index.db.execute("SELECT seq, path, old FROM touches")
                   if first <= seq <= last for p in (path, old) if p and keep(p)})
    return seen if len(seen) <= limit else None


def test_windows_read_the_rows_once_and_follow_the_index_when_it_grows(repo_factory, tmp_path, monkeypatch):
    from noface_ctx.freshness import grep_plan

    monkeypatch.setattr(grep_plan._Touches, "STEP", 2)  # private: several chunks even in a small history
    root = repo_factory({"a.py": "a = 1\n", "notes.txt": "x\n"})
    for i in range(7):
        write = {"a.py": f"a = {i}\n"} if i % 2 else {f"m{i}.py": "m = 1\n", "notes.txt": f"{i}\n"}
        for name, text in write.items():
            (root / name).write_text(text)
        commit(root, f"change {i}")
    git(root, "mv", "m0.py", "moved.py")
    commit(root, "a rename")
    db = tmp_path / "history.sqlite"
    index = _index_at_head(root, db)
    top = index.db.execute("SELECT MAX(seq) FROM touches").fetchone()[0]
    reads = []
    spy = lambda self, k, read=grep_plan._Touches._read: (reads.append(k), read(self, k))[1]  # noqa: E731  # private: a spy on the reads
    monkeypatch.setattr(grep_plan._Touches, "_read", spy)  # private: a spy on the reads
    code = lambda p: p.endswith(".py")  # noqa: E731
    pairs = [(1, grep_plan.END), (3, grep_plan.END), (2, 5), (4, 4), (6, 2), (0, 3)]
    for limit in (100, 3):
        got = grep_plan.windows(index, pairs, code, limit)
        assert got == {(f, la): _window_by_hand(index, f, la, code, limit) for f, la in pairs}
    assert got[1, grep_plan.END] is None and "moved.py" in _window_by_hand(index, top, top, code, 100)
    assert len(reads) == len(set(reads))  # each chunk of rows read from sqlite once

    (root / "late.py").write_text("late = 1\n")  # a new commit: the rows are read again, the new one with them
    commit(root, "late")
    index.close()
    index = _index_at_head(root, db)
    got = grep_plan.windows(index, [(top + 1, grep_plan.END)], code, 100)
    assert got == {(top + 1, grep_plan.END): ["late.py"]}
    index.close()


def test_history_windows_read_the_touches_from_one_covering_index_even_in_an_older_cache(repo_factory, tmp_path):
    from noface_ctx.freshness.grep_plan import END, windows

    root = repo_factory({"a.py": "x = 1\n", "b.py": "y = 1\n"})
    (root / "b.py").write_text("y = 2\n")
    commit(root, "b")
    db = tmp_path / "history.sqlite"
    index = _index_at_head(root, db)
    want = windows(index, [(2, END)], lambda p: True, 10)
    index.db.executescript("DROP INDEX touches_seq_paths; CREATE INDEX touches_seq ON touches(seq);")  # as kept before
    index.close()
    index = _index_at_head(root, db)
    names = {n for (n,) in index.db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'touches'")}
    assert "touches_seq_paths" in names and "touches_seq" not in names
    plan = index.db.execute("EXPLAIN QUERY PLAN SELECT seq, path, old FROM touches WHERE seq >= 0 AND seq < 256 "
                            "ORDER BY seq DESC").fetchall()
    assert "COVERING INDEX touches_seq_paths" in plan[0][-1]
    assert windows(index, [(2, END)], lambda p: True, 10) == want == {(2, END): ["b.py"]}


def test_a_search_answers_the_same_from_blobs_and_from_git_grep(repo_factory, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from noface_ctx.freshness import grep_plan

    root = repo_factory({"a.py": "def alpha():\n    pass\n", "b.py": "beta = alpha\n", "c.md": "alpha\n"})
    (root / "a.py").write_text("def alpha_v():\n    beta = 2\n")
    commit(root, "rename")
    shas = git(root, "rev-list", "--reverse", "HEAD").split()
    asks = {"one": (shas[0], {"alpha", "beta", "a-b"}, ["a.py", "b.py", "c.md"], False),
            "two": (shas[1], {"alpha", "alpha_v"}, ["a.py", "b.py"], False), "all": (shas[1], {"beta"}, None, False)}
    found = []
    for blobs_from in (0, 10**9):  # every search from blobs, then every one by `git grep`
        monkeypatch.setattr(grep_plan, "BLOBS_FROM", blobs_from)
        with ThreadPoolExecutor(max_workers=2) as pool:
            found.append(grep_plan.Search(root, _index_at_head(root), asks, pool, ("*.md",)).result())
    assert found[0] == found[1] == {"one": {"alpha": {"a.py", "b.py"}, "beta": {"b.py"}},
                                    "two": {"alpha": {"b.py"}, "alpha_v": {"a.py"}}, "all": {"beta": {"a.py", "b.py"}}}
