"""conf.py's `doctest_global_setup` (sphinx.ext.doctest) binds names for every `testcode` /
`doctest` / `>>>` example of the docs, as a doc's own `.. testsetup:: *` does: a bare name its
`from pkg import *` binds is the repository's, flagged once renamed; a name it imports by name
is that import's, flagged at the doc's first use. conf.py is read with `ast`, never run."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.doctest_setup import setup_from_imports

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CODE = ("def wait(n):\n    return n\n\n\ndef retry_never():\n    return False\n\n\n"
        "def run(**kw):\n    return kw\n\n\nclass Thing:\n    pass\n")
CONF = 'project = "pkg"\nextensions = ["sphinx.ext.doctest"]\ndoctest_global_setup = """\nfrom pkg import *\n"""\n'
DOC = "Guide\n=====\n\n.. testcode::\n\n    run(wait=wait(2), retry=retry_never)\n\nMore:\n\n>>> run()\n{}\n"


def _findings(root):
    return [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]


def _rename(root, old, new):
    (root / "pkg/__init__.py").write_text((root / "pkg/__init__.py").read_text().replace(old, new))
    commit(root, f"{old} is {new}", date=FEB)


def test_a_name_the_global_setup_star_binds_is_flagged_once_renamed(repo_factory):
    root = repo_factory({"pkg/__init__.py": CODE, "docs/conf.py": CONF, "docs/guide.rst": DOC}, date=JAN)
    assert _findings(root) == []
    _rename(root, "def wait", "def pause")
    [(path, line, message)] = _findings(root)
    assert (path, line) == ("docs/guide.rst", 6) and "wait" in message and "pkg.pause" in message


def test_a_value_the_global_setup_star_binds_is_flagged_once_removed(repo_factory):
    root = repo_factory({"pkg/__init__.py": CODE, "docs/conf.py": CONF, "docs/guide.rst": DOC}, date=JAN)
    _rename(root, "def retry_never():\n    return False\n", "")
    assert [(p, n) for p, n, _ in _findings(root)] == [("docs/guide.rst", 6)]


def test_a_name_the_global_setup_imports_is_flagged_where_the_doc_uses_it(repo_factory):
    conf = CONF.replace("from pkg import *", "from pkg import Thing as T")
    doc = "Guide\n=====\n\nA thing:\n\n.. doctest::\n\n    >>> T()  # doctest: +ELLIPSIS\n    <...>\n"
    root = repo_factory({"pkg/__init__.py": CODE, "docs/conf.py": conf, "docs/guide.rst": doc}, date=JAN)
    assert _findings(root) == []
    _rename(root, "class Thing", "class Item")
    [(path, line, message)] = _findings(root)
    assert (path, line) == ("docs/guide.rst", 8) and "Thing" in message and "Item" in message


def test_without_a_global_setup_an_unimported_name_stays_unresolved(repo_factory):
    conf = 'project = "pkg"\nextensions = ["sphinx.ext.doctest"]\n'
    root = repo_factory({"pkg/__init__.py": CODE, "docs/conf.py": conf, "docs/guide.rst": DOC}, date=JAN)
    _rename(root, "def wait", "def pause")
    assert _findings(root) == []  # `wait(2)` binds to nothing the doc says: any library's


def test_another_librarys_star_or_a_computed_setup_binds_nothing_of_ours(repo_factory):
    conf = CONF.replace("from pkg import *", "from typing import *")
    root = repo_factory({"pkg/__init__.py": CODE, "docs/conf.py": conf, "docs/guide.rst": DOC}, date=JAN)
    _rename(root, "def wait", "def pause")
    assert _findings(root) == []
    computed = 'doctest_global_setup = "\\n".join(["from pkg import *"])\n'
    relative = 'doctest_global_setup = "from . import *\\nimport pkg\\nx = 1\\nfrom pkg import (a,\\n b)"\n'
    assert setup_from_imports(computed) == () and setup_from_imports(relative) == ("from pkg import a, b",)
