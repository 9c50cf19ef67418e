"""The words and regex definitions freshness resolves doc references against (`code_words`):
kept in words.sqlite file by file, and right after files are added, changed and deleted."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import time
from concurrent.futures import ProcessPoolExecutor

import pytest
from conftest import commit, write_tree
from hypothesis import given, settings
from hypothesis import strategies as st

from noface_ctx.config import load_config
from noface_ctx.files.gate import scan_repo
from noface_ctx.freshness import code_words as cw
from noface_ctx.freshness.codebase import Codebase
from noface_ctx.freshness.references import Reference

FILES = {
    "pkg/shop.py": "class Cart:\n    def add_item(self, item):\n        shared_total = 1\n        return shared_total\n",
    "pkg/tax.py": "def vat_rate(country):\n    shared_total = 2\n    return shared_total\n",
    "docs/guide.md": "# Guide\n\nonly_in_docs\n",
}


def _age(repo, seconds: int = 10) -> None:
    """Move every file's mtime into the past: a stat seen before is trusted again."""
    past = time.time() - seconds
    for d, _, names in os.walk(repo):
        if ".git" not in d:
            for n in names:
                os.utime(os.path.join(d, n), (past, past))


def _words(repo, cache):
    return cw.code_words(scan_repo(load_config(str(repo))), {"docs/guide.md"}, cache)


def test_words_and_definitions_follow_adds_changes_and_deletes(repo_factory, tmp_path):
    repo = repo_factory(FILES)
    cache = tmp_path / "words.sqlite"
    _age(repo)
    found = _words(repo, cache)
    assert found.has("shared_total") and found.has("vat_rate") and found.has("Cart")
    assert not found.has("only_in_docs")  # docs are not code
    assert found.defined("add_item") == [("pkg/shop.py", "Cart.add_item", 2)]
    assert found.defined("Cart.add_item") == [("pkg/shop.py", "Cart.add_item", 2)]

    os.remove(repo / "pkg/tax.py")
    write_tree(repo, {"pkg/shop.py": "class Cart:\n    def put_item(self, item):\n        return item\n",
                      "pkg/ship.py": "def ship_order(order):\n    return order\n"})
    commit(repo, "rework")
    _age(repo)
    found = _words(repo, cache)
    assert not found.has("vat_rate") and not found.has("shared_total")  # its last two holders changed or went
    assert not found.has("add_item") and found.defined("add_item") == []
    assert found.defined("put_item") == [("pkg/shop.py", "Cart.put_item", 2)]
    assert found.has("ship_order") and found.defined("ship_order") == [("pkg/ship.py", "ship_order", 1)]
    with sqlite3.connect(str(cache)) as db:  # the counts stay true: no word of a gone file is left
        assert db.execute("SELECT n FROM vocab WHERE word = 'vat_rate'").fetchone() is None
        assert db.execute("SELECT n FROM vocab WHERE word = 'item'").fetchone() == (1,)


def test_a_file_changed_just_now_is_read_again_even_with_the_same_stat(repo_factory, tmp_path, monkeypatch):
    repo = repo_factory(FILES)
    cache = tmp_path / "words.sqlite"
    monkeypatch.setattr(cw, "_RACY_NS", 10**12)  # private: every file counts as changed just now
    assert _words(repo, cache).has("vat_rate")
    st = os.stat(repo / "pkg/tax.py")
    text = (repo / "pkg/tax.py").read_text().replace("vat_rate", "tax_rate")  # same size, same mtime below
    (repo / "pkg/tax.py").write_text(text)
    os.utime(repo / "pkg/tax.py", ns=(st.st_atime_ns, st.st_mtime_ns))
    monkeypatch.setattr(cw, "_RACY_NS", 0)  # private: now no file is recent, only a stored stat could skip it
    found = _words(repo, cache)
    assert found.has("tax_rate") and not found.has("vat_rate")


