"""The class hierarchy across modules (issue 25, rule 2): a member resolves through base classes
imported from other files; moving it within the hierarchy is no removal; the blame goes to the
commit that removed the last definition, and the suggestion comes from that commit only."""

from __future__ import annotations

from pathlib import Path

from conftest import commit, git

from noface_ctx.freshness.check import check_docs

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"
MAR = "2025-03-01T12:00:00+00:00"

FLASK = '''class Flask:
    def __init__(self, name):
        self.name = name

    def register_blueprint(self, bp):
        self.bp = bp
'''
SPLIT = '''from pkg.sansio import App


class Flask(App):
    def __init__(self, name):
        super().__init__(name)
'''
APP = '''class App:
    def __init__(self, name):
        self.name = name

    def register_blueprint(self, bp):
        self.bp = bp
'''
BLUEPRINT = '''class Blueprint:
    def register_blueprint(self, bp):
        return bp
'''


def _history(repo_factory) -> tuple[Path, str]:
    root = repo_factory({"pkg/__init__.py": "", "pkg/app.py": FLASK, "pkg/blueprints.py": BLUEPRINT,
                         "docs/old.md": "Call `Flask.register_blueprint()` for each blueprint.\n",
                         "docs/nested.md": "Nest with `Blueprint.register_blueprint()`.\n"}, date=JAN)
    (root / "pkg/app.py").write_text(SPLIT)
    (root / "pkg/sansio.py").write_text(APP)
    (root / "docs/new.rst").write_text("Blueprints\n==========\n\nSee :meth:`~pkg.app.Flask.register_blueprint`.\n")
    commit(root, "move the app's core to sansio (App)", date=FEB)
    (root / "pkg/sansio.py").write_text(APP.replace("register_blueprint", "add_blueprint"))
    commit(root, "rename register_blueprint to add_blueprint", date=MAR)
    return root, git(root, "rev-parse", "--short=10", "HEAD").strip()


def test_a_member_moved_to_a_base_class_then_renamed_blames_the_rename(repo_factory):
    root, rename = _history(repo_factory)
    report = check_docs(repo=root)
    got = {(f.path, f.line): f.message for f in report.findings}
    assert set(got) == {("docs/old.md", 1), ("docs/new.rst", 4)}  # `Blueprint.register_blueprint` still exists
    for message in got.values():
        assert f"removed in {rename}" in message, message  # not the move of February
        assert "add_blueprint`?" in message, message


def test_a_member_moved_to_a_base_class_in_another_file_still_resolves(repo_factory):
    root = repo_factory({"pkg/__init__.py": "", "pkg/app.py": FLASK, "pkg/blueprints.py": BLUEPRINT,
                         "docs/old.md": "Call `Flask.register_blueprint()` for each blueprint.\n"}, date=JAN)
    (root / "pkg/app.py").write_text(SPLIT)
    (root / "pkg/sansio.py").write_text(APP)
    commit(root, "move the app's core to sansio (App)", date=FEB)
    assert check_docs(repo=root).findings == ()


def test_an_attribute_set_in_init_of_an_exception_is_its_member_until_renamed(repo_factory):
    # marshmallow's `ValidationError(MarshmallowError(Exception))` sets `self.messages` in `__init__`;
    # a function elsewhere has a parameter `messages`, which defines no attribute of the exception
    exceptions = ('class BaseError(Exception):\n    pass\n\n\nclass ValidationError(BaseError):\n'
                  '    def __init__(self, message):\n        self.messages = [message]\n')
    store = "def store_error(messages, field_name=None):\n    return {field_name: messages}\n"
    quick = ("Quickstart\n==========\n\nErrors are in `ValidationError.messages <pkg.exceptions.ValidationError.messages>`;\n"
             "``ValidationError.args`` holds what it was given.\n")
    extending = ("Extending\n=========\n\n.. code-block:: python\n\n    from pkg.exceptions import ValidationError\n\n"
                 "    try:\n        load(data)\n    except ValidationError as err:\n        print(err.messages, err.args)\n")
    root = repo_factory({"pkg/__init__.py": "", "pkg/exceptions.py": exceptions, "pkg/store.py": store,
                         "docs/quickstart.rst": quick, "docs/extending.rst": extending}, date=JAN)
    assert check_docs(repo=root).findings == ()
    (root / "pkg/exceptions.py").write_text(exceptions.replace(".messages", ".errors"))
    commit(root, "rename ValidationError.messages", date=FEB)
    got = {(f.path, f.line): f.message for f in check_docs(repo=root).findings}
    assert set(got) == {("docs/quickstart.rst", 4), ("docs/extending.rst", 11)}  # `args`: Exception's, still there
    assert "renamed to `pkg.exceptions.ValidationError.errors`?" in got[("docs/quickstart.rst", 4)]
    assert "renamed to `ValidationError.errors`?" in got[("docs/extending.rst", 11)]


