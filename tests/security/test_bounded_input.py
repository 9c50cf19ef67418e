"""Issue 10, PART A, "Bounded work on hostile input": every case listed under "Crashes where
exit 2 is promised" ends in exit 2 with one line, or is handled (a warning), never exit 3."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import commit, write_tree
from conftest import run_cli as run

ROOT = Path(__file__).resolve().parents[2]

REPO = {
    "src/shop/cart.py": "def add_item(cart, item):\n    cart.append(item)\n    return cart\n",
    "docs/cart.md": "---\ntitle: Cart design\n---\n# Cart design\n\nThe cart keeps items; `add_item` appends.\n",
    "issue.md": "# Cart add_item drops duplicates\n\nadd_item in src/shop/cart.py should keep duplicates.\n",
    ".noface.toml": "[context]\nembeddings = false\n",
}

DEEP_JSON = "[" * 100_000 + "]" * 100_000
NESTED_OBJ = '{"id": "x-1", "title": "deep", "description": ' + '{"a": ' * 200 + "1" + "}" * 200 + "}"




def one_error_line(code: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("noface-ctx: error: "), (code, err)
    return lines[0]


def strict_json(text: str):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("line", ["docs_share = nan", "docs_share = inf", "bm25_weight = nan",
                                  "embedding_weight = inf", "link_boost = -inf", "doc_min_score = nan"])
def test_nan_and_inf_are_config_errors(repo_factory, line):
    repo = repo_factory({**REPO, ".noface.toml": f"[context]\nembeddings = false\n{line}\n"})
    msg = one_error_line(*run(repo, "preview", "issue.md", "--no-embed", "-q")[::2])
    assert msg.startswith(f"noface-ctx: error: .noface.toml:3: [context] {line.split()[0]}")


def test_json_output_is_strict_json(repo_factory):
    repo = repo_factory(REPO)
    code, out, _ = run(repo, "preview", "issue.md", "--no-embed", "-q", "--json")
    assert code == 0 and strict_json(out)["issue"]["id"]


def test_toml_nested_3000_deep(repo_factory):
    repo = repo_factory({**REPO, ".noface.toml": "[agents]\nx = " + "[" * 3000 + "]" * 3000 + "\n"})
    msg = one_error_line(*run(repo, "preview", "issue.md", "--no-embed", "-q")[::2])
    assert ".noface.toml" in msg and "nested" in msg


@pytest.mark.parametrize("body", [DEEP_JSON, NESTED_OBJ])
def test_deep_json_issue_file(repo_factory, body):
    repo = repo_factory({**REPO, "issue.json": body})
    msg = one_error_line(*run(repo, "preview", "issue.json", "--no-embed", "-q")[::2])
    assert "issue.json" in msg and "nested" in msg


def test_deep_json_on_stdin(repo_factory):
    repo = repo_factory(REPO)
    msg = one_error_line(*run(repo, "preview", "-", "--no-embed", "-q", stdin=DEEP_JSON)[::2])
    assert "stdin" in msg and "nested" in msg


def test_one_bad_jsonl_line_does_not_break_other_ids(repo_factory, monkeypatch):
    good = json.dumps({"id": "shop-2", "title": "Cart add_item drops duplicates", "description": "add_item"})
    repo = repo_factory({**REPO, ".beads/issues.jsonl": DEEP_JSON + "\n" + NESTED_OBJ.replace("x-1", "shop-1") + "\n" + good + "\n"})
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `bd`: the jsonl fallback
    code, out, err = run(repo, "preview", "shop-2", "--no-embed", "-q")
    assert code == 0 and "Cart add_item drops duplicates" in out
    assert ".beads/issues.jsonl:1: skipped" in err and ".beads/issues.jsonl:2: skipped" in err


def test_deep_state_json_is_a_warning(repo_factory):
    repo = repo_factory({**REPO, ".noface/state.json": DEEP_JSON})
    code, out, err = run(repo, "preview", "issue.md", "--no-embed", "-q")
    assert code == 0 and "add_item" in out


def test_deep_bd_output(repo_factory, tmp_path, monkeypatch):
    """A real `bd` on PATH (a script) that prints hostile JSON: a clear error, not a crash."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    bd = bindir / "bd"
    bd.write_text(f"#!/bin/sh\nprintf '%s' '{DEEP_JSON[:20_000]}{DEEP_JSON[-20_000:]}'\n")
    bd.chmod(bd.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    repo = repo_factory(REPO)
    code, out, err = run(repo, "preview", "shop-9", "--no-embed", "-q")
    assert code == 2, err
    assert "shop-9" in err and len(err.strip().splitlines()) == 1


def test_deep_frontmatter_does_not_kill_preview_or_the_hook(repo_factory):
    deep = "---\ntitle: x\nnest: " + "[" * 1000 + "]" * 1000 + "\n---\n# Deep\n\nadd_item cart\n"
    repo = repo_factory({**REPO, "docs/deep.md": deep})
    code, out, err = run(repo, "preview", "issue.md", "--no-embed")
    assert code == 0 and "docs/deep.md:2: frontmatter refused (nested deeper than" in err
    code, out, err = run(repo, "check-docs")
    assert code in (0, 1) and "internal error" not in err
    code, out, err = run(repo, "check-docs", "docs/deep.md")
    assert code in (0, 1) and "internal error" not in err


ALIAS_BOMB = (
    "---\n"
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
    "---\n# Bomb\n\nadd_item cart\n"
)


def test_yaml_alias_bomb_is_refused_not_expanded(repo_factory):
    repo = repo_factory({**REPO, "docs/bomb.md": ALIAS_BOMB})
    code, out, err = run(repo, "preview", "issue.md", "--no-embed")
    assert code == 0 and "docs/bomb.md:2: frontmatter refused (aliases (*name) are not allowed)" in err
    code, out, err = run(repo, "check-docs", "docs/bomb.md")
    assert code in (0, 1) and "internal error" not in err


def test_alias_bomb_in_monowiki_yml(repo_factory):
    bomb = ALIAS_BOMB.split("---\n")[1].replace("a: &a", "paths: {vault: vault}\na: &a")
    repo = repo_factory({**REPO, ".noface.toml": '[context]\nembeddings = false\n[monowiki]\nvault = "wiki"\n',
                         "wiki/monowiki.yml": bomb, "wiki/vault/note.md": "# Note\n\nadd_item\n"})
    code, out, err = run(repo, "preview", "issue.md", "--no-embed")
    assert code == 0 and "wiki/monowiki.yml: cannot read (aliases" in err


def _subprocess(repo: Path, *argv: str, stdin: bytes = b"", env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8",
                "PYTHONIOENCODING": "utf-8:strict", **(env or {})}
    return subprocess.run([sys.executable, "-m", "noface_ctx", *argv, "--repo", str(repo)], input=stdin,
                          capture_output=True, env=full_env, timeout=300)


def test_non_utf8_stdin_under_a_strict_locale(repo_factory):
    repo = repo_factory(REPO)
    proc = _subprocess(repo, "preview", "-", "--no-embed", "-q",
                       stdin=b"# Cart \xff\xfe add_item broken\n\nadd_item \xc3\x28 in src/shop/cart.py\n")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode("utf-8")  # valid UTF-8
    assert "add_item" in text and "\ufffd" in text


def test_non_utf8_file_name_under_a_strict_locale(repo_factory):
    repo = repo_factory(REPO)
    name = os.fsdecode(b"src/shop/caf\xe9_add_item.py")
    write_tree(repo, {name: "def add_item_twice(cart, item):\n    return cart + [item, item]\n"})
    commit(repo, "odd name")
    for args in (("preview", "issue.md", "--no-embed", "-q", "--json"), ("preview", "issue.md", "--no-embed"),
                 ("index",), ("check-docs",)):
        proc = _subprocess(repo, *args)
        assert proc.returncode in (0, 1), (args, proc.stderr)
        proc.stdout.decode("utf-8")
        proc.stderr.decode("utf-8")
        if "--json" in args:
            strict_json(proc.stdout.decode("utf-8"))
    proc = _subprocess(repo, "signals", "-", "--resolve", "--json", stdin=b"NEED_CODE: src/shop/cart.py\n")
    assert proc.returncode == 0, proc.stderr
    strict_json(proc.stdout.decode("utf-8"))


@pytest.mark.parametrize("name", ["big.json", "big.md"])
def test_huge_issue_file_is_refused_by_size(repo_factory, tmp_path, name):
    repo = repo_factory(REPO)
    big = tmp_path / name
    with open(big, "wb") as fh:
        fh.write(b'{"id": "x", "title": "t", "description": "')
        fh.seek(40 * 1024 * 1024)
        fh.write(b'"}')
    code, out, err = run(repo, "preview", str(big), "--no-embed", "-q")
    msg = one_error_line(code, err)
    assert "larger than" in msg


def test_huge_config_is_refused_by_size(repo_factory):
    repo = repo_factory(REPO)
    with open(repo / ".noface.toml", "ab") as fh:
        fh.write(b"# padding\n" * 200_000)
    msg = one_error_line(*run(repo, "preview", "issue.md", "--no-embed", "-q")[::2])
    assert ".noface.toml" in msg and "larger than" in msg
