"""Speed of `build_prompt` on one work tree: cold (empty cache), warm (median of N), a new
issue on the warm index, peak memory.

    python benchmarks/speed.py --repo-dir TREE [--budget 13000] [--runs 5] [--embed|--no-embed]
        [--stages] [--profile N] [--issue-file ISSUE.md] [--json]

The embedding model is loaded before anything is timed, so "cold" is the index (parsing every
file, embedding what the ranker embeds) and "warm" is a rebuild in the same process with the
cache and the model in place. The cache goes to a fresh temp dir (`NOFACE_CTX_CACHE_DIR`), never
into the tree. Stage times come from `Prompt.details["timings"]` (ms; warm: the median per stage).
`--stages` prints the per-stage table with its sums and the docs included; it measures BM25 only
unless `--embed` is given (without `--stages` embeddings are on unless `--no-embed`).
`--profile N` runs one more warm build under cProfile and prints the N most expensive functions
by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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


# Other issues for the same tree: a warm index, but queries (and code embeddings) not seen yet.
_NEW = (
    ("Migration autodetector crashes when a model field is renamed and altered at once",
     "makemigrations raises KeyError in generate_renamed_fields when a field is renamed and its "
     "max_length changed in the same run."),
    ("Admin changelist search ignores list_filter on a related field",
     "ModelAdmin.get_search_results builds the OR query before the filters, so search_fields on a "
     "ForeignKey return duplicates; lookup_spawns_duplicates should be consulted."),
    ("Template engine: {% include %} with only keyword leaks parent context",
     "IncludeNode.render passes context.flatten() when isolated_context is set; expected a new "
     "Context with only the given values."),
    ("HttpResponse.set_cookie() max_age as timedelta is rejected",
     "set_cookie(max_age=timedelta(days=1)) fails with TypeError: expires should be computed from "
     "the seconds of the timedelta."),
    ("Paginator.page() should accept a string number from the query string",
     "validate_number raises PageNotAnInteger for '2'; int() conversion happens too late."),
)
NEW_ISSUES = tuple({"id": f"speed-{n}", "title": t, "description": d} for n, (t, d) in enumerate(_NEW, 2))


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo-dir", required=True, help="a work tree (e.g. a materialised django)")
    p.add_argument("--budget", type=int, default=13000)
    p.add_argument("--runs", type=int, default=5, help="warm builds (the median is reported)")
    embed = p.add_mutually_exclusive_group()
    embed.add_argument("--embed", dest="embed", action="store_true", default=None,
                       help="load the real embedding model (the default without --stages)")
    embed.add_argument("--no-embed", dest="embed", action="store_false", help="BM25 only: no model")
    p.add_argument("--stages", action="store_true", help="per-stage timing table (BM25 only unless --embed)")
    p.add_argument("--profile", type=int, default=0, metavar="N", help="cProfile one more warm build; print top N")
    p.add_argument("--issue-file", help="Markdown issue: first line title, rest description")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    if args.embed is None:
        args.embed = not args.stages
    return args


def load_issue(path: str | None) -> dict[str, str]:
    if not path:
        return dict(DEFAULT_ISSUE)
    lines = Path(path).read_text().strip().splitlines()
    return {"id": Path(path).stem, "title": lines[0].lstrip("# ").strip(), "description": "\n".join(lines[1:]).strip()}


def load_model() -> None:
    """Load and warm up the embedding model (process-cached; `build_prompt` wraps it in its disk cache)."""
    from noface_ctx.config import ContextConfig
    from noface_ctx.rank.embed import get_embedder

    status = get_embedder(ContextConfig().embedding_model)
    if status.embedder is None:
        raise SystemExit(f"embedding model unavailable: {status.reason}")
    status.embedder.embed(["warm up"])


def measure(repo: Path, issue: dict[str, str] | None = None, budget: int = 13000, runs: int = 5,
            embed: bool = True, *, profile: int = 0) -> dict[str, Any]:
    """Model load, cold build, `runs` warm builds (and one profiled with `profile`), with stage
    timings and peak RSS after each phase. The caller's `NOFACE_CTX_CACHE_DIR` is restored."""
    from noface_ctx import build_prompt

    issue = issue or dict(DEFAULT_ISSUE)
    out: dict[str, Any] = {"repo_dir": str(repo), "budget": budget, "embeddings": embed, "runs": runs}
    t0 = time.perf_counter()
    if embed:
        load_model()
    out["model_load_s"] = time.perf_counter() - t0
    out["rss_after_model_mb"] = rss_mb()

    def build() -> Any:
        return build_prompt(issue, repo=str(repo), budget=budget, embed=embed)

    before = os.environ.get("NOFACE_CTX_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="noface-speed-") as cache:
        os.environ["NOFACE_CTX_CACHE_DIR"] = cache
        try:
            t0 = time.perf_counter()
            prompt = build()
            out["cold_s"] = time.perf_counter() - t0
            out["cold_stages_ms"] = dict(prompt.details.get("timings", {}))
            out["rss_after_cold_mb"] = rss_mb()
            warm: list[float] = []
            stages: list[dict[str, float]] = []
            for _ in range(runs):
                t0 = time.perf_counter()
                prompt = build()
                warm.append(time.perf_counter() - t0)
                stages.append(dict(prompt.details.get("timings", {})))
            out["warm_s"] = warm
            out["warm_median_s"] = statistics.median(warm) if warm else 0.0
            names = dict.fromkeys(k for s in stages for k in s)
            out["warm_stages_ms"] = {k: statistics.median(s.get(k, 0.0) for s in stages) for k in names}
            fresh: list[float] = []
            for other in NEW_ISSUES:
                t0 = time.perf_counter()
                build_prompt(other, repo=str(repo), budget=budget, embed=embed)
                fresh.append(time.perf_counter() - t0)
            out["new_issue_s"] = fresh
            out["new_issue_median_s"] = statistics.median(fresh)
            out["cold_index_s"] = (out["cold_stages_ms"].get("files", 0.0) + out["cold_stages_ms"].get("index", 0.0)) / 1000
            out["tokens"] = dict(prompt.tokens)
            out["docs_included"] = [d["slug"] for d in prompt.docs if d.get("included")]
            if profile:
                out["profile"] = _profile(build, profile)
        finally:
            if before is None:
                os.environ.pop("NOFACE_CTX_CACHE_DIR", None)
            else:
                os.environ["NOFACE_CTX_CACHE_DIR"] = before
    out["peak_rss_mb"] = rss_mb()
    out["files"] = sum(1 for _ in repo.rglob("*.py"))
    return out


def _profile(build: Any, top: int) -> str:
    prof = cProfile.Profile()
    prof.enable()
    build()
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def render(r: dict[str, Any], stages: bool = False) -> str:
    """The summary with a stage table; `stages`: the per-stage table with sums and the docs included."""
    cold, warm = r["cold_stages_ms"], r["warm_stages_ms"]
    runs = ", ".join(f"{w:.3f}" for w in r["warm_s"])
    embeddings = "on" if r["embeddings"] else "off"
    if stages:
        lines = [
            f"{r['repo_dir']} · embeddings {embeddings} · model load {r['model_load_s']:.2f} s",
            f"cold {r['cold_s']:.2f} s (index {r['cold_index_s']:.2f} s) · warm {runs} s · "
            f"new issue on the warm index, median {r['new_issue_median_s']:.3f} s",
        ]
    else:
        lines = [
            f"{r['repo_dir']}: {r['files']} .py files, budget {r['budget']:,}, embeddings {embeddings}",
            f"model load {r['model_load_s']:.2f} s · cold {r['cold_s']:.2f} s (files + index "
            f"{r['cold_index_s']:.2f} s) · warm median {r['warm_median_s']:.3f} s (runs: {runs})",
            f"new issue on the warm index (median of {len(r['new_issue_s'])}): {r['new_issue_median_s']:.3f} s "
            f"(runs: {', '.join(f'{x:.3f}' for x in r['new_issue_s'])})",
            f"peak RSS: after model {r['rss_after_model_mb']:,.0f} MB · "
            f"after cold {r['rss_after_cold_mb']:,.0f} MB · end {r['peak_rss_mb']:,.0f} MB",
        ]
    ms = ",.1f" if stages else ",.0f"
    lines += ["", "| stage | cold ms | warm ms (median) |", "|---|---:|---:|"]
    lines += [f"| {s} | {cold.get(s, 0):{ms}} | {warm.get(s, 0):{ms}} |" for s in dict.fromkeys([*cold, *warm])]
    if stages:
        lines.append(f"| **sum** | {sum(cold.values()):{ms}} | {sum(warm.values()):{ms}} |")
        lines.append(f"\ndocs included: {', '.join(r['docs_included']) or '-'}")
    if r.get("profile"):
        lines += ["", r["profile"]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    repo = Path(args.repo_dir).resolve()
    if not repo.is_dir():
        print(f"error: {args.repo_dir}: not a directory", file=sys.stderr)
        return 2
    result = measure(repo, load_issue(args.issue_file), args.budget, args.runs, args.embed, profile=args.profile)
    print(json.dumps(result, indent=1) if args.json else render(result, stages=args.stages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
