"""Build/test commands detected from the project's own files when `[project]` names none."""

from __future__ import annotations

import json

import pytest

from noface_ctx._commands import detect_commands
from noface_ctx._render import fixed_sections, render_prompt
from noface_ctx.config import load_config
from noface_ctx.datatypes import Issue

PYPROJECT = """[project]
name = "flasklike"

[build-system]
requires = ["flit_core<4"]
build-backend = "flit_core.buildapi"

[tool.pytest.ini_options]
testpaths = ["tests"]
"""


@pytest.mark.parametrize("files, test, source", [
    ({"pyproject.toml": PYPROJECT}, "python -m pytest", "pyproject.toml [tool.pytest.ini_options]"),
    ({"setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n"}, "python -m pytest", "setup.cfg [tool:pytest]"),
    ({"tox.ini": "[tox]\nenvlist = py3\n", "package.json": '{"scripts": {"test": "grunt test"}}'}, "tox", "tox.ini"),
    ({"noxfile.py": "import nox\n"}, "nox", "noxfile.py"),
    ({"Makefile": "CC := gcc\nbuild:\n\tgcc x.c\n\ntest: build\n\t./run-tests\n"}, "make test", "Makefile target test"),
    ({"package.json": json.dumps({"scripts": {"test": "vitest run", "build": "tsc"}}), "pnpm-lock.yaml": ""},
     "pnpm test", "package.json scripts.test"),
    ({"package.json": json.dumps({"scripts": {"test": 'echo "Error: no test specified" && exit 1'}})}, "", ""),
    ({"Cargo.toml": "[package]\nname = 'x'\n"}, "cargo test", "Cargo.toml"),
    ({"go.mod": "module example.com/x\n"}, "go test ./...", "go.mod"),
    ({"tests/conftest.py": "import pytest\n"}, "python -m pytest", "tests/conftest.py"),
    ({"pyproject.toml": "not [valid toml"}, "", ""),
])
def test_test_command_and_where_it_came_from(repo_factory, files, test, source):
    repo = repo_factory({"README.md": "x\n", **files})
    found = detect_commands(repo)
    assert (found.test, found.test_source) == (test, source)


def test_build_commands(repo_factory):
    assert detect_commands(repo_factory({"pyproject.toml": PYPROJECT}, name="a")).build == "python -m build"
    mk = detect_commands(repo_factory({"Makefile": "all:\n\tcc x.c\n"}, name="b"))
    assert (mk.build, mk.build_source) == ("make", "Makefile target all")
    npm = detect_commands(repo_factory({"package.json": '{"scripts": {"build": "tsc"}}', "yarn.lock": ""}, name="c"))
    assert (npm.build, npm.build_source) == ("yarn run build", "package.json scripts.build")
    assert detect_commands(repo_factory({"README.md": "x\n"}, name="d")).build == ""


def test_prompt_says_where_commands_came_from_and_config_wins(repo_factory):
    repo = repo_factory({"pyproject.toml": PYPROJECT, "src/app.py": "def f():\n    return 1\n"})
    issue = Issue(id="x-1", title="t")
    text = render_prompt(fixed_sections(load_config(repo), issue, budget=4000), None)
    assert "- test: python -m pytest (detected from pyproject.toml [tool.pytest.ini_options])" in text
    assert "- build: python -m build (detected from pyproject.toml [build-system])" in text
    assert "Build and run `python -m pytest`" in text

    (repo / ".noface.toml").write_text('[project]\ntest = "make check"\n')
    text = render_prompt(fixed_sections(load_config(repo), issue, budget=4000), None)
    assert "- test: make check\n" in text
    assert "- build: python -m build (detected from pyproject.toml [build-system])" in text

    (repo / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # edits are seen (memo keyed by mtime/size)
    assert detect_commands(repo).build == ""
