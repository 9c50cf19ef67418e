"""Calls of an instance an example makes (`m = Marker("p")`, then `@m(specname=...)`: the class's `__call__`,
overloads first), prose spans of its keywords in the paragraph naming ``m``, keywords keyed by their callee (right
for one, wrong for another), a method reached through attributes judged by the one class defining it, and the
blame of a keyword whose call a formatter re-laid. Negatives: the keyword still taken, a class of another package,
`__call__(self, **kw)`, a span in a paragraph that does not name the instance, a hook's name beside it."""

from __future__ import annotations

import subprocess

from conftest import commit

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references
from noface_ctx.freshness.keyword_contract import accepted, owner_class

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"
MARKER = '''from typing import overload


class Marker:
    def __init__(self, project):
        self.project = project

    @overload
    def __call__(self, func, *, specname=None): ...

    @overload
    def __call__(self, func=None, *, specname=None, wrapper=False): ...

    def __call__(self, func=None, **kwargs):
        return func
'''
PAGE = """Plugins
=======

Make the marker first:

.. code-block:: python

    from pkg import Marker

    hookimpl = Marker("project")

Matching by name
----------------

A function may be matched by using the ``specname`` option: when ``specname="setup"`` is
given to the ``hookimpl`` decorator, ``setup`` is the hook it implements.

.. code-block:: python

    @hookimpl(specname="setup")
    def setup_1(config):
        return config

Elsewhere ``specname`` means nothing.
"""


def _sha(root, rev="HEAD"):
    return subprocess.run(["git", "-C", str(root), "rev-parse", "--short=10", rev], capture_output=True, text=True,
                          check=True).stdout.strip()


def _found(root):
    return [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]


def test_a_decorator_an_instance_makes_is_its_classs_call(repo_factory):
    root = repo_factory({"pkg/__init__.py": MARKER, "docs/plugins.rst": PAGE}, date=JAN)
    assert _found(root) == []  # an overload takes `specname`
    (root / "pkg/__init__.py").write_text(MARKER.replace("specname=None", "spec_name=None"))
    commit(root, "marker: specname is spec_name", date=FEB)
    renamed = _sha(root)
    (root / "docs/plugins.rst").write_text(PAGE + "\nMore.\n")
    commit(root, "docs: more", date=MAR)
    got = _found(root)
    # the span of the paragraph naming ``hookimpl`` is the example's reference: one finding, at the first line
    assert [(p, line) for p, line, _ in got] == [("docs/plugins.rst", 15)]
    assert "`specname`" in got[0][2] and renamed in got[0][2]


def test_no_finding_for_kwargs_another_packages_class_or_a_keyword_still_taken(repo_factory):
    kwargs = MARKER.replace("@overload", "").replace("*, specname=None, wrapper=False", "**kw").replace(
        "*, specname=None", "**kw")
    other = PAGE.replace("from pkg import Marker", "from json import Marker")
    root = repo_factory({"pkg/__init__.py": MARKER, "lib/__init__.py": kwargs, "docs/plugins.rst": PAGE,
                         "docs/lib.rst": PAGE.replace("from pkg", "from lib"), "docs/other.rst": other}, date=JAN)
    (root / "README.md").write_text("# pkg\n")
    commit(root, "readme", date=FEB)
    assert _found(root) == []


def test_spans_beside_the_instance_are_its_keywords_and_only_those():
    refs = extract_references(Doc("docs/plugins.rst", "p", "p", PAGE))
    spans = [(r.line, r.name) for r in refs if r.kind == "keyword"]
    assert spans == [(15, "specname")]  # one reference per (callee, keyword): the example's at 20 is the same
    assert all(r.ref == "Marker.__call__(specname=...)" for r in refs if r.kind == "keyword")
    unnamed = PAGE.replace("given to the ``hookimpl`` decorator", "given to the decorator")
    assert [(r.line, r.name) for r in extract_references(Doc("docs/p.rst", "p", "p", unnamed)) if r.kind == "keyword"] == [
        (20, "specname")]  # the paragraph does not name the instance: only the example's
    uncalled = PAGE.replace('@hookimpl(specname="setup")', "@other")
    assert [r for r in extract_references(Doc("docs/p.rst", "p", "p", uncalled)) if r.kind == "keyword"] == []


HOOKS = '''class Relay:
    pass


class Caller:
    def __call__(self, **kwargs):
        return kwargs

    def call_later(self, result_callback=None, kwargs=None):
        return kwargs


class Manager:
    def __init__(self, name):
        self.hook = Relay()
'''
HISTORY_DOC = """Calling hooks
=============

.. code-block:: python

    from pkg import Manager

    pm = Manager("project")
    result = pm.hook.myhook(config=config, args=argv)

Later:

.. code-block:: python

    pm.hook.myhook.call_later(
        config=config, args=argv
    )
"""


def test_a_keyword_is_keyed_by_its_callee_and_a_method_reached_through_attributes_is_judged(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.hooks import Caller, Manager, Relay\n", "pkg/hooks.py": HOOKS,
                         "docs/hooks.rst": HISTORY_DOC}, date=JAN)
    wrote = _sha(root)
    joined = HISTORY_DOC.replace("call_later(\n        config=config, args=argv\n    )", "call_later(config=config, args=argv)")
    (root / "docs/hooks.rst").write_text(joined)  # a formatter joins the call: the keyword was passed since JAN
    commit(root, "docs: black", date=FEB)
    got = _found(root)
    # `config=` to the hook call (line 9) is right; to `call_later` (line 15) it is not, since the commit that wrote it
    assert sorted((p, line) for p, line, _ in got) == [("docs/hooks.rst", 15), ("docs/hooks.rst", 15)]
    assert all(wrote in m and "call_later" in m for _, _, m in got)
    assert {m.split("`")[1] for _, _, m in got} == {"config", "args"}


def test_a_method_reached_through_attributes_needs_one_distinctive_definition(repo_factory):
    twice = HOOKS + "\n\nclass Other:\n    def call_later(self, x):\n        return x\n"
    short = HOOKS.replace("call_later", "later")
    root = repo_factory({"pkg/__init__.py": "from pkg.hooks import Caller, Manager, Relay\n", "pkg/hooks.py": twice,
                         "docs/hooks.rst": HISTORY_DOC.replace("call_later(\n        config=config, args=argv\n    )",
                                                               "call_later(config=config)"),
                         "lib/__init__.py": "from lib.hooks import Manager\n", "lib/hooks.py": short,
                         "docs/lib.rst": HISTORY_DOC.replace("from pkg", "from lib").replace("call_later", "later")},
                        date=JAN)
    (root / "README.md").write_text("# pkg\n")
    commit(root, "readme", date=FEB)
    assert _found(root) == []  # two classes define `call_later`; `later` is no distinctive name


def test_method_contracts_and_their_owner():
    assert accepted(MARKER, "Marker.__call__") == {"func", "specname", "wrapper"}
    assert accepted(MARKER, "Marker.__init__") == {"project"}
    assert accepted(MARKER, "Marker.missing") is None  # not written in the class: no telling (a base's)
    assert accepted(HOOKS, "Caller.__call__") is None  # **kwargs
    assert accepted(HOOKS + "\n\nclass Late:\n    run = Caller.call_later\n", "Late.run") is None
    assert owner_class(HOOKS, "call_later") == "Caller"
    assert owner_class(HOOKS + "\n\ndef call_later():\n    pass\n", "call_later") == ""  # a function too
    assert owner_class(HOOKS, "__init__") == "Manager"
