"""`noface-ctx init`: a commented `.noface.toml` from what the repository holds, written once."""

from __future__ import annotations

import tomllib
from conftest import make_repo

from noface_ctx.cli import main
from noface_ctx.config import load_config

SPHINX = {
    "pyproject.toml": (
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "ledgerly"\nversion = "1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "src/ledgerly/__init__.py": "def balance(entries):\n    \"\"\"Sum the entries.\"\"\"\n    return sum(entries)\n",
    "tests/test_balance.py": "from ledgerly import balance\n\n\ndef test_balance():\n    assert balance([1]) == 1\n",
    "docs/conf.py": "project = 'ledgerly'\nextensions = ['sphinx.ext.autodoc']\n",
    "docs/design.rst": "Design\n======\n\nThe ledger's ``balance`` sums every entry.\n",
    "issue.md": "# Balance ignores refunds\n\n`balance` should subtract refunds.\n",
}


def test_init_writes_what_it_found_with_sources_and_is_idempotent(tmp_path, capsys):
    repo = make_repo(tmp_path / "ledgerly", SPHINX)
    assert main(["init", "--repo", str(repo)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == [f"  noface-ctx index --repo {repo}",
                                    f"  noface-ctx preview ISSUE --repo {repo}   # ISSUE: a beads id, or a .md file "
                                    "(first heading: the title)"]
    assert err.startswith(f"wrote {repo}/.noface.toml")
    text = (repo / ".noface.toml").read_text()
    data = tomllib.loads(text)
    assert data["project"] == {"name": "ledgerly", "build": "python -m build", "test": "python -m pytest"}
    assert 'test = "python -m pytest"  # detected from pyproject.toml [tool.pytest.ini_options]' in text
    assert 'build = "python -m build"  # detected from pyproject.toml [build-system]' in text
    assert "# design docs found: docs/ — Sphinx project (docs/conf.py)" in text
    assert data["context"]["budget_tokens"] == 16000 and "the default" in text
    assert "docs/**/*.rst" in data["context"]["doc_globs"]
    assert data["context"]["exclude"] == ["docs/_build/"] and "Python environments (pyvenv.cfg" in text
    config = load_config(repo)  # valid for the loader, no warnings
    assert config.test_cmd == "python -m pytest" and not config.warnings

    assert main(["init", "--repo", str(repo)]) == 0  # again: nothing changes
    assert capsys.readouterr().err.startswith(f"unchanged: {repo}/.noface.toml")
    assert (repo / ".noface.toml").read_text() == text

    mine = text.replace("budget_tokens = 16000", "budget_tokens = 9000")
    (repo / ".noface.toml").write_text(mine)
    assert main(["init", "--repo", str(repo)]) == 0
    assert "kept the existing file" in capsys.readouterr().err
    assert (repo / ".noface.toml").read_text() == mine  # never overwritten without --force
    assert main(["init", "--repo", str(repo), "--force"]) == 0
    assert capsys.readouterr().err.startswith("overwrote") and (repo / ".noface.toml").read_text() == text


def test_init_outside_git_makes_a_project_every_command_then_finds(tmp_path, monkeypatch, capsys):
    """With no git, `init` marks the folder as the project; commands run below it find it."""
    from noface_ctx import _git as git
    plain = tmp_path / "plain"
    for rel, body in {**SPHINX, "mkdocs.yml": "site_name: x\ndocs_dir: handbook\n",
                      "handbook/index.md": "# Handbook\n\nThe balance rules.\n"}.items():
        (plain / rel).parent.mkdir(parents=True, exist_ok=True)
        (plain / rel).write_text(body)
    if git.toplevel(plain) is not None:
        import pytest

        pytest.skip("the temp dir is inside a git work tree here")
    monkeypatch.chdir(plain / "src")
    assert main(["preview", "../issue.md", "-q", "--no-embed"]) == 2  # not a project yet
    assert "run `noface-ctx init`" in capsys.readouterr().err
    monkeypatch.chdir(plain)
    assert main(["init"]) == 0
    text = (plain / ".noface.toml").read_text()
    assert "handbook/ — MkDocs project (mkdocs.yml docs_dir)" in text and '"site/",  # MkDocs build output' in text
    capsys.readouterr()
    monkeypatch.chdir(plain / "src")
    assert main(["preview", "../issue.md", "-q", "--no-embed"]) == 0
    prompt = capsys.readouterr().out
    assert "Balance ignores refunds" in prompt and "python -m pytest" in prompt and "def balance" in prompt
    assert "path: issue.md)" not in prompt  # the issue's own file, a top-level .md, is not a design doc too


def test_init_takes_the_notebooks_of_a_doc_folder_holding_them(tmp_path, capsys):
    """seaborn's docs are notebooks (`doc/_tutorial/*.ipynb`): `init` writes them into `doc_globs`,
    and the docs they hold are then judged."""
    notebook = ('{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": ["import ledgerly\\n", '
                '"ledgerly.balance([1])"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n')
    repo = make_repo(tmp_path / "ledgerly", {**SPHINX, "docs/_tutorial/intro.ipynb": notebook})
    assert main(["init", "--repo", str(repo)]) == 0
    capsys.readouterr()
    text = (repo / ".noface.toml").read_text()
    assert "docs/**/*.ipynb" in tomllib.loads(text)["context"]["doc_globs"]
    assert "# Jupyter notebooks in docs/ are docs too" in text
    plain = make_repo(tmp_path / "plain", SPHINX)
    assert main(["init", "--repo", str(plain)]) == 0
    assert "ipynb" not in (plain / ".noface.toml").read_text()
    assert main(["check-docs", "--json", "--repo", str(repo)]) == 0
    assert '"path": "docs/_tutorial/intro.ipynb"' in capsys.readouterr().out
