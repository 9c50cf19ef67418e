"""Every reference of a missing name is a candidate, one per scope it is looked for in: when the
first cannot be proved removed (a role under a `currentmodule` the name never lived in), the next
one is tried (the example's import from the module that did define it); a name is told once."""

from __future__ import annotations

from pathlib import Path

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

TESTING = "def create_environ(path='/'):\n    return {'PATH_INFO': path}\n\n\ndef run_wsgi_app(app, environ):\n    return app\n"
DOC = """Quickstart
==========

.. currentmodule:: pkg

Build an environment with :func:`create_environ` first::

    from pkg.testing import create_environ, run_wsgi_app
    environ = create_environ('/foo')
    run_wsgi_app(app, environ)
"""


def findings(root: Path) -> list[tuple[str, int, str]]:
    return [(f.path, f.line, f.message) for f in check_docs((), repo=root).findings]


def test_a_name_looked_for_where_it_never_was_gives_way_to_its_import(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from pkg.testing import run_wsgi_app\n", "pkg/testing.py": TESTING,
                         "pkg/wsgi.py": "def create_environ():\n    return {}\n",  # a second one: the role is not judged
                         "docs/quickstart.rst": DOC}, date=JAN)
    assert findings(root) == []  # `pkg.create_environ` never existed: no removal to tell
    (root / "pkg/testing.py").write_text(TESTING.replace("create_environ", "make_environ"))
    commit(root, "rename create_environ to make_environ", date=FEB)
    got = findings(root)
    assert [(p, n) for p, n, _ in got] == [("docs/quickstart.rst", 8)]  # told once, where the import names it
    sha = git(root, "rev-parse", "--short=10", "HEAD").strip()
    assert "`create_environ`" in got[0][2] and f"removed in {sha}" in got[0][2] and "make_environ" in got[0][2]


FORMS = """Form data
=========

.. module:: pkg.forms

Parse a request built with :func:`create_environ`.
"""


def test_a_role_whose_module_never_had_it_is_judged_by_its_one_definition(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/forms.py": "def parse(environ):\n    return environ\n",
                         "pkg/testing.py": TESTING, "docs/forms.rst": FORMS}, date=JAN)
    (root / "pkg/testing.py").write_text(TESTING.replace("create_environ", "make_environ"))
    commit(root, "rename create_environ to make_environ", date=FEB)
    got = findings(root)
    assert [(p, n) for p, n, _ in got] == [("docs/forms.rst", 6)]
    assert "`create_environ`" in got[0][2] and "make_environ" in got[0][2]


def test_a_role_whose_module_never_had_it_and_two_definitions_were_is_not_judged(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/forms.py": "def parse(environ):\n    return environ\n",
                         "pkg/testing.py": TESTING, "pkg/wsgi.py": "def create_environ():\n    return {}\n",
                         "docs/forms.rst": FORMS}, date=JAN)
    (root / "pkg/testing.py").write_text(TESTING.replace("create_environ", "make_environ"))
    (root / "pkg/wsgi.py").write_text("def environ_for():\n    return {}\n")
    commit(root, "rename both create_environ", date=FEB)
    assert findings(root) == []  # which one the role meant: no telling
