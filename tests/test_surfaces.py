"""One set of rules, four surfaces: the CLI, the Python API, `signals --resolve` and the MCP tools.

Each rule (symbol lookup, missing paths, refusals, issue paths) is one test parametrised over the
four surfaces, on one real git repository. A surface is a small adapter turning the rule's
questions ("fetch this code", "check these paths", "build the prompt for this issue") into its own
calls: `main([...])` for the CLI and `signals --resolve`, the package's functions for the API, the
official `mcp` client over stdio for the server (one session per test, every question in it).
"""

from __future__ import annotations

import io
import json
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from noface_ctx._wording_answers import NOT_SERVED
from noface_ctx.cli import main
from noface_ctx.errors import NofaceError

ROOT = Path(__file__).resolve().parents[1]
SURFACES = ("cli", "api", "signals", "mcp")

FILES = {
    ".noface.toml": '[project]\nname = "shop"\n\n[context]\nembeddings = false\n',
    "src/shop/__init__.py": "",
    "src/shop/base.py": (
        "class Store:\n"
        "    \"\"\"A place that keeps a catalogue.\"\"\"\n\n"
        "    def register_item(self, name, price):\n"
        "        \"\"\"Add an item to the catalogue.\"\"\"\n"
        "        if price < 0:\n"
        "            raise ValueError('STORE_NEGATIVE_PRICE')\n"
        "        self.items[name] = price\n"
        "        return name\n"
    ),
    "src/shop/app.py": (
        "from shop.base import Store\n\n\n"
        "class Shop(Store):\n"
        "    \"\"\"The shop front.\"\"\"\n\n"
        "    def open(self):\n"
        "        self.items = {}\n"
    ),
    "src/shop/loader.py": (
        "import typing as t\n\n\n"
        "@t.overload\n"
        "def locate_shop(name: str) -> str: ...\n\n\n"
        "@t.overload\n"
        "def locate_shop(name: None) -> None: ...\n\n\n"
        "def locate_shop(name):\n"
        "    \"\"\"Find a shop by its import name.\"\"\"\n"
        "    return LOCATE_IMPLEMENTATION.get(name)\n"
    ),
    "src/shop/payments.py": "def charge(card):\n    return PAYMENTS_BODY\n",
    "src/keys.py": "TOKEN = 'ghp_" + "Zq8Rt2Lm9Xc4Vb7Nk1Jh6Gf3Ds5Aw0Pe2Ty8Ui'\n",
    ".env": "PASSWORD=hunter2\n",
    "docs/catalogue.md": "# Catalogue\n\nItems are added with `Store.register_item`; shops are found by `locate_shop`.\n",
    "issues/free-items.md": (
        "# Shop.register_item refuses free items\n\n`Shop.register_item` raises for a price of 0 given to "
        "`locate_shop` shops; `register_item` should accept 0.\n\n"
        "MANIFEST: primary=[src/shop/base.py] forbidden=[src/shop/payments.py]\n"
    ),
}


@dataclass
class Reply:
    """What a surface answered: an error (with its message), or an outcome and the text served."""

    error: str = ""
    outcome: str = ""
    text: str = ""


# --------------------------------------------------------------------------- the four adapters


def _cli(repo: Path, argv: list[str], stdin: str = "") -> Reply:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*argv[:1], "--repo", str(repo), *argv[1:]], stdin=io.StringIO(stdin))
    if code == 2:
        return Reply(error=err.getvalue().strip())
    return Reply(outcome=f"exit {code}", text=out.getvalue())


def _as_reply(answer: dict) -> Reply:
    items = answer.get("items") or [{}]
    return Reply(outcome=items[0].get("outcome", ""), text=answer.get("text", ""))


