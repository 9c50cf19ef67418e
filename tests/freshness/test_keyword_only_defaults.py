"""A parameter made keyword-only and given a default where it had none (`registry` →
`*, registry=None`) still takes every keyword caller: a doc naming the class and its parameter
(``registry``, `registry=r` passed by keyword) is not warned; a doc whose call passes it by
position is."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.definitions import definition
from noface_ctx.freshness.parameters import keyword_only_now, parameters

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
OLD = "class V:\n    def __init__(self, schema, registry, checker=None):\n        self.schema = schema\n"
NEW = "class V:\n    def __init__(self, schema, resolver=None, checker=None, *, registry=None):\n        self.schema = schema\n"
BY_NAME = ("Registries\n==========\n\nConfigure a registry for use with `V` objects: pass the ``registry``\n"
           "you built when making one.\n\n.. code-block:: python\n\n    from pkg import V\n\n    v = V(schema, registry=registry)\n")
BY_PLACE = ("Registries\n==========\n\nMake one with `V`:\n\n.. code-block:: python\n\n    from pkg import V\n\n"
            "    v = V(schema, registry)\n")


def _warned(files):
    return [(f.path, f.line) for f in check_docs(repo=files).findings]


def test_made_keyword_only_with_a_default_concerns_positional_callers_only(repo_factory):
    root = repo_factory({"pkg/__init__.py": "from .v import V\n", "pkg/v.py": OLD,
                         "docs/by_name.rst": BY_NAME, "docs/by_place.rst": BY_PLACE}, date=JAN)
    (root / "pkg/v.py").write_text(NEW)
    commit(root, "registry is keyword-only", date=FEB)
    assert [p for p, _ in _warned(root)] == ["docs/by_place.rst"]


def test_only_a_default_given_where_there_was_none_counts_as_keyword_only():
    def made(before, now):
        return keyword_only_now(*(parameters(definition(f"def f({ps}):\n    pass\n", "f")) or [] for ps in (before, now)))
    assert made("a, b", "a, *, b=None") == {"b"}
    assert made("a, b=1", "a, *, b=2") == set()  # a default changed too: not only a marker
    assert made("a, b", "a, *, c=None") == set()
