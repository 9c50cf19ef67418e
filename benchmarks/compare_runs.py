"""Compare two retrieval-benchmark runs row by row: are the prompts byte-identical, do the figures match?

    python benchmarks/compare_runs.py BEFORE/results.json AFTER/results.json [--rows-only-in-both]

For a refactor that must not change behaviour: every row and budget present in both runs is
compared by the hash of its prompt (`prompt_sha`), its recall figures and its ranking figures.
Exit code 0 when everything compared is identical, 1 otherwise (the differing rows are listed).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

RANK_KEYS = ("gold_rank", "acc@1", "acc@3", "acc@5", "acc@10", "mrr", "ranked_top")
BUDGET_KEYS = ("prompt_sha", "files", "funcs", "tokens", "code")


def _rows(path: Path) -> dict[str, Mapping[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {r["instance_id"]: r for r in data["rows"] if "ours" in r}


def compare(before: Mapping[str, Mapping[str, Any]], after: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Per row in both runs: the keys that differ (ranking keys, and `budget/key` per budget)."""
    both = sorted(set(before) & set(after))
    diffs: dict[str, list[str]] = {}
    compared = 0
    for iid in both:
        b, a = before[iid]["ours"], after[iid]["ours"]
        if "error" in b or "error" in a:
            diffs[iid] = [f"error: {b.get('error', '')!s} | {a.get('error', '')!s}"]
            continue
        out = [k for k in RANK_KEYS if b.get(k) != a.get(k)]
        for budget in sorted(set(b["budgets"]) & set(a["budgets"]), key=int):
            bb, ab = b["budgets"][budget], a["budgets"][budget]
            compared += 1
            out += [f"{budget}/{k}" for k in BUDGET_KEYS if k in bb and k in ab and bb[k] != ab[k]]
        if out:
            diffs[iid] = out
    return {"rows_compared": len(both), "prompts_compared": compared, "differing": diffs,
            "only_before": sorted(set(before) - set(after)), "only_after": sorted(set(after) - set(before))}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("before", type=Path)
    p.add_argument("after", type=Path)
    args = p.parse_args(argv)
    result = compare(_rows(args.before), _rows(args.after))
    print(f"rows in both runs: {result['rows_compared']}, prompts compared: {result['prompts_compared']}, "
          f"rows that differ: {len(result['differing'])}")
    for iid, keys in result["differing"].items():
        print(f"  {iid}: {', '.join(keys)}")
    for side in ("only_before", "only_after"):
        if result[side]:
            print(f"{side.replace('_', ' ')}: {len(result[side])} rows")
    return 1 if result["differing"] else 0


if __name__ == "__main__":
    sys.exit(main())
