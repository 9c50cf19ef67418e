"""The repository scan is reused only while nothing changed, with or without git."""

from __future__ import annotations

import os

from conftest import write_tree

from noface_ctx.config import load_config
from noface_ctx.files.gate import scan_repo


def test_warm_scan_is_reused_only_while_nothing_changed(repo_factory):
    root = repo_factory({"a.py": "x = 1\n", "docs/a.md": "# A\n"})
    config = load_config(root)
    old = os.stat(root / "a.py").st_mtime_ns - 10_000_000_000  # well before the racy window
    for rel in ("a.py", "docs/a.md"):
        os.utime(root / rel, ns=(old, old))
    first = scan_repo(config)
    assert scan_repo(config) is first
    (root / "b.py").write_text("y = 2\n")
    second = scan_repo(config)
    assert second is not first and second.get("b.py") is not None
    assert second.fingerprint != first.fingerprint
    (root / "b.py").write_text("TOKEN = 'ghp_" + "Zq8Rt2Lm9Xc4Vb7Nk1Jh6Gf3Ds5Aw0Pe2Ty8Ui'\n")
    third = scan_repo(config)
    assert third.get("b.py") is None and third.exclusion("b.py").category == "secret"


def test_walk_without_git_sees_new_files(tmp_path):
    root = tmp_path / "plain"
    write_tree(root, {"src/a.py": "x = 1\n", ".gitignore": "build.log\n"})
    config = load_config(root)
    first = scan_repo(config)
    assert [f.path for f in first.files] == [".gitignore", "src/a.py"]
    write_tree(root, {"src/b.py": "y = 2\n", "build.log": "noise\n"})
    assert [f.path for f in scan_repo(config).files] == [".gitignore", "src/a.py", "src/b.py"]
