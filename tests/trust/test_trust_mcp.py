"""The ledger and outcomes through the MCP server: every tool answer is recorded, `report_outcome`
weighs against the docs served in full, a quarantined doc is withheld (official stdio client)."""

from __future__ import annotations

import os

import anyio
import pytest

pytest.importorskip("mcp")

from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from test_mcp_server import FILES, _params

from noface_ctx.cli import main

ISSUES = {
    f"issue{n}.md": f"# Ledger balance wrong for void entries ({n})\n\nThe `Ledger` balance should skip void "
                    "entries. See [[ledger-design]].\n"
    for n in (1, 2, 3)
}


def _session(repo, calls):
    out = []

    async def run() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(_params(repo), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    for name, args in calls:
                        out.append(await session.call_tool(name, args))

    anyio.run(run)
    return out


def test_mcp_answers_are_recorded_and_outcomes_quarantine(repo_factory, capsys):
    repo = repo_factory({**FILES, **ISSUES})
    first, code, search, bad, outcome1, _p2, outcome2, third, doc = _session(repo, [
        ("build_prompt", {"issue": "issue1.md", "details": True}),
        ("need_code", {"target": "src/ledger.py::Ledger.balance"}),
        ("search_code", {"query": "format amount", "k": 2}),
        ("report_outcome", {"outcome": "maybe", "issue": "issue1"}),
        ("report_outcome", {"outcome": "failed", "issue": "issue1", "note": "tests red"}),
        ("build_prompt", {"issue": "issue2.md"}),
        ("report_outcome", {"outcome": "failed", "issue": "issue2"}),
        ("build_prompt", {"issue": "issue3.md", "details": True}),
        ("need_doc", {"target": "ledger-design"}),
    ])
    rows = {d["path"]: d for d in first.structured_content["docs"]}
    assert rows["docs/ledger-design.md"]["included"] and rows["docs/ledger-design.md"]["form"] == "full"
    assert not code.is_error and not search.is_error
    assert bad.is_error and not outcome1.is_error and outcome1.structured_content["outcome"] == "failed"

    held = {d["path"]: d for d in third.structured_content["docs"]}["docs/ledger-design.md"]
    assert held["trust"]["quarantined"] and not held["included"]
    assert "noface-ctx trust docs/ledger-design.md" in third.content[0].text
    assert doc.structured_content["outcome"] == "refused"

    capsys.readouterr()
    assert main(["why", "issue1", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "turn 1 (mcp" in out and "build_prompt" in out and "docs/ledger-design.md" in out
    assert "turn 2 (mcp" in out and "need_code" in out and "src/ledger.py:9-10" in out
    assert "turn 3 (mcp" in out and "search_code" in out
    assert "outcome: failed (mcp" in out and "tests red" in out
