"""Speed of the MCP server on one work tree, driven by the SDK's stdio client like a harness does.

    python benchmarks/mcp_speed.py --repo-dir TREE [--issue-file ISSUE.md] [--cache-dir DIR]
        [--no-embed] [--runs 3] [--json]

Measures: start-up (spawn → `initialize` answered → `list_tools`), the first `build_prompt`
(it waits for the background warm-up: scan, index, model), then `--runs` more `build_prompt`
calls for the same issue (the warm path; target ≤ 0.3 s), warm `need_code` and `search_code`.
The index cache goes to `--cache-dir` (default: a fresh temp dir, so the first call is a cold
index build); `NEED_*` answers append to the tree's `.noface/requests.jsonl`, so point
`--repo-dir` at a scratch clone. The issue defaults to the one `speed.py` uses.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.speed import DEFAULT_ISSUE  # noqa: E402  (after the sys.path line above)

TARGET_WARM = 0.3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo-dir", required=True)
    ap.add_argument("--issue-file")
    ap.add_argument("--cache-dir")
    ap.add_argument("--no-embed", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--code-target", default="django/db/models/sql/compiler.py::SQLCompiler.find_ordering_name")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    tmp = tempfile.TemporaryDirectory(prefix="mcp-speed-")
    issue = args.issue_file
    if not issue:
        issue = str(Path(tmp.name) / "issue.md")
        Path(issue).write_text(f"# {DEFAULT_ISSUE['title']}\n\n{DEFAULT_ISSUE['description']}\n")
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "HF_HUB_OFFLINE", "TIKTOKEN_CACHE_DIR")}
    env["PYTHONPATH"] = str(ROOT)
    env["NOFACE_CTX_CACHE_DIR"] = args.cache_dir or str(Path(tmp.name) / "cache")
    server_args = ["-m", "noface_ctx", "mcp", "--repo", args.repo_dir, "--issue", issue]
    if args.no_embed:  # a config beside the tree's own would change the repository: use a temp copy
        cfg = Path(tmp.name) / "noface.toml"
        cfg.write_text("[context]\nembeddings = false\n")
        server_args += ["--config", str(cfg)]
    params = StdioServerParameters(command=sys.executable, args=server_args, env=env, cwd=args.repo_dir)
    figures: dict = {}

    async def drive() -> None:
        t0 = time.perf_counter()
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                figures["initialize_s"] = time.perf_counter() - t0
                tools = await session.list_tools()
                figures["startup_s"] = time.perf_counter() - t0
                figures["tools"] = len(tools.tools)

                async def timed(name: str, arguments: dict) -> tuple[float, object]:
                    t = time.perf_counter()
                    result = await session.call_tool(name, arguments, read_timeout_seconds=1800)
                    if result.is_error:
                        raise SystemExit(f"{name} failed: {result.content[0].text}")
                    return time.perf_counter() - t, result

                figures["first_build_prompt_s"], first = await timed("build_prompt", {})
                warm = [(await timed("build_prompt", {}))[0] for _ in range(args.runs)]
                figures["warm_build_prompt_s"] = warm
                figures["warm_build_prompt_median_s"] = statistics.median(warm)
                figures["prompt_tokens"] = first.structured_content["tokens"]["total"]
                figures["embeddings"] = first.structured_content.get("details", {}).get("embedder", "")
                code = [(await timed("need_code", {"target": args.code_target}))[0] for _ in range(args.runs)]
                figures["warm_need_code_median_s"] = statistics.median(code)
                search = [(await timed("search_code", {"query": DEFAULT_ISSUE["title"], "k": 10}))[0] for _ in range(args.runs)]
                figures["search_code_first_s"] = search[0]
                figures["warm_search_code_median_s"] = statistics.median(search[1:] or search)

    anyio.run(drive)
    figures["warm_target_met"] = figures["warm_build_prompt_median_s"] <= TARGET_WARM
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            shown = f"{value:.3f}" if isinstance(value, float) else (
                ", ".join(f"{v:.3f}" for v in value) if isinstance(value, list) else str(value))
            print(f"{key:32} {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
