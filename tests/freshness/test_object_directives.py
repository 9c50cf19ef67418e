"""Directives naming a Python object by its module, rendered from the code: `literalinclude` with
`:pyobject:` (the name must be defined in the included file), sphinx-click's `.. click:: pkg.cli:main`,
sphinxcontrib-autoprogram's `.. autoprogram:: pkg.cli:get_parser()`, sphinx-argparse's `:module:` /
`:func:`, in reStructuredText and MyST. A renamed object is flagged, blamed, with the new name; a
still-defined one, a non-Python include and another package's object are not."""

from __future__ import annotations

from conftest import commit, git

from noface_ctx.datatypes import Doc
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.extract import extract_references

JAN = "2025-01-01T12:00:00+00:00"
FEB = "2025-02-01T12:00:00+00:00"

CLI = "def build_parser():\n    return None\n\n\ndef main():\n    return 0\n"
APP = "class Greeter:\n    def greet(self, name):\n        return name\n\n\ndef create_app():\n    return Greeter()\n"
RST = """CLI
===

.. click:: pkg.cli:main
   :prog: tool

.. autoprogram:: pkg.cli:build_parser()
   :prog: tool

Example
-------

.. literalinclude:: ../examples/app.py
   :pyobject: create_app

.. literalinclude:: ../examples/app.py
   :pyobject: Greeter.greet

.. literalinclude:: ../examples/settings.toml
   :pyobject: create_app

.. click:: otherpkg.cli:main
"""
MYST = """# CLI

```{argparse}
:module: pkg.cli
:func: build_parser
:prog: tool
```

```{literalinclude} ../examples/app.py
:pyobject: create_app
```
"""
FILES = {"pkg/__init__.py": "", "pkg/cli.py": CLI, "examples/app.py": APP, "examples/settings.toml": "x = 1\n",
         "tests/test_cli.py": "from pkg.cli import build_parser, main\n", "docs/cli.rst": RST, "docs/cli.md": MYST}


def _found(root):
    return sorted((f.path, f.line, f.message) for f in check_docs(repo=root).findings)


def _edit(root, path, old, new, message):
    (root / path).write_text((root / path).read_text().replace(old, new))
    commit(root, message, date=FEB)
    return git(root, "rev-parse", "--short", "HEAD").strip()


def test_a_renamed_cli_object_is_flagged_with_blame_and_the_new_name(repo_factory):
    root = repo_factory(FILES, date=JAN)
    (root / "tests/test_cli.py").write_text("from pkg.cli import make_parser, main\n")
    sha = _edit(root, "pkg/cli.py", "build_parser", "make_parser", "rename build_parser")
    got = _found(root)
    assert [(p, ln) for p, ln, _ in got] == [("docs/cli.md", 3), ("docs/cli.rst", 7)], got
    for _, _, message in got:
        assert "build_parser" in message and "make_parser" in message and sha[:7] in message, message


def test_a_click_command_moved_without_a_reexport_is_flagged(repo_factory):
    root = repo_factory({**FILES, "pkg/commands.py": "X = 1\n"}, date=JAN)
    (root / "pkg/commands.py").write_text("X = 1\n\n\ndef main():\n    return 0\n")
    (root / "tests/test_cli.py").write_text("from pkg.cli import build_parser\n")
    _edit(root, "pkg/cli.py", "\n\n\ndef main():\n    return 0\n", "\n", "move main to pkg.commands")
    assert [(p, ln) for p, ln, _ in _found(root)] == [("docs/cli.rst", 4)]


def test_a_pyobject_renamed_in_the_included_file_is_flagged(repo_factory):
    root = repo_factory(FILES, date=JAN)
    sha = _edit(root, "examples/app.py", "create_app", "make_app", "rename create_app")
    got = _found(root)
    assert [(p, ln) for p, ln, _ in got] == [("docs/cli.md", 9), ("docs/cli.rst", 13)], got
    assert all("create_app" in m and "make_app" in m and sha[:7] in m for _, _, m in got)
    assert all("(renamed to `make_app`?)" in m for _, _, m in got), got  # as the doc writes it, not `examples.app.make_app`
    sha = _edit(root, "examples/app.py", "def greet(", "def welcome(", "rename greet")
    greet = [m for p, ln, m in _found(root) if (p, ln) == ("docs/cli.rst", 16)]
    assert greet and "(renamed to `Greeter.welcome`?)" in greet[0], greet


