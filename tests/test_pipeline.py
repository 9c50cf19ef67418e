"""`build_prompt` end to end on real git repositories: budget, JSON shape, secrets, forbidden files."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from conftest import FakeEmbedder, make_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noface_ctx._pipeline import build_prompt
from noface_ctx._tokens import count_tokens
from noface_ctx.config import load_config
from noface_ctx.datatypes import Issue
from noface_ctx.errors import UsageError
from noface_ctx.signals.parse import parse_signals

SECRET_ENV = "UPLOAD_RETRY_TOKEN=sk-" + "live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c\n"  # split: this file must not look secret
KEY_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
PRIVATE_KEY = "-----BEGIN " + f"OPENSSH PRIVATE KEY-----\n{KEY_BODY}\nQyNTUxOQAAACBR\n-----END OPENSSH PRIVATE KEY-----\n"
FORBIDDEN_MARKER = "deploy_uploads_to_production_with_retry"

CONFIG = """\
[project]
name = "uploader"
build = "python -m compileall -q src"
test = "python -m pytest -q"

[monowiki]
vault = "docs"
max_context_docs = 4

[context]
budget_tokens = 6000
"""

RETRY_DOC = """\
---
title: Upload retries
slug: upload-retries
tags: [uploads, retry]
type: design
---

# Upload retries

Uploads go through `Uploader.upload_chunk`, which calls `retry_upload` on a network error.
The retry policy is exponential backoff computed by `backoff_delay`, capped by `MAX_RETRIES`.

## Backoff

`backoff_delay(attempt)` doubles the delay on every attempt, with jitter, and never waits
longer than the cap. A retry is abandoned once `MAX_RETRIES` attempts have failed.

## Failure reporting

When every retry fails, the uploader records the failure with `report_failure` so the
dashboard can show which chunk failed and why.
"""

STORAGE_DOC = """\
---
title: Storage layout
slug: storage-layout
---

# Storage layout

