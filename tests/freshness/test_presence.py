"""No laundering (issue 25, rule 4): a reference that was checkable stays checked until the doc
text stops making it, whatever later commits did to the doc (an edit, a conversion to Markdown)."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.freshness import presence
from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"

CODING = '''class UnsignedIntegerCoder:
    def encode(self, variable):
        return variable


class BooleanCoder:
    def encode(self, variable):
        return variable
'''
RST = """How to add a backend
====================

Decode with :py:class:`~pkg.coding.UnsignedIntegerCoder` or :py:class:`~pkg.coding.BooleanCoder`.
"""
MD = """# How to add a backend

Decode with {py:class}`~pkg.coding.UnsignedIntegerCoder` or {py:class}`~pkg.coding.BooleanCoder`.
"""


def test_a_reference_stays_checked_after_the_doc_is_edited_or_converted(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/coding.py": CODING, "docs/backend.rst": RST,
                         "docs/other.rst": RST.replace("How to add a backend", "Decoding")}, date=JAN)
    (root / "pkg/coding.py").write_text(CODING.split("\n\n\n", 1)[1])
    commit(root, "remove UnsignedIntegerCoder", date=FEB)
    removal = git(root, "rev-parse", "--short=10", "HEAD").strip()
    git(root, "mv", "docs/backend.rst", "docs/backend.md")
    (root / "docs/backend.md").write_text(MD)
    (root / "docs/other.rst").write_text((root / "docs/other.rst").read_text() + "\nA typo fixed.\n")
    commit(root, "docs: backend guide to Markdown; a typo", date=MAR)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/backend.md", 3), ("docs/other.rst", 4)}
    assert all(f"removed in {removal}" in message and "UnsignedIntegerCoder" in message for message in got.values())


def test_a_name_whose_module_context_left_the_repository_is_not_ours(repo_factory):
    # sphinx's websupport moved to sphinxcontrib.websupport: its docs kept `:class:`BaseSearch``
    # under a `currentmodule` of the external package
    doc = ("Search\n======\n\n.. currentmodule:: pkg.search\n\nSubclass :class:`BaseSearch`.\n\n"
           ".. class:: BaseSearch\n\n   The interface: override :meth:`~BaseSearch.add_document`.\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/search.py": "class BaseSearch:\n    def add_document(self):\n        pass\n",
                         "pkg/app.py": "def run():\n    pass\n", "docs/search.rst": doc}, date=JAN)
    (root / "pkg/search.py").write_text("from contrib.websupport.search import BaseSearch as _Base  # noqa\n")
    commit(root, "websupport moves out to contrib.websupport", date=FEB)
    (root / "docs/search.rst").write_text(doc.replace("pkg.search", "contrib.websupport.search"))
    commit(root, "docs: the external package's module", date=MAR)
    assert check_docs(repo=root).findings == ()
    (root / "docs/search.rst").write_text(doc)  # still in the repository's module context: stale
    commit(root, "docs: back", date="2025-04-01T12:00:00+00:00")
    assert [(f.path, f.line) for f in check_docs(repo=root).findings] == [("docs/search.rst", 6)]


HELPERS = "def stream_with_context(gen):\n    return gen\n\n\ndef other():\n    pass\n"


def test_a_role_target_reworded_around_stays_checked_whatever_other_docs_do(repo_factory):
    # a role (`:func:`.stream_with_context``) is a cross-reference, never a plain literal, even
    # when another doc names the same function as a plain ``literal``
    streaming = "Streaming\n=========\n\nWrap the generator in :func:`.stream_with_context`.\n\nThe answer is generators.\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "docs/streaming.rst": streaming,
                         "docs/notes.rst": "Notes\n=====\n\nSee ``stream_with_context`` too.\n"}, date=JAN)
    (root / "pkg/helpers.py").write_text(HELPERS.replace("stream_with_context", "stream_with_request_context"))
    commit(root, "rename stream_with_context", date=FEB)
    rename = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "docs/streaming.rst").write_text(streaming.replace("The answer is generators.", "The answer: generators."))
    commit(root, "docs: reword", date=MAR)
    got = {f.path: f.message for f in check_docs(repo=root).findings}
    assert "docs/streaming.rst" in got
    assert f"removed in {rename}" in got["docs/streaming.rst"]
    assert "`stream_with_request_context`" in got["docs/streaming.rst"]


def test_a_module_member_stays_checked_when_its_file_moved_before_the_removal(repo_factory):
    # requests moved `requests/adapters.py` to `src/requests/adapters.py`; a doc naming
    # `requests.adapters.HTTPAdapter` then reworded after the rename is still stale
    adapters = "class BaseAdapter:\n    pass\n\n\nclass HTTPAdapter(BaseAdapter):\n    pass\n"
    api = "API\n===\n\nLower Classes\n-------------\n\n.. autoclass:: pkg.adapters.HTTPAdapter\n"
    root = repo_factory({"pkg/__init__.py": "", "pkg/adapters.py": adapters, "docs/api.rst": api}, date=JAN)
    git(root, "mv", "pkg", "src")
    (root / "src/pkg").mkdir()
    for name in ("__init__.py", "adapters.py"):
        git(root, "mv", f"src/{name}", f"src/pkg/{name}")
    commit(root, "src layout", date=FEB)
    (root / "src/pkg/adapters.py").write_text(adapters.replace("HTTPAdapter", "HTTPTransport"))
    commit(root, "rename HTTPAdapter", date=MAR)
    rename = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "docs/api.rst").write_text(api.replace("Lower Classes\n-------------", "Lowest Classes\n--------------"))
    commit(root, "docs: a title", date="2025-04-01T12:00:00+00:00")
    got = {f.path: f.message for f in check_docs(repo=root).findings}
    assert list(got) == ["docs/api.rst"]
    assert f"removed in {rename}" in got["docs/api.rst"] and "HTTPTransport" in got["docs/api.rst"]


def test_a_module_member_moved_without_a_re_export_suggests_its_new_module(repo_factory):
    testing = "class CliRunner:\n    pass\n\n\nclass Client:\n    pass\n"
    doc = "Testing\n=======\n\nUse :class:`~pkg.testing.CliRunner` and ``pkg.testing.Client``.\n"
    root = repo_factory({"src/pkg/__init__.py": "", "src/pkg/testing.py": testing, "src/pkg/cli.py": "def main():\n    pass\n",
                         "docs/changes.rst": "Changes\n=======\n\n- ``pkg.testing.CliRunner`` added.\n",
                         "docs/whats-new.rst": "What's new\n==========\n\n- ``pkg.testing.CliRunner`` added.\n",
                         "docs/testing.rst": doc}, date=JAN)
    (root / "src/pkg/testing.py").write_text("class Client:\n    pass\n")
    (root / "src/pkg/cli.py").write_text("def main():\n    pass\n\n\nclass CliRunner:\n    pass\n")
    commit(root, "move CliRunner into cli", date=FEB)
    move = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = {f.path: f.message for f in check_docs(repo=root).findings}
    assert list(got) == ["docs/testing.rst"]  # a changelog, `whats-new` too, is a record: never judged
    assert got["docs/testing.rst"] == (f"references `pkg.testing.CliRunner` which no longer exists, removed in {move} "
                                       "(2025-02-01, \"move CliRunner into cli\") (moved to `pkg.cli.CliRunner`?)")


def test_a_removed_module_or_package_is_stale_where_a_doc_names_it(repo_factory):
    # flask removed `flask/ext/` and `scripts/flaskext_compat.py`; docs/extensions.rst kept both
    doc = ("Extensions\n==========\n\nImport from the :data:`pkg.ext` package; the ``compat_shim`` module\n"
           "provides it for old versions.\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/ext/__init__.py": '"""pkg.ext: extensions."""\n',
                         "scripts/compat_shim.py": '"""compat_shim: activate pkg.ext."""\n', "docs/extensions.rst": doc},
                        date=JAN)
    git(root, "rm", "-q", "-r", "pkg/ext", "scripts/compat_shim.py")
    commit(root, "remove pkg.ext", date=FEB)
    removal = git(root, "rev-parse", "--short=10", "HEAD").strip()
    got = [(f.line, f.message) for f in check_docs(repo=root).findings]
    assert [line for line, _ in got] == [4, 4]
    assert all(f"removed in {removal}" in message for _, message in got)
    assert {"`pkg.ext`", "`compat_shim`"} == {m.split(" ")[1] for _, m in got}


def _edit_often(root, path: str, times: int) -> None:
    """Edits a doc `times` times after the fact, never touching the stale line (a later paragraph)."""
    for k in range(times):
        with open(root / path, "a", encoding="utf-8") as fh:
            fh.write(f"\nA later paragraph, number {k}.\n")
        commit(root, f"docs: paragraph {k}", date=f"2025-03-{k + 2:02d}T12:00:00+00:00")


def _findings_after_later_edits(root, path: str) -> tuple[str, dict[tuple[str, int], str]]:
    """The commit just made (its short sha) and `check-docs`' findings once `path` was edited 8 times after it."""
    gone = git(root, "rev-parse", "--short=10", "HEAD").strip()
    _edit_often(root, path, 8)
    return gone, {(f.path, f.line): f.message for f in check_docs(repo=root).findings}


