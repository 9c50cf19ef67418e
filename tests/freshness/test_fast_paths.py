"""The fast paths of a first run answer as the plain ones did: a history index built from nothing
(its touches' indexes made after the rows), a definition table's alias-table calls (found from
their `(`), and the names a doc announces as gone (slow searches only where a word they need is)."""

import sqlite3
import subprocess

from noface_ctx.freshness.announced import announced_gone
from noface_ctx.freshness.declarations import declared
from noface_ctx.freshness.history import HistoryIndex, build_index


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _touch_indexes(db_path):
    db = sqlite3.connect(db_path)
    try:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'touches'")}
    finally:
        db.close()


def test_a_first_build_keeps_every_touch_and_its_indexes_and_grows_after(repo_factory, tmp_path):
    root = repo_factory({"pkg/a.py": "def f():\n    return 1\n", "docs/a.md": "# A\n\nCall `f()`.\n"})
    _git(root, "mv", "pkg/a.py", "pkg/b.py")
    _git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "move a to b")
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    db_path = tmp_path / "history.sqlite"
    assert build_index(root, db_path, head) == 2
    assert _touch_indexes(db_path) == {"touches_path", "touches_old_seq", "touches_seq_paths"}
    index = HistoryIndex(root, db_path)
    try:
        rows = sorted(index.db.execute("SELECT path, seq, status, old FROM touches"))
        assert rows == [("docs/a.md", 1, "A", ""), ("pkg/a.py", 1, "A", ""), ("pkg/b.py", 2, "R", "pkg/a.py")]
        assert [c.seq for c, _path in index.path_history("pkg/a.py", 1)] == [2]  # found by its old name
        (root / "pkg" / "b.py").write_text("def g():\n    return 2\n")
        _git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "g")
        head2 = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        assert index.update(head2) == 1  # a later update appends, its indexes kept
        assert index.db.execute("SELECT COUNT(*) FROM touches").fetchone()[0] == 4
    finally:
        index.close()
    assert _touch_indexes(db_path) == {"touches_path", "touches_old_seq", "touches_seq_paths"}


def test_an_alias_table_handed_to_a_call_defines_its_keys_and_a_bare_dict_does_not():
    assert {"Event", "Other"} <= declared("install({'Event': 'pkg.events.Event', 'Other': 'pkg.o.Other'})\n").names
    assert "Late" in declared("tables[0]({'Late': 'pkg.Late'}, 1)\n").names  # after a subscript
    assert "Event" not in declared("x = ({'Event': 'pkg.Event'})\n").names  # a parenthesised dict: no call
    assert "Event" not in declared("def f():\n    install({'Event': 'pkg.Event'})\n").names  # in a function body
    assert "Event" not in declared("install({'Event': 'not dotted'})\n").names  # not an alias table


def test_names_announced_gone_in_any_case_and_not_where_nothing_says_so():
    assert announced_gone(["``open_scope()`` (NOW just ``Scope()``)"]) == {1: {"open_scope"}}
    assert announced_gone(["`Foo` haſ been ſuperſeded."]) == {1: {"Foo"}}  # the long s `(?i)` takes for s
    assert announced_gone(["Since 2.0 `Bar` is no", "longer supported."]) == {1: {"Bar"}}
    assert announced_gone(["`Foo` is kept (see `Bar`).", "", "`Baz` was added."]) == {}
    assert announced_gone(["`Foo` (now also in ``pkg``) is here."]) == {}  # "(now" without a code span after it
