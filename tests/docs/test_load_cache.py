"""Parsed docs are reused across runs, and an edited doc is parsed again."""

from __future__ import annotations

from conftest import login_repo

from noface_ctx.config import load_config
from noface_ctx.docs.load import load_docs
from noface_ctx.files.gate import scan_repo


def test_load_docs_reuses_parses_and_sees_edits(tmp_path):
    root = login_repo(tmp_path / "repo")
    config = load_config(root)
    first = load_docs(config, scan_repo(config))
    (root / "docs/plain.md").write_text("# Plain\n\nNow it mentions `logout()`.\n")
    second = load_docs(config, scan_repo(config))
    plain = next(d for d in second.docs if d.slug == "plain")
    assert "logout" in plain.text
    assert next(d for d in second.docs if d.slug == "auth") is next(d for d in first.docs if d.slug == "auth")