def test_a_file_rewritten_as_it_was_is_not_read_into_words_again(repo_factory, tmp_path, monkeypatch):
    # a checkout, a reset or a stash rewrites files as they were: their stat changes, not their words
    repo = repo_factory(FILES)
    cache = tmp_path / "words.sqlite"
    _age(repo)
    assert _words(repo, cache).has("vat_rate")
    for rel in ("pkg/tax.py", "pkg/shop.py"):
        (repo / rel).write_text((repo / rel).read_text())
    (repo / "pkg/ship.py").write_text("def ship_order(order):\n    return order\n")
    _age(repo)
    worked: list[int] = []
    real = cw._entry  # private: a spy counting the files read into words
    monkeypatch.setattr(cw, "_entry", lambda data, *rest: worked.append(len(data)) or real(data, *rest))  # private: as above
    found = _words(repo, cache)
    assert len(worked) == 1  # only the new file
    assert found.has("vat_rate") and found.has("ship_order") and found.defined("add_item")
    worked.clear()
    assert _words(repo, cache).has("vat_rate") and worked == []  # the new stats were kept


def test_many_questions_load_the_tables_whole_with_the_same_answers(repo_factory, tmp_path, monkeypatch):
    repo = repo_factory(FILES)
    cache = tmp_path / "words.sqlite"
    names = ["shared_total", "vat_rate", "nothing_here", "add_item", "Cart.add_item", "Cart"]
    lazy = _words(repo, cache)
    expected = [(lazy.has(n), lazy.defined(n)) for n in names]
    monkeypatch.setattr(cw.CodeWords, "EAGER_AFTER", 1)
    eager = _words(repo, cache)
    assert [(eager.has(n), eager.defined(n)) for n in names] == expected
    assert eager._vocab is not None  # private: loaded whole (the answers alone cannot tell)


@pytest.mark.parametrize("usable", [True, False])
def test_without_a_usable_cache_the_tables_live_in_memory(repo_factory, tmp_path, usable):
    repo = repo_factory(FILES)
    cache = tmp_path / "words.sqlite" if usable else tmp_path / "no-such-dir" / "words.sqlite"
    found = _words(repo, cache)
    assert found.has("vat_rate") and found.defined("vat_rate") == [("pkg/tax.py", "vat_rate", 1)]
    assert cache.exists() == usable


def test_codebase_finds_modules_by_path_suffix(repo_factory, tmp_path):
    repo = repo_factory({"src/shop/cart.py": "def add_item(cart):\n    return cart\n",
                         "other/cart.py": "def other():\n    pass\n"})
    code = Codebase(scan_repo(load_config(str(repo))), None, [], words_cache=tmp_path / "words.sqlite")
    found = code.resolve(Reference("shop.cart.add_item", "shop.cart.add_item", "method", 1), "docs")
    assert (found.status, found.path) == ("found", "src/shop/cart.py")
    missing = code.resolve(Reference("shop.cart.remove_item", "shop.cart.remove_item", "method", 1), "docs")
    assert (missing.status, missing.lookup, missing.scope) == ("missing", "remove_item", ("src/shop/cart.py",))
    assert code.resolve(Reference("cart.py", "cart.py", "path", 1), "docs").status == "found"  # two: no one file


def test_a_damaged_cache_is_read_around_never_trusted_into_a_crash(repo_factory, tmp_path):
    repo = repo_factory(FILES)
    cache = tmp_path / "words.sqlite"
    _age(repo)
    _words(repo, cache)
    with sqlite3.connect(str(cache)) as db:
        db.execute("UPDATE defs SET line = 'x' WHERE name = 'vat_rate'")  # a row of the wrong type
    assert _words(repo, cache).defined("vat_rate") == []  # skipped, the others still answer
    assert _words(repo, cache).defined("add_item") == [("pkg/shop.py", "Cart.add_item", 2)]
    with sqlite3.connect(str(cache)) as db:
        db.execute("UPDATE files SET size = 'big'")  # stats that are not numbers: rebuilt in memory
    found = _words(repo, cache)
    assert found.has("vat_rate") and found.defined("vat_rate") == [("pkg/tax.py", "vat_rate", 1)]


