"""Stored judgements survive what does not concern them (`freshness.edits`): an edit or a commit
re-judges only the docs naming what changed, and the answer equals a judgement from scratch."""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import commit, git, make_repo

import noface_ctx.freshness.assess as assess
from noface_ctx._state import clear_all
from noface_ctx.freshness.check import check_docs
from noface_ctx.freshness.edits import Edits, edits_since

_BASE = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(days=20)
# bodies that call what the docs name, so that a change of either body takes away something its doc states
CALC = ("def add(a, b):\n    return a + b\n\n\ndef identity(x):\n    return x\n\n\n"
        "def compute_total(a, b):\n    return add(a, b)\n\n\ndef other_thing(x):\n    return identity(x)\n")
FILES = {
    "pkg/calc.py": CALC,
    "pkg/util.py": "def unrelated():\n    return 1\n",
    "docs/totals.md": "# Totals\n\n## `compute_total()`\n\nAdds two numbers with `add`.\n",
    "docs/other.md": "# `other_thing()`\n\nHands back what it gets, through `identity`.\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", FILES, date=_BASE.isoformat())


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The docs scanned again (not answered from the stored judgements)."""
    seen: list[str] = []
    real = assess.scan_doc

    def counting(doc, code, refs=None):  # type: ignore[no-untyped-def]
        seen.append(doc.path)
        return real(doc, code, refs)

    monkeypatch.setattr(assess, "scan_doc", counting)
    return seen


def lines(root: Path) -> list[str]:
    return check_docs(repo=root).lines()


def from_scratch(root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    with monkeypatch.context() as m:
        m.setenv("NOFACE_CTX_CACHE_DIR", str(tmp_path / "scratch-cache"))
        clear_all()
        return lines(root)


def test_a_reverted_edit_leaves_no_warning(repo: Path) -> None:
    assert lines(repo) == []
    calc = repo / "pkg/calc.py"
    calc.write_text(CALC.replace("return add(a, b)", "return plus(b, a)"))
    assert any("compute_total" in ln and "uncommitted edits" in ln for ln in lines(repo))
    git(repo, "checkout", "-q", "pkg/calc.py")
    assert lines(repo) == []  # the judgement made under the edit is not reused without it


def test_an_edit_rejudges_only_the_docs_naming_what_changed(repo: Path, scans: list[str],
                                                            monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    lines(repo)
    scans.clear()
    (repo / "pkg/calc.py").write_text(CALC.replace("return identity(x)", "return double(x)"))
    found = lines(repo)
    assert scans == ["docs/other.md"]
    assert [ln.split(": ")[0] for ln in found] == ["docs/other.md:1"] and "other_thing" in found[0]
    scans.clear()
    assert lines(repo) == found and scans == []  # the same edit again: answered from the store
    (repo / "pkg/calc.py").write_text(CALC + "\n# a comment after the last function\n")
    assert lines(repo) == [] and scans == ["docs/other.md"]  # its edit is gone: judged again
    assert found == from_scratch_after_edit(repo, monkeypatch, tmp_path)


def from_scratch_after_edit(repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    (repo / "pkg/calc.py").write_text(CALC.replace("return identity(x)", "return double(x)"))
    return from_scratch(repo, monkeypatch, tmp_path)


def test_a_commit_keeps_judgements_it_does_not_concern(repo: Path, scans: list[str],
                                                        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    lines(repo)
    (repo / "pkg/util.py").write_text("def unrelated():\n    return 2\n")
    commit(repo, "unrelated", date=(_BASE + timedelta(days=1)).isoformat())
    scans.clear()
    assert lines(repo) == [] and scans == []
    (repo / "pkg/calc.py").write_text(CALC.replace("return add(a, b)", "return sum((a, b))"))
    commit(repo, "sum", date=(_BASE + timedelta(days=2)).isoformat())
    sha = git(repo, "rev-parse", "HEAD").strip()[:10]
    found = lines(repo)
    assert scans == ["docs/totals.md"]
    assert len(found) == 1 and "compute_total" in found[0] and sha in found[0]
    assert found == from_scratch(repo, monkeypatch, tmp_path)


def test_edits_touch_the_definitions_they_change(repo: Path) -> None:
    calc = repo / "pkg/calc.py"
    calc.write_text(CALC + "\n# trailing\n")
    assert Edits(repo, "HEAD", ["pkg/calc.py"]).touched() == {"trailing"}
    calc.write_text(CALC.replace("return a + b", "return a - b"))
    assert Edits(repo, "HEAD", ["pkg/calc.py"]).touched() == {"return", "a", "b", "add"}
    # a dedented line splits the function: the one it leaves is changed
    calc.write_text(CALC.replace("    return identity(x)", "    y = x\nprint(1)\n    return y"))
    assert "other_thing" in Edits(repo, "HEAD", ["pkg/calc.py"]).touched()
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "pkg/calc.py")
    (repo / "pkg/util.py").write_text("def unrelated():\n    return 3\n")
    commit(repo, "three")
    assert edits_since(repo, head).touched() == {"return", "unrelated"}  # committed since `head`, none in the work tree


def test_a_doc_judged_again_reuses_its_stored_references(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    lines(repo)
    read: list[str] = []
    real = assess.scan_doc

    def reading(doc, code, refs=None):  # type: ignore[no-untyped-def]
        if refs is None:
            read.append(doc.path)
        return real(doc, code, refs)

    monkeypatch.setattr(assess, "scan_doc", reading)
    (repo / "pkg/calc.py").write_text(CALC.replace("return identity(x)", "return double(x)"))
    found = lines(repo)
    assert read == [] and "other_thing" in found[0]  # judged again from the references stored for its text
    cache = next(Path(os.environ["NOFACE_CTX_CACHE_DIR"]).rglob("history.sqlite"))
    with sqlite3.connect(str(cache)) as db:  # a hostile or damaged store is read again from the doc
        db.execute("UPDATE refs SET value = '[[\"x\", 1]]'")
    (repo / "pkg/calc.py").write_text(CALC.replace("return identity(x)", "return triple(x)"))
    assert lines(repo) == found and read == ["docs/other.md"]
    (repo / "pkg/calc.py").write_text(CALC.replace("return identity(x)", "return quadruple(x)"))
    assert lines(repo) == found and read == ["docs/other.md"]  # the damaged value was written anew


def test_index_judges_every_doc_so_a_new_issue_judges_none(repo: Path, scans: list[str]) -> None:
    """`noface-ctx index` judges every doc's freshness (building the history index and the code's
    words on the way): a prompt in a new process then judges no doc for the first time."""
    from conftest import run_cli

    from noface_ctx._pipeline import build_prompt
    from noface_ctx.config import cache_dir, load_config

    code, _out, err = run_cli(repo, "index", "--no-embed")
    assert code == 0 and "freshness: 2 docs judged" in err
    assert (cache_dir(load_config(repo)) / "doc-terms.cache").is_file()  # the docs' terms and BM25 too
    assert sorted(scans) == ["docs/other.md", "docs/totals.md"]
    scans.clear()
    clear_all()  # a new process
    issue = repo.parent / "issue.md"  # outside the repository: not a doc of it
    issue.write_text("# compute_total overflows\n\n`compute_total()` and `other_thing()` misbehave.\n")
    prompt = build_prompt(str(issue), repo, embed=False)
    assert "compute_total" in prompt.text and scans == []
