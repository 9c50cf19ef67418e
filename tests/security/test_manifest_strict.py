"""Item 6 of issue 10: a MANIFEST the parser cannot read completely is an error naming its
source (exit 2), never a partial manifest; entries that match no file are warnings."""

from __future__ import annotations

import json

import pytest

from noface_ctx import build_prompt
from noface_ctx.cli import main
from noface_ctx.errors import InputError
from noface_ctx.issue.load import parse_manifest_comment
from tests.conftest import make_repo

MARK = "FORBIDDEN-CODE-MARKER-3c7"

BAD = {
    "unclosed": ("MANIFEST: primary=[src/app.py] forbidden=[src/secret.py", "never closed"),
    "missing-bracket": ("MANIFEST: primary=[src/app.py forbidden=[src/secret.py]", "'\\['"),
    "misspelt": ("MANIFEST: primary=[src/app.py] forbiden=[src/secret.py]", "did you mean forbidden="),
    "nested": ("MANIFEST: primary=[src/app.py] forbidden=[[src/secret.py]]", "nested"),
    "space": ("MANIFEST: primary=[src/app.py] forbidden=[src/my secret.py]", "holds a space"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_manifest_is_an_error(name):
    text, message = BAD[name]
    with pytest.raises(InputError, match=message) as err:
        parse_manifest_comment(text, source="beads comment 2")
    assert str(err.value).startswith("beads comment 2: unreadable MANIFEST")


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_manifest_comment_fails_preview(tmp_path, capsys, name):
    text, _ = BAD[name]
    root = make_repo(tmp_path / "repo", {
        "src/app.py": "from secret import hidden\n\ndef run():\n    return hidden()\n",
        "src/secret.py": f"def hidden():\n    return '{MARK}'\n",
        "src/my secret.py": f"def hidden2():\n    return '{MARK}'\n",
        "issue.json": json.dumps({"id": "m-1", "title": "run hidden", "description": "run() calls hidden()",
                                  "comments": [{"text": "first"}, {"text": text}]}),
    })
    code = main(["preview", str(root / "issue.json"), "--repo", str(root), "--no-embed"])
    captured = capsys.readouterr()
    assert code == 2 and MARK not in captured.out
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "beads comment 2" in err[0] and "MANIFEST" in err[0]


def test_quoted_path_with_space_and_prose_after(tmp_path):
    m = parse_manifest_comment('MANIFEST: primary=[src/app.py, "docs/my notes.md"] read=[`a b.py`]\n'
                               "forbidden=[src/secret.py]\n\nThe plan: edit app.py only.", source="c")
    assert [e.path for e in m.primary] == ["src/app.py", "docs/my notes.md"]
    assert [e.path for e in m.read] == ["a b.py"] and [e.path for e in m.forbidden] == ["src/secret.py"]


def test_quoted_forbidden_path_with_space_is_kept_out(tmp_path):
    root = make_repo(tmp_path / "repo", {
        "src/app.py": "def run():\n    return hidden2()\n",
        "src/my secret.py": f"def hidden2():\n    return '{MARK}'\n",
    })
    issue = {"id": "m-2", "title": "run hidden2", "description": "run() calls hidden2() in my secret.py",
             "comments": [{"text": 'MANIFEST: primary=[src/app.py] forbidden=["src/my secret.py"]'}]}
    prompt = build_prompt(issue, repo=root, embed=False, budget=6000)
    assert MARK not in prompt.text + json.dumps(prompt.to_dict())
    assert {e.path: e.category for e in prompt.excluded}["src/my secret.py"] == "forbidden"


def test_entries_matching_no_file_warn(tmp_path, capsys):
    root = make_repo(tmp_path / "repo", {
        "src/app.py": "def run():\n    return 1\n",
        "issue.json": json.dumps({"id": "m-3", "title": "run", "comments": [
            {"text": "MANIFEST: primary=[src/app.py] forbidden=[src/secrte.py]"}]}),
    })
    prompt = build_prompt(str(root / "issue.json"), repo=root, embed=False, budget=6000)
    assert any("'src/secrte.py' matches no file" in w and "forbidden" in w for w in prompt.warnings)
    assert main(["preview", str(root / "issue.json"), "--repo", str(root), "--no-embed"]) == 0
    assert "src/secrte.py" in capsys.readouterr().err


def test_prose_mention_is_not_a_manifest():
    assert parse_manifest_comment("the MANIFEST: comment comes later") is None


def test_json_manifest_misspelt_key_is_an_error(tmp_path, capsys):
    root = make_repo(tmp_path / "repo", {
        "src/app.py": "def run():\n    return 1\n",
        "src/secret.py": f"def hidden():\n    return '{MARK}'\n",
        "m.json": json.dumps({"primary_files": ["src/app.py"], "forbiden_files": ["src/secret.py"]}),
        "issue.md": "# run hidden\n\nrun() and hidden()\n",
    })
    code = main(["preview", str(root / "issue.md"), "--repo", str(root), "--manifest", str(root / "m.json"), "--no-embed"])
    captured = capsys.readouterr()
    assert code == 2 and MARK not in captured.out
    assert "did you mean 'forbidden_files'?" in captured.err


def test_json_manifest_string_value_keeps_spaces(tmp_path):
    from noface_ctx.issue.load import load_manifest

    m = load_manifest({"forbidden": "src/my secret.py, src/b.py"}, where="m.json")
    assert [e.path for e in m.forbidden] == ["src/my secret.py", "src/b.py"]
