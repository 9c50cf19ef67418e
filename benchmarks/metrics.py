"""Gold labels and the retrieval metrics: file / function recall, Acc@k, MRR, and averages.

Gold functions are `path:Qualified.name`; their line span at the base commit comes from parsing
the gold file with tree-sitter here (independent of the retriever under test). When a name is
defined more than once (a property and its setter, a conditional definition), the definition
the gold patch touches is the one that counts.
"""

from __future__ import annotations

import ast
import functools
import re
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ACC_KS = (1, 3, 5, 10)

# --------------------------------------------------------------------------- gold labels


def gold_list(value: Any) -> list[str]:
    """`gold_files` / `gold_functions` as a list: stored either as a list or a Python-literal string."""
    if isinstance(value, str):
        value = ast.literal_eval(value) if value.strip() else []
    return [str(v) for v in value]


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def touched_old_lines(patch: str) -> dict[str, set[int]]:
    """Per file, the base-commit lines the gold patch removes or inserts next to."""
    out: dict[str, set[int]] = {}
    current: set[int] | None = None
    old = 0
    for line in patch.splitlines():
        if line.startswith("--- "):
            continue
        if line.startswith("+++ "):
            path = line[4:].strip()
            path = path[2:] if path.startswith("b/") else path
            current = out.setdefault(path, set())
            continue
        m = _HUNK.match(line)
        if m:
            old = int(m.group(1))
            continue
        if current is None or line.startswith("diff --git"):
            continue
        if line.startswith("-"):
            current.add(old)
            old += 1
        elif line.startswith("+"):
            current.update((max(old - 1, 1), old))
        elif line.startswith(" "):
            old += 1
    return out


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int


@functools.lru_cache(maxsize=1)
def _parser():
    import tree_sitter
    import tree_sitter_python

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))


def definitions(source: bytes) -> dict[str, list[Span]]:
    """Qualified name → line spans (1-based, inclusive, decorators excluded) of every def/class."""
    out: dict[str, list[Span]] = {}

    def walk(node: Any, prefix: str) -> None:
        for child in node.children:
            target = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
            if target is not None and target.type in ("function_definition", "class_definition"):
                name_node = target.child_by_field_name("name")
                name = name_node.text.decode("utf-8", "replace") if name_node is not None else "?"
                qual = f"{prefix}.{name}" if prefix else name
                out.setdefault(qual, []).append(Span(target.start_point.row + 1, target.end_point.row + 1))
                body = target.child_by_field_name("body")
                if body is not None:
                    walk(body, qual)
            elif child.type in ("if_statement", "try_statement", "else_clause", "elif_clause", "block",
                                "except_clause", "finally_clause", "with_statement"):
                walk(child, prefix)  # conditional definitions keep their enclosing prefix

    walk(_parser().parse(source).root_node, "")
    return out


def gold_function_spans(root: Path, gold_functions: Sequence[str], patch: str) -> dict[str, Span | None]:
    """Each gold function's span at the base commit (None when it cannot be found)."""
    touched = touched_old_lines(patch)
    parsed: dict[str, dict[str, list[Span]]] = {}
    out: dict[str, Span | None] = {}
    for gold in gold_functions:
        path, _, qual = gold.partition(":")
        if path not in parsed:
            try:
                parsed[path] = definitions((root / path).read_bytes())
            except OSError:
                parsed[path] = {}
        spans = parsed[path].get(qual, [])
        lines = touched.get(path, set())
        hit = [s for s in spans if any(s.start <= n <= s.end for n in lines)]
        chosen = hit or spans
        out[gold] = chosen[0] if chosen else None
    return out


# --------------------------------------------------------------------------- per-row metrics


