"""The MCP server as a subprocess, driven by the SDK's own stdio client on a real git repository."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from noface_ctx._tokens import count_tokens

ROOT = Path(__file__).resolve().parents[1]

FILES = {
    ".noface.toml": '[project]\nname = "ledger"\n\n[context]\nembeddings = false\n',
    "src/ledger.py": (
        "class Ledger:\n"
        "    def __init__(self):\n"
        "        self.entries = []\n\n"
        "    def add_entry(self, amount, memo):\n"
        "        \"\"\"Record one entry.\"\"\"\n"
        "        self.entries.append((amount, memo))\n\n"
        "    def balance(self):\n"
        "        return sum(a for a, _m in self.entries)\n\n\n"
        "def format_amount(value):\n"
        "    return f'{value:.2f}'\n"
    ),
    "src/payroll.py": "def run_payroll(ledger):\n    return ledger.balance()\n",
    "src/keys.py": "TOKEN = 'ghp_" + "Zq8Rt2Lm9Xc4Vb7Nk1Jh6Gf3Ds5Aw0Pe2Ty8Ui'\n",
    ".env": "PASSWORD=hunter2\n",
    "docs/ledger-design.md": (
        "---\ntitle: Ledger design\n---\n# Ledger design\n\nThe `Ledger` keeps entries in memory; "
        "`Ledger.balance` sums them. Amounts are formatted with `format_amount`.\n\n## Rounding\n\n"
        "Amounts are rounded to two decimals when formatted.\n"
    ),
    "issue.md": (
        "# Ledger balance ignores negative memo entries\n\nThe balance of a `Ledger` should skip entries "
        "whose memo is 'void'. See [[ledger-design]].\n\n"
        "MANIFEST: primary=[src/ledger.py] read=[docs/ledger-design.md] forbidden=[src/payroll.py]\n"
    ),
}


def _params(repo: Path, *extra: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "XDG_CACHE_HOME", "NOFACE_CTX_CACHE_DIR",
                                                        "TIKTOKEN_CACHE_DIR", "HF_HUB_OFFLINE")}
    env["PYTHONPATH"] = str(ROOT)
    return StdioServerParameters(command=sys.executable, args=["-m", "noface_ctx", "mcp", "--repo", str(repo), *extra],
                                 env=env, cwd=str(repo))


def _text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def _drive(repo: Path, *extra: str):
    """Run one client session; return what each step gave, for the assertions."""
    out: dict = {}

    async def main() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(_params(repo, *extra), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
                    out["tools"] = {t.name: t for t in listed.tools}
                    calls = {
                        "prompt": ("build_prompt", {}),
                        "prompt_details": ("build_prompt", {"details": True}),
                        "prompt2": ("build_prompt", {"issue": "issue", "budget": 3000}),
                        "code": ("need_code", {"target": "src/ledger.py::Ledger.balance"}),
                        "doc": ("need_doc", {"target": "ledger-design#rounding"}),
                        "forbidden": ("need_code", {"target": "src/payroll.py"}),
                        "secret_path": ("need_code", {"target": ".env"}),
                        "secret_text": ("need_code", {"target": "src/keys.py"}),
                        "outside": ("need_code", {"target": "../outside.py"}),
                        "malformed": ("need_code", {"target": 42}),
                        "missing_arg": ("search_code", {}),
                        "unknown_tool": ("no_such_tool", {}),
                        "search": ("search_code", {"query": "sum of ledger entries balance", "k": 5}),
                        "search_forbidden": ("search_code", {"query": "run payroll", "k": 50}),
                        "check": ("check_docs", {"paths": ["docs/ledger-design.md"]}),
                        "check_outside": ("check_docs", {"paths": ["../x.md"]}),
                        "other_issue": ("build_prompt", {"issue": "other.md"}),
                        "after": ("need_code", {"target": "src/ledger.py::format_amount"}),
                    }
                    for key, (name, args) in calls.items():
                        out[key] = await session.call_tool(name, args)

    anyio.run(main)
    return out


def test_server_over_stdio_serves_and_refuses(repo_factory):
    repo = repo_factory(FILES)
    out = _drive(repo, "--issue", "issue.md")

    tools = out["tools"]
    assert set(tools) == {"build_prompt", "need_code", "need_doc", "search_code", "check_docs", "report_outcome"}
    assert tools["need_code"].input_schema["required"] == ["target"]
    assert tools["search_code"].input_schema["properties"]["k"]["type"] == "integer"
    assert all(len(t.description) > 80 for t in tools.values())

    prompt = out["prompt"]
    assert not prompt.is_error
    text = prompt.content[0].text
    assert "issue issue" in text and "Ledger balance ignores negative memo entries" in text
    assert "src/ledger.py" in text
    # sized for the agent: the prompt, then one line with its size; the details only when asked
    summary = prompt.structured_content
    assert summary["issue"]["id"] == "issue" and "code" not in summary and "prompt" not in summary
    assert len(prompt.content) == 2 and summary["details_included"] is False
    assert re.fullmatch(r"\[prompt: [\d,]+ tokens of a 16,000-token budget; this answer: [\d,]+ tokens\. Details .* "
                        r"call build_prompt again with details: true to get them\.\]", prompt.content[1].text)
    assert summary["answer_tokens"] == sum(count_tokens(c.text) for c in prompt.content)
    full = out["prompt_details"]
    details = full.structured_content
    assert details["issue"]["id"] == "issue" and details["details_included"] is True
    assert all(row["path"] != "src/payroll.py" for row in details["code"])
    assert len(full.content) == 3 and json.loads(full.content[1].text)["code"] == details["code"]
    assert full.content[0].text == text and details["answer_tokens"] == sum(count_tokens(c.text) for c in full.content)
    assert summary["details_tokens"] == count_tokens(full.content[1].text)  # announced before it is asked for
    for key in ("code", "doc", "forbidden", "search", "check", "after"):  # every tool states its size
        result = out[key]
        tokens = result.structured_content["answer_tokens"]
        assert result.content[-1].text.startswith(f"[this answer: {tokens:,} tokens"), key
        assert tokens == sum(count_tokens(c.text) for c in result.content), key
    assert "NEED_CODE: src/ledger.py::Ledger.balance  (method, lines" in out["search"].content[0].text
    assert out["check"].content[0].text.startswith("1 doc(s) checked: ")
    assert not out["prompt2"].is_error and out["prompt2"].structured_content["tokens"]["total"] <= 3000

    code = out["code"]
    assert not code.is_error and code.structured_content["outcome"] == "served"
    assert "return sum(a for a, _m in self.entries)" in _text(code)
    doc = out["doc"]
    assert doc.structured_content["outcome"] == "served"
    assert "rounded to two decimals" in _text(doc)

    assert out["forbidden"].structured_content["outcome"] == "refused"
    assert "forbidden" in out["forbidden"].structured_content["items"][0]["reason"]
    assert "def run_payroll" not in _text(out["forbidden"])
    assert out["secret_path"].structured_content["outcome"] == "refused"
    assert "hunter2" not in _text(out["secret_path"])
    assert out["secret_text"].structured_content["outcome"] == "refused"
    assert "Zq8Rt2Lm9Xc4" not in _text(out["secret_text"])
    assert out["outside"].structured_content["outcome"] == "refused"
    assert "'..' is not allowed" in out["outside"].structured_content["items"][0]["reason"]

    for key in ("malformed", "missing_arg", "unknown_tool", "check_outside", "other_issue"):
        assert out[key].is_error, key
    assert "'..' is not allowed" in _text(out["check_outside"])
    assert "this server serves issue issue" in _text(out["other_issue"])

    found = out["search"].structured_content["results"]
    assert found and found[0]["path"] == "src/ledger.py" and found[0]["symbol"] == "Ledger.balance"
    assert found[0]["request"] == "NEED_CODE: src/ledger.py::Ledger.balance"
    scores = [r["score"] for r in found]  # best first, one row per definition
    assert scores == sorted(scores, reverse=True)
    assert len({(r["path"], r["symbol"], r["start_line"]) for r in found}) == len(found)
    assert all(r["path"] not in ("src/payroll.py", "src/keys.py") for r in out["search_forbidden"].structured_content["results"])

    check = out["check"].structured_content
    assert not out["check"].is_error and isinstance(check["findings"], list)
    assert [d["path"] for d in check["docs"]] == ["docs/ledger-design.md"]

    # the server survived every bad call and still answers
    assert out["after"].structured_content["outcome"] == "served"
    assert "def format_amount" in _text(out["after"])


def test_server_without_issue_needs_one_and_sees_edits(repo_factory):
    repo = repo_factory(FILES)
    # Files changed in the last 2 s are fingerprinted by content, older ones by stat: make every
    # file old now, so the fingerprint cannot switch between two calls for that reason alone.
    old = time.time() - 60
    for path in repo.rglob("*"):
        if ".git" not in path.parts:
            os.utime(path, (old, old))
    out: dict = {}

    async def main() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(_params(repo, "--no-warm"), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    out["no_issue"] = await session.call_tool("build_prompt", {})
                    out["before"] = await session.call_tool("need_code", {"target": "src/ledger.py::Ledger.reset"})
                    out["prompt_a"] = await session.call_tool("build_prompt", {"issue": "issue.md"})
                    out["prompt_b"] = await session.call_tool("build_prompt", {"issue": "issue.md"})
                    (repo / "src" / "ledger.py").write_text(
                        FILES["src/ledger.py"] + "\n\nclass Journal(Ledger):\n    def reset(self):\n        self.entries = []\n")
                    out["after"] = await session.call_tool("need_code", {"target": "src/ledger.py::Journal.reset"})
                    out["payroll"] = await session.call_tool("need_code", {"target": "src/payroll.py"})
                    out["prompt"] = await session.call_tool("build_prompt", {"issue": "issue.md", "details": True})

    anyio.run(main)
    assert out["no_issue"].is_error and "issue is required" in _text(out["no_issue"])
    assert out["before"].structured_content["outcome"] == "not found"
    assert out["after"].structured_content["outcome"] == "served" and "def reset" in _text(out["after"])
    # without --issue no manifest governs the server, so the file is served
    assert out["payroll"].structured_content["outcome"] == "served"
    # the same state gives the same prompt, built once; an edited file makes a new one
    a, b, c = (out[k].structured_content for k in ("prompt_a", "prompt_b", "prompt"))
    assert (a["reused"], b["reused"], c["reused"]) == (False, True, False)
    ta, tb, tc = (out[k].content[0].text for k in ("prompt_a", "prompt_b", "prompt"))
    assert ta == tb and "class Journal" not in ta and "class Journal" in tc
    # the issue's own manifest still governs its prompt
    assert not out["prompt"].is_error
    assert all(row["path"] != "src/payroll.py" for row in c["code"])
    json.dumps(out["prompt"].structured_content)  # plain JSON all the way down


def test_stdout_holds_only_protocol_messages(repo_factory):
    """Raw JSON-RPC over a pipe: every stdout line is a JSON-RPC message, logs go to stderr."""
    import subprocess

    repo = repo_factory(FILES)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "build_prompt", "arguments": {"issue": "issue.md"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "need_code", "arguments": {"target": 7}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "need_doc", "arguments": {"target": "ledger-design"}}},
    ]
    params = _params(repo)
    proc = subprocess.Popen([params.command, *params.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=repo, env={**os.environ, **params.env})
    replies = []
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        while len([r for r in replies if "id" in r]) < 4:  # the stdin stays open until every answer is in
            line = proc.stdout.readline()
            if not line:
                break
            replies.append(json.loads(line))  # a stray print would fail here
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=60)
    assert all(r.get("jsonrpc") == "2.0" for r in replies)
    by_id = {r["id"]: r for r in replies if "id" in r}
    assert set(by_id) == {1, 2, 3, 4}
    assert not by_id[2]["result"].get("isError") and "Ledger" in by_id[2]["result"]["content"][0]["text"]
    assert by_id[3]["result"]["isError"] is True
    assert "Amounts are rounded to two decimals" in by_id[4]["result"]["content"][0]["text"]


def test_search_code_ranks_by_score_not_by_the_prompt_packers_file_order(repo_factory):
    """The packer shows one item per file first; a search answer is best first. On flask the
    packer's order put `locate_app` 11th for "load app from FLASK_APP import string"."""
    from noface_ctx.config import load_config
    from noface_ctx.mcp_server import Workspace

    repo = repo_factory({
        ".noface.toml": "[context]\nembeddings = false\n",
        "src/cli.py": (
            "def load_app(info):\n    \"\"\"Load the app from the FLASK_APP import string.\"\"\"\n"
            "    return locate_app(info.import_string, info.app_name)\n\n\n"
            "def locate_app(import_string, app_name):\n    \"\"\"Import the module named by the import string "
            "and find the app in it.\"\"\"\n    module = __import__(import_string)\n    return getattr(module, app_name)\n"
        ),
        "src/jsonish.py": "def load(fp):\n    \"\"\"Load JSON from a file.\"\"\"\n    return fp.read()\n",
        "src/config.py": "def from_envvar(name):\n    \"\"\"Load config from a file named by an environment variable.\"\"\"\n    return name\n",
    })
    found = Workspace(load_config(repo)).search_code("load app from FLASK_APP import string", k=2)["results"]
    assert [(r["path"], r["symbol"]) for r in found] == [("src/cli.py", "load_app"), ("src/cli.py", "locate_app")]