def test_a_documented_module_deleted_long_before_the_docs_last_edits_stays_stale(repo_factory):
    # django's middleware.txt kept `.. module:: django.middleware.exception` through ten edits
    # after 7d1b69dbe7 deleted the module
    doc = ("Middleware\n==========\n\n.. module:: pkg.middleware.exception\n\n.. class:: ExceptionMiddleware\n\n"
           ".. module:: pkg.middleware.common\n\n.. class:: CommonMiddleware\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/middleware/__init__.py": "",
                         "pkg/middleware/exception.py": "class ExceptionMiddleware:\n    pass\n",
                         "pkg/middleware/common.py": "class CommonMiddleware:\n    pass\n", "docs/middleware.txt": doc}, date=JAN)
    git(root, "rm", "-q", "pkg/middleware/exception.py")
    commit(root, "drop the exception middleware", date=FEB)
    gone, got = _findings_after_later_edits(root, "docs/middleware.txt")
    assert list(got) == [("docs/middleware.txt", 4)]
    assert f"removed in {gone}" in got[("docs/middleware.txt", 4)]


def test_a_module_name_its_file_dropped_in_the_commit_that_edited_the_doc_stays_stale(repo_factory):
    # django's fe914341c8 dropped `check_password` from `auth/models.py` (a method of that name
    # stayed) and edited the doc importing it from there; more edits followed
    models = ("from pkg.hashers import check_password\n\n\nclass User:\n    def check_password(self, raw):\n"
              "        return check_password(raw, self.password)\n")
    doc = ("Customizing\n===========\n\n.. code-block:: python\n\n    from pkg.models import User, check_password\n\n"
           "    check_password(raw, user.password)\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/hashers.py": "def check_password(raw, hashed):\n    return raw == hashed\n",
                         "pkg/models.py": models, "docs/customizing.rst": doc}, date=JAN)
    (root / "pkg/models.py").write_text(models.replace("from pkg.hashers import check_password\n",
                                                       "from pkg import hashers\n").replace("return check_password", "return hashers.check_password"))
    (root / "docs/customizing.rst").write_text(doc + "\nA new section on custom users.\n")
    commit(root, "models: users in their own section", date=FEB)
    gone, got = _findings_after_later_edits(root, "docs/customizing.rst")
    assert list(got) == [("docs/customizing.rst", 6)]
    assert f"removed in {gone}" in got[("docs/customizing.rst", 6)]


