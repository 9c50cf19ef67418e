"""Issue input (beads id, bd, JSON, Markdown, stdin, dict) and manifest sources."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import pytest

from noface_ctx.datatypes import Issue, Manifest, ManifestEntry
from noface_ctx.errors import InputError
from noface_ctx.issue.environment import query_text
from noface_ctx.issue.load import load_issue, load_issue_with_warnings, load_manifest, parse_manifest_comment

BEADS_ISSUE = {
    "id": "bd-7",
    "title": "Add rate limiting",
    "description": "Limit requests per user.\\nUse a token bucket.",
    "design": "See docs/rate-limits.md",
    "acceptance_criteria": "- 429 when over\\n- header\\tRetry-After",
    "notes": "",
    "status": "open",
    "issue_type": "feature",
    "labels": ["api", "backend"],
    "dependencies": [{"issue_id": "bd-7", "depends_on_id": "bd-3", "type": "blocks"}],
    "comments": [
        {"id": 2, "author": "planner", "text": "MANIFEST: primary=[src/new.py] read=[]",
         "created_at": "2025-01-03T10:00:00Z"},
        {"id": 1, "author": "planner", "text": "MANIFEST: primary=[src/old.py] read=[docs/]",
         "created_at": "2025-01-02T10:00:00Z"},
        {"id": 3, "author": "alice", "body": "Looks good", "created_at": "2025-01-04T10:00:00+00:00"},
    ],
}


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
