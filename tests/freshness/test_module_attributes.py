"""Two readings of Python examples: a module's dotted name handed on without a call
(`processors=[pkg.dev.set_info]`) is a reference like a call of it, on a root the examples
import as a module; and a name, a blank, then a parenthesised phrase of words
(`old_helper (only used on PostgreSQL and mssql)`) is prose, not a call."""

from __future__ import annotations

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

DEV = '''"""Development helpers."""


def set_info(logger, name, event):
    return event


def pretty(event):
    return str(event)
'''
PROCESSORS = '''"""Processors."""


def add_level(logger, name, event):
    return event
'''
CONFIG = '''def configure(processors=(), level=None):
    return list(processors)
'''
DOC = """Getting started
===============

.. code-block:: python

    import logging
    import pkg

    pkg.configure(processors=[
        pkg.processors.add_level,
        pkg.dev.set_info,
    ], level=logging.INFO)
    obj = pkg.configure()
    handler = obj.dev.set_info
"""


def test_an_uncalled_dotted_name_on_an_imported_module_is_a_reference():
    got = {(r.line, r.name, r.kind) for r in extract_references(Doc("docs/start.rst", "d", "d", DOC))}
    assert (11, "pkg.dev.set_info", "method") in got and (10, "pkg.processors.add_level", "method") in got
    assert not [r for r in got if r[1].startswith(("logging.", "obj."))]  # a standard module's; an example's object


def test_a_function_moved_to_another_module_is_stale_where_an_example_hands_it_on(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.config import configure\n", "pkg/config.py": CONFIG,
                         "pkg/dev.py": DEV, "pkg/processors.py": PROCESSORS, "docs/start.rst": DOC}, date=JAN)
    (root / "pkg/dev.py").write_text(DEV.split("def set_info")[0] + "def pretty" + DEV.split("def pretty")[1])
    (root / "pkg/processors.py").write_text(PROCESSORS + "\n\ndef set_info(logger, name, event):\n    return event\n")
    commit(root, "move set_info from pkg.dev to pkg.processors", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/start.rst", 11)}, got  # add_level, logging.INFO and obj.dev.set_info: nothing
    assert "pkg.processors.set_info" in got["docs/start.rst", 11]


SCHEMAS = """Running the tests
=================

The names are::

    main_schema
    old_helper (only used on PostgreSQL and mssql)
    spaced_helper (x)
    removed_fn(1, 2)
"""


def test_a_name_before_a_parenthesised_phrase_is_prose_not_a_call(repo_factory):
    funcs = "def old_helper(x):\n    return x\n\n\ndef spaced_helper(x):\n    return x\n\n\ndef removed_fn(a, b):\n    return a\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/util.py": funcs, "README.rst": SCHEMAS}, date=JAN)
    (root / "pkg/util.py").write_text("def kept():\n    return 1\n")
    commit(root, "remove the helpers", date=FEB)
    got = {f.line for f in check_docs(repo=root).findings if f.path == "README.rst"}
    assert got == {8, 9}  # `spaced_helper (x)` and `removed_fn(1, 2)` are calls; the phrase is not
