"""sphinx.ext.doctest's reStructuredText directives (`testsetup`, `testcode`, `testcleanup`,
`testoutput`, `doctest`) are examples run with the names of the doc's `testsetup` blocks, never
a project's example directive that provides the names its body calls (click's `.. click:run::`):
a name a `from pkg import *` setup binds is the repository's, and flagged once renamed."""

from __future__ import annotations

from pathlib import Path

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = "def stop_early(n):\n    return n\n\n\ndef run(**kw):\n    return kw\n"
DOC = """Guide
=====

.. testsetup:: *

    from pkg import *

    def helper():
        return 1

.. testcode::

    run(stop=stop_early(3))

.. testcode:: group1

    run(stop=helper())

.. testoutput::

    stop_early(3)
"""
PROJECT = """Guide
=====

.. click:run::

    result = invoke(stop_early(3))
"""


def findings(root: Path) -> list[tuple[str, int, str]]:
    return [(f.path, f.line, f.message) for f in check_docs((), repo=root).findings]


def test_a_name_a_testsetup_star_import_binds_is_flagged_once_renamed(repo_factory):
    root = repo_factory({"pkg/__init__.py": CODE, "docs/guide.rst": DOC}, date=JAN)
    assert findings(root) == []
    (root / "pkg/__init__.py").write_text(CODE.replace("stop_early", "stop_after"))
    commit(root, "rename stop_early to stop_after", date=FEB)
    got = findings(root)
    assert [(p, n) for p, n, _ in got] == [("docs/guide.rst", 13)]  # not the testoutput's line 21
    assert "stop_early" in got[0][2] and "stop_after" in got[0][2]


def test_a_testsetup_helper_is_no_repository_name(repo_factory):
    root = repo_factory({"pkg/__init__.py": CODE, "docs/guide.rst": DOC.replace("stop=stop_early(3)", "stop=2")},
                        date=JAN)
    (root / "pkg/__init__.py").write_text(CODE + "\n\ndef other():\n    return 0\n")
    commit(root, "add other", date=FEB)
    assert findings(root) == []  # `helper()` is the setup's own


def test_a_project_directive_still_provides_what_it_calls(repo_factory):
    root = repo_factory({"pkg/__init__.py": CODE, "docs/guide.rst": PROJECT}, date=JAN)
    (root / "pkg/__init__.py").write_text(CODE.replace("stop_early", "stop_after"))
    commit(root, "rename stop_early to stop_after", date=FEB)
    assert findings(root) == []  # `.. click:run::` gives `stop_early` itself: not the repository's
