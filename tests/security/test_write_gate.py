"""Issue 24, High 1 and the Medium "writes outside the repository": a repository's links cannot
make `run`, `preview`, `index` or `signals --resolve` write outside the repository and the user
cache (`noface_ctx._write_gate`): not through a committed log link, not through links inside a
cache directory the repository configures, not by creating a dangling link's target, not through
a hard link. Each test fails on 0bb2697."""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import FakeEmbedder, commit, make_repo
from conftest import run_cli as run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noface_ctx.cli import main

FILES = {
    ".noface.toml": "[context]\nembeddings = false\n",
    "src/shop/cart.py": "def add_item(cart, item):\n    '''Add an item.'''\n    cart.append(item)\n    return cart\n",
    "docs/cart.md": "# Cart design\n\nThe cart keeps items; `add_item` appends.\n",
    "issue.md": "# add_item drops duplicates\n\nadd_item in src/shop/cart.py should keep duplicates.\n",
}
IN_REPO_CACHE = '[context]\nembeddings = false\ncache_dir = ".noface/cache"\n'


def _agent(tmp: Path, output: str = "Done.\nISSUE_COMPLETE\n") -> str:
    script = tmp / "agent.py"
    script.write_text(f"import sys\nsys.stdin.read()\nsys.stdout.write({output!r})\n")
    return shlex.join([sys.executable, str(script)])


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _snapshot(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry under `folder`: (kind, bytes or link target), links never followed."""
    found: dict[str, tuple[str, bytes]] = {}
    for base, dirs, names in os.walk(folder):
        for name in dirs + names:
            p = Path(base, name)
            rel = str(p.relative_to(folder))
            if p.is_symlink():
                found[rel] = ("link", os.readlink(p).encode())
            elif p.is_dir():
                found[rel] = ("dir", b"")
            else:
                found[rel] = ("file", p.read_bytes())
    return found


@pytest.fixture
def victim(tmp_path):
    """The user's own files outside the repository and the user cache (a `~/.bashrc`)."""
    home = tmp_path / "victim"
    (home / "dir").mkdir(parents=True)
    (home / "bashrc").write_text("export PATH=$HOME/bin:$PATH\n")
    return home


def test_run_refuses_a_committed_run_log_link(tmp_path, victim):
    repo = make_repo(tmp_path / "repo", {**FILES, ".beads/issues.jsonl": json.dumps(
        {"id": "x-1 $(touch ~/PWNED)", "title": "add_item drops duplicates", "status": "open"}) + "\n"})
    (repo / ".noface").mkdir()
    os.symlink(victim / "bashrc", repo / ".noface" / "runs.jsonl")
    commit(repo, "a log link")
    before = _snapshot(victim)
    code, _out, err = _main("run", "--repo", str(repo), "--agent", _agent(tmp_path))
    assert code == 2, err
    assert _snapshot(victim) == before
    assert "runs.jsonl" in err and "symbolic link" in err and len(err.strip().splitlines()) == 1


def test_run_does_not_create_a_dangling_log_links_target(tmp_path, victim):
    repo = make_repo(tmp_path / "repo", FILES)
    (repo / ".noface").mkdir()
    os.symlink(victim / "new-file", repo / ".noface" / "runs.jsonl")
    code, _out, err = _main("run", "issue.md", "--repo", str(repo), "--agent", _agent(tmp_path))
    assert code == 2 and not (victim / "new-file").exists(), err


def test_run_refuses_a_directory_link_on_the_way_to_its_log(tmp_path, victim):
    # without a .noface.toml (which would refuse the request log's location at once)
    repo = make_repo(tmp_path / "repo", {k: v for k, v in FILES.items() if k != ".noface.toml"})
    os.symlink(victim / "dir", repo / ".noface")
    code, _out, err = _main("run", "issue.md", "--repo", str(repo), "--agent", _agent(tmp_path))
    assert code == 2 and "symbolic link inside the repository" in err
    assert _snapshot(victim / "dir") == {}


def test_run_refuses_a_hard_linked_log(tmp_path, victim):
    repo = make_repo(tmp_path / "repo", FILES)
    (repo / ".noface").mkdir()
    os.link(victim / "bashrc", repo / ".noface" / "runs.jsonl")
    before = (victim / "bashrc").read_bytes()
    code, _out, err = _main("run", "issue.md", "--repo", str(repo), "--agent", _agent(tmp_path))
    assert code == 2 and "hard links" in err
    assert (victim / "bashrc").read_bytes() == before


def test_run_still_writes_its_log_in_the_repository_and_where_the_user_says(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    code, _out, err = _main("run", "issue.md", "--repo", str(repo), "--agent", _agent(tmp_path))
    assert code == 0, err
    assert json.loads((repo / ".noface" / "runs.jsonl").read_text())["outcome"] == "complete"
    mine = tmp_path / "my-logs" / "run.jsonl"  # a path the user typed may be anywhere
    code, _out, err = _main("run", "issue.md", "--repo", str(repo), "--log", str(mine), "--agent", _agent(tmp_path))
    assert code == 0 and mine.exists(), err


@pytest.mark.parametrize("link", ["code", "embeddings", "code/embeddings"])
def test_links_inside_a_configured_cache_dir_are_not_written_through(tmp_path, victim, monkeypatch, link):
    from noface_ctx.config import cache_dir
    from noface_ctx.rank.vector_store import CachedEmbedder

    repo = make_repo(tmp_path / "repo", {**FILES, ".noface.toml": IN_REPO_CACHE.replace("false", "true")})
    target = repo / ".noface" / "cache" / link
    target.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(victim / "dir", target)
    commit(repo, "cache links")
    monkeypatch.setattr("noface_ctx._pipeline.shared_embedder",
                        lambda cfg, **kw: (CachedEmbedder(FakeEmbedder(), cache_dir(cfg) / "embeddings"), ""))
    for argv in (["index"], ["preview", "issue.md", "-q"]):
        code, _out, err = run(repo, *argv)
        assert _snapshot(victim / "dir") == {}
        assert code == 0, err
        assert "running without a persistent cache" in err and f"cache/{link}: is a symbolic link" in err


def test_a_dangling_gitignore_link_is_not_created(tmp_path, victim):
    repo = make_repo(tmp_path / "repo", {**FILES, ".noface.toml": IN_REPO_CACHE})
    (repo / ".noface").mkdir()
    os.symlink(victim / "created-by-preview", repo / ".noface" / ".gitignore")
    code, _out, err = run(repo, "preview", "issue.md")
    assert code == 0, err
    assert not (victim / "created-by-preview").exists()
    assert (repo / ".noface" / "cache").is_dir()  # the cache itself is still kept in the repository


def test_signals_resolve_does_not_follow_a_request_log_link(tmp_path, victim):
    repo = make_repo(tmp_path / "repo", {**FILES, ".noface.toml": "[context]\nembeddings = false\n"
                                         'request_log = "logs/requests.jsonl"\n'})
    os.symlink(victim / "dir", repo / "logs")
    before = _snapshot(victim)
    code, _out, err = run(repo, "signals", "-", "--resolve", stdin="NEED_CODE: src/shop/cart.py\n")
    assert code in (0, 2)
    assert _snapshot(victim) == before


def test_the_gate_itself(tmp_path, victim):
    """The public functions a new writer (a ledger) calls, on the layouts above."""
    from noface_ctx import _write_gate as write_gate
    repo = make_repo(tmp_path / "repo", FILES)
    write_gate.add_repository(repo)
    (repo / "ledger").mkdir()
    os.symlink(victim / "bashrc", repo / "ledger" / "l.sqlite")
    os.symlink(victim / "dir", repo / "linked")
    with pytest.raises(write_gate.WriteRefused, match="symbolic link"):
        write_gate.connect_sqlite(repo / "ledger" / "l.sqlite")
    with pytest.raises(write_gate.WriteRefused, match="inside the repository"):
        write_gate.make_dirs(repo / "linked" / "sub")
    with pytest.raises(write_gate.WriteRefused, match="outside the repository"):
        write_gate.checked_file(victim / "x.log", root=repo, confine=True)
    assert not write_gate.write_atomic(repo / "linked" / "f.bin", b"x")
    assert not write_gate.create_new(repo / "ledger" / "l.sqlite", b"x")
    fine = write_gate.connect_sqlite(repo / "ledger" / "ok.sqlite")
    fine.execute("CREATE TABLE t(x)")
    fine.close()
    assert (repo / "ledger" / "ok.sqlite").is_file()
    assert _snapshot(victim) == {"dir": ("dir", b""), "bashrc": ("file", b"export PATH=$HOME/bin:$PATH\n")}


# --------------------------------------------------------------------------- property

_DIRS = [".noface", ".noface/cache", ".noface/cache/code", ".noface/cache/embeddings", ".noface/cache/code/embeddings"]
_FILES = [".noface/runs.jsonl", ".noface/requests.jsonl", ".noface/.gitignore", ".noface/cache/code/index.cache",
          ".noface/cache/code/index.lock", ".noface/cache/history.sqlite", ".noface/cache/history.sqlite-wal",
          ".noface/cache/words.sqlite", ".noface/cache/scan.json", ".noface/cache/gate.json",
          ".noface/cache/docs.cache", ".noface/cache/doc-terms.cache", ".noface/cache/ledger.sqlite",
          ".noface/cache/ledger.sqlite-wal"]
_DIR_KINDS = st.sampled_from(["real", "real", "link", "dangling", "absent"])  # folders mostly real: more below them
_FILE_KINDS = st.sampled_from(["absent", "real", "link", "dangling", "hardlink"])
_CONFIGS = {"none": None, "in-repo cache": IN_REPO_CACHE.replace("false", "true"),
            "request log elsewhere": '[context]\nrequest_log = "logs/requests.jsonl"\n'}


_LAYOUTS = st.fixed_dictionaries({**dict.fromkeys(_DIRS, _DIR_KINDS), **dict.fromkeys(_FILES, _FILE_KINDS)})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(layout=_LAYOUTS, config=st.sampled_from(sorted(_CONFIGS)))
def test_random_link_layouts_never_write_outside(layout, config, monkeypatch):
    """Whatever links, dangling links and hard links `.noface/` and a cache dir inside the
    repository hold, `index`, `preview`, `run` and `signals --resolve` write nothing outside the
    repository and the user cache, and never fail with an internal error."""
    from noface_ctx.config import cache_dir
    from noface_ctx.rank.vector_store import CachedEmbedder

    monkeypatch.setattr("noface_ctx._pipeline.shared_embedder",
                        lambda cfg, **kw: (CachedEmbedder(FakeEmbedder(), cache_dir(cfg) / "embeddings"), ""))
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch).resolve()
        victim = tmp / "victim"
        (victim / "dir").mkdir(parents=True)
        (victim / "bashrc").write_text("export PATH=$HOME/bin:$PATH\n")
        files = {k: v for k, v in FILES.items() if k != ".noface.toml"}
        if _CONFIGS[config] is not None:  # (without one, nothing checks the request log at load time)
            files[".noface.toml"] = _CONFIGS[config]
        repo = make_repo(tmp / "repo", files)
        for n, rel in enumerate(_DIRS + _FILES):
            path, kind = repo / rel, layout[rel]
            if kind == "absent" or not path.parent.is_dir() or path.parent.is_symlink():
                continue  # (nothing can be placed inside a link or a missing folder)
            if kind == "real":
                path.mkdir() if rel in _DIRS else path.write_bytes(b"not a cache\n")
            elif kind == "link":
                os.symlink(victim / ("dir" if rel in _DIRS else "bashrc"), path)
            elif kind == "dangling":
                os.symlink(victim / f"ghost-{n}", path)
            elif rel in _FILES:  # a hard link to the user's file
                os.link(victim / "bashrc", path)
        commit(repo, "a hostile layout")
        before = _snapshot(victim)
        agent = _agent(tmp, "NEED_CODE: src/shop/cart.py\nISSUE_COMPLETE\n")
        for argv in (["index"], ["preview", "issue.md", "-q"], ["run", "issue.md", "--agent", agent],
                     ["signals", "-", "--resolve"]):
            code, _out, err = run(repo, *argv, stdin="NEED_CODE: src/shop/cart.py\n")
            assert code in (0, 1, 2), err
            assert _snapshot(victim) == before, argv
