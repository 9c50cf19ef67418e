"""Speed of `build_prompt` on one work tree: cold (empty cache), warm (median of N), peak memory.

    python benchmarks/speed.py --repo-dir TREE [--budget 13000] [--runs 5] [--no-embed]
        [--issue-file ISSUE.md] [--json]

The embedding model is loaded before anything is timed, so "cold" is the index (parsing every
file, embedding what the ranker embeds) and "warm" is a rebuild in the same process with the
cache and the model in place. The cache goes to a fresh temp dir, never into the tree.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

# A made-up but typical issue (an ORM bug report) so the default run exercises every stage.
DEFAULT_ISSUE = {
    "id": "speed-1",
    "title": "QuerySet.order_by() with a related field ignores the Meta.ordering of the related model",
    "description": (
        "When ordering a queryset by a foreign key (`Book.objects.order_by('author')`), the SQL "
        "compiler should expand the related model's Meta.ordering, but find_ordering_name returns "
        "the primary key instead. The same happens with `values()` followed by `order_by()`.\n\n"
        "Expected: ORDER BY author.name. Actual: ORDER BY author.id."
    ),
}


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo-dir", required=True, help="a work tree (e.g. a materialised django)")
    p.add_argument("--budget", type=int, default=13000)
    p.add_argument("--runs", type=int, default=5, help="warm builds (the median is reported)")
    p.add_argument("--no-embed", action="store_true", help="BM25 only: no model")
    p.add_argument("--issue-file", help="Markdown issue: first line title, rest description")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p.parse_args(argv)


def load_issue(path: str | None) -> dict[str, str]:
    if not path:
        return dict(DEFAULT_ISSUE)
    lines = Path(path).read_text().strip().splitlines()
    return {"id": Path(path).stem, "title": lines[0].lstrip("# ").strip(), "description": "\n".join(lines[1:]).strip()}


def measure(repo: Path, issue: dict[str, str], budget: int, runs: int, embed: bool) -> dict[str, Any]:
    """Model load, cold build, `runs` warm builds, with stage timings and peak RSS after each phase."""
    from noface_ctx import build_prompt

    out: dict[str, Any] = {"repo_dir": str(repo), "budget": budget, "embeddings": embed, "runs": runs}
    t0 = time.perf_counter()
    if embed:
        from noface_ctx.config import ContextConfig
        from noface_ctx.embed import get_embedder

        status = get_embedder(ContextConfig().embedding_model)
        if status.embedder is not None:
            status.embedder.embed(["warm up"])
    out["model_load_s"] = time.perf_counter() - t0
    out["rss_after_model_mb"] = rss_mb()
    with tempfile.TemporaryDirectory(prefix="noface-speed-") as cache:
        os.environ["NOFACE_CTX_CACHE_DIR"] = cache
        t0 = time.perf_counter()
        prompt = build_prompt(issue, repo=str(repo), budget=budget, embed=embed)
        out["cold_s"] = time.perf_counter() - t0
        out["cold_stages_ms"] = dict(prompt.details.get("timings", {}))
        out["rss_after_cold_mb"] = rss_mb()
        warm: list[float] = []
        for _ in range(runs):
            t0 = time.perf_counter()
            prompt = build_prompt(issue, repo=str(repo), budget=budget, embed=embed)
            warm.append(time.perf_counter() - t0)
        out["warm_s"] = warm
        out["warm_median_s"] = statistics.median(warm)
        out["warm_stages_ms"] = dict(prompt.details.get("timings", {}))
        out["tokens"] = dict(prompt.tokens)
    os.environ.pop("NOFACE_CTX_CACHE_DIR", None)
    out["peak_rss_mb"] = rss_mb()
    out["files"] = sum(1 for _ in repo.rglob("*.py"))
    return out


def render(r: dict[str, Any]) -> str:
    stages = sorted(set(r["cold_stages_ms"]) | set(r["warm_stages_ms"]))
    lines = [
        f"{r['repo_dir']}: {r['files']} .py files, budget {r['budget']:,}, embeddings {'on' if r['embeddings'] else 'off'}",
        f"model load {r['model_load_s']:.2f} s · cold {r['cold_s']:.2f} s · warm median {r['warm_median_s']:.3f} s "
        f"(runs: {', '.join(f'{w:.3f}' for w in r['warm_s'])})",
        f"peak RSS: after model {r['rss_after_model_mb']:,.0f} MB · after cold {r['rss_after_cold_mb']:,.0f} MB · "
        f"end {r['peak_rss_mb']:,.0f} MB",
        "",
        "| stage | cold ms | warm ms |",
        "|---|---:|---:|",
    ]
    lines += [f"| {s} | {r['cold_stages_ms'].get(s, 0):,.0f} | {r['warm_stages_ms'].get(s, 0):,.0f} |" for s in stages]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    repo = Path(args.repo_dir).resolve()
    if not repo.is_dir():
        print(f"error: {args.repo_dir}: not a directory", file=sys.stderr)
        return 2
    result = measure(repo, load_issue(args.issue_file), args.budget, args.runs, embed=not args.no_embed)
    print(json.dumps(result, indent=1) if args.json else render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
