"""Issues from beads: the .beads/issues.jsonl file and the bd command."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from conftest import BEADS_ISSUE

from noface_ctx.datatypes import ManifestEntry
from noface_ctx.errors import InputError
from noface_ctx.issue.environment import query_text
from noface_ctx.issue.load import load_issue, load_issue_with_warnings


def jsonl_repo(repo_factory, lines: list[str], extra: dict | None = None) -> Path:
    files = {".beads/issues.jsonl": "\n".join(lines) + "\n", "src/old.py": "x = 1\n", "src/new.py": "y = 2\n",
             "docs/a.md": "# A\n", **(extra or {})}
    return repo_factory(files)


@pytest.fixture
def no_bd(monkeypatch, tmp_path):
    """PATH without any `bd` so the JSONL fallback is exercised."""
    empty = tmp_path / "emptybin"
    empty.mkdir()
    monkeypatch.setenv("PATH", f"{empty}{os.pathsep}/usr/bin{os.pathsep}/bin")


def fake_bd(tmp_path: Path, monkeypatch, output: object, code: int = 0) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    script = bindir / "bd"
    payload = json.dumps(output)
    script.write_text(f"#!/bin/sh\necho \"$PWD $*\" > {bindir}/args\ncat <<'EOF'\n{payload}\nEOF\nexit {code}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    return bindir


# --------------------------------------------------------------------------- beads sources


def test_beads_id_from_jsonl_skips_bad_line_with_line_number(repo_factory, no_bd):
    other = {"id": "bd-1", "title": "Other"}
    repo = jsonl_repo(repo_factory, [json.dumps(other), "{not json", json.dumps(BEADS_ISSUE)])
    issue, warnings = load_issue_with_warnings("bd-7", repo)
    assert warnings == [".beads/issues.jsonl:2: skipped: not valid JSON"]
    assert issue.id == "bd-7" and issue.title == "Add rate limiting"
    assert issue.description == "Limit requests per user.\nUse a token bucket."
    assert issue.acceptance_criteria == "- 429 when over\n- header\tRetry-After"
    assert issue.labels == ("api", "backend") and issue.issue_type == "feature"
    assert issue.source == ".beads/issues.jsonl"
    # comments keep their text in chronological order, never raw JSON
    assert issue.comments == ("MANIFEST: primary=[src/old.py] read=[docs/]",
                              "MANIFEST: primary=[src/new.py] read=[]", "Looks good")
    assert "depends_on_id" not in query_text(issue) and "{" not in query_text(issue)


def test_newest_manifest_comment_wins(repo_factory, no_bd):
    repo = jsonl_repo(repo_factory, [json.dumps(BEADS_ISSUE)])
    issue = load_issue("bd-7", repo)
    assert issue.manifest is not None
    assert issue.manifest.primary == (ManifestEntry("src/new.py"),)
    assert issue.manifest.read == ()
    assert issue.manifest.source == "beads comment 2 (2025-01-03T10:00:00Z)"


def test_comments_without_dates_use_list_order(repo_factory, no_bd):
    data = dict(BEADS_ISSUE, comments=["MANIFEST: primary=[src/old.py]", {"text": "MANIFEST: primary=[src/new.py]"}])
    issue = load_issue(data, ".")
    assert issue.manifest.primary == (ManifestEntry("src/new.py"),)
    assert issue.manifest.source == "beads comment 2"


def test_unknown_id_is_an_input_error_with_suggestion(repo_factory, no_bd):
    repo = jsonl_repo(repo_factory, [json.dumps(BEADS_ISSUE)])
    with pytest.raises(InputError) as err:
        load_issue("bd-8", repo)
    assert "unknown issue id 'bd-8' (not in .beads/issues.jsonl)" in str(err.value)
    assert "did you mean 'bd-7'" in str(err.value)
    assert err.value.where.endswith(".beads/issues.jsonl")


def test_unknown_id_without_tracker(repo_factory, no_bd):
    repo = repo_factory({"a.py": "x = 1\n"})
    with pytest.raises(InputError, match="unknown issue id 'bd-1'"):
        load_issue("bd-1", repo)


def test_bd_on_path_printing_an_array(repo_factory, tmp_path, monkeypatch):
    repo = repo_factory({"src/new.py": "y = 2\n"})
    bindir = fake_bd(tmp_path, monkeypatch, [BEADS_ISSUE])
    issue, warnings = load_issue_with_warnings("bd-7", repo)
    assert warnings == []
    assert issue.title == "Add rate limiting" and issue.source == "bd show bd-7"
    assert (bindir / "args").read_text().split() == [str(repo), "show", "bd-7", "--json", "--include-comments"]


def test_bd_on_path_printing_an_object(repo_factory, tmp_path, monkeypatch):
    repo = repo_factory({"a.py": ""})
    fake_bd(tmp_path, monkeypatch, {"id": "bd-9", "title": "Object form", "description": "d"})
    assert load_issue("bd-9", repo).title == "Object form"


def test_failing_bd_falls_back_to_jsonl(repo_factory, tmp_path, monkeypatch):
    repo = jsonl_repo(repo_factory, [json.dumps(BEADS_ISSUE)])
    fake_bd(tmp_path, monkeypatch, {"error": "no database"}, code=1)
    issue, warnings = load_issue_with_warnings("bd-7", repo)
    assert issue.title == "Add rate limiting"
    assert len(warnings) == 1 and warnings[0].startswith("bd show bd-7 failed")
