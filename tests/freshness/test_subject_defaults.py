"""Defaults stated about a sentence's or list item's subject (issue 25, rule 5): a switch ("If ``merge_slashes`` is
enabled (the default)", "``debug`` is off by default"), "The default is 500kB." in a list item headed by a role;
sizes with units compared as numbers (500kB is `500_000`); of several files coding a name's default, the one that
held the stated value when the doc was written."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.option_defaults import same_value
from noface_ctx.freshness.subject_defaults import subject_statements
from noface_ctx.freshness.written_numbers import values

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

MAP = '''class Map:
    """The rules of an application."""

    def __init__(self, rules=None, strict_slashes: bool = True, merge_slashes: bool = True):
        self.rules = rules or []
        self.strict_slashes = strict_slashes
        self.merge_slashes = merge_slashes
'''

RULE = '''class Rule:
    """One URL rule; its settings follow the map's unless given."""

    def __init__(self, string, strict_slashes: bool | None = None, merge_slashes: bool | None = None):
        self.string = string
        self.strict_slashes = strict_slashes
        self.merge_slashes = merge_slashes
'''

ROUTING = """Routing
=======

Rules that end with a slash are branches. If ``strict_slashes`` is enabled (the default), visiting a
branch URL without a trailing slash redirects.

Many servers merge consecutive slashes. If ``merge_slashes`` is enabled (the default), rules will
merge slashes when matching. To turn it off for a :class:`Rule` or :class:`Map`, pass ``False``.

A rule is built like this::

    If ``merge_slashes`` is disabled (the default) nothing happens
"""

REQUEST = '''class Request:
    """An incoming request."""

    #: The maximum size in bytes of a non-file form field.
    max_form_memory_size: int | None = 500_000

    #: The maximum number of multipart parts.
    max_form_parts = 1000

    def form(self, max_form_memory_size: int | None = None):
        return max_form_memory_size
'''

LIMITS = """Limits
======

The :class:`Request` class has a few limits:

-   :attr:`~Request.max_form_memory_size` - Stop reading request data if any
    non-file form field is larger than this number of bytes. The default is 500kB.
-   :attr:`~Request.max_form_parts` Stop reading request data if more than this
    number of parts are sent, see ``parse_form``. The default is 1000.
"""


def test_switches_and_the_default_of_an_items_head():
    assert subject_statements(ROUTING.split("\n")) == [
        (("strict_slashes",), 4, "True", False), (("merge_slashes",), 7, "True", False)]  # not the literal block's
    assert subject_statements(LIMITS.split("\n")) == [(("max_form_memory_size", "Request"), 7, "500kB", False)]
    more = ["By default, ``debug`` is disabled.", "", "``reload`` is on by default.", "",
            "``cache`` is not enabled by default."]
    assert subject_statements(more) == [(("debug",), 1, "False", False), (("reload",), 3, "True", False)]
    term = ["``max_parts``", "    How many parts are read. The default value is ``64``.", "",
            "Some text about ``a`` and ``b``. The default is 5."]
    assert subject_statements(term) == [(("max_parts",), 2, "64", False)]  # a paragraph not headed by the name: none


def test_sizes_with_units_are_numbers():
    assert values("500kB") == {500_000, 512_000} and values("1 MiB") == {1024 ** 2}
    assert values("500_000") == {500_000} and values("16 * 1024 * 1024") == {16 * 1024 ** 2} and values("2**20") == {2 ** 20}
    assert values("1,000") == {1000} and values("auto") == frozenset() and values("10s") == frozenset()
    assert same_value("500kB", "500_000") and same_value("16MB", "16 * 1024 * 1024") and not same_value("500kB", "1_000_000")


def _web(repo_factory):
    return repo_factory({"web/__init__.py": "", "web/map.py": MAP, "web/rules.py": RULE, "web/request.py": REQUEST,
                         "docs/routing.rst": ROUTING, "docs/limits.rst": LIMITS}, date=JAN)


def test_a_switched_default_is_flagged_in_the_file_the_doc_agreed_with(repo_factory):
    root = _web(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "web/rules.py").write_text(RULE.replace("merge_slashes: bool | None = None", "merge_slashes: bool | None = True"))
    commit(root, "rules merge by themselves", date=FEB)
    assert check_docs(repo=root).findings == ()  # still enabled: the doc is right
    (root / "web/map.py").write_text(MAP.replace("merge_slashes: bool = True", "merge_slashes: bool = False"))
    commit(root, "do not merge slashes by default", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/routing.rst", 7)]
    assert found[0].message.startswith(f"default of `merge_slashes` (web/map.py) changed in {head}")


def test_a_size_stated_with_a_unit_follows_the_class_attribute(repo_factory):
    root = _web(repo_factory)
    (root / "web/request.py").write_text(REQUEST.replace("= 500_000", "= 500000").replace("max_form_parts = 1000", "max_form_parts = 500"))
    commit(root, "reformat; fewer parts", date=FEB)
    assert check_docs(repo=root).findings == ()  # 500kB is 500000; the parts' sentence follows another name
    (root / "web/request.py").write_text(REQUEST.replace("= 500_000", "= 1_000_000"))
    commit(root, "a larger form memory limit", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/limits.rst", 7)]
    assert "`max_form_memory_size` (web/request.py)" in found[0].message
