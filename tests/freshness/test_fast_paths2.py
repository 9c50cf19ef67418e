"""More fast paths that answer as the plain ones did (fspeed9): a first run's definitions, named
by their files as the stored table names them (a path that is not UTF-8 too); the serving calls of
a definition table searched only in a text holding one of their words in some case; record folders
judged once per name."""

from __future__ import annotations

import os
import time

from noface_ctx.config import load_config
from noface_ctx.docs.markup import is_record
from noface_ctx.files.gate import scan_repo
from noface_ctx.freshness import code_words as cw
from noface_ctx.freshness.declarations import declared

ODD = os.fsdecode(b"pkg/caf\xe9.py")  # a file name that is not UTF-8: kept as its bytes


def test_a_first_runs_definitions_are_those_its_stored_tables_answer(repo_factory, tmp_path):
    repo = repo_factory({"pkg/shop.py": "class Cart:\n    def add_item(self, item):\n        return item\n",
                         "pkg/tax.py": "def add_item(basket):\n    return basket\n\n\nclass Cart:\n    pass\n",
                         ODD: "def add_item():\n    pass\n", "docs/guide.md": "# Guide\n\n`add_item`\n"})
    past = time.time() - 10  # a stat seen before is trusted again
    for d, _, names in os.walk(repo):
        for n in names if ".git" not in d else ():
            os.utime(os.path.join(d, n), (past, past))
    repo_files = scan_repo(load_config(str(repo)))
    first = cw.code_words(repo_files, {"docs/guide.md"}, tmp_path / "words.sqlite")  # built now: answered from memory
    again = cw.code_words(repo_files, {"docs/guide.md"}, tmp_path / "words.sqlite")  # nothing read: asked of the file
    again.EAGER_AFTER = 0  # the tables loaded whole, as a run asking many names does
    for name in ("add_item", "Cart", "Cart.add_item", "missing"):
        assert first.defined(name) == again.defined(name)
    assert [p for p, _q, _n in first.defined("add_item")] == sorted(["pkg/shop.py", "pkg/tax.py", ODD],
                                                                    key=os.fsencode)
    assert first.defined("Cart.add_item") == [("pkg/shop.py", "Cart.add_item", 2)]
    assert first.defined("missing") == []


def test_keys_served_by_a_module_level_call_in_any_case_and_none_without_its_words():
    served = "{'Old': New}"
    for callee in ("deprecate_attributes", "DEPRECATED_NAMES", "set_aliases", "lazy_module",
                   "set_al\u0130as", "\u017fet_al\u0131as", "LAZ\u0178"):  # İ, ı and ſ: what (?i) takes for i and s
        text = f"x = 'caf\u00e9'\n{callee}(__name__, {served})\n"
        assert ("Old" in declared(text).names) is (callee != "LAZ\u0178"), callee  # Ÿ is no y
    assert "Old" not in declared(f"register(__name__, {served})\n").names  # a call naming no serving word
    assert "Old" not in declared(f"def f():\n    set_aliases(__name__, {served})\n").names  # in a function body
    assert "Event" in declared("install({'Event': 'pkg.events.Event'})\n").names  # alias tables still read


def test_record_folders_are_judged_the_same_asked_again():
    paths = ["docs/releases/1.9.txt", "docs/ref/models.txt", "doc/prev_api_changes/api_changes_3.7.0.rst",
             "docs/howto/index.txt", "docs/releases/index.txt", "CHANGELOG.md"]
    first = [is_record(p) for p in paths]
    assert first == [True, False, True, False, True, True]
    assert [is_record(p) for p in paths] == first


# every form a definition table reads a name from, and uses that define nothing
DEFINING = {
    "header": "class Shop:\n    async  def\tfetch_all(self):\n        pass\n",
    "parameters": "def f(a,\n      fetch_all  # its comment\n      ):\n    pass\n\ndef g(*, fetch_all: int = 1, **kw):\n    pass\n",
    "assignments": "fetch_all, other = 1, 2\nx = fetch_all = 3\nfetch_all |= 4\nfetch_all: int\n",
    "attributes": "class A:\n    def __init__(self):\n        self.fetch_all = 1\n        cls.fetch_all: int = 2\n",
    "imports": "from pkg import (\n    fetch_all,\n)\nfrom pkg import fetch_all;\nimport fetch_all.sub\nimport os, fetch_all\n",
    "strings": "__all__ = ['fetch_all']\ndef __getattr__(name):\n    if name == \"fetch_all\":\n        return 1\n",
    "tables": "install({'fetch_all': 'pkg.core.fetch_all'})\nset_aliases(__name__, {'fetch_all': New})\n",
    "docstring": 'x = 1\nfetch_all"""blanked""" = 1\n',  # a docstring's blanks: its quotes here
}
USING = "obj.fetch_all()\nfetch_all(1)\nx = [fetch_all]\ny = fetch_all.attr\nz = {fetch_all}\nprefetch_all = fetch_all2 = 1\n"


def test_a_table_is_read_for_a_name_only_where_an_occurrence_could_define_it():
    from noface_ctx.freshness.bound_words import may_define
    from noface_ctx.freshness.declarations import text_defines

    for form, text in DEFINING.items():
        table = declared(text)
        assert may_define(text, "fetch_all") or "fetch_all" not in table.names | table.attributes, form
        for name in table.names | table.attributes | table.top:  # every name of every table: never a wrong "no"
            assert may_define(text, name), (form, name)
    assert {f for f, t in DEFINING.items() if text_defines(t, "fetch_all", member=True)} == set(DEFINING)
    assert not may_define(USING, "fetch_all")  # calls, members, items, prefixes: no table read
    assert not text_defines(USING, "fetch_all", member=True) and not declared(USING).defines("fetch_all", member=True)
    assert may_define(USING + "fetch_all = 5\n", "fetch_all")


def test_a_method_removed_where_every_other_file_only_calls_it_is_still_blamed(repo_factory):
    from conftest import commit

    from noface_ctx.freshness.check import check_docs

    jan, feb = "2025-01-01T12:00:00+00:00", "2025-02-01T12:00:00+00:00"
    files = {"pkg/__init__.py": "", "pkg/core.py": "class Client:\n    def fetch_all(self):\n        return []\n",
             "docs/api.rst": "API\n===\n\nCall :meth:`pkg.core.Client.fetch_all` to read every row.\n"}
    files |= {f"pkg/use{i}.py": f"from pkg.core import Client\n\n\ndef run{i}(c: Client):\n    return c.fetch_all()\n"
              for i in range(4)}
    root = repo_factory(files, date=jan)
    (root / "pkg/core.py").write_text("class Client:\n    def fetch_every(self):\n        return []\n")
    for i in range(3):  # callers renamed but one: its leftover call defines nothing
        (root / f"pkg/use{i}.py").write_text(files[f"pkg/use{i}.py"].replace("fetch_all", "fetch_every"))
    commit(root, "rename fetch_all", date=feb)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line, f.code) for f in found] == [("docs/api.rst", 4, "stale-ref")]
    assert "rename fetch_all" in found[0].message and "fetch_every" in found[0].message
    (root / "docs/api.rst").write_text("API\n===\n\nCall :meth:`pkg.core.Client.fetch_every` to read every row.\n")
    commit(root, "docs follow", date=feb)
    assert check_docs(repo=root).findings == ()  # a similar doc naming what exists: nothing