def test_a_large_write_ahead_log_is_emptied_for_the_next_process(repo_factory, tmp_path, monkeypatch):
    """A process ends without closing its connections (`_process.leave`), so a big first build
    would leave its whole log for the next process to read: past `WAL_LIMIT` it is emptied."""
    from noface_ctx import _sqlitefile as sqlitefile
    repo = repo_factory(FILES)
    cache = tmp_path / "words.sqlite"
    wal = tmp_path / "words.sqlite-wal"
    _age(repo)
    _words(repo, cache)
    assert wal.exists() and wal.stat().st_size > 0  # under the limit: left for the next write to reuse
    assert sqlite3.connect(str(cache)).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    write_tree(repo, {"pkg/new.py": "def fresh_name():\n    return 1\n"})
    _age(repo)
    monkeypatch.setattr(sqlitefile, "WAL_LIMIT", 0)
    found = _words(repo, cache)
    assert wal.stat().st_size == 0 and found.has("fresh_name")
    assert _words(repo, cache).defined("fresh_name") == [("pkg/new.py", "fresh_name", 1)]


def test_a_first_build_answers_from_memory_as_the_stored_tables_do(repo_factory, tmp_path):
    """Built from nothing, the tables are answered whole from memory; a later run asks sqlite
    one name at a time: the same answers, duplicates and nesting included."""
    files = {**FILES, "pkg/more.py": "class Cart:\n    def add_item(self):\n        pass\n\n\ndef vat_rate():\n    pass\n",
             "pkg/data.txt": "shared_total appears in a text file too\n"}
    repo = repo_factory(files)
    cache = tmp_path / "words.sqlite"
    _age(repo)
    first = _words(repo, cache)
    assert first._vocab is not None and first._defs is not None  # private: from memory, no question asked yet
    later = _words(repo, cache)
    assert later._vocab is None  # private: unchanged files, nothing rebuilt, questions go to sqlite
    names = ["Cart", "add_item", "Cart.add_item", "vat_rate", "shared_total", "appears", "only_in_docs", "nothing"]
    assert [first.defined(n) for n in names] == [later.defined(n) for n in names]
    assert [first.has(n) for n in names] == [later.has(n) for n in names]
    assert first.defined("add_item") == [("pkg/more.py", "Cart.add_item", 2), ("pkg/shop.py", "Cart.add_item", 2)]


def _definitions_line_by_line(text):
    """What `definitions` answers, worked out one line at a time (the reference it is held to)."""
    out, stack = [], []
    for number, line in enumerate(text.split("\n"), 1):
        m = cw._DEF_LINE.match(line)  # private: the line pattern the reference is built from
        if m is None:
            continue
        indent = len(m.group("indent").expandtabs(4))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        out.append((".".join([n for _, n in stack] + [m.group("name")]), number))
        if m.group("kw") in cw._CONTAINER_KW:  # private: as above
            stack.append((indent, m.group("name")))
    return out


def test_definitions_are_nested_by_indentation_with_their_line_numbers():
    text = ("class Outer:\r\n    def method(self):\n\n        def inner():\n            pass\n"
            "\tdef tabbed(self):\n    pass\nasync def top():\n    x = 'def not_here'\n"
            "pub(crate) fn rusty() {}\nexport default function* gen() {}\ndef\nnext_line():\n")
    assert cw.definitions(text) == [("Outer", 1), ("Outer.method", 2), ("Outer.inner", 4),  # a function holds no definitions
                                    ("Outer.tabbed", 6), ("top", 8), ("rusty", 10), ("gen", 11)]
    assert cw.definitions(text) == _definitions_line_by_line(text)
    assert cw.definitions("") == [] and cw.definitions("def f") == [("f", 1)]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["def f():", "class C:", "    def m(self):", "\tdef t():", "  ", "", "x = 1",
                                 "pub(a\n) fn g()", "def\n", "struct S {", "}", "\r", "fn (", "  class D(", "type T ="]),
                max_size=12))