ROOTED = {"docs/conf.py": "project = 'x'\n", "docs/examples/snippet.py": "def hello():\n    return 1\n",
          "docs/guide/intro.rst": "Intro\n=====\n\n.. literalinclude:: /examples/snippet.py\n   :pyobject: hello\n",
          "site/notes.rst": "Notes\n=====\n\n.. literalinclude:: /examples/snippet.py\n   :pyobject: hello\n"}


def test_an_absolute_include_is_read_under_the_sphinx_source_folder(repo_factory):
    # `/examples/snippet.py` is docs/examples/snippet.py: the folder holding conf.py; site/ has no conf.py
    root = repo_factory(ROOTED, date=JAN)
    assert _found(root) == []
    sha = _edit(root, "docs/examples/snippet.py", "hello", "greet", "rename hello")
    got = _found(root)
    assert [(p, ln) for p, ln, _ in got] == [("docs/guide/intro.rst", 4)], got
    assert sha[:7] in got[0][2] and "(renamed to `greet`?)" in got[0][2], got


def test_an_absolute_include_still_defined_or_outside_the_source_folder_names_nothing(repo_factory):
    root = repo_factory({**ROOTED, "docs/guide/more.rst": ".. literalinclude:: /../outside.py\n   :pyobject: hello\n"},
                        date=JAN)
    _edit(root, "docs/examples/snippet.py", "return 1", "return 2", "change hello's body")
    assert _found(root) == []


def test_objects_still_defined_and_other_packages_are_not_flagged(repo_factory):
    root = repo_factory(FILES, date=JAN)
    _edit(root, "pkg/cli.py", "return 0", "return 1", "change main's body")
    _edit(root, "examples/app.py", "return name", "return name.title()", "change greet's body")
    assert _found(root) == []


def test_a_non_python_include_and_a_file_outside_the_repository_name_no_object():
    text = (".. literalinclude:: ../examples/settings.toml\n   :pyobject: create_app\n\n"
            ".. literalinclude:: ../../../outside.py\n   :pyobject: create_app\n\n"
            ".. literalinclude:: ../examples/app.py\n   :lines: 1-3\n")
    refs = extract_references(Doc(path="docs/cli.rst", slug="cli", title="CLI", text=text))
    assert [r for r in refs if r.source == "autodoc"] == []


def test_typer_autoprogram_and_myst_colon_fences_name_their_object():
    text = (".. typer:: pkg.cli:app\n   :prog: tool\n\n.. autoprogram:: pkg.cli:parser\n\n.. click:: pkg.cli\n")
    refs = extract_references(Doc(path="docs/cli.rst", slug="cli", title="CLI", text=text))
    assert [(r.name, r.line) for r in refs if r.source == "autodoc"] == [("pkg.cli.app", 1), ("pkg.cli.parser", 4)]
    myst = ":::{click} pkg.cli:main\n:prog: tool\n:::\n\n```{literalinclude} app.py\n---\npyobject: Greeter\n---\n```\n"
    refs = extract_references(Doc(path="docs/cli.md", slug="cli", title="CLI", text=myst))
    assert [(r.name, r.line) for r in refs if r.source == "autodoc"] == [("pkg.cli.main", 1), ("docs.app.Greeter", 5)]


def test_a_directive_shown_in_a_code_block_is_an_example_not_a_reference():
    rst = ("Options\n=======\n\n.. code-block:: rst\n\n   .. literalinclude:: example.py\n      :pyobject: Timer.start\n\n"
           "Or::\n\n   .. click:: pkg.cli:main\n\n.. note::\n\n   .. click:: pkg.cli:main\n")
    refs = extract_references(Doc(path="docs/cli.rst", slug="cli", title="CLI", text=rst))
    assert [(r.name, r.line) for r in refs if r.source == "autodoc"] == [("pkg.cli.main", 15)]
    md = ("# CLI\n\n````markdown\n```{click} pkg.cli:old\n```\n````\n\n````{note}\n```{click} pkg.cli:main\n```\n````\n")
    refs = extract_references(Doc(path="docs/cli.md", slug="cli", title="CLI", text=md))
    assert [(r.name, r.line) for r in refs if r.source == "autodoc"] == [("pkg.cli.main", 9)]
