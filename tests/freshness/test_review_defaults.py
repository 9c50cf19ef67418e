"""Defaults a doc speaks of without a value (issue 25, rule 5), reported for review when the code's default changed:
a paragraph calling a name a parameter, then saying "default" ("the `reloader_type` parameter of :func:`run_simple`.
``'stat'`` sets it to the default stat based polling"), and a "by default" sentence writing no code about the one
parameter its list item names sharing a word with it ("weak-referenceable by default" / `weakref_slot=False`), in the
files defining what its section names."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.review_defaults import review_statements

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

SERVING = '''def run_simple(hostname, port, use_reloader=False, reloader_type: str = "auto"):
    """Start a development server."""
    return hostname, port, use_reloader, reloader_type
'''

RELOADER = '''def run_with_reloader(main, reloader_type: str = "auto"):
    """Run `main` in a reloading process."""
    return main, reloader_type
'''

SERVING_DOC = """Serving
=======

Reloader
--------

There are two backends the reloader supports: ``stat`` and ``watchdog``. If ``watchdog`` is installed it will
automatically be used instead of ``stat``.

To switch between the backends you can use the `reloader_type` parameter of the
:func:`run_simple` function. ``'stat'`` sets it to the default stat based
polling and ``'watchdog'`` forces it to the watchdog backend.

You can override the default host in the call with the ``hostname`` parameter.
"""

NEXT_GEN = '''def define(maybe_cls=None, *, slots=True, weakref_slot=True):
    """The modern API."""
    return maybe_cls
'''

MAKE = '''def attrs(maybe_cls=None, *, slots=False, weakref_slot=True):
    """The classic API."""
    return maybe_cls


s = attrs
'''

LEGACY = '''def old_style(cls, weakref_slot=True):
    return cls
'''

GLOSSARY = """# Glossary

dict classes
  A regular class whose attributes live in a `__dict__`.

slotted classes
  A class whose instances have no `__dict__`; they are the default of {func}`attrs.define()`.

  - Slotted classes can inherit from other classes.

  - Slotted classes are weak-referenceable by default.
    This can be disabled by passing `weakref_slot=False` to `@attr.s`.
"""


def test_defaults_spoken_of_without_a_value():
    assert review_statements(SERVING_DOC.split("\n")) == [(("reloader_type", "run_simple"), 10, "run_simple", ())]
    # the hostname paragraph's "default host" comes before the parameter: a value it overrides, not its default
    assert review_statements(GLOSSARY.split("\n")) == [(("weakref_slot",), 11, "", ("__dict__", "define"))]
    two = GLOSSARY.replace("`weakref_slot=False`", "`weakref_slot=False` or `weak_cache=False`")
    assert review_statements(two.split("\n")) == []  # two parameters share a word with it: which one is unclear
    unrelated = GLOSSARY.replace("`weakref_slot=False`", "`getstate_setstate=False`")
    assert review_statements(unrelated.split("\n")) == []  # no word shared


def test_a_parameter_spoken_of_is_reported_when_its_default_changes(repo_factory):
    root = repo_factory({"srv/__init__.py": "", "srv/serving.py": SERVING, "srv/reloader.py": RELOADER,
                         "docs/serving.rst": SERVING_DOC}, date=JAN)
    (root / "srv/reloader.py").write_text(RELOADER.replace('= "auto"', '= "stat"'))
    commit(root, "the reloader function polls by default", date=FEB)
    assert check_docs(repo=root).findings == ()  # the doc speaks of run_simple's
    (root / "srv/serving.py").write_text(SERVING.replace('= "auto"', '= "stat"'))
    commit(root, "the server polls by default", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/serving.rst", 10)]
    assert found[0].message.startswith(f"default of `reloader_type` (srv/serving.py) changed in {head}")


def test_an_unnamed_default_follows_the_callables_its_section_names(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/next_gen.py": NEXT_GEN, "pkg/make.py": MAKE,
                         "pkg/legacy.py": LEGACY, "docs/glossary.md": GLOSSARY}, date=JAN)
    (root / "pkg/legacy.py").write_text(LEGACY.replace("weakref_slot=True", "weakref_slot=False"))
    commit(root, "legacy classes without a weakref slot", date=FEB)
    assert check_docs(repo=root).findings == ()  # a function the section does not name
    (root / "pkg/next_gen.py").write_text(NEXT_GEN.replace("weakref_slot=True", "weakref_slot=False"))
    commit(root, "define: no weakref slot by default", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/glossary.md", 11)]
    assert "`weakref_slot` (pkg/next_gen.py)" in found[0].message
