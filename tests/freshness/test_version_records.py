"""A version history named with its subject (`versionhistory.rst`, `release_history.md`) and a
migration guide (`migration.rst`, `migrating.md`) name old APIs on purpose: records, never judged;
and in any doc a name announced as replaced ("``old()`` (now just ``new()``)", "``old`` was
deprecated in favor of ...", "``new`` (formerly ``old``)") is history, while a call of it is stale."""

from __future__ import annotations

from conftest import commit

from noface_ctx.docs.markup import is_record
from noface_ctx.freshness.announced import announced_gone
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
CODE = "def open_scope():\n    return 1\n\n\ndef new_scope():\n    return 2\n"


def test_version_histories_and_migration_guides_are_records():
    assert is_record("docs/versionhistory.rst") and is_record("docs/version_history.rst")
    assert is_record("docs/release-history.md") and is_record("ReleaseHistory.md") and is_record("docs/migration.rst")
    assert is_record("docs/migrating.md") and is_record("docs/prevapichanges/x.rst")
    assert not is_record("docs/versioning.rst") and not is_record("docs/release-process.md")  # guides about versions
    assert not is_record("docs/topics/migrations.txt") and not is_record("docs/ref/migration-operations.txt")
    assert not is_record("docs/exchanges.md") and not is_record("docs/version.md")


def test_removed_names_in_records_and_announcements_are_spared_but_a_call_is_stale(repo_factory):
    root = repo_factory({
        "pkg/__init__.py": CODE,
        "docs/versionhistory.rst": "Version history\n===============\n\n- Added ``open_scope()``\n",
        "docs/migration.rst": "Migrating\n=========\n\nConvert::\n\n    from pkg import open_scope\n    open_scope()\n",
        "docs/usage.rst": "Usage\n=====\n\n* ``open_scope()`` (now just ``new_scope()``)\n\n"
                          "The ``open_scope()`` function was also\ndeprecated in favor of ``new_scope()``.\n",
        "docs/versioning.rst": "Versioning\n==========\n\nCall ``open_scope()`` to start.\n",
    }, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/__init__.py").write_text(CODE.split("\n\n\n")[1])
    commit(root, "remove open_scope", date=FEB)
    assert [(f.path, f.line) for f in check_docs(repo=root).findings] == [("docs/versioning.rst", 4)]


def test_which_parenthesised_names_are_announced_as_replaced():
    lines = ["* ``old()`` (now just ``new()``) and :func:`was` (renamed to :func:`now`)",
             "Use ``Scope`` (formerly ``open_scope``), ``fast()`` (now faster) and ``keep()`` (see ``x``)."]
    assert announced_gone(lines) == {1: {"old", "was"}, 2: {"open_scope"}}