class Local:
    """The CLI, the API and `signals --resolve`, answering in this process."""

    def __init__(self, surface: str, repo: Path, issue: str | None) -> None:
        self.surface, self.repo, self.issue = surface, repo, issue

    def ask(self, questions: list[tuple[str, object]]) -> list[Reply]:
        return [self._one(kind, arg) for kind, arg in questions]

    def _one(self, kind: str, arg: object) -> Reply:
        from noface_ctx import build_prompt, check_docs, resolve_requests

        s, repo = self.surface, self.repo
        issue_args = ["--issue", self.issue] if self.issue else []
        if kind == "code" and s == "signals":
            reply = _cli(repo, ["signals", "-", "--resolve", "--json", *issue_args], stdin=f"NEED_CODE: {arg}\n")
            return reply if reply.error else _as_reply(json.loads(reply.text))
        if kind == "code" and s == "cli":  # the text an orchestrator pastes into the next turn
            reply = _cli(repo, ["signals", "-", "--resolve", *issue_args], stdin=f"NEED_CODE: {arg}\n")
            not_served = reply.text.partition(NOT_SERVED)[2]
            reply.outcome = next((o for o in ("not found", "refused") if f"— {o}:" in not_served), "served")
            return reply
        if kind == "check" and s in ("cli", "signals"):
            return _cli(repo, ["check-docs", *list(arg)])  # type: ignore[call-overload]
        if kind == "prompt" and s in ("cli", "signals"):
            return _cli(repo, ["preview", str(arg), "-q", "--no-embed"])
        try:
            if kind == "code":
                answer = resolve_requests(f"NEED_CODE: {arg}", repo=repo, issue=self.issue)  # agent output
                return _as_reply(dict(answer.to_dict()))
            if kind == "check":
                report = check_docs(list(arg), repo=repo)  # type: ignore[call-overload]
                return Reply(outcome=f"exit {report.exit_code}", text="\n".join(report.lines()))
            return Reply(outcome="built", text=build_prompt(str(arg), repo=repo, embed=False).text)
        except NofaceError as exc:
            return Reply(error=str(exc))


class Remote:
    """The MCP server in a subprocess, asked through the official client over stdio."""

    TOOLS: ClassVar[dict[str, tuple[str, str]]] = {"code": ("need_code", "target"), "check": ("check_docs", "paths"), "prompt": ("build_prompt", "issue")}

    def __init__(self, repo: Path, issue: str | None, *extra: str) -> None:
        self.repo, self.args = repo, [*(["--issue", issue] if issue else []), *extra]

    def ask(self, questions: list[tuple[str, object]]) -> list[Reply]:
        import anyio
        from mcp.client.session import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "XDG_CACHE_HOME", "NOFACE_CTX_CACHE_DIR")}
        env["PYTHONPATH"] = str(ROOT)
        params = StdioServerParameters(command=sys.executable, env=env, cwd=str(self.repo),
                                       args=["-m", "noface_ctx", "mcp", "--repo", str(self.repo), "--no-warm", *self.args])
        replies: list[Reply] = []

        async def session_main() -> None:
            with open(os.devnull, "w") as errlog:
                async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                    await session.initialize()
                    for kind, arg in questions:
                        tool, key = self.TOOLS[kind]
                        result = await session.call_tool(tool, {key: arg})
                        text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
                        if result.is_error:
                            replies.append(Reply(error=text))
                        elif kind == "code":
                            replies.append(Reply(outcome=result.structured_content["outcome"], text=text))
                        elif kind == "check":
                            replies.append(Reply(outcome=f"exit {result.structured_content['exit_code']}", text=text))
                        else:
                            replies.append(Reply(outcome="built", text=text))

        anyio.run(session_main)
        return replies


def surface(name: str, repo: Path, issue: str | None = None, *extra: str) -> Local | Remote:
    if name == "mcp":
        pytest.importorskip("mcp")
        return Remote(repo, issue, *extra)
    return Local(name, repo, issue)


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    from conftest import make_repo

    return make_repo(tmp_path_factory.mktemp("surfaces") / "shop", FILES)


# --------------------------------------------------------------------------- the rules


@pytest.mark.parametrize("name", SURFACES)
def test_symbol_lookup_serves_implementations_and_inherited_methods(name, shop):
    inherited, by_path, bare, bare_call, unknown = surface(name, shop).ask([
        ("code", "Shop.register_item"),          # no path: the class's file, then its bases
        ("code", "src/shop/loader.py::locate_shop"),  # two @overload stubs, then the body
        ("code", "locate_shop"),
        ("code", "Shop.register_item()"),
        ("code", "Shop.close_for_good"),
    ])
    assert inherited.outcome == "served" and "STORE_NEGATIVE_PRICE" in inherited.text
    assert "inherited: defined in Store (src/shop/base.py:4)" in inherited.text
    for reply in (by_path, bare):
        assert reply.outcome == "served" and "LOCATE_IMPLEMENTATION" in reply.text
        assert "2 @overload signature(s) of locate_shop not shown: NEED_CODE: src/shop/loader.py:4-5, " \
               "src/shop/loader.py:8-9" in reply.text
    assert bare_call.outcome == "served" and "STORE_NEGATIVE_PRICE" in bare_call.text
    assert unknown.outcome == "not found" and "no definition named Shop.close_for_good" in unknown.text


