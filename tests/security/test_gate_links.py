"""Items 3-5 of issue 10: symlinks and vaults cannot carry secret, forbidden or outside bytes
into a prompt (preview / build_prompt) nor into a request answer (signals --resolve)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from noface_ctx import build_prompt, parse_signals, resolve_requests
from noface_ctx.cli import main
from noface_ctx.errors import ConfigError
from tests.conftest import commit, make_repo
from tests.security.fakesecrets import aws_key

ENV_MARKER = "ENV-FILE-MARKER-b41c"
FORBIDDEN_MARKER = "FORBIDDEN-MARKER-92de"
OUTSIDE_MARKER = "OUTSIDE-MARKER-5e1a"


def _repo(tmp_path: Path, files: dict[str, str], links: dict[str, str], name: str = "repo") -> Path:
    root = tmp_path / name
    root.mkdir(parents=True)
    for rel, target in links.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / rel)
    return make_repo(root, files)


def _env() -> str:
    # A .env without any recognisable credential format: only its name marks it secret.
    return f"DATABASE_PASSWORD=plain{ENV_MARKER}\nDEBUG=1\n"


def _all_output(prompt) -> str:
    return prompt.text + "\n" + json.dumps(prompt.to_dict())


def _resolve(root: Path, text: str, issue=None) -> str:
    answer = resolve_requests(parse_signals(text), repo=root, issue=issue)
    return answer.text


def test_innocent_named_link_to_env_in_code_and_docs(tmp_path):
    root = _repo(tmp_path, {
        ".env": _env(),
        "src/app.py": "from settings import DATABASE_PASSWORD\n\ndef connect():\n    return DATABASE_PASSWORD\n",
        "docs/guide.md": "# Guide\n\nHow the database password setting is read.\n",
    }, {"src/settings.py": "../.env", "docs/settings.md": "../.env"})
    prompt = build_prompt({"id": "t-1", "title": "database password settings",
                           "description": "Fix settings.py: the DATABASE_PASSWORD setting in settings is read wrong."},
                          repo=root, embed=False, budget=8000)
    assert ENV_MARKER not in _all_output(prompt)
    reasons = {e.path: e.reason for e in prompt.excluded}
    assert "symlink to .env" in reasons["src/settings.py"] and "secret" in reasons["src/settings.py"]
    assert "symlink to .env" in reasons["docs/settings.md"]
    out = _resolve(root, "NEED_CODE: src/settings.py\nNEED_DOC: docs/settings.md\nNEED_DOC: settings\n")
    assert ENV_MARKER not in out and "refused" in out


def test_link_to_forbidden_file_is_forbidden(tmp_path):
    root = _repo(tmp_path, {
        "src/secret_mod.py": f"def hidden():\n    return '{FORBIDDEN_MARKER}'\n",
        "src/app.py": "from alias_mod import hidden\n\ndef run():\n    return hidden()\n",
    }, {"src/alias_mod.py": "secret_mod.py"})
    manifest = {"primary_files": ["src/app.py"], "forbidden_files": ["src/secret_mod.py"]}
    prompt = build_prompt({"id": "t-2", "title": "hidden alias_mod", "description": "alias_mod.hidden() in alias_mod.py"},
                          repo=root, manifest=manifest, embed=False, budget=8000)
    assert FORBIDDEN_MARKER not in _all_output(prompt)
    ex = {e.path: e for e in prompt.excluded}
    assert ex["src/alias_mod.py"].category == "forbidden"
    issue = {"id": "t-2", "title": "x", "comments": [
        {"text": "MANIFEST: primary=[src/app.py] forbidden=[src/secret_mod.py]"}]}
    out = _resolve(root, "NEED_CODE: src/alias_mod.py\nNEED_CODE: src/alias_mod.py::hidden\n", issue=issue)
    assert FORBIDDEN_MARKER not in out and "forbidden" in out


def test_link_outside_repo_in_code_and_vault(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text(f"root:x:0:0:{OUTSIDE_MARKER}\n")
    (outside / "notes.md").write_text(f"# Notes\n\n{OUTSIDE_MARKER}\n")
    root = _repo(tmp_path, {
        ".noface.toml": '[monowiki]\nvault = "docs"\n',
        "docs/a.md": "# A\n\nNotes about passwd handling.\n",
        "src/app.py": "def passwd():\n    return 1\n",
    }, {"docs/passwd.md": str(outside / "passwd"), "src/passwd.py": str(outside / "passwd"),
        "docs/notes.md": str(outside / "notes.md")})
    prompt = build_prompt({"id": "t-3", "title": "passwd notes", "description": "passwd handling notes"},
                          repo=root, embed=False, budget=8000)
    assert OUTSIDE_MARKER not in _all_output(prompt)
    out = _resolve(root, "NEED_DOC: passwd\nNEED_DOC: notes\nNEED_CODE: src/passwd.py\nNEED_DOC: docs/notes.md\n")
    assert OUTSIDE_MARKER not in out


@pytest.mark.parametrize("vault", ["/tmp", "../outside", "~", "~/docs", "docs/../../outside"])
def test_vault_outside_the_repo_is_a_config_error(tmp_path, capsys, vault):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.md").write_text(f"# X\n{OUTSIDE_MARKER}\n")
    root = make_repo(tmp_path / "repo", {".noface.toml": f'[monowiki]\nvault = "{vault}"\n', "a.py": "x = 1\n",
                                         "issue.md": "# Fix x\n\nx is wrong\n"})
    with pytest.raises(ConfigError, match=r"^\.noface\.toml: \[monowiki\] vault .* outside the repository"):
        build_prompt({"id": "v", "title": "x"}, repo=root, embed=False)
    code = main(["preview", str(root / "issue.md"), "--repo", str(root), "--no-embed"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and ".noface.toml" in err[0] and "vault" in err[0]


def test_committed_vault_link_to_outside_dir_is_a_config_error(tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text(f"# X\n{OUTSIDE_MARKER}\n")
    root = _repo(tmp_path, {".noface.toml": '[monowiki]\nvault = "docs"\n', "a.py": "x = 1\n",
                            "issue.md": "# Fix x\n\nx is wrong\n"}, {"docs": str(outside)})
    with pytest.raises(ConfigError, match="resolves outside the repository"):
        build_prompt({"id": "v", "title": "x"}, repo=root, embed=False)
    assert main(["preview", str(root / "issue.md"), "--repo", str(root), "--no-embed"]) == 2
    assert OUTSIDE_MARKER not in capsys.readouterr().out


def test_monowiki_yml_vault_outside_is_a_config_error(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.md").write_text(f"# X\n{OUTSIDE_MARKER}\n")
    root = make_repo(tmp_path / "repo", {".noface.toml": '[monowiki]\nvault = "wiki"\n',
                                         "wiki/monowiki.yml": "paths:\n  vault: ../../outside\n",
                                         "wiki/vault/a.md": "# A\n", "a.py": "x = 1\n"})
    with pytest.raises(ConfigError) as err:
        build_prompt({"id": "v", "title": "x"}, repo=root, embed=False)
    assert str(err.value).startswith("wiki/monowiki.yml: paths.vault '../../outside' is outside the repository")


def test_link_inside_repo_to_ordinary_file_still_served(tmp_path):
    """The gate refuses by target, not every link: an ordinary in-repo link still works."""
    root = _repo(tmp_path, {"src/real.py": "def helper_value():\n    return 42\n"},
                 {"src/alias.py": "real.py"})
    prompt = build_prompt({"id": "t-4", "title": "helper_value", "description": "helper_value in alias.py"},
                          repo=root, embed=False, budget=8000)
    assert "return 42" in prompt.text
    assert "return 42" in _resolve(root, "NEED_CODE: src/alias.py\n")


def test_untracked_link_added_later_is_refused(tmp_path):
    root = make_repo(tmp_path / "repo", {".env": _env(), "src/app.py": "def f():\n    return 1\n"})
    os.symlink("../.env", root / "src" / "config_values.py")
    commit(root)
    out = _resolve(root, "NEED_CODE: src/config_values.py\n")
    assert ENV_MARKER not in out and "secret" in out
    key = aws_key()
    (root / "src" / "keys.txt").write_text(key + "\n")
    assert key not in _resolve(root, "NEED_CODE: src/keys.txt\n")


def test_links_outside_git_are_judged_the_same(tmp_path):
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / ".env").write_text(_env())
    (root / "src" / "app.py").write_text("def connect():\n    return settings.DATABASE_PASSWORD\n")
    os.symlink("../.env", root / "src" / "settings.py")
    os.symlink("../.env", root / "docs" / "settings.md")
    prompt = build_prompt({"id": "t-5", "title": "settings DATABASE_PASSWORD", "description": "settings.py"},
                          repo=root, embed=False, budget=6000)
    assert ENV_MARKER not in _all_output(prompt)
    assert any("not a git repository" in w for w in prompt.warnings)
    assert ENV_MARKER not in _resolve(root, "NEED_CODE: src/settings.py\nNEED_DOC: settings\n")
