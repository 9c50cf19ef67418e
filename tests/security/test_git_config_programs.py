"""Issue 24: a repository handed over as a directory brings its own `.git/config`; no program it
names runs during `preview`, `check-docs` or `index` (core.fsmonitor, filters, textconv,
diff.external, gpg.program with log.showSignature, core.sshCommand of a lazy fetch)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from noface_ctx import _git as nf_git
from tests.conftest import commit, git, make_repo, run_cli

ATTACKS = ("fsmonitor", "clean", "textconv", "external", "gpg", "ssh")


def _script(path: Path, marker: Path, then: str = "exit 1") -> str:
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\n{then}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _signed_commit(root: Path) -> None:
    """Make HEAD a commit carrying a (bogus) signature, which `log.showSignature` would verify."""
    tree = git(root, "rev-parse", "HEAD^{tree}").strip()
    parent = git(root, "rev-parse", "HEAD").strip()
    body = (f"tree {tree}\nparent {parent}\nauthor T <t@e> 1700000000 +0000\ncommitter T <t@e> 1700000000 +0000\n"
            "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n")
    sha = subprocess.run(["git", "-C", str(root), "hash-object", "-t", "commit", "-w", "--stdin"], input=body.encode(),
                         capture_output=True, check=True).stdout.decode().strip()
    git(root, "update-ref", "HEAD", sha)


@pytest.fixture
def hostile(tmp_path):
    """A repository whose .git/config names a program for every hook git has on reads; each
    program creates its own marker file."""
    marks = tmp_path / "marks"
    marks.mkdir()
    root = make_repo(tmp_path / "repo", {
        "src/auth.py": "def get_user(name):\n    return name\n\n\ndef logout(user):\n    return None\n",
        "docs/auth.md": "# Auth\n\nLoad users with `get_user()` and end with `logout()` in `src/auth.py`.\n",
        "issue.md": "# get_user fails\n\nget_user returns the wrong user\n",
        ".gitattributes": "*.py filter=evil diff=evil\n",
    })
    (root / "src/auth.py").write_text("def load_user(name):\n    return name\n\n\ndef logout(user):\n    return None\n")
    commit(root, "rename get_user")
    _signed_commit(root)
    (root / "src/auth.py").write_text("def load_user(name):\n    return name.strip()\n\n\ndef bye(user):\n    return None\n")
    bins = tmp_path / "bin"
    bins.mkdir()
    cfg = {
        "core.fsmonitor": _script(bins / "fsmonitor", marks / "fsmonitor"),
        "filter.evil.clean": _script(bins / "clean", marks / "clean", "cat"),
        "filter.evil.smudge": _script(bins / "smudge", marks / "clean", "cat"),
        "diff.evil.textconv": _script(bins / "textconv", marks / "textconv", "cat \"$1\""),
        "diff.external": _script(bins / "external", marks / "external"),
        "log.showSignature": "true",
        "gpg.program": _script(bins / "gpg", marks / "gpg"),
        "core.sshCommand": _script(bins / "ssh", marks / "ssh"),
        "remote.origin.url": "ssh://example.invalid/repo.git",
        "remote.origin.promisor": "true",
        "extensions.partialClone": "origin",
        "core.repositoryformatversion": "1",
    }
    for key, value in cfg.items():
        git(root, "config", key, value)
    return root, marks


def _fired(marks: Path) -> list[str]:
    return sorted(p.name for p in marks.iterdir())


def test_no_config_program_runs_in_preview_check_docs_or_index(hostile):
    root, marks = hostile
    code, out, err = run_cli(root, "check-docs")
    assert code == 1 and "get_user" in out, err  # the work is still done
    assert _fired(marks) == []
    code, out, err = run_cli(root, "preview", str(root / "issue.md"), "--no-embed")
    assert code == 0, err
    assert _fired(marks) == []
    code, out, err = run_cli(root, "index", "--no-embed")
    assert code == 0, err
    assert _fired(marks) == []


def test_a_lazy_fetch_of_a_missing_object_runs_no_ssh(hostile):
    root, marks = hostile
    old = git(root, "rev-parse", "HEAD~2:src/auth.py").strip()
    os.remove(root / ".git" / "objects" / old[:2] / old[2:])  # a partial clone lacks it: git would fetch it
    blobs = nf_git.Blobs(root)
    try:
        assert blobs.read("HEAD~2", "src/auth.py") is None
    finally:
        blobs.close()
    assert _fired(marks) == []
    code, out, err = run_cli(root, "check-docs")
    assert code in (0, 1), err
    assert _fired(marks) == []


def test_every_git_call_of_the_package_goes_through_the_safe_argv():
    """No module spawns git on its own (a new call would miss the settings above)."""
    package = Path(nf_git.__file__).parent
    offenders = []
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name != "_git.py" and ('["git"' in text or "('git'" in text or '("git"' in text):
            offenders.append(path.name)
    assert offenders == []