@pytest.mark.parametrize("name", SURFACES)
def test_a_missing_path_is_an_error_everywhere(name, shop):
    check, check_ok, code, prompt = surface(name, shop).ask([
        ("check", ["docs/nope.rst"]),
        ("check", ["docs/catalogue.md"]),
        ("code", "src/shop/nope.py"),
        ("prompt", "issues/nope.md"),
    ])
    assert "docs/nope.rst" in check.error and "no such file" in check.error, check
    assert not check_ok.error and check_ok.outcome == "exit 0"
    assert code.outcome == "not found" and "no such file" in code.text
    assert "issues/nope.md" in prompt.error and "not found" in prompt.error, prompt


@pytest.mark.parametrize("name", SURFACES)
def test_refusals_are_the_same_everywhere(name, shop):
    forbidden, secret_name, secret_text, outside = surface(name, shop, "issues/free-items.md").ask([
        ("code", "src/shop/payments.py::charge"),
        ("code", ".env"),
        ("code", "src/keys.py"),
        ("code", "../outside.py"),
    ])
    assert forbidden.outcome == "refused" and "forbidden by the issue manifest" in forbidden.text
    assert "PAYMENTS_BODY" not in forbidden.text
    assert secret_name.outcome == "refused" and "hunter2" not in secret_name.text
    assert secret_text.outcome == "refused" and "Zq8Rt2Lm9Xc4" not in secret_text.text
    assert outside.outcome == "refused" and "'..' is not allowed" in outside.text


REFUND = ("# Refunds are lost when a shop closes\n\n`Shop.register_item` keeps no refund record.\n\n"
          "MANIFEST: primary=[src/shop/base.py] forbidden=[src/shop/payments.py]\n")


@pytest.mark.parametrize("name", SURFACES)
def test_issue_paths_a_person_names_any_file_an_agent_only_in_the_repository_or_issues_folder(name, shop, tmp_path):
    """Files the user names (CLI arguments, the API, `signals --issue`, `mcp --issue`,
    `mcp --issues-dir`) in any form, absolute included; a file an agent names over MCP only in
    the repository or that folder, past the reader gate, with an error saying how to allow it."""
    outside = tmp_path / "notes" / "refund.md"
    outside.parent.mkdir()
    outside.write_text(REFUND)
    if name in ("cli", "api"):
        [prompt] = surface(name, shop).ask([("prompt", str(outside))])
        assert not prompt.error and "Refunds are lost when a shop closes" in prompt.text
        assert "PAYMENTS_BODY" not in prompt.text
        return
    if name == "signals":
        [code] = surface(name, shop, str(outside)).ask([("code", "src/shop/payments.py")])
        assert code.outcome == "refused" and "forbidden by the issue manifest" in code.text  # its manifest governs
        return
    [pinned] = surface(name, shop, str(outside)).ask([("prompt", None)])
    assert not pinned.error and "Refunds are lost when a shop closes" in pinned.text
    agent_outside, agent_in_repo = surface(name, shop).ask([("prompt", str(outside)), ("prompt", "issues/free-items.md")])
    assert "mcp --issues-dir DIR" in agent_outside.error and "Refunds" not in agent_outside.error
    assert not agent_in_repo.error and "Shop.register_item refuses free items" in agent_in_repo.text
    tracker = tmp_path / "tracker"
    tracker.mkdir()
    (tracker / "refund.md").write_text(REFUND)
    (tracker / "keys.md").write_text("# Rotate\n\nTOKEN = 'ghp_" + "Zq8Rt2Lm9Xc4Vb7Nk1Jh6Gf3Ds5Aw0Pe2Ty8Ui'\n")
    by_name, by_path, elsewhere, secret = surface(name, shop, None, "--issues-dir", str(tracker)).ask([
        ("prompt", "refund.md"), ("prompt", str(tracker / "refund.md")), ("prompt", str(outside)), ("prompt", "keys.md")])
    for reply in (by_name, by_path):
        assert not reply.error and "Refunds are lost when a shop closes" in reply.text
    assert "refused" in elsewhere.error and "not inside the issues folder" in elsewhere.error
    assert "refused" in secret.error and "secret" in secret.error and "Zq8Rt2" not in secret.error
