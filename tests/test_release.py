"""The release a hook can pin: one version, a CHANGELOG entry for it, and a README `rev:` that exists."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import noface_ctx

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def test_the_changelog_opens_with_the_current_version():
    first = re.search(r"^## (\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert first is not None and first.group(1) == noface_ctx.__version__


def test_the_readme_pins_the_release_commit_and_it_exists_on_this_branch():
    """`rev:` is the release commit's id (tags may not travel with the repository): it must be an
    ancestor of HEAD and hold the version its comment names, which is the current one."""
    snippet = re.search(r"rev: ([0-9a-f]{40})\s+# v(\d+\.\d+\.\d+)", (ROOT / "README.md").read_text())
    assert snippet is not None, "the README's pre-commit snippet has no `rev: <commit id>  # vX.Y.Z`"
    rev, version = snippet.groups()
    assert version == noface_ctx.__version__
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() != "false":
        pytest.skip("not a full git clone: the release commit cannot be looked up")
    assert _git("merge-base", "--is-ancestor", rev, "HEAD").returncode == 0, f"{rev} is not on this branch"
    source = _git("show", f"{rev}:noface_ctx/__init__.py").stdout
    assert re.search(rf'^__version__ = "{re.escape(version)}"', source, re.M), f"{rev} is not release {version}"
