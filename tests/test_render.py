"""Prompt text: noface's section layout, manifest and commands, issue truncation, omitted lines."""

from __future__ import annotations

import re
from pathlib import Path

from noface_ctx._budget import select
from noface_ctx._render import (
    NO_CODE,
    NO_DOCS,
    NOTHING_OMITTED,
    fixed_sections,
    frame_tokens,
    render_prompt,
)
from noface_ctx._tokens import count_tokens
from noface_ctx.config import Config
from noface_ctx.datatypes import Candidate, Form, Issue, Manifest, ManifestEntry, Selection
from noface_ctx.signals.parse import parse_signals

SECTIONS = ["ISSUE:", "MANIFEST", "COMMANDS:", "DESIGN CONTEXT:", "CODE CONTEXT:", "OMITTED CONTEXT:",
            "WORKFLOW:", "CONSTRAINTS:", "CONTEXT REQUESTS:"]

CONFIG = Config(root=Path("/tmp/demo"), project_name="demo", build_cmd="make", test_cmd="make test")
MANIFEST = Manifest(
    primary=(ManifestEntry("src/app.py"), ManifestEntry("tests/test_app.py")),
    read=(ManifestEntry("src/util.py", 10, 40),),
    forbidden=(ManifestEntry(".ci/run"),),
    source="beads comment 2",
)
ISSUE = Issue(
    id="demo-7",
    title="Retry failed uploads",
    description="Uploads fail on flaky networks.\nRetry them with backoff.",
    design="Use the existing scheduler.",
    acceptance_criteria="- a failed upload is retried 3 times",
    comments=("MANIFEST: primary=[src/app.py]", "Seen in production on 2026-11-01."),
    issue_type="bug",
    labels=("uploads",),
    source=".beads/issues.jsonl",
    manifest=MANIFEST,
)


def block(label: str, header: str, n: int) -> Form:
    text = f"{header}\n" + " ".join(["retry"] * n)
    return Form(label, text, count_tokens(text))


def labels_in_order(text: str) -> list[str]:
    found = [(text.index(s), s) for s in SECTIONS]
    return [s for _, s in sorted(found)]


def test_sections_appear_once_in_noface_order_after_the_role_line():
    fixed = fixed_sections(CONFIG, ISSUE, budget=8000)
    text = render_prompt(fixed, None)
    assert text.startswith("You are a senior software engineer working autonomously on issue demo-7 in the demo project.\n")
    assert labels_in_order(text) == SECTIONS
    for label in SECTIONS:
        assert text.count("\n" + label) == 1
    assert re.findall(r"^([A-Z][A-Z ]+):", text, flags=re.M) == [
        "ISSUE", "MANIFEST", "COMMANDS", "DESIGN CONTEXT", "CODE CONTEXT", "OMITTED CONTEXT",
        "WORKFLOW", "CONSTRAINTS", "CONTEXT REQUESTS"]


def test_issue_manifest_and_commands_are_rendered_from_their_sources():
    text = render_prompt(fixed_sections(CONFIG, ISSUE, budget=8000), None)
    assert "demo-7: Retry failed uploads\nType: bug · Labels: uploads" in text
    assert "Description:\nUploads fail on flaky networks.\nRetry them with backoff." in text
    assert "Design:\nUse the existing scheduler." in text
    assert "Acceptance criteria:\n- a failed upload is retried 3 times" in text
    assert "Comments:\n- Seen in production on 2026-11-01." in text
    assert "primary=[src/app.py]" not in text  # MANIFEST comments are not issue prose
    assert "MANIFEST: (from beads comment 2)\nEditable: src/app.py, tests/test_app.py\n" in text
    assert "Read-only: src/util.py:10-40\nForbidden (never read or modify): .ci/run" in text
    assert "COMMANDS:\n- build: make\n- test: make test" in text
    assert "Never read, modify or delete a forbidden file: .ci/run." in text
    assert "Build and run `make test`" in text


def test_no_manifest_and_no_commands_say_so():
    issue = Issue(id="x-1", title="t")
    text = render_prompt(fixed_sections(Config(root=Path("/tmp/x")), issue, budget=4000), None)
    assert "MANIFEST:\nNo manifest for this issue" in text
    assert "- build: (none configured)" in text
    assert "in the x project." in text


def test_empty_context_sections_say_why_in_one_line():
    text = render_prompt(fixed_sections(CONFIG, ISSUE, budget=8000), None, no_docs="none selected: the repository has no design docs")
    assert "DESIGN CONTEXT:\nnone selected: the repository has no design docs\n\nCODE CONTEXT:\n" + NO_CODE in text
    assert f"OMITTED CONTEXT:\n{NOTHING_OMITTED}\n\nWORKFLOW:" in text


