"""What a prompt, a `NEED_*` answer or an MCP tool served, as ledger rows, and writing them.

`run` and the MCP server call these for every prompt and answer; `preview` only with `--record`.
Each row carries the file's git blob id at the time it was served, so a later edit of that file
is a different piece of context (`noface_ctx.trust.effects`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noface_ctx.trust.ledger import Ledger, ServedRow, blob_sha

if TYPE_CHECKING:
    from noface_ctx.config import Config
    from noface_ctx.datatypes import Prompt
    from noface_ctx.signals.values import Answer

__all__ = ["answer_rows", "location_rows", "prompt_rows", "record_answer", "record_prompt"]


def prompt_rows(prompt: Prompt, root: str | Path) -> list[ServedRow]:
    """One row per doc and code item the prompt includes, with its lines, tokens, score and reason."""
    blobs = _Blobs(root)
    rows = []
    for doc in prompt.docs:
        if not doc.get("included"):
            continue
        start, end = _span(doc.get("ranges") or [])
        rows.append(ServedRow("doc", str(doc.get("path", "")), str(doc.get("slug", "")), blobs(str(doc.get("path", ""))),
                              start, end, int(doc.get("tokens", 0) or 0), _float(doc.get("score")),
                              str(doc.get("form", "")), str(doc.get("reason", ""))))
    for code in prompt.code:
        path = str(code.get("path", ""))
        rows.append(ServedRow("code", path, str(code.get("symbol", "") or ""), blobs(path),
                              int(code.get("start_line", 0) or 0), int(code.get("end_line", 0) or 0),
                              int(code.get("tokens", 0) or 0), _float(code.get("score")),
                              str(code.get("form", "")), str(code.get("reason", ""))))
    return rows


def answer_rows(answer: Answer, root: str | Path, via: str = "answer") -> list[ServedRow]:
    """One row per request the answer served (in full or in part); refusals serve nothing."""
    blobs = _Blobs(root)
    rows = []
    for item in answer.items:
        if item.outcome not in ("served", "partial") or not item.path:
            continue
        start, end = _span(item.ranges)
        reason = item.request.signal + (f" ({item.reason})" if item.reason else "")
        rows.append(ServedRow(item.request.kind, item.path, item.request.symbol or item.request.heading,
                              blobs(item.path), start, end, item.tokens, None, item.form, reason, via))
    return rows


def record_prompt(config: Config, prompt: Prompt, *, turn: int, source: str) -> None:
    Ledger.of(config).record_served(prompt.issue.id, turn, source, prompt_rows(prompt, config.root), root=config.root)


def record_answer(config: Config, issue: str, answer: Answer, *, turn: int, source: str, via: str = "answer") -> None:
    Ledger.of(config).record_served(issue, turn, source, answer_rows(answer, config.root, via), root=config.root)


def location_rows(rows: Iterable[Mapping[str, Any]], root: str | Path, via: str) -> list[ServedRow]:
    """`search_code` results (path, symbol, lines, score, reasons): locations served, no text."""
    blobs = _Blobs(root)
    return [ServedRow("code", str(r.get("path", "")), str(r.get("symbol", "") or ""), blobs(str(r.get("path", ""))),
                      int(r.get("start_line", 0) or 0), int(r.get("end_line", 0) or 0), 0,
                      _float(r.get("score")), "location", "; ".join(r.get("reasons", []) or []), via)
            for r in rows]


class _Blobs:
    """Blob ids of repository files, each read once per call."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.known: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        if path not in self.known:
            try:
                self.known[path] = blob_sha((self.root / path).read_bytes()) if path else ""
            except OSError:
                self.known[path] = ""
        return self.known[path]


def _span(ranges: Sequence[Sequence[int]]) -> tuple[int, int]:
    spans = [tuple(r) for r in ranges if len(r) == 2]
    if not spans:
        return 0, 0
    return min(int(a) for a, _b in spans), max(int(b) for _a, b in spans)


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None
