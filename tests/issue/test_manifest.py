"""Manifest sources (an explicit one, the newest comment, the state file) and their entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import BEADS_ISSUE

from noface_ctx.datatypes import Manifest, ManifestEntry
from noface_ctx.errors import InputError
from noface_ctx.issue.load import load_issue, load_issue_with_warnings, load_manifest, parse_manifest_comment

# --------------------------------------------------------------------------- manifest sources and entries


def write_state(repo: Path, issue_id: str, manifest: dict) -> None:
    (repo / ".noface").mkdir(exist_ok=True)
    (repo / ".noface/state.json").write_text(json.dumps({"state_version": 1, "issues": {issue_id: {
        "status": "pending", "manifest": manifest}}}))


def test_manifest_precedence_explicit_then_comment_then_state(tmp_path):
    write_state(tmp_path, "bd-7", {"primary_files": ["from_state.py"], "read_files": [], "forbidden_files": []})
    no_comment = dict(BEADS_ISSUE, comments=[])
    issue = load_issue(no_comment, tmp_path)
    assert issue.manifest.primary == (ManifestEntry("from_state.py"),)
    assert issue.manifest.source == ".noface/state.json"

    issue = load_issue(BEADS_ISSUE, tmp_path)
    assert issue.manifest.primary == (ManifestEntry("src/new.py"),)

    manifest_file = tmp_path / "m.json"
    manifest_file.write_text(json.dumps({"primary": ["explicit.py"], "forbidden_files": ["vendor/"]}))
    issue = load_issue(BEADS_ISSUE, tmp_path, manifest=str(manifest_file))
    assert issue.manifest.primary == (ManifestEntry("explicit.py"),)
    assert issue.manifest.forbidden == (ManifestEntry("vendor/"),)


def test_corrupt_state_is_a_warning(tmp_path):
    (tmp_path / ".noface").mkdir()
    (tmp_path / ".noface/state.json").write_text("{")
    issue, warnings = load_issue_with_warnings({"id": "a", "title": "t"}, tmp_path)
    assert issue.manifest is None and warnings == [".noface/state.json: ignored: JSONDecodeError"]


def test_parse_manifest_comment_tolerates_quotes_spaces_and_ranges():
    m = parse_manifest_comment("""MANIFEST: primary=[ "src/a.py:10-40", 'b.py' , ./c\\d.py:7 ]
        read=[ docs/guide.md ,web/ ] forbidden=[]""")
    assert m.primary == (ManifestEntry("src/a.py", 10, 40), ManifestEntry("b.py"), ManifestEntry("c/d.py", 7, 7))
    assert m.read == (ManifestEntry("docs/guide.md"), ManifestEntry("web/"))
    assert m.forbidden == ()
    assert str(m.primary[0]) == "src/a.py:10-40"
    assert parse_manifest_comment("just a comment") is None
    assert parse_manifest_comment("MANIFEST: nothing here") is None


@pytest.mark.parametrize("entry", ["../outside.py", "/etc/passwd", "src/../../x.py", "C:\\\\Windows\\\\x"])
def test_traversal_and_absolute_entries_rejected(entry):
    with pytest.raises(InputError, match=r"escapes the repository|absolute paths"):
        load_manifest({"primary": [entry]}, where="m.json")


def test_bad_range_rejected():
    with pytest.raises(InputError, match="bad line range"):
        parse_manifest_comment("MANIFEST: primary=[a.py:40-10]")


def test_globs_expand_against_the_repo(tmp_path):
    (tmp_path / "src").mkdir()
    for name in ("a.py", "b.py", "c.txt"):
        (tmp_path / "src" / name).write_text("")
    m = load_manifest({"read": ["src/*.py"], "primary": ["none/*.zz"]}, repo=tmp_path)
    assert m.read == (ManifestEntry("src/a.py"), ManifestEntry("src/b.py"))
    assert m.primary == (ManifestEntry("none/*.zz"),)


def test_manifest_object_passthrough_and_bad_types(tmp_path):
    given = Manifest(primary=(ManifestEntry("a.py"),), source="mine")
    assert load_manifest(given) is given
    with pytest.raises(InputError, match="expected a list of paths"):
        load_manifest({"primary": [1, 2]}, where="m.json")
    with pytest.raises(InputError, match="manifest file not found"):
        load_manifest(str(tmp_path / "missing.json"))
    assert load_manifest("MANIFEST: primary=[x.py]").primary == (ManifestEntry("x.py"),)


def test_manifest_from_a_markdown_issue_is_labelled_by_its_file_and_line(tmp_path):
    from noface_ctx.issue.load import load_issue

    (tmp_path / "issues").mkdir()
    (tmp_path / "issues" / "x.md").write_text(
        "---\nowner: me\n---\n# Title\n\nBody.\n\nMANIFEST: primary=[a.py] read=[] forbidden=[b.py]\n")
    issue = load_issue(str(tmp_path / "issues" / "x.md"), tmp_path)
    assert issue.manifest is not None and issue.manifest.source == "issues/x.md:8"
    assert "beads comment" not in issue.manifest.source


@pytest.mark.parametrize("ref", ["examples/request-log-rotation.md", "nfc-1"])
def test_the_shipped_example_issue_can_be_finished_within_its_manifest(ref):
    """It asks for a config key, a README change and rotation in write_log: all editable."""
    from noface_ctx.issue.load import load_issue

    root = Path(__file__).resolve().parents[2]
    issue = load_issue(ref, root)
    editable = {e.path for e in issue.manifest.primary}
    assert {"noface_ctx/config.py", "README.md", "noface_ctx/signals/_answer.py", "noface_ctx/signals/respond.py"} <= editable
    assert "request_log_max_kb" in issue.description and "README" in issue.acceptance_criteria + issue.description
    for entry in issue.manifest.primary + issue.manifest.read:
        assert (root / entry.path).is_file(), entry.path
