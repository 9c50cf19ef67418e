"""What an MCP tool sends back: text sized for the agent, details only when asked, sizes stated.

A tool result has two parts: `content`, the text the client hands to the model, and
`structuredContent`, the JSON a program reads. An agent pays for every token of `content`, so it
holds the answer itself (the prompt, the requested code, the search rows, the linter lines) and
one line stating its size in tokens; the JSON rows go in `structuredContent`. `build_prompt`'s
details (the ranking, omitted and excluded files: about 10k tokens on flask for a 16k prompt) are
sent only with `details: true`, and the size line says how large they would be before they are
asked for. Nothing here decides what is served: it only shapes what the workspace returned.
"""

from __future__ import annotations

import json
from typing import Any

from noface_ctx._tokens import count_tokens
from noface_ctx._wording_mcp import (
    NO_RESULTS,
    answer_size,
    check_summary,
    outcome_recorded,
    prompt_size,
    search_row,
)

MAX_EXCLUDED_LISTED = 50
SUMMARY_KEYS = ("version", "issue", "tokens", "warnings", "seconds", "reused")


def shape(tool: str, data: dict[str, Any], *, details: bool = False) -> tuple[list[str], dict[str, Any]]:
    """(texts for `content`, the `structuredContent` object) of one tool's answer."""
    if tool == "build_prompt":
        return _prompt(data, details)
    if tool in ("need_code", "need_doc"):
        texts, budget = [str(data.get("text", ""))], int(data.get("budget") or 0)
    elif tool == "search_code":
        rows = [search_row(r["request"], r["kind"], r["start_line"], r["end_line"], r["score"]) for r in data["results"]]
        texts, budget = ["\n".join(rows) or NO_RESULTS], 0
    elif tool == "check_docs":
        errors = sum(1 for f in data["findings"] if f.get("severity") == "error")
        head = check_summary(len(data["docs"]), errors, len(data["findings"]) - errors)
        texts, budget = ["\n".join([head, *data["lines"]])], 0
    else:  # report_outcome
        texts, budget = [outcome_recorded(data["issue"], data["outcome"])], 0
    tokens = _sized(texts, lambda n: answer_size(n, budget))
    return texts, {**data, "answer_tokens": tokens}


def _prompt(data: dict[str, Any], details: bool) -> tuple[list[str], dict[str, Any]]:
    """The prompt text and its size line; the details as JSON only when asked."""
    full = compact(data)
    rest = {k: v for k, v in full.items() if k != "prompt"}
    details_text = json.dumps(rest, ensure_ascii=False)
    details_tokens = count_tokens(details_text)
    tokens = data.get("tokens") or {}
    texts = [str(data.get("prompt", ""))] + ([details_text] if details else [])
    answer = _sized(texts, lambda n: prompt_size(int(tokens.get("total", 0)), int(tokens.get("budget", 0)), n,
                                                details_tokens, details=details))
    # without details the prompt is in `content` only: a client that shows the model both parts
    # would otherwise send it twice
    structured = full if details else {k: data[k] for k in SUMMARY_KEYS if k in data}
    structured = {**structured, "answer_tokens": answer, "details_tokens": details_tokens, "details_included": details}
    return texts, structured


def _sized(texts: list[str], line: Any) -> int:
    """Append the size line to `texts` and return the answer's size in tokens, that line included."""
    body = sum(count_tokens(t) for t in texts)
    estimate = body + count_tokens(line(body))
    texts.append(line(estimate))
    return body + count_tokens(texts[-1])


def compact(details: dict[str, Any]) -> dict[str, Any]:
    """`Prompt.to_dict()` with `excluded` cut to its first entries plus counts by category: on a
    large repository the full list is most of the payload (175 KB of 300 KB on django) and an
    agent needs the why, not every vendored file."""
    excluded = details.get("excluded") or []
    if len(excluded) <= MAX_EXCLUDED_LISTED:
        return details
    by_category: dict[str, int] = {}
    for row in excluded:
        cat = str(row.get("category") or row.get("reason") or "other") if isinstance(row, dict) else "other"
        by_category[cat] = by_category.get(cat, 0) + 1
    return {**details, "excluded": excluded[:MAX_EXCLUDED_LISTED], "excluded_total": len(excluded),
            "excluded_by_category": by_category}
