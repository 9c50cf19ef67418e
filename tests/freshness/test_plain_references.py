"""A tree without git has no history index to keep its docs' references: they are kept in
`doc-references.json`, so the next process reads a doc it has read before without extracting it
again, and a damaged or foreign file is never trusted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_tree

from noface_ctx import _state as state
from noface_ctx.config import cache_dir, load_config
from noface_ctx.docs.load import load_docs
from noface_ctx.files.gate import scan_repo
from noface_ctx.freshness import scan
from noface_ctx.freshness.assess import assess_docs


def _assess(root: Path):
    state.clear_all()  # a new process
    config = load_config(root)
    repo_files = scan_repo(config)
    return assess_docs(load_docs(config, repo_files).docs, repo_files, None, config)


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "plain"
    write_tree(root, {"lib.py": "def live_one():\n    return 1\n",
                      "docs/a.md": "Uses `lib.live_one()` and `lib.gone_function()`.\n"})
    return root


def _spy_extract(monkeypatch) -> list[str]:
    read: list[str] = []
    real = scan.extract_references

    def spy(text, *args, **kwargs):
        read.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(scan, "extract_references", spy)
    return read


def test_a_doc_read_once_is_not_read_again_by_the_next_process(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    first = _assess(root)
    assert [m.ref for m in first.by_slug["a"].missing] == ["lib.gone_function()"]
    assert (cache_dir(load_config(root)) / scan.PLAIN_REFERENCES).is_file()
    read = _spy_extract(monkeypatch)
    again = _assess(root)
    assert read == [] and again.by_slug == first.by_slug
    (root / "docs/a.md").write_text("Uses `lib.live_one()` and `lib.other_gone()`.\n")  # a new text is read
    assert [m.ref for m in _assess(root).by_slug["a"].missing] == ["lib.other_gone()"] and len(read) == 1


@pytest.mark.parametrize("damage", ["garbage", "rules", "rows"])
def test_damaged_kept_references_are_ignored(tmp_path, damage):
    root = _tree(tmp_path)
    first = _assess(root)
    path = cache_dir(load_config(root)) / scan.PLAIN_REFERENCES
    data = json.loads(path.read_text())
    if damage == "garbage":
        path.write_bytes(b"\x00not json")
    else:
        if damage == "rules":
            data["rules"] = -1
        else:
            data["refs"] = {k: [["forged"]] for k in data["refs"]}
        path.write_text(json.dumps(data))
    assert _assess(root).by_slug == first.by_slug