def merge_ranges(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, merged inclusive ranges (adjacent ranges join)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def covered(span: Span, ranges: Sequence[tuple[int, int]]) -> bool:
    """True when every line of `span` lies inside the merged `ranges`."""
    return any(s <= span.start and span.end <= e for s, e in ranges)


def file_recall(gold_files: Sequence[str], included: Mapping[str, Sequence[tuple[int, int]]]) -> tuple[int, int]:
    """(found, total): gold files with any code in the prompt."""
    return sum(1 for g in gold_files if included.get(g)), len(gold_files)


def function_recall(spans: Mapping[str, Span | None], full: Mapping[str, Sequence[tuple[int, int]]]) -> tuple[int, int]:
    """(found, total): gold functions whose whole definition lies in included full-text ranges."""
    found = 0
    for gold, span in spans.items():
        path = gold.partition(":")[0]
        if span is not None and covered(span, merge_ranges(full.get(path, ()))):
            found += 1
    return found, len(spans)


def gold_rank(gold_files: Sequence[str], ranked: Sequence[str]) -> tuple[int | None, int | None]:
    """(rank of the first gold file, rank by which all gold files are in), 1-based; None if absent."""
    pos = {p: i + 1 for i, p in enumerate(ranked)}
    ranks = [pos.get(g) for g in gold_files]
    found = [r for r in ranks if r is not None]
    first = min(found) if found else None
    last = max(found) if found and len(found) == len(ranks) else None
    return first, last


def rank_metrics(gold_files: Sequence[str], ranked: Sequence[str]) -> dict[str, float]:
    """Acc@k (all gold files in the top k) and reciprocal rank of the first gold file."""
    first, last = gold_rank(gold_files, ranked)
    out = {f"acc@{k}": float(last is not None and last <= k) for k in ACC_KS}
    out["mrr"] = 1.0 / first if first else 0.0
    return out


# --------------------------------------------------------------------------- averages


def micro(items: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Pooled recall over gold items, and plain means of per-row figures.

    `items` hold `files` / `funcs` as (found, total) pairs plus numeric per-row values
    (acc@k, mrr, tokens, times); recall is pooled (found / total over all rows).
    """
    out: dict[str, float] = {"rows": float(len(items))}
    for key, name in (("files", "file_recall"), ("funcs", "function_recall")):
        pairs = [it[key] for it in items if key in it]
        if not pairs:
            continue
        found, total = sum(f for f, _ in pairs), sum(t for _, t in pairs)
        out[f"{key}_found"], out[f"{key}_total"] = float(found), float(total)
        out[name] = found / total if total else float("nan")
    numeric = {k for it in items for k, v in it.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for key in sorted(numeric):
        values = [float(it[key]) for it in items if isinstance(it.get(key), (int, float))]
        out[key] = sum(values) / len(values) if values else float("nan")
    return out


def ratio(ours: float, base: float) -> float | None:
    """ours / baseline, None when the baseline is zero or undefined."""
    if base != base or ours != ours or base == 0:  # NaN checks
        return None
    return ours / base


# --------------------------------------------------------------------------- distraction


def _gold_header_at(text: str, gold_files: Sequence[str]) -> int | None:
    """Where the first code block of a gold file starts in the prompt's CODE CONTEXT section."""
    start = text.find("CODE CONTEXT:\n")
    if start < 0:
        return None
    end = text.find("\nOMITTED CONTEXT:", start)
    section = text[start:end if end >= 0 else len(text)]
    hits = [m.start() for g in gold_files
            for m in [re.search(rf"^{re.escape(g)}(?=[:\s])", section, re.M)] if m is not None]
    return start + min(hits) if hits else None


OUTLINE_FORMS = frozenset({"outline", "class-outline", "outline+defs"})  # forms that show signatures, not bodies


def distraction(prompt_text: str, code_rows: Sequence[Mapping[str, Any]], gold_files: Sequence[str],
                count: Callable[[str], int], gold_test_files: Sequence[str] = ()) -> dict[str, int | None]:
    """What the agent reads that the fix did not need: code tokens outside the gold files, the
    tokens in gold files or gold test files, the tokens spent on outlines, and the prompt tokens
    before the first gold code block (None when no gold file's code is shown)."""
    gold = set(gold_files)
    useful = gold | set(gold_test_files)
    code = sum(int(r.get("tokens", 0)) for r in code_rows)
    outside = sum(int(r.get("tokens", 0)) for r in code_rows if r.get("path") not in gold)
    at = _gold_header_at(prompt_text, gold_files)
    return {"code_tokens": code, "outside_gold_tokens": outside,
            "gold_or_test_tokens": sum(int(r.get("tokens", 0)) for r in code_rows if r.get("path") in useful),
            "outline_tokens": sum(int(r.get("tokens", 0)) for r in code_rows if r.get("form") in OUTLINE_FORMS),
            "tokens_before_gold": None if at is None else count(prompt_text[:at])}


def test_file_shown(prompt_text: str, code_rows: Sequence[Mapping[str, Any]],
                    gold_test_files: Sequence[str]) -> bool | None:
    """Whether the prompt shows a gold test file: its code, or an explicit `NEED_CODE:` pointer
    naming its path (the agent can fetch it). None when the row has no gold test file."""
    if not gold_test_files:
        return None
    shown = {r.get("path") for r in code_rows}
    for path in gold_test_files:
        if path in shown or re.search(rf"NEED_CODE:\s*{re.escape(path)}(?=[:\s]|$)", prompt_text, re.M):
            return True
    return False


def distraction_summary(items: Sequence[Mapping[str, Any]]) -> dict[str, float | int | None]:
    """Pooled share of code tokens outside gold files; median tokens before the first gold item
    over the rows that show one, and how many rows show none."""
    code = sum(int(it["code_tokens"]) for it in items)
    outside = sum(int(it["outside_gold_tokens"]) for it in items)
    before = sorted(int(it["tokens_before_gold"]) for it in items if it.get("tokens_before_gold") is not None)
    useful = [int(it["gold_or_test_tokens"]) for it in items if "gold_or_test_tokens" in it]
    outlines = [int(it["outline_tokens"]) for it in items if "outline_tokens" in it]
    return {
        "outside_gold_share": outside / code if code else None,
        "gold_or_test_share": sum(useful) / code if code and len(useful) == len(items) else None,
        "outline_tokens": sum(outlines) if len(outlines) == len(items) else None,
        "outline_share": sum(outlines) / code if code and len(outlines) == len(items) else None,
        "median_tokens_before_gold": statistics.median(before) if before else None,
        "rows_without_gold_code": sum(1 for it in items if it.get("tokens_before_gold") is None),
        "rows": len(items),
    }