def test_a_class_renamed_before_the_doc_was_reworded_keeps_its_suggestion(repo_factory, monkeypatch):
    # pylint's `pylint.testutils.CheckerTestCase` (a re-export): renamed everywhere in one commit, the
    # checker guide reworded after it without fixing the name, its earlier version too far back to
    # search (more than LAUNDER_SCOPE code files changed since; 0 here): still stale, blamed on the
    # rename, and the new name suggested
    monkeypatch.setattr(presence, "LAUNDER_SCOPE", 0)
    checker = "class CheckerTestCase:\n    def walk(self, node):\n        return node\n"
    guide = ("Testing\n=======\n\nTesting is simple.\n\nSubclass ``pkg.testutils.CheckerTestCase`` to test a checker.\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/testutils/__init__.py": "from pkg.testutils.checker import CheckerTestCase\n",
                         "pkg/testutils/checker.py": checker, "docs/guide.rst": guide}, date=JAN)
    for path in ("pkg/testutils/__init__.py", "pkg/testutils/checker.py"):
        (root / path).write_text((root / path).read_text().replace("CheckerTestCase", "CheckerTestBase"))
    commit(root, "rename CheckerTestCase to CheckerTestBase", date=FEB)
    renamed = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "docs/guide.rst").write_text(guide.replace("Testing is simple.", "Testing is easy."))
    commit(root, "docs: reword the testing guide", date=MAR)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert list(got) == [("docs/guide.rst", 6)]
    assert f"removed in {renamed}" in got[("docs/guide.rst", 6)]
    assert "renamed to `pkg.testutils.CheckerTestBase`" in got[("docs/guide.rst", 6)]


