"""A module that hands a table of aliases to a call (`set_deprecated_aliases({"Event": "pkg.core.Event"})`,
which installs the module's `__getattr__`) still exports the table's keys: `from pkg.abc import Event`
keeps working (with a deprecation warning) and is no stale reference. A table nothing is handed to
(a plain assignment, no `__getattr__`) exports nothing."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.declarations import declared

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
FILES = {"pkg/__init__.py": "", "pkg/core.py": "class Event:\n    pass\n",
         "pkg/_lazy.py": "def set_aliases(table):\n    return table\n",
         "pkg/abc.py": "from pkg.core import Event\n",
         "docs/signals.rst": "Signals\n=======\n\n::\n\n    from pkg.abc import Event\n\n    Event()\n"}
TABLE = '{\n    "Event": "pkg.core.Event",  # moved\n    "Lock": "pkg.core.Lock",\n}'


def test_a_name_an_alias_table_handed_to_a_call_serves_is_not_gone(repo_factory):
    root = repo_factory(FILES, date=JAN)
    (root / "pkg/abc.py").write_text(f"from pkg._lazy import set_aliases\n\nif True:\n    set_aliases({TABLE})\n")
    commit(root, "serve the old names through aliases", date=FEB)
    assert check_docs(repo=root).findings == ()


def test_a_table_nothing_is_handed_to_exports_nothing(repo_factory):
    root = repo_factory(FILES, date=JAN)
    (root / "pkg/abc.py").write_text(f"ALIASES = {TABLE}\n")
    commit(root, "drop the re-export", date=FEB)
    assert [(f.path, f.line) for f in check_docs(repo=root).findings] == [("docs/signals.rst", 6)]


def test_only_tables_of_names_to_dotted_paths_are_alias_tables():
    assert {"Event", "Lock"} <= declared(f"set_aliases({TABLE})\n").top
    assert "json" not in declared('register({"json": "pkg.ser.json", "size": 3})\n').names  # not every value a path
    assert "Old" not in declared('def f():\n    g({"Old": "pkg.New"})\n').names  # in a function: no module's


def test_a_table_of_deprecated_objects_handed_to_a_deprecating_call_serves_its_keys(repo_factory):
    root = repo_factory({**FILES, "pkg/abc.py": "from pkg.core import Event\n",
                         "docs/signals.rst": "Signals\n=======\n\n.. autoclass:: pkg.abc.Event\n"}, date=JAN)
    (root / "pkg/abc.py").write_text(
        "from pkg import _dep\nfrom pkg.core import Event as _Event\n\n_dep.deprecate_attributes(\n    __name__,\n"
        "    {\n        \"Event\": _dep.DeprecatedAttribute(\n            _Event,\n            version=\"1.0\",\n"
        "        ),\n    },\n)\n")
    commit(root, "deprecate pkg.abc.Event", date=FEB)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/abc.py").write_text("from pkg.core import Event as _Event\n")
    commit(root, "drop the deprecated name", date=FEB)
    assert [(f.path, f.line) for f in check_docs(repo=root).findings] == [("docs/signals.rst", 4)]


def test_only_a_call_named_for_serving_names_exports_a_table_of_objects():
    assert {"Old", "Gone"} <= declared('deprecate_attributes(__name__, {"Old": Dep(_Old, v={"x": 1}), "Gone": 2})\n').top
    assert "x" not in declared('deprecate_attributes(__name__, {"Old": Dep(_Old, v={"x": 1})})\n').names  # a value's inside
    assert "Nope" not in declared('register(__name__, {"Nope": Dep(1)})\n').names
