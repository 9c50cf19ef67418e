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
