"""Item 7 of issue 10: run from a subdirectory without --repo, the root is the repository
(git top-level, or the nearest .noface.toml outside git); paths stay repository-relative."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from noface_ctx.cli import main
from noface_ctx.config import find_root
from noface_ctx.errors import UsageError
from tests.conftest import make_repo

MARK = "FORBIDDEN-ANSWER-MARKER-0d2"


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {
        "pkg/app.py": "from pkg.answer import compute\n\ndef run():\n    return compute()\n",
        "pkg/answer.py": f"def compute():\n    return '{MARK}'\n",
        "docs/design.md": "---\ntitle: Design\n---\n# Design\n\nHow run() and compute() work together.\n",
        ".noface.toml": '[monowiki]\nvault = "docs"\n',
        "issue.json": json.dumps({"id": "r-1", "title": "run compute", "description": "run() calls compute(): design",
                                  "comments": [{"text": "MANIFEST: primary=[pkg/app.py] forbidden=[pkg/answer.py]"}]}),
    })


def test_preview_from_a_subdirectory_uses_the_repository_root(tmp_path, monkeypatch, capsys):
    root = _repo(tmp_path)
    monkeypatch.chdir(root / "pkg")
    code = main(["preview", "../issue.json", "--json", "--no-embed"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert MARK not in out
    assert any(e["path"] == "pkg/answer.py" and "forbidden" in e["reason"] for e in data["excluded"])
    assert all(not c["path"].startswith("app.py") for c in data["code"])
    assert any(c["path"] == "pkg/app.py" for c in data["code"])
    assert any(d["path"] == "docs/design.md" for d in data["docs"])
    assert not (root / "pkg" / ".noface").exists()


def test_signals_from_a_subdirectory(tmp_path, monkeypatch, capsys):
    root = _repo(tmp_path)
    monkeypatch.chdir(root / "docs")
    (root / "out.txt").write_text("NEED_CODE: pkg/app.py::run\n")
    assert main(["signals", "../out.txt", "--resolve"]) == 0
    out = capsys.readouterr().out
    assert "pkg/app.py" in out and "return compute()" in out
    assert not (root / "docs" / ".noface").exists()


def test_find_root_outside_git_walks_up_to_noface_toml(tmp_path):
    top = tmp_path / "plain"
    (top / "a" / "b").mkdir(parents=True)
    (top / ".noface.toml").write_text("")
    from noface_ctx import _git as git
    if git.toplevel(tmp_path) is not None:
        pytest.skip("the temp dir is inside a git work tree here")
    assert find_root(top / "a" / "b") == top.resolve()
    assert find_root(top) == top.resolve()


def test_outside_git_and_any_project_every_command_exits_2_and_says_what_to_do(tmp_path, monkeypatch, capsys):
    """Never the current directory by default: a scratch folder (here with a virtualenv and
    notes in it) does not silently become the repository."""
    from noface_ctx import _git as git
    scratch = tmp_path / "scratch"
    (scratch / "notes").mkdir(parents=True)
    (scratch / "notes" / "issue.md").write_text("# Tidy the notes\n\nSomething.\n")
    if git.toplevel(scratch) is not None:
        pytest.skip("the temp dir is inside a git work tree here")
    with pytest.raises(UsageError, match="not inside a git repository or a noface project"):
        find_root(scratch)
    monkeypatch.chdir(scratch)
    for argv in (["preview", "notes/issue.md"], ["index", "--no-embed"], ["check-docs"], ["signals", "--resolve"],
                 ["mcp"], ["run", "notes/issue.md", "--agent", "true"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.strip().endswith("not inside a git repository or a noface project; pass --repo or run "
                                    "`noface-ctx init`"), (argv, err)
        assert "Traceback" not in err


def test_explicit_repo_still_wins(tmp_path, monkeypatch, capsys):
    root = _repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["preview", str(root / "issue.json"), "--repo", str(root), "--json", "--no-embed"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any(c["path"] == "pkg/app.py" for c in data["code"])
    assert os.path.isdir(root)
