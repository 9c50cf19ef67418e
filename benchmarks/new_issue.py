"""A new issue on a warm, indexed repository: what an orchestrator and a person writing an issue wait for.

    noface-ctx index --repo TREE                  # once: code index and every vector, in the user cache
    python benchmarks/new_issue.py --repo-dir TREE [--budget 13000]

For each of `speed.py`'s made-up new issues (`NEW_ISSUES`, never seen by the cache):

- **process**: a whole `python -m noface_ctx preview ISSUE.md -q` process (start-up, config,
  scan, index load, model load, ranking, freshness, render), its wall time and peak RSS;
- **in-process**: `build_prompt` in one long-lived process (as the MCP server or an orchestrator
  calls it) after one warm-up build of another issue, with the stage timings and how many texts
  the prompt had to embed itself (`details.embedded_now`: 4 or fewer means only the issue).

Every title carries a tag unique to the run (`--tag`, default the current time), so a second run
on the same cache still measures new issues (a prompt stores its issue's vector). Beside each wall
time the CPU time (user + sys) is given: on a shared machine it is the steadier figure.

Uses the cache `NOFACE_CTX_CACHE_DIR` points at (or the default user cache), never a fresh one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.speed import DEFAULT_ISSUE, NEW_ISSUES


def _as_markdown(issue: dict[str, str], tag: str) -> str:
    return f"# {issue['title']} ({tag})\n\n{issue['description']}\n"


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo-dir", required=True)
    p.add_argument("--budget", type=int, default=13000)
    p.add_argument("--tag", default=time.strftime("run %Y%m%d-%H%M%S"), help="appended to every title")
    args = p.parse_args()
    repo = Path(args.repo_dir).resolve()

    process_s: list[float] = []
    process_cpu: list[float] = []
    with tempfile.TemporaryDirectory(prefix="noface-new-issue-") as tmp:
        for issue in NEW_ISSUES:
            path = Path(tmp) / f"{issue['id']}.md"
            path.write_text(_as_markdown(issue, args.tag))
            t0, c0 = time.perf_counter(), _children_cpu()
            subprocess.run([sys.executable, "-m", "noface_ctx", "preview", str(path), "--repo", str(repo),
                            "--budget", str(args.budget), "-q"], check=True, capture_output=True)
            process_s.append(time.perf_counter() - t0)
            process_cpu.append(_children_cpu() - c0)
    child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    from noface_ctx import build_prompt

    warm = {**DEFAULT_ISSUE, "title": f"{DEFAULT_ISSUE['title']} ({args.tag})"}
    build_prompt(warm, repo=str(repo), budget=args.budget)  # the process warms up once
    inproc: list[float] = []
    inproc_cpu: list[float] = []
    rows = []
    for issue in NEW_ISSUES:
        issue = {**issue, "id": issue["id"] + "-b", "title": f"{issue['title']} (again, reworded, {args.tag})"}
        t0, c0 = time.perf_counter(), time.process_time()
        prompt = build_prompt(issue, repo=str(repo), budget=args.budget)
        inproc.append(time.perf_counter() - t0)
        inproc_cpu.append(time.process_time() - c0)
        rows.append({"embedded_now": prompt.details.get("embedded_now"), "timings_ms": prompt.details.get("timings")})
    result = {
        "tag": args.tag, "load_average": os.getloadavg(),
        "process_s": process_s, "process_median_s": statistics.median(process_s),
        "process_cpu_s": process_cpu, "process_median_cpu_s": statistics.median(process_cpu),
        "process_peak_rss_mb": child_rss,
        "in_process_s": inproc, "in_process_median_s": statistics.median(inproc),
        "in_process_cpu_s": inproc_cpu, "in_process_median_cpu_s": statistics.median(inproc_cpu), "rows": rows,
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
