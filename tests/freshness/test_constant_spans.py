"""An ALL_CAPS code span (``INSTALLED_ADDONS``) names a setting or module constant: judged as a removed name only
(held-out16: scrapy's addons.rst kept "the ``INSTALLED_ADDONS`` setting" after `INSTALLED_ADDONS = ()` became
`ADDONS = {}`). Negatives: environment variables the code never assigned (``NO_COLOR``, ``HTTP_PROXY``), a
constant still assigned (``DEBUG_MODE``), a name assigned only inside a function (``MAX_SIZE``). A settings
example assigning the name (`INSTALLED_ADDONS = (...)`) does not make the span the example's own."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

SETTINGS = '''DEBUG_MODE = False
INSTALLED_ADDONS = ()


def limits():
    MAX_SIZE = 10
    return MAX_SIZE
'''

DOC = """Add-ons
=======

Add-ons are listed in the ``INSTALLED_ADDONS`` setting, and ``DEBUG_MODE`` logs each one.

Colours follow ``NO_COLOR``; downloads go through ``HTTP_PROXY``. At most ``MAX_SIZE`` add-ons load.

Enable one in your project's settings module (the example assigns the setting: the span above is still read)::

    INSTALLED_ADDONS = ("myproject.addons.Example",)
"""


def test_a_removed_settings_span_is_stale_blamed_on_its_removal_with_the_new_name(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/default_settings.py": SETTINGS, "docs/addons.rst": DOC}, date=JAN)
    assert list(check_docs(repo=root).findings) == []
    (root / "pkg/default_settings.py").write_text(SETTINGS.replace("INSTALLED_ADDONS = ()", "ADDONS = {}"))
    commit(root, "addons as a dict", date=FEB)
    found = [(f.path, f.line, f.message) for f in check_docs(repo=root).findings]
    assert [(p, line) for p, line, _ in found] == [("docs/addons.rst", 4)]
    assert "INSTALLED_ADDONS" in found[0][2] and "addons as a dict" in found[0][2] and "`ADDONS`" in found[0][2]


def test_unassigned_still_assigned_or_local_names_are_never_findings(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/default_settings.py": SETTINGS, "docs/addons.rst": DOC}, date=JAN)
    (root / "pkg/default_settings.py").write_text(SETTINGS.replace("MAX_SIZE = 10\n    return MAX_SIZE", "return 10")
                                                   .replace("DEBUG_MODE = False", "DEBUG_MODE = True"))
    commit(root, "no local, debug on", date=FEB)
    assert list(check_docs(repo=root).findings) == []
