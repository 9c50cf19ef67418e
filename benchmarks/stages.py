"""Per-stage timings of `build_prompt`: one cold build (empty cache), then warm builds in-process.

    python benchmarks/stages.py --repo-dir TREE [--embed] [--runs 3] [--profile 25] [--json]

Stage times come from `Prompt.details["timings"]` (ms). With `--embed` the model is loaded (and
warmed up) before anything is timed. The cache goes to a fresh temp dir (`NOFACE_CTX_CACHE_DIR`),
never into the tree. `--profile N` runs one more warm build under cProfile and prints the N most
expensive functions by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

ISSUE = {
    "id": "stages-1",
    "title": "QuerySet.order_by() with a related field ignores the Meta.ordering of the related model",
    "description": (
        "When ordering a queryset by a foreign key (`Book.objects.order_by('author')`), the SQL "
        "compiler should expand the related model's Meta.ordering, but find_ordering_name returns "
        "the primary key instead. The same happens with `values()` followed by `order_by()`.\n\n"
        "Expected: ORDER BY author.name. Actual: ORDER BY author.id."
    ),
}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo-dir", required=True, help="a work tree (e.g. a materialised django)")
    p.add_argument("--embed", action="store_true", help="load the real embedding model (default: BM25 only)")
    p.add_argument("--budget", type=int, default=13000)
    p.add_argument("--runs", type=int, default=3, help="warm builds (the median per stage is reported)")
    p.add_argument("--profile", type=int, default=0, metavar="N", help="cProfile one more warm build; print top N")
    p.add_argument("--json", action="store_true")
    return p.parse_args(argv)


def _embedder(embed: bool) -> Any:
    if not embed:
        return False
    from noface_ctx.config import ContextConfig
    from noface_ctx.embed import get_embedder

    status = get_embedder(ContextConfig().embedding_model)
    if status.embedder is None:
        raise SystemExit(f"embedding model unavailable: {status.reason}")
    status.embedder.embed(["warm up"])
    return True  # build_prompt wraps the (process-cached) model in its disk cache itself


def measure(repo: Path, embed: bool, budget: int, runs: int, profile: int) -> dict[str, Any]:
    from noface_ctx import build_prompt

    t0 = time.perf_counter()
    embed_arg = _embedder(embed)
    out: dict[str, Any] = {"repo_dir": str(repo), "embed": embed, "model_load_s": round(time.perf_counter() - t0, 2)}
    before = os.environ.get("NOFACE_CTX_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="noface-stages-") as cache:
        os.environ["NOFACE_CTX_CACHE_DIR"] = cache
        try:
            t0 = time.perf_counter()
            prompt = build_prompt(ISSUE, repo=str(repo), budget=budget, embed=embed_arg)
            out["cold_s"] = round(time.perf_counter() - t0, 3)
            out["cold_ms"] = dict(prompt.details["timings"])
            walls, stages = [], []
            for _ in range(runs):
                t0 = time.perf_counter()
                prompt = build_prompt(ISSUE, repo=str(repo), budget=budget, embed=embed_arg)
                walls.append(time.perf_counter() - t0)
                stages.append(dict(prompt.details["timings"]))
            out["warm_s"] = [round(w, 3) for w in walls]
            out["warm_ms"] = {k: statistics.median(s.get(k, 0.0) for s in stages) for k in stages[0]}
            out["docs_included"] = [d["slug"] for d in prompt.docs if d.get("included")]
            if profile:
                prof = cProfile.Profile()
                prof.enable()
                build_prompt(ISSUE, repo=str(repo), budget=budget, embed=embed_arg)
                prof.disable()
                buf = io.StringIO()
                pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(profile)
                out["profile"] = buf.getvalue()
        finally:
            if before is None:
                os.environ.pop("NOFACE_CTX_CACHE_DIR", None)
            else:
                os.environ["NOFACE_CTX_CACHE_DIR"] = before
    return out


def render(r: dict[str, Any]) -> str:
    stages = list(dict.fromkeys([*r["cold_ms"], *r["warm_ms"]]))
    lines = [
        f"{r['repo_dir']} · embeddings {'on' if r['embed'] else 'off'} · model load {r['model_load_s']} s",
        f"cold {r['cold_s']:.2f} s · warm {', '.join(f'{w:.3f}' for w in r['warm_s'])} s",
        "",
        "| stage | cold ms | warm ms (median) |",
        "|---|---:|---:|",
    ]
    lines += [f"| {s} | {r['cold_ms'].get(s, 0):,.1f} | {r['warm_ms'].get(s, 0):,.1f} |" for s in stages]
    lines.append(f"| **sum** | {sum(r['cold_ms'].values()):,.1f} | {sum(r['warm_ms'].values()):,.1f} |")
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
    result = measure(repo, args.embed, args.budget, args.runs, args.profile)
    print(json.dumps(result, indent=1) if args.json else render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
