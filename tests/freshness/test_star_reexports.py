"""A name a package re-exported through `from x import *` when the doc was written, found where
it lived then (`star_reexports`): requests' `.. autoexception:: InvalidMethod` under
`.. module:: requests`, reached through `from core import *` and `from exceptions import *`
(Python 2's implicit relative imports), which the package later replaced by named imports."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.history import HistoryIndex
from noface_ctx.freshness.star_reexports import reexported_from, star_homes, star_sources

EXCEPTIONS = '''class RequestException(Exception):
    """An ambiguous error."""


class InvalidMethod(RequestException):
    """An inappropriate method was attempted."""


class TooManyRedirects(RequestException):
    """Too many redirects."""
'''
CORE = "from models import Request, HTTPError\nfrom exceptions import *\n"
MODELS = "class HTTPError(Exception):\n    pass\n\n\nclass Request:\n    pass\n"
DOC = """API
===

.. module:: pkg

.. autoexception:: HTTPError

.. autoexception:: InvalidMethod

.. autoexception:: TooManyRedirects
"""
JAN, FEB, MAR = "2011-01-01T12:00:00+00:00", "2011-02-01T12:00:00+00:00", "2011-03-01T12:00:00+00:00"


def _repo(repo_factory):
    return repo_factory({"pkg/__init__.py": "from core import *\n", "pkg/core.py": CORE, "pkg/models.py": MODELS,
                         "pkg/exceptions.py": EXCEPTIONS, "docs/api.rst": DOC}, date=JAN)


def test_a_name_reexported_through_star_imports_since_replaced_is_blamed_on_its_removal(repo_factory):
    root = _repo(repo_factory)
    assert check_docs(repo=root).findings == ()
    git(root, "rm", "-q", "pkg/core.py")  # the package imports its names one by one now
    (root / "pkg/__init__.py").write_text("from .models import Request, HTTPError\n"
                                          "from .exceptions import RequestException, InvalidMethod, TooManyRedirects\n")
    commit(root, "move core imports into __init__.py", date=FEB)
    (root / "pkg/__init__.py").write_text("from .models import Request\n"
                                          "from .exceptions import RequestException, TooManyRedirects\n")
    (root / "pkg/exceptions.py").write_text(EXCEPTIONS.replace(
        'class InvalidMethod(RequestException):\n    """An inappropriate method was attempted."""\n\n\n', ""))
    (root / "pkg/models.py").write_text("class Request:\n    pass\n")
    commit(root, "All methods are valid now", date=MAR)
    removal = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = check_docs(repo=root).lines()
    assert [line.split(": ")[0] for line in got] == ["docs/api.rst:8"], got  # InvalidMethod, from exceptions.py
    assert f"`InvalidMethod` which no longer exists, removed in {removal}" in got[0], got
    # HTTPError reached pkg through core's named import: its home is models.py, which no `*` read (not
    # guessed at core.py, whose deletion moved it); TooManyRedirects is still there


def test_star_sources_follow_relative_absolute_and_implicit_relative_imports(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from .sub import *\nfrom core import *\n", "pkg/core.py": "from pkg.deep.leaf import *\n",
                         "pkg/sub/__init__.py": "from ..helpers import *\n", "pkg/helpers.py": "def helper():\n    pass\n",
                         "pkg/deep/__init__.py": "", "pkg/deep/leaf.py": "LEAF = 1\nfrom os import *\n", "top.py": "from ... import *\n"})
    index = HistoryIndex(root, None)
    head = git(root, "rev-parse", "HEAD").strip()
    index.update(head)
    assert star_sources(index, head, ["pkg/__init__.py"]) == {"pkg/sub/__init__.py", "pkg/core.py", "pkg/helpers.py",
                                                               "pkg/deep/leaf.py"}
    assert star_sources(index, head, ["top.py", "pkg/models.py", "README.md"]) == set()  # beyond the top, absent, not Python
    assert star_homes(index, head, ["pkg/__init__.py"], "LEAF") == ["pkg/deep/leaf.py"]
    assert star_homes(index, head, ["pkg/__init__.py"], "helper") == ["pkg/helpers.py"]
    assert star_homes(index, head, ["pkg/__init__.py"], "path") == []  # `os`'s, not the repository's
    index.close()


def test_reexported_from_names_the_module_a_package_took_one_name_from(repo_factory):
    init = ("from .core import Arg, parse  # the parser\nfrom kit.fields import (\n    Field as Field,  # explicit\n    Nested,\n)\n"
            "from json import JSONDecoder\nfrom .core import missing as MISSING\n")
    root = repo_factory({"src/kit/__init__.py": init, "src/kit/core.py": "class Arg:\n    pass\n", "src/kit/fields.py": "Field = 1\n"})
    index = HistoryIndex(root, None)
    head = git(root, "rev-parse", "HEAD").strip()
    index.update(head)
    def home(name: str) -> str:
        return reexported_from(index, head, "src/kit/__init__.py", init, name)
    assert home("Arg") == home("parse") == "src/kit/core.py"  # relative
    assert home("Field") == home("Nested") == "src/kit/fields.py"  # absolute, from the src layout's package root
    assert home("JSONDecoder") == ""  # another package's
    assert home("MISSING") == home("missing") == ""  # an alias is not the name the module wrote
    index.close()
