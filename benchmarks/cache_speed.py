"""What the pickle-free cache format costs: load and save time of every cache file of one tree.

    python benchmarks/cache_speed.py --repo-dir TREE [--runs 5] [--json]

Builds a prompt once (BM25 only) with the cache in a fresh temp dir, then, per cache file:
its size, the median time to decode it from disk in a new state (`cachefile.load` with the
in-process memo cleared, i.e. what a new process pays) and to encode + write it, next to
the same value pickled and unpickled in memory (the format it replaced; measured here only
for comparison, on data this script produced itself). Also times a whole warm `preview` in a
new process (`python -m noface_ctx preview`), which reads every cache file once.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle  # comparison only: never applied to data read from disk
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ISSUE = {
    "id": "cache-1",
    "title": "QuerySet.order_by() with a related field ignores the Meta.ordering of the related model",
    "description": "find_ordering_name returns the primary key instead of the related ordering.",
}


def _median(fn: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(repo: Path, runs: int) -> dict:
    from noface_ctx import _cachefile as cachefile  # private: times the cache files themselves
    from noface_ctx import build_prompt
    from noface_ctx.config import load_config

    tmp = Path(tempfile.mkdtemp(prefix="noface-cache-speed-"))
    os.environ["NOFACE_CTX_CACHE_DIR"] = str(tmp)
    issue_file = tmp / "issue.json"
    issue_file.write_text(json.dumps(ISSUE))
    t0 = time.perf_counter()
    build_prompt(str(issue_file), repo=repo, embed=False)
    cold = time.perf_counter() - t0
    rows = []
    for path in sorted(p for p in tmp.rglob("*.cache")):
        raw = path.read_bytes()
        version, value = cachefile.decode(raw)

        def load(path: Path = path, version: Any = version) -> None:
            cachefile._MEMO.clear()  # private: times the disk read, so only the decoded-file memo is emptied
            assert cachefile.load(path, version) is not None

        def save(path: Path = path, version: Any = version, value: Any = value) -> None:
            cachefile.save(path, version, value)

        blob = pickle.dumps((version, value), protocol=pickle.HIGHEST_PROTOCOL)
        rows.append({
            "file": str(path.relative_to(tmp)).split("/", 1)[1],
            "bytes": len(raw),
            "load_s": round(_median(load, runs), 4),
            "save_s": round(_median(save, runs), 4),
            "pickle_bytes": len(blob),
            "pickle_load_s": round(_median(lambda blob=blob: pickle.loads(blob), runs), 4),
            "pickle_save_s": round(_median(lambda v=(version, value): pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL), runs), 4),
        })
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    cmd = [sys.executable, "-m", "noface_ctx", "preview", str(issue_file), "--repo", str(repo), "--no-embed", "-q"]
    new_process = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True, check=True)
        new_process.append(time.perf_counter() - t0)
    return {"repo": str(repo), "cold_s": round(cold, 2), "files": rows,
            "warm_preview_new_process_s": round(statistics.median(new_process), 3), "config": str(load_config(repo).root)}


def render(result: dict) -> str:
    out = [f"{result['repo']}: cold build {result['cold_s']} s; warm `preview` in a new process (median): "
           f"{result['warm_preview_new_process_s']} s", "",
           "| file | size | load | save | pickle size | unpickle | pickle |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in result["files"]:
        out.append(f"| {r['file']} | {r['bytes'] / 1e6:.1f} MB | {r['load_s'] * 1000:.0f} ms | {r['save_s'] * 1000:.0f} ms | "
                   f"{r['pickle_bytes'] / 1e6:.1f} MB | {r['pickle_load_s'] * 1000:.0f} ms | {r['pickle_save_s'] * 1000:.0f} ms |")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repo-dir", required=True)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    result = measure(Path(args.repo_dir).resolve(), args.runs)
    print(json.dumps(result, indent=1) if args.json else render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