def test_definitions_of_a_whole_text_are_those_found_line_by_line(lines):
    text = "\n".join(lines)
    assert cw.definitions(text) == _definitions_line_by_line(text)


def test_a_word_only_in_a_c_family_comment_declares_nothing(repo_factory, tmp_path):
    repo = repo_factory({"port/parser.rs": '/// This replicates the `StartsWith` semantics.\nfn starts_with<\'a>(s: &\'a str) '
                         '-> bool {\n    let url = "http://x // KeptInString";\n    true /* EndsWith\n    too */\n}\n',
                         "web/app.js": "// RemovedHelper is gone\nconst shownHelper = () => 1;\n",
                         "tools/run.sh": "# ShellComment\necho hi\n"})
    found = _words(repo, tmp_path / "words.sqlite")
    assert found.has("StartsWith") and found.has("EndsWith")  # still words of the code
    assert not found.declares("StartsWith") and not found.declares("EndsWith") and not found.declares("RemovedHelper")
    assert found.declares("starts_with") and found.declares("KeptInString") and found.declares("shownHelper")
    assert found.declares("ShellComment")  # other languages: every word, as before


def _rows(cache):
    with sqlite3.connect(str(cache)) as db:
        return {table: db.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                for table in ("files", "vocab", "declared", "defs")}


def test_files_read_in_another_process_make_the_same_tables(repo_factory, tmp_path, monkeypatch):
    """A first run hands a share of the files (by size) to a worker process (`handed_out`, `contents`):
    the tables, stored and in memory, are those of reading every file here; a file the worker's
    answer lacks is read here; once a cache exists nothing is handed out."""
    files = {**FILES, "pkg/big.py": "class Big:\n    def grow(self):\n        self.size = 2\n" * 4,
             "pkg/blob.bin": b"\x00\x01binary", "pkg/notes.txt": "shared_total in a note\n",
             "pkg/shy.py": "def vanished():\n    pass\n", "src/lib.rs": "pub fn rusty() {}\n// shared_total\n"}
    repo = repo_factory(files)
    _age(repo)
    repo_files = scan_repo(load_config(str(repo)))
    docs = {"docs/guide.md"}
    here = cw.code_words(repo_files, docs, tmp_path / "here.sqlite")
    monkeypatch.setattr(cw, "HANDED_SHARE", 1 / 3)  # a third of the bytes: several files, not all
    handed = cw.handed_out(repo_files, docs, tmp_path / "there.sqlite")
    assert "pkg/tax.py" in handed and 1 < len(handed) < len(cw.readable(repo_files, docs))
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        worker = pool.submit(cw.contents, repo_files.root, handed)  # another process, as `in_forks` starts
        answer = lambda: {p: got for p, got in worker.result().items() if p != "pkg/tax.py"}  # noqa: E731  # one left out
        there = cw.code_words(repo_files, docs, tmp_path / "there.sqlite", (frozenset(handed), answer))
    assert _rows(tmp_path / "here.sqlite") == _rows(tmp_path / "there.sqlite")
    names = ["Cart", "add_item", "Cart.add_item", "vat_rate", "shared_total", "Big", "grow", "Big.grow", "size",
             "vanished", "rusty", "note", "binary", "only_in_docs"]
    for words in (here, there):
        assert [(words.has(n), words.declares(n), words.declares("." + n), words.defined(n)) for n in names] == [
            (here.has(n), here.declares(n), here.declares("." + n), here.defined(n)) for n in names]
    assert there.defined("grow")[0][:2] == ("pkg/big.py", "Big.grow") and there.declares(".size")
    assert cw.handed_out(repo_files, docs, tmp_path / "there.sqlite") == []  # kept now: only changes are read
