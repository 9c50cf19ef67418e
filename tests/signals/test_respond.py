"""Answering NEED_CODE / NEED_DOC requests: safe resolution, the answer under a budget, refusals and the log."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import assistant_event, stream_jsonl, tool_use_and_result

from noface_ctx._tokens import count_tokens
from noface_ctx.config import load_config
from noface_ctx.datatypes import Issue, Manifest, ManifestEntry
from noface_ctx.signals.parse import parse_signals, parse_signals_detailed
from noface_ctx.signals.respond import resolve_requests
from noface_ctx.signals.values import Request

# --------------------------------------------------------------------------- resolution

APP = '''"""The app."""


class Service:
    """Handles requests."""

    def handle(self, request):
        """Route one request."""
        return self.helper(request) + 1

    def helper(self, request):
        return len(request)


def main():
    return Service().handle("x")
'''

AUTH_DOC = """---
title: Auth design
slug: auth-design
aliases: [login-design]
---

# Auth design

Tokens are checked by `Service.handle`.

## Tokens

Tokens expire after one hour.

## Refresh

Refresh tokens rotate on every use.
"""


def _big_module(n: int = 120) -> str:
    return "\n".join(f"def func_{i}(x):\n    \"\"\"Function number {i}.\"\"\"\n    return x + {i}\n\n" for i in range(n))


@pytest.fixture
def repo(repo_factory, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd.txt").write_text("root:x:0:0\n")
    root = repo_factory(
        {
            ".noface.toml": "[monowiki]\nmax_file_size_kb = 2\n",
            "src/app.py": APP,
            "src/big.py": _big_module(),
            "src/gen/bundle.min.js": "var a=1;\n",
            "config/settings.py": 'AWS_KEY = "AKIA' + 'IOSFODNN7ABCDEFG"\n',
            ".env": "SECRET=hunter2\n",
            ".ci/run": "#!/bin/sh\necho deploy\n",
            "docs/auth.md": AUTH_DOC,
            "notes.txt": "line one\nline two\nline three\n",
        }
    )
    os.symlink(outside / "passwd.txt", root / "escape.txt")
    os.symlink(".env", root / "innocent.cfg")
    return root


def _answer(repo: Path, text: str, **kw):
    kw.setdefault("log", False)
    return resolve_requests(parse_signals_detailed(text), repo, **kw)


def _item(answer, target: str):
    return next(i for i in answer.items if i.request.target == target)


def test_symbol_request_returns_that_definition(repo):
    answer = _answer(repo, "NEED_CODE: src/app.py::Service.handle")
    item = answer.items[0]
    assert item.outcome == "served" and item.tokens > 0
    assert answer.text.startswith("CONTEXT YOU REQUESTED:")
    assert "def handle(self, request):" in answer.text
    assert "def helper" not in answer.text and "def main" not in answer.text
    assert "src/app.py:7-9" in answer.text


def test_bare_method_name_and_unknown_symbol(repo):
    answer = _answer(repo, "NEED_CODE: src/app.py::helper\nNEED_CODE: src/app.py::Service.hadle")
    assert _item(answer, "src/app.py::helper").outcome == "served"
    missing = _item(answer, "src/app.py::Service.hadle")
    assert missing.outcome == "not found"
    assert "src/app.py::Service.handle" in missing.suggestions
    assert "src/app.py::Service.handle" in answer.text  # the suggestion reaches the agent


def test_range_request_returns_exactly_those_lines(repo):
    answer = _answer(repo, "NEED_CODE: notes.txt:2-3")
    assert answer.items[0].outcome == "served"
    assert "line two\nline three" in answer.text and "line one" not in answer.text
    past = _answer(repo, "NEED_CODE: notes.txt:9-12").items[0]
    assert past.outcome == "not found" and "3 lines" in past.reason


def test_whole_small_file_is_served_whole(repo):
    answer = _answer(repo, "NEED_CODE: src/app.py")
    assert answer.items[0].outcome == "served"
    assert APP.strip() in answer.text


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("NEED_CODE: ../../etc/passwd", "'..'"),
        ("NEED_CODE: /etc/passwd", "absolute"),
        ("NEED_CODE: escape.txt", "outside the repository"),
        ("NEED_CODE: .env", "secret"),
        ("NEED_CODE: innocent.cfg", "secret"),
        ("NEED_CODE: config/settings.py", "secret"),
        ("NEED_CODE: src/gen/bundle.min.js", "generated"),
        ("NEED_CODE: .git/config", "git"),
    ],
)
def test_unsafe_targets_are_refused_with_a_reason(repo, text, why):
    answer = _answer(repo, text)
    [item] = answer.items
    assert item.outcome == "refused" and why in item.reason
    assert item.request.signal in answer.text and "NOT SERVED:" in answer.text
    assert "root:x" not in answer.text and "hunter2" not in answer.text and "AKIA" not in answer.text


def test_hand_made_escaping_requests_are_refused_too(repo):
    sneaky = [
        Request("code", "../outside/passwd.txt", path="../outside/passwd.txt"),
        Request("code", "x", path="/etc/passwd"),
        Request("doc", "../outside/passwd.txt", path="../outside/passwd.txt"),
    ]
    answer = resolve_requests(sneaky, repo, log=False)
    assert [i.outcome for i in answer.items] == ["refused", "refused", "refused"]
    assert "root:x" not in answer.text


def test_manifest_forbidden_files_are_refused(repo):
    manifest = Manifest(forbidden=(ManifestEntry(".ci/run"), ManifestEntry("docs/")))
    issue = Issue(id="bd-7", title="t", manifest=manifest)
    answer = _answer(repo, "NEED_CODE: .ci/run\nNEED_DOC: auth-design\nNEED_CODE: src/app.py:1-1", issue=issue)
    assert [i.outcome for i in answer.items] == ["refused", "refused", "served"]
    assert "forbidden" in answer.items[0].reason and "forbidden" in answer.items[1].reason
    assert "echo deploy" not in answer.text and "Tokens expire" not in answer.text


def test_issue_given_as_a_file_supplies_the_manifest(repo, tmp_path):
    issue_file = tmp_path / "issue.md"
    issue_file.write_text("# Fix it\n\nMANIFEST: primary=[src/app.py] forbidden=[notes.txt]\n")
    answer = _answer(repo, "NEED_CODE: notes.txt", issue=str(issue_file))
    assert answer.items[0].outcome == "refused" and "forbidden" in answer.items[0].reason


def test_size_excluded_file_is_served_capped_on_request(repo):
    whole = _answer(repo, "NEED_CODE: src/big.py", budget=4000)
    item = whole.items[0]
    assert item.outcome == "partial" and "size" in item.reason
    assert "outline of src/big.py" in whole.text and "func_119(x)" in whole.text
    assert "return x + 5" not in whole.text  # bodies are not shown, although they would fit
    assert item.next == "NEED_CODE: src/big.py:1-3"  # the first definition
    small = _answer(repo, "NEED_CODE: src/big.py", budget=600)
    item = small.items[0]
    assert item.outcome == "partial" and small.tokens <= 600
    assert "func_0(x)" in small.text and "func_119(x)" not in small.text
    assert item.next.startswith("NEED_CODE: src/big.py:") and item.next in small.text
    part = _answer(repo, "NEED_CODE: src/big.py::func_42").items[0]
    assert part.outcome == "served"
    assert "return x + 42" in _answer(repo, "NEED_CODE: src/big.py::func_42").text


def test_over_budget_range_is_cut_with_the_next_range(repo):
    answer = _answer(repo, "NEED_CODE: src/big.py:1-400", budget=300)
    item = answer.items[0]
    assert item.outcome == "partial" and answer.tokens <= 300
    last = int(item.next.rsplit(":", 1)[1].split("-")[0]) - 1
    assert item.next == f"NEED_CODE: src/big.py:{last + 1}-400"
    assert f"[cut after line {last}" in answer.text


def test_unknown_targets_get_the_closest_paths_and_slugs(repo):
    answer = _answer(repo, "NEED_CODE: src/aap.py\nNEED_CODE: lib/app.py\nNEED_DOC: auth-desing\nNEED_DOC: src/app.py")
    assert _item(answer, "src/aap.py").outcome == "not found"
    assert "src/app.py" in _item(answer, "src/aap.py").suggestions
    assert _item(answer, "lib/app.py").suggestions[0] == "src/app.py"
    assert "auth-design" in _item(answer, "auth-desing").suggestions
    assert "NEED_CODE: src/app.py" in _item(answer, "src/app.py").reason
    assert "closest: src/app.py" in answer.text


def test_docs_by_slug_alias_path_and_heading(repo):
    answer = _answer(repo, "NEED_DOC: auth-design\nNEED_DOC: login-design#Refresh\nNEED_DOC: docs/auth.md#Nope")
    whole = _item(answer, "auth-design")
    assert whole.outcome == "served"
    assert "Tokens expire after one hour." in answer.text
    assert _item(answer, "login-design#Refresh").outcome == "served"
    assert answer.text.count("Refresh tokens rotate") == 2  # whole doc + the section
    nope = _item(answer, "docs/auth.md#Nope")
    assert (nope.outcome == "not found" and "auth-design#refresh" in nope.suggestions) or nope.suggestions


def test_every_refusal_is_listed_and_the_answer_fits_the_budget(repo):
    text = "\n".join(
        ["NEED_CODE: src/app.py", "NEED_CODE: src/big.py:1-300", "NEED_DOC: auth-design", "NEED_CODE: .env"]
        + [f"NEED_CODE: missing/file_{i}.py" for i in range(5)]
    )
    for budget in (60, 150, 400, 2000):
        answer = _answer(repo, text, budget=budget)
        assert count_tokens(answer.text) == answer.tokens <= budget
        assert len(answer.items) == 9
        served = [i for i in answer.items if i.outcome in ("served", "partial")]
        for item in answer.items:
            if item.outcome == "refused" and "budget" in item.reason:
                assert item.request.signal in item.reason  # how to ask again
        if budget >= 400:
            assert served and all(i.request.signal in answer.text for i in answer.items)


def test_default_budget_is_a_share_of_the_prompt_budget(repo):
    answer = _answer(repo, "NEED_CODE: src/app.py")
    config = load_config(repo)
    assert answer.budget == config.context.budget_tokens // 4


def test_log_is_appended_as_jsonl_under_noface(repo):
    resolve_requests(parse_signals("NEED_CODE: src/app.py::main\nNEED_CODE: .env"), repo, issue=Issue(id="bd-9", title="t"))
    answer = resolve_requests(parse_signals("NEED_DOC: nothing-here"), repo)
    log = repo / ".noface" / "requests.jsonl"
    assert answer.log_path == str(log)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["request"] for r in records] == ["NEED_CODE: src/app.py::main", "NEED_CODE: .env", "NEED_DOC: nothing-here"]
    assert [r["outcome"] for r in records] == ["served", "refused", "not found"]
    assert records[0]["issue"] == "bd-9" and records[2]["issue"] is None
    assert records[0]["tokens"] > 0 and records[0]["time"].endswith("+00:00")
    assert (repo / ".noface" / ".gitignore").read_text() == "*\n"


def test_unwritable_log_is_a_warning_not_a_failure(repo):
    (repo / ".noface").mkdir(exist_ok=True)
    (repo / ".noface" / "requests.jsonl").mkdir()  # a directory where the file should be
    answer = resolve_requests(parse_signals("NEED_CODE: src/app.py"), repo)
    assert answer.items[0].outcome == "served" and answer.log_path is None
    assert any("request log" in w for w in answer.warnings)


def test_answer_to_dict_and_empty_answer(repo):
    answer = _answer(repo, "NEED_CODE: src/app.py:1-2\nNEED_CODE: nope.py")
    data = json.loads(json.dumps(answer.to_dict()))
    assert data["version"] == 1 and data["budget"] == answer.budget and data["tokens"] == answer.tokens
    assert [i["outcome"] for i in data["items"]] == ["served", "not found"]
    empty = resolve_requests([], repo)
    assert empty.text == "" and empty.items == () and not (repo / ".noface" / "requests.jsonl").exists()


def test_cli_signals_parse_and_resolve(repo, tmp_path, capsys):
    from noface_ctx.cli import main

    out_file = tmp_path / "agent.jsonl"
    events = [*tool_use_and_result("NEED_CODE: notes.txt"), assistant_event("NEED_CODE: src/app.py::main\nNEED_CODE: ../x")]
    out_file.write_text(stream_jsonl(events))
    assert main(["signals", str(out_file), "--repo", str(repo)]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "NEED_CODE: src/app.py::main"
    assert "'..'" in captured.err
    assert main(["signals", str(out_file), "--repo", str(repo), "--resolve", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["items"][0]["outcome"] == "served" and "def main" in data["text"]


def test_stale_doc_comes_with_its_staleness_note(repo_factory):
    from conftest import commit, write_tree

    root = repo_factory(
        {
            "src/store.py": "def old_function():\n    return 1\n",
            "docs/store.md": "# Store\n\nCall `old_function()` to read the store.\n",
        },
        date="2024-01-01T00:00:00",
    )
    write_tree(root, {"src/store.py": "def new_function():\n    return 2\n"})
    commit(root, "rename", date="2024-02-01T00:00:00")
    answer = resolve_requests(parse_signals("NEED_DOC: store"), root, log=False)
    assert answer.items[0].outcome == "served"
    assert "Note: this doc may be outdated" in answer.text
    assert "old_function" in answer.text.split("Call `old_function()`")[0]  # the reason names the missing ref


def test_directory_and_non_doc_and_secret_doc_targets(repo):
    answer = _answer(repo, "NEED_CODE: src\nNEED_DOC: .env\nNEED_DOC: notes.txt")
    directory = _item(answer, "src")
    assert directory.outcome == "not found" and "directory" in directory.reason
    assert "src/app.py" in directory.suggestions
    assert _item(answer, ".env").outcome == "refused"
    assert "NEED_CODE: notes.txt" in _item(answer, "notes.txt").reason
    assert "hunter2" not in answer.text


def test_fifo_is_refused_without_blocking(repo):
    os.mkfifo(repo / "pipe.py")
    item = _answer(repo, "NEED_CODE: pipe.py").items[0]
    assert item.outcome == "refused" and "regular file" in item.reason