EXAMPLE = ("Blueprints\n==========\n\nRegister one like this::\n\n    from pkg.app import Flask\n\n"
           "    app = Flask(__name__)\n    app.register_blueprint(simple_page)\n")


def _split_app(repo_factory, doc_date: str, split: str = SPLIT) -> Path:
    """The doc's example calls `register_blueprint` on a `Flask`; the method lives in its base
    `App` (pkg/sansio.py) since February (the doc written in January, before the move, or in March)."""
    files = {"pkg/__init__.py": "", "pkg/app.py": FLASK, "pkg/blueprints.py": BLUEPRINT}
    root = repo_factory({**files, **({"docs/blueprints.rst": EXAMPLE} if doc_date == JAN else {})}, date=JAN)
    (root / "pkg/app.py").write_text(split)
    (root / "pkg/sansio.py").write_text(APP)
    commit(root, "move the app's core to sansio (App)", date=FEB)
    if doc_date != JAN:
        (root / "docs").mkdir()
        (root / "docs/blueprints.rst").write_text(EXAMPLE)
        commit(root, "document blueprints", date=doc_date)
    assert check_docs(repo=root).findings == ()  # every doc judged once, as the hook's first run does
    return root


def test_the_hook_names_a_doc_calling_a_base_class_member_the_staged_edit_removed(repo_factory):
    # flask: `app.register_blueprint(...)` on `app = Flask(...)`, the method defined in `sansio.App`
    root = _split_app(repo_factory, JAN)
    (root / "pkg/sansio.py").write_text(APP.replace("register_blueprint", "add_blueprint"))
    git(root, "add", "pkg/sansio.py")
    for given in (["pkg/sansio.py"], ["docs/blueprints.rst"]):  # the hook; the doc asked directly
        found = [(f.path, f.line, f.message) for f in check_docs(given, repo=root).findings]
        assert [(p, n) for p, n, _ in found] == [("docs/blueprints.rst", 9)], given
        assert "removed in uncommitted edits" in found[0][2], found  # not February's move to the base
        assert "add_blueprint`?" in found[0][2], found
    commit(root, "rename register_blueprint to add_blueprint", date=MAR)
    rename = git(root, "rev-parse", "--short=10", "HEAD").strip()
    found = [(f.path, f.message) for f in check_docs(repo=root).findings]  # committed: that commit is named
    assert len(found) == 1 and found[0][0] == "docs/blueprints.rst" and f"removed in {rename} (" in found[0][1], found


def test_the_hook_names_a_doc_calling_a_base_class_member_whose_signature_the_staged_edit_changed(repo_factory):
    # the doc's call no longer binds: the base's file, not `Flask`'s own, is the file the doc is about
    root = _split_app(repo_factory, MAR)
    (root / "pkg/sansio.py").write_text(APP.replace("register_blueprint(self, bp)", "register_blueprint(self, bp, name)"))
    git(root, "add", "pkg/sansio.py")
    found = check_docs(["pkg/sansio.py"], repo=root).findings
    assert [(f.path, f.line, f.code) for f in found] == [("docs/blueprints.rst", 9, "changed-ref")]
    assert "uncommitted edits" in found[0].message, found[0].message


def test_a_member_the_class_itself_overrides_is_the_class_files_not_the_bases(repo_factory):
    # `Flask.register_blueprint` overriding `App`'s: a change to `App`'s says nothing of the doc's call
    root = _split_app(repo_factory, MAR, SPLIT + "\n    def register_blueprint(self, bp):\n        return bp\n")
    (root / "pkg/sansio.py").write_text(APP.replace("register_blueprint(self, bp)", "register_blueprint(self, bp, name)"))
    git(root, "add", "pkg/sansio.py")
    assert check_docs(["pkg/sansio.py"], repo=root).findings == ()
    (root / "pkg/app.py").write_text(SPLIT + "\n    def register_blueprint(self, bp, name):\n        return bp\n")
    git(root, "add", "pkg/app.py")
    assert [(f.path, f.code) for f in check_docs(["pkg/app.py"], repo=root).findings] == [
        ("docs/blueprints.rst", "changed-ref")]
