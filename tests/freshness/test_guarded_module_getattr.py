"""A module's `__getattr__` nested in a module-level `if not TYPE_CHECKING:` (werkzeug's http.py)
is still the module's: the names it answers for (a key of a dict in its own body, a name it
compares against) stay defined, deprecated rather than gone. A `__getattr__` of a class is not."""

from __future__ import annotations

from pathlib import Path

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.declarations import declared

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

OLD = ("def parse_etags(value):\n    return value\n\n\ndef parse_range_header(value):\n    return value\n\n\n"
       "def parse_date(value):\n    return value\n\n\ndef dump_header(value):\n    return value\n")
NEW = '''import typing as t


def _parse_etags(value):
    """Deprecated: use ETags.from_header."""
    return value


def _parse_range_header(value):
    return value


if not t.TYPE_CHECKING:

    def __getattr__(name):
        if name == "STATUS_CODES":
            import warnings

            warnings.warn("deprecated", DeprecationWarning, stacklevel=2)
            return {}

        alts = {
            "parse_etags": "ETags.from_header",
            "parse_range_header": "Range.from_header",
        }

        if name in alts:
            import warnings

            warnings.warn(f"'{name}' is deprecated, use {alts[name]}", DeprecationWarning, stacklevel=2)
            return globals()[f"_{name}"]

        raise AttributeError(name)


class Headers:
    def __getattr__(self, name):
        if name == "dump_header":
            return None
        raise AttributeError(name)
'''
DOC = """HTTP utilities
==============

.. module:: pkg.http

.. autofunction:: parse_etags

.. autofunction:: parse_range_header

.. autofunction:: parse_date

.. autofunction:: dump_header
"""


def findings(root: Path) -> list[tuple[str, int, str]]:
    return [(f.path, f.line, f.message) for f in check_docs((), repo=root).findings]


def test_the_names_a_guarded_module_getattr_answers_for_are_the_modules():
    table = declared(NEW)
    for name in ("parse_etags", "parse_range_header", "STATUS_CODES"):
        assert table.defines(name, top=True), name
    assert not table.defines("dump_header", top=True)  # a class's `__getattr__` answers for its instances
    assert not declared(NEW.replace("if not t.TYPE_CHECKING:\n\n    def", "def outer():\n\n    def")).defines(
        "parse_etags")  # a `__getattr__` nested in a function is a local


def test_functions_deprecated_behind_a_guarded_getattr_are_not_reported_gone(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/http.py": OLD, "docs/http.rst": DOC}, date=JAN)
    (root / "pkg/http.py").write_text(NEW)
    commit(root, "deprecate the parse functions behind __getattr__, remove parse_date and dump_header", date=FEB)
    got = findings(root)
    assert [(p, n) for p, n, _ in got] == [("docs/http.rst", 10), ("docs/http.rst", 12)]
    assert "`parse_date`" in got[0][2] and "no longer exists" in got[0][2]
    assert "`dump_header`" in got[1][2]