Objects are stored by content hash in two-level directories. `Storage.put` writes a blob
atomically; `Storage.get` reads it back. Garbage collection runs weekly.
"""


def _module(name: str, topic: str, n: int) -> str:
    """A plausible module with `n` functions about `topic`, so ranking has real choices."""
    funcs = []
    for i in range(n):
        funcs.append(textwrap.dedent(f'''
            def {topic}_step_{i}(value, *, limit={i + 3}):
                """Apply {topic} step {i} to value, clamped to limit."""
                total = 0
                for item in range(limit):
                    total += (value * item) % (limit + {i + 1})
                if total > limit * {i + 2}:
                    return limit
                return total
            '''))
    return f'"""{name}: helpers for {topic}."""\n' + "".join(funcs)


UPLOADER = '''\
"""Chunked uploads with retries."""

import random
import time

MAX_RETRIES = 5


def backoff_delay(attempt, base=0.5, cap=30.0):
    """Seconds to wait before retry number `attempt` (exponential, with jitter)."""
    delay = min(cap, base * (2 ** attempt))
    return delay * (0.5 + random.random() / 2)


def retry_upload(send, chunk, retries=MAX_RETRIES):
    """Send `chunk`, retrying with backoff on ConnectionError."""
    for attempt in range(retries):
        try:
            return send(chunk)
        except ConnectionError:
            time.sleep(backoff_delay(attempt))
    report_failure(chunk, retries)
    return None


def report_failure(chunk, attempts):
    """Record a chunk whose upload failed after `attempts` tries."""
    print(f"upload of chunk {chunk!r} failed after {attempts} attempts")


class Uploader:
    """Uploads a file in chunks."""

    def __init__(self, send, chunk_size=1 << 20):
        self.send = send
        self.chunk_size = chunk_size

    def upload_chunk(self, chunk):
        """Upload one chunk, retrying on network errors."""
        return retry_upload(self.send, chunk)

    def upload(self, data):
        """Upload all of `data`; return the number of chunks sent."""
        sent = 0
        for start in range(0, len(data), self.chunk_size):
            if self.upload_chunk(data[start:start + self.chunk_size]) is not None:
                sent += 1
        return sent
'''

ISSUE = {
    "id": "up-1",
    "title": "Retry failed uploads with capped backoff",
    "description": (
        "When a chunk upload fails with a network error, `retry_upload` retries forever on some paths "
        "and `backoff_delay` ignores the cap. Make every upload retry use `backoff_delay` with the cap "
        "from MAX_RETRIES, and report the failure once retries are exhausted.\n"
        "The deploy script and the upload token in the environment are not part of this change."
    ),
    "acceptance_criteria": "- backoff never exceeds the cap\n- failures are reported once",
    "issue_type": "bug",
    "comments": [
        {"id": 1, "text": "MANIFEST: primary=[src/uploader/core.py, tests/test_core.py] read=[src/uploader/storage.py] "
                          "forbidden=[scripts/deploy.py]", "created_at": "2026-11-20T10:00:00Z"},
    ],
}


def repo_files() -> dict[str, str]:
    files = {
        ".noface.toml": CONFIG,
        "docs/upload-retries.md": RETRY_DOC,
        "docs/storage-layout.md": STORAGE_DOC,
        "src/uploader/__init__.py": '"""uploader package."""\n',
        "src/uploader/core.py": UPLOADER,
        "src/uploader/storage.py": _module("storage", "storage", 12),
        "src/uploader/retry_math.py": _module("retry math", "retry_backoff", 25),
        "src/uploader/compress.py": _module("compression", "compress", 30),
        "src/uploader/upload_stats.py": _module("upload statistics", "upload_retry_stats", 20),
        "tests/test_core.py": "from uploader.core import backoff_delay\n\n\ndef test_cap():\n"
                              "    assert backoff_delay(50) <= 30.0\n",
        "scripts/deploy.py": f'"""Deploy: retries uploads."""\n\ndef {FORBIDDEN_MARKER}(upload, retry):\n'
                             "    return upload(retry=retry)\n",
        ".env": SECRET_ENV,
        "id_rsa": PRIVATE_KEY,
        "src/uploader/upload_retry_key.pem": PRIVATE_KEY,
    }
    return files


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return make_repo(tmp_path_factory.mktemp("pipeline") / "repo", repo_files())


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("noface-cache")


@pytest.fixture(autouse=True)
def _reuse_index(shared_cache, monkeypatch):
    """One index cache for the module (the autouse home isolation gives each test a fresh one)."""
    monkeypatch.setenv("NOFACE_CTX_CACHE_DIR", str(shared_cache))


@pytest.fixture(scope="module")
def embedder():
    return FakeEmbedder(synonyms=(("retry", "retries", "retrying"), ("upload", "uploads", "uploader")))


def assert_safe(text: str) -> None:
    assert "sk-live-" not in text
    assert KEY_BODY not in text
    assert "PRIVATE KEY-----" not in text
    assert FORBIDDEN_MARKER not in text


BUDGETS = [1000, 1200, 1600, 2000, 2500, 3200, 4000, 5000, 6500, 8000, 10000, 13000, 17000, 22000, 28000,
           36000, 50000]


@pytest.mark.parametrize("budget", BUDGETS)
def test_budget_is_never_exceeded_and_secrets_never_leak(repo, embedder, budget):
    prompt = build_prompt(ISSUE, repo, budget=budget, embed=embedder)
    total = count_tokens(prompt.text)
    assert total <= budget
    assert prompt.tokens["total"] == total
    assert prompt.tokens["budget"] == budget
    assert_safe(prompt.text)
    for row in prompt.code:
        assert row["path"] not in {"scripts/deploy.py", ".env", "id_rsa", "src/uploader/upload_retry_key.pem"}
    for o in prompt.omitted:
        assert "deploy.py" not in o.request and ".pem" not in o.request and ".env" not in o.request
    assert [r for r in parse_signals(prompt.text) if r.path.startswith(("scripts/", ".env"))] == []


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=1000, max_value=50000), share=st.floats(min_value=0.0, max_value=1.0))
def test_any_budget_and_docs_share_fit(repo, embedder, budget, share):
    cfg = load_config(repo).with_context(docs_share=share)
    prompt = build_prompt(ISSUE, config=cfg, budget=budget, embed=embedder)
    assert prompt.tokens["total"] == count_tokens(prompt.text) <= budget
    assert_safe(prompt.text)
    # CODE CONTEXT: a file's blocks together and in line order; a class outline once, with its methods
    paths = [row["path"] for row in prompt.code]
    order = list(dict.fromkeys(paths))
    assert paths == sorted(paths, key=order.index)
    for path in order:
        starts = [row["start_line"] for row in prompt.code if row["path"] == path]
        assert starts == sorted(starts)
    outlines = [(row["path"], row["symbol"]) for row in prompt.code if row["form"] == "class-outline"]
    assert len(outlines) == len(set(outlines))
    assert all(any(r["path"] == p and r["symbol"].startswith(c + ".") for r in prompt.code) for p, c in outlines)


def test_more_budget_means_more_context_and_the_right_context(repo, embedder):
    small = build_prompt(ISSUE, repo, budget=1500, embed=embedder)
    large = build_prompt(ISSUE, repo, budget=30000, embed=embedder)
    assert large.tokens["docs"] + large.tokens["code"] > small.tokens["docs"] + small.tokens["code"]
    included_docs = [d["slug"] for d in large.docs if d["included"]]
    assert "upload-retries" in included_docs
    # The manifest's editable file is shown, and its retry function appears in the prompt text.
    assert any(row["path"] == "src/uploader/core.py" for row in large.code)
    assert "def retry_upload(send, chunk, retries=MAX_RETRIES):" in large.text
    # At a small budget what did not fit is listed with the exact line that fetches it.
    if small.omitted:
        for o in small.omitted:
            assert f"\n  {o.request}\n" in small.text
            assert o.request.startswith(("NEED_CODE: ", "NEED_DOC: "))


def test_json_has_the_documented_shape(repo, embedder):
    data = build_prompt(ISSUE, repo, budget=5000, embed=embedder).to_dict()
    json.dumps(data)  # serialisable as is
    assert {"issue", "prompt", "tokens", "docs", "code", "excluded", "omitted", "warnings"} <= set(data)
    assert data["issue"]["id"] == "up-1" and data["issue"]["title"].startswith("Retry failed uploads")
    assert {"total", "budget", "docs", "code"} <= set(data["tokens"])
    assert data["docs"], "the ranked docs are reported"
    for row in data["docs"]:
        assert {"path", "slug", "score", "included", "reason", "stale", "stale_reasons", "tokens",
                "bm25", "embedding", "linked"} <= set(row)
    for row in data["code"]:
        assert {"path", "symbol", "start_line", "end_line", "kind", "tokens"} <= set(row)
    for row in data["excluded"]:
        assert {"path", "reason"} <= set(row)
    for row in data["omitted"]:
        assert {"path", "reason", "request"} <= set(row)
    excluded = {row["path"] for row in data["excluded"]}
    assert {".env", "id_rsa", "scripts/deploy.py"} <= excluded
    details = data["details"]
    assert {"score", "k", "reasons"} <= set(details["complexity"])
    assert isinstance(details["ranked_files"], list) and details["ranked_files"]
    assert "scripts/deploy.py" not in details["ranked_files"]
    assert {"files", "docs", "index", "ranking", "budget"} <= set(details["timings"])
    assert details["manifest_source"]


def test_sections_follow_noface_order(repo, embedder):
    text = build_prompt(ISSUE, repo, budget=6000, embed=embedder).text
    assert text.startswith("You are a senior software engineer working autonomously on issue up-1 in the uploader project.")
    labels = ["\nISSUE:", "\nMANIFEST", "\nCOMMANDS:", "\nDESIGN CONTEXT:", "\nCODE CONTEXT:", "\nOMITTED CONTEXT:",
              "\nWORKFLOW:", "\nCONSTRAINTS:", "\nCONTEXT REQUESTS:"]
    positions = [text.index(label) for label in labels]
    assert positions == sorted(positions)
    assert "- test: python -m pytest -q" in text
    assert "Forbidden (never read or modify): scripts/deploy.py" in text


@pytest.mark.parametrize("budget", [1000, 8000])
def test_a_huge_issue_is_truncated_with_a_marker_and_still_fits(repo, embedder, budget):
    log = "\n".join(f"2026-11-20T10:{i // 60:02d}:{i % 60:02d} ERROR upload chunk {i} failed: ConnectionResetError"
                    for i in range(1500))
    issue = {**ISSUE, "id": "up-2", "description": ISSUE["description"] + "\n\nLogs:\n" + log}
    prompt = build_prompt(issue, repo, budget=budget, embed=embedder)
    assert count_tokens(prompt.text) <= budget
    assert "[issue text truncated: " in prompt.text
    assert prompt.details["issue_truncated_tokens"] > 10000
    assert any("issue text truncated" in w for w in prompt.warnings)
    assert "- backoff never exceeds the cap" in prompt.text  # acceptance criteria survive the cut


def test_bm25_only_when_embeddings_are_off(repo):
    prompt = build_prompt(ISSUE, repo, budget=6000, embed=False)
    assert count_tokens(prompt.text) <= 6000
    assert "BM25" in prompt.details["embedder"]
    assert prompt.details["embedding_used"] == {"docs": False, "code": False}
    assert_safe(prompt.text)


def test_config_path_issue_object_and_explicit_manifest(repo, embedder, tmp_path):
    cfg_path = tmp_path / "other.toml"
    cfg_path.write_text(CONFIG.replace("budget_tokens = 6000", "budget_tokens = 3000"))
    issue = Issue(id="up-3", title="Tune backoff_delay jitter", description="backoff_delay jitter is too wide.")
    prompt = build_prompt(issue, repo, config=cfg_path, embed=embedder,
                          manifest={"primary_files": ["src/uploader/core.py"], "forbidden_files": ["src/uploader/compress.py"]})
    assert prompt.tokens["budget"] == 3000
    assert count_tokens(prompt.text) <= 3000
    assert "Forbidden (never read or modify): src/uploader/compress.py" in prompt.text
    assert all(row["path"] != "src/uploader/compress.py" for row in prompt.code)
    assert "compress_step_" not in prompt.text
    assert "compress.py" not in " ".join(prompt.details["ranked_files"])


def test_a_config_object_is_used_as_is(repo, embedder):
    cfg = load_config(repo).with_context(docs_share=0.0)
    prompt = build_prompt(ISSUE, config=cfg, embed=embedder, budget=8000)
    assert prompt.tokens["docs"] == 0
    assert not any(d["included"] for d in prompt.docs)
    assert prompt.tokens["code"] > 0


def test_a_repo_that_is_not_the_configs_repository_is_a_usage_error(repo, embedder, tmp_path):
    """`repo` used to be ignored silently when a Config was given."""
    cfg = load_config(repo)
    assert build_prompt(ISSUE, repo=repo, config=cfg, embed=embedder, budget=8000).tokens["total"] > 0
    with pytest.raises(UsageError, match="not the repository of the given Config"):
        build_prompt(ISSUE, repo=tmp_path, config=cfg, embed=embedder, budget=8000)


def test_too_small_a_budget_is_a_usage_error(repo, embedder):
    with pytest.raises(UsageError, match=r"budget 150 is too small: the fixed sections alone need \d+ tokens"):
        build_prompt(ISSUE, repo, budget=150, embed=embedder)
    with pytest.raises(UsageError, match=r"budget 450 is too small"):
        build_prompt(ISSUE, repo, budget=450, embed=embedder)


def test_a_repo_without_docs_says_so(tmp_path, embedder):
    root = make_repo(tmp_path / "nodocs", {"app.py": UPLOADER, ".env": SECRET_ENV})
    prompt = build_prompt(Issue(id="n-1", title="retry_upload never gives up"), root, budget=3000, embed=embedder)
    assert "DESIGN CONTEXT:\nnone selected: the repository has no design docs" in prompt.text
    assert "def retry_upload" in prompt.text
    assert_safe(prompt.text)


def test_importing_the_package_is_light_and_exports_resolve():
    code = (
        "import sys, noface_ctx\n"
        "assert 'noface_ctx._pipeline' not in sys.modules and 'torch' not in sys.modules\n"
        "from noface_ctx import Prompt, Issue, Manifest, UsageError, ConfigError, InputError, load_config\n"
        "assert 'noface_ctx._pipeline' not in sys.modules\n"
        "assert callable(noface_ctx.build_prompt) and 'noface_ctx._pipeline' in sys.modules\n"
        "assert set(noface_ctx.__all__) >= {'build_prompt', 'check_docs', 'parse_signals', 'resolve_requests',"
        " 'load_config', 'load_issue', 'Prompt', 'Issue', 'Manifest', 'UsageError'}\n"
        "assert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_final_count_moves_the_lowest_scored_item_out_until_the_prompt_fits():
    from pathlib import Path

    from noface_ctx._pipeline import final_count
    from noface_ctx._render import NO_CODE, NO_DOCS, fixed_sections, render_prompt
    from noface_ctx.config import Config
    from noface_ctx.datatypes import Candidate, Chosen, Form, Selection

    def item(ref: str, score: float, n: int, required: bool = False) -> Chosen:
        text = f"### a.py {ref}\n" + "x = 1\n" * n
        cand = Candidate("code", "a.py", ref, ref, (Form("full", text, count_tokens(text)),), score,
                         f"NEED_CODE: a.py::{ref}", required=required)
        return Chosen(cand, cand.forms[0])

    fixed = fixed_sections(Config(root=Path("/tmp/v")), Issue(id="v-1", title="t"), budget=2000)
    chosen = (item("keep_required", 0.1, 60, required=True), item("best", 0.9, 60), item("worst", 0.2, 60))
    sel = Selection(docs=(), code=chosen, omitted=(), budget=0, docs_budget=0, code_budget=0)
    budget = count_tokens(render_prompt(fixed, sel)) - 5  # a few tokens over, as a join might cost
    packed = final_count(fixed, sel, budget, NO_DOCS, NO_CODE)
    assert count_tokens(packed.text) <= budget
    assert [c.candidate.ref for c in packed.selection.code] == ["keep_required", "best"]
    assert [o.ref for o in packed.dropped] == ["worst"]
    assert "\n  NEED_CODE: a.py::worst\n" in packed.text


def test_a_source_file_over_the_size_limit_gives_definitions_never_its_whole_text(tmp_path, embedder):
    filler = "".join(f"def helper_{i}(value):\n    return value + {i}\n\n\n" for i in range(2500))
    big = filler + "def rotate_request_log(path, keep):\n    \"\"\"Rotate the request log, keeping `keep` files.\"\"\"\n    return path\n"
    secret_big = "API_" + "KEY = '" + "sk_live_" + "9" * 40 + "'\n" + filler
    root = make_repo(tmp_path / "big", {"server/handlers.py": big, "server/keys.py": secret_big,
                                        "server/app.py": "def main():\n    return 0\n"})
    assert len(big) > 100 * 1024
    prompt = build_prompt(Issue(id="b-1", title="rotate_request_log ignores keep"), root, budget=6000, embed=embedder)
    excluded = {e["path"]: e["reason"] for e in prompt.to_dict()["excluded"]}
    assert "max_file_size_kb" in excluded["server/handlers.py"]
    assert "server/handlers.py:" in prompt.text and "def rotate_request_log(path, keep):" in prompt.text
    assert "def helper_2000" not in prompt.text  # one definition, not the whole file
    assert "sk_live_" not in prompt.text and "server/keys.py" not in prompt.text.split("OMITTED CONTEXT")[0]
    (root / ".noface.toml").write_text("[context]\nsplit_large_sources = false\n")
    strict = build_prompt(Issue(id="b-1", title="rotate_request_log ignores keep"), root, budget=6000, embed=embedder)
    assert "def rotate_request_log(path, keep):" not in strict.text  # excluded outright when asked
    assert "server/handlers.py" in {e["path"] for e in strict.to_dict()["excluded"]}
