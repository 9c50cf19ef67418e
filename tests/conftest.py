"""Shared fixtures: real git repositories in temp dirs, and a deterministic fake embedder."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def git(root: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, **GIT_ENV}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    out = subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)
    return out.stdout.decode()


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


def commit(root: Path, message: str = "change", date: str | None = None) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message, date=date)


def scan(root: Path):
    """RepoFiles for every tracked file, without the gate (`files.gate.scan_repo` does more; the
    code index and ranking tests need no more than this)."""
    from noface_ctx.code.languages import language_for_path
    from noface_ctx.datatypes import FileEntry, RepoFiles

    out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
    entries = []
    for rel in sorted(p for p in out.decode().split("\0") if p):
        full = root / rel
        if not full.exists():
            continue
        kind = "doc" if rel.endswith(".md") else ("code" if language_for_path(rel) else "other")
        entries.append(FileEntry(rel, full.stat().st_size, kind, language_for_path(rel)))
    return RepoFiles(str(root), tuple(entries), (), True)


def make_repo(root: Path, files: Mapping[str, str | bytes], *, date: str | None = None) -> Path:
    """A git repository at `root` with `files` committed in one commit."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write_tree(root, files)
    commit(root, "initial", date=date)
    return root


# Two functions in src/login.py and three docs, two of which name them: the repository the cache
# tests of several stages share (files, docs, freshness, ranking, the stage benchmark).
LOGIN_CODE = "def get_user(name):\n    return name\n\n\ndef logout(user):\n    return None\n"
LOGIN_DOCS = {
    "docs/auth.md": "# Auth\n\nCall `get_user()` in `src/login.py`.\n",
    "docs/sessions.md": "# Sessions\n\nEnd a session with `logout()`.\n",
    "docs/plain.md": "# Plain\n\nNo code here.\n",
}


def login_repo(root: Path) -> Path:
    """The login package and its docs, committed on 1 January 2025."""
    return make_repo(root, {"src/__init__.py": "", "src/login.py": LOGIN_CODE, **LOGIN_DOCS},
                     date="2025-01-01T12:00:00+00:00")


@pytest.fixture
def repo_factory(tmp_path):
    """`repo_factory(files, name="repo")` → path of a committed git repository."""

    def factory(files: Mapping[str, str | bytes], name: str = "repo", date: str | None = None) -> Path:
        return make_repo(tmp_path / name, files, date=date)

    return factory


class FakeEmbedder:
    """Deterministic bag-of-words vectors behind the real `Embedder` interface.

    Words listed together in `synonyms` share a dimension, so tests can state exactly
    which texts are "semantically" close without loading a model.
    """

    name = "fake-embedder"

    def __init__(self, dim: int = 256, synonyms: tuple[tuple[str, ...], ...] = ()) -> None:
        self.dim = dim
        self.canon = {w: group[0] for group in synonyms for w in group}
        self.calls = 0
        self.texts_embedded = 0

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for word in text.lower().replace("_", " ").split():
            word = self.canon.get(word.strip(".,:;()[]`'\""), word.strip(".,:;()[]`'\""))
            if not word:
                continue
            h = int(hashlib.md5(word.encode()).hexdigest(), 16)
            v[h % self.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def embed(self, texts):
        self.calls += 1
        self.texts_embedded += len(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vec(t) for t in texts])


@pytest.fixture
def fake_embedder():
    return FakeEmbedder()


@pytest.fixture(autouse=True)
def _isolate_home(tmp_path_factory, monkeypatch):
    """Never write to the user's home or a shared cache: point every cache at a temp dir."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(home / ".cache" / "noface-ctx"))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(home / ".cache" / "tiktoken"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def _warm_cache_of_this_repository(tmp_path_factory):
    """Where the first test that runs the tool on this repository leaves its caches (not its ledger)."""
    return tmp_path_factory.mktemp("this-repository") / "cache"


@pytest.fixture
def this_repository_cache(tmp_path, monkeypatch, _warm_cache_of_this_repository):
    """A cache dir for a run on this repository itself: the first such test builds the caches
    (cold, as a new user's first run), later ones start from a copy of them (the code index and
    doc judgements of a repository of 700 commits take 20-60 s to build); the trust ledger is never
    carried over, so no test sees another's recorded outcomes."""
    import shutil

    warm, cache = _warm_cache_of_this_repository, tmp_path / "cache"
    if warm.exists():
        shutil.copytree(warm, cache)
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(cache))
    yield cache
    if not warm.exists() and cache.exists():
        shutil.copytree(cache, warm, ignore=shutil.ignore_patterns("ledger.sqlite*"))


def run_cli(repo: Path, *argv: str, stdin: str = "") -> tuple[int, str, str]:
    """`noface-ctx ARGV --repo REPO` in this process: (exit code, stdout, stderr)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from noface_ctx.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*argv, "--repo", str(repo)], stdin=io.StringIO(stdin))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def history_builders(monkeypatch, tmp_path) -> Path:
    """A file that gets the pid of every process adding commits to a history index (forking
    allowed: other tests' idle threads aside, this process counts as single-threaded)."""
    import noface_ctx._process as process
    import noface_ctx.freshness.history as history

    out = tmp_path / "builders"
    real = history.HistoryIndex.update

    def update(self, head):
        added = real(self, head)
        if added:
            with out.open("a") as f:
                f.write(f"{os.getpid()}\n")
        return added

    monkeypatch.setattr(history.HistoryIndex, "update", update)
    monkeypatch.setattr(process.threading, "active_count", lambda: 1)
    return out


# --------------------------------------------------------------------------- agent output (stream-json)

def assistant_event(text: str, **extra) -> dict:
    """One assistant message of an agent's stream-json output."""
    return {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}, **extra}


def tool_use_and_result(quoted: str) -> list[dict]:
    """A tool call quoting `quoted` and its result: text no request may be read from."""
    return [
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Write", "input": {"content": quoted}}],
            },
        },
        {
            "type": "user",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": quoted}]},
        },
    ]


def stream_jsonl(events: list[dict]) -> str:
    """Events as stream-json lines."""
    return "\n".join(json.dumps(e) for e in events) + "\n"


# a beads issue as `bd show --json` prints it (tests/issue/: loading, beads, manifests)
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