OPS = """Operations
==========

Each operation runs inside the :class:`.Context` object.

.. automodule:: pkg.ops
"""


def test_a_removed_class_left_as_a_word_in_a_log_line_stays_stale_after_the_doc_is_edited(repo_factory):
    """A class removed while its name lives on as a word (a log line's "Context impl"): after an edit of
    another line of the doc, the name is looked for where the doc began using it, where it was a class."""
    root = repo_factory({"pkg/__init__.py": "", "pkg/context.py": "class Context:\n    pass\n",
                         "pkg/ops.py": "def run():\n    pass\n", "docs/ops.rst": OPS}, date=JAN)
    git(root, "rm", "-q", "pkg/context.py")
    (root / "pkg/migration.py").write_text('import logging\n\nlogging.info("Context impl %s.", "x")\n\n\nclass MigrationContext:\n    pass\n')
    commit(root, "the context becomes MigrationContext", date=FEB)
    removal = git(root, "rev-parse", "--short=10", "HEAD").strip()
    (root / "docs/ops.rst").write_text(OPS.replace("pkg.ops", "pkg.operations"))
    (root / "pkg/operations.py").write_text("def run():\n    pass\n")
    with (root / "pkg/migration.py").open("a") as f:  # the same commit touches the file holding the word
        f.write('    """The migration\'s context."""\n')
    commit(root, "docs: operations", date=MAR)
    [finding] = check_docs(repo=root).findings
    assert (finding.path, finding.line) == ("docs/ops.rst", 4) and f"removed in {removal}" in finding.message
    # the same word written as a literal (not a role's target), or a role aimed at a class the docs declare themselves
    for text in (OPS.replace(":class:`.Context`", "``Context``"), OPS + "\n.. class:: Context\n\n   Documented here.\n"):
        (root / "docs/ops.rst").write_text(text.replace("pkg.ops", "pkg.operations"))
        commit(root, "docs: reworded", date=MAR)
        (root / "docs/ops.rst").write_text(text.replace("pkg.ops", "pkg.operations") + "\nAgain.\n")
        with (root / "pkg/migration.py").open("a") as f:
            f.write("# touched\n")
        commit(root, "docs: again", date=MAR)
        assert check_docs(repo=root).findings == (), text
    # the removed class still used as code at the doc's commit (imported from the package it moved to): not ours to judge
    (root / "pkg/migration.py").write_text("from ext_context import Context\n\nCONTEXT = Context\n")
    (root / "docs/ops.rst").write_text(OPS.replace("pkg.ops", "pkg.operations") + "\nSee ext_context.\n")
    commit(root, "docs: the context moved to ext_context", date=MAR)
    assert check_docs(repo=root).findings == ()
    # a word that never named a definition here (a log line's "Session") is no reference at any version
    (root / "docs/ops.rst").write_text(OPS.replace(".Context", ".Session").replace("pkg.ops", "pkg.operations"))
    (root / "pkg/migration.py").write_text('import logging\n\nlogging.info("Session %s.", "x")\n')
    commit(root, "docs: session", date=MAR)
    (root / "docs/ops.rst").write_text(OPS.replace(".Context", ".Session").replace("pkg.ops", "pkg.operations") + "\nMore.\n")
    commit(root, "docs: more", date=MAR)
    assert check_docs(repo=root).findings == ()
