"""Issue input: JSON, Markdown and text files, stdin, a dict or an `Issue`."""

from __future__ import annotations

import io
import json

import pytest
from conftest import BEADS_ISSUE

from noface_ctx.datatypes import Issue, ManifestEntry
from noface_ctx.errors import InputError
from noface_ctx.issue.environment import query_text
from noface_ctx.issue.load import load_issue

# --------------------------------------------------------------------------- file, stdin and dict sources


def test_json_object_and_array_files(tmp_path):
    obj = tmp_path / "issue.json"
    obj.write_text(json.dumps(BEADS_ISSUE))
    arr = tmp_path / "show.json"
    arr.write_text(json.dumps([dict(BEADS_ISSUE, title="From array"), {"id": "bd-2", "title": "second"}]))
    assert load_issue(str(obj), tmp_path).title == "Add rate limiting"
    assert load_issue(arr, tmp_path).title == "From array"


def test_json_without_id_uses_file_stem(tmp_path):
    path = tmp_path / "fix-login.json"
    path.write_text(json.dumps({"title": "Fix login"}))
    assert load_issue(path, tmp_path).id == "fix-login"


def test_markdown_with_heading_and_manifest_line(tmp_path):
    (tmp_path / "web").mkdir()
    md = tmp_path / "task.md"
    md.write_text("Intro line before.\n\n# Fix the cache\n\nThe cache is stale.\n\n"
                  "MANIFEST: primary=[src/cache.py:10-40] read=[web] forbidden=[\"secrets/\"]\n")
    issue = load_issue(md, tmp_path)
    assert issue.title == "Fix the cache" and issue.id == "task"
    assert "The cache is stale." in issue.description and "Intro line before." in issue.description
    assert "MANIFEST" not in issue.description
    m = issue.manifest
    assert m.primary == (ManifestEntry("src/cache.py", 10, 40),)
    assert m.read == (ManifestEntry("web/"),)  # an existing directory gets its trailing slash
    assert m.forbidden == (ManifestEntry("secrets/"),)
    assert "MANIFEST" not in query_text(issue)


def test_text_file_without_heading_uses_first_line(tmp_path):
    txt = tmp_path / "todo.txt"
    txt.write_text("\n\nMake the parser faster\nIt is slow on big files.\n")
    issue = load_issue(txt, tmp_path)
    assert issue.title == "Make the parser faster"
    assert issue.description == "It is slow on big files."


def test_stdin_markdown_and_json(tmp_path):
    issue = load_issue("-", tmp_path, stdin=io.StringIO("# From stdin\nbody text\n"))
    assert (issue.id, issue.title, issue.description, issue.source) == ("stdin", "From stdin", "body text", "stdin")
    issue = load_issue("-", tmp_path, stdin=io.StringIO(json.dumps([BEADS_ISSUE])))
    assert issue.id == "bd-7" and issue.manifest.primary == (ManifestEntry("src/new.py"),)


def test_dict_and_issue_refs(tmp_path):
    issue = load_issue({"id": "x-1", "title": "T", "description": "a\\nb", "comments": None}, tmp_path)
    assert issue.description == "a\nb" and issue.comments == ()
    given = Issue(id="x-2", title="Given")
    same = load_issue(given, tmp_path, manifest={"primary": ["a.py"]})
    assert same.title == "Given" and same.manifest.primary == (ManifestEntry("a.py"),)
    assert same.manifest.source == "explicit"


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(InputError, match="issue file not found"):
        load_issue(tmp_path / "nope.md", tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    with pytest.raises(InputError) as err:
        load_issue(bad, tmp_path)
    assert "invalid JSON" in str(err.value) and str(bad) in str(err.value)
    latin = tmp_path / "latin.md"
    latin.write_bytes(b"# caf\xe9\n")
    with pytest.raises(InputError, match="cannot read"):
        load_issue(latin, tmp_path)


def test_literal_backslash_n_kept_inside_code_when_text_has_real_newlines():
    issue = load_issue({"id": "a", "title": "t", "description": 'Use `"\\n".join(x)`\nthen a\\nb'}, ".")
    assert issue.description == 'Use `"\\n".join(x)`\nthen a\nb'