def test_chosen_blocks_clash_notes_and_omitted_lines():
    fixed = fixed_sections(CONFIG, ISSUE, budget=8000)
    docs = [Candidate("doc", "docs/retry.md", "retry", "Retry", (block("full", "### doc: retry", 50),), 0.9, "NEED_DOC: retry")]
    code = [Candidate("code", "src/app.py", "upload", "upload", (block("full", "### src/app.py:1-9 upload", 30),), 0.8,
                      "NEED_CODE: src/app.py:1-9", start_line=1, end_line=9),
            Candidate("code", "src/big.py", "Huge", "Huge", (block("full", "### big", 5000),), 0.7,
                      "NEED_CODE: src/big.py:1-900", start_line=1, end_line=900)]
    sel = select(docs, code, available=2000, docs_share=0.4, max_docs=3)
    text = render_prompt(fixed, sel, clashes=["retry.md says 5 retries; backoff.md says 3"])
    design = text.split("DESIGN CONTEXT:\n", 1)[1].split("\n\nCODE CONTEXT:", 1)[0]
    assert design.startswith("Conflicts between these docs (prefer the current code):\n- retry.md says 5 retries")
    assert "### doc: retry" in design
    code_part = text.split("CODE CONTEXT:\n", 1)[1].split("\n\nOMITTED CONTEXT:", 1)[0]
    assert code_part.startswith("### src/app.py:1-9 upload")
    assert "- code src/big.py (Huge) — relevant, but needs " in text
    assert "\n  NEED_CODE: src/big.py:1-900\n" in text
    # The only request an agent-output parser finds in the prompt is the omitted item's line:
    # the contract's examples are written inline, not on lines of their own.
    assert [r.signal for r in parse_signals(text)] == ["NEED_CODE: src/big.py:1-900"]


def test_the_contract_explains_both_request_forms_without_emitting_one():
    text = render_prompt(fixed_sections(CONFIG, ISSUE, budget=8000), None)
    contract = text.split("CONTEXT REQUESTS:\n", 1)[1]
    for form in ("`NEED_CODE: path`", "`NEED_CODE: path:start-end`", "`NEED_DOC: slug`", "on a line of its own"):
        assert form in contract
    assert parse_signals(text) == []


def test_a_huge_issue_is_cut_at_a_line_boundary_with_a_marker():
    log = "\n".join(f"ERROR worker {i}: connection reset by peer while uploading chunk {i}" for i in range(3000))
    issue = Issue(id="big-1", title="Crash", description="Crash on upload.\n" + log,
                  acceptance_criteria="- no crash", source="issue.md")
    fixed = fixed_sections(CONFIG, issue, budget=10000)
    section = fixed.head.split("ISSUE:\n", 1)[1].split("\n\nMANIFEST", 1)[0]
    assert fixed.issue_tokens <= 4000
    assert fixed.issue_cut > 30000
    assert "Acceptance criteria:\n- no crash" in section
    m = re.search(r"\[issue text truncated: (\d+) more tokens; the full issue is issue.md\]", section)
    assert m and int(m.group(1)) == fixed.issue_cut
    before = section[: m.start()].rstrip("\n").splitlines()[-1]
    assert re.fullmatch(r"ERROR worker \d+: connection reset by peer while uploading chunk \d+", before)


def test_a_single_huge_line_is_cut_at_a_space():
    issue = Issue(id="big-2", title="Wall of text", description=" ".join(["lorem"] * 20000))
    fixed = fixed_sections(CONFIG, issue, budget=5000)
    assert fixed.issue_tokens <= 2000
    assert "lorem lorem\n[issue text truncated:" in fixed.head
    assert "the full issue is issue big-2]" in fixed.head


def test_a_small_issue_is_never_cut_and_a_tighter_limit_cuts_it():
    fixed = fixed_sections(CONFIG, ISSUE, budget=8000)
    assert fixed.issue_cut == 0 and "truncated" not in fixed.head
    tight = fixed_sections(CONFIG, ISSUE, budget=8000, issue_limit=10)
    assert tight.issue_cut > 0
    assert "demo-7: Retry failed uploads" in tight.head


def test_frame_tokens_is_the_empty_prompt_and_bounds_a_filled_one():
    fixed = fixed_sections(CONFIG, ISSUE, budget=8000)
    frame = frame_tokens(fixed)
    assert frame > count_tokens(render_prompt(fixed, None))  # reserves the OMITTED intro line too
    docs = [Candidate("doc", "docs/d.md", "d", "D", (block("full", "### d", 300),), 0.9, "NEED_DOC: d")]
    sel = select(docs, [], available=8000 - frame, docs_share=0.5, max_docs=2)
    assert count_tokens(render_prompt(fixed, sel)) <= frame + sel.docs[0].form.tokens + 4


def test_selection_none_and_empty_selection_render_the_same():
    fixed = fixed_sections(CONFIG, ISSUE, budget=8000)
    empty = Selection(docs=(), code=(), omitted=(), budget=0, docs_budget=0, code_budget=0)
    assert render_prompt(fixed, empty) == render_prompt(fixed, None)
    assert NO_DOCS in render_prompt(fixed, empty)
