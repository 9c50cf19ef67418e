"""The `Prompt` value: the packed text plus the rows that explain it (tokens, docs, code, details).

`_pipeline.py` runs the stages; this module only assembles their results into the JSON-shaped
rows of `schema.py`. It decides nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast

from noface_ctx._budget import TEST_MAX, TEST_SHARE, omitted_cost
from noface_ctx._render import Fixed
from noface_ctx._tokens import count_tokens
from noface_ctx.datatypes import Chosen, Issue, Omitted, Prompt, RepoFiles, Selection
from noface_ctx.rank.code import CodeRanking
from noface_ctx.rank.code_report import code_location
from noface_ctx.rank.complexity import Complexity
from noface_ctx.rank.docs import DocRanking
from noface_ctx.schema import CodeRow, DocRow, TokensJSON


class RunLog(Protocol):
    """What the pipeline recorded while the stages ran."""

    timings: dict[str, float]
    warnings: list[str]
    important: list[str]
    embedded_now: int


@dataclass(frozen=True, slots=True)
class Packed:
    """What packing produced: the final text and what it holds."""

    text: str
    fixed: Fixed
    selection: Selection
    clashes: tuple[str, ...]
    dropped: tuple[Omitted, ...]  # chosen items moved out by the final count
    below_floor: int = 0  # ranked code items under CODE_FLOOR, left out whatever the budget



def assemble_prompt(issue: Issue, total: int, files: RepoFiles, doc_rank: DocRanking,
                    code_rank: CodeRanking, complexity: Complexity, embed_note: str, packed: Packed,
                    run: RunLog, code_floor: float) -> Prompt:
    """The `Prompt`: the packed text, the token counts, the doc and code rows, and `details`."""
    sel = packed.selection
    docs_tokens = sum(c.form.tokens for c in sel.docs)
    code_tokens = sum(c.form.tokens for c in sel.code)
    tokens: TokensJSON = {
        "total": count_tokens(packed.text),
        "budget": total,
        "docs": docs_tokens,
        "code": code_tokens,
        "fixed": count_tokens(packed.fixed.head) + count_tokens(packed.fixed.tail),
        "omitted": omitted_cost(sel.omitted),
    }
    manifest = issue.manifest
    details = {
        "complexity": complexity.to_dict(),
        "k": doc_rank.k,
        "embedder": embed_note,
        "embedding_used": {"docs": bool(doc_rank.embedding_used), "code": bool(code_rank.embedding_used)},
        "ranked_files": list(code_rank.ranked_files),
        "timings": dict(run.timings),  # milliseconds per stage
        "timings_unit": "ms",
        "manifest": manifest.to_dict() if manifest is not None else None,
        "manifest_source": manifest.source if manifest is not None else "",
        "issue_truncated_tokens": packed.fixed.issue_cut,
        "docs_budget": sel.docs_budget,
        "code_budget": sel.code_budget,
        "clashes": list(packed.clashes),
        "notes": [*doc_rank.notes, *code_rank.notes],
        "embedded_now": run.embedded_now,
        "skipped": [_omitted_dict(o) for o in sel.skipped],
        "code_floor": {"score": code_floor, "below": packed.below_floor},
        "tests_beside_code": {"tokens": sum(c.form.tokens for c in sel.code if c.candidate in code_rank.tests),
                              "share": TEST_SHARE, "max_tokens": TEST_MAX},
        "result_warnings": list(run.important),  # the warnings `preview -q` still prints
    }
    return Prompt(
        text=packed.text,
        issue=issue,
        tokens=tokens,
        docs=tuple(_doc_rows(doc_rank, sel)),
        code=tuple(_code_row(c) for c in sel.code),
        excluded=files.excluded,
        omitted=sel.omitted,
        warnings=tuple(run.warnings),
        details=details,
    )


def _row_dict(row: Any) -> dict[str, Any]:
    if isinstance(row, Mapping):
        return dict(row)
    to_dict = getattr(row, "to_dict", None)
    if callable(to_dict):
        return dict(to_dict())
    import dataclasses

    return dataclasses.asdict(row)


def _doc_rows(doc_rank: DocRanking, sel: Selection) -> list[DocRow]:
    """The ranker's report rows, completed with what the packer decided for each doc."""
    chosen = {(c.candidate.path, c.candidate.ref): c for c in sel.docs}
    decided = {(o.path, o.ref): o for o in (*sel.omitted, *sel.skipped) if o.kind == "doc"}
    rows: list[DocRow] = []
    for raw in doc_rank.report:
        row = cast(DocRow, _row_dict(raw))
        key = (row.get("path", ""), row.get("slug", ""))
        row.setdefault("stale", False)
        row.setdefault("stale_reasons", [])
        if key in chosen:
            form = chosen[key].form
            row.update({"included": True, "tokens": form.tokens, "form": form.label,
                        "ranges": [list(r) for r in form.ranges]})
            if form.label != "full":
                row["reason"] = f"{row.get('reason', '')}; included as {form.label}".lstrip("; ")
        else:
            row.update({"included": False, "tokens": 0, "form": ""})
            if key in decided:
                row["reason"] = decided[key].reason
        rows.append(row)
    return rows


def _code_row(item: Chosen) -> CodeRow:
    c = item.candidate
    return {
        **code_location(c, c.symbol_kind or ("file" if not c.ref else "")),  # type: ignore[typeddict-item]
        "tokens": item.form.tokens,
        "score": round(float(c.score), 4),
        "form": item.form.label,
        "required": c.required,
        "reason": "; ".join(c.reasons),
        **({"ranges": [list(r) for r in item.form.ranges]} if item.form.ranges else {}),
    }


def _omitted_dict(o: Omitted) -> dict[str, Any]:
    return {"kind": o.kind, "path": o.path, "ref": o.ref, "reason": o.reason, "request": o.request}
