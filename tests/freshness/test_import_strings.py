"""A dotted import path written as a string (`import_strings`): `"pkg.stats.DownloaderStats"` in a Python example
or ``'pkg.stats.DownloaderStats'`` as a quoted span names the class; its rename is flagged, blamed and suggested.
Another project's path, a logger name, a module, a two-part pair, a URL or a file name are not."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.import_strings import string_refs, string_span

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

STATS = '''class DownloaderStats:
    """Count what was downloaded."""

    def process_request(self, request):
        return None


def load(path):
    return path
'''

SETTINGS = """Settings
========

The middlewares enabled by default:

.. code-block:: python

    {
        "pkg.stats.DownloaderStats": 850,
        "myproject.middlewares.Custom": 900,
    }

Default: ``'pkg.dupes.Filter'``

Your own loader is named ``"pkg.stats:load"``.
"""

OTHERS = """Others
======

.. code-block:: python

    import logging

    logger = logging.getLogger("pkg.core.engine")
    security = logging.getLogger("pkg.security.csrf")
    module, pair = "pkg.stats", "pkg.x"
    url, conf = "https://pkg.stats.example.org", "pkg.conf.json"
    host = "pkg.stats.io"
    spaced = "pkg.stats.DownloaderStats is the default"

Name ``"myproject.pipelines.Price"`` in your settings, or ``'pkg.stats'``. You should see an output like this::

    2016-12-16 21:18:49 [pkg.middleware] INFO: Enabled downloader middlewares:
    ['pkg.stats.DownloaderStats',
     'pkg.stats.load']
"""


def _site(repo_factory):
    return repo_factory({"pkg/__init__.py": "", "pkg/stats.py": STATS, "pkg/dupes.py": "class Filter:\n    pass\n",
                         "pkg/core/__init__.py": "", "pkg/core/engine.py": "import logging\n",
                         "docs/conf.py": "", "docs/settings.rst": SETTINGS, "docs/others.rst": OTHERS}, date=JAN)


def test_strings_whose_whole_text_is_a_dotted_path_are_references():
    found = string_refs([(8, "{"), (9, '    "pkg.stats.DownloaderStats": 850,'), (10, '    "x": (f"pkg.a.b", "a.b", \'pkg.mod:func\'),'),
                         (11, "}")])
    assert [(r.line, r.name, r.source) for r in found] == [(9, "pkg.stats.DownloaderStats", "string"), (10, "pkg.mod.func", "string")]
    assert string_span("'pkg.dupes.Filter'", 3).name == "pkg.dupes.Filter"  # type: ignore[union-attr]
    assert string_span("'pkg.x'", 3) is None and string_span("'pkg.conf.json'", 3) is None
    assert string_span("pkg.dupes.Filter", 3) is None  # unquoted: a span as before, not a string
    assert [r.line for r in string_refs([(1, '>>> load("pkg.stats:load")'), (2, "'pkg.stats.Printed'")])] == [1]
    assert string_refs([(1, "2016-12-16 21:18:49 [pkg] INFO: Enabled:"), (2, "['pkg.stats.DownloaderStats']")]) == []


def test_a_renamed_class_named_by_an_import_path_string_is_flagged(repo_factory):
    root = _site(repo_factory)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/stats.py").write_text(STATS.replace("class DownloaderStats:", "class DownloaderStatsMiddleware:"))
    (root / "pkg/dupes.py").write_text("class DupeFilter:\n    pass\n")
    commit(root, "DownloaderStats is a middleware; DupeFilter", date=FEB)
    head = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/settings.rst", 9), ("docs/settings.rst", 13)]
    assert all(head in f.message for f in found)  # blamed on the rename, the new name suggested
    assert "DownloaderStatsMiddleware" in found[0].message and "DupeFilter" in found[1].message


def test_a_removed_function_named_module_colon_name_is_flagged_and_others_never(repo_factory):
    root = _site(repo_factory)
    (root / "pkg/stats.py").write_text(STATS.replace("def load(path):", "def load_path(path):"))
    (root / "pkg/dupes.py").unlink()
    (root / "pkg/dupes").mkdir()
    (root / "pkg/dupes/__init__.py").write_text("class Filter:\n    pass\n")
    (root / "pkg/core/engine.py").write_text("import logging\n\nlog = logging.getLogger(__name__)\n")
    commit(root, "load_path; dupes a package", date=FEB)
    found = check_docs(repo=root).findings
    assert [(f.path, f.line) for f in found] == [("docs/settings.rst", 15)]  # the strings of others.rst: none
    assert "load_path" in found[0].message
