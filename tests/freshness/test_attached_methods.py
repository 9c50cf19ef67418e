"""A method attached to an object at run time under another name (`attached`): jinja's i18n
extension does `environment.extend(install_gettext_translations=self._install)` and its docs
write `.. method:: jinja2.Environment.install_gettext_translations(translations, newstyle=False)`;
the renamed keyword of `_install` is a changed signature of the documented method."""

from __future__ import annotations

from conftest import commit

from noface_ctx.freshness.attached import attached
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.definitions import definition

JAN, FEB = "2025-01-01T12:00:00+00:00", "2025-02-01T12:00:00+00:00"
ENV = '''class Environment:
    def extend(self, **attributes):
        for key, value in attributes.items():
            if not hasattr(self, key):
                setattr(self, key, value)
'''
EXT = '''class I18n:
    def __init__(self, environment):
        environment.extend(
            install_translations=self._install,
            translations_enabled=False,  # a value, not a method
        )
        setattr(environment, "uninstall_translations", self._uninstall)

    def _install(self, translations, newstyle=None):
        self.translations = translations

    def _uninstall(self, force=False):
        self.translations = None

    def _helper(self, level=1):
        return level
'''
DOC = """Internationalization
====================

.. method:: pkg.Environment.install_translations(translations, newstyle=False)

   Installs the translations.

.. method:: pkg.Environment.uninstall_translations(force=False)

   Uninstalls them.

.. attribute:: pkg.Environment.translations_enabled

   Whether they are enabled.
"""


def _repo(repo_factory):
    return repo_factory({"pkg/__init__.py": "from pkg.env import Environment\n", "pkg/env.py": ENV, "pkg/ext.py": EXT,
                         "docs/i18n.rst": DOC}, date=JAN)


def test_a_renamed_keyword_of_a_method_attached_under_another_name_changes_its_documented_signature(repo_factory):
    root = _repo(repo_factory)
    assert check_docs(repo=root).lines() == []
    (root / "pkg/ext.py").write_text(EXT.replace("newstyle=None", "new_style=None").replace("force=False", "hard=False"))
    commit(root, "i18n: spell new_style, hard", date=FEB)
    got = check_docs(repo=root).lines()
    assert [line.split(": warning: ")[0] for line in got] == ["docs/i18n.rst:4: changed-ref", "docs/i18n.rst:8: changed-ref"], got
    assert "newstyle" in got[0] and "force" in got[1], got


def test_a_method_not_attached_and_an_attached_value_are_not(repo_factory):
    root = _repo(repo_factory)
    (root / "pkg/ext.py").write_text(EXT.replace("level=1", "depth=1").replace("translations_enabled=False",
                                                                               "translations_enabled=True"))
    commit(root, "helper: depth", date=FEB)
    assert check_docs(repo=root).lines() == []


def test_what_is_attached():
    assert attached(EXT) == {"install_translations": ("_install", 3), "uninstall_translations": ("_uninstall", 7)}
    assert definition(EXT, "install_translations") == definition(EXT, "_install") is not None
    assert definition(EXT, "translations_enabled") is None
    # a list's `extend`, a dict's `update`, a function of another module: nothing attached
    assert attached("items.extend([a, b])\noptions.update(level=compute)\nobj.extend(run=other.run)\n") == {}
