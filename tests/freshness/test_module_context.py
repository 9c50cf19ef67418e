"""Names under a `.. module::` / `.. currentmodule::` context (`module_context`), read as Sphinx reads them: a target
written in full (`.. autoclass:: pkg.Item` under `pkg.item`) never takes the module as a prefix, and its member list
hangs on `pkg.Item`; a bare one (`.. autoclass:: Item`) is the module's; a role or autosummary entry rooted elsewhere
(`numpy.mean`) is read as written. Temp repositories with real git; negatives: members the class still has."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

ITEM = '''class Item:
    def copy(self):
        return Item(self)

    def deepcopy(self):
        return Item(self)

    @property
    def fields(self):
        return {}
'''
FULL = """Items
=====

.. module:: pkg.item

.. autoclass:: pkg.Item
   :members: copy, deepcopy, fields

.. autoclass:: Item
   :members: fields
"""


def _names(text: str, path: str = "docs/items.rst") -> list[str]:
    return [r.name for r in extract_references(Doc(path=path, slug="items", title="Items", text=text))]


def test_a_target_written_in_full_keeps_its_module_and_so_do_its_members():
    names = _names(FULL)
    assert "pkg.Item.copy" in names and "pkg.Item.deepcopy" in names, names
    assert "pkg.item.Item.fields" in names, names  # the bare target is the module's
    assert not [n for n in names if "pkg.item.pkg" in n], names


def test_autodoc_reads_as_sphinx_does_for_each_level():
    text = (".. currentmodule:: pkg.item\n\n.. automethod:: Item.copy\n\n.. automethod:: pkg.Item.deepcopy\n\n"
            ".. autofunction:: other.helpers.run\n\n.. automodule:: other.tools\n   :members: build\n")
    names = _names(text)
    assert "pkg.item.Item.copy" in names and "pkg.Item.deepcopy" in names, names
    assert "other.helpers.run" in names and "other.tools.build" in names, names
    assert not [n for n in names if n.startswith(("pkg.item.other", "pkg.item.pkg"))], names


def test_myst_autodoc_follows_the_same_rule():
    text = "# Items\n\n```{currentmodule} pkg.item\n```\n\n```{autoclass} other.Thing\n```\n\n```{autoclass} Item\n```\n"
    names = _names(text, "docs/items.md")
    assert "other.Thing" in names and "pkg.item.Item" in names, names


def test_a_member_a_fully_written_class_lost_is_flagged_and_blamed(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.item import Item\n", "pkg/item.py": ITEM,
                         "docs/items.rst": FULL}, date="2025-03-01T12:00:00+00:00")
    (root / "pkg/item.py").write_text(ITEM.replace("def copy(", "def clone("))
    commit(root, "item: copy is clone", date="2025-03-02T12:00:00+00:00")
    got = check_docs(repo=root).lines()
    assert len(got) == 1 and got[0].startswith("docs/items.rst:7: stale-ref") and "`pkg.Item.copy`" in got[0], got
    assert "item: copy is clone" in got[0] and "clone" in got[0].split("item: copy is clone")[-1] + got[0], got


def test_members_the_class_still_has_are_quiet(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.item import Item\n", "pkg/item.py": ITEM,
                         "docs/items.rst": FULL + "\nSee :func:`numpy.mean` and :class:`pkg.Item`.\n\n"
                         ".. autosummary::\n\n   numpy.mean\n   Item\n"}, date="2025-03-01T12:00:00+00:00")
    (root / "pkg/item.py").write_text(ITEM + "\n\ndef helper():\n    return 1\n")
    commit(root, "item: a helper", date="2025-03-02T12:00:00+00:00")
    assert check_docs(repo=root).lines() == []
