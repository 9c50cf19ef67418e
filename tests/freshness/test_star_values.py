"""Code-shaped names an example uses as values under `from pkg import *` (a name on a line of its
own, a keyword argument's value) are the star module's: flagged once gone. A name the example
binds, a name still there and a star import of another library's module are not."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
KW_DOC = "Keywords\n========\n\n.. testsetup::\n\n    from pkg import *\n\n.. testcode::\n\n    run(retry=retry_unless)\n"
CODE = "def retry_never():\n    return 1\n\n\ndef retry_unless():\n    return 2\n\n\ndef run(**kw):\n    return kw\n"
DOC = """Retrying
========

.. testsetup::

    from pkg import *
    from os import *

.. testcode::

    retry_never
    retry_unless

.. testcode::

    run(retry=retry_unless)
    some_value = 1
    some_value
    run(retry=some_value, other=path_sep)
"""


def test_a_star_bound_name_used_as_a_value_is_flagged_once_gone(repo_factory):
    root = repo_factory({"pkg/__init__.py": CODE, "docs/retry.rst": DOC, "docs/kw.rst": KW_DOC}, date=JAN)
    assert check_docs(repo=root).findings == ()  # `path_sep` from `os`'s star: never the repository's
    (root / "pkg/__init__.py").write_text(CODE.replace("def retry_unless():\n    return 2\n\n\n", ""))
    commit(root, "remove retry_unless", date=FEB)
    got = [(f.path, f.line) for f in check_docs(repo=root).findings]
    assert sorted(got) == [("docs/kw.rst", 10), ("docs/retry.rst", 12)]  # once a doc, at its first use


def test_without_a_star_import_a_bare_name_is_no_reference(repo_factory):
    doc = DOC.replace("    from pkg import *\n", "")
    root = repo_factory({"pkg/__init__.py": CODE, "docs/retry.rst": doc}, date=JAN)
    (root / "pkg/__init__.py").write_text(CODE.replace("def retry_unless():\n    return 2\n\n\n", ""))
    commit(root, "remove retry_unless", date=FEB)
    assert check_docs(repo=root).findings == ()


def test_a_sessions_output_is_no_use():
    from noface_ctx.freshness.star_values import star_values

    session = [(1, ">>> from pkg import *"), (2, ">>> retry_never"), (3, "retry_unless"), (4, ">>> x = f(a=old_name)")]
    got = [(r.name, r.line) for r in star_values(session, set(), frozenset(), ("pkg",))]
    assert got == [("pkg.retry_never", 2), ("pkg.old_name", 4)]
