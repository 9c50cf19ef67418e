"""The report rows naming each code candidate: where it is, its signals and why it is there
(`details.code_report`, the explain table, the MCP server's answers)."""

from __future__ import annotations

from typing import TypedDict

from noface_ctx.datatypes import Candidate


class CodeLocation(TypedDict):
    """The fields naming a code candidate in report rows."""

    path: str
    symbol: str
    kind: str
    start_line: int
    end_line: int


class CodeReportRow(CodeLocation):
    """One row of `CodeRanking.report`: where a candidate is, its signals and why."""

    bm25: float
    embedding: float | None
    boosts: float
    score: float
    required: bool
    reasons: list[str]


def code_location(c: Candidate, kind: str | None = None) -> dict[str, object]:
    """The fields naming a code candidate in report rows (`kind` defaults to its symbol kind): a
    `CodeLocation` as a plain dict, which callers extend with fields of their own."""
    return {**_location(c, kind)}


def _location(c: Candidate, kind: str | None = None) -> CodeLocation:
    kind = c.symbol_kind if kind is None else kind
    return {"path": c.path, "symbol": c.ref, "kind": kind, "start_line": c.start_line, "end_line": c.end_line}


def report_row(c: Candidate) -> CodeReportRow:
    """The report row of one code candidate: location, rounded signals, reasons."""
    d = c.scores
    return {
        **_location(c),
        "bm25": round(d.get("bm25", 0.0), 4),
        "embedding": round(d["embedding"], 4) if "embedding" in d else None,
        "boosts": round(d.get("boost", 0.0), 4),
        "score": round(c.score, 4),
        "required": c.required,
        "reasons": list(c.reasons),
    }
