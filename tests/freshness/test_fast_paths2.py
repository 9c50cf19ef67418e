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
